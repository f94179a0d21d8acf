"""The Swiss engine's exact path (``docs/pairing.md``): split the ranking at even cuts certified
by a chain lower bound, pair the easy segments by the fast path and the hard ones by the exact
minimum-cost matching (``pairing.matching``, rule (4) settled lexicographically). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from pairing.matching import NoPerfectMatching, first_min_cost_perfect_matching, max_weight_matching
from pairing.matching_lp import (
    certified_optimum,
    in_threads,
    integral_solution,
    matching_of_cost,
)
from pairing.swiss_fast import fast_path
from pairing.swiss_problem import PairingError, SwissProblem, unit_surplus

# --------------------------------------------------------------------------------------------
# Exact decomposition: segments between even cuts, certified by a lower bound
# --------------------------------------------------------------------------------------------

# Exit counts through a boundary tracked exactly by the certificate (0 and 2); "4 or more" is one
# state bounded from below.
_MANY = 4


class _Segment:
    """Positions lo..hi-1 of the sweep (whole score groups, an even count) solved on their own."""

    __slots__ = (
        "bound",
        "cost",
        "free",
        "gap",
        "hard",
        "hi",
        "hint",
        "hint_mates",
        "lo",
        "mates",
        "parity",
        "same",
    )

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
        # … and that pairing itself, in positions relative to ``lo``.
        self.hint_mates: list[int] | None = None
        # Whether the fast path failed on it, or on a segment it was merged from.
        self.hard = False

    @classmethod
    def merged(cls, parts: Sequence[_Segment]) -> _Segment:
        seg = cls(parts[0].lo, parts[-1].hi)
        seg.hard = any(p.hard for p in parts)
        if all(p.mates is not None for p in parts):
            seg.hint = (sum(p.same for p in parts), sum(p.gap for p in parts))
            seg.hint_mates = [
                p.mates[k] - seg.lo  # type: ignore[index]
                for p in parts
                for k in range(p.lo, p.hi)
            ]
        return seg


# Edges (i, j, cost) as rows of an integer array.
_Edges = NDArray[np.int64]


class _TooBig(Exception):
    pass


def segmented(problem: SwissProblem) -> list[int] | None:
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
        return fast_path(problem)  # no even cut: one segment, the whole field
    bounds = [*starts, n]
    segments = [_Segment(bounds[s], bounds[s + 1]) for s in range(len(starts))]
    solved: dict[tuple[int, int], _Segment] = {}
    while True:
        # The fast path on every new segment first (it is cheap): when the segments it fails on
        # hold more than half the field, their exact solves, exits and certificate would cost
        # more than the whole-field exact core they almost always merge into (at 5,000
        # adversarial pairs two hard segments of 1,374 pairs took ≈ 11 s and were thrown away).
        # A choice between two exact methods, never a change of the result.
        quick: dict[tuple[int, int], tuple[SwissProblem, list[int] | None]] = {}
        hard = sum(
            seg.hi - seg.lo
            for seg in segments
            if (seg.lo, seg.hi) in solved and solved[(seg.lo, seg.hi)].hard
        )
        # The largest segments first: once the hard ones hold more than half the field, the
        # fast path on the rest would be thrown away (at 10,000 adversarial pairs the 6,730
        # pair segment fails at once, and two of ~250 pairs took 0.8 s more).
        for seg in sorted(segments, key=lambda seg: seg.lo - seg.hi):
            key = (seg.lo, seg.hi)
            if key in solved or (_WHOLE_WHEN_HARD and 2 * hard > n):
                continue
            sub = SwissProblem(problem.sweep[seg.lo : seg.hi], problem.avoid)
            quick[key] = (sub, None if seg.hard else fast_path(sub))
            if quick[key][1] is None:
                hard += seg.hi - seg.lo
        if _WHOLE_WHEN_HARD and 2 * hard > n:
            return exact_blossom(problem, _whole_hint(segments, solved))
        for seg in segments:
            key = (seg.lo, seg.hi)
            if key in solved:
                old = solved[key]
                seg.mates, seg.cost, seg.bound = old.mates, old.cost, old.bound
                seg.free, seg.parity = old.free, old.parity
                seg.same, seg.gap = old.same, old.gap
                seg.hard = old.hard
            else:
                try:
                    _solve_segment(problem, seg, big_a, *quick[key])
                except _TooBig:
                    return exact_blossom(problem, _whole_hint(segments, solved))
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


def _solve_segment(
    problem: SwissProblem, seg: _Segment, big_a: int, sub: SwissProblem, local: list[int] | None
) -> None:
    """Solve the segment exactly (rules 1–4 inside it) and its lower bounds F(p, q).

    ``sub``: the segment as a problem of its own; ``local``: the fast path's pairing of it, if
    it ran (not on a segment merged from a hard one) and found one."""
    lo, hi = seg.lo, seg.hi
    # A segment merged from one the fast path failed on goes straight to the exact core: a
    # pairing reaching the merged segment's bound crosses no boundary (an even cut), so its
    # parts reach theirs — the search would fail again (or at best, after a failed budget,
    # redo work), and on 800 pairs with 2 units it spent 15 s doing so. Either way the result
    # is the exact optimum; this only chooses the quicker exact method.
    easy = local is not None
    seg.hard = not easy
    if local is None:
        if 2 * (hi - lo) > problem.n:
            # A hard segment of more than half the field: the blossom on it, its exits and the
            # certificate would cost more than the blossom on the whole field.
            raise _TooBig
        try:
            local = exact_blossom(sub, seg.hint, seg.hint_mates)
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


# Go to the whole-field exact core as soon as the segments the fast path failed on hold more
# than half the field (switched off only by the test that compares the tables both ways).
_WHOLE_WHEN_HARD = True

# The largest hard segment whose exit costs F(p, q) are computed exactly.
_EXACT_EXITS = 400


_INF = float("inf")


def _segment_edges(problem: SwissProblem, lo: int, hi: int, big_a: int) -> _Edges:
    """Every allowed (no-rematch) edge (i, j, A·same-unit + gap) of positions lo..hi-1, as rows
    of an array in positions relative to lo, i < j."""
    m = hi - lo
    ii, jj = np.triu_indices(m, 1)
    cf = np.asarray(problem.cf[lo:hi], dtype=np.int64)
    cost = np.abs(cf[ii] - cf[jj])
    if problem.avoid:
        unit = np.asarray(problem.unit[lo:hi], dtype=np.int64)
        cost += big_a * (unit[ii] == unit[jj])
    bad = np.zeros((m, m), dtype=bool)
    for i in range(lo, hi):
        for j in problem.bad[i]:
            if lo <= j < hi:
                bad[i - lo, j - lo] = True
    allowed = ~bad[ii, jj]
    out = np.empty((int(allowed.sum()), 3), dtype=np.int64)
    out[:, 0] = ii[allowed]
    out[:, 1] = jj[allowed]
    out[:, 2] = cost[allowed]
    return out


def _exit_cost(problem: SwissProblem, lo: int, hi: int, p: int, q: int, big_a: int) -> float:
    """F(p, q): least cost of pairing positions lo..hi-1 with p of them leaving upwards and q
    downwards (a leaving pair pays its distance to the segment's top or bottom group): a
    minimum-cost perfect matching of the segment plus p + q "exit" vertices — the linear
    programme's certified optimum when it proves one, else the compiled blossom. Infinite when
    impossible."""
    m = hi - lo
    size = m + p + q
    cf = np.asarray(problem.cf[lo:hi], dtype=np.int64)
    # Vertices in sweep order: the p upward exits, the segment's pairs, the q downward exits.
    inner = _segment_edges(problem, lo, hi, big_a)
    inner[:, :2] += p
    parts = [inner]
    local = np.arange(p, p + m, dtype=np.int64)
    for g in range(p + q):
        exits = np.empty((m, 3), dtype=np.int64)
        exits[:, 0] = g if g < p else local
        exits[:, 1] = local if g < p else m + g
        exits[:, 2] = np.abs(cf - (cf[0] if g < p else cf[m - 1]))
        parts.append(exits)
    edges = np.concatenate(parts)
    edges = edges[np.lexsort((edges[:, 1], edges[:, 0]))]
    if size >= _LP_FROM:
        # Odd prefixes: every level boundary with an odd number of vertices before it.
        lvl = problem.lvl
        prefixes = [
            p + k - lo + 1
            for k in range(lo, hi - 1)
            if lvl[k] != lvl[k + 1] and (p + k - lo + 1) % 2 == 1
        ]
        proof = certified_optimum(size, edges, prefixes)
        if proof is not None:
            return _matching_cost(edges, proof.mate)
    top = int(edges[:, 2].max(initial=0)) + 1
    weighted = edges.copy()
    weighted[:, 2] = top - edges[:, 2]
    mates = max_weight_matching(size, weighted, True)
    if any(x == -1 for x in mates):
        return _INF
    return _matching_cost(edges, mates)


def _free_exit_cost(problem: SwissProblem, lo: int, hi: int, big_a: int) -> float:
    """A lower bound of F(p, q) for all p, q: any pair may leave, at its distance to the nearer
    allowed side (a maximum-weight matching of the savings)."""
    cf = np.asarray(problem.cf[lo:hi], dtype=np.int64)
    first = lo == 0
    last = hi == problem.n
    options = []
    if not first:
        options.append(np.abs(cf - cf[0]))
    if not last:
        options.append(np.abs(cf - cf[-1]))
    exit_cost = np.minimum.reduce(options)
    edges = _segment_edges(problem, lo, hi, big_a)
    save = exit_cost[edges[:, 0]] + exit_cost[edges[:, 1]] - edges[:, 2]
    edges = edges[save > 0]
    edges[:, 2] = save[save > 0]
    mates = max_weight_matching(hi - lo, edges, False)
    saving: dict[tuple[int, int], int] = {
        (a, b): w for a, b, w in zip(*edges.T.tolist(), strict=True)
    }
    return int(exit_cost.sum()) - sum(saving[(a, b)] for a, b in enumerate(mates) if a < b)


def _uncertified_boundaries(
    problem: SwissProblem, segments: list[_Segment], upper: int
) -> set[int]:
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


def _costed_edges(problem: SwissProblem, big_a: int, width: int) -> _Edges:
    """Allowed (no-rematch) edges (i, j, A·same_unit + gap), i < j ≤ i + width, and the first
    ``_UNIT_REACH`` allowed j > i + width of every unit (only for a window short of the field),
    as an (E, 3) array sorted by (i, j). In numpy: the window is a band of offsets, and a unit's
    candidates beyond it are the next positions of that unit after i + width, enough of them
    (``_UNIT_REACH`` + the most rematches of a pair) that the first ``_UNIT_REACH`` allowed ones
    are among them."""
    n = problem.n
    unit = np.asarray(problem.unit, dtype=np.int64)
    cf = np.asarray(problem.cf, dtype=np.int64)
    bad_keys = np.asarray(
        sorted(i * n + j for i in range(n) for j in problem.bad[i] if i < j), dtype=np.int64
    )
    base = np.arange(n, dtype=np.int64)
    parts_i: list[NDArray[np.int64]] = []
    parts_j: list[NDArray[np.int64]] = []
    span = min(width, n - 1)
    for d in range(1, span + 1):
        parts_i.append(base[: n - d])
        parts_j.append(base[d:])
    ii = np.concatenate(parts_i) if parts_i else np.zeros(0, dtype=np.int64)
    jj = np.concatenate(parts_j) if parts_j else np.zeros(0, dtype=np.int64)
    ii, jj = _allowed(ii, jj, n, bad_keys)
    more_i: list[NDArray[np.int64]] = [ii]
    more_j: list[NDArray[np.int64]] = [jj]
    if width < n:
        deepest = max((len(b) for b in problem.bad), default=0)
        reach = _UNIT_REACH + deepest
        for u in np.unique(unit[unit >= 0]).tolist():
            where = np.nonzero(unit == u)[0]
            start = np.searchsorted(where, base + width + 1)  # first of u beyond i's window
            steps = start[:, None] + np.arange(reach)[None, :]
            valid = steps < len(where)
            cand = np.where(valid, where[np.minimum(steps, len(where) - 1)], -1)
            ok = valid.copy()
            if len(bad_keys):
                keys = base[:, None] * n + cand
                at = np.searchsorted(bad_keys, keys)
                hit = bad_keys[np.minimum(at, len(bad_keys) - 1)] == keys
                ok &= ~hit
            ok &= np.cumsum(ok, axis=1) <= _UNIT_REACH
            rows, cols = np.nonzero(ok)
            more_i.append(rows.astype(np.int64))
            more_j.append(cand[rows, cols])
    ii = np.concatenate(more_i)
    jj = np.concatenate(more_j)
    order = np.lexsort((jj, ii))
    ii, jj = ii[order], jj[order]
    out = np.empty((len(ii), 3), dtype=np.int64)
    out[:, 0] = ii
    out[:, 1] = jj
    out[:, 2] = np.abs(cf[ii] - cf[jj])
    if problem.avoid:
        out[:, 2] += big_a * (unit[ii] == unit[jj])
    return out


def _allowed(
    ii: NDArray[np.int64], jj: NDArray[np.int64], n: int, bad_keys: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The pairs (ii, jj), i < j, that are not rematches (``bad_keys``: sorted i·n + j)."""
    if len(bad_keys) == 0 or len(ii) == 0:
        return ii, jj
    keys = ii * n + jj
    at = np.searchsorted(bad_keys, keys)
    hit = bad_keys[np.minimum(at, len(bad_keys) - 1)] == keys
    return ii[~hit], jj[~hit]


def _min_cost(n: int, edges: _Edges) -> tuple[int, list[int]] | None:
    """A minimum-cost perfect matching on ``edges`` and its cost, or None if there is none."""
    top = int(edges[:, 2].max(initial=0)) + 1
    weighted = edges.copy()
    weighted[:, 2] = top - edges[:, 2]
    mate = max_weight_matching(n, weighted, maxcardinality=True)
    if any(m == -1 for m in mate):
        return None
    return _matching_cost(edges, mate), mate


def _matching_cost(edges: _Edges, mate: Sequence[int]) -> int:
    """The cost of the perfect matching ``mate`` on ``edges`` (sorted by (i, j), i < j)."""
    n = len(mate)
    keys = edges[:, 0] * n + edges[:, 1]
    small = np.asarray([v for v in range(n) if v < mate[v]], dtype=np.int64)
    want = small * n + np.asarray([mate[v] for v in small.tolist()], dtype=np.int64)
    at = np.searchsorted(keys, want)
    return int(edges[at, 2].sum())


def _window_optimum(problem: SwissProblem, big_a: int, width: int) -> tuple[int, list[int]] | None:
    """A cheap perfect matching of the window graph (:func:`_costed_edges`) and its cost, or None
    if it has none. Only an upper bound is needed from it (any perfect matching is one): from
    ``_LP_FROM`` pairs on, the linear programme's optimum on the window with its few fractional
    edges re-paired by the compiled blossom (:func:`pairing.matching_lp.integral_solution`), else
    — or if that finds none — the compiled blossom's least-cost matching of the window."""
    edges = _costed_edges(problem, big_a, width)
    n = problem.n
    if n >= _LP_FROM and len(edges):
        # Costs scaled by Q and the tie-break min(j − i, NUDGE) added (its sum over a perfect
        # matching is below Q): the programme's matching is among the window's cheapest and
        # leans to short tables, which is where rule (4) starts from.
        scale = _NUDGE * (n // 2) + 1
        nudged = edges.copy()
        nudged[:, 2] = edges[:, 2] * scale + np.minimum(edges[:, 1] - edges[:, 0], _NUDGE)
        mate = integral_solution(n, nudged, _odd_prefixes(problem), _WINDOW_ROUNDS)
        if mate is not None:
            return _matching_cost(edges, mate), mate
    return _min_cost(n, edges)


def exact_blossom(
    problem: SwissProblem,
    hint: tuple[int, int] | None = None,
    hint_mates: list[int] | None = None,
) -> list[int]:
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
    2½. From ``_LP_FROM`` pairs on, :func:`pairing.matching_lp.certified_optimum`: an LP
       optimum and dual on the kept edges, checked exactly; when proved, the optimal pairings
       are exactly the least-c' perfect matchings of its tight graph, and step 3 runs there,
       starting from the proven matching.
    3. :func:`pairing.matching.first_min_cost_perfect_matching` on the kept edges (or the tight
       graph): (1)–(3) as the cost, rule (4) as the vertex order, every optimisation in the
       compiled solver.
    """
    n = problem.n
    cf = problem.cf
    span = (max(cf) - min(cf)) if cf else 0
    big_a = span * (n // 2) + 1
    known = hint_mates  # a pairing of cost ``upper``, if one is at hand
    if hint is not None and hint[0] <= unit_surplus(problem)[1]:
        # The hint already has the fewest same-unit meetings possible: good enough to prune by.
        upper = big_a * hint[0] + hint[1]
    else:
        width = _WINDOW
        while True:
            window = _window_optimum(problem, big_a, min(width, n))
            if window is not None:
                upper, known = window
                break
            if width >= n:
                raise PairingError("no_pairing_without_rematch", count=n)
            width *= 2
        if hint is not None and big_a * hint[0] + hint[1] < upper:
            upper, known = big_a * hint[0] + hint[1], hint_mates
    kept = _kept_edges(problem, big_a, upper)
    proof = None
    if n >= _LP_FROM:
        proof = certified_optimum(n, kept, _odd_prefixes(problem), known)
    if proof is not None:
        # A proven optimum and the tight graph holding every optimum (pairing.matching_lp):
        # rule (4) is the first minimum-cost perfect matching of the tight graph. The kept
        # edges (1.2 GB at 10,000 adversarial pairs) are let go first.
        del kept
        return first_min_cost_perfect_matching(
            n, proof.tight, initial=proof.mate, prover=matching_of_cost, cuts=proof.cuts
        )
    try:
        return first_min_cost_perfect_matching(n, kept, prover=matching_of_cost)
    except NoPerfectMatching:  # pragma: no cover - the window's matching is within the kept edges
        raise PairingError("no_pairing_without_rematch", count=n) from None


# The linear programme (pairing.matching_lp) is tried from this many pairs on; below, the
# compiled blossom alone is quicker.
_LP_FROM = 40
# Solves of the programme on the window (column generation) before its solution is rounded.
_WINDOW_ROUNDS = 20
# The window's tie-break: tables shorter than this many sweep positions are preferred.
_NUDGE = 64


def _odd_prefixes(problem: SwissProblem) -> list[int]:
    """The sizes of the sweep prefixes that end at an odd cut (an odd number of pairs)."""
    out = []
    count = 0
    for level in range(len(problem.level_cf) - 1):
        count += problem.sizes[level]
        if problem.odd[level]:
            out.append(count)
    return out


def _kept_edges(problem: SwissProblem, big_a: int, upper: int) -> _Edges:
    """The allowed edges (i, j, cost) that some pairing of cost ≤ ``upper`` may use (step 2 of
    :func:`exact_blossom`), as an (E, 3) integer array sorted by (i, j).

    Every test below depends on i and j only through their levels, whether they are of one
    unit and whether each is in the largest unit, so it runs on a whole level of i at once
    (numpy)."""
    n = problem.n
    lvl = problem.lvl
    avoid = problem.avoid
    nlev = len(problem.level_cf)
    level_cf = problem.level_cf
    # even_before[l]: Σ of the lengths of the even cuts above level l.
    even_before = [0] * nlev
    for c in range(nlev - 1):
        d = abs(level_cf[c + 1] - level_cf[c])
        even_before[c + 1] = even_before[c] + (0 if problem.odd[c] else d)
    level_start = [0] * (nlev + 1)
    for k in range(n):
        level_start[lvl[k] + 1] = k + 1
    major, s_lb = unit_surplus(problem)
    slack = upper - big_a * s_lb - problem.lower_bound_gap
    same_extra = big_a * (max(s_lb, 1) - s_lb)  # a same-unit edge: s(M) ≥ max(s_lb, 1)
    surplus = _SurplusBound(problem, major, s_lb) if avoid and upper < big_a * (s_lb + 1) else None
    gap_room = upper - big_a * s_lb
    unit = np.asarray(problem.unit, dtype=np.int64)
    in_major = unit == major
    lvl_arr = np.asarray(lvl, dtype=np.int64)
    cf_arr = np.asarray(problem.cf, dtype=np.int64)
    # Per level of i: the first position of its block and the block's mask of kept entries
    # (a byte an entry). Every other array is of one level's block or one level's kept edges,
    # so nothing of the size of all the kept edges is made but the answer itself.
    found: list[tuple[int, NDArray[np.bool_]]] = []
    for li in range(nlev):
        i_lo, i_hi = level_start[li], level_start[li + 1]
        # The levels within reach of level li (the even cuts between cost ≤ slack) are
        # li..last, so the candidate partners are the positions i_lo..end - 1: one block, rows
        # i and columns j in order, so its nonzero entries come out sorted by (i, j).
        last = li
        while last + 1 < nlev and 2 * (even_before[last + 1] - even_before[li]) <= slack:
            last += 1
        end = level_start[last + 1]
        col_lvl = lvl_arr[i_lo:end] - li
        keep = np.arange(i_lo, end)[None, :] > np.arange(i_lo, i_hi)[:, None]
        if avoid:
            same = unit[i_lo:i_hi, None] == unit[None, i_lo:end]
            extra = 2 * (np.asarray(even_before[li : last + 1], dtype=np.int64) - even_before[li])
            # A same-unit edge to a column whose level is too far for one is dropped.
            keep &= ~(same & (extra[col_lvl] + same_extra > slack)[None, :])
        if surplus is not None:
            # rest(i, j, same) depends on j's level, whether i and j are in the largest unit
            # and whether they are of one unit: per (i in it, same), a verdict per column.
            assert avoid
            for ia in (0, 1):
                rows = np.nonzero(in_major[i_lo:i_hi] == ia)[0]
                if len(rows) == 0:
                    continue
                verdict = np.zeros((2, last + 1 - li, 2), dtype=bool)  # [sm, level, ja]
                for lj in range(li, last + 1):
                    d = abs(level_cf[li] - level_cf[lj])
                    for ja in (0, 1):
                        for sm in (0, 1):
                            rest = surplus.rest_levels(li, lj, ia, ja, sm == 1)
                            verdict[sm, lj - li, ja] = d + rest <= gap_room
                ja_col = in_major[i_lo:end].astype(np.int64)
                apart, together = verdict[0, col_lvl, ja_col], verdict[1, col_lvl, ja_col]
                keep[rows] &= np.where(same[rows], together[None, :], apart[None, :])
        for i in range(i_lo, i_hi):  # the rematches
            for j in problem.bad[i]:
                if i < j < end:
                    keep[i - i_lo, j - i_lo] = False
        found.append((i_lo, keep))
    counts = [int(np.count_nonzero(keep)) for _, keep in found]
    out = np.empty((sum(counts), 3), dtype=np.int64)
    ends = np.cumsum(counts).tolist()

    def fill(level: int) -> None:
        i_lo, keep = found[level]
        ii, jj = np.nonzero(keep)
        ii += i_lo
        jj += i_lo
        block = out[ends[level] - counts[level] : ends[level]]
        block[:, 0] = ii
        block[:, 1] = jj
        gap = np.abs(cf_arr[jj] - cf_arr[ii])
        if avoid:
            gap += big_a * (unit[ii] == unit[jj])
        block[:, 2] = gap

    # Each level fills its own rows of the answer: on two threads (the first touch of 1.2 GB
    # at 10,000 adversarial pairs is most of the time).
    in_threads(fill, range(len(found)), len(out))
    return out


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

    def __init__(self, problem: SwissProblem, major: int, s_lb: int) -> None:
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
        ia = 1 if self.unit[i] == self.major else 0
        ja = 1 if self.unit[j] == self.major else 0
        return self.rest_levels(self.lvl[i], self.lvl[j], ia, ja, same)

    def rest_levels(self, li: int, lj: int, ia: int, ja: int, same: bool) -> int:
        """:meth:`rest` for i on level li and j on level lj ≥ li; ``ia``/``ja``: whether i/j
        is in the largest unit; ``same``: whether they are of one unit."""
        if same and self.s_lb == 0:
            return _BIG_GAP  # s(M) ≥ 1 > s_lb: more than the upper bound
        if same and ia != ja:
            return _BIG_GAP  # impossible combination (one unit, one in the largest only)
        s = self.s_lb - (1 if same else 0)
        dn = self.prefix[("dn", ia + ja, s)]
        mid = self.prefix[("mid", ia, ja, s)]
        up = self.prefix[("up", ia + ja, s)]
        # Cuts c < li lie above both (both removed pairs are below them), li ≤ c < lj between,
        # c ≥ lj below both.
        return dn[li] + (mid[lj] - mid[li]) + (up[self.ncut] - up[lj])


_BIG_GAP = 1 << 62
