"""The standings algorithm as it was before issue 18 (recursive ``place()`` over tie groups, one
``_Table`` of running totals), kept verbatim as an exact reference for the property tests in
``tests/core/test_standings_reference.py``: the linear ranking and the incremental API of
``scoring.standings`` must give the very same rows, ``decided_by`` included.

Test support only; nothing in the apps imports it. The data types (``Outcome``, ``Deduction``,
``StandingRow``) and the helpers that did not change (``resolve_criteria``, ``lot_number``,
``StandingsError``) come from ``scoring.standings`` so that rows compare equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby
from operator import attrgetter, itemgetter

from scoring.standings import (
    KINDS,
    RESULTS,
    Deduction,
    Outcome,
    StandingRow,
    StandingsError,
    lot_number,
    resolve_criteria,
)

__all__ = ["compute_standings", "standings_by_round"]

_DECIMALS = 9


def compute_standings(
    pairs: Sequence[int],
    outcomes: Iterable[Outcome],
    deductions: Iterable[Deduction],
    criteria: str | Sequence[str],
    seed: int,
    after_round: int,
) -> tuple[StandingRow, ...]:
    """The standings after ``after_round`` (0 = before any round), one row per registered pair.

    ``previous_rank`` needs the standings after every earlier round, so this walks the chain.
    """
    if after_round < 0:
        raise StandingsError("bad_round", round=after_round)
    table = _Table(pairs, outcomes, deductions, resolve_criteria(criteria), seed)
    rows: tuple[StandingRow, ...] = table.rank(0)
    for number in range(1, after_round + 1):
        rows = table.rank(number)
    return rows


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
    table = _Table(pairs, outcomes, deductions, resolve_criteria(criteria), seed)
    return {number: table.rank(number) for number in range(1, last_round + 1)}


_HEAD_TO_HEAD = "head_to_head"
# Added with RULES.md §9 (issue 28): head-to-head only when exactly two are tied.
_HEAD_TO_HEAD_TWO = "head_to_head_two"
_RELATIONS = (_HEAD_TO_HEAD, _HEAD_TO_HEAD_TWO)


def _identity(value: float) -> float:
    return value


def _rounded(value: float) -> float:
    return round(value, _DECIMALS)


class _Table:
    """Per-pair running totals, advanced round by round, and the ranking procedure.

    Pairs are handled by their index in the sorted list of pair ids, so nothing depends on the
    order in which pairs, outcomes or deductions were given.
    """

    def __init__(
        self,
        pairs: Sequence[int],
        outcomes: Iterable[Outcome],
        deductions: Iterable[Deduction],
        criteria: tuple[str, ...],
        seed: int,
    ) -> None:
        ids = sorted(pairs)
        if len(set(ids)) != len(ids):
            raise StandingsError("repeated_pair")
        self.ids = ids
        index = {pair: i for i, pair in enumerate(ids)}
        n = len(ids)
        self.criteria = criteria
        self.relation = next((key for key in criteria if key in _RELATIONS), _HEAD_TO_HEAD)
        # Whole-number scores add up exactly; anything else is rounded before it is compared.
        exact = True

        # Outcomes by round as (pair index, opponent index or None, outcome), in pair order so
        # that float sums are always made in the same order. Checked a round at a time with
        # whole-list operations (fast); the first failure is then explained by _reject.
        self.by_round: dict[int, list[tuple[int, int | None, Outcome]]] = {}
        index_of = index.__getitem__
        for number, grouped in groupby(sorted(outcomes, key=_round_of), key=_round_of):
            bucket = list(grouped)
            try:
                mine = list(map(index_of, [o.pair for o in bucket]))
                theirs = [None if o.opponent is None else index_of(o.opponent) for o in bucket]
            except (KeyError, TypeError):
                mine = theirs = []
            if (
                len(mine) != len(bucket)
                or not number >= 1
                or not {o.kind for o in bucket} <= KINDS
                or not {o.result for o in bucket} <= RESULTS
                or len(set(mine)) != len(mine)
                or any(
                    (o.kind == "bye") != (o.opponent is None) or o.opponent == o.pair
                    for o in bucket
                )
            ):
                _reject(bucket, index)
            if exact and any(o.cf % 1 or o.jcf % 1 for o in bucket):
                exact = False
            rows = list(zip(mine, theirs, bucket, strict=True))
            rows.sort(key=_first)
            self.by_round[number] = rows

        self.deductions_by_round: dict[int | None, list[tuple[int, float]]] = {}
        for d in deductions:
            i = index.get(d.pair)
            if i is None:
                raise StandingsError("unknown_pair", pair=d.pair, round=d.round)
            # RULES.md §3: a deduction subtracts from the JCF total, it never adds.
            if not d.jcf >= 0:
                raise StandingsError("bad_deduction", pair=d.pair, jcf=d.jcf)
            if d.round is not None and d.round < 1:
                raise StandingsError("bad_round", pair=d.pair, round=d.round)
            if d.jcf % 1:
                exact = False
            self.deductions_by_round.setdefault(d.round, []).append((i, d.jcf))
        self.norm = _identity if exact else _rounded

        # Lot numbers, then the index (= pair id order) for a collision: a total order.
        self.lot = [(lot_number(seed, pair), i) for i, pair in enumerate(ids)]
        self.segments = _segments(criteria)

        # Running totals after self.round.
        self.round = 0
        self.cf = [0.0] * n
        self.jcf = [0.0] * n  # before deductions
        self.deducted = [0.0] * n
        self.wins = [0] * n
        self.draws = [0] * n
        self.losses = [0] * n
        self.level_difference = [0] * n
        self.upgrades = [0] * n
        self.progressive = [0.0] * n
        # Every opponent met (forfeits included, byes not), and the CF earned in each meeting:
        # 对手分 and the head-to-head mini-league.
        self.opponents: list[list[int]] = [[] for _ in range(n)]
        self.meeting_cf: list[list[float]] = [[] for _ in range(n)]
        # Ranks (by index) in the last standings computed; None before any.
        self.ranks: list[int | None] = [None] * n
        self._deduct(None)

    def _deduct(self, number: int | None) -> None:
        for i, jcf in self.deductions_by_round.get(number, ()):
            self.deducted[i] += jcf

    def _advance(self) -> None:
        """Add the next round's outcomes and deductions to the running totals."""
        self.round += 1
        number = self.round
        items = self.by_round.get(number, ())
        cf, jcf, opponents, meeting_cf = self.cf, self.jcf, self.opponents, self.meeting_cf
        # RULES.md §4 / TOURNAMENT_FILE.md: byes and forfeits count as wins or losses.
        tally = {"win": self.wins, "draw": self.draws, "loss": self.losses}
        level_difference, upgrades = self.level_difference, self.upgrades
        for i, j, o in items:
            cf[i] += o.cf
            jcf[i] += o.jcf
            tally[o.result][i] += 1
            level_difference[i] += o.level_difference
            upgrades[i] += o.upgrades
            if j is not None:  # a bye meets nobody and adds nothing to 对手分
                opponents[i].append(j)
                meeting_cf[i].append(o.cf)
        self._deduct(number)
        # RULES.md §4 Jiangsu preset: (去首)累进分 = Σ over r = 2…N of the cumulative CF after r.
        if number >= 2:
            self.progressive = [p + c for p, c in zip(self.progressive, cf, strict=True)]

    def rank(self, after_round: int) -> tuple[StandingRow, ...]:
        """The standings after ``after_round``, which is the next round or the current one.

        ``previous_rank`` is the rank in the standings this table computed for the round before
        (RULES.md §4 regulation 7); after round 0 and after round 1 nobody has one.
        """
        if after_round == self.round + 1:
            previous_rank = self.ranks if self.round >= 1 else [None] * len(self.ids)
            self._advance()
        elif after_round == self.round == 0:
            previous_rank = self.ranks
        else:
            raise AssertionError("standings are computed round after round")

        n = len(self.ids)
        norm = self.norm
        jcf = [v - d for v, d in zip(self.jcf, self.deducted, strict=True)]
        if norm is _identity:
            cf, progressive = list(self.cf), list(self.progressive)
        else:
            cf = [norm(v) for v in self.cf]
            jcf = [norm(v) for v in jcf]
            progressive = [norm(v) for v in self.progressive]
        # RULES.md §4: 对手分 = the sum of the cumulative CF of every opponent met.
        cf_of = cf.__getitem__
        opponents_cf = [sum(map(cf_of, opps)) for opps in self.opponents]
        if norm is not _identity:
            opponents_cf = [norm(v) for v in opponents_cf]

        columns: dict[str, list] = {"lot": self.lot}
        sources: dict[str, list] = {
            "cf": cf,
            "jcf": jcf,
            "wins": self.wins,
            "draws": self.draws,
            "level_difference": self.level_difference,
            "opponents_cf": opponents_cf,
            "progressive": progressive,
            "upgrades": self.upgrades,
        }
        for key in self.criteria:
            if key in sources:  # higher is better: negate for an ascending sort
                columns[key] = [-v for v in sources[key]]
            elif key == "previous_rank":
                # Lower is better; no previous rank (after round 1) ties everyone.
                columns[key] = [0 if v is None else v for v in previous_rank]

        segments = self.segments
        segment_columns = [None if seg is None else [columns[k] for k in seg] for seg in segments]
        keys: list[list[tuple] | None] = [None] * len(segments)
        order: list[int] = []
        decided: list[str | None] = []

        def place(group: list[int], s: int, boundary: str | None) -> None:
            """Append ``group`` (two or more pairs tied on every segment before ``s``) in order;
            ``boundary`` is the criterion that put the group's first row below the row above."""
            cols = segment_columns[s]
            if cols is None:  # head_to_head (head_to_head_two: only a group of two)
                relation = self.relation
                two_only = relation == _HEAD_TO_HEAD_TWO
                parts = [group] if two_only and len(group) != 2 else self._head_to_head(group)
                if len(parts) == 1:
                    place(group, s + 1, boundary)
                    return
                for k, part in enumerate(parts):
                    b = boundary if k == 0 else relation
                    if len(part) == 1:
                        order.append(part[0])
                        decided.append(b)
                    else:
                        # A sub-group of two or more is itself a tie group: head-to-head again.
                        place(part, s, b)
                return
            names = segments[s]
            # Key tuples for every pair, made once per run of criteria that some group reaches.
            segment_keys = keys[s]
            if segment_keys is None:
                segment_keys = keys[s] = list(zip(*cols, strict=True))
            ranked = sorted(group, key=segment_keys.__getitem__)
            m = len(ranked)
            start = 0
            above = segment_keys[ranked[0]]
            for j in range(1, m + 1):
                if j < m:
                    below = segment_keys[ranked[j]]
                    if below == above:
                        continue
                if j - start == 1:
                    order.append(ranked[start])
                    decided.append(boundary)
                else:
                    place(ranked[start:j], s + 1, boundary)
                if j < m:
                    k = 0
                    while below[k] == above[k]:
                        k += 1
                    boundary = names[k]
                    above = below
                start = j

        if n == 1:
            order.append(0)
            decided.append(None)
        elif n:
            place(list(range(n)), 0, None)

        ranks: list[int | None] = [None] * n
        for position, i in enumerate(order, start=1):
            ranks[i] = position
        self.ranks = ranks
        if not n:
            return ()
        # Every column in standings order, then one row per position (whole-list operations).
        pick = itemgetter(*order) if n > 1 else lambda column: (column[order[0]],)
        deducted = self.deducted if norm is _identity else [norm(v) for v in self.deducted]
        return tuple(
            map(
                StandingRow,
                range(1, n + 1),
                pick(self.ids),
                pick(cf),
                pick(jcf),
                pick(self.wins),
                pick(self.draws),
                pick(self.losses),
                pick(self.level_difference),
                pick(opponents_cf),
                pick(self.upgrades),
                pick(progressive),
                pick(deducted),
                pick(previous_rank),
                decided,
            )
        )

    def _head_to_head(self, group: list[int]) -> list[list[int]]:
        """RULES.md §4 head-to-head on a tie group: ``[group]`` when it does not apply or does
        not separate, else the sub-groups by mini-league CF, best first."""
        members = set(group)
        need = len(group) - 1
        points: dict[int, float] = {}
        for i in group:
            met: set[int] = set()
            total = 0.0
            for j, cf in zip(self.opponents[i], self.meeting_cf[i], strict=True):
                if j in members:
                    met.add(j)
                    total += cf
            # Only when every pair in the group met every other (for two pairs: they met).
            if len(met) != need:
                return [group]
            points[i] = self.norm(total)
        levels = sorted(set(points.values()), reverse=True)
        if len(levels) == 1:
            return [group]
        return [[i for i in group if points[i] == level] for level in levels]


_first = itemgetter(0)
_round_of = attrgetter("round")


def _segments(criteria: tuple[str, ...]) -> list[tuple[str, ...] | None]:
    """Runs of number criteria (one key tuple each), with None standing for head_to_head."""
    segments: list[tuple[str, ...] | None] = []
    run: list[str] = []
    for key in criteria:
        if key in _RELATIONS:
            if run:
                segments.append(tuple(run))
                run = []
            segments.append(None)
        else:
            run.append(key)
    segments.append(tuple(run))  # never empty: lot is always last and separates everyone
    return segments


def _reject(bucket: list[Outcome], index: dict[int, int]) -> None:
    """Raise the precise error for the first bad outcome of a round that failed the checks."""
    seen: set[int] = set()
    for o in bucket:
        if o.pair not in index:
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
