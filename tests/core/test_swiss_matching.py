"""pairing.matching: the compiled matching, its bit budget and the first minimum-cost perfect
matching in vertex order, against brute force on small graphs (issue 17)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import matching
from pairing.matching import (
    WEIGHT_LIMIT,
    NoPerfectMatching,
    WeightOverflow,
    first_min_cost_perfect_matching,
    max_weight_matching,
)
from tests.support.reference import perfect_matchings

ROOT = Path(__file__).resolve().parents[2]


def _brute_first(n: int, cost: dict[tuple[int, int], int]) -> list[int] | None:
    """The first minimum-cost perfect matching in vertex order, by enumerating them all."""
    best = perfect_matchings(n, cost)
    if not best:
        return None
    low = min(total for total, _ in best)

    def key(mate: list[int]) -> list[int]:
        return [mate[v] for v in range(n) if mate[v] > v]

    return min((m for total, m in best if total == low), key=key)


def _graphs() -> st.SearchStrategy[tuple[int, dict[tuple[int, int], int]]]:
    def build(n: int) -> st.SearchStrategy[tuple[int, dict[tuple[int, int], int]]]:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        return st.tuples(
            st.just(n),
            st.dictionaries(st.sampled_from(pairs), st.integers(0, 2), min_size=n // 2),
        )

    return st.sampled_from([2, 4, 6, 8, 10]).flatmap(build)


@settings(max_examples=200, deadline=None)
@given(_graphs(), st.sampled_from([0, 1, 14]), st.booleans(), st.booleans())
def test_first_min_cost_perfect_matching_equals_brute_force(
    graph: tuple[int, dict[tuple[int, int], int]], cap: int, swaps: bool, one: bool
) -> None:
    # cap 0: no solve certifies anything with the rank cap, so the uncapped solve must; cap 1:
    # most partners are beyond the cap. Without swaps every dispute is settled by a solve; with
    # ``one`` a solve settles one vertex only, so the rest goes through disputes and swaps.
    n, cost = graph
    old = matching._RANK_CAP, matching._swap_in, matching._block_size, matching._swap_in_weighted
    matching._RANK_CAP = cap
    if not swaps:
        matching._swap_in = lambda *args: False  # type: ignore[assignment]
        matching._swap_in_weighted = lambda *args: False  # type: ignore[assignment]
    if one:
        matching._block_size = lambda m, top, cap: 1  # type: ignore[assignment]
    try:
        expected = _brute_first(n, cost)
        edges = [(i, j, c) for (i, j), c in cost.items()]
        if expected is None:
            with pytest.raises(NoPerfectMatching):
                first_min_cost_perfect_matching(n, edges)
        else:
            assert first_min_cost_perfect_matching(n, edges) == expected
    finally:
        (
            matching._RANK_CAP,
            matching._swap_in,
            matching._block_size,
            matching._swap_in_weighted,
        ) = old


@pytest.mark.parametrize(("seed", "one"), [(17, False), (17, True), (18, True), (19, True)])
def test_first_matching_on_a_bigger_random_graph_equals_the_networkx_lexicographic_optimum(
    seed: int, one: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 40 vertices, dense, costs 0..3 with many ties: an exponential lexicographic weight through
    # networkx (Python integers) is the reference. With ``one`` each solve settles one vertex,
    # so the disputes and the equal-cost swaps (4- and 6-cycles) do most of the work.
    if one:
        monkeypatch.setattr(matching, "_block_size", lambda m, top, cap: 1)
    rng = random.Random(seed)
    n = 40
    cost = {
        (i, j): rng.randint(0, 3) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.6
    }
    k = n * n + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    weights = {(i, j): c * k ** (n + 1) + j * k ** (n - 1 - i) for (i, j), c in cost.items()}
    top = max(weights.values()) + 1
    graph.add_weighted_edges_from((i, j, top - w) for (i, j), w in weights.items())
    ref = nx.max_weight_matching(graph, maxcardinality=True)
    expected = [-1] * n
    for a, b in ref:
        expected[a], expected[b] = b, a
    assert -1 not in expected
    got = first_min_cost_perfect_matching(n, [(i, j, c) for (i, j), c in cost.items()])
    assert got == expected


def test_weights_at_the_limit_are_refused_not_truncated() -> None:
    with pytest.raises(WeightOverflow):
        max_weight_matching(2, [(0, 1, WEIGHT_LIMIT)])
    with pytest.raises(WeightOverflow):
        max_weight_matching(2, [(0, 1, -1)])
    with pytest.raises(WeightOverflow):  # the array form (64-bit rows) too
        max_weight_matching(3, np.asarray([[0, 1, 5], [1, 2, -1]], dtype=np.int64))
    assert max_weight_matching(3, np.asarray([[0, 1, 5], [1, 2, 6]], dtype=np.int64)) == [-1, 2, 1]


def test_weights_just_below_the_limit_are_exact() -> None:
    # Two matchings whose weights differ only in the lowest bit, near the top of the budget.
    big = WEIGHT_LIMIT - 8
    edges = [(0, 1, big), (2, 3, big), (0, 2, big), (1, 3, big + 1)]
    assert max_weight_matching(4, edges, maxcardinality=True) == [2, 3, 0, 1]


def test_no_perfect_matching_is_an_error() -> None:
    with pytest.raises(NoPerfectMatching):
        first_min_cost_perfect_matching(4, [(0, 1, 0), (0, 2, 0), (0, 3, 0)])


def test_the_matching_code_has_no_recursion_and_no_global_limits() -> None:
    # Issue 17: the old blossom recursed once per level of blossom nesting and raised the global
    # recursion limit. Neither the matching module nor the engine may do either.
    for name in (
        "pairing/matching.py",
        "pairing/matching_lp.py",
        "pairing/swiss.py",
        "pairing/swiss_exact.py",
    ):
        source = (ROOT / name).read_text(encoding="utf-8")
        assert "setrecursionlimit" not in source
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                calls = {
                    sub.func.id
                    for sub in ast.walk(node)
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                }
                assert node.name not in calls, f"{name}: {node.name} calls itself"


def _all_perfect(n: int, edges: set[tuple[int, int]], keep: list[int]) -> list[list[int]]:
    """Every perfect matching of the vertices ``keep`` on ``edges`` (pairs (i, j), i < j)."""
    out: list[list[int]] = []

    def extend(mate: list[int], free: list[int]) -> None:
        if not free:
            out.append(list(mate))
            return
        i = free[0]
        for j in free[1:]:
            if (min(i, j), max(i, j)) in edges:
                mate[i], mate[j] = j, i
                extend(mate, [v for v in free if v not in (i, j)])
                mate[i] = mate[j] = -1

    extend([-1] * n, keep)
    return out


@settings(max_examples=300, deadline=None)
@given(_graphs(), st.integers(0, 10))
def test_partners_possible_are_exactly_the_partners_of_some_perfect_matching(
    graph: tuple[int, dict[tuple[int, int], int]], settle: int
) -> None:
    # The exclusion proof of rule (4) (issue 17): one Edmonds search from i's partner labels
    # *outer* exactly the j that some perfect matching of the unsettled vertices pairs with i
    # (Gallai–Edmonds); an excluded j is then skipped without a solve. Brute force decides.
    n, cost = graph
    edges = set(cost)
    everything = _all_perfect(n, edges, list(range(n)))
    if not everything:
        return
    mate = everything[len(everything) // 2]
    # Settle one of mate's pairs (when ``settle`` names a vertex), as the caller would.
    settled = [False] * n
    if settle < n:
        settled[settle] = settled[mate[settle]] = True
    rest = [v for v in range(n) if not settled[v]]
    adjacency: list[dict[int, int]] = [{} for _ in range(n)]
    for (i, j), c in cost.items():
        adjacency[i][j] = adjacency[j][i] = c
    matchings = _all_perfect(n, edges, rest)
    for i in rest:
        reach, inner = matching._partners_possible(adjacency, mate, settled, i)
        possible = {m[i] for m in matchings}
        # A search run to its end gives a tight barrier B = inner ∪ {i}: no perfect matching of
        # R pairs two of its vertices, and none of R − {x, y} does either after a pair x–y of
        # some perfect matching of R is settled (rule (4) keeps using it: see the caller).
        assert inner is not None
        barrier = {i, *inner}
        for m in matchings:
            assert not any(m[x] in barrier for x in barrier), (i, sorted(barrier))
        for m in matchings[:3]:
            for x in rest:
                left = [v for v in rest if v not in (x, m[x])]
                for m2 in _all_perfect(n, edges, left):
                    assert not any(m2[v] in barrier for v in barrier & set(left))
        # Every neighbour j but i's own partner: outer exactly when some matching pairs i, j.
        neighbours = [j for j in rest if j in adjacency[i] and j != mate[i]]
        for j in neighbours:
            assert reach[j] == (j in possible), (i, j)
        # Asked about some of them only, the search may stop early: their answers are exact.
        for targets in (neighbours[:1], neighbours[1:], neighbours[::2]):
            reach, _ = matching._partners_possible(adjacency, mate, settled, i, targets)
            for j in targets:
                assert reach[j] == (j in possible), (i, j, targets)


@settings(max_examples=300, deadline=None)
@given(_graphs(), st.randoms(use_true_random=False))
def test_augmenting_paths_make_a_matching_perfect_exactly_when_the_graph_has_one(
    graph: tuple[int, dict[tuple[int, int], int]], rnd: random.Random
) -> None:
    # The window's rounding (issue 17): from any matching, Edmonds' augmenting paths reach a
    # perfect matching of the graph when it has one (networkx's maximum matching decides), and
    # say False otherwise, leaving a valid matching.
    n, cost = graph
    edges = list(cost)
    rnd.shuffle(edges)
    mate = [-1] * n
    for i, j in edges:  # a random maximal matching to start from
        if mate[i] == -1 and mate[j] == -1 and rnd.random() < 0.7:
            mate[i], mate[j] = j, i
    start = list(mate)
    adjacency: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        adjacency[i].append(j)
        adjacency[j].append(i)
    reference = nx.Graph(edges)
    reference.add_nodes_from(range(n))
    perfect = 2 * len(nx.max_weight_matching(reference, maxcardinality=True)) == n
    assert matching.augment_to_perfect(adjacency, mate) == perfect
    for v in range(n):
        if mate[v] != -1:
            assert mate[mate[v]] == v and (min(v, mate[v]), max(v, mate[v])) in cost
    if perfect:
        assert -1 not in mate
    # Every vertex matched at the start stays matched (augmenting paths only add vertices).
    assert all(mate[v] != -1 for v in range(n) if start[v] != -1)


def test_augmenting_paths_go_through_odd_cycles() -> None:
    # 0 and 3 unmatched, 1-2 matched. From 0 the search reaches 1 first, as an inner vertex;
    # only the odd cycle 0-1-2 shrunk to a blossom makes 1 outer, so that its edge to 3 gives
    # the augmenting path 0-2=1-3. A search without blossoms finds none.
    adjacency = [[1, 2], [0, 2, 3], [0, 1], [1]]
    mate = [-1, 2, 1, -1]
    assert matching.augment_to_perfect(adjacency, mate)
    assert mate == [2, 3, 0, 1]


@settings(max_examples=300, deadline=None)
@given(_graphs(), st.booleans())
def test_first_matching_from_the_last_optimum_equals_brute_force(
    graph: tuple[int, dict[tuple[int, int], int]], swaps: bool
) -> None:
    # Start from the *last* minimum-cost perfect matching in vertex order (as a proven optimum,
    # the way the LP certificate hands one over): every vertex then has smaller candidates, so
    # the exclusion proofs, the equal-cost swaps and the solves all decide something.
    n, cost = graph
    everything = _all_perfect(n, set(cost), list(range(n)))
    if not everything:
        return

    def total(mate: list[int]) -> int:
        return sum(cost[(v, mate[v])] for v in range(n) if v < mate[v])

    low = min(total(m) for m in everything)
    optima = [m for m in everything if total(m) == low]
    last = max(optima, key=lambda m: [m[v] for v in range(n) if m[v] > v])
    edges = [(i, j, c) for (i, j), c in cost.items()]
    with pytest.MonkeyPatch.context() as patch:
        if not swaps:
            patch.setattr(matching, "_swap_in", lambda *args: False)
            patch.setattr(matching, "_swap_in_weighted", lambda *args: False)
        got = first_min_cost_perfect_matching(n, edges, initial=last)
    assert got == _brute_first(n, cost)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_adjacency_of_sorted_edges_is_that_of_any_order(data: st.DataObject) -> None:
    # Edges given (i, j) with i < j, sorted, without repeats are taken as they are; the same
    # edges shuffled, turned round, repeated at a dearer cost or with a self-loop go through the
    # sort: both must give the same neighbours, costs and order (the searches walk it).
    n = data.draw(st.integers(2, 9))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = data.draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    costs = data.draw(st.lists(st.integers(0, 5), min_size=len(chosen), max_size=len(chosen)))
    edges = sorted((i, j, c) for (i, j), c in zip(chosen, costs, strict=True))
    messy = [(j, i, c) if k % 2 else (i, j, c) for k, (i, j, c) in enumerate(edges)]
    messy += [(i, j, c + 1) for i, j, c in edges[:2]] + [(0, 0, 0)]
    data.draw(st.randoms()).shuffle(messy)
    plain = matching._adjacency(n, np.asarray(edges, dtype=np.int64).reshape(-1, 3))
    sorted_first = matching._adjacency(n, np.asarray(messy, dtype=np.int64).reshape(-1, 3))
    assert [list(d.items()) for d in plain[0]] == [list(d.items()) for d in sorted_first[0]]
    assert plain[1] == sorted_first[1]
