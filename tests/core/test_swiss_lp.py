"""pairing.matching_lp: the LP optimum and its exact certificate, against brute force; and the
engine with the certificate against the engine without it (issue 17)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import matching_lp, swiss_exact
from pairing.matching_lp import certified_optimum
from pairing.swiss import PairingError, SwissOptions, pair_round
from tests.support.fields import adversarial_field, random_field, simulate_field
from tests.support.reference import check_draw, perfect_matchings


def _graphs() -> st.SearchStrategy[tuple[int, dict[tuple[int, int], int], list[int]]]:
    def build(n: int) -> st.SearchStrategy[tuple[int, dict[tuple[int, int], int], list[int]]]:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        return st.tuples(
            st.just(n),
            st.dictionaries(st.sampled_from(pairs), st.integers(0, 3), min_size=n // 2),
            st.lists(st.sampled_from(range(1, n, 2)), unique=True),
        )

    return st.sampled_from([2, 4, 6, 8, 10]).flatmap(build)


@settings(max_examples=250, deadline=None)
@given(_graphs())
def test_a_certified_optimum_is_optimal_and_its_tight_graph_holds_exactly_the_optima(
    graph: tuple[int, dict[tuple[int, int], int], list[int]],
) -> None:
    n, cost, prefixes = graph
    edges = sorted((i, j, c) for (i, j), c in cost.items())
    every = perfect_matchings(n, cost)
    proof = certified_optimum(n, edges, prefixes)
    if not every:
        assert proof is None
        return
    if proof is None:
        return  # nothing claimed (the engine then solves without the LP)
    mate, tight, cuts = proof
    low = min(total for total, _ in every)
    assert sum(cost[(v, mate[v])] for v in range(n) if v < mate[v]) == low
    # The optima are exactly the perfect matchings of the tight graph of least c'.
    reduced = {(i, j): c for i, j, c in tight}
    on_tight = perfect_matchings(n, reduced)
    least = min(total for total, _ in on_tight)
    optima = sorted(m for total, m in every if total == low)
    assert sorted(m for total, m in on_tight if total == least) == optima
    # Every optimum crosses each of the cuts by exactly one edge.
    assert set(cuts) <= set(prefixes)
    for m in optima:
        assert all(sum(1 for v in range(k) if m[v] >= k) == 1 for k in cuts)


def test_most_small_graphs_are_certified() -> None:
    # The LP with odd-component cuts proves nearly every random instance; a certificate that
    # never succeeds would pass the test above and help nobody.
    rng = random.Random(3)
    proved = tried = 0
    for _ in range(200):
        n = rng.choice([6, 8, 10, 12])
        cost = {
            (i, j): rng.randint(0, 4)
            for i, j in itertools.combinations(range(n), 2)
            if rng.random() < 0.6
        }
        edges = sorted((i, j, c) for (i, j), c in cost.items())
        if not perfect_matchings(n, cost):
            continue
        tried += 1
        proved += certified_optimum(n, edges, []) is not None
    assert proved >= 0.9 * tried


def test_no_perfect_matching_proves_nothing() -> None:
    assert certified_optimum(4, [(0, 1, 0), (0, 2, 0), (0, 3, 0)], []) is None
    triangles = sorted([(0, 1, 1), (1, 2, 1), (0, 2, 1), (3, 4, 1), (4, 5, 1)])
    assert certified_optimum(6, triangles, []) is None


def test_the_exact_check_refuses_a_dearer_matching_and_a_wrong_dual() -> None:
    # A 4-cycle 0-1-2-3 with one cheap perfect matching (0-1, 2-3) and one dear (0-3, 1-2).
    edges = [(0, 1, 0), (0, 3, 5), (1, 2, 5), (2, 3, 0)]
    lp = matching_lp._Programme(4, edges, [])
    lp.add_columns(np.arange(4))
    lp.highs.run()
    dual = np.asarray(lp.highs.getSolution().row_dual, dtype=float)
    cheap = lp.edges_of([1, 0, 3, 2])
    dear = lp.edges_of([3, 2, 1, 0])
    assert cheap is not None and dear is not None
    assert lp.certify(cheap, dual) is not None
    assert lp.certify(dear, dual) is None
    assert matching_lp.last_failure == "objectives differ"
    wrong = dual.copy()
    wrong[0] += 1.0  # vertex 0's dual too high: its edges' reduced costs go negative
    assert lp.certify(cheap, wrong) is None
    assert matching_lp.last_failure == "dual infeasible"
    assert lp.certify(cheap, dual + 0.25) is None
    assert matching_lp.last_failure == "duals off the half-integers"


@pytest.mark.parametrize("block", [1, 5, 1 << 16])
def test_pricing_and_the_check_a_block_of_edges_at_a_time_see_every_edge(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    # ``priced`` and ``certify`` walk the edges a block at a time: the reduced costs, the
    # negative ones and the tight edges must be those of the whole-array expressions, odd-set
    # cuts included, whatever the block, the blocks on threads (from 0 edges on here).
    monkeypatch.setattr(matching_lp, "_PRICE_BLOCK", block)
    monkeypatch.setattr(matching_lp, "_THREADED_FROM", 0)
    rng = random.Random(block)
    n = 12
    edges = sorted(
        (i, j, rng.randrange(6)) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.6
    )
    lp = matching_lp._Programme(n, edges, [3, 7])
    lp.add_columns(np.asarray([0, 5]))  # edges in the programme are not priced
    member = np.zeros(n, dtype=bool)
    member[[0, 4, 9]] = True
    lp.sets.append(member)
    dual = np.asarray([rng.choice([0.0, 1.0, 1.5, 2.5, 3.0]) for _ in range(n + 3)])
    dual[n:] = np.abs(dual[n:])
    dual[n + 2] = 1.5  # the odd set's: it counts
    whole = lp.cost - dual[lp.ei] - dual[lp.ej] - lp.crossing(dual[n:])
    want = np.nonzero((whole < -1e-6) & ~lp.in_lp)[0]
    found, values = lp.priced(dual)
    assert found.tolist() == want.tolist() and values.tolist() == whole[want].tolist()
    # An exact check that passes: duals of 0, the matching of the first edges of cost 0.
    zero = [(i, j, 0) for i in range(n) for j in range(i + 1, n)]
    check = matching_lp._Programme(n, zero, [3, 7])
    picked = check.edges_of([1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10])
    proof = check.certify(picked, np.zeros(n + 2))
    assert proof is not None
    assert proof.tight.tolist() == [[i, j, 0] for i, j, _ in zero]  # every edge is tight


def test_bad_input_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError):
        certified_optimum(4, [(1, 0, 1), (2, 3, 1)], [])
    with pytest.raises(ValueError):
        certified_optimum(4, [(0, 1, 1), (2, 3, 1)], [2])
    # The edges are checked a block at a time: an order broken between two blocks is seen.
    monkeypatch.setattr(matching_lp, "_PRICE_BLOCK", 2)
    with pytest.raises(ValueError):
        certified_optimum(6, [(0, 1, 1), (2, 3, 1), (1, 2, 1), (4, 5, 1)], [])
    with pytest.raises(ValueError):
        certified_optimum(6, [(0, 1, 1), (2, 3, 1), (4, 5, -1)], [])


def test_the_edges_of_a_matching_are_found_among_the_edges_of_their_smaller_end() -> None:
    edges = [(0, 1, 1), (0, 3, 2), (1, 2, 1), (1, 3, 5), (2, 3, 1), (2, 5, 1), (4, 5, 1)]
    lp = matching_lp._Programme(6, edges, [])
    assert lp.edges_of([3, 2, 1, 0, 5, 4]).tolist() == [1, 2, 6]
    assert lp.edges_of([1, 0, 3, 2, 5, 4]).tolist() == [0, 4, 6]
    assert lp.edges_of([2, 3, 0, 1, 5, 4]) is None  # 0–2 is no edge (0's are 0–1, 0–3)
    assert lp.edges_of([5, 2, 1, 4, 3, 0]) is None  # 0–5 lies beyond 0's last edge
    assert lp.edges_of([1, 0, 3, 2, -1, -1]) is None  # not perfect


def _tables(pairs, round_number):
    draw = pair_round(pairs, round_number, SwissOptions(), random.Random(1))
    return draw, sorted(tuple(sorted((t.ns, t.ew))) for t in draw.tables)


@pytest.mark.parametrize(
    ("kind", "n", "round_number"),
    [
        ("adversarial", 60, 9),
        ("adversarial", 120, 10),
        ("adversarial", 200, 9),
        ("units", 120, 6),  # two units, one holding two thirds
        ("units", 40, 9),
        ("rematch", 16, 10),
        ("random", 90, 7),
        ("random", 150, 8),
    ],
)
def test_the_engine_gives_the_same_tables_with_and_without_the_certificate(
    kind: str, n: int, round_number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rule (4) on fields too big for the lexicographic networkx reference: the tight-graph path
    # must give exactly the tables of the compiled-blossom path (tested against the reference
    # on small fields), and the cost of the reference.
    if kind == "adversarial":
        pairs = adversarial_field(n, 8, 1)
    elif kind == "units":
        pairs = simulate_field(n, round_number - 1, 2, 1)
    elif kind == "rematch":
        pairs = simulate_field(n, round_number - 1, 4, 1)
    else:
        pairs = random_field(random.Random(n), n, 8, 3)
    used: list[bool] = []
    real = swiss_exact.certified_optimum

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        used.append(result is not None)
        return result

    monkeypatch.setattr(swiss_exact, "certified_optimum", spy)
    try:
        draw, with_lp = _tables(pairs, round_number)
    except PairingError as exc:
        assert exc.code == "no_pairing_without_rematch"
        return
    assert check_draw(pairs, draw, SwissOptions()) == []
    monkeypatch.setattr(swiss_exact, "certified_optimum", lambda *args, **kwargs: None)
    assert _tables(pairs, round_number)[1] == with_lp
    if kind == "adversarial":
        assert any(used)  # the certificate did the work here
