"""An optimal dual for minimum-cost perfect matching, from a linear programme, checked exactly.

Pure (no Django): numpy and HiGHS (``highspy``, a compiled LP solver from the package index).
Vertices ``0..n-1`` come in an order in which some *prefixes* ``{0, …, k−1}`` have an odd size k:
every perfect matching has at least one edge leaving such a prefix (its vertices cannot all be
paired among themselves). The linear programme

    minimise Σ c_e x_e   subject to   x(δ(v)) = 1 for every vertex v,
                                      x(δ(P_k)) ≥ 1 for every given odd prefix P_k,  x ≥ 0

is a relaxation of minimum-cost perfect matching, and its dual (y_v free, z_k ≥ 0)

    maximise Σ y_v + Σ z_k   subject to   y_i + y_j + Σ_{k: i < k ≤ j} z_k ≤ c_ij

bounds every perfect matching from below. :func:`certified_optimum` solves the programme by
column generation (a few edges per vertex first, then the edges whose reduced cost is negative),
and accepts the result only if it *proves* itself in exact integer arithmetic:

- the primal solution is a perfect matching M (every x_e within 10⁻⁶ of 0 or 1);
- the doubled duals Y = 2y, Z = 2z round to integers (within 10⁻⁶), Z ≥ 0, and every edge given
  has 2c_e − Y_i − Y_j − Σ Z ≥ 0 (dual feasibility, checked on *all* edges, not only the LP's);
- Σ Y + Σ Z = 2·cost(M) (equal objectives).

Then M is a minimum-cost perfect matching of the graph, and by complementary slackness the
minimum-cost perfect matchings are *exactly* the perfect matchings that use only tight edges
(2c_e = Y_i + Y_j + Σ Z) and leave every prefix with Z_k > 0 by exactly one edge — that is, the
perfect matchings of the tight graph of least cost c'(e) = Σ_{k crossed by e} Z_k (their c' is
Σ Z_k, any other perfect matching of the tight graph pays more). The floating-point solver only
proposes; nothing it says is trusted without the exact check. When the check fails (a fractional
optimum, duals off the half-integers, no perfect matching) the answer is None and the caller
uses its exact solver instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, NamedTuple, TypeVar

import highspy
import numpy as np
from numpy.typing import NDArray

from pairing.matching import (
    augment_cheaply,
    augment_to_perfect,
    max_weight_matching,
    weighted_adjacency,
)

__all__ = ["Certified", "certified_optimum", "in_threads", "integral_solution", "matching_of_cost"]

# Edges per vertex (the nearest in vertex order) in the first programme.
_FIRST_EDGES = 6
# Edges priced at a time (``_Programme.priced``): a block's temporaries stay in the cache.
_PRICE_BLOCK = 1 << 16
_TOLERANCE = 1e-6

_Ints = NDArray[np.int64]


class Certified(NamedTuple):
    """What :func:`certified_optimum` proves: ``mate``, a minimum-cost perfect matching;
    ``tight``, the tight edges ``(i, j, c')``; ``cuts``, the given odd prefix sizes k whose
    dual is positive — by complementary slackness *every* minimum-cost perfect matching has
    exactly one edge (i, j) with i < k ≤ j (``mate`` among them)."""

    mate: list[int]
    tight: _Ints
    cuts: list[int]


_S = TypeVar("_S")
_T = TypeVar("_T")

# Why the last call proved nothing (for tests and benchmarks; never used to decide).
last_failure = ""


def certified_optimum(
    n: int,
    edges: Sequence[tuple[int, int, int]] | NDArray[np.int64],
    odd_prefixes: Sequence[int],
    known: Sequence[int] | None = None,
    rounds: int = 60,
) -> Certified | None:
    """A proven minimum-cost perfect matching, its tight edges ``(i, j, c')`` (see the module
    docstring) and the prefixes every optimum crosses once (:class:`Certified`); None when the
    programme does not prove it.

    ``edges`` are ``(i, j, cost)`` sorted by i, with ``i < j`` and integer costs ≥ 0;
    ``odd_prefixes`` the odd sizes k of the prefixes ``{0..k−1}`` whose cut the programme
    enforces; ``known`` a perfect matching of the graph (``known[v]`` = v's partner), if the
    caller has one: its edges join the first programme (next to the first few edges of every
    vertex), and it is the matching proved optimal when the programme's own optimum is
    fractional but no cheaper. When the optimum is fractional, the odd components of its
    fractional edges become cuts x(δ(S)) ≥ 1 too, and the programme is solved again; after
    ``rounds`` solves without a proof the answer is None."""
    if n == 0 or len(edges) == 0:
        return None
    lp = _Programme(n, edges, odd_prefixes)
    known_edges = lp.edges_of(known) if known is not None else None
    lp.start(known_edges)
    for _ in range(rounds):
        step = lp.step()
        if step is None:
            _note("not solved")
            return None
        if step is True:
            continue
        x, dual = step
        if known_edges is not None and lp.proves(known_edges, dual):
            return lp.certify(known_edges, dual)
        if lp.fractional(x):
            # A fractional optimum may still be as cheap as a perfect matching near it (a tie
            # between matchings): its edges at 1 and the rest re-paired by the blossom.
            near = lp.rounded(x, dual)
            near_edges = lp.edges_of(near) if near is not None else None
            if near_edges is not None and lp.proves(near_edges, dual):
                return lp.certify(near_edges, dual)
        if not lp.cut_odd_components(x):
            return lp.certify(lp.primal_edges(x), dual)
    _note("too many rounds")
    return None


def integral_solution(
    n: int,
    edges: NDArray[np.int64],
    odd_prefixes: Sequence[int],
    rounds: int,
) -> list[int] | None:
    """Some cheap perfect matching of the graph, nothing proved about it (an upper bound for
    whoever asked): the programme's optimum after column generation (at most ``rounds``
    solves), its edges at 1 kept and the few vertices of fractional edges re-paired by the
    compiled blossom (:meth:`_Programme.rounded`). None if that finds no perfect matching."""
    if n == 0 or len(edges) == 0:
        return None
    lp = _Programme(n, edges, odd_prefixes)
    lp.start(None)
    for left in range(rounds - 1, -1, -1):
        step = lp.step(price=left > 0)
        if step is None:
            return None
        if step is not True:
            return lp.rounded(*step)
    return None


def matching_of_cost(n: int, edges: NDArray[np.int64], target: int) -> list[int] | bool | None:
    """A perfect matching of cost ``target`` (``mate`` list), or False when every perfect
    matching is proved to cost more than ``target``, or None when the programme cannot tell.

    ``edges`` are ``(i, j, cost)`` sorted by i, i < j: *all* the edges of the graph. The proof
    of False is a dual solution checked in exact integers (:meth:`_Programme.lower_bound`); the
    matching is the programme's integral optimum, whose cost the caller checks again."""
    if n == 0 or len(edges) == 0:
        return None
    lp = _Programme(n, edges, [])
    lp.start(None)
    for _ in range(_PROVER_ROUNDS):
        step = lp.step()
        if step is None:
            return None
        if step is True:
            continue
        x, dual = step
        if lp.lower_bound(dual) > target:
            return False
        picked = lp.primal_edges(x)
        if picked is not None:
            mate = [-1] * n
            for e in picked.tolist():
                mate[int(lp.ei[e])], mate[int(lp.ej[e])] = int(lp.ej[e]), int(lp.ei[e])
            cost = sum(int(c) for c in lp.cost[picked].tolist())
            return mate if cost == target and -1 not in mate else None
        if not lp.cut_odd_components(x):
            return None
    return None


# Solves of the programme :func:`matching_of_cost` makes before it gives up.
_PROVER_ROUNDS = 30


# Threads for the passes over every edge (numpy lets go of the interpreter lock inside them),
# from this many edges on (below, the threads' overhead outweighs the work).
_THREADS = 2
_THREADED_FROM = 1 << 19
_pool: ThreadPoolExecutor | None = None


def in_threads(work: Callable[[_S], _T], items: Sequence[_S], size: int) -> list[_T]:
    """``[work(item) for item in items]``, on ``_THREADS`` threads when the items hold at least
    ``_THREADED_FROM`` edges in all (``size``; each item should spend its time in numpy)."""
    if len(items) < 2 or size < _THREADED_FROM:
        return [work(item) for item in items]
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="swiss")
    return list(_pool.map(work, items))


def _in_blocks(work: Callable[[int], _T], count: int) -> list[_T]:
    """``work(start)`` for start = 0, ``_PRICE_BLOCK``, … below ``count``, in that order
    (:func:`in_threads`: 760 blocks per pricing step at 10,000 adversarial pairs)."""
    return in_threads(work, range(0, count, _PRICE_BLOCK), count)


def _note(why: str) -> None:
    global last_failure
    last_failure = why
    return None


class _Programme:
    """The programme being built: rows (vertices, odd prefixes, odd sets found later) and the
    columns added so far (edges, and one artificial column per row)."""

    def __init__(
        self,
        n: int,
        edges: Sequence[tuple[int, int, int]] | NDArray[np.int64],
        odd_prefixes: Sequence[int],
    ) -> None:
        arr = np.asarray(edges, dtype=np.int64)
        self.n = n
        self.ei: _Ints = arr[:, 0]
        self.ej: _Ints = arr[:, 1]
        self.cost: _Ints = arr[:, 2]
        # Checked a block at a time, as is everything below that passes over all the edges
        # (tens of millions of them at 10,000 pairs): temporaries of one edge array's size
        # cost a page fault per 4 KB of them, the first time and every time.
        for start in range(0, len(arr), _PRICE_BLOCK):
            part = slice(start, start + _PRICE_BLOCK + 1)  # one more: the order across blocks
            ei, ej, cost = self.ei[part], self.ej[part], self.cost[part]
            if np.any(ei >= ej) or np.any(ei[1:] < ei[:-1]) or np.any(cost < 0):
                raise ValueError("edges must be (i, j, cost ≥ 0) with i < j, sorted by i")
        ks = np.asarray(sorted(odd_prefixes), dtype=np.int64)
        if np.any(ks % 2 == 0) or np.any((ks <= 0) | (ks >= n)):
            raise ValueError("odd prefixes must be odd sizes between 1 and n - 1")
        self.ks = ks
        # Edge (i, j) crosses the prefixes ks[before[i]:before[j]] (i < k <= j): before[v] is
        # the count of the prefixes that end at or before v. Kept per vertex, not per edge.
        self.before: _Ints = np.searchsorted(ks, np.arange(n), side="right")
        self.sets: list[NDArray[np.bool_]] = []  # odd sets found later, by membership
        self.in_lp = np.zeros(len(arr), dtype=bool)
        self.columns: list[int] = []  # LP column -> edge index, -1 for an artificial column
        # Artificial columns keep every programme feasible, at a cost no perfect matching
        # reaches (a solution using one proves nothing and is refused).
        self.big = float(int(self.cost.max()) * (n // 2 + 1) + 1)
        self.highs = highspy.Highs()  # type: ignore[no-untyped-call]
        self.highs.setOptionValue("output_flag", False)
        # Columns are added between solves: the primal simplex restarts from the last basis
        # (the first solve, from no basis, is the dual simplex's: see ``step``).
        self.highs.setOptionValue("presolve", "off")
        self.solved = False
        inf = highspy.kHighsInf
        rows = n + len(ks)
        upper = np.concatenate([np.ones(n), np.full(len(ks), inf)])
        self.highs.addRows(
            rows, np.ones(rows), upper, 0, np.zeros(rows, np.int32), np.zeros(0, np.int32), []
        )
        self._artificial(0, rows)

    def start(self, known_edges: _Ints | None) -> None:
        """The first columns: the nearest ``_FIRST_EDGES`` edges of every vertex, and the
        edges ``known_edges`` (a known perfect matching's) if given."""
        starts = np.searchsorted(self.ei, np.arange(self.n + 1), side="left")
        index = starts[:-1, None] + np.arange(_FIRST_EDGES)[None, :]
        first = index[index < starts[1:, None]]
        if known_edges is not None:
            first = np.concatenate([first, known_edges])
        self.add_columns(np.unique(first))

    def step(
        self, price: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]] | Literal[True] | None:
        """Solve the programme on the columns so far. None: not solved; True: edges of
        negative reduced cost were added (solve again); else (x, dual), optimal on *every*
        edge (with ``price`` False: on the columns so far only)."""
        # The first solve starts from the artificial columns: there the dual simplex is ~10×
        # quicker (10,000 adversarial pairs: 0.4 s against 4.3 s, the window's programme and
        # the kept edges' alike). After columns are added, the last basis stays primal feasible
        # and the primal simplex goes on from it, where the dual simplex starts over (~4× the
        # time in all when it solved every step).
        self.highs.setOptionValue("simplex_strategy", 4 if self.solved else 1)
        self.highs.run()
        self.solved = True
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        solution = self.highs.getSolution()
        dual = np.asarray(solution.row_dual, dtype=float)
        if price:
            negative, reduced = self.priced(dual)
            if len(negative):
                take = max(8 * self.n, 4000)
                if len(negative) > take:
                    negative = negative[np.argpartition(reduced, take)[:take]]
                self.add_columns(negative)
                return True
        return np.asarray(solution.col_value, dtype=float), dual

    def priced(self, dual: NDArray[np.float64]) -> tuple[_Ints, NDArray[np.float64]]:
        """The edges not in the programme whose reduced cost under ``dual`` is negative (in
        increasing order), and those reduced costs: c_e − y_i − y_j − Σ z over the sets e
        leaves, for every edge, ``_PRICE_BLOCK`` edges at a time. The same expression over
        all edges at once made a 100 MB array per step of it at 5,000 pairs (12.5 million
        kept edges), each written to memory and read back; a block's stay in the cache."""
        z = dual[self.n :]
        at_vertex = self.prefix_sums(z)

        def block(start: int) -> tuple[_Ints, NDArray[np.float64]]:
            part = slice(start, start + _PRICE_BLOCK)
            ei, ej = self.ei[part], self.ej[part]
            crossing = self.crossing(z, part, at_vertex)
            reduced = self.cost[part] - dual[ei] - dual[ej] - crossing
            where = np.nonzero((reduced < -_TOLERANCE) & ~self.in_lp[part])[0]
            return where + start, reduced[where]

        parts = _in_blocks(block, len(self.cost))
        found = [np.zeros(0, dtype=np.int64), *(f for f, _ in parts)]
        values = [np.zeros(0), *(v for _, v in parts)]
        return np.concatenate(found), np.concatenate(values)

    def _artificial(self, first_row: int, count: int) -> None:
        self.highs.addCols(
            count,
            np.full(count, self.big),
            np.zeros(count),
            np.full(count, highspy.kHighsInf),
            count,
            np.arange(count, dtype=np.int32),
            np.arange(first_row, first_row + count, dtype=np.int32),
            np.ones(count),
        )
        self.columns.extend([-1] * count)

    def crossing(
        self, z: NDArray[Any], part: slice = slice(None), at_vertex: NDArray[Any] | None = None
    ) -> NDArray[Any]:
        """Σ z over the odd sets each edge leaves (prefixes first, then the later sets), for
        the edges ``part`` (all by default); ``at_vertex``: :meth:`prefix_sums` of z, if the
        caller has them (it calls this once a block)."""
        nk = len(self.ks)
        if at_vertex is None:
            at_vertex = self.prefix_sums(z)
        # z_sum[before[j]] − z_sum[before[i]], gathered from a per-vertex array.
        out: NDArray[Any] = at_vertex[self.ej[part]] - at_vertex[self.ei[part]]
        for s, member in enumerate(self.sets):
            if z[nk + s] != 0:
                out = out + z[nk + s] * (member[self.ei[part]] != member[self.ej[part]])
        return out

    def prefix_sums(self, z: NDArray[Any]) -> NDArray[Any]:
        """For each vertex v, Σ z over the prefixes that end at or before v."""
        nk = len(self.ks)
        z_sum = np.zeros(nk + 1, dtype=z.dtype)
        z_sum[1:] = np.cumsum(z[:nk])
        return z_sum[self.before]

    def add_columns(self, picked: _Ints) -> None:
        picked = np.sort(picked[~self.in_lp[picked]])
        if len(picked) == 0:
            return
        self.in_lp[picked] = True
        n = self.n
        nk = len(self.ks)
        lo = self.before[self.ei[picked]]
        crossed = self.before[self.ej[picked]] - lo
        extra = [
            np.nonzero(member[self.ei[picked]] != member[self.ej[picked]])[0]
            for member in self.sets
        ]
        per_column: list[list[int]] = [[] for _ in range(len(picked))]
        for s, where in enumerate(extra):
            for c in where.tolist():
                per_column[c].append(n + nk + s)
        count = 2 + crossed + np.asarray([len(r) for r in per_column], dtype=np.int64)
        starts = np.zeros(len(picked), dtype=np.int64)
        starts[1:] = np.cumsum(count)[:-1]
        index = np.empty(int(count.sum()), dtype=np.int64)
        index[starts] = self.ei[picked]
        index[starts + 1] = self.ej[picked]
        # The prefix rows n + lo .. n + hi - 1 of each column, after its two vertices.
        total = int(crossed.sum())
        if total:
            owner = np.repeat(np.arange(len(picked)), crossed)
            offset = np.arange(total) - np.repeat(np.cumsum(crossed) - crossed, crossed)
            index[starts[owner] + 2 + offset] = n + lo[owner] + offset
        for c, more in enumerate(per_column):
            if more:
                at = int(starts[c] + 2 + crossed[c])
                index[at : at + len(more)] = more
        self.highs.addCols(
            len(picked),
            self.cost[picked].astype(float),
            np.zeros(len(picked)),
            np.full(len(picked), highspy.kHighsInf),
            len(index),
            starts.astype(np.int32),
            index.astype(np.int32),
            np.ones(len(index)),
        )
        self.columns.extend(picked.tolist())

    def cut_odd_components(self, x: NDArray[np.float64]) -> bool:
        """Add x(δ(S)) ≥ 1 for every odd component S of the fractional edges; False if none."""
        n = self.n
        parent = list(range(n))

        def find(v: int) -> int:
            while parent[v] != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        touched: set[int] = set()
        for col in np.nonzero((x > _TOLERANCE) & (x < 1 - _TOLERANCE))[0].tolist():
            e = self.columns[col]
            if e < 0:
                continue
            a, b = find(int(self.ei[e])), find(int(self.ej[e]))
            touched.update((int(self.ei[e]), int(self.ej[e])))
            if a != b:
                parent[a] = b
        groups: dict[int, list[int]] = {}
        for v in touched:
            groups.setdefault(find(v), []).append(v)
        odd = [g for g in groups.values() if len(g) % 2 == 1]
        if not odd:
            return False
        edge_of = np.asarray(self.columns, dtype=np.int64)
        real = np.nonzero(edge_of >= 0)[0]
        first_row = self.n + len(self.ks) + len(self.sets)
        for group in odd:
            member = np.zeros(n, dtype=bool)
            member[group] = True
            used = edge_of[real]
            cols = real[member[self.ei[used]] != member[self.ej[used]]]
            self.highs.addRow(
                1.0, highspy.kHighsInf, len(cols), cols.astype(np.int32), np.ones(len(cols))
            )
            self.sets.append(member)
        self._artificial(first_row, len(odd))
        return True

    def edges_of(self, mate: Sequence[int]) -> _Ints | None:
        """The edge indices of the perfect matching ``mate``; None if it is not one here."""
        n = self.n
        if len(mate) != n:
            return None
        small = np.asarray([v for v in range(n) if v < mate[v]], dtype=np.int64)
        if 2 * len(small) != n:
            return None
        big = np.asarray([mate[v] for v in small.tolist()], dtype=np.int64)
        # Each pair is looked for among the edges of its smaller end (a run of ``ei``), sorted
        # by j as every caller gives them. Whatever their order, an index is returned only
        # where its edge is the pair looked for: at worst a pair is not found, and the answer
        # is None (no pass over every edge to check the order, nor a key per edge).
        first = np.searchsorted(self.ei, small, side="left").tolist()
        last = np.searchsorted(self.ei, small, side="right").tolist()
        at = np.empty(len(small), dtype=np.int64)
        for k, (a, b, j) in enumerate(zip(first, last, big.tolist(), strict=True)):
            e = a + int(np.searchsorted(self.ej[a:b], j))
            if e >= b or self.ej[e] != j:
                return None
            at[k] = e
        return at

    def primal_edges(self, x: NDArray[np.float64]) -> _Ints | None:
        """The edges of an integral primal solution; None if it is fractional or artificial."""
        picked: list[int] = []
        for col in np.nonzero(x > _TOLERANCE)[0].tolist():
            e = self.columns[col]
            if e < 0:
                _note("artificial")  # an artificial column is used: nothing proved
                return None
            if x[col] < 1 - _TOLERANCE:
                _note("fractional")
                return None
            picked.append(e)
        return np.asarray(picked, dtype=np.int64)

    def fractional(self, x: NDArray[np.float64]) -> bool:
        """Whether some column of ``x`` lies strictly between 0 and 1."""
        return bool(np.any((x > _TOLERANCE) & (x < 1 - _TOLERANCE)))

    def rounded(self, x: NDArray[np.float64], dual: NDArray[np.float64]) -> list[int] | None:
        """A perfect matching close to the solution ``x``: its edges at 1, and a maximum-weight
        perfect matching (compiled blossom) of the given edges among the vertices they leave
        unmatched (those of the fractional edges). When some of those cannot be paired among
        themselves (odd cycles of halves far apart), augmenting paths through the rest of the
        graph pair them: the shortest by the reduced costs of ``dual`` when it is simple
        (:func:`pairing.matching.augment_cheaply`; along it the matching's cost grows by about
        the path's length, its edges at 1 being tight), else any augmenting path
        (:func:`pairing.matching.augment_to_perfect`), first along the tight edges, then along
        edges of ever larger reduced cost, at last along any edge.
        None if the graph has no perfect matching."""
        n = self.n
        mate = np.full(n, -1, dtype=np.int64)
        for col in np.nonzero(x > 1 - _TOLERANCE)[0].tolist():
            e = self.columns[col]
            if e < 0:
                continue
            i, j = int(self.ei[e]), int(self.ej[e])
            if mate[i] == -1 and mate[j] == -1:
                mate[i], mate[j] = j, i
        rest = np.nonzero(mate == -1)[0]
        if len(rest):
            free = mate == -1
            inside = free[self.ei] & free[self.ej]
            local = np.full(n, -1, dtype=np.int64)
            local[rest] = np.arange(len(rest))
            edges = np.empty((int(inside.sum()), 3), dtype=np.int64)
            edges[:, 0] = local[self.ei[inside]]
            edges[:, 1] = local[self.ej[inside]]
            top = int(self.cost[inside].max(initial=0)) + 1
            edges[:, 2] = top - self.cost[inside]
            sub = np.asarray(max_weight_matching(len(rest), edges, maxcardinality=True))
            paired = sub != -1
            mate[rest[paired]] = rest[sub[paired]]
        out: list[int] = mate.tolist()
        if -1 not in out:
            return out
        reduced = self.cost - dual[self.ei] - dual[self.ej] - self.crossing(dual[n:])
        if augment_cheaply(weighted_adjacency(n, self.ei, self.ej, np.maximum(reduced, 0.0)), out):
            return out
        limit = 0.5  # costs are integers and the duals (near) half-integers: 0 or ≥ 0.5
        while True:
            offered = reduced < limit
            offer = weighted_adjacency(n, self.ei[offered], self.ej[offered], reduced[offered])
            if augment_to_perfect(offer, out):
                return out
            if offered.all():
                return None
            limit *= 4

    def lower_bound(self, dual: NDArray[np.float64]) -> int:
        """A lower bound of every perfect matching's cost, exact whatever the solver's
        precision: the doubled duals rounded down (Z ≥ 0), then each vertex's Y lowered by the
        largest violation of its edges as first end, so 2c_e ≥ Y_i + Y_j + Σ_{S left by e} Z_S
        holds on *every* edge, checked in integers. Then for a perfect matching M,
        2·cost(M) ≥ Σ Y + Σ_S Z_S·|M ∩ δ(S)| ≥ Σ Y + Σ Z (each odd set is left at least once),
        and the cost is an integer: ⌈(Σ Y + Σ Z)/2⌉."""
        n = self.n
        y2 = np.floor(2 * dual[:n]).astype(np.int64)
        z2 = np.maximum(np.floor(2 * dual[n:]), 0).astype(np.int64)
        slack = 2 * self.cost - y2[self.ei] - y2[self.ej] - self.crossing(z2)
        short = slack < 0
        if np.any(short):
            deficit = np.zeros(n, dtype=np.int64)
            np.maximum.at(deficit, self.ei[short], -slack[short])
            y2 -= deficit
            slack = 2 * self.cost - y2[self.ei] - y2[self.ej] - self.crossing(z2)
        if np.any(slack < 0):  # pragma: no cover - lowering Y_i by each deficit fixes every edge
            return -(1 << 62)
        doubled = int(sum(y2.tolist())) + int(sum(z2.tolist()))
        return (doubled + 1) // 2

    def proves(self, picked: _Ints, dual: NDArray[np.float64]) -> bool:
        """Whether the (floating) dual objective reaches the cost of the edges ``picked``."""
        return bool(abs(float(dual.sum()) - float(self.cost[picked].sum())) < 0.25)

    def certify(self, picked: _Ints | None, dual: NDArray[np.float64]) -> Certified | None:
        """The exact check of the module docstring for the matching ``picked`` (edge indices)
        and the dual; the result, or None."""
        if picked is None:
            return None
        n = self.n
        mate = [-1] * n
        matched = 0
        total = 0
        for e in picked.tolist():
            i, j = int(self.ei[e]), int(self.ej[e])
            if mate[i] != -1 or mate[j] != -1:
                _note("not a matching")
                return None
            mate[i], mate[j] = j, i
            matched += 2
            total += int(self.cost[e])
        if matched != n:
            _note("not perfect")
            return None
        doubled = 2 * dual
        rounded = np.rint(doubled)
        if np.any(np.abs(doubled - rounded) > _TOLERANCE):
            _note("duals off the half-integers")
            return None
        y2 = rounded[:n].astype(np.int64)
        z2 = rounded[n:].astype(np.int64)
        if np.any(z2 < 0):
            _note("negative odd-set dual")
            return None

        # Dual feasibility on every edge, and the tight ones, a block of edges at a time (as
        # in ``priced``).
        at_vertex = self.prefix_sums(z2)

        def tight_of(start: int) -> _Ints | None:
            part = slice(start, start + _PRICE_BLOCK)
            ei, ej = self.ei[part], self.ej[part]
            crossing = self.crossing(z2, part, at_vertex)
            slack = 2 * self.cost[part] - y2[ei] - y2[ej] - crossing
            if np.any(slack < 0):
                return None
            tight = np.nonzero(slack == 0)[0]
            block = np.empty((len(tight), 3), dtype=np.int64)
            block[:, 0] = ei[tight]
            block[:, 1] = ej[tight]
            block[:, 2] = crossing[tight]
            return block

        blocks: list[_Ints] = [np.zeros((0, 3), dtype=np.int64)]
        for block in _in_blocks(tight_of, len(self.cost)):
            if block is None:
                _note("dual infeasible")
                return None
            blocks.append(block)
        # Python integers: the exact equality of the two objectives.
        if sum(y2.tolist()) + sum(z2.tolist()) != 2 * total:
            _note("objectives differ")
            return None
        cuts = self.ks[z2[: len(self.ks)] > 0].tolist()
        return Certified(mate, np.concatenate(blocks), cuts)
