"""The exact core's edge pruning (``_kept_edges``, issue 17): the block-wise (numpy) enumeration
keeps exactly the edges the per-edge definition keeps, on random and adversarial fields."""

from __future__ import annotations

import random

import pytest

from pairing.swiss_exact import _exit_cost, _kept_edges, _SurplusBound
from pairing.swiss_problem import SwissProblem, unit_surplus
from tests.support.fields import adversarial_field, random_field


def _kept_by_definition(problem: SwissProblem, big_a: int, upper: int) -> list[list[int]]:
    """docs/pairing.md, "Exact core", step 2, one edge at a time."""
    n = problem.n
    nlev = len(problem.level_cf)
    even_before = [0] * nlev
    for c in range(nlev - 1):
        d = abs(problem.level_cf[c + 1] - problem.level_cf[c])
        even_before[c + 1] = even_before[c] + (0 if problem.odd[c] else d)
    major, s_lb = unit_surplus(problem)
    slack = upper - big_a * s_lb - problem.lower_bound_gap
    surplus = (
        _SurplusBound(problem, major, s_lb)
        if problem.avoid and upper < big_a * (s_lb + 1)
        else None
    )
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            if j in problem.bad[i]:
                continue
            extra = 2 * (even_before[problem.lvl[j]] - even_before[problem.lvl[i]])
            same = problem.avoid and problem.unit[i] == problem.unit[j]
            if extra + (big_a * (max(s_lb, 1) - s_lb) if same else 0) > slack:
                continue
            gap = abs(problem.cf[i] - problem.cf[j])
            if surplus is not None and gap + surplus.rest(i, j, same) > upper - big_a * s_lb:
                continue
            out.append([i, j, gap + (big_a if same else 0)])
    return out


def _fields() -> list[tuple[str, list]]:  # type: ignore[type-arg]
    rng = random.Random(11)
    out = [(f"random{k}", random_field(rng, rng.randint(4, 60), 12, 8)) for k in range(12)]
    out += [
        ("adversarial60", adversarial_field(60, 8, 1)),
        ("adv120", adversarial_field(120, 8, 2)),
    ]
    return out


@pytest.mark.parametrize(("name", "field"), _fields())
@pytest.mark.parametrize("avoid", [True, False])
def test_kept_edges_are_the_edges_the_definition_keeps(name: str, field: list, avoid: bool) -> None:  # type: ignore[type-arg]
    order = sorted(field, key=lambda p: (-p.match_points, p.rank, p.id))
    if len(order) % 2:
        order = order[:-1]
    for sweep in (order, order[::-1]):
        problem = SwissProblem(sweep, avoid)
        big_a = (max(problem.cf) - min(problem.cf)) * (problem.n // 2) + 1
        low = problem.lower_bound_gap
        for upper in (low, low + 3, big_a + low + 5, 2 * big_a + 40):
            got = _kept_edges(problem, big_a, upper).tolist()
            assert got == _kept_by_definition(problem, big_a, upper), (name, upper)


def _exit_brute(problem: SwissProblem, lo: int, hi: int, p: int, q: int, big_a: int) -> float:
    """F(p, q) by enumeration: each pair of lo..hi-1 meets another (no rematch) or leaves
    upwards (paying its distance to the top group) or downwards; exactly p up and q down."""
    cf = problem.cf
    best = float("inf")

    def cost(i: int, j: int) -> int:
        same = problem.avoid and problem.unit[i] == problem.unit[j]
        return abs(cf[i] - cf[j]) + (big_a if same else 0)

    stack: list[tuple[list[int], int, int, int]] = [(list(range(lo, hi)), p, q, 0)]
    while stack:
        free, up, down, total = stack.pop()
        if not free:
            if up == down == 0:
                best = min(best, total)
            continue
        i, rest = free[0], free[1:]
        if up:
            stack.append((rest, up - 1, down, total + abs(cf[i] - cf[lo])))
        if down:
            stack.append((rest, up, down - 1, total + abs(cf[i] - cf[hi - 1])))
        for j in rest:
            if j not in problem.bad[i]:
                stack.append(([v for v in rest if v != j], up, down, total + cost(i, j)))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_exit_costs_equal_enumeration(seed: int) -> None:
    # The certificate's exit costs F(p, q) (docs/pairing.md, "Segments"), computed by the
    # compiled blossom on the segment plus exit vertices, against every way of pairing it.
    rng = random.Random(seed)
    field = random_field(rng, rng.randint(6, 14), 6, 3)
    order = sorted(field, key=lambda p: (-p.match_points, p.rank, p.id))
    for avoid in (True, False):
        problem = SwissProblem(order[: len(order) // 2 * 2], avoid)
        n = problem.n
        big_a = (max(problem.cf) - min(problem.cf)) * (n // 2) + 1
        for lo, hi in ((0, n), (1, n - 1), (2, min(n, 10))):
            for p in range(3):
                for q in range(3):
                    if (hi - lo - p - q) % 2 == 0 and hi - lo >= p + q:
                        expected = _exit_brute(problem, lo, hi, p, q, big_a)
                        assert _exit_cost(problem, lo, hi, p, q, big_a) == expected


@pytest.mark.parametrize("n", [60, 120])
def test_exit_costs_by_the_certified_programme_equal_the_blossom(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # From 40 vertices on the exit costs come from the linear programme's certified optimum;
    # they must equal the compiled blossom's, and the programme must actually prove some.
    from pairing import swiss_exact

    proved = []
    real = swiss_exact.certified_optimum

    def counting(*args: object, **kwargs: object) -> object:
        out = real(*args, **kwargs)  # type: ignore[arg-type]
        proved.append(out is not None)
        return out

    order = adversarial_field(n, 8, 3)
    problem = SwissProblem(order[: n // 2 * 2], True)
    big_a = (max(problem.cf) - min(problem.cf)) * (problem.n // 2) + 1
    cases = [
        (lo, hi, p, q)
        for lo, hi in ((2, n - 4), (0, n // 2), (n // 4, n))
        for p in range(3)
        for q in range(3)
    ]
    cases = [
        (lo, hi, p, q)
        for lo, hi, p, q in cases
        if (hi - lo - p - q) % 2 == 0 and not (lo == 0 and p) and not (hi == problem.n and q)
    ]
    monkeypatch.setattr(swiss_exact, "certified_optimum", counting)
    by_lp = [_exit_cost(problem, *case, big_a) for case in cases]
    monkeypatch.setattr(swiss_exact, "_LP_FROM", 10**9)
    by_blossom = [_exit_cost(problem, *case, big_a) for case in cases]
    assert by_lp == by_blossom
    assert any(proved)
