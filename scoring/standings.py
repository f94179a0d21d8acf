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
  group): each criterion's column becomes small whole numbers (places, best first), packed into
  one integer key per entrant (a field of bits per criterion); one sort of those integers; the
  criterion that separates two neighbours is the field of the highest bit in which their keys
  differ; head-to-head only inside the tie groups that reach it, its sub-groups handled by a work
  list, not by recursion. There are no row objects until someone asks for rows.
- ``StandingsState`` is the standings after one round, frozen: the cumulative figures by entrant,
  each earlier round's opponents and CF (对手分 and head-to-head need them), and the ranking.
  ``advance(state, outcomes, deductions)`` gives the state after the next round from the state
  after the round before and that round's outcomes only: the service keeps the state after the
  last finished round and, when a table of the round in progress is confirmed, advances it with
  the outcomes confirmed so far, without reading or scoring the earlier rounds again.
  ``initial_state`` is the state after round 0 and ``state_after`` folds ``advance`` from it
  (the cold start). ``compute_standings`` and ``standings_by_round`` are ``state_after``'s rows.
- Cumulative figures are whole columns added with ``map``; the per-round opponent columns make
  对手分 a ``map`` per round. Costs grow as n·log n per round for the sort and n·r for 对手分
  (see docs/benchmarks.md, ``python -m benchmarks.standings``; docs/core-api.md for the API).

Totals are exact when every value is a whole number; otherwise they are rounded to 9 decimals
before they are compared or shown (rounding leaves a whole number unchanged, so a state that has
seen only whole numbers and one that has seen a fraction agree on every whole total).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby, repeat
from operator import add, attrgetter, eq, is_, itemgetter, lshift, or_, sub, xor
from typing import Any, NamedTuple, cast

from rules.errors import GuandanError
from rules.ruleset import TIEBREAK_PRESETS

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
    "compute_standings",
    "initial_state",
    "lot_number",
    "rank_entrants",
    "resolve_criteria",
    "round_figures",
    "standings_by_round",
    "standings_setup",
    "state_after",
]

KINDS = frozenset({"played", "forfeit", "bye"})
RESULTS = frozenset({"win", "draw", "loss"})

# Totals are rounded to this many decimals before they are compared or shown, so that fractional
# match points (e.g. 0.5) cannot make two equal totals differ by a rounding error.
_DECIMALS = 9


class StandingsError(GuandanError, ValueError):
    """Bad input to the standings. ``code`` is stable; ``params`` name what was wrong."""


class StandingsUsageError(ValueError):
    """A caller broke the contract of ``advance`` or ``rank_entrants`` (``wrong_round``,
    ``bad_columns``, ``no_total_order``): a bug in the calling code, never something a user can
    fix, so not a ``GuandanError`` (rules/errors.py, STYLE.md "Errors"). ``code`` says which."""

    def __init__(self, code: str, /, **params: object) -> None:
        self.code = code
        self.params = params
        detail = ", ".join(f"{key}={value!r}" for key, value in params.items())
        super().__init__(code + (f" ({detail})" if detail else ""))


class Outcome(NamedTuple):
    """One pair's view of one round (a played match, a forfeit either way, or a bye).

    A NamedTuple (immutable) because the engine builds two per match for every refresh."""

    round: int
    pair: int
    opponent: int | None  # None for a bye
    kind: str  # "played" | "forfeit" | "bye"
    result: str  # "win" | "draw" | "loss"
    cf: float  # 场分 earned this round
    jcf: float  # 级差分 earned this round
    level_difference: int  # signed 级差 from this pair's view; 0 for byes and forfeits
    upgrades: int  # 升级数: levels climbed in this match; 0 for byes and forfeits


@dataclass(frozen=True, slots=True)
class Deduction:
    """级差分扣分 (RULES.md §3): ``jcf`` (≥ 0) comes off the pair's tournament total of JCF.

    ``round`` None means it counts in every standings, including those after round 0.
    """

    round: int | None
    pair: int
    jcf: float


@dataclass(frozen=True, slots=True)
class Criterion:
    """One tiebreak criterion: a key and which way is better (its labels, for pages and
    documents, are ``tournaments.wording.CRITERIA``, keyed by the same keys).

    ``attribute`` names the ``StandingRow`` field that shows its value (None for ``head_to_head``
    and ``lot``, which are relations rather than numbers on the row).
    """

    key: str
    higher_is_better: bool
    attribute: str | None


CRITERIA: dict[str, Criterion] = {
    c.key: c
    for c in (
        Criterion("cf", True, "cf"),  # 场分
        Criterion("jcf", True, "jcf"),  # 级差分
        Criterion("head_to_head", True, None),  # 相互间胜负
        Criterion("wins", True, "wins"),  # 胜场数
        Criterion("draws", True, "draws"),  # 平场数
        Criterion("level_difference", True, "level_difference"),  # 总级差
        Criterion("opponents_cf", True, "opponents_cf"),  # 对手分
        # Lower is better: rank 1 is the best rank.
        Criterion("previous_rank", False, "previous_rank"),  # 上轮名次
        Criterion("progressive", True, "progressive"),  # (去首)累进分
        Criterion("upgrades", True, "upgrades"),  # 升级数
        Criterion("lot", False, None),  # 抽签
    )
}
# TOURNAMENT_FILE.md "Criterion keys": cf is implied first and lot is implied last. One source
# for the presets: the settings (rules.ruleset) and the ranking must never disagree.
PRESETS: dict[str, tuple[str, ...]] = TIEBREAK_PRESETS


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One pair's line in the standings after a round. ``jcf`` is after deductions;
    ``deductions`` is the JCF taken off (≥ 0). ``decided_by`` is the criterion key that put this
    row below the row above (None for rank 1)."""

    rank: int
    pair: int
    cf: float
    jcf: float
    wins: int
    draws: int
    losses: int
    level_difference: int
    opponents_cf: float
    upgrades: int
    progressive: float
    deductions: float
    previous_rank: int | None
    decided_by: str | None


def resolve_criteria(criteria: str | Sequence[str]) -> tuple[str, ...]:
    """The full ordered list of criterion keys: ``cf`` first, the given ones, ``lot`` last.

    ``criteria`` is a preset name or a sequence of keys; an explicit leading ``cf`` and trailing
    ``lot`` are accepted. Raises ``StandingsError`` for an unknown preset or key, a repeated key,
    ``cf`` anywhere but first or ``lot`` anywhere but last (TOURNAMENT_FILE.md).
    """
    if isinstance(criteria, str):
        if criteria not in PRESETS:
            raise StandingsError("unknown_preset", preset=criteria)
        criteria = PRESETS[criteria]
    keys = list(criteria)
    for key in keys:
        if key not in CRITERIA:
            raise StandingsError("unknown_criterion", criterion=key)
    if len(set(keys)) != len(keys):
        raise StandingsError("repeated_criterion", criteria=tuple(keys))
    if "cf" in keys[1:]:
        raise StandingsError("cf_not_first", criteria=tuple(keys))
    if "lot" in keys[:-1]:
        raise StandingsError("lot_not_last", criteria=tuple(keys))
    if not keys or keys[0] != "cf":
        keys.insert(0, "cf")
    if keys[-1] != "lot":
        keys.append("lot")
    return tuple(keys)


def lot_number(seed: int, pair: int) -> int:
    """The number the pair draws in the drawing of lots (lower ranks first).

    A 64-bit BLAKE2b digest of ``"seed:pair"``: reproducible from the recorded seed, and the same
    whatever the input order or the other pairs (RULES.md §4: a seeded, recorded random order).
    """
    digest = hashlib.blake2b(f"{seed}:{pair}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


# -- the ranking alone: any entrants, any criteria ----------------------------------------------

HEAD_TO_HEAD = "head_to_head"

# Head-to-head as the ranking sees it: the mini-league points (higher is better) of every member of
# a tie group, or None when it does not apply to that group (some members did not meet).
MiniLeague = Callable[[Sequence[int]], Mapping[int, float] | None]


class RankColumn(NamedTuple):
    """One criterion as the ranking sees it: its key, one value per entrant (numbers, or any
    values that hash and order consistently) and which way is better. ``values`` is None for
    head-to-head, which is a relation between entrants rather than a number of each."""

    key: str
    values: Sequence[float] | None
    higher_is_better: bool = False


@dataclass(frozen=True, slots=True)
class Ranking:
    """A total order of entrants 0…n-1: ``order`` best first, ``decided_by[k]`` the criterion that
    put ``order[k]`` below ``order[k - 1]`` (None for the first), ``ranks[i]`` entrant i's rank."""

    order: tuple[int, ...]
    decided_by: tuple[str | None, ...]
    ranks: tuple[int, ...]


def rank_entrants(columns: Sequence[RankColumn], mini_league: MiniLeague | None = None) -> Ranking:
    """Rank entrants 0…n-1 by ordered criteria (RULES.md §4).

    ``columns`` are the criteria in order. The one with key ``head_to_head`` (values None) needs
    ``mini_league``: it receives a tie group (entrants equal on every column before it) and
    returns each member's mini-league points, or None when head-to-head does not apply to that
    group. The last column must tell every entrant apart (the drawing of lots); otherwise
    ``StandingsUsageError("no_total_order")``. Nothing here knows what an entrant is: pair, team and
    group standings share it.

    How: each column becomes small whole numbers (its values' places, best first) and the
    columns one sort key per entrant, each column a fixed field of bits, most significant first.
    One sort of whole numbers orders everyone; the first criterion on which two neighbours differ
    is the field holding the highest bit in which their keys differ, so ``decided_by`` needs no
    comparison column by column. Head-to-head then works only inside the tie groups that reach
    it (``_head_to_head``).
    """
    return _rank(columns, mini_league, None)


def _rank(
    columns: Sequence[RankColumn],
    mini_league: MiniLeague | None,
    last_order: Sequence[int] | None,
) -> Ranking:
    """``rank_entrants``; ``last_order``, when given, is every entrant sorted by the last column
    (which must then tell them all apart): the drawing of lots, the same every round, kept by
    ``StandingsSetup``. The last column then stays out of the key: a stable sort from that order
    leaves entrants with equal keys in it, and equal keys mean the lot decided."""
    numeric = [c for c in columns if c.values is not None]
    h2h_at = next((k for k, c in enumerate(columns) if c.values is None), None)
    if (
        not numeric
        or len(numeric) + 1 < len(columns)
        or (h2h_at is not None and (h2h_at == len(columns) - 1 or mini_league is None))
    ):
        raise StandingsUsageError("bad_columns", criteria=tuple(c.key for c in columns))
    values = [c.values for c in numeric if c.values is not None]
    n = len(values[0])
    if any(len(column) != n for column in values):
        raise StandingsUsageError("bad_columns", criteria=tuple(c.key for c in columns))
    if n == 0:
        return Ranking((), (), ())
    if n == 1:
        return Ranking((0,), (None,), (1,))

    # The sort key: column k's places shifted into its own field of bits. bit_column[b] is the
    # column whose field holds bit b - 1 (bit_column[0]: keys equal, no column separates).
    key: list[int] = []
    bit_column: list[int] = []
    keyed = numeric if last_order is None else numeric[:-1]
    for k, column in enumerate(keyed):
        assert column.values is not None
        places, width = _places(column.values, column.higher_is_better)
        if not key:
            key = places
        elif width:
            key = list(map(or_, map(lshift, key, repeat(width, n)), places))
        bit_column[:0] = [k] * width
    if not key:
        key = [0] * n
    bit_column.insert(0, _TIED if last_order is None else len(numeric) - 1)

    order = sorted(range(n) if last_order is None else last_order, key=key.__getitem__)
    ranked = itemgetter(*order)(key)
    decided = list(map(bit_column.__getitem__, map(_bit_length, map(xor, ranked, ranked[1:]))))
    if _TIED in decided:
        raise StandingsUsageError("no_total_order", criterion=numeric[-1].key)

    names = [c.key for c in numeric]
    if h2h_at is not None:
        assert mini_league is not None
        # Neighbours equal on every column before head-to-head (positions p: rows p and p+1).
        tied = [p for p, d in enumerate(decided) if d >= h2h_at]
        if tied:
            _head_to_head(order, decided, tied, key, bit_column, len(names), mini_league)
        names.append(HEAD_TO_HEAD)  # decided == len(names) before the append: head-to-head
    ranks = [0] * n
    for position, i in enumerate(order, start=1):
        ranks[i] = position
    decided_by: tuple[str | None, ...] = (None, *map(names.__getitem__, decided))
    return Ranking(tuple(order), decided_by, tuple(ranks))


_TIED = -1
_bit_length = int.bit_length


def _places(values: Sequence[float], higher_is_better: bool) -> tuple[list[int], int]:
    """Each value's place among the column's distinct values (0 = best) and the bits it needs.

    Whole numbers in a narrow range are placed by their distance from the best (no sort of the
    distinct values; ranks and the drawing of lots are such columns); anything else by a sort of
    its distinct values. Equal values (2 and 2.0 too) get equal places."""
    n = len(values)
    distinct = set(values)
    if all(map(isinstance, distinct, repeat(int))):
        lo, hi = min(distinct), max(distinct)
        span = int(hi - lo)
        if span <= 4 * len(distinct) + 64:
            if higher_is_better:
                return list(map(sub, repeat(hi, n), values)), span.bit_length()
            if lo == 0:
                return list(values), span.bit_length()  # type: ignore[arg-type]
            return list(map(sub, values, repeat(lo, n))), span.bit_length()
    ordered = sorted(distinct, reverse=higher_is_better)
    place = {value: k for k, value in enumerate(ordered)}
    return list(map(place.__getitem__, values)), (len(ordered) - 1).bit_length()


def _head_to_head(
    order: list[int],
    decided: list[int],
    tied: list[int],
    key: list[int],
    bit_column: list[int],
    h2h_mark: int,
    mini_league: MiniLeague,
) -> None:
    """Apply head-to-head inside every tie group that reaches it, in place.

    ``tied`` lists the neighbour positions p (rows p and p+1) equal on every column before
    head-to-head, ascending; consecutive ones make a tie group, already ordered by the columns
    after it. A group that head-to-head separates is re-ordered by (mini-league key, current
    position); its first row keeps the boundary it had (the row above differs on an earlier
    column whichever member comes first), the rows inside get head-to-head (``h2h_mark``) or the
    first later column that differs.
    """
    start = 0
    while start < len(tied):
        end = start
        while end + 1 < len(tied) and tied[end + 1] == tied[end] + 1:
            end += 1
        first, last = tied[start], tied[end] + 1  # the group is order[first : last + 1]
        start = end + 1
        members = order[first : last + 1]
        h2h = _mini_league_keys(members, mini_league)
        if h2h is None:
            continue
        position = {i: p for p, i in enumerate(members)}
        members.sort(key=lambda i: (h2h[i], position[i]))
        order[first : last + 1] = members
        for p in range(first, last):
            above, below = order[p], order[p + 1]
            if h2h[above] != h2h[below]:
                decided[p] = h2h_mark
            else:
                decided[p] = bit_column[(key[above] ^ key[below]).bit_length()]


def _mini_league_keys(
    group: Sequence[int], mini_league: MiniLeague
) -> dict[int, tuple[float, ...]] | None:
    """Head-to-head's sort key for every member of a tie group (smaller is better), or None when
    it separates nobody. A sub-group level on points is itself a tie group, so head-to-head is
    applied again inside it (a work list, not recursion); each application that separates adds
    one element (minus the points) to its members' keys."""
    keys: dict[int, tuple[float, ...]] = dict.fromkeys(group, ())
    separated = False
    work: list[Sequence[int]] = [group]
    while work:
        members = work.pop()
        points = mini_league(members)
        if points is None:
            continue
        levels = set(map(points.__getitem__, members))
        if len(levels) == 1:
            continue
        separated = True
        for i in members:
            keys[i] = (*keys[i], -points[i])
        for level in levels:
            part = [i for i in members if points[i] == level]
            if len(part) > 1:
                work.append(part)
    return keys if separated else None


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
    # Lot numbers, then the index (= id order) for a collision: a total order.
    drawn = sorted((lot_number(seed, entrant), i) for i, entrant in enumerate(ids))
    lot_rank = [0] * len(ids)
    for place, (_, i) in enumerate(drawn):
        lot_rank[i] = place
    index: dict[int | None, int] = {entrant: i for i, entrant in enumerate(ids)}
    index[None] = len(ids)
    lot_order = tuple(i for _, i in drawn)
    return StandingsSetup(ids, index, resolved, seed, tuple(lot_rank), lot_order)


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
    opponent: tuple[int, ...]
    exact: bool


@dataclass(frozen=True, slots=True, eq=False)
class StandingsState:
    """The standings after round ``after_round``, frozen (RULES.md §4).

    Every column is by entrant index (see ``setup``). ``cf``/``jcf`` (before deductions)/
    ``deducted``/``wins``/``draws``/``losses``/``level_difference``/``upgrades``/``progressive``
    are the cumulative figures; ``opponents[r - 1]`` and ``round_cf[r - 1]`` are round r's
    opponent and CF columns (对手分 and head-to-head read them); ``unmet`` the entrants that have
    met nobody yet; ``previous_rank`` the rank after the round before (None for all after rounds
    0 and 1); ``ranking`` orders the entrants. The ``shown_*`` columns and ``opponents_cf`` are
    the figures as compared. While ``exact`` (every value so far a whole number) the CF and JCF
    figures are kept as ints, which are exact and small (Python shares the objects of small
    ints, so the columns stay compact at any size); ``columns()`` and ``rows()`` give them as
    the floats they are.
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
    opponents: tuple[tuple[int, ...], ...]
    round_cf: tuple[tuple[float, ...], ...]
    unmet: tuple[int, ...]
    previous_rank: tuple[int | None, ...]
    shown_cf: tuple[float, ...]
    shown_jcf: tuple[float, ...]
    shown_deducted: tuple[float, ...]
    shown_progressive: tuple[float, ...]
    opponents_cf: tuple[float, ...]
    ranking: Ranking

    @property
    def entrants(self) -> tuple[int, ...]:
        return self.setup.entrants

    def rank_of(self, entrant: int) -> int:
        """The rank of one entrant (by id) in these standings."""
        return self.ranking.ranks[self.setup.index[entrant]]

    def columns(self) -> tuple[tuple[Any, ...], ...]:
        """One tuple per ``StandingRow`` field, in standings order: what a compact cache of the
        standings stores, without a row object per entrant."""
        n = len(self.setup.entrants)
        if n == 0:
            return tuple(() for _ in STANDING_ROW_FIELDS)
        pick: Callable[[Sequence[Any]], tuple[Any, ...]]
        pick = itemgetter(*self.ranking.order) if n > 1 else _pick_first
        by_index = self._by_index()
        return (
            tuple(range(1, n + 1)),
            *map(pick, by_index[1:-1]),
            self.ranking.decided_by,
        )

    def rows(self) -> tuple[StandingRow, ...]:
        """The standings as rows, rank 1 first. Built by entrant (columns read in sequence),
        then put in standings order at once."""
        n = len(self.setup.entrants)
        if n < 2:
            return tuple(map(StandingRow, *self.columns()))
        rows = list(map(StandingRow, *self._by_index()))
        ordered: tuple[StandingRow, ...] = itemgetter(*self.ranking.order)(rows)
        return ordered

    def _by_index(self) -> list[Sequence[Any]]:
        """The ``StandingRow`` fields as columns by entrant index."""
        ranking = self.ranking
        figures: list[Sequence[Any]] = [
            self.shown_cf,
            self.shown_jcf,
            self.opponents_cf,
            self.shown_progressive,
            self.shown_deducted,
        ]
        if self.exact:  # whole numbers kept as ints: the floats they stand for
            figures = [list(map(float, column)) for column in figures]
            for i in self.unmet:  # 对手分 of a pair that met nobody: 0, as sum([])
                figures[2][i] = 0  # type: ignore[index]
        cf, jcf, opponents_cf, progressive, deducted = figures
        decided_by: Sequence[str | None] = ranking.decided_by
        if len(ranking.ranks) > 1:  # by entrant: the entry at each one's position
            decided_by = itemgetter(*map(sub, ranking.ranks, repeat(1)))(decided_by)
        return [
            ranking.ranks,
            self.setup.entrants,
            cf,
            jcf,
            self.wins,
            self.draws,
            self.losses,
            self.level_difference,
            opponents_cf,
            self.upgrades,
            progressive,
            deducted,
            self.previous_rank,
            decided_by,
        ]


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
    for o in bucket:
        if o.round != number:
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
    return _states(setup, outcomes, deductions, after_round)[-1]


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
    setup = standings_setup(pairs, criteria, seed)
    states = _states(setup, outcomes, deductions, last_round)
    return {state.after_round: state.rows() for state in states[1:]}


def round_figures(setup: StandingsSetup, number: int, outcomes: Sequence[Outcome]) -> RoundFigures:
    """One round's outcomes (all of round ``number``, at most one per entrant) checked and
    turned into columns by entrant index. Whole-list operations throughout; the first bad
    outcome is then named by ``_reject``."""
    n = len(setup.entrants)
    m = len(outcomes)
    if not m:
        return _no_outcomes(n, number)
    # Entrant order is id order, so outcomes sorted by pair give every column in entrant order
    # (read in sequence, rather than gathered through a permutation column by column).
    try:
        ordered: Sequence[Outcome] = sorted(outcomes, key=_pair_of)
    except TypeError:
        ordered = outcomes
    # One visit to each outcome (they lie scattered in memory once sorted): transposed.
    _, pairs, opponents, kinds, results, cf, jcf, ld, up = map(list, zip(*ordered, strict=True))
    try:
        everyone = m == n and pairs == list(setup.entrants)  # each once: a finished round
        mine: list[int] = list(range(n)) if everyone else _indices(setup, pairs)
        if setup.contiguous and None not in opponents:
            theirs = _indices(setup, opponents)
        else:
            theirs = list(map(setup.index.__getitem__, opponents))
    except (KeyError, TypeError):
        everyone, mine, theirs = False, [], []
    if (
        len(mine) != m
        or not number >= 1
        or not set(kinds) <= KINDS
        or not set(results) <= RESULTS
        or (not everyone and len(set(mine)) != m)
        # a bye has no opponent and nothing else lacks one; nobody meets itself
        or list(map(eq, kinds, repeat("bye", m))) != list(map(is_, opponents, repeat(None, m)))
        or any(map(eq, pairs, opponents))
    ):
        _reject(outcomes, setup.index)
    whole_cf, whole_jcf = list(map(int, cf)), list(map(int, jcf))
    exact = whole_cf == cf and whole_jcf == jcf
    if exact:  # whole numbers as ints (see StandingsState)
        cf, jcf = whole_cf, whole_jcf
    # Booleans (True adds 1): the cumulative counts start from int 0, so they stay ints.
    wins = list(map(eq, results, repeat("win", m)))
    draws = list(map(eq, results, repeat("draw", m)))
    losses = list(map(eq, results, repeat("loss", m)))
    columns: list[Sequence[Any]] = [cf, jcf, wins, draws, losses, ld, up, theirs]
    if everyone:
        by_entrant = columns
    else:  # the round in progress: 0 (and no opponent) for those without an outcome yet
        by_entrant = []
        for column, missing in zip(columns, (0, 0, 0, 0, 0, 0, 0, n), strict=True):
            full = [missing] * n
            for i, value in zip(mine, column, strict=True):
                full[i] = value
            by_entrant.append(full)
    cf_, jcf_, wins_, draws_, losses_, ld_, up_, opponent = map(tuple, by_entrant)
    return RoundFigures(number, cf_, jcf_, wins_, draws_, losses_, ld_, up_, opponent, exact)


def _indices(setup: StandingsSetup, ids: list[int]) -> list[int]:
    """Entrant indices of ``ids`` (KeyError for an unknown one). For consecutive ids, a
    subtraction (no look-up in a large dictionary, which at 50,000 entrants misses the cache)."""
    n = len(setup.entrants)
    if setup.contiguous and n:
        indices = list(map(sub, ids, repeat(setup.entrants[0], len(ids))))
        if all(map(isinstance, indices, repeat(int))) and 0 <= min(indices) <= max(indices) < n:
            return indices
    return list(map(setup.index.__getitem__, ids))


def _no_outcomes(n: int, number: int) -> RoundFigures:
    zeros: tuple[int, ...] = (0,) * n
    return RoundFigures(number, zeros, zeros, zeros, zeros, zeros, zeros, zeros, (n,) * n, True)


def _states(
    setup: StandingsSetup,
    outcomes: Iterable[Outcome],
    deductions: Iterable[Deduction],
    last_round: int,
) -> list[StandingsState]:
    """The states after rounds 0…``last_round``."""
    if last_round < 0:
        raise StandingsError("bad_round", round=last_round)
    figures = {
        number: round_figures(setup, number, list(bucket))
        for number, bucket in groupby(sorted(outcomes, key=_round_of), key=_round_of)
    }
    by_round: dict[int | None, list[tuple[int, float]]] = {}
    for d in deductions:  # in the given order, as the sums are made in it
        by_round.setdefault(d.round, []).extend(_checked_deductions(setup, (d,), d.round))
    states = [_initial(setup, by_round.get(None, []))]
    n = len(setup.entrants)
    for number in range(1, last_round + 1):
        round_ = figures.get(number) or _no_outcomes(n, number)
        states.append(_advance(states[-1], round_, by_round.get(number, [])))
    return states


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
        previous_rank=(None,) * n,
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
        previous_rank=state.ranking.ranks if state.after_round >= 1 else (None,) * n,
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
    opponents: tuple[tuple[int, ...], ...],
    round_cf: tuple[tuple[float, ...], ...],
    unmet: tuple[int, ...],
    previous_rank: tuple[int | None, ...],
) -> StandingsState:
    """The state with these cumulative figures: the figures as compared, 对手分, the ranking."""
    # All None (after rounds 0 and 1) or all ints: the ranks after the round before.
    state_ranks = None if not previous_rank or previous_rank[0] is None else previous_rank
    net_jcf = tuple(map(sub, jcf, deducted))
    if exact:
        shown_cf, shown_jcf, shown_progressive, shown_deducted = cf, net_jcf, progressive, deducted
    else:
        shown_cf, shown_jcf, shown_progressive, shown_deducted = (
            tuple(map(_rounded, column)) for column in (cf, net_jcf, progressive, deducted)
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
    columns: list[RankColumn] = []
    for key in setup.criteria:
        if key in sources:
            columns.append(RankColumn(key, sources[key], higher_is_better=True))
        elif key == "previous_rank":  # lower is better; no previous rank ties everyone
            ranks = (0,) * len(cf) if state_ranks is None else cast("tuple[int, ...]", state_ranks)
            columns.append(RankColumn(key, ranks))
        elif key == "lot":
            columns.append(RankColumn(key, setup.lot_rank))
        else:
            columns.append(RankColumn(key, None))  # head_to_head
    mini_league = _MiniLeague(opponents, round_cf, exact).points
    ranking = _rank(columns, mini_league, setup.lot_order)
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
        previous_rank=previous_rank,
        shown_cf=shown_cf,
        shown_jcf=shown_jcf,
        shown_deducted=shown_deducted,
        shown_progressive=shown_progressive,
        opponents_cf=opponents_cf,
        ranking=ranking,
    )


def _opponents_cf(
    cf: tuple[float, ...], opponents: tuple[tuple[int, ...], ...], exact: bool
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
    return tuple(map(_rounded, map(sum, zip(*[map(of, c) for c in opponents], strict=True))))


class _MiniLeague:
    """RULES.md §4 head-to-head for pairs: the CF each member of a tie group earned against the
    others, when every member met every other (for two pairs: they met)."""

    __slots__ = ("exact", "opponents", "round_cf")

    def __init__(
        self,
        opponents: tuple[tuple[int, ...], ...],
        round_cf: tuple[tuple[float, ...], ...],
        exact: bool,
    ) -> None:
        self.opponents = opponents
        self.round_cf = round_cf
        self.exact = exact

    def points(self, group: Sequence[int]) -> dict[int, float] | None:
        need = len(group) - 1
        if need > len(self.opponents):  # one opponent a round: cannot have met them all
            return None
        members = set(group)
        points: dict[int, float] = {}
        for i in group:
            met: set[int] = set()
            total = 0.0
            for opponent, cf in zip(self.opponents, self.round_cf, strict=True):
                j = opponent[i]
                if j in members:  # a meeting in the group (index n, no opponent, never is)
                    met.add(j)
                    total += cf[i]
            if len(met) != need:
                return None
            points[i] = total if self.exact else _rounded(total)
        return points


def _rounded(value: float) -> float:
    return round(value, _DECIMALS)


_round_of = attrgetter("round")
_pair_of = attrgetter("pair")


def _reject(bucket: Sequence[Outcome], index: Mapping[int | None, int]) -> None:
    """Raise the precise error for the first bad outcome of a round that failed the checks."""
    seen: set[int] = set()
    for o in bucket:
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
