"""Swiss pairing engine (RULES.md §5): hand-made cases for each rule; the core loads no Django."""

from __future__ import annotations

import random

import pytest

from pairing.matching import max_weight_matching
from pairing.swiss import (
    PairingError,
    Reason,
    SwissOptions,
    SwissPair,
    describe,
    pair_round,
)

AVOID = SwissOptions()
ALLOW = SwissOptions(same_unit="allow")


def field(
    *specs: tuple[float, str | None], met: tuple[tuple[int, int], ...] = ()
) -> list[SwissPair]:
    """Pairs 1..n ranked in order: (match points, unit); ``met`` lists earlier meetings."""
    opponents: dict[int, set[int]] = {k: set() for k in range(1, len(specs) + 1)}
    for a, b in met:
        opponents[a].add(b)
        opponents[b].add(a)
    return [
        SwissPair(id=k, rank=k, match_points=cf, unit=unit, opponents=frozenset(opponents[k]))
        for k, (cf, unit) in enumerate(specs, start=1)
    ]


def tables_of(draw) -> list[tuple[int, int]]:
    return [tuple(sorted((t.ns, t.ew))) for t in draw.tables]


@pytest.mark.parametrize(
    ("round_number", "met", "expected"),
    [
        # Odd round, sweep from the top: 1 cannot meet 2, so 1 takes 3 and 2 takes 4.
        (3, ((1, 2),), [(1, 3), (2, 4), (5, 6)]),
        # Even round, sweep from the bottom: 6-5, then 4-3, then 2-1 is a rematch; the bottom
        # stays neighbours and the disturbance is resolved at the top.
        (2, ((1, 2),), [(1, 3), (2, 4), (5, 6)]),
        # Odd round: 3-4 met, so 3 takes 5 and 4 takes 6 (the disturbance moves down).
        (3, ((3, 4),), [(1, 2), (3, 5), (4, 6)]),
        # Even round: 3-4 met; from the bottom 6-5 stays, 4 takes 2 and 3 takes 1 (moves up).
        (2, ((3, 4),), [(1, 3), (2, 4), (5, 6)]),
    ],
)
def test_rematch_is_never_made_and_the_sweep_direction_resolves_it(
    round_number: int, met: tuple[tuple[int, int], ...], expected: list[tuple[int, int]]
) -> None:
    pairs = field(*[(4.0, None)] * 6, met=met)
    draw = pair_round(pairs, round_number, AVOID, random.Random(1))
    assert sorted(tables_of(draw)) == expected
    assert draw.total_gap == 0


def test_neighbours_meet_when_nothing_prevents_it() -> None:
    pairs = field(*[(6.0, None)] * 4, *[(4.0, None)] * 4)
    draw = pair_round(pairs, 4, AVOID, random.Random(1))
    assert tables_of(draw) == [(1, 2), (3, 4), (5, 6), (7, 8)]
    assert [t.number for t in draw.tables] == [1, 2, 3, 4]


@pytest.mark.parametrize(
    ("round_number", "expected", "floater", "from_cf", "to_cf"),
    [
        # Odd round, from the top: the lowest pair of the 6-point group floats down to meet
        # the top of the 4-point group.
        (3, [(1, 2), (3, 4), (5, 6)], 3, 6, 4),
        # Even round, from the bottom: the same tables here, but the reason names the 4-point
        # pair as the one that floated up.
        (4, [(1, 2), (3, 4), (5, 6)], 4, 4, 6),
    ],
)
def test_an_odd_score_group_floats_one_pair_with_a_reason(
    round_number: int, expected: list[tuple[int, int]], floater: int, from_cf: int, to_cf: int
) -> None:
    pairs = field((6.0, None), (6.0, None), (6.0, None), (4.0, None), (4.0, None), (4.0, None))
    draw = pair_round(pairs, round_number, AVOID, random.Random(1))
    assert tables_of(draw) == expected
    float_reasons = [r for t in draw.tables for r in t.reasons if r.code == "float"]
    assert float_reasons == [Reason("float", (("pair", floater), ("from", from_cf), ("to", to_cf)))]
    assert draw.total_gap == 2


def test_who_floats_depends_on_the_sweep_direction_when_the_neighbour_is_blocked() -> None:
    # 6-point group {1, 2, 3}, 4-point group {4, 5, 6, 7, 8}; 3 and 4 have met.
    pairs = field(*[(6.0, None)] * 3, *[(4.0, None)] * 5, met=((3, 4),))
    top_down = pair_round(pairs, 3, AVOID, random.Random(1))
    bottom_up = pair_round(pairs, 4, AVOID, random.Random(1))
    # From the top: 1-2, then 3 floats down to the first 4-point pair it may meet (5).
    assert sorted(tables_of(top_down)) == [(1, 2), (3, 5), (4, 6), (7, 8)]
    # From the bottom: 8-7, 6-5, then 4 floats up and meets 2, the nearest 6-point pair.
    assert sorted(tables_of(bottom_up)) == [(1, 3), (2, 4), (5, 6), (7, 8)]
    assert top_down.total_gap == bottom_up.total_gap == 2


def test_same_unit_is_avoided_even_at_the_price_of_a_larger_gap() -> None:
    # 1 and 2 are the only 8-point pairs and share a unit: priority (2) beats priority (3).
    pairs = field((8.0, "A"), (8.0, "A"), (4.0, "B"), (4.0, "C"))
    draw = pair_round(pairs, 3, AVOID, random.Random(1))
    assert draw.same_unit_meetings == 0
    assert draw.total_gap == 8
    allowed = pair_round(pairs, 3, ALLOW, random.Random(1))
    assert tables_of(allowed) == [(1, 2), (3, 4)]
    assert allowed.same_unit_meetings == 1
    assert allowed.total_gap == 0
    assert allowed.tables[0].reasons[1].code == "same_unit_allowed"


def test_a_forced_same_unit_meeting_is_counted_and_explained() -> None:
    pairs = field((4.0, "A"), (4.0, "A"), (4.0, "A"), (4.0, "B"))
    draw = pair_round(pairs, 2, AVOID, random.Random(1))
    assert draw.same_unit_meetings == 1
    codes = [r.code for t in draw.tables for r in t.reasons]
    assert "same_unit_forced" in codes
    assert describe(Reason("same_unit_forced", (("unit", "A"),))) == (
        "same unit (A) accepted: no other pairing exists"
    )


def test_total_gap_is_minimal_not_greedy() -> None:
    # Top-down greedy would seat 1-2 and then face 3-4 as a rematch, forcing 3 and 4 to float
    # far; the optimum gives up the first neighbour pairing instead.
    pairs = field(
        (8.0, None),
        (8.0, None),
        (6.0, None),
        (6.0, None),
        (0.0, None),
        (0.0, None),
        met=((3, 4), (1, 3), (2, 4)),
    )
    draw = pair_round(pairs, 3, AVOID, random.Random(1))
    assert draw.total_gap == 4
    assert sorted(tables_of(draw)) == [(1, 4), (2, 3), (5, 6)]


def test_impossible_pairing_raises_instead_of_a_rematch() -> None:
    pairs = field((2.0, None), (2.0, None), (0.0, None), (0.0, None), met=((1, 2), (1, 3), (1, 4)))
    with pytest.raises(PairingError) as err:
        pair_round(pairs, 4, AVOID, random.Random(1))
    assert err.value.code == "no_pairing_without_rematch"


@pytest.mark.parametrize(
    ("pairs", "code"),
    [
        ([SwissPair(1, 1, 0.0)], "too_few_pairs"),
        ([SwissPair(1, 1, 0.0), SwissPair(1, 2, 0.0)], "duplicate_pair"),
    ],
)
def test_bad_input_has_a_stable_error_code(pairs: list[SwissPair], code: str) -> None:
    with pytest.raises(PairingError) as err:
        pair_round(pairs, 2, AVOID, random.Random(1))
    assert err.value.code == code


def test_bye_goes_to_the_lowest_ranked_pair_without_a_bye() -> None:
    pairs = field(*[(4.0, None)] * 5)
    pairs[4] = SwissPair(5, 5, 4.0, had_bye=True)
    draw = pair_round(pairs, 3, AVOID, random.Random(1))
    assert draw.bye == 4
    assert [r.code for r in draw.bye_reasons] == ["bye_skipped", "bye_lowest_without_bye"]
    assert draw.bye_reasons[0].param("why") == "had_bye"


def test_bye_moves_up_when_the_rest_could_not_be_paired() -> None:
    # Without 5 the rest {1, 2, 3, 4} cannot be paired (1 has met 2, 3 and 4); without 4 it can.
    pairs = field(*[(2.0, None)] * 5, met=((1, 2), (1, 3), (1, 4)))
    draw = pair_round(pairs, 4, AVOID, random.Random(1))
    assert draw.bye == 4
    assert draw.bye_reasons[0] == Reason(
        "bye_skipped", (("pair", 5), ("rank", 5), ("why", "rest_unpairable"))
    )
    assert sorted(tables_of(draw)) == [(1, 5), (2, 3)]


def test_no_bye_candidate_is_an_error() -> None:
    pairs = [SwissPair(k, k, 0.0, had_bye=True) for k in range(1, 4)]
    with pytest.raises(PairingError) as err:
        pair_round(pairs, 4, AVOID, random.Random(1))
    assert err.value.code == "no_bye_candidate"


@pytest.mark.parametrize(
    ("a", "b", "ns"),
    [
        # Balance first: the pair with more EW than NS seats sits NS.
        (dict(ns_count=2, ew_count=1), dict(ns_count=1, ew_count=2), 2),
        # Equal balance: alternate, the pair that sat EW last time sits NS.
        (
            dict(ns_count=1, ew_count=1, last_direction="NS"),
            dict(ns_count=1, ew_count=1, last_direction="EW"),
            2,
        ),
        (dict(last_direction="EW"), dict(last_direction="NS"), 1),
        # Nothing to choose: the higher-ranked pair sits NS.
        ({}, {}, 1),
    ],
)
def test_seat_directions_balance_then_alternate(a: dict, b: dict, ns: int) -> None:
    pairs = [SwissPair(1, 1, 2.0, **a), SwissPair(2, 2, 2.0, **b)]
    draw = pair_round(pairs, 2, AVOID, random.Random(1))
    assert draw.tables[0].ns == ns
    assert draw.tables[0].ew == 3 - ns


def test_round_one_by_lot_is_reproducible_from_the_seed() -> None:
    pairs = [SwissPair(k, k, 0.0, unit=f"U{k % 3}") for k in range(1, 21)]
    first = pair_round(pairs, 1, AVOID, random.Random(42))
    again = pair_round(list(reversed(pairs)), 1, AVOID, random.Random(42))
    other = pair_round(pairs, 1, AVOID, random.Random(43))
    assert first == again
    assert first.tables != other.tables
    assert first.same_unit_meetings == 0
    assert all(t.reasons[0].code == "lot" for t in first.tables)


def test_round_one_by_lot_meets_a_dominant_unit_as_little_as_possible() -> None:
    # 7 of 10 pairs from unit A: at least 7 - 5 = 2 meetings inside A are unavoidable.
    pairs = [SwissPair(k, k, 0.0, unit="A" if k <= 7 else "B") for k in range(1, 11)]
    draw = pair_round(pairs, 1, AVOID, random.Random(5))
    assert draw.same_unit_meetings == 2


def test_round_one_by_seeding_slides_the_top_half_against_the_bottom_half() -> None:
    pairs = [SwissPair(k, k, 0.0, seeding=k) for k in range(1, 9)]
    draw = pair_round(pairs, 1, SwissOptions(round1="seeding"), random.Random(1))
    assert tables_of(draw) == [(1, 5), (2, 6), (3, 7), (4, 8)]
    assert draw.tables[0].reasons[0] == Reason("seeding", (("seed_a", 1), ("seed_b", 5)))


def test_round_one_bye_by_lot_is_reproducible() -> None:
    pairs = [SwissPair(k, k, 0.0) for k in range(1, 8)]
    a = pair_round(pairs, 1, AVOID, random.Random(3))
    b = pair_round(pairs, 1, AVOID, random.Random(3))
    assert a.bye == b.bye is not None
    assert a.bye_reasons[-1].code == "bye_lot"


def test_half_point_match_points_are_exact() -> None:
    pairs = field((1.5, None), (1.0, None), (0.5, None), (0.0, None), met=((1, 2), (3, 4)))
    draw = pair_round(pairs, 3, AVOID, random.Random(1))
    assert sorted(tables_of(draw)) == [(1, 3), (2, 4)]
    assert draw.total_gap == 2.0


def test_table_one_is_the_top_table() -> None:
    pairs = field((2.0, None), (2.0, None), (4.0, None), (4.0, None))
    pairs = [SwissPair(p.id, 5 - p.id, p.match_points) for p in pairs]
    draw = pair_round(pairs, 2, AVOID, random.Random(1))
    assert tables_of(draw) == [(3, 4), (1, 2)]


def test_every_reason_has_an_english_sentence() -> None:
    reasons = [
        Reason("float", (("pair", 6), ("from", 6), ("to", 4))),
        Reason("bye_lowest_without_bye", (("pair", 9), ("rank", 9))),
        Reason("direction", (("pair", 1), ("seat", "NS"), ("why", "alternate"))),
    ]
    assert [r.text_en for r in reasons] == [
        "pair 6 floated from 6 to 4 match points",
        "bye: pair 9 (rank 9) is the lowest-ranked pair without a bye",
        "pair 1 sits NS: alternates with its last seat",
    ]


def test_blossom_finds_the_maximum_weight_matching_of_a_small_graph() -> None:
    # A triangle with a pendant: the best is 0-1 (5) + 2-3 (4), not 1-2 (7) alone.
    mate = max_weight_matching(4, [(0, 1, 5), (1, 2, 7), (0, 2, 1), (2, 3, 4)])
    assert mate == [1, 0, 3, 2]
