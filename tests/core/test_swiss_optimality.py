"""The engine against an exact reference (networkx's blossom, test-only) on random fields.

Bounded here (``SWISS_TEST_CASES`` random fields, default 60, because CI runs the suite twice);
``python -m benchmarks.pairing --pairs 0 --cases K`` runs as many as you like. The reference
(tests/support/reference.py) shares no code with the engine: (1)–(3) by networkx with one integer
cost, (1)–(4) by networkx with one lexicographic integer weight.
"""

from __future__ import annotations

import os
import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing.matching import max_weight_matching
from pairing.swiss import PairingError, SwissOptions, SwissPair, pair_round
from tests.support.fields import adversarial_field, random_field, simulate_field
from tests.support.reference import check_draw, reference_tables

CASES = int(os.environ.get("SWISS_TEST_CASES", "60"))


def _pairable(pairs) -> bool:
    graph = nx.Graph()
    graph.add_nodes_from(p.id for p in pairs)
    for a in pairs:
        for b in pairs:
            if a.id < b.id and b.id not in a.opponents and a.id not in b.opponents:
                graph.add_edge(a.id, b.id)
    return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(pairs)


@pytest.mark.parametrize("chunk", range(5))
def test_engine_cost_equals_the_exact_reference_on_random_fields(chunk: int) -> None:
    rng = random.Random(1000 + chunk)
    checked = 0
    for case in range(max(CASES // 5, 4)):
        n = rng.randint(4, 90 if case % 10 == 0 else 30)
        pairs = random_field(rng, n, 12, 8)
        options = SwissOptions(same_unit=rng.choice(["avoid", "avoid", "allow"]))
        try:
            draw = pair_round(pairs, rng.randint(2, 13), options, random.Random(case))
        except PairingError as exc:
            assert exc.code in ("no_pairing_without_rematch", "no_bye_candidate")
            if exc.code == "no_pairing_without_rematch" and len(pairs) % 2 == 0:
                assert not _pairable(pairs)
            continue
        assert check_draw(pairs, draw, options) == []
        checked += 1
    assert checked >= max(CASES // 5, 4) // 3


def test_bye_is_the_lowest_ranked_pair_whose_removal_leaves_a_pairing() -> None:
    rng = random.Random(77)
    for case in range(60):
        n = rng.choice([5, 7, 9, 11])
        pairs = random_field(rng, n, 8, 3)
        try:
            draw = pair_round(pairs, 3, SwissOptions(), random.Random(case))
        except PairingError:
            continue
        ranked = sorted(pairs, key=lambda p: (-p.match_points, p.rank, p.id))
        expected = next(
            p.id
            for p in reversed(ranked)
            if not p.had_bye and _pairable([q for q in pairs if q.id != p.id])
        )
        assert draw.bye == expected


@pytest.mark.parametrize(("n", "rounds"), [(40, 6), (101, 9), (90, 12)])
def test_realistic_fields_played_by_the_engine_are_optimal_every_round(n: int, rounds: int) -> None:
    pairs = simulate_field(n, rounds - 1, 6, seed=n)
    draw = pair_round(pairs, rounds, SwissOptions(), random.Random(n))
    assert check_draw(pairs, draw, SwissOptions()) == []


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=2, max_value=12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(1, 30)),
                max_size=30,
            ),
        )
    )
)
def test_blossom_weight_equals_networkx(case: tuple[int, list[tuple[int, int, int]]]) -> None:
    n, raw = case
    edges = {(min(a, b), max(a, b)): w for a, b, w in raw if a != b}
    mate = max_weight_matching(n, [(a, b, w) for (a, b), w in edges.items()], maxcardinality=True)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_weighted_edges_from((a, b, w) for (a, b), w in edges.items())
    ref = nx.max_weight_matching(graph, maxcardinality=True)
    mine = [(v, mate[v]) for v in range(n) if mate[v] > v]
    assert len(mine) == len(ref)
    assert sum(edges[e] for e in mine) == sum(edges[(min(a, b), max(a, b))] for a, b in ref)


def _lexicographic_blossom(pairs: list[SwissPair], round_number: int) -> list[tuple[int, int]]:
    """Tables of rules (1)–(4) by the independent reference (networkx, lexicographic weight)."""
    tables = reference_tables(pairs, round_number)
    assert tables is not None
    return tables


@pytest.mark.parametrize("chunk", range(2))
def test_segments_give_the_same_tables_as_the_whole_field_blossom(chunk: int) -> None:
    # Rule (4) too, not only the cost: the decomposition must pick the first optimum in sweep
    # order, exactly as the lexicographic blossom on the whole field does.
    rng = random.Random(5000 + chunk)
    compared = 0
    for case in range(max(CASES // 4, 4)):
        n = 2 * rng.randint(3, 18)
        pairs = [p for p in random_field(rng, n, 10, 4)]
        pairs = [SwissPair(p.id, p.rank, p.match_points, p.unit, p.opponents) for p in pairs]
        round_number = rng.randint(2, 11)
        try:
            draw = pair_round(pairs, round_number, SwissOptions(), random.Random(case))
        except PairingError:
            continue
        mine = sorted(tuple(sorted((t.ns, t.ew))) for t in draw.tables)
        assert mine == _lexicographic_blossom(pairs, round_number)
        compared += 1
    assert compared > 0


def _met_field(specs, met, units=None):
    opponents = {k: set() for k in range(1, len(specs) + 1)}
    for a, b in met:
        opponents[a].add(b)
        opponents[b].add(a)
    return [
        SwissPair(
            id=k,
            rank=k,
            match_points=cf,
            unit=(units or {}).get(k),
            opponents=frozenset(opponents[k]),
        )
        for k, cf in enumerate(specs, start=1)
    ]


@pytest.mark.parametrize(
    ("specs", "met", "units"),
    [
        # Two leaders alone on top who have met: both must float, the bound counts none.
        ([9, 9, 7, 7, 7, 7, 5, 5, 3, 3, 1, 1], ((1, 2),), None),
        # An odd group of three who have all met each other, between even cuts.
        ([8, 8, 6, 6, 6, 4, 4, 4, 2, 2], ((3, 4), (3, 5), (4, 5), (6, 7)), None),
        # A small group whose unit is a majority: two of its members must float.
        ([6, 6, 4, 4, 4, 4, 2, 2], ((3, 6),), {3: "A", 4: "A", 5: "A", 1: "B", 7: "C"}),
        # The bottom three have met each other and the group above is a single pair.
        ([6, 6, 6, 6, 4, 2, 0, 0, 0], ((7, 8), (7, 9), (8, 9), (5, 6)), None),
    ],
)
def test_hand_made_fields_where_the_parity_bound_is_out_of_reach(specs, met, units) -> None:
    pairs = _met_field([float(c) for c in specs], met, units)
    for round_number in (3, 4):
        draw = pair_round(pairs, round_number, SwissOptions(), random.Random(1))
        assert check_draw(pairs, draw, SwissOptions()) == []
        mine = sorted(tuple(sorted((t.ns, t.ew))) for t in draw.tables)
        rest = [p for p in pairs if p.id != draw.bye]
        assert mine == _lexicographic_blossom(rest, round_number)


@pytest.mark.parametrize(("n", "seed", "round_number"), [(60, 1, 10), (120, 3, 9)])
def test_adversarial_realistic_fields_equal_the_reference(
    n: int, seed: int, round_number: int
) -> None:
    # 120 pairs: formerly 1–2 s in the one-phase whole-field blossom; even rounds sweep upwards.
    pairs = adversarial_field(n, 8, seed)
    draw = pair_round(pairs, round_number, SwissOptions(), random.Random(seed))
    assert check_draw(pairs, draw, SwissOptions()) == []


@pytest.mark.parametrize(
    ("n", "units", "round_number"),
    [
        (24, 2, 6),  # two units, one holding about two thirds: forced same-unit meetings
        (30, 3, 9),  # a few units late in the event
        (16, 4, 10),  # rematch-heavy: 16 pairs after 9 rounds
        (12, 0, 9),  # rematch-heavy without units
    ],
)
def test_few_units_and_rematch_heavy_small_fields_equal_the_reference_tables(
    n: int, units: int, round_number: int
) -> None:
    # Tables, not only the cost: rule (4) against the independent lexicographic reference.
    for seed in range(1, 4):
        pairs = simulate_field(n, round_number - 1, units, seed)
        try:
            draw = pair_round(pairs, round_number, SwissOptions(), random.Random(seed))
        except PairingError as exc:
            assert exc.code == "no_pairing_without_rematch"
            continue
        assert check_draw(pairs, draw, SwissOptions()) == []
        rest = [p for p in pairs if p.id != draw.bye]
        mine = sorted(tuple(sorted((t.ns, t.ew))) for t in draw.tables)
        assert mine == _lexicographic_blossom(rest, round_number)


@pytest.mark.parametrize(("n", "seed"), [(200, 2), (400, 1)])
def test_adversarial_fields_up_to_400_pairs_equal_the_reference(n: int, seed: int) -> None:
    # One unit holding half the field, met leaders, a met trio, a unit-majority group.
    pairs = adversarial_field(n, 8, seed)
    draw = pair_round(pairs, 9, SwissOptions(), random.Random(seed))
    assert check_draw(pairs, draw, SwissOptions()) == []


def test_random_fields_of_a_few_hundred_pairs_equal_the_reference() -> None:
    rng = random.Random(4242)
    for n in (150, 300):
        pairs = random_field(rng, n, 6, 3)
        try:
            draw = pair_round(pairs, 7, SwissOptions(), random.Random(n))
        except PairingError as exc:
            assert exc.code == "no_pairing_without_rematch"
            assert not _pairable(pairs)
            continue
        assert check_draw(pairs, draw, SwissOptions()) == []


def test_an_impossible_field_raises_the_clear_error() -> None:
    # Pair 1 has met everyone else: no pairing without a rematch exists, even in the exact
    # core (the fast path fails first), and the message says so.
    pairs = _met_field([4.0, 4.0, 2.0, 2.0, 2.0, 0.0], [(1, k) for k in range(2, 7)])
    with pytest.raises(PairingError) as caught:
        pair_round(pairs, 4, SwissOptions(), random.Random(1))
    assert caught.value.code == "no_pairing_without_rematch"
    assert "no_pairing_without_rematch" in str(caught.value)


@pytest.mark.parametrize("round_number", [2, 5, 9])
def test_a_unit_holding_two_thirds_of_the_field_is_paired_exactly(round_number: int) -> None:
    # Two units (weights 1 : 0.5): U1 must meet itself about n/6 times every round; the fast
    # path's same-unit budget and its exact count of the meetings the levels force decide it.
    pairs = simulate_field(120, round_number - 1, 2, seed=round_number)
    draw = pair_round(pairs, round_number, SwissOptions(), random.Random(round_number))
    assert draw.same_unit_meetings > 0
    assert check_draw(pairs, draw, SwissOptions()) == []
