"""Exact weighted matching on general graphs, through rustworkx's compiled blossom algorithm.

Pure functions on vertices ``0..n-1`` and integer edge costs or weights: no Django, no global
state, no recursion (the blossom runs in rustworkx's Rust code; everything here is loops). The
Swiss engine (``pairing.swiss``) uses it for the score-group segments its fast path cannot
solve; nothing here knows about pairs, units or match points, so any "units to pair" fit.

- :func:`max_weight_matching`: a maximum-weight (optionally maximum-cardinality) matching.
- :func:`first_min_cost_perfect_matching`: among the minimum-cost perfect matchings, the first
  in vertex order (the first vertex takes the smallest partner it can, then the next unmatched
  vertex, …) — the Swiss rule (4) once the vertices are numbered in sweep order.

rustworkx computes with 128-bit integers: a weight of 2^126 or more gives a silently wrong
matching and 2^131 raises ``OverflowError``. Every weight passed to it is checked against
:data:`WEIGHT_LIMIT` first (:class:`WeightOverflow`), never truncated.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from heapq import heappop, heappush
from itertools import chain
from typing import Any, Protocol

import numpy as np
import rustworkx as rx
from numpy.typing import NDArray

__all__ = [
    "WEIGHT_LIMIT",
    "NoPerfectMatching",
    "WeightOverflow",
    "augment_cheaply",
    "augment_to_perfect",
    "first_min_cost_perfect_matching",
    "lexicographic_weights",
    "max_weight_matching",
    "weighted_adjacency",
]

# rustworkx doubles weights internally (dual variables of half-integers) in i128: 2^126 is the
# first weight observed to give a wrong matching. One bit of margin below it.
WEIGHT_LIMIT = 1 << 125


class NoPerfectMatching(Exception):
    """The graph has no perfect matching."""


class WeightOverflow(ValueError):
    """An integer weight is outside rustworkx's exact range ``0 <= w < WEIGHT_LIMIT``."""


def max_weight_matching(
    n: int,
    edges: Iterable[tuple[int, int, int]] | NDArray[np.int64],
    maxcardinality: bool = False,
) -> list[int]:
    """Maximum-weight matching of vertices ``0..n-1``; ``edges`` are ``(v, w, weight)`` with
    integer weights in ``[0, WEIGHT_LIMIT)`` (or an (E, 3) integer array of them). Returns
    ``mate`` (``mate[v] == -1``: unmatched).
    With ``maxcardinality`` the matching has maximum cardinality first, then maximum weight."""
    graph: rx.PyGraph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n))
    checked: list[tuple[int, int, int]] = []
    if isinstance(edges, np.ndarray):
        # Rows (v, w, weight) of 64-bit integers: below the limit by their type.
        rows = edges[edges[:, 0] != edges[:, 1]]
        if len(rows) and int(rows[:, 2].min()) < 0:
            raise WeightOverflow("negative weight")
        checked = list(zip(*rows.T.tolist(), strict=True))
    else:
        for v, w, weight in edges:
            if v == w:
                continue
            if not 0 <= weight < WEIGHT_LIMIT:
                raise WeightOverflow(f"weight {weight} outside [0, 2^125)")
            checked.append((v, w, weight))
    graph.add_edges_from(checked)
    mate = [-1] * n
    for v, w in rx.max_weight_matching(
        graph, max_cardinality=maxcardinality, weight_fn=_identity, verify_optimum=False
    ):
        mate[v] = w
        mate[w] = v
    return mate


class _Graph(Protocol):
    """Neighbours by vertex: a list of dicts or sets, or a view such as :class:`_WithEnd`."""

    def __getitem__(self, v: int, /) -> Iterable[int]: ...


def _identity(weight: int) -> int:
    return weight


# Partners of a block vertex are told apart up to this rank (0 = its nearest neighbour after
# it); a vertex whose chosen partner ranks higher is not settled by that solve.
_RANK_CAP = 14
# The prover (an exact answer for one candidate partner, by a linear programme) is asked about
# at most this many candidates of one vertex, only while this many vertices are unsettled
# (below, one solve by the compiled blossom is quicker), and never again once it could not tell.
_PROVER_CALLS = 3
_PROVE_FROM = 400
# Within this many vertices of the next cut, its exclusion proof (``_beside_cut``, a search of
# the vertices before the cut) comes before the one on all the unsettled vertices; farther, it
# is dearer, and asked only when that one and the unweighted swap did not decide.
_NEAR_CUT = 1024
# Vertices the first, short search for an equal-cost swap may see before the exclusion proof.
_QUICK_SWAP = 64
# The tie-break prefers edges shorter than this (in vertex order).
_NEAR = 64


def lexicographic_weights(
    edges: Sequence[tuple[int, int, int]],
    ranks: Sequence[int],
    block: int,
    cap: int,
) -> list[tuple[int, int, int]]:
    """Weights making a maximum-weight perfect matching minimise (Σ cost, vertex order).

    ``edges[e] = (i, j, cost)`` on vertices ``0..m-1`` with ``i < j``; ``ranks[e]`` is the rank
    of j among the neighbours of i that follow i (0 for the nearest). Only the partners of the
    first ``block`` vertices are ordered, and only up to rank ``cap``. With K = cap + 2,
    Q = m/2 · NEAR + 1 and ``top`` one more than the largest cost:

        weight(i, j) = ((top − cost) · K^block + lex(i, j)) · Q + near(i, j),
        lex(i, j) = (cap − min(rank, cap)) · K^(block−1−i) if i < block, else 0,
        near(i, j) = max(1, NEAR − (j − i)).

    Why it is lexicographic. The near terms of a perfect matching sum to less than Q (m/2 edges,
    each ≤ NEAR), so they only break ties of the rest. The lex terms sum to less than K^block (at
    most one edge per i < block, each ≤ cap · K^(block−1−i); in all at most
    cap · (K^block − 1)/(K − 1) < K^block), so the cost decides first. Take two perfect matchings
    of equal cost that agree on every edge whose smaller end precedes i (< block), where i takes
    j1 in one and j2 in the other, j1 < j2 and rank(j1) < cap: the lex difference at i is at
    least K^(block−1−i), while the later smaller ends x contribute to either side at most
    cap · (K^(block−1−i) − 1)/(K − 1) < K^(block−1−i): the matching taking j1 weighs more. So in
    a maximum-weight perfect matching, every block vertex i that is the smaller end of its pair
    and took a partner of rank below ``cap`` (and every block vertex before it) has the
    smallest partner of all minimum-cost perfect matchings agreeing on the earlier pairs. (A
    partner of rank ≥ ``cap`` proves nothing: all such ranks weigh the same.) The near term is a
    tie-break only; it makes the rest of the matching mostly sweep-ordered already.
    """
    m = 1 + max((j for _, j, _ in edges), default=0)
    k = cap + 2
    top = max((c for _, _, c in edges), default=0) + 1
    scale = k**block
    q = (m // 2) * _NEAR + 1
    powers = [k ** (block - 1 - i) for i in range(block)]
    out = []
    for (i, j, c), rank in zip(edges, ranks, strict=True):
        lex = (cap - min(rank, cap)) * powers[i] if i < block else 0
        out.append((i, j, ((top - c) * scale + lex) * q + max(1, _NEAR - (j - i))))
    return out


def _block_size(m: int, top: int, cap: int) -> int:
    """The most vertices whose order fits in the bit budget next to costs below ``top``."""
    k = cap + 2
    q = (m // 2) * _NEAR + 1
    block = 0
    while block < m and (top + 1) * k ** (block + 1) * q < WEIGHT_LIMIT:
        block += 1
    return block


# ``prover(m, edges, target)``: for the graph on vertices 0..m-1 with ``edges`` (an (E, 3) array
# (i, j, cost), i < j, sorted), a perfect matching of cost ``target`` (a list of mates) if it
# finds one, False if it proves every perfect matching costs more, None if it cannot tell.
Prover = Callable[[int, NDArray[np.int64], int], "list[int] | bool | None"]


def first_min_cost_perfect_matching(
    n: int,
    edges: Sequence[tuple[int, int, int]] | NDArray[np.int64],
    initial: Sequence[int] | None = None,
    prover: Prover | None = None,
    cuts: Sequence[int] = (),
) -> list[int]:
    """The first perfect matching in vertex order among those of minimum total cost.

    ``edges`` are ``(i, j, cost)``, integer costs ≥ 0. "First in vertex order": vertex 0 takes
    the smallest partner any minimum-cost perfect matching gives it, then the smallest unmatched
    vertex does the same among the minimum-cost perfect matchings that keep the pairs chosen so
    far, and so on. Raises :class:`NoPerfectMatching` when there is none.

    Method (exact; every optimisation is done by the compiled solver). Invariant: ``mate``
    restricted to the unsettled vertices R is a minimum-cost perfect matching of R, and the
    settled pairs are a prefix of the answer, so the minimum-cost perfect matchings extending
    them are exactly the settled pairs plus a minimum-cost perfect matching of R.

    - A solve on R with :func:`lexicographic_weights` settles R's first vertices, as far as the
      bit budget and the rank cap certify them (if not even the first is certified, the solve is
      repeated with no rank cap).
    - Then the smallest vertex i of R keeps ``mate[i]`` without a solve when no unsettled
      neighbour j of i lies between i and ``mate[i]`` (no smaller partner exists at all).
    - Else the unsettled neighbours j of i before ``mate[i]`` are taken in order. If j can be
      given to i by an alternating cycle of equal cost (:func:`_swap_in`: i–j, then the old
      partners re-paired along a path of ``mate``), that cycle is applied: ``mate`` stays a
      minimum-cost matching of R and i now has the smallest partner it could possibly have. If
      no perfect matching of R pairs i with j at all (:func:`_partners_possible`, one Edmonds
      search for every j at once), j is skipped — an exclusion proved without a solve. For a j
      it does not exclude, a label-correcting search for an equal-cost cycle
      (:func:`_swap_in_weighted`, accepting only simple cycles), then ``prover`` when given
      (:func:`_forced_pair`: a perfect matching of R − {i, j} of exactly the right cost, checked
      here, or a proof that none exists). If all the candidates before ``mate[i]`` are
      excluded, i keeps ``mate[i]``. Otherwise R is solved again, ordering from i.

    ``initial``, when given, must be a minimum-cost perfect matching of the graph (the caller
    proved it, e.g. :func:`pairing.matching_lp.certified_optimum`): it replaces the first solve.
    ``prover`` (see :data:`Prover`; :func:`pairing.matching_lp.matching_of_cost`) is asked only
    on large R (``_PROVE_FROM``), where a solve is dear.

    ``cuts``: sizes k of prefixes {0, …, k−1} that every minimum-cost perfect matching crosses
    by exactly one edge (the positive duals of :func:`pairing.matching_lp.certified_optimum`);
    checked on ``initial``. They make a second exclusion proof, local to the vertices of R
    before the first cut after i (:func:`_beside_cut`), which the costs alone do not give.
    """
    adjacency, later = _adjacency(n, edges)
    settled = [False] * n
    mate = [-1] * n
    need_solve = True
    if initial is not None:
        mate = list(initial)
        if len(mate) != n or any(
            not 0 <= mate[v] < n or mate[mate[v]] != v or mate[v] not in adjacency[v]
            for v in range(n)
        ):
            raise ValueError("initial is not a perfect matching of the graph")
        need_solve = False
    cuts = sorted(cuts)
    if initial is not None and any(sum(1 for v in range(k) if mate[v] >= k) != 1 for k in cuts):
        raise ValueError("initial does not cross every cut exactly once")
    first = 0  # every vertex before ``first`` is settled
    waste = [0, sum(len(neighbours) for neighbours in adjacency)]  # see ``_settle``
    # A tight barrier of R (see ``_partners_possible``), or None: two of its vertices are never
    # paired by a perfect matching of R. Settling a pair of a perfect matching of R keeps the
    # unsettled part of it a tight barrier, so it serves every later position.
    barrier: list[bool] | None = None
    while True:
        while first < n and settled[first]:
            first += 1
        if first == n:
            return mate
        i = first
        if not need_solve:
            partner = mate[i]
            decided = True
            reach: list[bool] | None = None
            beside: list[bool] | None = None
            at = bisect_right(cuts, i)
            cut = cuts[at] if at < len(cuts) else n  # the next cut, n: none
            asked = 0
            for j in later[i]:
                if j >= partner:
                    break
                if settled[j] or (reach is not None and not reach[j]):
                    continue
                if beside is not None and not beside[j]:
                    continue
                if barrier is not None and barrier[i] and barrier[j]:
                    continue  # both in a tight barrier: no perfect matching of R pairs them
                # A short search first (most swaps are short cycles); when it fails, the
                # exclusion proof, and the full searches only for a j it does not exclude.
                quick = _QUICK_SWAP if reach is None else None
                if _swap_in(adjacency, mate, settled, i, j, quick):
                    partner = j
                    break
                if beside is None and cut < n and cut - i <= _NEAR_CUT:
                    # The exclusion proof by the next cut, local to the vertices before it, for
                    # this j and the candidates after it (``later[i]`` is in sweep order).
                    beside = _beside_cut(adjacency, later, mate, settled, i, cut, partner, j)
                    if not beside[j]:
                        continue  # no minimum-cost perfect matching of R pairs i with j
                if reach is None:
                    # The same for the whole of R, where the cut does not tell.
                    candidates = [
                        k
                        for k in later[i]
                        if j <= k < partner and not settled[k] and (beside is None or beside[k])
                    ]
                    reach, inner = _partners_possible(adjacency, mate, settled, i, candidates)
                    if inner is not None:
                        barrier = [False] * n
                        for x in (i, *inner):
                            barrier[x] = True
                    if not reach[j]:
                        continue  # no perfect matching of R pairs i with j
                    if _swap_in(adjacency, mate, settled, i, j):
                        partner = j
                        break
                if beside is None and cut < n:
                    # Far from the cut its proof is dearer: asked only before the dear searches.
                    beside = _beside_cut(adjacency, later, mate, settled, i, cut, partner, j)
                    if not beside[j]:
                        continue
                if cut < n and _swap_beside_cut(adjacency, mate, settled, i, j, cut):
                    partner = j
                    break
                if _swap_in_weighted(adjacency, mate, settled, i, j):
                    partner = j
                    break
                if (
                    prover is not None
                    and asked < _PROVER_CALLS
                    and settled.count(False) >= _PROVE_FROM
                ):
                    asked += 1
                    answer = _forced_pair(adjacency, mate, settled, i, j, prover)
                    if answer is True:
                        partner = j
                        break
                    if answer is False:
                        continue  # proved: no minimum-cost matching of R pairs i with j
                    prover = None  # it could not tell: on this graph, solves decide from now
                decided = False
                break
            if decided:
                _settle(adjacency, settled, i, partner, waste)
                continue
        _solve_from(i, n, adjacency, later, settled, mate, waste)
        need_solve = False


def _adjacency(
    n: int, edges: Sequence[tuple[int, int, int]] | NDArray[np.int64]
) -> tuple[list[dict[int, int]], list[list[int]]]:
    """``adjacency[v]`` = {w: least cost of an edge v–w} and ``later[v]`` = v's neighbours
    after v in increasing order, built in numpy (the tight graphs have 10^5–10^6 edges):
    self-loops dropped, of parallel edges the cheapest kept."""
    arr = np.asarray(edges, dtype=np.int64).reshape(-1, 3)
    if len(arr) and int(arr[:, 2].min()) < 0:
        raise ValueError("costs must be >= 0")
    lo, hi, cost = arr[:, 0], arr[:, 1], arr[:, 2]
    # Edges given as (i, j) with i < j, sorted and without repeats (a tight graph, millions
    # of edges at 10,000 pairs) are taken as they are; any others are put so first.
    if not (
        np.all(lo < hi) and np.all((lo[1:] > lo[:-1]) | ((lo[1:] == lo[:-1]) & (hi[1:] > hi[:-1])))
    ):
        arr = arr[arr[:, 0] != arr[:, 1]]
        lo = np.minimum(arr[:, 0], arr[:, 1])
        hi = np.maximum(arr[:, 0], arr[:, 1])
        cost = arr[:, 2]
        order = np.lexsort((cost, hi, lo))
        lo, hi, cost = lo[order], hi[order], cost[order]
        if len(lo):
            first = np.ones(len(lo), dtype=bool)
            first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
            lo, hi, cost = lo[first], hi[first], cost[first]
    # ``later``: (lo, hi) is sorted, so each vertex's later neighbours are one run of hi.
    bounds = np.searchsorted(lo, np.arange(n + 1)).tolist()
    hi_list = _vertices(n, hi)
    later = [hi_list[bounds[v] : bounds[v + 1]] for v in range(n)]
    return weighted_adjacency(n, lo, hi, cost), later


def _vertices(n: int, ids: NDArray[np.int64]) -> list[int]:
    """``ids.tolist()``, but each vertex one shared int object (a gather from ``range(n)`` as
    an object array): a tight graph's millions of neighbour entries then make no int objects,
    ~30 bytes each, of memory the process touches for the first time."""
    every = np.empty(n, dtype=object)
    every[:] = range(n)
    return every[ids].tolist()  # type: ignore[no-any-return]


def weighted_adjacency(
    n: int, ends: NDArray[np.int64], other_ends: NDArray[np.int64], weight: NDArray[Any]
) -> list[dict[int, Any]]:
    """``adjacency[v]`` = {w: weight of the edge v–w} for the edges ``(ends[k], other_ends[k])``
    (each both ways; ``weight[k]`` its weight), grouped by vertex in numpy: one stable sort of
    the edges' ends, then one dict per vertex from zipped runs."""
    src = np.concatenate([ends, other_ends])
    dst = np.concatenate([other_ends, ends])
    both = np.concatenate([weight, weight])
    order = np.argsort(src, kind="stable")
    dst_list = _vertices(n, dst[order])
    weight_list = both[order].tolist()
    bounds = np.searchsorted(src[order], np.arange(n + 1)).tolist()
    adjacency = []
    for v in range(n):
        a, b = bounds[v], bounds[v + 1]
        adjacency.append(dict(zip(dst_list[a:b], weight_list[a:b], strict=True)))
    return adjacency


def _settle(
    adjacency: list[dict[int, int]], settled: list[bool], v: int, w: int, waste: list[int]
) -> None:
    """Settle the pair v–w. Their entries in the unsettled vertices' adjacency stay (every
    search skips settled vertices) until such dead entries may be as many as the live ones:
    then every unsettled vertex's adjacency is rebuilt without them. So a search never scans
    more than twice the live entries, and the rebuilds cost at most about twice the entries
    there were at the start — where deleting each settled vertex from every neighbour's
    adjacency, one by one, took 2.8 s of 9 at 10,000 adversarial pairs (8.9 million tight
    edges). ``waste``: [dead entries at most, live entries at the last rebuild]."""
    for x in (v, w):
        settled[x] = True
        waste[0] += len(adjacency[x])
    if waste[0] > waste[1]:
        live = 0
        for y, neighbours in enumerate(adjacency):
            if not settled[y]:
                adjacency[y] = kept = {u: c for u, c in neighbours.items() if not settled[u]}
                live += len(kept)
        waste[0], waste[1] = 0, live


def _swap_in(
    adjacency: list[dict[int, int]],
    mate: list[int],
    settled: list[bool],
    i: int,
    j: int,
    limit: int | None = None,
) -> bool:
    """Give j to i by an alternating cycle of equal cost, if a search finds one.

    The cycle is i–j, j's partner b to some y1, y1's partner x1 to some y2, …, x_k to a = i's
    partner. A breadth-first search from b over unsettled vertices (each vertex at most once, so
    the cycle is simple) steps from x to a neighbour y only when the edge x–y costs no more than
    y's matched edge (no step makes the cycle dearer), and accepts the first cycle whose total
    cost change is ≤ 0 — then it is 0, since ``mate`` is a minimum-cost matching of the
    unsettled vertices, and the new ``mate`` is one too. Not finding a cycle proves nothing: the
    caller solves instead. The 4-cycle (b–a) and the 6-cycles through one pair are the shortest
    cycles of this search. With ``limit`` it gives up once it has seen that many vertices."""
    a, b = mate[i], mate[j]
    base = adjacency[i][j] - adjacency[i][a] - adjacency[j][b]
    seen = {i, j, a, b}
    parent: dict[int, int] = {}  # y -> the x it was reached from
    frontier = [(b, base)]
    while frontier:
        nxt: list[tuple[int, int]] = []
        for x, delta in frontier:
            close = adjacency[x].get(a)
            if close is not None and delta + close <= 0:
                _apply_cycle(mate, parent, i, j, a, b, x)
                return True
            for y, c_xy in adjacency[x].items():
                if y in seen or settled[y]:
                    continue
                x2 = mate[y]
                step = c_xy - adjacency[y][x2]
                if step > 0 or x2 in seen:
                    continue
                seen.add(y)
                seen.add(x2)
                if limit is not None and len(seen) > limit:
                    return False
                parent[y] = x
                nxt.append((x2, delta + step))
        frontier = nxt
    return False


def _forced_pair(
    adjacency: list[dict[int, int]],
    mate: list[int],
    settled: list[bool],
    i: int,
    j: int,
    prover: Prover,
) -> bool | None:
    """Whether some minimum-cost perfect matching of the unsettled vertices R pairs i with j,
    asked of ``prover`` on R − {i, j}: those matchings cost exactly cost(mate) − c(i, j) there.
    True: ``mate`` is replaced by such a matching (with i–j); False: proved impossible; None:
    not known."""
    unsettled = [v for v in range(len(mate)) if not settled[v]]
    total = sum(adjacency[v][mate[v]] for v in unsettled if v < mate[v])
    target = total - adjacency[i][j]
    rest = [v for v in unsettled if v != i and v != j]
    local = {v: k for k, v in enumerate(rest)}
    rows: list[tuple[int, int, int]] = []
    for v in rest:
        lv = local[v]
        for u, c in adjacency[v].items():
            lu = local.get(u)
            if lu is not None and lu > lv:
                rows.append((lv, lu, c))
    if not rows:
        return None
    arr = np.asarray(rows, dtype=np.int64)
    arr = arr[np.lexsort((arr[:, 1], arr[:, 0]))]
    answer = prover(len(rest), arr, target)
    if answer is False:
        return False  # proved impossible
    if answer is None or answer is True:
        return None  # not known, or possible without a matching to show
    # Checked here, not trusted: a perfect matching of R − {i, j} on its edges, of that cost.
    if len(answer) != len(rest) or not all(0 <= lw < len(rest) for lw in answer):
        return None
    got = 0
    for lv, lw in enumerate(answer):
        v, w = rest[lv], rest[lw]
        if answer[lw] != lv or w not in adjacency[v]:
            return None
        if v < w:
            got += adjacency[v][w]
    if got != target:
        return None
    for lv, lw in enumerate(answer):
        mate[rest[lv]] = rest[lw]
    mate[i], mate[j] = j, i
    return True


def _swap_in_weighted(
    adjacency: list[dict[int, int]],
    mate: list[int],
    settled: list[bool],
    i: int,
    j: int,
) -> bool:
    """:func:`_swap_in` without its two restrictions: steps that make the cycle dearer are
    allowed and a vertex is reached again whenever a cheaper path to it is found (label
    correcting, cheapest first). The paths it builds are alternating walks, which in a graph
    with odd cycles need not be simple: a closure is accepted only after its path has been
    walked and found simple (then it is an alternating cycle of change ≤ 0, so exactly 0 since
    ``mate`` is a minimum-cost matching of the unsettled vertices). Finding nothing proves
    nothing."""
    a, b = mate[i], mate[j]
    base = adjacency[i][j] - adjacency[i][a] - adjacency[j][b]
    ends = {i, j, a, b}
    dist: dict[int, int] = {b: base}  # outer vertex x -> least change of a path b … x
    parent: dict[int, int] = {}  # y -> the x it was last reached from
    heap = [(base, b)]
    budget = 4 * len(adjacency)
    while heap and budget > 0:
        delta, x = heappop(heap)
        if delta != dist.get(x):
            continue
        budget -= 1
        close = adjacency[x].get(a)
        if close is not None and delta + close <= 0:
            path = _simple_path(mate, parent, b, x, ends)
            if path is not None:
                _apply_path(mate, path, i, j, a, x)
                return True
        for y, c_xy in adjacency[x].items():
            if y in ends or settled[y] or y == mate[x]:
                continue
            x2 = mate[y]
            nd = delta + c_xy - adjacency[y][x2]
            old = dist.get(x2)
            if old is None or nd < old:
                dist[x2] = nd
                parent[y] = x
                heappush(heap, (nd, x2))
    return False


def _simple_path(
    mate: list[int], parent: dict[int, int], b: int, last: int, ends: set[int]
) -> list[int] | None:
    """The path last, mate[last], parent[…], …, b as :func:`_apply_cycle` reads it, or None
    if following the parents repeats a vertex (a walk, not a path) or never reaches b."""
    path = [last]
    seen = {last}
    x = last
    while x != b:
        y = mate[x]
        x = parent.get(y, -1)
        if x == -1 or y in seen or x in seen or y in ends or (x in ends and x != b):
            return None
        seen.add(y)
        seen.add(x)
        path.append(y)
        path.append(x)
    return path


def _apply_path(mate: list[int], path: list[int], i: int, j: int, a: int, last: int) -> None:
    """Re-pair along the cycle i–j, b, …, ``last``–a whose middle is ``path`` (read
    backwards from ``last`` to b, as :func:`_simple_path` gives it)."""
    mate[i], mate[j] = j, i
    mate[last], mate[a] = a, last
    for k in range(1, len(path) - 1, 2):
        y, x_prev = path[k], path[k + 1]
        mate[y], mate[x_prev] = x_prev, y


def _partners_possible(
    adjacency: list[dict[int, int]],
    mate: list[int],
    settled: list[bool],
    i: int,
    targets: Sequence[int] | None = None,
) -> tuple[list[bool], list[int] | None]:
    """(reach, inner). ``reach[j]``, for every unsettled neighbour j of i (or for every j of
    ``targets``, if given): whether some perfect matching of the unsettled vertices R pairs i
    with j. When it is False no minimum-cost one does either, whatever the costs. With
    ``targets`` the search stops as soon as all of them are found possible (a vertex labelled
    outer stays outer), and only their answers are exact (others may read False although
    possible): at 10,000 adversarial pairs the 141 searches of rule (4) each walked the whole
    tight graph, ~1.7 s apiece.

    ``inner``, when the search ran to its end (else None): the inner vertices A of its tree.
    Then B = A ∪ {i} is a *tight barrier* of R: R − B has exactly |B| odd components (every
    neighbour of an outer vertex is in the tree, so each outer blossom is an odd component of
    R − B — one more than there are inner vertices — and the vertices outside the tree are
    paired among themselves by ``mate``, in even components). By Tutte's theorem no perfect
    matching of R pairs two vertices of B (R − {x, y} − (B − {x, y}) = R − B would have more
    odd components than |B| − 2), so the caller excludes such pairs with no search at all. A
    tight barrier stays one when a pair of a perfect matching of R is settled (its unsettled
    part, of the R that is left): a perfect matching pairs each vertex of B into a distinct odd
    component, so removing the pair keeps |B| − |pair ∩ B| odd components against as many
    vertices (no more by Tutte, no fewer as an odd component keeps an odd piece).

    ``mate`` is a perfect matching of R. Without i, its partner a is the one unmatched vertex of
    R − {i}, so that matching is maximum there, and R − {i, j} has a perfect matching exactly
    when some maximum matching of R − {i} leaves j unmatched (take j off, or swap along an
    alternating path from a to j). By the Gallai–Edmonds theorem those j are exactly the
    vertices an Edmonds search from a labels *outer* (even), blossoms included: one search of
    Edmonds' cardinality algorithm (breadth first, odd cycles shrunk to their base; O(n·m) at
    worst, O(m) without blossoms) answers for every j at once."""
    a = mate[i]
    work = list(mate)
    work[a] = -1
    blocked = list(settled)
    blocked[i] = True
    return _outer_vertices(adjacency, work, blocked, a, targets)


def _before_cut(
    mate: list[int], settled: list[bool], i: int, cut: int
) -> tuple[list[int], int | None, list[int], list[bool]]:
    """For a search of the unsettled vertices A from i to before ``cut`` (every vertex before i
    settled): A; the vertex of A paired beyond the cut by ``mate`` (None when the cut's edge is
    settled); and the matching and the blocked vertices of A plus one more vertex, d = n, that
    stands for that partner beyond (matched to it; blocked when there is none)."""
    n = len(mate)
    inside = [x for x in range(i, cut) if not settled[x]]
    crossing = next((x for x in inside if mate[x] >= cut), None)
    work = [*mate, -1]
    blocked = [True] * (n + 1)
    for x in inside:
        blocked[x] = False
    if crossing is not None:
        blocked[n] = False
        work[crossing], work[n] = n, crossing
    return inside, crossing, work, blocked


def _beside_cut(
    adjacency: list[dict[int, int]],
    later: list[list[int]],
    mate: list[int],
    settled: list[bool],
    i: int,
    cut: int,
    partner: int,
    first: int,
) -> list[bool]:
    """``beside[j]`` for the unsettled neighbours j of i from ``first`` to before ``partner``
    (the candidates left): False when no minimum-cost
    perfect matching of the unsettled vertices R pairs i with j, proved from ``cut`` alone — a
    prefix size that every minimum-cost perfect matching of the whole graph crosses by exactly
    one edge, with i < cut and every vertex before i settled (True: not excluded).

    The settled pairs and a minimum-cost matching of R make one of the whole graph, so exactly
    one edge of ``mate`` crosses the cut, as does one of the answer. If that edge is settled,
    no edge of R's matching may cross the cut: the vertices A of R before it are paired among
    themselves. Otherwise exactly one vertex of A is paired beyond the cut and the rest among
    themselves — as if A had one more vertex, d, joined to every vertex of A with a neighbour
    in R beyond the cut. Either way R's matching restricted to A (with d) is a perfect matching
    of that small graph H, and :func:`_partners_possible`'s one search answers for every j at
    once: some perfect matching of H pairs i with j, or no optimal one of R does. A partner
    beyond the cut is excluded only when the cut's edge is settled."""
    n = dummy = len(mate)
    inside, crossing, work, blocked = _before_cut(mate, settled, i, cut)
    beside = [crossing is not None and j >= cut for j in range(n + 1)]
    wanted = [j for j in later[i] if first <= j < min(partner, cut) and not settled[j]]
    if not wanted:
        return beside
    ends: set[int] = set()
    if crossing is not None:
        for x in inside:
            for y in reversed(later[x]):
                if y < cut:
                    break
                if not settled[y]:
                    ends.add(x)
                    break
    root = work[i]
    work[root] = -1
    blocked[i] = True
    outer, _ = _outer_vertices(_WithEnd(adjacency, ends, dummy), work, blocked, root, wanted)
    for j in wanted:
        beside[j] = outer[j]
    return beside


def _swap_beside_cut(
    adjacency: list[dict[int, int]],
    mate: list[int],
    settled: list[bool],
    i: int,
    j: int,
    cut: int,
) -> bool:
    """Give j to i by re-pairing only the unsettled vertices A before ``cut`` (a prefix size
    every minimum-cost perfect matching crosses once, i < j < cut, every vertex before i
    settled), if one augmenting search finds how; ``mate`` stays a minimum-cost matching of R.

    In A only edges of cost 0 are offered, and the table across the cut may move to another
    vertex u of A with an edge of the same cost to the same partner v0 beyond (a vertex d stands
    for v0, as in :func:`_beside_cut`). So the new matching costs no more than ``mate``, hence
    exactly as much. With i–j taken and their partners a, b left unmatched, an augmenting path
    a … b exists exactly when such a re-pairing does (Edmonds' search, blossoms included: where
    the breadth-first swap, which visits each vertex once, misses the paths through odd cycles).
    Not finding one proves nothing."""
    if j >= cut or adjacency[i][j] != 0:
        return False
    dummy = len(mate)
    inside, crossing, work, blocked = _before_cut(mate, settled, i, cut)
    ends: set[int] = set()
    far = -1
    if crossing is not None:
        far = mate[crossing]
        cost = adjacency[crossing][far]
        ends = {u for u in inside if adjacency[u].get(far) == cost}
    a, b = work[i], work[j]
    blocked[i] = blocked[j] = True
    work[a] = work[b] = -1
    if _edmonds_search(_WithEnd(adjacency, ends, dummy, True), work, blocked, a) is not None:
        return False  # no augmenting path: b was not reached
    for x in inside:
        if x != i and x != j:
            mate[x] = far if work[x] == dummy else work[x]
            if work[x] == dummy:
                mate[far] = x
    mate[i], mate[j] = j, i
    return True


class _WithEnd:
    """``adjacency`` with one more vertex ``end`` joined to every vertex of ``ends``; with
    ``free_only``, only its edges of cost 0."""

    def __init__(
        self, adjacency: list[dict[int, int]], ends: set[int], end: int, free_only: bool = False
    ) -> None:
        self.adjacency, self.ends, self.end, self.free_only = adjacency, ends, end, free_only

    def __getitem__(self, v: int) -> Iterable[int]:
        if v == self.end:
            return sorted(self.ends)
        near: Iterable[int] = self.adjacency[v]
        if self.free_only:
            near = (y for y, c in self.adjacency[v].items() if c == 0)
        return chain(near, (self.end,)) if v in self.ends else near


def _outer_vertices(
    adjacency: _Graph,
    mate: list[int],
    blocked: list[bool],
    root: int,
    targets: Sequence[int] | None = None,
) -> tuple[list[bool], list[int] | None]:
    """The outer vertices of Edmonds' search tree from the unmatched vertex ``root``, when
    every other vertex not ``blocked`` is matched (so no augmenting path exists), and its inner
    vertices when the search ran to its end. Iterative. With ``targets``, the search stops once
    they are all outer (see ``_edmonds_search``)."""
    tree = _edmonds_search(adjacency, mate, blocked, root, targets)
    assert tree is not None  # no other vertex is unmatched: nothing to augment to
    return tree


def augment_to_perfect(adjacency: Sequence[Iterable[int]], mate: list[int]) -> bool:
    """Make the matching ``mate`` (``mate[v]`` v's partner, -1 if none) perfect in place by
    augmenting paths of the graph ``adjacency`` (v's neighbours; the matched pairs need not be
    among them); False when no augmenting path from some unmatched vertex exists — then the
    graph has no perfect matching (a vertex with no augmenting path keeps none after later
    augmentations, Edmonds' theorem), and ``mate`` is left a valid matching, the augmentations
    so far applied. One breadth-first search per unmatched vertex, odd cycles shrunk to their
    base (Edmonds' cardinality algorithm); iterative, pure Python: nothing is weighed, any
    augmenting path will do (the caller chooses which edges to offer)."""
    for root in range(len(mate)):
        if mate[root] == -1 and _edmonds_search(adjacency, mate, None, root) is not None:
            return False
    return True


def augment_cheaply(lengths: Sequence[dict[int, float]], mate: list[int]) -> bool:
    """Pair the unmatched vertices of ``mate`` in place, each by the shortest augmenting path
    when it is simple: ``lengths[v]`` maps v's neighbours to the length of the edge (≥ 0; a
    caller's reduced costs, the matched pairs ≈ 0). One Dijkstra search per unmatched vertex
    over alternating paths (from an outer vertex along an unmatched edge to w, then w's matched
    edge to mate[w]), ignoring odd cycles: when the shortest such walk to an unmatched vertex
    repeats a vertex it is no path, and the answer is False (``mate`` then keeps the
    augmentations made so far; the caller pairs the rest another way). Iterative."""
    for root in range(len(mate)):
        if mate[root] != -1:
            continue
        dist = {root: 0.0}
        via: dict[int, tuple[int, int]] = {}  # outer x ← (outer v, inner w): v - w = x
        heap = [(0.0, root)]
        best, end = float("inf"), (-1, -1)
        while heap:
            d, v = heappop(heap)
            if d >= best:
                break
            if d > dist[v]:
                continue
            for w, length in lengths[v].items():
                if w == root or w == mate[v]:
                    continue
                x = mate[w]
                if x == -1:
                    if d + length < best:
                        best, end = d + length, (v, w)
                    continue
                reach = d + length + lengths[w].get(x, 0.0)
                if reach < dist.get(x, float("inf")):
                    dist[x] = reach
                    via[x] = (v, w)
                    heappush(heap, (reach, x))
        if end[0] == -1:
            return False
        v, w = end
        path = [w, v]
        while v != root:
            v, w = via[v]
            path += [w, v]
        if len(set(path)) != len(path):
            return False
        # path: the far unmatched end, then alternately outer and inner vertices to the root.
        for k in range(0, len(path), 2):
            mate[path[k]], mate[path[k + 1]] = path[k + 1], path[k]
    return True


def _edmonds_search(
    adjacency: _Graph,
    mate: list[int],
    blocked: list[bool] | None,
    root: int,
    targets: Sequence[int] | None = None,
) -> tuple[list[bool], list[int] | None] | None:
    """One search of Edmonds' cardinality algorithm from the unmatched vertex ``root``, over
    the vertices not ``blocked``: when it reaches another unmatched vertex, ``mate`` is
    augmented along that path and the answer is None; otherwise (outer, inner): the outer
    (even) vertices of its tree — only so far as every vertex of ``targets`` is outer, when
    they are given (a vertex once outer stays outer, so they are then known; the rest of the
    tree is not) — and, when the search ran to its end, the inner (odd) ones, else None."""
    n = len(mate)
    base = list(range(n))
    parent = [-1] * n
    outer = [False] * n
    outer[root] = True
    tree = [root]
    position = {root: 0}  # a tree vertex's place in ``tree``
    members: dict[int, list[int]] = {root: [root]}  # a base's tree vertices (those shrunk to it)
    queue = deque([root])
    waiting = None if targets is None else set(targets) - {root}
    if waiting is not None and not waiting:
        return outer, None

    if blocked is None:
        blocked = [False] * n
    popleft, push = queue.popleft, queue.append
    # The hot loop reads plain local lists (the helpers take them as arguments: a closure
    # would make every read of them an indirection), and v's partner and base once per v
    # (its base again after a blossom, the only thing that changes it).
    while queue:
        v = popleft()
        mate_v, base_v = mate[v], base[v]
        for to in adjacency[v]:
            if blocked[to] or to == mate_v or base[to] == base_v:
                continue
            mate_to = mate[to]
            if to == root or (mate_to != -1 and parent[mate_to] != -1):
                # ``to`` is outer: an odd cycle; shrink it to its base.
                top = _common_base(base, parent, mate, root, v, to)
                inside: set[int] = set()
                _mark(base, parent, mate, v, top, to, inside)
                _mark(base, parent, mate, to, top, v, inside)
                # The tree vertices whose base is inside, in tree order: found through the
                # bases' members rather than by a pass over the whole tree for every blossom
                # (thousands of blossoms in one search of a 5,000-vertex graph).
                shrunk = sorted(
                    chain.from_iterable(map(members.pop, inside)), key=position.__getitem__
                )
                for x in shrunk:
                    base[x] = top
                    if not outer[x]:
                        outer[x] = True
                        push(x)
                members.setdefault(top, []).extend(shrunk)
                base_v = base[v]
                if waiting is not None:
                    waiting.difference_update(shrunk)
                    if not waiting:
                        return outer, None
            elif parent[to] == -1:
                parent[to] = v
                if mate_to == -1:
                    # An augmenting path root … v, to: flip it (walking back by the parents).
                    while to != -1:
                        back = parent[to]
                        further = mate[back]
                        mate[to], mate[back] = back, to
                        to = further
                    return None
                for x in (to, mate_to):
                    position[x] = len(tree)
                    tree.append(x)
                    members[x] = [x]
                outer[mate_to] = True
                push(mate_to)
                if waiting is not None:
                    waiting.discard(mate_to)
                    if not waiting:
                        return outer, None
    return outer, [x for x in tree if not outer[x]]


def _common_base(
    base: list[int], parent: list[int], mate: list[int], root: int, x: int, y: int
) -> int:
    """The base of the blossom an edge x–y between two outer vertices closes: the first base
    on y's path to the root that is also on x's (``_edmonds_search``)."""
    path: set[int] = set()
    while True:
        x = base[x]
        path.add(x)
        if x == root:
            break
        x = parent[mate[x]]
    while True:
        y = base[y]
        if y in path:
            return y
        y = parent[mate[y]]


def _mark(
    base: list[int],
    parent: list[int],
    mate: list[int],
    v: int,
    top: int,
    child: int,
    inside: set[int],
) -> None:
    """Walk from v up to the blossom's base ``top``, giving the outer vertices on the way their
    parent across the cycle and adding the bases met to ``inside`` (``_edmonds_search``)."""
    while base[v] != top:
        inside.add(base[v])
        inside.add(base[mate[v]])
        parent[v] = child
        child = mate[v]
        v = parent[mate[v]]


def _apply_cycle(
    mate: list[int], parent: dict[int, int], i: int, j: int, a: int, b: int, last: int
) -> None:
    """Re-pair along the cycle found by :func:`_swap_in`: i–j, …, ``last``–a."""
    path = [last]  # x_k, y_k, x_(k-1), …, y_1, b (read backwards)
    x = last
    while x != b:
        y = mate[x]
        path.append(y)
        x = parent[y]
        path.append(x)
    mate[i], mate[j] = j, i
    mate[last], mate[a] = a, last
    # Walking back: each y_t now pairs with the x it was reached from (x_(t-1), or b).
    for k in range(1, len(path) - 1, 2):
        y, x_prev = path[k], path[k + 1]
        mate[y], mate[x_prev] = x_prev, y


def _solve_from(
    i: int,
    n: int,
    adjacency: list[dict[int, int]],
    later: list[list[int]],
    settled: list[bool],
    mate: list[int],
    waste: list[int],
) -> None:
    """Solve the unsettled vertices R (all ≥ i) and settle the first ones it certifies
    (``waste``: see :func:`_settle`)."""
    rest = [v for v in range(i, n) if not settled[v]]
    local = {v: k for k, v in enumerate(rest)}
    sub: list[tuple[int, int, int]] = []
    ranks: list[int] = []
    for v in rest:
        lv = local[v]
        rank = 0
        for w in later[v]:
            lw = local.get(w)
            if lw is not None:
                sub.append((lv, lw, adjacency[v][w]))
                ranks.append(rank)
                rank += 1
    m = len(rest)
    top = max((c for _, _, c in sub), default=0) + 1
    for cap in (_RANK_CAP, m):
        block = _block_size(m, top, cap)
        if block == 0:
            raise WeightOverflow(f"costs up to {top} leave no room to order {m} vertices")
        local_mate = max_weight_matching(
            m, lexicographic_weights(sub, ranks, block, cap), maxcardinality=True
        )
        if any(x == -1 for x in local_mate):
            raise NoPerfectMatching(f"no perfect matching of {m} vertices")
        for lv, lw in enumerate(local_mate):
            mate[rest[lv]] = rest[lw]
        settled_any = False
        for lv in range(min(block, m)):
            v = rest[lv]
            if settled[v]:
                continue  # the larger end of a pair settled just before
            partner = mate[v]
            rank = sum(1 for w in later[v] if w < partner and w in local)  # as in ``ranks``
            if rank >= cap:
                break  # not certified: every rank ≥ cap weighs the same
            _settle(adjacency, settled, v, partner, waste)
            settled_any = True
        if settled_any:
            return
    raise AssertionError("an uncapped solve always settles its first vertex")  # pragma: no cover
