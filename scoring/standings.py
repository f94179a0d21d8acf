"""Standings and tiebreaks (名次) — RULES.md §4, TOURNAMENT_FILE.md "Criterion keys".

Pure core, no Django: the standard library and numpy (in requirements.txt: the whole-array work
on entrant indices, the radix sorts of the ranking and of the drawing of lots). The input is one
``Outcome`` per pair per round (what the pair earned: 场分 CF, 级差分 JCF, its signed 级差, the
levels it climbed) and the referee's ``Deduction``s (级差分扣分); the output is a total order of
every registered pair, each row saying which criterion put it below the row above
(``decided_by``).

Three modules, one engine (this one is the API; every public name is importable from here):

- ``scoring.standings_input``: what the standings are built from — the ``StandingsSetup``
  (entrants, criteria, the drawing of lots) and one round's outcomes checked and made columns
  by entrant (``RoundFigures``), read a block at a time;
- ``scoring.standings_state``: the standings after one round, frozen (``StandingsState``),
  how a round is added to it, and its column layout (``columns()``, ``rows()``);
- ``scoring.standings``: the chain of rounds (``state_after``, ``compute_standings``,
  ``standings_by_round``), ``advance`` and ``initial_state``, the collector pause.

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
- Fourth pass: every outcome is read once, a block at a time (``streamed``); the ids become
  indices by whole-array arithmetic (``standings_input._positions``); each round's figures are
  made just before the round is added and each state is let go once the next exists
  (``_states``); the rankings and the drawing of lots are radix-sorted (linear where a
  comparison sort is n·log n).

Totals are exact when every value is a whole number; otherwise they are rounded to 9 decimals
before they are compared or shown (rounding leaves a whole number unchanged, so a state that has
seen only whole numbers and one that has seen a fraction agree on every whole total).
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice, repeat
from operator import ne
from typing import Any, TypeVar

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
)
from scoring.ranking import HEAD_TO_HEAD, MiniLeague, RankColumn, Ranking, rank_entrants
from scoring.standings_input import (
    OutOfOrder,
    RoundFigures,
    StandingsSetup,
    flat_figures,
    in_round_order,
    no_outcomes,
    round_figures,
    standings_setup,
    streamed,
)
from scoring.standings_state import (
    STANDING_ROW_FIELDS,
    StandingsState,
    add_round,
    checked_deductions,
    starting_state,
)

__all__ = [
    "CRITERIA",
    "HEAD_TO_HEAD",
    "KINDS",
    "PRESETS",
    "RESULTS",
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


def initial_state(setup: StandingsSetup, deductions: Iterable[Deduction] = ()) -> StandingsState:
    """The standings after round 0: nobody has played; ``deductions`` are those without a round
    (they count in every standings). Raises ``StandingsError`` for a bad deduction."""
    return starting_state(setup, checked_deductions(setup, deductions, None))


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
    return add_round(state, figures, checked_deductions(setup, deductions, number))


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


def _fold(
    setup: StandingsSetup,
    outcomes: Iterable[Outcome],
    deductions: Iterable[Deduction],
    last_round: int,
    consume: Callable[[Iterator[StandingsState]], _T],
) -> _T:
    """``consume`` applied to the states after rounds 0…``last_round`` (``_states``).

    The rounds are first streamed from the outcomes as given (``streamed``), the usual case:
    outcomes round by round. If they turn out not to be in round order, or some outcome or
    deduction is bad, everything is done again from the outcomes put in round order
    (``in_round_order``): the states are pure, so the second pass gives the answer, and the
    error, of checking every round in order."""
    if last_round < 0:
        raise StandingsError("bad_round", round=last_round)
    listed = outcomes if isinstance(outcomes, list) else list(outcomes)
    deductions = list(deductions)
    try:
        return consume(_states(setup, streamed(listed), deductions, last_round))
    except (OutOfOrder, StandingsError):
        pass
    return consume(_states(setup, in_round_order(listed), deductions, last_round))


_T = TypeVar("_T")


def _states(
    setup: StandingsSetup,
    rounds: Iterator[tuple[int, list[Any]]],
    deductions: Sequence[Deduction],
    last_round: int,
) -> Iterator[StandingsState]:
    """The states after rounds 0…``last_round``, each made from the one before; ``rounds`` are
    each round's outcomes as ``flat_figures`` takes them, in increasing round order.

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
            by_round.setdefault(d.round, []).extend(checked_deductions(setup, (d,), d.round))
    except StandingsError as error:
        deduction_error = error
    state = starting_state(setup, by_round.get(None, []))
    yield state
    n = len(setup.entrants)
    bucket = next(rounds, None)
    for number in range(1, last_round + 1):
        figures = None
        while bucket is not None and bucket[0] <= number:  # a round < 1 is refused here
            figures = flat_figures(setup, *bucket)
            bucket = next(rounds, None)
        state = add_round(state, figures or no_outcomes(n, number), by_round.get(number, []))
        yield state
    while bucket is not None:  # the rounds after: checked only
        flat_figures(setup, *bucket)
        bucket = next(rounds, None)
    if deduction_error is not None:
        raise deduction_error
