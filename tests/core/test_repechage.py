"""RULES.md §8, seed 001: a knockout in several stages (``until``, 初赛/复赛/决赛) and the repechage
(附加赛) — the plan, the rounds, who goes on, the placings. The pure core, no database."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairing.groups import Entrant
from pairing.knockout import (
    Decided,
    Meeting,
    first_round,
    halving_round,
    knockout_over,
    next_halving_round,
    next_round,
    placings,
    survivors,
)
from rules.errors import RuleSetError
from rules.kinds.knockout import halving_fields, repechage_plan
from rules.ruleset import RuleSet

RELAXED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(
    ("entrants", "round", "until", "plan"),
    [
        # seed 001 (精方药业): 44 → 22 → 11; round 3's 5 winners wait, its 5 losers and the bye
        # play 3 meetings, 3 rejoin: 8 for the 复赛.
        (44, 3, 8, (11, 5, 6, 8, 3, 3, 0)),
        (11, 1, 4, (11, 5, 6, 8, 3, 3, 0)),  # 8 is 4 × 2: one more round to 4
        (5, 1, 1, (5, 2, 3, 4, 2, 1, 1)),  # a bye in the repechage: 1 meeting, 1 drawn bye
        (3, 1, 1, (3, 1, 2, 2, 1, 1, 0)),  # the repechage's winner meets round 1's in the final
        (6, 1, 2, (6, 3, 3, 0, 0, 0, -1)),  # impossible: 3 waiting + 2 rejoining is 5, not 4 or 8
    ],
)  # fmt: skip
def test_repechage_plan(entrants, round, until, plan):
    got = repechage_plan(entrants, round, until)
    field, winners, pool, target, rejoin, matches, byes = plan
    assert (got.field, got.winners, got.pool) == (field, winners, pool)
    if byes < 0:
        assert not got.possible
    else:
        assert got.possible
        assert (got.target, got.rejoin, got.matches, got.byes) == (target, rejoin, matches, byes)


def test_halving_fields_give_odd_fields_a_bye_that_goes_on():
    assert halving_fields(44, 4) == (44, 22, 11, 6)
    assert halving_fields(13, 3) == (13, 7, 4)


@pytest.mark.parametrize(
    ("stages", "code"),
    [
        ([{"kind": "knockout", "until": 8, "repechage": 3}], "stage_until_last"),
        ([{"kind": "knockout", "repechage": 0}], "stage_not_in_range"),
        ([{"kind": "knockout", "until": 8}, {"kind": "knockout", "repechage": 1}],
         "stage_repechage_impossible"),  # 8: 4 winners, 4 losers; 4 + 2..3 is never 2^j
        ([{"kind": "knockout", "until": 8}, {"kind": "knockout", "entrants": 9}],
         "stage_entrants_exceed_qualifiers"),
        ([{"kind": "knockout"}, {"kind": "knockout"}], "stage_after_knockout"),
    ],
)  # fmt: skip
def test_impossible_settings_are_refused(stages, code):
    with pytest.raises(RuleSetError) as caught:
        RuleSet.from_dict({"stages": stages})
    assert code in [p.code for p in caught.value.problems]


SEED_001 = [
    {"kind": "knockout", "seeding": "lot", "until": 8, "repechage": 3},
    {"kind": "knockout", "seeding": "lot", "until": 4},
    {"kind": "knockout", "seeding": "lot", "best_of": 3, "third_place": True},
]


def test_seed_001_three_knockout_stages_are_accepted_and_round_trip():
    rules = RuleSet.from_dict({"stages": SEED_001})
    assert [s.to_dict() for s in rules.stage_list] == SEED_001
    first = rules.stage(1)
    assert (first.until, first.repechage, first.remaining) == (8, 3, 8)
    assert [first.is_repechage_round(i) for i in (3, 4, 5)] == [False, True, False]


def test_repechage_false_of_older_files_is_no_repechage_and_round_trips():
    stages = [{"kind": "swiss", "rounds": 3}, {"kind": "knockout", "repechage": False}]
    rules = RuleSet.from_dict({"stages": stages})
    knockout = rules.stage(2)
    assert knockout.repechage_after is None and not knockout.is_repechage_round(1)
    assert [s.to_dict() for s in rules.stage_list] == stages


def _decide(meetings, better):
    """The meetings played: ``better(a, b)`` wins; a bye goes to its entrant."""
    return [Decided(m.slot, m.a, m.b, m.a if m.b is None else better(m.a, m.b)) for m in meetings]


def test_seed_001_first_stage_44_pairs_to_8():
    entrants = {i: Entrant(i, i, None) for i in range(1, 45)}
    rng = random.Random(1)
    rounds: list[list[Decided]] = []
    kinds = []
    while not knockout_over(rounds, entrants, 8, 3):
        meetings, repechage = next_halving_round(rounds, entrants, "lot", 3, 8, rng)
        kinds.append((sum(1 for m in meetings if m.b is not None), repechage))
        rounds.append(_decide(meetings, min))  # the better seed wins
    # 22 meetings, 11, then 5 and a bye, then the repechage: 3 meetings, nobody drawn a bye.
    assert kinds == [(22, False), (11, False), (5, False), (3, True)]
    assert sum(1 for m in rounds[2] if m.b is None) == 1
    seeds = {i: i for i in entrants}
    left = survivors(rounds, seeds, 3)
    assert len(left) == 8
    # The 5 winners of round 3 first, then the 3 through the repechage.
    assert set(left[:5]) == {d.winner for d in rounds[2] if d.b is not None}
    assert set(left[5:]) == {d.winner for d in rounds[3]}
    places = placings(rounds, seeds, 3, 8)
    shared = {}
    for place, entrant in places:
        shared.setdefault(place, []).append(entrant)
    # Repechage losers share 9th (8 still in), round 2's 11 losers 12th, round 1's 22 23rd.
    assert {p: len(e) for p, e in shared.items()} == {9: 3, 12: 11, 23: 22}
    assert set(left) | {e for _p, e in places} == set(entrants)


def test_a_repechage_bye_is_drawn_and_rejoins():
    entrants = {i: Entrant(i, i, None) for i in range(1, 6)}
    rounds: list[list[Decided]] = []
    meetings, repechage = next_halving_round(rounds, entrants, "bracket", 1, None, random.Random(3))
    # Bracket re-seeded: the odd field's best seed has the bye, 2–5, 3–4.
    assert meetings == (Meeting(1, 2, 5), Meeting(2, 3, 4), Meeting(3, 1, None))
    assert not repechage
    rounds.append(_decide(meetings, min))
    meetings, repechage = next_halving_round(rounds, entrants, "bracket", 1, None, random.Random(3))
    # Round 1's losers 4, 5 and its bye 1 play: one meeting and one bye make 2 + 2 = 4.
    assert repechage
    assert sum(1 for m in meetings if m.b is None) == 1
    assert {p for m in meetings for p in (m.a, m.b) if p} == {1, 4, 5}
    rounds.append(_decide(meetings, min))
    meetings, repechage = next_halving_round(
        rounds, entrants, "bracket", 1, None, random.Random(3), third_place=True
    )
    assert not repechage and len(meetings) == 2  # the semi-finals of 4, no third place yet
    rounds.append(_decide(meetings, max))  # upsets
    meetings, _ = next_halving_round(
        rounds, entrants, "bracket", 1, None, random.Random(3), third_place=True
    )
    assert [m.slot for m in meetings] == [1, 0]  # the final and the third-place match
    rounds.append(_decide(meetings, min))
    assert knockout_over(rounds, entrants, None, 1)
    places = placings(rounds, {i: i for i in entrants}, 1)
    assert [p for p, _e in places] == [1, 2, 3, 4, 5]


def test_halving_round_by_lot_draws_the_bye():
    field = [Entrant(i, i, None) for i in range(1, 12)]
    byes = {halving_round(field, "lot", random.Random(s))[-1].a for s in range(30)}
    assert len(byes) > 3  # not always the top seed


def test_until_stops_a_bracket_and_survivors_keep_their_bracket_places():
    entrants = [Entrant(i, i, None) for i in range(1, 17)]
    rng = random.Random(0)
    first = first_round(entrants, "bracket", rng)
    # Seed 12 beats seed 5, then seed 4: it stands in seed 4's quarter.
    upset = {frozenset((5, 12)): 12, frozenset((4, 12)): 12}

    def better(a, b):
        return upset.get(frozenset((a, b)), min(a, b))

    rounds = [_decide(first, better)]
    by_id = {e.id: e for e in entrants}
    assert not knockout_over(rounds, by_id, 4)
    rounds.append(_decide(next_round(rounds[-1], "bracket", by_id, rng), better))
    assert knockout_over(rounds, by_id, 4)
    seeds = {i: i for i in range(1, 17)}
    # Quarters of seeds 1, 2, 3, 4: seed 12 takes seed 4's place, the next stage's seed 4.
    assert survivors(rounds, seeds) == [1, 2, 3, 12]
    places = placings(rounds, seeds, None, 4)
    assert [p for p, _e in places] == [5] * 4 + [9] * 8  # no final, no 1st place here


@RELAXED
@given(
    st.integers(3, 80),
    st.integers(1, 5),
    st.sampled_from([None, 2, 3, 4, 8]),
    st.integers(0, 10**6),
    st.sampled_from(["bracket", "lot"]),
)
def test_every_possible_repechage_plays_out_to_its_plan(n, r, until, seed, seeding):
    """Whatever wins: the field after the repechage is the plan's target, the stage stops at
    ``until`` (or one), and every entrant is a survivor or placed, places shared as ranks."""
    plan = repechage_plan(n, r, until or 1)
    if not plan.possible or (until is not None and n <= until):
        return
    entrants = {i: Entrant(i, i, f"u{i % 3}") for i in range(1, n + 1)}
    rng = random.Random(seed)
    rounds: list[list[Decided]] = []
    while not knockout_over(rounds, entrants, until, r):
        meetings, repechage = next_halving_round(
            rounds, entrants, seeding, r, until, rng, third_place=until is None
        )
        assert repechage == (len(rounds) == r)
        rounds.append(_decide(meetings, lambda a, b: rng.choice((a, b))))
        if repechage:
            assert len(survivors(rounds, {i: i for i in entrants}, r)) == plan.target
        assert len(rounds) < 20
    seeds = {i: i for i in entrants}
    left = survivors(rounds, seeds, r)
    places = placings(rounds, seeds, r, until)
    assert len(left) == (until or 1) if until else len(left) == 1
    placed = [e for _p, e in places]
    assert sorted(placed + ([] if until is None else left)) == sorted(entrants)
    # Shared places are ranks: a place p has exactly p − 1 entrants before it.
    before = len(left) if until else 0
    for place, _e in places:
        assert place == 1 + before + sum(1 for q, _x in places if q < place)
