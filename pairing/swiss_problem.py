"""The Swiss engine's data: its public types (``SwissPair``, ``SwissOptions``, ``SwissDraw`` …),
the one error type (``PairingError``), the reasons' wording for the CLI, and ``SwissProblem`` — one
round's pairs in ranking order with what the costs need (units, rematches, directions).

Pure (no Django). Used by ``pairing.swiss`` and its parts ``swiss_fast`` and ``swiss_exact``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from rules.errors import GuandanError

# --------------------------------------------------------------------------------------------
# Public data types
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwissPair:
    """One active pair as the engine sees it (the caller filters withdrawn/disqualified pairs)."""

    id: int
    rank: int  # 1 = top of the current standings (the caller's ranking, RULES.md §4)
    match_points: float  # cumulative 场分 CF
    unit: str | None = None  # 单位: club, company, city
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False
    ns_count: int = 0  # times seated North-South so far
    ew_count: int = 0
    last_direction: str | None = None  # "NS" / "EW" / None
    seeding: int | None = None  # for round 1 by seeding number


@dataclass(frozen=True)
class SwissOptions:
    """Per-tournament pairing settings (RULES.md §5)."""

    same_unit: str = "avoid"  # "avoid" | "allow"
    round1: str = "lot"  # "lot" | "seeding"


@dataclass(frozen=True)
class Reason:
    """A machine-readable reason a referee needs to trust the draw; see :func:`describe`."""

    code: str
    params: tuple[tuple[str, object], ...] = ()

    def param(self, key: str) -> object:
        return dict(self.params).get(key)

    @property
    def text_en(self) -> str:
        return describe(self)


@dataclass(frozen=True)
class SwissTable:
    number: int  # 1 = top table
    ns: int  # pair id seated North-South
    ew: int
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True)
class SwissDraw:
    round: int
    tables: tuple[SwissTable, ...]
    bye: int | None
    bye_reasons: tuple[Reason, ...]
    same_unit_meetings: int
    total_gap: float  # Σ|CF(a) − CF(b)| over tables


class PairingError(GuandanError):
    """The draw cannot be made. ``code`` is stable; ``params`` explain it.

    Codes: ``no_pairing_without_rematch``, ``too_few_pairs``, ``duplicate_pair``,
    ``no_bye_candidate``, ``bad_option``, ``bad_round``.
    """


_TEXTS: dict[str, str] = {
    "same_score": "both pairs on {cf} match points",
    "float": "pair {pair} floated from {from} to {to} match points",
    "same_unit_forced": "same unit ({unit}) accepted: no other pairing exists",
    "same_unit_allowed": "same unit ({unit}): allowed by the tournament settings",
    "lot": "round 1: drawn by lot",
    "seeding": "round 1: seeding {seed_a} against seeding {seed_b}",
    "direction": "pair {pair} sits {seat}: {why}",
    "bye_lowest_without_bye": (
        "bye: pair {pair} (rank {rank}) is the lowest-ranked pair without a bye"
    ),
    "bye_skipped": "bye: pair {pair} (rank {rank}) passed over: {why}",
    "bye_lot": "bye: pair {pair} drawn by lot among the pairs without a bye",
    "bye_seeding": "bye: pair {pair} has the lowest seeding without a bye",
}

_WHY: dict[str, str] = {
    "had_bye": "it already had a bye",
    "rest_unpairable": "the other pairs could not then be paired without a rematch",
    "balance": "balances its North-South and East-West counts",
    "alternate": "alternates with its last seat",
    "higher_ranked": "no preference either way; the higher-ranked pair sits North-South",
    "drawn_first": "no preference either way; the pair drawn first sits North-South",
    "higher_seeded": "no preference either way; the higher-seeded pair sits North-South",
}


def describe(reason: Reason) -> str:
    """An English sentence for ``reason`` (the Django layer translates codes itself)."""
    params = {
        key: _WHY.get(str(value), value) if key == "why" else value for key, value in reason.params
    }
    template = _TEXTS.get(reason.code)
    if template is None:
        return reason.code + "".join(f" {key}={value}" for key, value in reason.params)
    return template.format(**params)


class SwissProblem:
    """An even field in sweep order, with integer match points and the forbidden edges."""

    def __init__(self, sweep: list[SwissPair], avoid: bool) -> None:
        self.sweep = sweep
        self.n = len(sweep)
        self.avoid = avoid
        index = {p.id: k for k, p in enumerate(sweep)}
        # Forbidden partners (rematches, RULES.md §5 hard rule), as sweep positions; made
        # symmetric in case a caller lists a meeting on one side only.
        get = index.get
        self.bad: list[set[int]] = [{get(o, -1) for o in p.opponents} for p in sweep]
        for k, opp in enumerate(self.bad):
            opp.discard(-1)
            for m in opp:
                if k not in self.bad[m]:
                    self.bad[m].add(k)
        self.has_opponents = any(self.bad)
        # Units as small ints; None = no unit, never "the same unit" as anyone.
        unit_ids: dict[str, int] = {}
        self.unit: list[int] = []
        for k, p in enumerate(sweep):
            if p.unit is None:
                self.unit.append(-1 - k)
            else:
                self.unit.append(unit_ids.setdefault(p.unit, len(unit_ids)))
        # Exact integer match points: CF values are floats such as 2, 1, 0.5; Fraction is exact.
        exact = {v: Fraction(v) for v in {p.match_points for p in sweep}}
        scale = lcm(*(f.denominator for f in exact.values())) if exact else 1
        scaled = {v: int(f * scale) for v, f in exact.items()}
        self.cf: list[int] = [scaled[p.match_points] for p in sweep]
        # Levels (score groups) along the sweep: lvl is non-decreasing along the sweep.
        self.lvl: list[int] = []
        self.level_cf: list[int] = []
        for c in self.cf:
            if not self.level_cf or self.level_cf[-1] != c:
                self.level_cf.append(c)
            self.lvl.append(len(self.level_cf) - 1)
        k = len(self.level_cf)
        # Cut c lies between level c and c + 1; it is "odd" when an odd number of pairs lie
        # before it, so every perfect matching crosses it an odd number of times.
        self.odd: list[bool] = [False] * max(k - 1, 0)
        sizes = [0] * k
        for level in self.lvl:
            sizes[level] += 1
        self.sizes = sizes
        count = 0
        for c in range(k - 1):
            count += sizes[c]
            self.odd[c] = count % 2 == 1
        self.lower_bound_gap = sum(
            abs(self.level_cf[c] - self.level_cf[c + 1]) for c in range(k - 1) if self.odd[c]
        )

    def allowed(self, i: int, j: int) -> bool:
        return j not in self.bad[i] and (not self.avoid or self.unit[i] != self.unit[j])

    def same_unit(self, i: int, j: int) -> bool:
        return self.unit[i] == self.unit[j]


def unit_surplus(problem: SwissProblem) -> tuple[int, int]:
    """(the largest unit, s_lb): every pairing has at least s_lb = max(0, its size − n/2)
    same-unit meetings (its pairs beyond half the field can only meet each other); (−1, 0)
    when units are allowed to meet."""
    if not problem.avoid:
        return -1, 0
    counts: dict[int, int] = {}
    for u in problem.unit:
        counts[u] = counts.get(u, 0) + 1
    major = max(counts, key=lambda u: counts[u])
    return major, max(0, counts[major] - problem.n // 2)
