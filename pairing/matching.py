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

from collections.abc import Iterable, Sequence

import rustworkx as rx

__all__ = [
    "WEIGHT_LIMIT",
    "NoPerfectMatching",
    "WeightOverflow",
    "first_min_cost_perfect_matching",
    "lexicographic_weights",
    "max_weight_matching",
]

# rustworkx doubles weights internally (dual variables of half-integers) in i128: 2^126 is the
# first weight observed to give a wrong matching. One bit of margin below it.
WEIGHT_LIMIT = 1 << 125


class NoPerfectMatching(Exception):
    """The graph has no perfect matching."""


class WeightOverflow(ValueError):
    """An integer weight is outside rustworkx's exact range ``0 <= w < WEIGHT_LIMIT``."""


def max_weight_matching(
    n: int, edges: Iterable[tuple[int, int, int]], maxcardinality: bool = False
) -> list[int]:
    """Maximum-weight matching of vertices ``0..n-1``; ``edges`` are ``(v, w, weight)`` with
    integer weights in ``[0, WEIGHT_LIMIT)``. Returns ``mate`` (``mate[v] == -1``: unmatched).
    With ``maxcardinality`` the matching has maximum cardinality first, then maximum weight."""
    graph: rx.PyGraph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n))
    checked: list[tuple[int, int, int]] = []
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


def _identity(weight: int) -> int:
    return weight


def lexicographic_weights(
    m: int, block: int, edges: Sequence[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """Weights making a maximum-weight perfect matching minimise (Σ cost, vertex order).

    ``edges`` are ``(i, j, cost)`` on vertices ``0..m-1`` with ``i < j``; only the partners of
    the first ``block`` vertices are ordered exactly. With K = 2m + 3, Q = m²/2 + 1 and ``top``
    one more than the largest cost:

        weight(i, j) = ((top − cost) · K^block + lex(i, j)) · Q + near(i, j),
        lex(i, j) = (m − j) · K^(block−1−i) if i < block else 0,   near(i, j) = m − (j − i).

    Why it is lexicographic. The near terms of a perfect matching sum to less than Q (m/2 edges,
    each ≤ m), so they only break ties of the rest. The lex terms sum to less than K^block (at
    most one edge per i < block, below m · K^(block−1−i); in all below
    m · K^(block−1) · K/(K−1) < K^block), so the cost decides first. Between two perfect
    matchings of equal cost that agree on every edge whose smaller end precedes i, where i
    (< block) takes j1 < j2, the lex difference at i is ≥ K^(block−1−i), while the later smaller
    ends x contribute to either side less than m · K^(block−2−i) · K/(K−1) < K^(block−1−i)
    (K > m + 1): the matching taking j1 weighs more. The near term is a tie-break only: among
    equal (cost, first ``block`` choices) it prefers short edges, which makes the later choices
    of the matching usually the sweep-order ones already (checked, not assumed, by the caller).
    Every weight is below (top + 1) · K^block · Q; see :func:`_block_size` for the budget.
    """
    k = 2 * m + 3
    top = max((c for _, _, c in edges), default=0) + 1
    scale = k**block
    q = m * m // 2 + 1
    powers = [k ** (block - 1 - i) for i in range(block)]
    return [
        (i, j, ((top - c) * scale + ((m - j) * powers[i] if i < block else 0)) * q + m - (j - i))
        for i, j, c in edges
    ]


def _block_size(m: int, top: int) -> int:
    """The most vertices whose order fits in the bit budget next to costs below ``top``."""
    k = 2 * m + 3
    q = m * m // 2 + 1
    block = 0
    while block < m and (top + 1) * k ** (block + 1) * q < WEIGHT_LIMIT:
        block += 1
    return block


def first_min_cost_perfect_matching(n: int, edges: Sequence[tuple[int, int, int]]) -> list[int]:
    """The first perfect matching in vertex order among those of minimum total cost.

    ``edges`` are ``(i, j, cost)``, integer costs ≥ 0. "First in vertex order": vertex 0 takes
    the smallest partner any minimum-cost perfect matching gives it, then the smallest unmatched
    vertex does the same among the minimum-cost perfect matchings that keep the pairs chosen so
    far, and so on. Raises :class:`NoPerfectMatching` when there is none.

    Method (exact, compiled solver in every step). Invariant: ``mate`` restricted to the
    unsettled vertices R is a minimum-cost perfect matching of R, and the settled pairs are a
    prefix of the answer (so the minimum-cost matchings extending them are exactly the settled
    pairs plus a minimum-cost matching of R). Each solve is on R with the weights of
    :func:`lexicographic_weights`, so it settles the first vertices of R that fit the bit
    budget. Then the smallest vertex i of R keeps ``mate[i]`` without a new solve whenever no
    vertex of R strictly between i and ``mate[i]`` is adjacent to i (no smaller partner exists
    at all); otherwise R is solved again, ordering from i.
    """
    adjacency: list[dict[int, int]] = [{} for _ in range(n)]
    for i, j, c in edges:
        if i == j:
            continue
        if c < 0:
            raise ValueError("costs must be >= 0")
        a, b = (i, j) if i < j else (j, i)
        old = adjacency[a].get(b)
        if old is None or c < old:
            adjacency[a][b] = c
            adjacency[b][a] = c
    settled = [False] * n
    mate = [-1] * n
    first = 0  # every vertex before ``first`` is settled
    need_solve = True
    while True:
        while first < n and settled[first]:
            first += 1
        if first == n:
            return mate
        i = first
        if not need_solve:
            partner = mate[i]
            disputed = any(not settled[j] and i < j < partner for j in adjacency[i] if j < partner)
            if not disputed:
                settled[i] = settled[partner] = True
                continue
        # Solve on R (the unsettled vertices, in order), ordering the first ones.
        rest = [v for v in range(i, n) if not settled[v]]
        local = {v: k for k, v in enumerate(rest)}
        sub: list[tuple[int, int, int]] = []
        for v in rest:
            lv = local[v]
            for w, c in adjacency[v].items():
                lw = local.get(w)
                if lw is not None and lv < lw:
                    sub.append((lv, lw, c))
        m = len(rest)
        top = max((c for _, _, c in sub), default=0) + 1
        block = _block_size(m, top)
        if block == 0:
            raise WeightOverflow(f"costs up to {top} leave no room to order {m} vertices")
        weighted = lexicographic_weights(m, block, sub)
        local_mate = max_weight_matching(m, weighted, maxcardinality=True)
        if any(x == -1 for x in local_mate):
            raise NoPerfectMatching(f"no perfect matching of {m} vertices")
        for lv, lw in enumerate(local_mate):
            mate[rest[lv]] = rest[lw]
        # The first ``block`` vertices of R are settled by the lexicographic weights: each of
        # them that is the smaller end of its pair took its smallest possible partner.
        for lv in range(min(block, m)):
            v = rest[lv]
            if not settled[v]:
                settled[v] = settled[mate[v]] = True
        need_solve = False
