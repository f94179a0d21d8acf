"""Standings and tiebreaks (名次) — RULES.md §4, TOURNAMENT_FILE.md "Criterion keys".

Pure core: standard library only, no Django. The input is one ``Outcome`` per pair per round (what
the pair earned: 场分 CF, 级差分 JCF, its signed 级差, the levels it climbed) and the referee's
``Deduction``s (级差分扣分); the output is a total order of every registered pair, each row saying
which criterion put it below the row above (``decided_by``).

How a ranking is built (RULES.md §4):

1. Match points (``cf``) always come first and the drawing of lots (``lot``) always last; the
   tournament's ordered criteria sit in between (``PRESETS`` or any list of ``CRITERIA`` keys).
2. Every criterion except ``head_to_head`` is a per-pair number, so a run of such criteria is one
   sort with a key tuple. The pairs left tied on a whole run form a *tie group*.
3. ``head_to_head`` works on a tie group (pairs tied on everything before it). It applies only
   when every pair of the group met every other one (for two pairs: they met); then each pair's
   mini-league score is the CF it earned in those meetings (forfeits are meetings, byes are not).
   If the scores are not all equal the group is split into sub-groups by score, higher first, and
   head-to-head is applied again inside every sub-group of two or more (it is a smaller group tied
   on everything so far, e.g. two pairs level on mini-league points that met each other). A
   sub-group it cannot separate, or a group in which some pairs did not meet, goes on to the next
   criteria unchanged: head-to-head separates only what it separates cleanly.
4. ``lot`` orders by a number drawn from the tournament's seed and the pair's id alone, so the
   order is reproducible, independent of the input order and of which other pairs exist. The pair
   id breaks a (practically impossible) collision of drawn numbers, so the order is total.

Only outcomes with ``round <= after_round`` count, and deductions with ``round <= after_round`` or
no round. ``previous_rank`` is the rank after ``after_round - 1`` with the same criteria; after
round 0 nobody has one, so it separates nobody after round 1.

The figures (TOURNAMENT_FILE.md): ``jcf`` is after deductions; ``wins``/``draws``/``losses`` count
byes and forfeits by their result; ``level_difference`` and ``upgrades`` are summed as given (0 for
byes and forfeits); ``opponents_cf`` (对手分) sums the cumulative CF after ``after_round`` of every
opponent met, a forfeit's opponent included, a bye adding nothing; ``progressive`` ((去首)累进分)
is Σ over r = 2…after_round of the cumulative CF after r. Every registered pair has a row, with
zeros when it has no outcome. Bad input raises ``StandingsError`` with a stable ``code``.

How it runs (issue 18: linear at any size, incremental after each confirmation):

- ``rank_entrants`` is the ranking alone, for any entrants (pairs, teams, the entrants of a
  group), in ``scoring.ranking``: each criterion's column becomes an array of machine numbers,
  the columns are packed side by side into 64-bit words and sorted 16 bits at a time by a
  radix sort (linear); the criterion that separates two neighbours is the first column whose
  sorted values differ between them; head-to-head only inside the tie groups that reach it,
  its sub-groups handled by a work list, not by recursion. There are no row objects until
  someone asks for rows.
- ``StandingsState`` is the standings after one round, frozen: the cumulative figures by entrant,
  each earlier round's opponents and CF (对手分 and head-to-head need them), and the ranking.
  ``advance(state, outcomes, deductions)`` gives the state after the next round from the state
  after the round before and that round's outcomes only: the service keeps the state after the
  last finished round and, when a table of the round in progress is confirmed, advances it with
  the outcomes confirmed so far, without reading or scoring the earlier rounds again.
  ``initial_state`` is the state after round 0 and ``state_after`` folds ``advance`` from it
  (the cold start). ``compute_standings`` and ``standings_by_round`` are ``state_after``'s rows.
- Cumulative figures are whole columns added with ``map``; the per-round opponent columns make
  对手分 a ``map`` per round. Costs grow as n per round for the ranking and n·r for 对手分
  (see docs/benchmarks.md, ``python -m benchmarks.standings``; docs/core-api.md for the API).
- Memory order (issue 18, second pass): at 50,000 entrants a column of objects no longer fits
  the processor's cache, so what grew faster than the work was reading objects out of the order
  they lie in. A round's outcomes are read once in the order given and each column gathered
  into entrant order by position (not sorted by pair); opponent columns are arrays of machine
  ints (no int object per entry); ``columns()`` picks into standings order before it makes
  floats; rows are filled a block at a time (docs/core-api.md has the figures).
- Fourth pass: every outcome is read once, a block at a time (``_streamed``); the ids become
  indices by whole-array arithmetic (``_positions``); each round's figures are made just
  before the round is added and each state is let go once the next exists (``_states``);
  the rankings and the drawing of lots are radix-sorted (linear where a comparison sort is
  n·log n).

Totals are exact when every value is a whole number; otherwise they are rounded to 9 decimals
before they are compared or shown (rounding leaves a whole number unchanged, so a state that has
seen only whole numbers and one that has seen a fraction agree on every whole total).
"""

from __future__ import annotations

import gc
from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, groupby, islice, repeat
from operator import add, eq, is_, itemgetter, le, ne, sub
from typing import Any, NoReturn, TypeVar

import numpy as np
from numpy.typing import NDArray

from scoring.criteria import (
    CRITERIA,
    KINDS,
    PRESETS,
    RESULTS,
    Criterion,
    Deduction,
    Outcome,
    StandingRow,
    StandingsError,
    StandingsUsageError,
    lot_number,
    lot_numbers,
    resolve_criteria,
    round_of,
    rounded_figure,
)
from scoring.ranking import (
    HEAD_TO_HEAD,
    MiniLeague,
    MiniLeagueTable,
    RankColumn,
    Ranking,
    radix_order,
    rank_entrants,
    rank_with_order,
)

__all__ = [
    "CRITERIA",
    "HEAD_TO_HEAD",
    "PRESETS",
    "STANDING_ROW_FIELDS",
    "Criterion",
    "Deduction",
    "MiniLeague",
    "Outcome",
    "RankColumn",
    "Ranking",
    "RoundFigures",
    "StandingRow",
    "StandingsError",
    "StandingsSetup",
    "StandingsState",
    "StandingsUsageError",
    "advance",
    "collector_paused",
    "compute_standings",
    "initial_state",
    "lot_number",
    "lot_numbers",
    "rank_entrants",
    "resolve_criteria",
    "round_figures",
    "standings_by_round",
    "standings_setup",
    "state_after",
]


# -- the ranking alone: any entrants, any criteria ----------------------------------------------


# -- the standings of pairs: figures by round, frozen states -----------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class StandingsSetup:
    """What stays fixed for an event's standings: the entrants (sorted ids; entrant *i* is
    ``entrants[i]``), the full criteria, the seed and the drawing of lots it gives."""

    entrants: tuple[int, ...]
    index: Mapping[int | None, int]  # id → entrant index; None (no opponent) → n
    criteria: tuple[str, ...]
    seed: int
    lot_rank: tuple[int, ...]  # by entrant index: place in the drawing of lots, 0 first
    lot_order: tuple[int, ...]  # entrant indices in the order of the drawing of lots

    @property
    def contiguous(self) -> bool:
        """Ids a run of consecutive whole numbers (entrant index = id - first id); a quick test,
        ``_indices`` checks every index it computes."""
        ids = self.entrants
        return not ids or (type(ids[0]) is int and ids[-1] - ids[0] == len(ids) - 1)


def standings_setup(
    entrants: Iterable[int], criteria: str | Sequence[str], seed: int
) -> StandingsSetup:
    """Check the entrants and criteria once (``repeated_pair``, the criteria errors)."""
    ids = tuple(sorted(entrants))
    if len(set(ids)) != len(ids):
        raise StandingsError("repeated_pair")
    resolved = resolve_criteria(criteria)
    # Lot numbers, then the index (= id order) for a collision (the sort is stable): a total
    # order.
    # (Lot numbers are 64 bits: a radix sort, linear where a comparison sort is n·log n.)
    n = len(ids)
    numbers = np.array(lot_numbers(seed, ids), dtype=np.uint64)
    lot_order = radix_order([(numbers, 64)], np.arange(n))
    lot_rank = np.empty(n, dtype=np.intp)
    lot_rank[lot_order] = np.arange(n)
    index: dict[int | None, int] = dict(zip(ids, range(n), strict=True))
    index[None] = n
    return StandingsSetup(
        ids, index, resolved, seed, tuple(lot_rank.tolist()), tuple(lot_order.tolist())
    )


@dataclass(frozen=True, slots=True, eq=False)
class RoundFigures:
    """One round's outcomes as columns by entrant index (0 where an entrant has no outcome);
    ``opponent[i]`` is the opponent's index, or n (no entrant) for a bye or no outcome. When
    ``exact`` (every CF and JCF a whole number) ``cf`` and ``jcf`` hold ints."""

    number: int
    cf: tuple[float, ...]
    jcf: tuple[float, ...]
    wins: tuple[int, ...]
    draws: tuple[int, ...]
    losses: tuple[int, ...]
    level_difference: tuple[int, ...]
    upgrades: tuple[int, ...]
    opponent: Sequence[int]  # machine ints (array "i"), see round_figures
    exact: bool


@dataclass(frozen=True, slots=True, eq=False)
class StandingsState:
    """The standings after round ``after_round``, frozen (RULES.md §4).

    Every column is by entrant index (see ``setup``). ``cf``/``jcf`` (before deductions)/
    ``deducted``/``wins``/``draws``/``losses``/``level_difference``/``upgrades``/``progressive``
    are the cumulative figures; ``opponents[r - 1]`` and ``round_cf[r - 1]`` are round r's
    opponent and CF columns (对手分 and head-to-head read them); ``unmet`` the entrants that have
    met nobody yet; ``previous`` the ranking after the round before (None after rounds 0 and 1;
    ``previous_rank`` gives its ranks by entrant); ``ranking`` orders the entrants. The
    ``shown_*`` columns and ``opponents_cf`` are the figures as compared. While ``exact``
    (every value so far a whole number) the CF and JCF figures are kept as ints, which are
    exact and small (Python shares the objects of small ints, so the columns stay compact at
    any size); ``columns()`` and ``rows()`` give them as the floats they are.
    """

    setup: StandingsSetup
    after_round: int
    exact: bool
    cf: tuple[float, ...]
    jcf: tuple[float, ...]
    deducted: tuple[float, ...]
    wins: tuple[int, ...]
    draws: tuple[int, ...]
    losses: tuple[int, ...]
    level_difference: tuple[int, ...]
    upgrades: tuple[int, ...]
    progressive: tuple[float, ...]
    opponents: tuple[Sequence[int], ...]
    round_cf: tuple[tuple[float, ...], ...]
    unmet: tuple[int, ...]
    previous: Ranking | None
    shown_cf: tuple[float, ...]
    shown_jcf: tuple[float, ...]
    shown_deducted: tuple[float, ...]
    shown_progressive: tuple[float, ...]
    opponents_cf: tuple[float, ...]
    ranking: Ranking

    @property
    def entrants(self) -> tuple[int, ...]:
        return self.setup.entrants

    @property
    def previous_rank(self) -> tuple[int | None, ...]:
        """By entrant: the rank after the round before (None for all after rounds 0 and 1)."""
        if self.previous is None:
            return (None,) * len(self.setup.entrants)
        return self.previous.ranks

    def rank_of(self, entrant: int) -> int:
        """The rank of one entrant (by id) in these standings."""
        return self.ranking.ranks[self.setup.index[entrant]]

    def columns(self, floats: bool = True) -> tuple[tuple[Any, ...], ...]:
        """One tuple per ``StandingRow`` field, in standings order: what a compact cache of the
        standings stores, without a row object per entrant. ``floats=False``: the CF/JCF
        figures of an exact state stay the ints they are (equal values), for a store that
        makes them doubles anyway (``scoring.cache.CompactStandings``)."""
        n = len(self.setup.entrants)
        if n == 0:
            return tuple(() for _ in STANDING_ROW_FIELDS)
        order = self.ranking.order
        pick: Callable[[Sequence[Any]], tuple[Any, ...]]
        pick = itemgetter(*order) if n > 1 else _pick_first
        # Picked first, then made floats: the floats are made in standings order and read in
        # it (made by entrant and picked in standings order they would lie all over memory).
        cf, jcf, opponents_cf, progressive, deducted = map(
            pick,
            (
                self.shown_cf,
                self.shown_jcf,
                self.opponents_cf,
                self.shown_progressive,
                self.shown_deducted,
            ),
        )
        if self.exact and floats:  # whole numbers kept as ints: the floats they stand for
            cf, jcf, progressive, deducted = (
                tuple(map(float, column)) for column in (cf, jcf, progressive, deducted)
            )
            opponents_cf = tuple(map(float, opponents_cf))
        if self.exact and floats and self.unmet:
            # 对手分 of a pair that met nobody: 0, as sum([]) (an int among the floats).
            unmet = set(self.unmet)
            opponents_cf = tuple(
                0 if i in unmet else value for i, value in zip(order, opponents_cf, strict=True)
            )
        ids = self.setup.entrants
        pairs: tuple[int, ...]
        if type(ids[0]) is int and all(map(eq, ids, range(ids[0], ids[0] + n))):
            # Consecutive ids: made in standings order (index + first id) rather than picked.
            pairs = tuple(map(add, order, repeat(ids[0], n)))
        else:
            pairs = pick(ids)
        return (
            tuple(range(1, n + 1)),
            pairs,
            cf,
            jcf,
            *map(pick, (self.wins, self.draws, self.losses, self.level_difference)),
            opponents_cf,
            pick(self.upgrades),
            progressive,
            deducted,
            pick(self.previous_rank),
            self.ranking.decided_by,
        )

    def rows(self) -> tuple[StandingRow, ...]:
        """The standings as rows, rank 1 first: ``columns()`` made into rows (``_make_rows``)."""
        return _make_rows(self.columns())


# The StandingRow fields in order (``StandingsState.columns()``).
STANDING_ROW_FIELDS = (
    "rank",
    "pair",
    "cf",
    "jcf",
    "wins",
    "draws",
    "losses",
    "level_difference",
    "opponents_cf",
    "upgrades",
    "progressive",
    "deductions",
    "previous_rank",
    "decided_by",
)


# How ``_make_rows`` fills a row's fields: the slots' own descriptors, in field order.
_ROW_SETTERS: tuple[Callable[[StandingRow, Any], None], ...] = tuple(
    getattr(StandingRow, name).__set__ for name in STANDING_ROW_FIELDS
)


def _make_rows(columns: Sequence[Sequence[Any]]) -> tuple[StandingRow, ...]:
    """Rows from ``StandingRow`` columns (``STANDING_ROW_FIELDS``), equal to
    ``map(StandingRow, *columns)``. ``StandingRow`` is frozen, so its ``__init__`` sets each of
    its 14 fields through ``object.__setattr__``, an interpreted call per field (~0.25 s for
    50,000 rows); here the empty objects are made at once and each field is set by its slot's
    descriptor for a whole column, with no Python frame per row or per field.

    A block of ``_ROW_BLOCK`` rows at a time: each of the 14 columns visits every row of the
    block, and a block's rows (~0.5 MB) stay in the processor's cache for all 14 visits, where
    all 50,000 rows (~6.5 MB) would be read from memory 14 times (the cost per row then grew by
    ~1.5× from 10,000 to 50,000 rows)."""
    n = len(columns[0]) if columns else 0
    rows = list(map(object.__new__, repeat(StandingRow, n)))
    for start in range(0, n, _ROW_BLOCK):
        end = start + _ROW_BLOCK
        block = rows[start:end]
        for set_field, column in zip(_ROW_SETTERS, columns, strict=True):
            deque(map(set_field, block, column[start:end]), maxlen=0)
    return tuple(rows)


_ROW_BLOCK = 4096


def _pick_first(column: Sequence[Any]) -> tuple[Any, ...]:
    return (column[0],)


def initial_state(setup: StandingsSetup, deductions: Iterable[Deduction] = ()) -> StandingsState:
    """The standings after round 0: nobody has played; ``deductions`` are those without a round
    (they count in every standings). Raises ``StandingsError`` for a bad deduction."""
    return _initial(setup, _checked_deductions(setup, deductions, None))


def advance(
    state: StandingsState, outcomes: Iterable[Outcome], deductions: Iterable[Deduction] = ()
) -> StandingsState:
    """The standings after round ``state.after_round + 1`` from the standings after the round
    before (frozen) and this round's outcomes and deductions only.

    For the round in progress pass the outcomes confirmed so far; call again after each
    confirmation (the earlier rounds are neither re-read nor re-scored). Every outcome and every
    deduction must be of that round (``StandingsUsageError("wrong_round")``); a deduction without a
    round, a correction of an earlier round or a change of entrants means a new ``state_after``.
    """
    setup = state.setup
    number = state.after_round + 1
    bucket = list(outcomes)
    if any(map(ne, map(round_of, bucket), repeat(number))):
        o = next(o for o in bucket if o.round != number)
        raise StandingsUsageError("wrong_round", pair=o.pair, round=o.round, expected=number)
    figures = round_figures(setup, number, bucket)
    return _advance(state, figures, _checked_deductions(setup, deductions, number))


def state_after(
    setup: StandingsSetup,
    outcomes: Iterable[Outcome],
    deductions: Iterable[Deduction],
    after_round: int,
) -> StandingsState:
    """The standings after ``after_round`` from every outcome and deduction (the cold start):
    ``initial_state`` advanced round by round. Every outcome and deduction is checked, those of
    later rounds too, with the errors of ``compute_standings``."""
    with collector_paused():
        return _fold(setup, outcomes, deductions, after_round, _newest)


def compute_standings(
    pairs: Sequence[int],
    outcomes: Iterable[Outcome],
    deductions: Iterable[Deduction],
    criteria: str | Sequence[str],
    seed: int,
    after_round: int,
) -> tuple[StandingRow, ...]:
    """The standings after ``after_round`` (0 = before any round), one row per registered pair.

    ``previous_rank`` needs the ranking after every earlier round, so this walks the chain (only
    the last round's rows are built)."""
    if after_round < 0:
        raise StandingsError("bad_round", round=after_round)
    with collector_paused():  # (the setup too: it makes objects for every entrant)
        setup = standings_setup(pairs, criteria, seed)
        return state_after(setup, outcomes, deductions, after_round).rows()


def standings_by_round(
    pairs: Sequence[int],
    outcomes: Iterable[Outcome],
    deductions: Iterable[Deduction],
    criteria: str | Sequence[str],
    seed: int,
    last_round: int,
) -> dict[int, tuple[StandingRow, ...]]:
    """The standings after every round 1…``last_round``, keyed by round (the ``previous_rank``
    chain: each is ranked with the one before it)."""
    if last_round < 0:
        raise StandingsError("bad_round", round=last_round)
    with collector_paused():
        setup = standings_setup(pairs, criteria, seed)
        return _fold(setup, outcomes, deductions, last_round, _rows_by_round)


def _newest(states: Iterator[StandingsState]) -> StandingsState:
    """The last of the states, each let go as soon as the next exists (see ``_states``)."""
    return deque(states, maxlen=1)[0]


def _rows_by_round(states: Iterator[StandingsState]) -> dict[int, tuple[StandingRow, ...]]:
    """The rows after every round 1…, keyed by round."""
    return {state.after_round: state.rows() for state in islice(states, 1, None)}


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while standings are built (then restored).

    A build makes hundreds of thousands of tuples and lists (columns, keys, the outcomes a
    caller reads) that either outlive it or die by reference counting; it makes no reference
    cycles, which are all the collector is for. Left running, it starts a collection every
    700 new containers, and as most of them survive it walks every object of the process
    again and again: a cold start at 10,000 pairs × 9 rounds ran ~15 full collections, at
    50,000 pairs the collector took ~20 % of the chain (docs/benchmarks.md). Paused only if it
    was running (nested uses, or a caller that paused it, are left alone); a thread that
    starts meanwhile only finds it paused for a while."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def round_figures(setup: StandingsSetup, number: int, outcomes: Sequence[Outcome]) -> RoundFigures:
    """One round's outcomes (all of round ``number``, at most one per entrant) checked and
    turned into columns by entrant index. Whole-list operations throughout; the first bad
    outcome is then named by ``_reject``."""
    return _flat_figures(setup, number, _flattened(outcomes))


_WIDTH = len(Outcome._fields)


def _flattened(outcomes: Sequence[Outcome]) -> list[Any]:
    """The outcomes' fields in one flat list, ``_WIDTH`` entries an outcome, in the order
    given: one visit to each outcome (``zip(*outcomes)`` would visit each once per field)."""
    flat: list[Any] = list(chain.from_iterable(outcomes))
    if len(flat) != _WIDTH * len(outcomes):
        raise TypeError("outcomes must be Outcome tuples")
    return flat


def _flat_figures(setup: StandingsSetup, number: int, flat: list[Any]) -> RoundFigures:
    """``round_figures`` of the outcomes whose fields are ``flat`` (``_WIDTH`` entries an
    outcome, in order): a column is every ninth entry. Neither the outcomes nor their fields
    are sorted or visited again: each column is gathered into entrant order by position
    (``place`` below). Sorting the outcomes by pair first, as before, was n·log n and, worse,
    read the outcomes out of memory order (at 50,000 pairs a round is 50,000 objects out of the
    processor's cache): ~1.4× the cost per outcome at 50,000 pairs than at 10,000."""
    n = len(setup.entrants)
    width = _WIDTH
    m = len(flat) // width
    if not m:
        return _no_outcomes(n, number)
    _, pairs, opponents, kinds, results, cf, jcf, ld, up = (flat[k::width] for k in range(width))
    is_bye = list(map(is_, opponents, repeat(None, m)))
    # place[i]: the position of entrant i's outcome, m (the value appended to every column
    # below: 0) when it has none. The opponent column is written by position (``_positions``)
    # into machine ints: its values are entrant indices, one int object each, and a tuple of
    # them in entrant order would point all over memory (they were made in the order of the
    # outcomes); every later round's 对手分 and head-to-head read this column, and reading
    # 50,000 scattered objects costs several times more per entry than reading 10,000 (they no
    # longer fit the processor's cache).
    try:
        mine, theirs, place, opponent = _positions(setup, pairs, opponents, is_bye)
    except (KeyError, TypeError, IndexError):
        _reject(flat, setup.index)
    if (
        not number >= 1
        or not set(kinds) <= KINDS
        or not set(results) <= RESULTS
        or n - int(np.count_nonzero(place == m)) != m  # each pair at most once
        # a bye has no opponent and nothing else lacks one; nobody meets itself
        or list(map(eq, kinds, repeat("bye", m))) != is_bye
        or bool((mine == theirs).any())
    ):
        _reject(flat, setup.index)
    types = set(map(type, cf))
    types.update(map(type, jcf))
    if types <= {int}:  # whole numbers as ints (see StandingsState), as the engine gives them
        exact = True
    else:
        whole_cf, whole_jcf = list(map(int, cf)), list(map(int, jcf))
        exact = whole_cf == cf and whole_jcf == jcf
        if exact:
            cf, jcf = whole_cf, whole_jcf
    # Each column in entrant order: entry i is the column's value at place[i], the value at
    # position m (appended) for an entrant without an outcome. One gather in C per column,
    # reading only the column's own list (its values are small ints, shared objects, or the
    # floats of an inexact round). The result is gathered, not the three counts made from it:
    # a gather reads its column in a random order, which at 50,000 entrants costs more per
    # entry than at 10,000 (the column is no longer in the processor's nearest cache).
    gather: Callable[[Sequence[Any]], tuple[Any, ...]]
    gather = itemgetter(*place.tolist()) if n > 1 else (lambda column: (column[place[0]],))
    columns: list[list[Any]] = [cf, jcf, results, ld, up]
    for column in columns:
        column.append(0)
    cf_, jcf_, results_, ld_, up_ = map(gather, columns)
    # Booleans (True adds 1): the cumulative counts start from int 0, so they stay ints.
    wins_, draws_, losses_ = (
        tuple(map(eq, results_, repeat(result, n))) for result in ("win", "draw", "loss")
    )
    return RoundFigures(number, cf_, jcf_, wins_, draws_, losses_, ld_, up_, opponent, exact)


def _index_column(value: int, n: int) -> array[int]:
    """A column of n entrant indices (or positions), all ``value``: machine ints in one block
    of memory, not n pointers to int objects (see ``RoundFigures``)."""
    return array("i", (value,)) * n


def _positions(
    setup: StandingsSetup, pairs: list[Any], opponents: list[Any], is_bye: list[bool]
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], array[int]]:
    """The entrant indices of ``pairs`` (mine) and ``opponents`` (theirs; n for None), and two
    columns by entrant: ``place`` (entrant i's position in ``pairs``, m for none; a pair given
    twice fills fewer than m places) and ``opponent`` (its opponent's index, n for none).
    KeyError or IndexError for an unknown id. ``opponents`` is changed.

    For consecutive ids (the usual pair numbers 1…n) the ids become one array of machine ints
    each and an index is a subtraction over the whole array, with neither a look-up in a large
    dictionary nor an int object per index (at 50,000 entrants both cost several times more per
    entry than at 10,000: the dictionary and the new objects no longer fit the processor's
    cache, and fresh objects are fresh memory the system must hand over). Ids that are not all
    ints (a float id, which the dictionary takes for the int it equals) or not all known go the
    dictionary's way."""
    n = len(setup.entrants)
    m = len(pairs)
    mine: NDArray[np.intp] | None = None
    if setup.contiguous and n:
        first = setup.entrants[0]
        byes, k = is_bye.count(True), -1
        for _ in range(byes):  # no opponent: index n, the id after the last
            k = is_bye.index(True, k + 1)
            opponents[k] = first + n
        try:
            ours, others = np.array(pairs), np.array(opponents)
        except (TypeError, ValueError):  # e.g. ids that are lists: the dictionary refuses them
            ours = others = np.array(())
        if ours.dtype.kind == "i" and others.dtype.kind == "i":  # (a huge int: "O")
            ours, others = (ours - first).astype(np.intp), (others - first).astype(np.intp)
            # n only for a bye: the id after the last is no opponent otherwise.
            if (
                ours.min() >= 0
                and ours.max() < n
                and others.min() >= 0
                and others.max() <= n
                and int(np.count_nonzero(others == n)) == byes
            ):
                mine, theirs = ours, others
        if mine is None:
            for k in range(m):
                if is_bye[k]:
                    opponents[k] = None
    if mine is None:
        index = setup.index.__getitem__
        mine = np.array(list(map(index, pairs)), dtype=np.intp)
        theirs = np.array(list(map(index, opponents)), dtype=np.intp)
    place = np.full(n, m, dtype=np.intp)
    place[mine] = np.arange(m)  # n (None as a pair) is out of range: IndexError
    by_entrant = np.full(n, n, dtype=np.int32)
    by_entrant[mine] = theirs
    opponent = array("i")
    opponent.frombytes(by_entrant.tobytes())
    return mine, theirs, place, opponent


def _no_outcomes(n: int, number: int) -> RoundFigures:
    zeros: tuple[int, ...] = (0,) * n
    return RoundFigures(
        number, zeros, zeros, zeros, zeros, zeros, zeros, zeros, _index_column(n, n), True
    )


def _fold(
    setup: StandingsSetup,
    outcomes: Iterable[Outcome],
    deductions: Iterable[Deduction],
    last_round: int,
    consume: Callable[[Iterator[StandingsState]], _T],
) -> _T:
    """``consume`` applied to the states after rounds 0…``last_round`` (``_states``).

    The rounds are first streamed from the outcomes as given (``_streamed``), the usual case:
    outcomes round by round. If they turn out not to be in round order, or some outcome or
    deduction is bad, everything is done again from the outcomes put in round order
    (``_in_round_order``): the states are pure, so the second pass gives the answer, and the
    error, of checking every round in order."""
    if last_round < 0:
        raise StandingsError("bad_round", round=last_round)
    listed = outcomes if isinstance(outcomes, list) else list(outcomes)
    deductions = list(deductions)
    try:
        return consume(_states(setup, _streamed(listed), deductions, last_round))
    except (_OutOfOrder, StandingsError):
        pass
    return consume(_states(setup, _in_round_order(listed), deductions, last_round))


_T = TypeVar("_T")


def _states(
    setup: StandingsSetup,
    rounds: Iterator[tuple[int, list[Any]]],
    deductions: Sequence[Deduction],
    last_round: int,
) -> Iterator[StandingsState]:
    """The states after rounds 0…``last_round``, each made from the one before; ``rounds`` are
    each round's outcomes as ``_flat_figures`` takes them, in increasing round order.

    A round is read, its figures made and the round added before the next round is read, and
    a caller that keeps only the newest state (``state_after``) lets the one before go as soon
    as the next exists: what one round needs stays in the processor's cache at any size. (At
    50,000 entrants a round's outcomes flattened are ~3.6 MB and a state's columns ~10 MB;
    all of them made up front and kept until the end, as before, did not fit the cache at
    50,000 entrants and did at 10,000, and memory handed back and asked for again is memory
    the system must clear again.) Every outcome of every round is checked, in round order,
    those after ``last_round`` too, before a bad deduction is reported."""
    by_round: dict[int | None, list[tuple[int, float]]] = {}
    deduction_error: StandingsError | None = None
    try:
        for d in deductions:  # in the given order, as the sums are made in it
            by_round.setdefault(d.round, []).extend(_checked_deductions(setup, (d,), d.round))
    except StandingsError as error:
        deduction_error = error
    state = _initial(setup, by_round.get(None, []))
    yield state
    n = len(setup.entrants)
    bucket = next(rounds, None)
    for number in range(1, last_round + 1):
        figures = None
        while bucket is not None and bucket[0] <= number:  # a round < 1 is refused here
            figures = _flat_figures(setup, *bucket)
            bucket = next(rounds, None)
        state = _advance(state, figures or _no_outcomes(n, number), by_round.get(number, []))
        yield state
    while bucket is not None:  # the rounds after: checked only
        _flat_figures(setup, *bucket)
        bucket = next(rounds, None)
    if deduction_error is not None:
        raise deduction_error


class _OutOfOrder(Exception):
    """The outcomes are not in round order (``_streamed``)."""


def _streamed(listed: list[Outcome]) -> Iterator[tuple[int, list[Any]]]:
    """Each round's outcomes as one flat list (the ``_WIDTH`` fields of each outcome in turn,
    in the order given), yielded as soon as the round is complete: ``_OutOfOrder`` when a
    round follows a later one.

    Each outcome is read once, here, a block of ``_BLOCK`` outcomes at a time: the block's
    fields are copied into one flat list, which stays in the processor's cache while its
    rounds are found and its slices copied to their round. The outcomes of a large event do
    not fit the cache (50,000 pairs × 9 rounds: ~50 MB of tuples), so a second pass over them,
    as when the rounds were read first and each round's outcomes then copied, read them all
    from memory again, where at 10,000 pairs the second pass found them in the cache."""
    width = _WIDTH
    number: int | None = None  # the round being read, and its outcomes so far
    flat_round: list[Any] = []
    for start in range(0, len(listed), _BLOCK):
        flat = _flattened(listed[start : start + _BLOCK])
        rounds: list[int] = flat[0::width]
        if (number is not None and rounds[0] < number) or not all(
            map(le, rounds, islice(rounds, 1, None))
        ):
            raise _OutOfOrder
        first = 0
        while first < len(rounds):
            end = bisect_right(rounds, rounds[first], first)
            if rounds[first] != number:
                if number is not None:
                    yield number, flat_round
                number, flat_round = rounds[first], []
            flat_round += flat[first * width : end * width]
            first = end
    if number is not None:
        yield number, flat_round


_BLOCK = 4096  # outcomes: a flat list of ~300 KB


def _in_round_order(listed: list[Outcome]) -> Iterator[tuple[int, list[Any]]]:
    """``_streamed`` for outcomes in any order: a stable sort of their positions by round."""
    rounds = list(map(round_of, listed))
    order = sorted(range(len(rounds)), key=rounds.__getitem__)
    for number, positions in groupby(order, key=rounds.__getitem__):
        yield number, _flattened(list(map(listed.__getitem__, positions)))


def _checked_deductions(
    setup: StandingsSetup, deductions: Iterable[Deduction], number: int | None
) -> list[tuple[int, float]]:
    """``(entrant index, jcf)`` of deductions that must all be of round ``number``."""
    checked: list[tuple[int, float]] = []
    for d in deductions:
        i = setup.index.get(d.pair) if d.pair is not None else None
        if i is None:
            raise StandingsError("unknown_pair", pair=d.pair, round=d.round)
        # RULES.md §3: a deduction subtracts from the JCF total, it never adds.
        if not d.jcf >= 0:
            raise StandingsError("bad_deduction", pair=d.pair, jcf=d.jcf)
        if d.round is not None and d.round < 1:
            raise StandingsError("bad_round", pair=d.pair, round=d.round)
        if d.round != number:
            raise StandingsUsageError("wrong_round", pair=d.pair, round=d.round, expected=number)
        checked.append((i, d.jcf))
    return checked


def _initial(setup: StandingsSetup, deductions: Sequence[tuple[int, float]]) -> StandingsState:
    n = len(setup.entrants)
    zeros: tuple[int, ...] = (0,) * n
    exact = all(not jcf % 1 for _, jcf in deductions)
    deducted: list[float] = [0] * n if exact else [0.0] * n
    for i, jcf in deductions:  # in the given order, as the sums are made in it
        deducted[i] += int(jcf) if exact else jcf
    empty = zeros if exact else (0.0,) * n
    return _ranked(
        setup,
        after_round=0,
        exact=exact,
        cf=empty,
        jcf=empty,
        deducted=tuple(deducted),
        wins=zeros,
        draws=zeros,
        losses=zeros,
        level_difference=zeros,
        upgrades=zeros,
        progressive=empty,
        opponents=(),
        round_cf=(),
        unmet=tuple(range(n)),
        previous=None,
    )


def _advance(
    state: StandingsState, figures: RoundFigures, deductions: Sequence[tuple[int, float]]
) -> StandingsState:
    """Add one round's figures and deductions to the cumulative columns, then rank."""
    number = figures.number
    n = len(state.setup.entrants)
    exact = state.exact and figures.exact and all(not jcf % 1 for _, jcf in deductions)
    cf, jcf, deducted, progressive = state.cf, state.jcf, state.deducted, state.progressive
    if state.exact and not exact:
        # The first fraction: the whole-number totals become the floats the same additions of
        # floats would have made (exact below 2**53), and floats are added from here on.
        cf, jcf, deducted, progressive = (
            tuple(map(float, column)) for column in (cf, jcf, deducted, progressive)
        )
    cf = tuple(map(add, cf, figures.cf))
    if deductions:
        added = list(deducted)
        for i, amount in deductions:
            added[i] += int(amount) if exact else amount
        deducted = tuple(added)
    return _ranked(
        state.setup,
        after_round=number,
        exact=exact,
        cf=cf,
        jcf=tuple(map(add, jcf, figures.jcf)),
        deducted=deducted,
        wins=tuple(map(add, state.wins, figures.wins)),
        draws=tuple(map(add, state.draws, figures.draws)),
        losses=tuple(map(add, state.losses, figures.losses)),
        level_difference=tuple(map(add, state.level_difference, figures.level_difference)),
        upgrades=tuple(map(add, state.upgrades, figures.upgrades)),
        # RULES.md §4 Jiangsu preset: (去首)累进分 = Σ over r = 2…N of the cumulative CF after r.
        progressive=tuple(map(add, progressive, cf)) if number >= 2 else progressive,
        opponents=(*state.opponents, figures.opponent),
        round_cf=(*state.round_cf, figures.cf),
        unmet=tuple(i for i in state.unmet if figures.opponent[i] == n),
        # RULES.md §4 regulation 7: the rank after the previous round; nobody has one after
        # round 1 (the standings after round 0 rank nobody by merit).
        previous=state.ranking if state.after_round >= 1 else None,
    )


def _ranked(
    setup: StandingsSetup,
    *,
    after_round: int,
    exact: bool,
    cf: tuple[float, ...],
    jcf: tuple[float, ...],
    deducted: tuple[float, ...],
    wins: tuple[int, ...],
    draws: tuple[int, ...],
    losses: tuple[int, ...],
    level_difference: tuple[int, ...],
    upgrades: tuple[int, ...],
    progressive: tuple[float, ...],
    opponents: tuple[Sequence[int], ...],
    round_cf: tuple[tuple[float, ...], ...],
    unmet: tuple[int, ...],
    previous: Ranking | None,
) -> StandingsState:
    """The state with these cumulative figures: the figures as compared, 对手分, the ranking.
    ``previous`` is the ranking after the round before (None after rounds 0 and 1)."""
    net_jcf = tuple(map(sub, jcf, deducted))
    if exact:
        shown_cf, shown_jcf, shown_progressive, shown_deducted = cf, net_jcf, progressive, deducted
    else:
        shown_cf, shown_jcf, shown_progressive, shown_deducted = (
            tuple(map(rounded_figure, column)) for column in (cf, net_jcf, progressive, deducted)
        )
    opponents_cf = _opponents_cf(shown_cf, opponents, exact)
    sources: dict[str, Sequence[float]] = {
        "cf": shown_cf,
        "jcf": shown_jcf,
        "wins": wins,
        "draws": draws,
        "level_difference": level_difference,
        "opponents_cf": opponents_cf,
        "progressive": shown_progressive,
        "upgrades": upgrades,
    }
    # The rank after the round before tells every entrant apart (it is a permutation), so when
    # it is the last criterion the drawing of lots after it never decides, and the entrants in
    # the order of that ranking are already sorted by it: the sort starts from there, and it
    # needs no field in the key (the widest one, log2(n) bits) nor its ranks (see ``Ranking``).
    by_previous = previous is not None and setup.criteria[-2:] == ("previous_rank", "lot")
    columns: list[RankColumn] = []
    for key in setup.criteria:
        if key in sources:
            columns.append(RankColumn(key, sources[key], higher_is_better=True))
        elif key == "previous_rank":  # lower is better; no previous rank ties everyone
            if by_previous:
                columns.append(
                    RankColumn(key, ())
                )  # the last column: not read (``rank_with_order``)
                break
            ranks = (0,) * len(cf) if previous is None else previous.ranks
            columns.append(RankColumn(key, ranks))
        elif key == "lot":
            columns.append(RankColumn(key, setup.lot_rank))
        else:
            columns.append(RankColumn(key, None))  # head_to_head
    mini_league = MiniLeagueTable(opponents, round_cf, exact).points
    last_order = previous.order if by_previous and previous is not None else setup.lot_order
    ranking = rank_with_order(columns, mini_league, last_order)
    return StandingsState(
        setup=setup,
        after_round=after_round,
        exact=exact,
        cf=cf,
        jcf=jcf,
        deducted=deducted,
        wins=wins,
        draws=draws,
        losses=losses,
        level_difference=level_difference,
        upgrades=upgrades,
        progressive=progressive,
        opponents=opponents,
        round_cf=round_cf,
        unmet=unmet,
        previous=previous,
        shown_cf=shown_cf,
        shown_jcf=shown_jcf,
        shown_deducted=shown_deducted,
        shown_progressive=shown_progressive,
        opponents_cf=opponents_cf,
        ranking=ranking,
    )


def _opponents_cf(
    cf: tuple[float, ...], opponents: tuple[Sequence[int], ...], exact: bool
) -> tuple[float, ...]:
    """RULES.md §4 对手分: the sum of the cumulative CF (as compared) of every opponent met.

    Whole numbers (ints, see ``StandingsState``): one look-up and one addition per round
    column, index n (no opponent) giving 0. Otherwise each pair's opponents are summed in round
    order with ``sum`` and rounded, exactly as before issue 18 (a 0 for "no opponent" changes
    no float sum)."""
    n = len(cf)
    if exact:
        cf_of = [*cf, 0].__getitem__
        total: tuple[float, ...] = (0,) * n
        for column in opponents:
            total = tuple(map(add, total, map(cf_of, column)))
        return total
    if not opponents:
        return (0,) * n
    of = [*cf, 0].__getitem__
    return tuple(map(rounded_figure, map(sum, zip(*[map(of, c) for c in opponents], strict=True))))


def _reject(flat: list[Any], index: Mapping[int | None, int]) -> NoReturn:
    """Raise the precise error for the first bad outcome of a round that failed the checks
    (``flat``: their fields, as ``_flat_figures`` takes them)."""
    seen: set[int] = set()
    for o in map(Outcome._make, (flat[k : k + _WIDTH] for k in range(0, len(flat), _WIDTH))):
        if o.pair not in index or o.pair is None:
            raise StandingsError("unknown_pair", pair=o.pair, round=o.round)
        if o.kind not in KINDS:
            raise StandingsError("bad_kind", pair=o.pair, round=o.round, kind=o.kind)
        if o.result not in RESULTS:
            raise StandingsError("bad_result", pair=o.pair, round=o.round, result=o.result)
        if not o.round >= 1:
            raise StandingsError("bad_round", pair=o.pair, round=o.round)
        if o.opponent is not None and o.opponent != o.pair and o.opponent not in index:
            raise StandingsError("unknown_pair", pair=o.opponent, round=o.round)
        if (o.kind == "bye") != (o.opponent is None) or o.opponent == o.pair:
            raise StandingsError("bad_opponent", pair=o.pair, round=o.round, opponent=o.opponent)
        if o.pair in seen:
            raise StandingsError("repeated_outcome", pair=o.pair, round=o.round)
        seen.add(o.pair)
    raise AssertionError("a round failed a check that no outcome fails")
