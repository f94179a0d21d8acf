"""The issue-17 speed shortcuts of the exact core, each against brute force or its definition:
the label-correcting equal-cost swap, the linear-programme prover of one candidate partner and
its exact lower bound, the rounded window matching, the numpy window edges and adjacency."""

from __future__ import annotations

import itertools
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import matching
from pairing.matching import first_min_cost_perfect_matching
from pairing.matching_lp import _Programme, certified_optimum, integral_solution, matching_of_cost
from pairing.swiss_exact import _UNIT_REACH, _costed_edges
from pairing.swiss_problem import SwissProblem
from tests.support.fields import adversarial_field, random_field
from tests.support.reference import perfect_matchings

Graph = tuple[int, dict[tuple[int, int], int]]


def _graphs(top: int = 2) -> st.SearchStrategy[Graph]:
    def build(n: int) -> st.SearchStrategy[Graph]:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        return st.tuples(
            st.just(n),
            st.dictionaries(st.sampled_from(pairs), st.integers(0, top), min_size=n // 2),
        )

    return st.sampled_from([4, 6, 8, 10]).flatmap(build)


def _optimum(n: int, cost: dict[tuple[int, int], int], last: bool = False) -> list[int] | None:
    """The first (or ``last``) minimum-cost perfect matching in vertex order, by enumeration."""
    every = perfect_matchings(n, cost)
    if not every:
        return None
    low = min(total for total, _ in every)
    pick = max if last else min
    return pick(
        (m for total, m in every if total == low),
        key=lambda m: [m[v] for v in range(n) if m[v] > v],
    )


def _brute_first(n: int, cost: dict[tuple[int, int], int]) -> list[int] | None:
    return _optimum(n, cost)


def _last_optimum(n: int, cost: dict[tuple[int, int], int]) -> list[int] | None:
    return _optimum(n, cost, last=True)


@settings(max_examples=300, deadline=None)
@given(_graphs(), st.booleans(), st.booleans())
def test_first_matching_by_weighted_swaps_and_the_prover_equals_brute_force(
    graph: Graph, weighted: bool, prover: bool
) -> None:
    # From the *last* optimum, with the breadth-first swap switched off: every dispute goes to
    # the label-correcting swap (when on), then to the prover (when on, asked at any size), and
    # only then to a solve. A swap accepting a dearer cycle or a wrong "impossible" fails it.
    n, cost = graph
    last = _last_optimum(n, cost)
    if last is None:
        return
    edges = [(i, j, c) for (i, j), c in cost.items()]
    calls = {"weighted": 0, "prover": 0}
    real_weighted = matching._swap_in_weighted

    def counted_weighted(*args: object) -> bool:
        calls["weighted"] += 1
        return real_weighted(*args)  # type: ignore[arg-type]

    def counted_prover(m: int, arr: np.ndarray, target: int) -> list[int] | bool | None:  # type: ignore[type-arg]
        calls["prover"] += 1
        return matching_of_cost(m, arr, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matching, "_swap_in", lambda *args: False)
        patch.setattr(matching, "_PROVE_FROM", 0)
        patch.setattr(matching, "_PROVER_CALLS", n)
        if weighted:
            patch.setattr(matching, "_swap_in_weighted", counted_weighted)
        else:
            patch.setattr(matching, "_swap_in_weighted", lambda *args: False)
        got = first_min_cost_perfect_matching(
            n, edges, initial=last, prover=counted_prover if prover else None
        )
    assert got == _brute_first(n, cost)


def test_the_shortcuts_decide_disputes_on_random_graphs() -> None:
    # Not vacuous: over random graphs started from their last optimum, the weighted swap finds
    # cycles and the prover answers both ways (a matching, and a proved "more expensive").
    rng = random.Random(5)
    swapped = 0
    answers: dict[str, int] = {"match": 0, "none_cheaper": 0}
    real_weighted = matching._swap_in_weighted

    def counted_weighted(*args: object) -> bool:
        nonlocal swapped
        found = real_weighted(*args)  # type: ignore[arg-type]
        swapped += found
        return found

    def counted_prover(m: int, arr: np.ndarray, target: int) -> list[int] | bool | None:  # type: ignore[type-arg]
        answer = matching_of_cost(m, arr, target)
        if isinstance(answer, list):
            answers["match"] += 1
        elif answer is False:
            answers["none_cheaper"] += 1
        return answer

    for _ in range(200):
        n = rng.choice([6, 8, 10])
        cost = {
            (i, j): rng.randint(0, 2)
            for i in range(n)
            for j in range(i + 1, n)
            if rng.random() < 0.6
        }
        last = _last_optimum(n, cost)
        if last is None:
            continue
        edges = [(i, j, c) for (i, j), c in cost.items()]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(matching, "_swap_in", lambda *args: False)
            patch.setattr(matching, "_PROVE_FROM", 0)
            patch.setattr(matching, "_PROVER_CALLS", n)
            patch.setattr(matching, "_swap_in_weighted", counted_weighted)
            assert first_min_cost_perfect_matching(
                n, edges, initial=last, prover=counted_prover
            ) == _brute_first(n, cost)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(matching, "_swap_in", lambda *args: False)
            patch.setattr(matching, "_PROVE_FROM", 0)
            patch.setattr(matching, "_PROVER_CALLS", n)
            patch.setattr(matching, "_swap_in_weighted", lambda *args: False)
            assert first_min_cost_perfect_matching(
                n, edges, initial=last, prover=counted_prover
            ) == _brute_first(n, cost)
    assert swapped >= 20
    assert answers["match"] >= 20
    assert answers["none_cheaper"] >= 20


@settings(max_examples=300, deadline=None)
@given(_graphs(top=3), st.integers(-2, 2))
def test_matching_of_cost_never_claims_wrongly(graph: Graph, shift: int) -> None:
    n, cost = graph
    every = perfect_matchings(n, cost)
    if not cost:
        return
    low = min((total for total, _ in every), default=None)
    target = (low if low is not None else 0) + shift
    edges = np.asarray(sorted((i, j, c) for (i, j), c in cost.items()), dtype=np.int64)
    answer = matching_of_cost(n, edges, target)
    if answer is False:
        assert low is None or low > target
    elif answer is not None:
        assert isinstance(answer, list)
        assert all(
            answer[answer[v]] == v and (min(v, answer[v]), max(v, answer[v])) in cost
            for v in range(n)
        )
        assert sum(cost[(v, answer[v])] for v in range(n) if v < answer[v]) == target


@settings(max_examples=300, deadline=None)
@given(_graphs(top=3), st.integers(0, 2**32 - 1))
def test_the_lower_bound_holds_for_any_dual(graph: Graph, seed: int) -> None:
    # The bound is repaired from *any* floating dual (here random ones, far from optimal, and
    # random odd sets), so it must stay below every perfect matching's cost.
    n, cost = graph
    every = perfect_matchings(n, cost)
    if not every or not cost:
        return
    rng = np.random.default_rng(seed)
    edges = np.asarray(sorted((i, j, c) for (i, j), c in cost.items()), dtype=np.int64)
    prefixes = [k for k in range(1, n, 2) if rng.random() < 0.5]
    lp = _Programme(n, edges, prefixes)
    dual = rng.normal(0.5, 2.0, size=n + len(prefixes))
    assert lp.lower_bound(dual) <= min(total for total, _ in every)


def test_the_lower_bound_of_the_optimal_dual_is_the_optimum() -> None:
    # Control for the test above: the bound is not vacuous — from the LP's optimal dual on a
    # bipartite-like graph it is the optimum itself.
    edges = np.asarray([(0, 1, 3), (0, 3, 1), (1, 2, 1), (2, 3, 5)], dtype=np.int64)
    assert matching_of_cost(4, edges, 1) is False  # the optimum is 2: 0–3 and 1–2
    answer = matching_of_cost(4, edges, 2)
    assert answer == [3, 2, 1, 0]


@settings(max_examples=200, deadline=None)
@given(_graphs(top=3))
def test_the_rounded_window_solution_is_a_perfect_matching(graph: Graph) -> None:
    n, cost = graph
    every = perfect_matchings(n, cost)
    if not cost:
        return
    edges = np.asarray(sorted((i, j, c) for (i, j), c in cost.items()), dtype=np.int64)
    mate = integral_solution(n, edges, [], 10)
    if mate is None:
        return
    assert every
    assert all(mate[mate[v]] == v and (min(v, mate[v]), max(v, mate[v])) in cost for v in range(n))


def test_the_rounding_repairs_an_odd_cycle_of_halves() -> None:
    # Two triangles at one half each, and 6–7 at 1: the six vertices of the triangles cannot
    # be paired among themselves, so the rounding must go through 6 and 7 too (2–6, 7–3): an
    # augmenting path along the dearer edges once the tight ones have none.
    edges = np.asarray(
        [
            (0, 1, 0),
            (0, 2, 0),
            (1, 2, 0),
            (2, 6, 9),
            (3, 4, 0),
            (3, 5, 0),
            (3, 7, 9),
            (4, 5, 0),
            (6, 7, 0),
        ],
        dtype=np.int64,
    )
    lp = _Programme(8, edges, [])
    lp.add_columns(np.arange(len(edges)))
    x = np.zeros(lp.highs.getNumCol())
    columns = np.asarray(lp.columns)
    for e in (0, 1, 2, 4, 5, 7):
        x[np.nonzero(columns == e)[0]] = 0.5
    x[np.nonzero(columns == 8)[0]] = 1.0
    mate = lp.rounded(x, np.zeros(lp.highs.getNumRow()))
    assert mate is not None
    assert mate[2] == 6 and mate[3] == 7 and mate[0] == 1 and mate[4] == 5


def _costed_by_definition(problem: SwissProblem, big_a: int, width: int) -> list[list[int]]:
    """The window edges, one pair at a time (docs/pairing.md, "Exact core", step 1)."""
    n = problem.n
    out = []
    for i in range(n):
        end = min(n, i + width + 1)
        targets = set(range(i + 1, end))
        if width < n:
            for u in {x for x in problem.unit if x >= 0}:
                taken = 0
                for j in range(end, n):
                    if problem.unit[j] == u and j not in problem.bad[i]:
                        targets.add(j)
                        taken += 1
                        if taken == _UNIT_REACH:
                            break
        for j in sorted(targets):
            if j not in problem.bad[i]:
                same = problem.avoid and problem.unit[i] == problem.unit[j]
                out.append([i, j, abs(problem.cf[i] - problem.cf[j]) + (big_a if same else 0)])
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("width", [2, 24, 1000])
def test_window_edges_equal_the_definition(seed: int, width: int) -> None:
    rng = random.Random(seed)
    if seed < 6:
        field = random_field(rng, rng.randint(4, 70), 12, 8)
    else:
        field = adversarial_field(60 * (seed - 5), 8, seed)
    order = sorted(field, key=lambda p: (-p.match_points, p.rank, p.id))
    if len(order) % 2:
        order = order[:-1]
    for avoid in (True, False):
        problem = SwissProblem(order, avoid)
        got = _costed_edges(problem, 1000, width).tolist()
        assert got == _costed_by_definition(problem, 1000, width)


def test_adjacency_keeps_the_cheapest_of_parallel_edges_and_drops_loops() -> None:
    edges = [(0, 1, 5), (1, 0, 2), (2, 2, 0), (3, 2, 4), (0, 3, 1), (0, 1, 7)]
    adjacency, later = matching._adjacency(4, edges)
    assert adjacency == [{1: 2, 3: 1}, {0: 2}, {3: 4}, {0: 1, 2: 4}]
    assert later == [[1, 3], [], [3], []]
    with pytest.raises(ValueError, match="costs"):
        matching._adjacency(2, [(0, 1, -1)])


def test_prover_answers_are_checked_not_trusted() -> None:
    # A prover claiming a matching of the wrong cost, or not a matching of the graph, is
    # ignored (the solve decides): the answer stays the brute-force one.
    # 0–1 is in a perfect matching (with 2–3) but a dearer one: asked about it, the liar
    # offers 2–3, a perfect matching of the rest, as if it cost 0 − 5.
    n = 4
    cost = {(0, 1): 5, (0, 2): 0, (1, 3): 0, (2, 3): 0}
    last = _last_optimum(n, cost)
    assert last is not None
    edges = [(i, j, c) for (i, j), c in cost.items()]
    lies: list[bool] = []

    def liar(m: int, arr: np.ndarray, target: int) -> list[int] | None:  # type: ignore[type-arg]
        # A real perfect matching of the graph it is given, but a dearer one than claimed.
        sub = {(int(a), int(b)): int(c) for a, b, c in arr.tolist()}
        dearer = [mate for total, mate in perfect_matchings(m, sub) if total != target]
        lies.append(bool(dearer))
        return dearer[0] if dearer else None

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matching, "_swap_in", lambda *args: False)
        patch.setattr(matching, "_swap_in_weighted", lambda *args: False)
        patch.setattr(matching, "_PROVE_FROM", 0)
        got = first_min_cost_perfect_matching(n, edges, initial=last, prover=liar)
    assert got == _brute_first(n, cost)
    assert any(lies)  # it did lie, and was not believed


@pytest.mark.parametrize("enabled", [True, False])
def test_pair_round_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    import gc

    from pairing.swiss import SwissOptions, pair_round

    field = adversarial_field(60, 8, 1)
    seen: list[bool] = []
    real = matching.first_min_cost_perfect_matching
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with pytest.MonkeyPatch.context() as patch:
            from pairing import swiss_exact

            def spy(*args: object, **kwargs: object) -> list[int]:
                seen.append(gc.isenabled())
                return real(*args, **kwargs)  # type: ignore[arg-type]

            from pairing import swiss

            real_build = swiss._build_draw

            def spy_build(*args: object) -> object:
                seen.append(gc.isenabled())  # the draw's tables too (20,000 pairs: 0.06 s)
                return real_build(*args)  # type: ignore[arg-type]

            patch.setattr(swiss_exact, "first_min_cost_perfect_matching", spy)
            patch.setattr(swiss, "_build_draw", spy_build)
            pair_round(field, 9, SwissOptions(), random.Random(1))
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen and not any(seen)  # paused while pairing


@pytest.mark.parametrize("which", ["adv120", "sim120_2_5"])
def test_a_segment_merged_from_a_hard_one_skips_the_fast_path(which: str) -> None:
    # A pairing reaching a merged segment's bound crosses no boundary (an even cut), so the fast
    # path fails on it whenever it failed on a part: the engine goes straight to the exact core
    # there (800 pairs, 2 units, round 8: 16 s → 0.9 s). Exactness does not depend on it — the
    # tables are the same with the shortcut switched off — and the shortcut is really taken.
    from pairing import swiss_exact
    from pairing.swiss import SwissOptions, pair_round
    from tests.support.fields import simulate_field

    field, rnd = (
        (adversarial_field(120, 8, 2), 9)
        if which == "adv120"
        else (simulate_field(120, 4, 2, 1), 5)
    )
    seen: list[tuple[int, int, bool, bool]] = []  # lo, hi, hard before, hard after
    real = swiss_exact._solve_segment

    def spy(problem: SwissProblem, seg: swiss_exact._Segment, *args: object) -> None:
        before = seg.hard
        try:
            real(problem, seg, *args)  # type: ignore[arg-type]
        finally:
            seen.append((seg.lo, seg.hi, before, seg.hard))

    with pytest.MonkeyPatch.context() as patch:
        # Merged segments must be reached: the whole-field shortcut (tested below) off.
        patch.setattr(swiss_exact, "_WHOLE_WHEN_HARD", False)
        patch.setattr(swiss_exact, "_solve_segment", spy)
        draw = pair_round(field, rnd, SwissOptions(), random.Random(1))
    failed = [(lo, hi) for lo, hi, before, after in seen if after and not before]
    around = [
        before
        for lo, hi, before, _ in seen
        if any(lo <= a and b <= hi and (lo, hi) != (a, b) for a, b in failed)
    ]
    assert around and all(around)  # merged over a failed part: no fast path
    real_merged = swiss_exact._Segment.merged.__func__  # type: ignore[attr-defined]

    def forgetful(cls: type, parts: list[swiss_exact._Segment]) -> swiss_exact._Segment:
        seg = real_merged(cls, parts)
        seg.hard = False
        return seg

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(swiss_exact, "_WHOLE_WHEN_HARD", False)
        patch.setattr(swiss_exact._Segment, "merged", classmethod(forgetful))
        again = pair_round(field, rnd, SwissOptions(), random.Random(1))
    assert [(t.ns, t.ew) for t in draw.tables] == [(t.ns, t.ew) for t in again.tables]


@pytest.mark.parametrize(
    ("kind", "n", "extra", "rnd"),
    [
        ("adv", 120, 2, 9),
        ("adv", 300, 1, 9),
        ("adv", 400, 3, 9),
        ("sim", 120, 2, 5),
        ("sim", 200, 2, 6),
        ("sim", 200, 4, 5),
    ],
)
def test_hard_segments_over_half_the_field_go_to_the_whole_field(
    kind: str, n: int, extra: int, rnd: int
) -> None:
    # When the segments the fast path fails on hold more than half the field, the engine skips
    # their exact solves and goes to the whole-field exact core (5,000 adversarial pairs: the
    # two 1,374-pair hard segments' ≈ 11 s were thrown away when they merged). Exactness does
    # not depend on it: the tables are the same with the shortcut switched off, and where the
    # shortcut is taken the whole field is really solved in one piece.
    from pairing import swiss_exact
    from pairing.swiss import SwissOptions, pair_round
    from tests.support.fields import simulate_field

    # extra: the adversarial field's seed, or the simulated field's number of units
    field = (
        adversarial_field(n, 8, extra) if kind == "adv" else simulate_field(n, rnd - 1, extra, 1)
    )
    sizes: list[int] = []
    real = swiss_exact.exact_blossom

    def spy(problem: SwissProblem, *args: object) -> list[int]:
        sizes.append(problem.n)
        return real(problem, *args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(swiss_exact, "exact_blossom", spy)
        draw = pair_round(field, rnd, SwissOptions(), random.Random(1))
        taken = list(sizes)
        sizes.clear()
        patch.setattr(swiss_exact, "_WHOLE_WHEN_HARD", False)
        again = pair_round(field, rnd, SwissOptions(), random.Random(1))
    assert [(t.ns, t.ew) for t in draw.tables] == [(t.ns, t.ew) for t in again.tables]
    if kind == "adv":  # taken: fewer exact solves, the last one on the whole field
        assert taken[-1] == sizes[-1] == 2 * len(draw.tables)
        assert len(taken) < len(sizes)


def _leveled_graph(rng: random.Random) -> tuple[int, dict[tuple[int, int], int], list[int]]:
    """A small Swiss-like graph: vertices in non-decreasing levels, the cost of an edge its level
    gap (plus 0–1), some edges missing (rematches), the odd level boundaries as prefixes."""
    n = rng.choice([8, 10, 12])
    level = sorted(rng.randint(0, 4) for _ in range(n))
    cost = {
        (i, j): level[j] - level[i] + rng.randint(0, 1)
        for i, j in itertools.combinations(range(n), 2)
        if rng.random() < 0.55
    }
    prefixes = [k for k in range(1, n, 2) if level[k - 1] != level[k]]
    return n, cost, prefixes


def test_the_cut_exclusion_never_excludes_a_partner_of_an_optimum() -> None:
    # Rule (4) on certified tight graphs with the prefixes every optimum crosses once: equal to
    # brute force, with the weighted swap off so that every candidate the cut proof leaves
    # goes to a solve. A cut proof excluding a partner some optimum gives would change the
    # answer; it must also exclude some (else it is not being tried).
    rng = random.Random(5)
    excluded = compared = 0
    real = matching._beside_cut

    def counting(*args: Any) -> list[bool]:
        nonlocal excluded
        beside = real(*args)
        _, later, _, _, i, _, partner, first = args
        excluded += sum(1 for j in later[i] if first <= j < partner and not beside[j])
        return beside

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matching, "_beside_cut", counting)
        patch.setattr(matching, "_swap_in_weighted", lambda *args: False)
        for _ in range(600):
            n, cost, prefixes = _leveled_graph(rng)
            if not perfect_matchings(n, cost):
                continue
            edges = sorted((i, j, c) for (i, j), c in cost.items())
            proof = certified_optimum(n, edges, prefixes)
            if proof is None or not proof.cuts:
                continue
            compared += 1
            got = first_min_cost_perfect_matching(
                n, proof.tight, initial=proof.mate, cuts=proof.cuts
            )
            assert got == _brute_first(n, cost), (n, cost, prefixes)
    assert compared >= 100
    assert excluded > 0


def test_cuts_not_crossed_once_are_refused() -> None:
    edges = [(0, 1, 0), (2, 3, 0), (1, 2, 1), (0, 3, 1)]
    with pytest.raises(ValueError, match="cut"):
        first_min_cost_perfect_matching(4, edges, initial=[1, 0, 3, 2], cuts=[1, 2])


@pytest.mark.parametrize("units", [2, 4, 30])
def test_the_fast_path_gives_up_after_its_work_budget_and_nothing_changes(units: int) -> None:
    # The fast path counts the candidate partners it looks at and gives up when they run out
    # (a 712-pair segment once scanned 25,000 per pair for 14.6 s before failing). Giving up
    # only hands the segment to the exact core: with no work allowed at all it gives up
    # everywhere, and every round's tables are the same.
    from pairing import swiss_exact, swiss_fast
    from pairing.swiss import SwissOptions, pair_round
    from tests.support.fields import simulate_field

    field = simulate_field(160, 6, units, 3)
    usual = pair_round(field, 7, SwissOptions(), random.Random(7)).tables
    gave_up: list[bool] = []
    real = swiss_fast.fast_path

    def spy(problem: SwissProblem) -> list[int] | None:
        found = real(problem)
        gave_up.append(found is None)
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(swiss_fast, "_WORK_BASE", 0)
        patch.setattr(swiss_fast, "_WORK_PER_PAIR", 0)
        patch.setattr(swiss_exact, "fast_path", spy)
        starved = pair_round(field, 7, SwissOptions(), random.Random(7)).tables
    assert gave_up and all(gave_up)
    assert [(t.ns, t.ew) for t in starved] == [(t.ns, t.ew) for t in usual]


def test_the_cut_tools_on_any_costs_equal_brute_force() -> None:
    # Any small graph, any costs (0–2): the cuts are the prefixes every optimum crosses once,
    # found by enumeration, and rule (4) starts from the last optimum with both breadth-first
    # and weighted swaps off, so the cut's exclusion proof and its re-pairing (cost-0 edges
    # before the cut, the table across it kept at the same cost) decide, or a solve does. A
    # re-pairing that offered dearer edges, or moved the table across to a dearer edge, gives
    # a wrong answer here (both seen).
    rng = random.Random(7)
    swaps: list[bool] = []
    real = matching._swap_beside_cut

    def counting(*args: Any) -> bool:
        swaps.append(real(*args))
        return swaps[-1]

    compared = 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matching, "_swap_beside_cut", counting)
        patch.setattr(matching, "_swap_in", lambda *args: False)
        patch.setattr(matching, "_swap_in_weighted", lambda *args: False)
        for _ in range(1500):
            n = rng.choice([6, 8, 10, 12])
            cost = {
                (i, j): rng.choice([0, 0, 1, 2])
                for i, j in itertools.combinations(range(n), 2)
                if rng.random() < 0.6
            }
            every = perfect_matchings(n, cost)
            if not every:
                continue
            low = min(total for total, _ in every)
            optima = [m for total, m in every if total == low]
            cuts = [
                k
                for k in range(1, n)
                if all(sum(1 for v in range(k) if m[v] >= k) == 1 for m in optima)
            ]
            if not cuts:
                continue
            compared += 1
            edges = [(i, j, c) for (i, j), c in cost.items()]
            got = first_min_cost_perfect_matching(
                n, edges, initial=_last_optimum(n, cost), cuts=cuts
            )
            assert got == _brute_first(n, cost), (n, cost, cuts)
    assert compared >= 1000
    assert any(swaps)
