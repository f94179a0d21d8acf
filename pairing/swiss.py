"""Swiss pairing engine (瑞士移位) for pairs events: pure Python, standard library only.

Implements RULES.md §5. The Django side (``pairing.services``) loads the active pairs of a round,
calls :func:`pair_round` and saves the tables; nothing here touches a database, the clock or a
global random generator (randomness comes in as a seeded ``random.Random``).

Priorities for rounds ≥ 2 (RULES.md §5), highest first:

1. no rematch (hard: :class:`PairingError` ``no_pairing_without_rematch``, never a silent rematch);
2. the fewest same-unit meetings (only when ``same_unit == "avoid"``);
3. the smallest total match-point gap Σ|CF(a) − CF(b)| over the tables;
4. ranking neighbours, odd rounds sweeping from the top and even rounds from the bottom: among the
   pairings optimal for (1)–(3), the one that is first in sweep order — the first pair of the sweep
   meets the nearest pair it can, then the next free pair does the same, and so on.

(1)–(3) are solved exactly. A fast path exploits the line structure of the cost (pairs sorted by
match points); when it cannot *prove* optimality it falls back to an exact weighted blossom
algorithm. ``docs/pairing.md`` gives the algorithm, the optimality argument and the cost in n.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from pairing.matching import NoPerfectMatching, first_min_cost_perfect_matching, max_weight_matching
from rules.errors import GuandanError

__all__ = [
    "PairingError",
    "Reason",
    "SwissDraw",
    "SwissOptions",
    "SwissPair",
    "SwissTable",
    "describe",
    "pair_round",
]


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


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def pair_round(
    pairs: Sequence[SwissPair], round_number: int, options: SwissOptions, rng: random.Random
) -> SwissDraw:
    """Pair one round of a Swiss pairs event (RULES.md §5). See the module docstring."""
    if options.same_unit not in ("avoid", "allow"):
        raise PairingError("bad_option", option="same_unit", value=options.same_unit)
    if options.round1 not in ("lot", "seeding"):
        raise PairingError("bad_option", option="round1", value=options.round1)
    if round_number < 1:
        raise PairingError("bad_round", round=round_number)
    ids = [p.id for p in pairs]
    if len(set(ids)) != len(ids):
        seen: set[int] = set()
        dup = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        raise PairingError("duplicate_pair", pair=dup)
    if len(pairs) < 2:
        raise PairingError("too_few_pairs", count=len(pairs))
    avoid = options.same_unit == "avoid"
    if round_number == 1:
        order, first_reason = _round1_order(pairs, options, rng)
    else:
        # RULES.md §5: sort by the current standings. Standings rank by CF first (§4); sorting by
        # (-CF, rank) keeps the line structure of the cost even if a caller's rank disagrees.
        order = sorted(pairs, key=lambda p: (-p.match_points, p.rank, p.id))
        first_reason = None
    bye, bye_reasons, matching = _choose_bye_and_pair(order, round_number, options, rng, avoid)
    return _build_draw(order, round_number, matching, bye, bye_reasons, first_reason, avoid)


# --------------------------------------------------------------------------------------------
# Round 1
# --------------------------------------------------------------------------------------------


def _round1_order(
    pairs: Sequence[SwissPair], options: SwissOptions, rng: random.Random
) -> tuple[list[SwissPair], str]:
    """The order round 1 is swept in: a lot drawn from ``rng``, or the seeding slide.

    By lot: sort by id (so the caller's list order does not matter), then shuffle with the seeded
    generator; the same seed gives the same draw. By seeding (RULES.md §5 leaves the scheme open;
    we use the usual Swiss slide so the top seeds do not meet at once): with seeds 1..n the order
    1, h+1, 2, h+2, … (h = n // 2) makes neighbours in the sweep 1–(h+1), 2–(h+2), ….
    """
    if options.round1 == "lot":
        order = sorted(pairs, key=lambda p: p.id)
        rng.shuffle(order)
        return order, "lot"
    seeded = sorted(
        pairs, key=lambda p: (p.seeding is None, p.seeding or 0, p.rank, p.id)
    )  # unseeded pairs last
    if len(seeded) % 2:
        # The bye goes to the lowest seed without a bye; take it out before sliding.
        return seeded, "seeding"
    return _slide(seeded), "seeding"


def _slide(seeded: list[SwissPair]) -> list[SwissPair]:
    half = len(seeded) // 2
    out: list[SwissPair] = []
    for k in range(half):
        out.append(seeded[k])
        out.append(seeded[half + k])
    return out


# --------------------------------------------------------------------------------------------
# Bye and pairing
# --------------------------------------------------------------------------------------------


def _choose_bye_and_pair(
    order: list[SwissPair],
    round_number: int,
    options: SwissOptions,
    rng: random.Random,
    avoid: bool,
) -> tuple[SwissPair | None, list[Reason], list[tuple[SwissPair, SwissPair]]]:
    """Pick the bye (RULES.md §5) and pair the rest.

    The bye goes to the lowest-ranked pair that has not had one; if the others could then not be
    paired without a rematch, to the next one up (RULES.md §5, literally: "the rest could not then
    be paired" means rule (1) only — same-unit and gap are optimised *after* the bye is fixed).
    """
    if len(order) % 2 == 0:
        return None, [], _pair_even(order, round_number, avoid)
    reasons: list[Reason] = []
    if round_number == 1 and options.round1 == "lot":
        # Lot: every pair is level, so the bye is drawn too (the lot order's last pair first).
        candidates = list(reversed(order))
        chosen_code = "bye_lot"
    elif round_number == 1:
        candidates = list(reversed(order))  # lowest seeding first
        chosen_code = "bye_seeding"
    else:
        candidates = list(reversed(order))  # lowest-ranked first
        chosen_code = "bye_lowest_without_bye"
    for cand in candidates:
        if cand.had_bye:
            if chosen_code == "bye_lowest_without_bye":
                reasons.append(
                    Reason(
                        "bye_skipped", (("pair", cand.id), ("rank", cand.rank), ("why", "had_bye"))
                    )
                )
            continue
        rest = [p for p in order if p.id != cand.id]
        if round_number == 1 and options.round1 == "seeding":
            rest = _slide(rest)
        try:
            matching = _pair_even(rest, round_number, avoid)
        except PairingError as exc:
            if exc.code != "no_pairing_without_rematch":
                raise
            reasons.append(
                Reason(
                    "bye_skipped",
                    (("pair", cand.id), ("rank", cand.rank), ("why", "rest_unpairable")),
                )
            )
            continue
        if chosen_code == "bye_lowest_without_bye":
            params: tuple[tuple[str, object], ...] = (("pair", cand.id), ("rank", cand.rank))
        else:
            params = (("pair", cand.id),)
        reasons.append(Reason(chosen_code, params))
        return cand, reasons, matching
    if all(p.had_bye for p in order):
        raise PairingError("no_bye_candidate", count=len(order))
    raise PairingError("no_pairing_without_rematch", count=len(order))


def _pair_even(
    order: list[SwissPair], round_number: int, avoid: bool
) -> list[tuple[SwissPair, SwissPair]]:
    """Optimal pairing of an even field given in standings (or round-1 sweep) order."""
    n = len(order)
    if n == 0:
        return []
    # Sweep order (RULES.md §5): odd rounds from the top, even rounds from the bottom. Round 1
    # sweeps its lot / seeding order from the top.
    sweep = order if round_number % 2 == 1 else list(reversed(order))
    problem = _Problem(sweep, avoid)
    mates = None
    if round_number == 1 and not problem.has_opponents:
        mates = _round1_units(problem)
    if mates is None:
        mates = _segmented(problem)
    if mates is None:
        mates = _exact_blossom(problem)
    pairs: list[tuple[SwissPair, SwissPair]] = []
    for i, j in enumerate(mates):
        if i < j:
            pairs.append((sweep[i], sweep[j]))
    return pairs


class _Problem:
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


# --------------------------------------------------------------------------------------------
# Round 1 with units and no history: exact greedy with a counting oracle
# --------------------------------------------------------------------------------------------


def _round1_units(problem: _Problem) -> list[int] | None:
    """Round 1 without history: first-in-lot-order pairing with the fewest same-unit meetings.

    With no forbidden edges, a set R of pairs can be paired with s same-unit meetings at best,
    s = max(0, u_max(R) − |R| / 2) where u_max is the size of R's largest unit (the pairs of the
    largest unit meet outsiders as long as there are any; the rest of the largest unit meet each
    other). So the first free pair of the sweep takes the nearest partner that keeps
    meetings_so_far + s(rest) at the optimum, which is checked by counting: no backtracking.
    """
    n = problem.n
    unit = problem.unit
    counts: dict[int, int] = {}
    for u in unit:
        counts[u] = counts.get(u, 0) + 1
    # freq[c] = number of units with c free pairs; ``biggest`` tracks the largest c in use.
    freq = [0] * (n + 1)
    for c in counts.values():
        freq[c] += 1
    biggest = max(counts.values())

    def take(u: int) -> None:
        nonlocal biggest
        c = counts[u]
        counts[u] = c - 1
        freq[c] -= 1
        freq[c - 1] += 1
        while biggest > 0 and freq[biggest] == 0:
            biggest -= 1

    def give(u: int) -> None:
        nonlocal biggest
        c = counts[u]
        counts[u] = c + 1
        freq[c] -= 1
        freq[c + 1] += 1
        biggest = max(biggest, c + 1)

    def forced(size: int) -> int:
        return max(0, biggest - size // 2) if problem.avoid else 0

    target = forced(n)
    mates = [-1] * n
    remaining = n
    used = 0
    for i in range(n):
        if mates[i] != -1:
            continue
        for j in range(i + 1, n):
            if mates[j] != -1:
                continue
            cost = 1 if problem.avoid and unit[i] == unit[j] else 0
            if used + cost > target:
                continue
            take(unit[i])
            take(unit[j])
            if used + cost + forced(remaining - 2) <= target:
                mates[i], mates[j] = j, i
                used += cost
                remaining -= 2
                break
            give(unit[j])
            give(unit[i])
        else:  # pragma: no cover - the counting argument guarantees a partner
            return None
    return mates


# --------------------------------------------------------------------------------------------
# Fast path: first-in-sweep-order matching that reaches the parity lower bound
# --------------------------------------------------------------------------------------------

# Backtracking steps allowed per pair before the fast path gives up and the exact blossom runs.
_BUDGET_PER_PAIR = 20
_BUDGET_BASE = 20_000


def _fast_path(problem: _Problem) -> list[int] | None:
    """Depth-first search, in sweep order, for a matching of cost exactly the lower bound.

    Lower bound: Σ|CF gap| = Σ over cuts (between consecutive score levels) of the cut's length
    times the number of tables crossing it, and that number has the parity of the count of pairs
    above the cut; and every pairing has at least s_lb same-unit meetings (the largest unit
    beyond half the field, :func:`_unit_surplus`). So no pairing costs less than
    (s_lb same-unit meetings, Σ length of odd cuts), and a pairing reaches it exactly when it has
    s_lb same-unit meetings and crosses every cut at most once. The search enumerates exactly
    those pairings, in lexicographic sweep order, so the first one found is optimal for (1)–(3)
    *and* first in sweep order (rule 4). It returns None when none exists (or the step budget
    runs out): the exact core then decides.
    """
    n = problem.n
    lvl = problem.lvl
    odd = problem.odd
    bad = problem.bad
    unit = problem.unit
    avoid = problem.avoid
    nlev = len(problem.level_cf)
    free_in_level = list(problem.sizes)
    crossed = [False] * max(nlev - 1, 0)
    mates = [-1] * n
    stack: list[tuple[int, int]] = []
    budget = _BUDGET_BASE + _BUDGET_PER_PAIR * n
    # Unit counts of the free pairs per level, for the majority prune below: a level's free pairs
    # can be paired without a same-unit meeting only if no unit holds more than half of them
    # (one more if one of them may still float out). A necessary condition, so pruning on it
    # never loses a solution; without it the search drifts into hopeless ends of big levels.
    counts: list[dict[int, int]] = [{} for _ in range(nlev)]
    for k in range(n):
        d = counts[lvl[k]]
        d[unit[k]] = d.get(unit[k], 0) + 1
    freq: list[list[int]] = []
    big: list[int] = []
    for level in range(nlev):
        f = [0] * (problem.sizes[level] + 2)
        for c in counts[level].values():
            f[c] += 1
        freq.append(f)
        big.append(max(counts[level].values()))

    def take(level: int, u: int) -> None:
        d = counts[level]
        c = d[u]
        d[u] = c - 1
        f = freq[level]
        f[c] -= 1
        f[c - 1] += 1
        if c == big[level] and f[c] == 0:
            big[level] = c - 1

    def give(level: int, u: int) -> None:
        d = counts[level]
        c = d[u]
        d[u] = c + 1
        f = freq[level]
        f[c] -= 1
        f[c + 1] += 1
        if c + 1 > big[level]:
            big[level] = c + 1

    # Same-unit budget: every pairing has at least s_target meetings (the largest unit beyond
    # half the field can only meet itself), so (s_target, parity bound) is still a lower bound,
    # and the search allows exactly s_target meetings. A level whose free pairs hold b of one
    # unit among f, with e pairs that may still float in or out, needs at least
    # ⌈(2b − f − e)/2⌉ meetings of its own; the sum over the levels (with the most generous e,
    # exact ones for the two levels a candidate table touches) must fit in the budget left.
    s_target = _unit_surplus(problem)[1]
    used = 0
    if s_target > 0:
        # Each step costs a dynamic programme over the levels: a smaller budget of steps.
        budget = _BUDGET_BASE // 10 + 2 * n

    def allowance(level: int) -> int:
        e = 0
        if level > 0 and odd[level - 1] and not crossed[level - 1]:
            e += 1
        if level < nlev - 1 and odd[level] and not crossed[level]:
            e += 1
        return e

    def need(level: int, free: int, e: int) -> int:
        x = 2 * big[level] - free - e
        return (x + 1) // 2 if x > 0 else 0

    need_gen = [need(level, free_in_level[level], allowance(level)) for level in range(nlev)]
    need_sum = sum(need_gen)

    def refresh(lo: int, hi: int) -> None:
        nonlocal need_sum
        for level in range(lo, hi + 1):
            need_sum -= need_gen[level]
            need_gen[level] = need(level, free_in_level[level], allowance(level))
            need_sum += need_gen[level]

    # With a budget (s_target > 0) the generous per-level sum is too weak (it lets one float
    # help both levels it touches), so the search uses the exact least count of meetings the
    # level counts allow: a dynamic programme over the levels from the current one, whose state
    # is the unit of the pair floating across the next odd cut (every odd cut not yet crossed is
    # crossed exactly once in a pairing that meets the bound; a float may also pass over a level).
    none = -(1 << 40)
    other = none + 1  # a float of a unit that is the largest neither where it leaves nor lands
    anon = none + 2  # a float of a unit largest where it leaves, not tracked where it lands
    classes = sorted(
        {u for level in range(nlev) for u, c in counts[level].items() if c == big[level]}
    )
    tracked = set(classes)
    classes.append(other)

    def is_big(level: int, u: int) -> bool:
        return u != other and u != anon and counts[level].get(u, 0) == big[level] > 0

    def least_meetings(start: int) -> int:
        cur: dict[int, int] = {none: 0}
        for level in range(start, nlev):
            cut_open = level < nlev - 1 and odd[level] and not crossed[level]
            f = free_in_level[level]
            b = big[level]
            nxt: dict[int, int] = {}
            for state, cost in cur.items():
                if state != none and cut_open:  # the float passes over this level
                    c = cost + need(level, f, 0) if f else cost
                    if c < nxt.get(state, c + 1):
                        nxt[state] = c
                f1 = f + (state != none)
                b1 = b + (1 if state != none and is_big(level, state) else 0)
                if cut_open:
                    if f1 == 0:
                        continue
                    # "anon" only where a largest unit of the level is not tracked (it became
                    # the largest as its rivals were seated): it may leave, helping this level.
                    anon_ok = any(c == b and u not in tracked for u, c in counts[level].items())
                    for cl in classes if not anon_ok else [*classes, anon]:
                        bb = b1 - (1 if cl == anon or is_big(level, cl) else 0)
                        x = 2 * bb - (f1 - 1)
                        c = cost + ((x + 1) // 2 if x > 0 else 0)
                        if c < nxt.get(cl, c + 1):
                            nxt[cl] = c
                else:
                    x = 2 * b1 - f1
                    c = cost + ((x + 1) // 2 if x > 0 else 0)
                    if c < nxt.get(none, c + 1):
                        nxt[none] = c
            cur = nxt
        return cur.get(none, n)

    if avoid and (need_sum > s_target or (s_target > 0 and least_meetings(0) > s_target)):
        return None  # the units' majorities need more same-unit meetings than the bound allows
    i = 0
    j_start = 1
    while True:
        while i < n and mates[i] != -1:
            i += 1
        if i == n:
            return mates
        li = lvl[i]
        found = -1
        # Level check: all pairs before i are seated, so the free pairs of level li pair among
        # themselves except one that floats across the next cut, if that cut is odd and unused.
        can_float = li < nlev - 1 and odd[li] and not crossed[li]
        if (free_in_level[li] % 2 == 1) == can_float:
            bad_i = bad[i]
            unit_i = unit[i]
            j = j_start
            prev = lvl[j - 1] if j - 1 > i else li
            while j < n:
                lj = lvl[j]
                if lj != prev:
                    # j enters a lower level: the cut must be odd and not yet crossed.
                    if not odd[lj - 1] or crossed[lj - 1]:
                        break
                    prev = lj
                if mates[j] == -1 and j not in bad_i:
                    if not avoid:
                        found = j
                        break
                    s_add = 1 if unit[j] == unit_i else 0
                    if used + s_add <= s_target:
                        take(li, unit_i)
                        take(lj, unit[j])
                        # Exact allowances: nothing can float into li any more (every pair
                        # before i is seated) nor into lj (i is its float from above).
                        e_i = 1 if lj == li and can_float else 0
                        total = need_sum - need_gen[li]
                        total += need(li, free_in_level[li] - 1 - (lj == li), e_i)
                        if lj != li:
                            e_j = 1 if lj < nlev - 1 and odd[lj] and not crossed[lj] else 0
                            total += need(lj, free_in_level[lj] - 1, e_j) - need_gen[lj]
                        if s_target > 0 and used + s_add + total <= s_target:
                            # Tighter: apply the table, count exactly from level li on.
                            free_in_level[li] -= 1
                            free_in_level[lj] -= 1
                            for c in range(li, lj):
                                crossed[c] = True
                            total = max(total, least_meetings(li))
                            for c in range(li, lj):
                                crossed[c] = False
                            free_in_level[li] += 1
                            free_in_level[lj] += 1
                        give(lj, unit[j])
                        give(li, unit_i)
                        if used + s_add + total <= s_target:
                            found = j
                            break
                j += 1
        if found == -1:
            if not stack:
                return None
            budget -= 1
            if budget < 0:
                return None
            i, j = stack.pop()
            mates[i] = mates[j] = -1
            free_in_level[lvl[i]] += 1
            free_in_level[lvl[j]] += 1
            give(lvl[i], unit[i])
            give(lvl[j], unit[j])
            for c in range(lvl[i], lvl[j]):
                crossed[c] = False
            if avoid:
                used -= 1 if unit[i] == unit[j] else 0
                refresh(lvl[i], lvl[j])
            j_start = j + 1
            continue
        j = found
        mates[i] = j
        mates[j] = i
        free_in_level[li] -= 1
        free_in_level[lvl[j]] -= 1
        take(li, unit[i])
        take(lvl[j], unit[j])
        for c in range(li, lvl[j]):
            crossed[c] = True
        if avoid:
            used += 1 if unit[i] == unit[j] else 0
            refresh(li, lvl[j])
        stack.append((i, j))
        i += 1
        while i < n and mates[i] != -1:
            i += 1
        j_start = i + 1


# --------------------------------------------------------------------------------------------
# Exact decomposition: segments between even cuts, certified by a lower bound
# --------------------------------------------------------------------------------------------

# Exit counts through a boundary tracked exactly by the certificate (0 and 2); "4 or more" is one
# state bounded from below.
_MANY = 4


class _Segment:
    """Positions lo..hi-1 of the sweep (whole score groups, an even count) solved on their own."""

    __slots__ = ("bound", "cost", "free", "gap", "hi", "hint", "lo", "mates", "parity", "same")

    def __init__(self, lo: int, hi: int) -> None:
        self.lo = lo
        self.hi = hi
        self.mates: list[int] | None = None  # global sweep positions; None: no perfect matching
        self.cost = 0  # A·same-unit + gap of its own optimal matching
        self.bound: dict[tuple[int, int], float] = {}  # lower bound of F(p, q), see below
        self.free: float = 0  # lower bound of F(p, q) for every p, q
        self.parity: list[int] = [0, 0]  # lower bound of F(p, q) by the parity of p
        self.same = 0  # same-unit meetings and Σ gap of ``mates``
        self.gap = 0
        # (same-unit meetings, Σ gap) of some pairing of the segment (the union of the segments
        # it was merged from): an upper bound for its exact solve.
        self.hint: tuple[int, int] | None = None

    @classmethod
    def merged(cls, parts: Sequence[_Segment]) -> _Segment:
        seg = cls(parts[0].lo, parts[-1].hi)
        if all(p.mates is not None for p in parts):
            seg.hint = (sum(p.same for p in parts), sum(p.gap for p in parts))
        return seg


class _TooBig(Exception):
    pass


def _segmented(problem: _Problem) -> list[int] | None:
    """Exact optimum of (1)–(4) by solving score-group segments separately, when provable.

    The sweep is cut at *even* cuts (an even number of pairs before them) into segments; each is
    solved exactly on its own (the fast path if it reaches the segment's parity bound, else the
    lexicographic blossom on the segment). Their union U is a pairing. It is the optimum, and the
    first in sweep order among the optima, if no optimal pairing crosses a boundary; that is
    proved when every pairing crossing a boundary b (necessarily at least twice) has a lower
    bound above cost(U). The lower bound (docs/pairing.md, "Segments") charges each boundary
    d_b per crossing table and each segment F_k(p, q), the least cost of pairing it with p pairs
    leaving upwards and q downwards, a leaving pair paying its distance to the boundary. A
    boundary that cannot be certified is removed (its two segments merge) and the check runs
    again, so in the worst case this is the blossom on the whole field. Returns None only when a
    segment has no pairing at all and cannot merge (then the whole-field blossom decides).
    """
    n = problem.n
    cf = problem.cf
    lvl = problem.lvl
    span_all = (max(cf) - min(cf)) if cf else 0
    big_a = span_all * (n // 2) + 1
    # Initial boundaries: every even cut.
    starts = [0]
    for k in range(1, n):
        if lvl[k] != lvl[k - 1] and not problem.odd[lvl[k - 1]]:
            starts.append(k)
    if len(starts) == 1:
        return _fast_path(problem)  # no even cut: one segment, the whole field
    bounds = [*starts, n]
    segments = [_Segment(bounds[s], bounds[s + 1]) for s in range(len(starts))]
    solved: dict[tuple[int, int], _Segment] = {}
    while True:
        for seg in segments:
            key = (seg.lo, seg.hi)
            if key in solved:
                old = solved[key]
                seg.mates, seg.cost, seg.bound = old.mates, old.cost, old.bound
                seg.free, seg.parity = old.free, old.parity
                seg.same, seg.gap = old.same, old.gap
            else:
                try:
                    _solve_segment(problem, seg, big_a)
                except _TooBig:
                    return _exact_blossom(problem, _whole_hint(segments, solved))
                solved[key] = seg
        m = len(segments)
        if m == 1:
            return segments[0].mates
        # A segment without a pairing of its own merges with its neighbour below (or above).
        broken = [s for s, seg in enumerate(segments) if seg.mates is None]
        if broken:
            s = broken[0]
            t = s + 1 if s + 1 < m else s - 1
            a, b = min(s, t), max(s, t)
            segments[a : b + 1] = [_Segment.merged(segments[a : b + 1])]
            continue
        upper = sum(seg.cost for seg in segments)
        failing = _uncertified_boundaries(problem, segments, upper)
        if not failing:
            mates = [-1] * n
            for seg in segments:
                for k in range(seg.lo, seg.hi):
                    mates[k] = seg.mates[k]  # type: ignore[index]
            return mates
        # Merge across every boundary that could not be certified, then check again.
        groups: list[list[_Segment]] = []
        for s, seg in enumerate(segments):
            if s > 0 and (s - 1) in failing:
                groups[-1].append(seg)
            else:
                groups.append([seg])
        segments = [
            _Segment.merged(g) if len(g) > 1 else _Segment(g[0].lo, g[0].hi) for g in groups
        ]


def _whole_hint(
    segments: list[_Segment], solved: dict[tuple[int, int], _Segment]
) -> tuple[int, int] | None:
    """(same-unit meetings, Σ gap) of a pairing of the whole field put together from the
    segments (solved ones, or the hints of merged ones not solved yet); None if one is missing."""
    same = gap = 0
    for seg in segments:
        done = seg if seg.mates is not None else solved.get((seg.lo, seg.hi))
        if done is not None and done.mates is not None:
            same, gap = same + done.same, gap + done.gap
        elif seg.hint is not None:
            same, gap = same + seg.hint[0], gap + seg.hint[1]
        else:
            return None
    return same, gap


def _solve_segment(problem: _Problem, seg: _Segment, big_a: int) -> None:
    """Solve the segment exactly (rules 1–4 inside it) and its lower bounds F(p, q)."""
    lo, hi = seg.lo, seg.hi
    sub = _Problem(problem.sweep[lo:hi], problem.avoid)
    local = _fast_path(sub)
    easy = local is not None
    if local is None:
        if 2 * (hi - lo) > problem.n:
            # A hard segment of more than half the field: the blossom on it, its exits and the
            # certificate would cost more than the blossom on the whole field.
            raise _TooBig
        try:
            local = _exact_blossom(sub, seg.hint)
        except PairingError:
            seg.mates = None
            return
    seg.mates = [lo + j for j in local]
    cf = problem.cf
    unit = problem.unit
    avoid = problem.avoid
    same = gap = 0
    for i in range(lo, hi):
        j = seg.mates[i - lo]
        if i < j:
            gap += abs(cf[i] - cf[j])
            same += 1 if avoid and unit[i] == unit[j] else 0
    cost = gap + big_a * same
    seg.same, seg.gap = same, gap
    seg.mates = [-1] * lo + seg.mates  # index by global position below
    seg.cost = cost
    first = lo == 0
    last = hi == problem.n
    if first and last:
        return  # the whole field: nothing to certify
    # The parity bound with exits, valid for any segment: a cut inside the segment is crossed
    # (by tables and leaving pairs) a number of times of the parity of (pairs above it + p), p
    # the pairs leaving upwards, so F(p, q) ≥ t[p mod 2].
    t = [0, 0]
    above = 0
    lvl = problem.lvl
    for k in range(lo, hi - 1):
        above += 1
        if lvl[k + 1] != lvl[k]:
            d = abs(cf[k + 1] - cf[k])
            for p in (0, 1):
                if (above + p) % 2 == 1:
                    t[p] += d
    seg.parity = t
    # Exact exit costs need a solve each on the whole segment; on a big hard segment the
    # parity bound stands in for them (still a lower bound, only weaker: more merging).
    exact_exits = not easy and hi - lo <= _EXACT_EXITS
    for p in range(3):
        for q in range(3):
            if (p + q) % 2 or (first and p) or (last and q):
                seg.bound[(p, q)] = _INF
            elif (p, q) == (0, 0):  # the segment's own optimum, exact
                seg.bound[(p, q)] = cost
            elif not exact_exits:
                seg.bound[(p, q)] = t[p % 2]
            else:
                seg.bound[(p, q)] = _exit_cost(problem, lo, hi, p, q, big_a)
    seg.free = _free_exit_cost(problem, lo, hi, big_a) if exact_exits else 0


# The largest hard segment whose exit costs F(p, q) are computed exactly.
_EXACT_EXITS = 400


_INF = float("inf")


def _edge_cost(problem: _Problem, i: int, j: int, big_a: int) -> int:
    cost = abs(problem.cf[i] - problem.cf[j])
    if problem.avoid and problem.unit[i] == problem.unit[j]:
        cost += big_a
    return cost


def _exit_cost(problem: _Problem, lo: int, hi: int, p: int, q: int, big_a: int) -> float:
    """F(p, q): least cost of pairing positions lo..hi-1 with p of them leaving upwards and q
    downwards (a leaving pair pays its distance to the segment's top or bottom group), by the
    blossom on the segment plus p + q "exit" vertices. Infinite when impossible."""
    m = hi - lo
    cf = problem.cf
    edges: list[tuple[int, int, int]] = []
    for i in range(lo, hi):
        bad_i = problem.bad[i]
        for j in range(i + 1, hi):
            if j not in bad_i:
                edges.append((i - lo, j - lo, _edge_cost(problem, i, j, big_a)))
        for g in range(p):
            edges.append((i - lo, m + g, abs(cf[i] - cf[lo])))
        for g in range(q):
            edges.append((i - lo, m + p + g, abs(cf[i] - cf[hi - 1])))
    top = max((c for _, _, c in edges), default=0) + 1
    mates = max_weight_matching(m + p + q, [(a, b, top - c) for a, b, c in edges], True)
    if any(x == -1 for x in mates):
        return _INF
    cost = {(a, b): c for a, b, c in edges}
    return sum(cost[(a, b)] for a, b in enumerate(mates) if a < b)


def _free_exit_cost(problem: _Problem, lo: int, hi: int, big_a: int) -> float:
    """A lower bound of F(p, q) for all p, q: any pair may leave, at its distance to the nearer
    allowed side (a maximum-weight matching of the savings)."""
    cf = problem.cf
    first = lo == 0
    last = hi == problem.n
    exit_cost = []
    for i in range(lo, hi):
        options = []
        if not first:
            options.append(abs(cf[i] - cf[lo]))
        if not last:
            options.append(abs(cf[i] - cf[hi - 1]))
        exit_cost.append(min(options))
    edges: list[tuple[int, int, int]] = []
    for i in range(lo, hi):
        bad_i = problem.bad[i]
        for j in range(i + 1, hi):
            if j not in bad_i:
                save = exit_cost[i - lo] + exit_cost[j - lo] - _edge_cost(problem, i, j, big_a)
                if save > 0:
                    edges.append((i - lo, j - lo, save))
    mates = max_weight_matching(hi - lo, edges, False)
    saving = {(a, b): w for a, b, w in edges}
    return sum(exit_cost) - sum(saving[(a, b)] for a, b in enumerate(mates) if a < b)


def _uncertified_boundaries(problem: _Problem, segments: list[_Segment], upper: int) -> set[int]:
    """Boundaries b (between segments b and b+1) some pairing crossing which might cost ≤ upper.

    Lower bound of a pairing with crossing counts x_b at the boundaries (x_b even): Σ_b d_b·x_b
    plus, per segment, min over t pairs passing straight through it of F(x_top − t, x_bot − t) +
    t·span (a state x ≥ 4 uses the segment's ``free`` bound instead). Forward and backward
    minimisation over the chain gives, for each boundary, the least bound with x_b ≥ 2.
    """
    cf = problem.cf
    m = len(segments)
    states = (0, 2, _MANY)
    d = [abs(cf[segments[b + 1].lo] - cf[segments[b].hi - 1]) for b in range(m - 1)]

    def large(seg: _Segment, parity: int) -> float:
        return max(seg.parity[parity], seg.free)

    def term(seg: _Segment, top: int, bot: int) -> float:
        # t pairs pass straight through the segment (each paying its span); the other crossings
        # above and below are its own leaving pairs, p = top − t upwards and q = bot − t
        # downwards. Crossing counts are even, so p ≡ q ≡ t (mod 2).
        span = abs(cf[seg.hi - 1] - cf[seg.lo])
        first = seg.lo == 0
        last = seg.hi == problem.n
        if top == _MANY and bot == _MANY:
            return min(large(seg, 0), large(seg, 1) + span)
        best = _INF
        if top == _MANY:
            for t in range(bot + 1):
                if not last or t == bot:
                    best = min(best, large(seg, t % 2) + t * span)
        elif bot == _MANY:
            for t in range(top + 1):
                if not first or t == top:
                    best = min(best, large(seg, t % 2) + t * span)
        else:
            for t in range(min(top, bot) + 1):
                best = min(best, seg.bound.get((top - t, bot - t), _INF) + t * span)
        return best

    fwd = [[_INF] * 3 for _ in range(m - 1)]
    for s, x in enumerate(states):
        fwd[0][s] = term(segments[0], 0, x) + d[0] * x
    for b in range(1, m - 1):
        for s, x in enumerate(states):
            fwd[b][s] = (
                min(fwd[b - 1][r] + term(segments[b], y, x) for r, y in enumerate(states))
                + d[b] * x
            )
    bwd = [[_INF] * 3 for _ in range(m - 1)]
    for s, x in enumerate(states):
        bwd[m - 2][s] = term(segments[m - 1], x, 0)
    for b in range(m - 3, -1, -1):
        for s, x in enumerate(states):
            bwd[b][s] = min(
                term(segments[b + 1], x, y) + d[b + 1] * y + bwd[b + 1][r]
                for r, y in enumerate(states)
            )
    crossing = [min(fwd[b][1] + bwd[b][1], fwd[b][2] + bwd[b][2]) for b in range(m - 1)]
    best = min(fwd[0][s] + bwd[0][s] for s in range(3))
    if best < upper:
        # The union is not proved optimal: merge where the bound's minimisers cross, which is
        # where the union may lose (a boundary crossed by no minimiser stays for now).
        return {b for b in range(m - 1) if crossing[b] <= best}
    return {b for b in range(m - 1) if crossing[b] <= upper}


# --------------------------------------------------------------------------------------------
# Exact core: the compiled blossom (pairing.matching) on the edges an optimum can use
# --------------------------------------------------------------------------------------------

# Edges between sweep positions at most this far apart give the first upper bound.
_WINDOW = 24


# … plus, for every pair and every unit, edges to this many nearest pairs of that unit below it
# (so a unit's surplus can float to where the other units are, however far).
_UNIT_REACH = 8


def _costed_edges(problem: _Problem, big_a: int, width: int) -> list[tuple[int, int, int]]:
    """Allowed (no-rematch) edges (i, j, A·same_unit + gap), i < j ≤ i + width, and the first
    ``_UNIT_REACH`` allowed j > i + width of every unit (only for a window short of the field)."""
    n = problem.n
    cf = problem.cf
    unit = problem.unit
    avoid = problem.avoid
    edges: list[tuple[int, int, int]] = []
    positions: dict[int, list[int]] = {}
    if width < n:
        for k, u in enumerate(unit):
            if u >= 0:
                positions.setdefault(u, []).append(k)
    for i in range(n):
        bad_i = problem.bad[i]
        cf_i = cf[i]
        unit_i = unit[i]
        end = min(n, i + width + 1)
        targets = list(range(i + 1, end))
        for where in positions.values():
            taken = 0
            for j in where[bisect_right(where, end - 1) :]:
                if j not in bad_i:
                    targets.append(j)
                    taken += 1
                    if taken == _UNIT_REACH:
                        break
        for j in targets:
            if j not in bad_i:
                cost = abs(cf_i - cf[j])
                if avoid and unit_i == unit[j]:
                    cost += big_a
                edges.append((i, j, cost))
    return edges


def _min_cost(n: int, edges: list[tuple[int, int, int]]) -> int | None:
    """Least total cost of a perfect matching on ``edges``, or None if there is none."""
    top = max((c for _, _, c in edges), default=0) + 1
    mate = max_weight_matching(n, [(i, j, top - c) for i, j, c in edges], maxcardinality=True)
    if any(m == -1 for m in mate):
        return None
    cost = {(i, j): c for i, j, c in edges}
    return sum(cost[(i, j)] for i, j in enumerate(mate) if i < j)


def _exact_blossom(problem: _Problem, hint: tuple[int, int] | None = None) -> list[int]:
    """Exact optimum of (1)–(3), first in sweep order among the optima (4).

    1. An upper bound U: the least cost of a perfect matching on a sparse graph — the edges
       between sweep positions at most ``_WINDOW`` apart and from each pair to the nearest
       ``_UNIT_REACH`` pairs of every unit beyond (the window doubles until it has one; at the
       whole field, no perfect matching means no pairing without a rematch) — or the cost of
       ``hint`` = (same-unit meetings, Σ gap) of a known pairing, the union of the segments this
       one was merged from, if lower.
    2. Pruning that keeps every optimum (docs/pairing.md, "Exact core"): a pairing M using the
       edge e = (i, j) has s(M) ≥ max(s_lb, [e same-unit]) same-unit meetings, s_lb the counting
       bound (the largest unit beyond half the field), and a gap of at least
       gap(e) + LB(V − {i, j}), LB the parity bound; removing i and j flips the parity of the
       cuts between their levels, so that is LB + 2·Σ(even cuts e crosses). An edge whose bound
       exceeds U is in no optimal pairing; the rest hold every optimal pairing, so their first
       optimum in sweep order is the field's. Only kept edges are enumerated (a level is out of
       reach once the even cuts up to it cost more than the slack).
    3. :func:`pairing.matching.first_min_cost_perfect_matching` on the kept edges: (1)–(3) as
       the cost, rule (4) as the vertex order, every optimisation in the compiled solver.
    """
    n = problem.n
    cf = problem.cf
    span = (max(cf) - min(cf)) if cf else 0
    big_a = span * (n // 2) + 1
    if hint is not None and hint[0] <= _unit_surplus(problem)[1]:
        # The hint already has the fewest same-unit meetings possible: good enough to prune by.
        upper = big_a * hint[0] + hint[1]
    else:
        width = _WINDOW
        while True:
            window = _min_cost(n, _costed_edges(problem, big_a, min(width, n)))
            if window is not None:
                upper = window
                break
            if width >= n:
                raise PairingError("no_pairing_without_rematch", count=n)
            width *= 2
        if hint is not None:
            upper = min(upper, big_a * hint[0] + hint[1])
    kept = _kept_edges(problem, big_a, upper)
    try:
        return first_min_cost_perfect_matching(n, kept)
    except NoPerfectMatching:  # pragma: no cover - the window's matching is within the kept edges
        raise PairingError("no_pairing_without_rematch", count=n) from None


def _kept_edges(problem: _Problem, big_a: int, upper: int) -> list[tuple[int, int, int]]:
    """The allowed edges (i, j, cost) that some pairing of cost ≤ ``upper`` may use (step 2 of
    :func:`_exact_blossom`)."""
    n = problem.n
    cf = problem.cf
    lvl = problem.lvl
    unit = problem.unit
    avoid = problem.avoid
    nlev = len(problem.level_cf)
    # even_before[l]: Σ of the lengths of the even cuts above level l.
    even_before = [0] * nlev
    for c in range(nlev - 1):
        d = abs(problem.level_cf[c + 1] - problem.level_cf[c])
        even_before[c + 1] = even_before[c] + (0 if problem.odd[c] else d)
    level_end = [0] * nlev
    for k in range(n):
        level_end[lvl[k]] = k + 1
    major, s_lb = _unit_surplus(problem)
    slack = upper - big_a * s_lb - problem.lower_bound_gap
    same_extra = big_a * (max(s_lb, 1) - s_lb)  # a same-unit edge: s(M) ≥ max(s_lb, 1)
    surplus = _SurplusBound(problem, major, s_lb) if avoid and upper < big_a * (s_lb + 1) else None
    gap_room = upper - big_a * s_lb
    kept: list[tuple[int, int, int]] = []
    for i in range(n):
        bad_i = problem.bad[i]
        cf_i = cf[i]
        unit_i = unit[i]
        base = even_before[lvl[i]]
        level = lvl[i]
        start = i + 1
        while level < nlev:
            extra = 2 * (even_before[level] - base)
            if extra > slack:
                break
            for j in range(start, level_end[level]):
                if j in bad_i:
                    continue
                same = avoid and unit_i == unit[j]
                if same and extra + same_extra > slack:
                    continue
                gap = abs(cf_i - cf[j])
                if surplus is not None and gap + surplus.rest(i, j, same) > gap_room:
                    continue
                kept.append((i, j, gap + (big_a if same else 0)))
            start = level_end[level]
            level += 1
    return kept


def _unit_surplus(problem: _Problem) -> tuple[int, int]:
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


class _SurplusBound:
    """Lower bound of the gap of a pairing of V − {i, j} with at most s_lb − [same] same-unit
    meetings, for every edge (i, j) in O(1) after O(levels) set-up.

    Cut c is crossed by x_c tables, x_c ≡ (pairs above c) mod 2, and by at least
    2a − N − 2s tables, a the pairs of the largest unit above c and N all pairs above c (each of
    them meets a pair of another unit above, or one of its own — at most 2s pairs in s
    meetings — or crosses); the same below. So the gap is at least Σ_c d_c · x_c with x_c the
    least count of the right parity above both bounds. Removing i and j changes the counts above
    and below each cut by a pattern that depends only on where the cut lies (above i, between,
    below j) and on whether i and j belong to the largest unit: prefix sums per pattern.
    """

    def __init__(self, problem: _Problem, major: int, s_lb: int) -> None:
        nlev = len(problem.level_cf)
        ncut = max(nlev - 1, 0)
        above_n = [0] * ncut
        above_a = [0] * ncut
        total_n = problem.n
        total_a = sum(1 for u in problem.unit if u == major)
        count_n = count_a = 0
        level_n = list(problem.sizes)
        level_a = [0] * nlev
        for k, u in enumerate(problem.unit):
            if u == major:
                level_a[problem.lvl[k]] += 1
        for c in range(ncut):
            count_n += level_n[c]
            count_a += level_a[c]
            above_n[c] = count_n
            above_a[c] = count_a
        dist = [abs(problem.level_cf[c + 1] - problem.level_cf[c]) for c in range(ncut)]

        def term(c: int, rn: int, ra: int, bn: int, ba: int, s: int) -> int:
            # rn/ra: removed pairs (all / of the largest unit) above the cut; bn/ba: below.
            n_up = above_n[c] - rn
            a_up = above_a[c] - ra
            n_dn = total_n - above_n[c] - bn
            a_dn = total_a - above_a[c] - ba
            x = max(0, 2 * a_up - n_up - 2 * s, 2 * a_dn - n_dn - 2 * s)
            parity = n_up % 2
            if x < parity:
                x = parity
            elif (x - parity) % 2:
                x += 1
            return dist[c] * x

        self.s_lb = s_lb
        # prefix[key][c] = Σ_{c' < c} term under pattern ``key``.
        self.prefix: dict[tuple[str | int, ...], list[int]] = {}
        for s in {s_lb, max(s_lb - 1, 0)}:
            for ia in (0, 1):
                for ja in (0, 1):
                    patterns = {
                        ("dn", ia + ja, s): (0, 0, 2, ia + ja),  # cut above both: both below
                        ("mid", ia, ja, s): (1, ia, 1, ja),  # i above, j below
                        ("up", ia + ja, s): (2, ia + ja, 0, 0),  # cut below both
                    }
                    for key, (rn, ra, bn, ba) in patterns.items():
                        if key in self.prefix:
                            continue
                        acc = [0] * (ncut + 1)
                        for c in range(ncut):
                            acc[c + 1] = acc[c] + term(c, rn, ra, bn, ba, s)
                        self.prefix[key] = acc
        self.major = major
        self.unit = problem.unit
        self.lvl = problem.lvl
        self.ncut = ncut

    def rest(self, i: int, j: int, same: bool) -> int:
        """Lower bound of the gap of the rest of a pairing using the edge (i, j), i < j."""
        if same and self.s_lb == 0:
            return _BIG_GAP  # s(M) ≥ 1 > s_lb: more than the upper bound
        s = self.s_lb - (1 if same else 0)
        ia = 1 if self.unit[i] == self.major else 0
        ja = 1 if self.unit[j] == self.major else 0
        li, lj = self.lvl[i], self.lvl[j]
        dn = self.prefix[("dn", ia + ja, s)]
        mid = self.prefix[("mid", ia, ja, s)]
        up = self.prefix[("up", ia + ja, s)]
        # Cuts c < li lie above both (both removed pairs are below them), li ≤ c < lj between,
        # c ≥ lj below both.
        return dn[li] + (mid[lj] - mid[li]) + (up[self.ncut] - up[lj])


_BIG_GAP = 1 << 62


# --------------------------------------------------------------------------------------------
# Tables, directions and reasons
# --------------------------------------------------------------------------------------------


def _seat(a: SwissPair, b: SwissPair) -> tuple[SwissPair, SwissPair, str]:
    """Who sits North-South (RULES.md §5: directions alternate for a pair where possible).

    First balance: the pair with more East-West than North-South seats so far (relative to the
    other) sits NS. Then alternate: a pair that sat EW last time sits NS. Otherwise the
    higher-ranked pair (``a``, the caller passes it first) sits NS.
    """
    need_a = a.ew_count - a.ns_count
    need_b = b.ew_count - b.ns_count
    if need_a != need_b:
        return (a, b, "balance") if need_a > need_b else (b, a, "balance")
    alt_a = {"EW": 1, "NS": -1}.get(a.last_direction or "", 0)
    alt_b = {"EW": 1, "NS": -1}.get(b.last_direction or "", 0)
    if alt_a != alt_b:
        return (a, b, "alternate") if alt_a > alt_b else (b, a, "alternate")
    return a, b, "higher_ranked"


def _cf_text(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _build_draw(
    order: list[SwissPair],
    round_number: int,
    matching: list[tuple[SwissPair, SwissPair]],
    bye: SwissPair | None,
    bye_reasons: list[Reason],
    first_reason: str | None,
    avoid: bool,
) -> SwissDraw:
    position = {p.id: k for k, p in enumerate(order)}
    exact = {v: Fraction(v) for v in {p.match_points for p in order}}
    tables: list[tuple[int, SwissTable]] = []
    same_unit_meetings = 0
    total_gap = Fraction(0)
    for x, y in matching:
        a, b = (x, y) if position[x.id] < position[y.id] else (y, x)
        reasons: list[Reason] = []
        if first_reason == "lot":
            reasons.append(Reason("lot"))
        elif first_reason == "seeding":
            reasons.append(Reason("seeding", (("seed_a", a.seeding), ("seed_b", b.seeding))))
        elif a.match_points == b.match_points:
            reasons.append(Reason("same_score", (("cf", _cf_text(a.match_points)),)))
        else:
            # RULES.md §5: odd rounds sweep from the top, so the higher pair floats down; even
            # rounds sweep from the bottom, so the lower pair floats up.
            mover, host = (a, b) if round_number % 2 == 1 else (b, a)
            reasons.append(
                Reason(
                    "float",
                    (
                        ("pair", mover.id),
                        ("from", _cf_text(mover.match_points)),
                        ("to", _cf_text(host.match_points)),
                    ),
                )
            )
        if a.unit is not None and a.unit == b.unit:
            same_unit_meetings += 1
            code = "same_unit_forced" if avoid else "same_unit_allowed"
            reasons.append(Reason(code, (("unit", a.unit),)))
        total_gap += abs(exact[a.match_points] - exact[b.match_points])
        ns, ew, why = _seat(a, b)
        if why == "higher_ranked" and first_reason in ("lot", "seeding"):
            # Round 1: no rank yet (everyone on 0), the order is the lot's or the seeding's.
            why = "drawn_first" if first_reason == "lot" else "higher_seeded"
        reasons.append(Reason("direction", (("pair", ns.id), ("seat", "NS"), ("why", why))))
        tables.append((position[a.id], SwissTable(0, ns.id, ew.id, tuple(reasons))))
    tables.sort(key=lambda item: item[0])
    numbered = tuple(SwissTable(k + 1, t.ns, t.ew, t.reasons) for k, (_, t) in enumerate(tables))
    return SwissDraw(
        round=round_number,
        tables=numbered,
        bye=bye.id if bye is not None else None,
        bye_reasons=tuple(bye_reasons),
        same_unit_meetings=same_unit_meetings,
        total_gap=float(total_gap),
    )
