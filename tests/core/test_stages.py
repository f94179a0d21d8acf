"""RULES.md §8 (stages): the settings, groups, the round-robin schedule, the bracket, best of n,
placings — the pure core, no database."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairing.groups import Entrant, group_names, lot_groups, round_robin_schedule, snake_groups
from pairing.knockout import (
    Decided,
    bracket_size,
    first_round,
    next_round,
    placings,
)
from rules.errors import RuleSetError, ScoringError
from rules.events import Side
from rules.ruleset import RuleSet
from scoring.engine import score_match
from scoring.series import decide_series, game_winner

# A shared machine can be slow: no deadline, and slowness is not a failure of these properties.
RELAXED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

SW = {"kind": "swiss", "rounds": 3}
CONTRACT_STAGES = [
    {"kind": "swiss", "rounds": 5},
    {"kind": "round_robin", "groups": 4, "qualify": 2, "seeding": "snake"},
    {
        "kind": "knockout",
        "entrants": 8,
        "seeding": "bracket",
        "best_of": 3,
        "third_place": True,
        "round_format": "game",
        "tie": "extra_deal",
    },
]


# -- settings ----------------------------------------------------------------------------------


def test_contract_stages_round_trip():
    rules = RuleSet.from_dict({"stages": CONTRACT_STAGES})
    assert rules.to_dict()["stages"] == CONTRACT_STAGES
    assert [s.kind for s in rules.stage_list] == ["swiss", "round_robin", "knockout"]
    assert rules.stage(3).wins_needed == 2


def test_no_stages_is_one_swiss_stage_of_the_planned_rounds():
    rules = RuleSet.from_dict({"rounds": 7})
    assert "stages" not in rules.to_dict()
    assert [(s.kind, s.rounds) for s in rules.stage_list] == [("swiss", 7)]
    assert rules.for_stage(1) is rules


def test_a_stage_overrides_format_deals_and_tie_and_a_knockout_breaks_ties():
    rules = RuleSet.from_dict(
        {
            "deals_per_round": 8,
            "stages": [
                {"kind": "swiss", "rounds": 3},
                {"kind": "knockout", "deals_per_round": 6},
            ],
        }
    )
    assert rules.for_stage(1).deals_per_round == 8 and rules.for_stage(1).tie == "draw"
    knockout = rules.for_stage(2)
    assert knockout.deals_per_round == 6 and knockout.tie == "extra_deal"
    assert knockout.scale == rules.scale


@pytest.mark.parametrize(
    ("stages", "code"),
    [
        ([], "stages_malformed"),
        ("swiss", "stages_malformed"),
        ([{"kind": "league"}], "stage_bad_value"),
        ([{"kind": "swiss"}], "stage_missing_key"),
        ([{"kind": "swiss", "rounds": 0}], "stage_not_in_range"),
        ([{"kind": "swiss", "rounds": True}], "stage_not_in_range"),
        ([{"kind": "swiss", "rounds": 10**30}], "stage_not_in_range"),
        ([{"kind": "swiss", "rounds": 3, "best_of": 3}], "stage_unknown_key"),
        ([{"kind": "swiss", "rounds": 3, "entrants": 8}], "stage_first_entrants"),
        ([SW, {"kind": "knockout", "best_of": 2}], "stage_bad_value"),
        ([SW, {"kind": "knockout", "third_place": 1}], "stage_bad_value"),
        ([SW, {"kind": "knockout", "tie": "draw"}], "stage_knockout_draw"),
        ([SW, {"kind": "knockout", "repechage": True}], "stage_not_in_range"),
        ([SW, {"kind": "knockout", "until": 4}], "stage_until_last"),
        ([SW, {"kind": "knockout", "until": 1}, {"kind": "knockout"}], "stage_not_in_range"),
        ([SW, {"kind": "knockout", "until": 6}, {"kind": "knockout"}],
         "stage_until_power_of_two"),
        ([SW, {"kind": "knockout", "until": 4, "third_place": True}, {"kind": "knockout"}],
         "stage_until_third_place"),
        ([SW, {"kind": "knockout", "until": 8}, {"kind": "knockout", "entrants": 16}],
         "stage_entrants_exceed_qualifiers"),
        ([SW, {"kind": "knockout", "entrants": 8, "until": 8}, {"kind": "knockout"}],
         "stage_until_too_many"),
        ([SW, {"kind": "knockout", "entrants": 16, "repechage": 1}],
         "stage_repechage_impossible"),
        ([SW, {"kind": "knockout", "until": 4}, {"kind": "knockout", "repechage": 2}],
         "stage_repechage_impossible"),
        ([{"kind": "knockout"}, {"kind": "swiss", "rounds": 3}], "stage_after_knockout"),
        ([{"kind": "swiss", "rounds": 3}, {"kind": "round_robin", "groups": 4},
          {"kind": "knockout"}], "stage_missing_key"),
        ([{"kind": "swiss", "rounds": 3}, {"kind": "round_robin", "groups": 4, "qualify": 2},
          {"kind": "knockout", "entrants": 16}], "stage_entrants_exceed_qualifiers"),
        ([{"kind": "swiss", "rounds": 3},
          {"kind": "round_robin", "groups": 4, "entrants": 7}], "stage_groups_too_small"),
        ([{"kind": "swiss", "rounds": 3},
          {"kind": "round_robin", "groups": 4, "qualify": 4, "entrants": 16}],
         "stage_qualify_too_many"),
    ],
)  # fmt: skip
def test_bad_stages_are_refused_with_a_code(stages, code):
    with pytest.raises(RuleSetError) as caught:
        RuleSet.from_dict({"stages": stages})
    assert code in [p.code for p in caught.value.problems]


def test_every_stage_message_is_worded():
    from tournaments.messages import MESSAGES

    for code in (
        "stages_malformed",
        "stage_bad_value",
        "stage_unknown_key",
        "stage_missing_key",
        "stage_not_in_range",
        "stage_first_entrants",
        "stage_after_knockout",
        "stage_knockout_draw",
        "stage_until_last",
        "stage_until_third_place",
        "stage_until_power_of_two",
        "stage_until_too_many",
        "stage_repechage_impossible",
        "stage_entrants_exceed_qualifiers",
        "stage_groups_too_small",
        "stage_qualify_too_many",
    ):
        assert code in MESSAGES


# -- groups ------------------------------------------------------------------------------------


def _ids(groups):
    return [[e.id for e in g] for g in groups]


def test_snake_seeding_is_1_8_9_16():
    # RULES.md §8: "snake seeding from the previous stage's ranking (1 8 9 16 / 2 7 10 15 …)".
    ranked = [Entrant(i, i) for i in range(1, 17)]
    assert _ids(snake_groups(ranked, 4)) == [
        [1, 8, 9, 16],
        [2, 7, 10, 15],
        [3, 6, 11, 14],
        [4, 5, 12, 13],
    ]


def test_snake_keeps_units_apart_by_moving_the_weaker_entrant_within_its_pot():
    ranked = [Entrant(i, i, "NJ" if i in (1, 8) else None) for i in range(1, 17)]
    groups = _ids(snake_groups(ranked, 4))
    assert groups[0] == [1, 7, 9, 16] and groups[1] == [2, 8, 10, 15]


def test_units_stay_together_when_it_cannot_be_helped():
    ranked = [Entrant(i, i, "NJ") for i in range(1, 9)]
    assert _ids(snake_groups(ranked, 2)) == [[1, 4, 5, 8], [2, 3, 6, 7]]


@RELAXED
@given(st.integers(2, 9), st.integers(1, 6), st.integers(0, 10**6), st.integers(1, 4))
def test_groups_place_everyone_once_one_per_pot(size, groups, seed, units):
    rng = random.Random(seed)
    entrants = [Entrant(i, i, f"U{rng.randrange(units)}") for i in range(1, size * groups + 1)]
    for placed in (snake_groups(entrants, groups), lot_groups(entrants, groups, rng)):
        assert sorted(e.id for g in placed for e in g) == list(range(1, size * groups + 1))
        assert all(len(g) == size for g in placed)
    # The snake keeps one entrant of every pot (row of the snake) in every group.
    for group in snake_groups(entrants, groups):
        assert [(e.seed - 1) // groups for e in group] == list(range(size))


@RELAXED
@given(st.integers(2, 12))
def test_round_robin_every_entrant_meets_every_other_once(size):
    rounds = round_robin_schedule(size)
    assert len(rounds) == (size - 1 if size % 2 == 0 else size)
    met = [frozenset(m) for r in rounds for m in r if m[1] is not None]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(c) for c in combinations(range(size), 2)), key=sorted
    )
    for r in rounds:
        seated = [x for m in r for x in m if x is not None]
        assert len(seated) == len(set(seated)) == size
    byes = [m[0] for r in rounds for m in r if m[1] is None]
    assert sorted(byes) == (list(range(size)) if size % 2 else [])


def test_group_names():
    assert group_names(3) == ("A", "B", "C")
    assert group_names(28)[25:] == ("Z", "AA", "AB")


# -- the bracket -------------------------------------------------------------------------------


def test_bracket_order_is_the_contracts():
    # TOURNAMENT_FILE.md / RULES.md §8: 1–16, 8–9, 5–12, 4–13, … 2–15.
    entrants = [Entrant(i, i) for i in range(1, 17)]
    meetings = first_round(entrants, "bracket", random.Random(0))
    assert [(m.a, m.b) for m in meetings] == [
        (1, 16), (8, 9), (5, 12), (4, 13), (3, 14), (6, 11), (7, 10), (2, 15)
    ]  # fmt: skip


def _play_out(meetings, entrants, winner_of, seeding="bracket", rng=None, third_place=True):
    """Every round until the final, ``winner_of(a, b)`` deciding; the rounds as ``Decided``."""
    rng = rng or random.Random(0)
    by_id = {e.id: e for e in entrants}
    rounds = []
    while True:
        decided = [
            Decided(m.slot, m.a, m.b, m.a if m.b is None else winner_of(m.a, m.b)) for m in meetings
        ]
        rounds.append(decided)
        if sum(1 for d in decided if d.slot) == 1:
            return rounds
        meetings = next_round(decided, seeding, by_id, rng, third_place=third_place)


@RELAXED
@given(st.integers(2, 40), st.integers(0, 10**6))
def test_seeds_1_and_2_meet_only_in_the_final(n, seed):
    rng = random.Random(seed)
    entrants = [Entrant(i, i, f"U{rng.randrange(3)}") for i in range(1, n + 1)]
    rounds = _play_out(
        first_round(entrants, "bracket", rng),
        entrants,
        lambda a, b: rng.choice((a, b)),
        third_place=False,
    )
    for number, decided in enumerate(rounds, start=1):
        for d in decided:
            if {d.a, d.b} == {1, 2}:
                assert number == len(rounds) and d.slot == 1


@RELAXED
@given(st.integers(2, 40))
def test_byes_go_to_the_top_seeds(n):
    entrants = [Entrant(i, i) for i in range(1, n + 1)]
    meetings = first_round(entrants, "bracket", random.Random(0))
    byes = sorted(m.a for m in meetings if m.b is None)
    assert byes == list(range(1, bracket_size(n) - n + 1))
    lot = first_round(entrants, "lot", random.Random(1))
    assert sorted(m.a for m in lot if m.b is None) == byes


def test_first_round_same_unit_meetings_are_avoided_where_the_bracket_allows():
    # Seeds 1 and 16 are of one unit: 16 is exchanged with the nearest lower seed (15).
    entrants = [Entrant(i, i, "NJ" if i in (1, 16) else None) for i in range(1, 17)]
    meetings = first_round(entrants, "bracket", random.Random(0))
    assert (meetings[0].a, meetings[0].b) == (1, 15) and (meetings[7].a, meetings[7].b) == (2, 16)
    # Where it cannot be helped (everyone of one unit) nothing moves.
    same = [Entrant(i, i, "NJ") for i in range(1, 9)]
    assert [(m.a, m.b) for m in first_round(same, "bracket", random.Random(0))] == [
        (1, 8), (4, 5), (3, 6), (2, 7)
    ]  # fmt: skip


def test_first_round_meetings_of_one_group_are_avoided_where_the_bracket_allows():
    # Top two of four groups: winners A B C D are seeds 1–4, runners-up seeds 5–8 in the
    # order D C B A, so the bracket's 1–8, 4–5, 3–6, 2–7 are rematches of A, D, C, B.
    groups = dict(zip(range(1, 9), "ABCDDCBA", strict=True))
    entrants = [Entrant(i, i, None, groups[i]) for i in range(1, 9)]
    meetings = first_round(entrants, "bracket", random.Random(0))
    assert all(groups[m.a] != groups[m.b] for m in meetings)
    assert [m.a for m in meetings] == [1, 4, 3, 2]  # only lower seeds move
    # Without groups the same bracket keeps its order.
    plain = [Entrant(i, i) for i in range(1, 9)]
    assert [(m.a, m.b) for m in first_round(plain, "bracket", random.Random(0))] == [
        (1, 8), (4, 5), (3, 6), (2, 7)
    ]  # fmt: skip
    # A group apart before a unit apart: 1 and 8 share group A, 1 and 7 a unit.
    mixed = [
        Entrant(i, i, "NJ" if i in (1, 7) else None, "A" if i in (1, 8) else str(i))
        for i in range(1, 9)
    ]
    first = first_round(mixed, "bracket", random.Random(0))[0]
    assert first.a == 1 and first.b not in (7, 8)
    # Everyone of one group: nothing can be helped, nothing moves.
    one = [Entrant(i, i, None, "A") for i in range(1, 9)]
    assert [(m.a, m.b) for m in first_round(one, "bracket", random.Random(0))] == [
        (1, 8), (4, 5), (3, 6), (2, 7)
    ]  # fmt: skip


@RELAXED
@given(st.integers(4, 32), st.integers(1, 8), st.integers(0, 10**6))
def test_group_avoidance_never_adds_a_same_group_meeting(n, groups, seed):
    rng = random.Random(seed)
    entrants = [Entrant(i, i, None, str(rng.randrange(groups))) for i in range(1, n + 1)]
    group = {e.id: e.group for e in entrants}
    plain = [Entrant(e.id, e.seed) for e in entrants]
    for seeding in ("bracket", "lot"):
        before = first_round(plain, seeding, random.Random(seed))
        after = first_round(entrants, seeding, random.Random(seed))
        clashes = [sum(1 for m in ms if m.b and group[m.a] == group[m.b]) for ms in (before, after)]
        assert clashes[1] <= clashes[0]
        assert {m.a for m in after if m.b is None} == {m.a for m in before if m.b is None}


@RELAXED
@given(st.integers(4, 32), st.integers(0, 10**6))
def test_unit_avoidance_never_adds_a_same_unit_meeting(n, seed):
    rng = random.Random(seed)
    entrants = [Entrant(i, i, f"U{rng.randrange(4)}") for i in range(1, n + 1)]
    unit = {e.id: e.unit for e in entrants}

    def clashes(meetings):
        return sum(1 for m in meetings if m.b is not None and unit[m.a] == unit[m.b])

    plain = first_round(entrants, "bracket", random.Random(0), avoid_units=False)
    apart = first_round(entrants, "bracket", random.Random(0))
    assert clashes(apart) <= clashes(plain)
    half = bracket_size(n) // 2
    # Only lower seeds move: the top half of the seedings keeps its slots.
    assert [m.a for m in apart] == [m.a for m in plain]
    assert all(m.a <= half for m in apart)


def test_placings_with_a_third_place_match():
    entrants = [Entrant(i, i) for i in range(1, 9)]
    rounds = _play_out(
        first_round(entrants, "bracket", random.Random(0)), entrants, lambda a, b: min(a, b)
    )
    assert placings(rounds, {i: i for i in range(1, 9)}) == (
        (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (5, 6), (5, 7), (5, 8)
    )  # fmt: skip


def test_placings_without_a_third_place_match_share_third():
    rounds = [
        [Decided(1, 1, 4, 4), Decided(2, 2, 3, 2)],
        [Decided(1, 4, 2, 2)],
    ]
    assert placings(rounds, {1: 1, 2: 2, 3: 3, 4: 4}) == ((1, 2), (2, 4), (3, 1), (3, 3))


# -- best of n ---------------------------------------------------------------------------------

GAME = RuleSet.from_dict({"round_format": "game", "tie": "extra_deal"})
DEALS = RuleSet.from_dict({"round_format": "deals", "deals_per_round": 2, "tie": "extra_deal"})
TO_PAST_A_NS = ["NS3"] * 4 + ["NS2"]  # 2 → 5 → 8 → J → A, then passes A


def test_best_of_three_is_won_by_two_games():
    g1 = score_match(TO_PAST_A_NS, GAME)
    g2 = score_match([t.replace("NS", "EW") for t in TO_PAST_A_NS], GAME)
    g3 = score_match(TO_PAST_A_NS, GAME)
    series = decide_series([g1, g2], 3, last_complete=True)
    assert series.winner is None and series.leader is None and series.next_game == 3
    series = decide_series([g1, g2, g3], 3, last_complete=True)
    assert series.winner is Side.NS and series.next_game is None
    with pytest.raises(ScoringError) as caught:
        decide_series([g1, g3, g2], 3, last_complete=True)
    assert caught.value.code == "game_after_match"


def test_a_level_tie_is_decided_by_the_extra_deal():
    tied = score_match(["NS2", "EW2"], DEALS)
    assert game_winner(tied) is None
    series = decide_series([tied], 3, last_complete=True)
    assert series.winners == (None,) and series.next_game is None
    with pytest.raises(ScoringError) as caught:
        decide_series([tied, tied], 3, last_complete=True)
    assert caught.value.code == "game_not_decided"
    extra = score_match(["NS2", "EW2", "EW1"], DEALS)
    assert extra.extra_deal and game_winner(extra) is Side.EW


def test_an_unfinished_last_game_has_no_winner_yet():
    partial = score_match(["NS3"], DEALS, complete=False)
    series = decide_series([partial], 1, last_complete=False)
    assert series.winner is None and series.leader is None


def test_an_extra_deal_that_leaves_the_levels_equal_goes_to_its_winner():
    # Both at A: a win with the partner last (or at the other side's level) stays at A, so the
    # levels are still equal after the extra deal; "加打一副牌，决出胜负" — its winner takes it.
    eight = RuleSet.from_dict({"deals_per_round": 8, "tie": "extra_deal"})
    tied = score_match(["NS3"] * 4 + ["EW3"] * 4 + ["NS1"], eight)
    assert tied.extra_deal and tied.ns_level == tied.ew_level == 14
    # RULES.md §2: scored as a 1-level win (14:12 on 26:0), never a draw.
    assert tied.winner is Side.NS and game_winner(tied) is Side.NS
    assert (tied.jc, tied.ns_jcf, tied.ew_jcf, tied.ns_cf, tied.ew_cf) == (1, 14, 12, 2, 0)


# -- a timed game tied when time is called (RULES.md §2 "Level tie") ---------------------------

TIMED = RuleSet.from_dict({"round_format": "timed", "tie": "extra_deal"})
# Both sides at A, level, when time is called; the extra deal (EW at A, partner last) leaves
# them level: "it decides the match" — only the time call makes it the extra deal.
BOTH_AT_A = ["NS3"] * 4 + ["EW3"] * 4


def test_time_called_on_equal_levels_makes_the_next_deal_the_extra_deal():
    at_time = TIMED.at_time(8)
    # A timed game has no deal limit: the deals before the call are its regular deals and the
    # extra deal is counted apart (issue 28: not "9/8", no "超过本轮规定的 8 副").
    assert (at_time.round_format, at_time.max_deals, at_time.regular_deals) == ("timed", None, 8)
    tied = score_match([*BOTH_AT_A, "EW1"], at_time)
    assert tied.extra_deal and tied.finished and game_winner(tied) is Side.EW
    assert game_winner(score_match([*BOTH_AT_A, "EW1"], TIMED)) is None  # without the call
    with pytest.raises(ScoringError) as caught:
        score_match([*BOTH_AT_A, "EW1", "NS3"], at_time)
    assert caught.value.code == "event_after_extra_deal"  # the extra deal decided it
    # A 计时计副制 game called before its deals are played: the fewer deals count.
    nine = RuleSet.from_dict({"round_format": "timed_deals", "deals_per_round": 9})
    assert nine.at_time(4).regular_deals == 4 and nine.at_time(12).regular_deals == 9


def test_the_file_reads_a_closed_timed_game_tied_at_its_last_deal_as_the_extra_deal():
    from scoring.series import time_call_of_closed_game

    assert time_call_of_closed_game([*BOTH_AT_A, "EW1"], TIMED, None, None) == 8
    # Levels unequal before the last deal: no time call (5 : 2, then 5 : 5 — undecided).
    assert time_call_of_closed_game(["NS3", "EW3"], TIMED, None, None) is None
    draw = RuleSet.from_dict({"round_format": "timed", "tie": "draw"})
    assert time_call_of_closed_game([*BOTH_AT_A, "EW1"], draw, None, None) is None
    assert time_call_of_closed_game([*BOTH_AT_A, "EW1"], DEALS, None, None) is None
