"""RULES.md §1–§4, sentence by sentence, against the pure core (rules/, scoring/engine.py and,
through the engine, scoring/standings.py). Every test names its section (``test_s1_…`` …
``test_s4_…``) and quotes the sentence it checks; tables are parametrized row by row.

The cases are the edges of each rule: the A rule and attempts under ``reset_to_2``, a foul by the
side on stage at A, level awards at A, lateness at exactly 5 and 10 minutes, 判负 with the
offender above J / past A and the real difference exactly 4 or more, forfeits, byes, scales,
match-point variants, head-to-head and the mini-league, previous_rank, progressive, upgrades,
the drawing of lots and deductions by round.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import RuleError, ScoringError
from rules.events import Event, EventKind, Side, deal_from_places, parse_event
from rules.levels import ACE, LOWEST, PAST_ACE, level_label
from rules.progression import (
    TableState,
    apply_event,
    initial_state,
    penalty_loss_levels,
    start_for_lateness,
)
from rules.ruleset import CRITERION_KEYS, SCALE_PRESETS, TIEBREAK_PRESETS, RuleSet
from scoring.engine import End, Start, bye_outcome, match_outcomes, score_match
from scoring.standings import PRESETS, Deduction, compute_standings, lot_number

NS, EW = Side.NS, Side.EW
DEFAULT = RuleSet()  # 计副制, 8 deals, 26:0, 2/1/0, a_rule continue
TIMED = RuleSet(round_format="timed")  # any number of deals: lets a table show one rule alone
RESET = RuleSet(round_format="timed", a_rule="reset_to_2", a_attempts=3)
TO_A = ["NS3", "NS3", "NS3", "NS3"]  # NS climbs 2→5→8→J→A and is on stage at its own A


def play(tokens, rules=TIMED, start=None, end=None, complete=True):
    return score_match(tokens, rules, start, end, complete)


def levels(result):
    return [(step.ns_level, step.ew_level) for step in result.steps]


# ========== §1 The game, as far as scoring needs it ==========


def test_s1_four_players_two_partnerships_ns_and_ew():
    # §1 "two partnerships: North–South (南北) and East–West (东西)".
    assert {side.value for side in Side} == {"NS", "EW"}
    assert NS.other is EW and EW.other is NS


# §1 "partner 2nd → +3, partner 3rd → +2, partner 4th → +1".
@pytest.mark.parametrize(
    ("first", "partner_place", "token", "upgrade"),
    [
        (NS, 2, "NS3", 3),  # 双下 for the other side
        (NS, 3, "NS2", 2),
        (NS, 4, "NS1", 1),
        (EW, 2, "EW3", 3),
        (EW, 3, "EW2", 2),
        (EW, 4, "EW1", 1),
    ],
)
def test_s1_upgrade_by_the_partners_finishing_place(first, partner_place, token, upgrade):
    event = deal_from_places(first, partner_place)
    assert (event.token, event.upgrade, event.beneficiary) == (token, upgrade, first)


@pytest.mark.parametrize("partner_place", [0, 1, 5])
def test_s1_a_partner_cannot_finish_first_or_fifth(partner_place):
    # §1 finishing places are 上游 (1st, the first player himself) … 下游 (4th).
    with pytest.raises(RuleError) as error:
        deal_from_places(NS, partner_place)
    assert error.value.code == "bad_partner_place"


# §1 "Only the side of the 1st player upgrades … The other side does not move."
@pytest.mark.parametrize(
    ("state", "token", "after"),
    [
        (TableState(2, 2), "NS3", (5, 2)),
        (TableState(2, 2), "EW1", (2, 3)),
        (TableState(5, 9, EW), "NS2", (7, 9)),
        (TableState(9, 5, NS), "EW3", (9, 8)),
        (TableState(13, 13, NS), "EW1", (13, 14)),
    ],
)
def test_s1_only_the_first_players_side_upgrades(state, token, after):
    new = apply_event(state, parse_event(token)).state
    assert (new.ns, new.ew) == after


# §1 "Levels … 2 3 4 5 6 7 8 9 10 J Q K A, then 过A … integers 2…14 and 15 for 过A."
@pytest.mark.parametrize(
    ("label", "level"),
    [(str(n), n) for n in range(2, 11)] + [("J", 11), ("Q", 12), ("K", 13), ("A", 14), ("过A", 15)],
)
def test_s1_levels_are_2_to_14_and_15_for_past_a(label, level):
    assert level_label(level) == label
    assert (LOWEST, ACE, PAST_ACE) == (2, 14, 15)


def test_s1_both_sides_start_at_2_and_the_first_deal_is_played_at_2():
    # §1 "Both sides start at 2. … (the first deal at 2)".
    state = initial_state()
    assert (state.ns, state.ew, state.on_stage) == (2, 2, None)
    result = play(["EW2"])
    assert (result.steps[0].level_played, result.steps[0].on_stage) == (2, None)


# §1 "A deal is played at the level of the side that won the previous deal …; that side is
# on stage".
@pytest.mark.parametrize(
    ("tokens", "played", "on_stage"),
    [
        (["NS3", "NS1", "EW2"], [2, 5, 6], [None, NS, NS]),
        (["NS3", "EW1", "EW1", "NS2"], [2, 5, 3, 4], [None, NS, EW, EW]),
        (["EW3", "foul:EW", "NS1"], [2, 5, 5], [None, EW, NS]),  # the innocent side won the deal
        (["NS2", "adjust:NS+3", "EW1"], [2, 7], [None, NS]),  # an award is not a deal
    ],
)
def test_s1_a_deal_is_played_at_the_level_of_the_side_on_stage(tokens, played, on_stage):
    steps = play(tokens).steps
    deals = [step for step in steps if step.event.is_deal]
    assert [step.level_played for step in deals] == played
    assert [step.on_stage for step in deals] == on_stage


# §1 "A must be played (A必打): an upgrade never jumps past A; it stops at A."
@pytest.mark.parametrize(
    ("ns", "token", "ns_after"),
    [(11, "NS3", 14), (12, "NS3", 14), (12, "NS2", 14), (13, "NS3", 14), (13, "NS1", 14)],
)
def test_s1_an_upgrade_stops_at_a(ns, token, ns_after):
    for on_stage in (NS, EW):  # on stage at K/Q/J or winning at the other side's level
        assert apply_event(TableState(ns, 6, on_stage), parse_event(token)).state.ns == ns_after


# §1 "A side passes A only by winning a deal played at its own A (it is on stage at A) with the
# partner 2nd or 3rd. Winning with the partner 4th, or losing the deal, leaves it at A."
@pytest.mark.parametrize(
    ("state", "token", "ns_after", "attempt"),
    [
        (TableState(14, 6, NS), "NS3", PAST_ACE, NS),
        (TableState(14, 6, NS), "NS2", PAST_ACE, NS),
        (TableState(14, 6, NS), "NS1", ACE, NS),  # partner 4th
        (TableState(14, 6, NS), "EW3", ACE, NS),  # lost the deal
        (TableState(14, 6, NS), "EW1", ACE, NS),
        (TableState(14, 6, EW), "NS3", ACE, None),  # played at EW's 6: not at its own A
        (TableState(14, 14, EW), "NS2", ACE, EW),  # EW's A: NS cannot pass on it
    ],
)
def test_s1_passing_a_only_on_stage_at_own_a_with_partner_2nd_or_3rd(
    state, token, ns_after, attempt
):
    change = apply_event(state, parse_event(token))
    assert change.state.ns == ns_after
    assert change.attempt_at_a is attempt
    assert change.level_played == state.level(state.on_stage)


def test_s1_failed_attempts_default_none_keeps_playing_a():
    # §1 "Failed attempts at A — configurable, default none (… keep playing A)".
    assert RuleSet.from_dict({}).a_rule == "continue"
    result = play([*TO_A, *["NS1", "EW1", "NS1"] * 5])
    assert result.ns_level == ACE
    assert all(step.reset_to_2 is None for step in result.steps)


# §1 "after 3 failed attempts the side drops back to 2 (reset_to_2). An attempt is a deal played
# at the side's own A (it is on stage at A); it fails unless the side passes A. A side at A that
# wins a deal played at the other side's level stays at A and goes on stage; that deal is not an
# attempt."
@pytest.mark.parametrize(
    ("after_a", "a_attempts", "ns_final", "reset_at"),
    [
        # three failures by winning with the partner last (stays on stage each time)
        (["NS1", "NS1", "NS1"], 3, 2, 2),
        # lost at own A, won back at EW's level (not an attempt), lost again, failed with NS1
        (["EW1", "NS1", "EW1", "NS3", "NS1"], 3, 2, 4),
        # attempts are counted across deals that are not attempts
        (["EW3", "NS3", "EW1", "NS1"], 3, ACE, None),
        # a foul by the side on stage at its own A is a failed attempt
        (["foul:NS", "NS3", "foul:NS", "NS1", "foul:NS"], 3, 2, 4),
        # passing on the third attempt: no reset
        (["NS1", "NS1", "NS2"], 3, PAST_ACE, None),
        # a_attempts is configurable
        (["NS1"], 1, 2, 0),
        (["EW1", "NS1", "NS1"], 2, 2, 2),
        # an award at A is not a deal and not an attempt
        (["adjust:NS+2", "NS1", "adjust:NS+1", "NS1"], 3, ACE, None),
    ],
)
def test_s1_reset_to_2_after_failed_attempts(after_a, a_attempts, ns_final, reset_at):
    rules = RuleSet(round_format="timed", a_rule="reset_to_2", a_attempts=a_attempts)
    result = play([*TO_A, *after_a], rules)
    assert result.ns_level == ns_final
    resets = [i for i, step in enumerate(result.steps[4:]) if step.reset_to_2 is NS]
    assert resets == ([] if reset_at is None else [reset_at])
    if reset_at is not None:
        # After a reset the count starts again: the side is back at 2, its failures at 0.
        assert result.steps[4 + reset_at].ns_level == LOWEST


def test_s1_reset_to_2_counts_each_sides_attempts_separately():
    # §1 "An attempt is a deal played at the side's own A": EW's failures are not NS's.
    tokens = [*TO_A, "NS1", "EW3", "EW3", "EW3", "EW3", "EW1", "EW1", "NS1"]
    result = play(tokens, RESET)
    # NS: NS1 (1st failure); EW climbs to A; EW1, EW1 on EW's A (EW: 2 failures);
    # NS1 is played at EW's A, so it is EW's third failed attempt: EW drops to 2, NS stays at A.
    assert result.steps[-1].reset_to_2 is EW
    assert (result.ns_level, result.ew_level) == (ACE, LOWEST)


def test_s1_a_side_at_a_winning_at_the_other_sides_level_goes_on_stage_not_an_attempt():
    change = apply_event(TableState(ACE, 7, EW), parse_event("NS1"), "reset_to_2", 1)
    assert (change.state.ns, change.state.on_stage) == (ACE, NS)
    assert change.attempt_at_a is None and change.reset_to_2 is None
    assert change.state.ns_a_failures == 0


def test_s1_lateness_punctual_side_starts_higher_and_is_on_stage_for_the_first_deal():
    # §1 "With lateness … the punctual side starts higher and is on stage for the first deal."
    for start, on_stage, played in ((Start(3, 2), NS, 3), (Start(2, 4), EW, 4)):
        step = play(["NS1"], start=start).steps[0]
        assert (step.on_stage, step.level_played) == (on_stage, played)


@pytest.mark.parametrize("token", ["tribute:NS", "进贡:NS", "NS", "NS4", "EW0"])
def test_s1_tribute_and_card_combinations_are_no_events(token):
    # §1 "Tribute … and card combinations do not affect scoring": only deals, fouls and awards.
    with pytest.raises(RuleError) as error:
        parse_event(token)
    assert error.value.code == "bad_token"


# ========== §2 A match and its result ==========


# §2 round formats: 计副制 / 计局制 / 计时制 / 计时计副制.
@pytest.mark.parametrize(
    ("round_format", "deals", "complete", "error"),
    [
        ("deals", 8, True, None),
        ("deals", 7, True, "too_few_deals"),
        ("deals", 7, False, None),  # a table still being played
        ("deals", 9, True, "too_many_deals"),
        ("game", 30, False, None),
        ("game", 30, True, "game_not_finished"),  # 计局制: play until one side passes A
        # §2 "A finished match with no deal and no `end` is refused (nothing was played)."
        ("timed", 0, True, "nothing_played"),
        ("timed", 0, False, None),  # still being played
        ("timed", 1, True, None),  # 计时制: the deals completed count
        ("timed", 3, True, None),
        ("timed", 40, True, None),
        ("timed_deals", 0, True, "nothing_played"),
        ("timed_deals", 3, True, None),  # 计时计副制: whichever comes first
        ("timed_deals", 8, True, None),
        ("timed_deals", 9, True, "too_many_deals"),
    ],
)
def test_s2_round_formats(round_format, deals, complete, error):
    rules = RuleSet(round_format=round_format, deals_per_round=8)
    tokens = ["NS1", "EW1"] * (deals // 2) + ["NS1"] * (deals % 2)  # nobody reaches A
    if error is None:
        assert play(tokens, rules, complete=complete).deals_played == deals
    else:
        with pytest.raises(ScoringError) as raised:
            play(tokens, rules, complete=complete)
        assert raised.value.code == error


# §2 "In every format the match ends at once when a side passes A; no deal may be entered after
# that."
@pytest.mark.parametrize("round_format", ["deals", "game", "timed", "timed_deals"])
@pytest.mark.parametrize("after", ["EW1", "NS3", "foul:NS", "adjust:EW+1"])
def test_s2_the_match_ends_when_a_side_passes_a_in_every_format(round_format, after):
    rules = RuleSet(round_format=round_format)
    result = play([*TO_A, "NS2"], rules)  # 5 deals: a complete match even in 计副制
    assert result.passed_a is NS and result.finished and result.ns_level == PAST_ACE
    with pytest.raises(ScoringError) as error:
        play([*TO_A, "NS2", after], rules)
    assert (error.value.code, error.value.position) == ("event_after_past_a", 5)


# §2 "级差 (JC) = |final level of pair X − final level of pair Y| (过A = 15). The higher level
# wins; equal levels are a draw".
@pytest.mark.parametrize(
    ("tokens", "jc", "winner"),
    [
        (["NS1", "EW1"], 0, None),
        (["NS2", "EW2"], 0, None),
        (["NS1"], 1, NS),
        (["EW3", "EW3"], 6, EW),
        (["EW3", "NS2", "NS1"], 0, None),  # EW 5; NS 2→4 (at EW's 5), →5 (at its own 4)
        ([*TO_A, "NS2"], 13, NS),  # 过A (15) − 2
        (["EW3", *TO_A, "NS3"], 10, NS),  # 过A (15) − 5
    ],
    ids=["equal-3", "equal", "one", "six", "draw-at-5", "past-a-vs-2", "past-a-vs-5"],
)
def test_s2_level_difference_and_winner(tokens, jc, winner):
    result = play(tokens)
    assert result.jc == abs(result.ns_level - result.ew_level) == jc
    assert result.winner is winner


# §2 "26:0 scale … ahead gets 13 + JC, behind gets 13 − JC, JC capped at 13 (so 26:0 at most;
# 13:13 a draw)" and "the 28-point scale (14 ± JC, capped at 14)".
@pytest.mark.parametrize(
    ("key", "jc", "ahead", "behind"),
    [("26:0", jc, 13 + min(jc, 13), 13 - min(jc, 13)) for jc in range(0, 17)]
    + [("28", jc, 14 + min(jc, 14), 14 - min(jc, 14)) for jc in range(0, 17)],
)
def test_s2_scale_tables(key, jc, ahead, behind):
    scale = SCALE_PRESETS[key]
    assert scale.points(jc) == (ahead, behind)
    assert scale.total == (26 if key == "26:0" else 28)


def test_s2_the_scale_is_data_the_engine_reads_the_table():
    # §2 "the scale is data: a table JC → (ahead, behind) that the organizer can view and edit".
    rules = RuleSet.from_dict(
        {"round_format": "timed", "scale": {"table": [[0, 5, 5], [1, 7, 3], [2, 10, 0]]}}
    )
    assert (play(["NS1"], rules).ns_jcf, play(["NS1"], rules).ew_jcf) == (7, 3)
    assert (play(["EW3"], rules).ns_jcf, play(["EW3"], rules).ew_jcf) == (0, 10)  # capped
    draw = play(["NS1", "EW1"], rules)
    assert (draw.ns_jcf, draw.ew_jcf) == (5, 5)


# §2 "Match points 场分 (CF): win 2, draw 1, loss 0 (configurable, e.g. 1/0.5/0 or 3/2/1)".
@pytest.mark.parametrize(
    ("points", "tokens", "cf"),
    [
        ({}, ["NS1"], (2, 0)),
        ({}, ["NS2", "EW2"], (1, 1)),
        ({}, ["EW2"], (0, 2)),
        ({"win": 1, "draw": 0.5, "loss": 0}, ["NS1"], (1, 0)),
        ({"win": 1, "draw": 0.5, "loss": 0}, ["NS1", "EW1"], (0.5, 0.5)),
        ({"win": 3, "draw": 2, "loss": 1}, ["EW1"], (1, 3)),
        ({"win": 3, "draw": 2, "loss": 1}, ["NS1", "EW1"], (2, 2)),
    ],
)
def test_s2_match_points(points, tokens, cf):
    rules = RuleSet.from_dict({"round_format": "timed", "match_points": points})
    result = play(tokens, rules)
    assert (result.ns_cf, result.ew_cf) == cf


# §2 "Forfeit (弃权): the present pair gets 2 CF + 17 JCF, the absent pair 0 + 0 (configurable)."
@pytest.mark.parametrize(
    ("overrides", "absent", "tokens", "figures"),
    [
        ({}, EW, [], (2, 17, 0, 0)),
        ({}, NS, [], (0, 0, 2, 17)),
        ({}, NS, ["NS3", "NS3"], (0, 0, 2, 17)),  # deals before the forfeit do not count
        ({"forfeit": {"cf": 3, "jcf": 20}}, EW, [], (3, 20, 0, 0)),
        ({"forfeit": {"cf": 1, "jcf": 13}}, NS, [], (0, 0, 1, 13)),
    ],
)
def test_s2_forfeit(overrides, absent, tokens, figures):
    rules = RuleSet.from_dict({"round_format": "timed", **overrides})
    result = play(tokens, rules, end=End("forfeit", absent))
    assert (result.ns_cf, result.ns_jcf, result.ew_cf, result.ew_jcf) == figures
    assert result.winner is absent.other and result.forfeit is absent and result.finished
    # TOURNAMENT_FILE.md: a forfeit counts as a win/loss and adds 0 to level_difference/upgrades.
    ns, ew = match_outcomes(1, 10, 20, result)
    assert (ns.kind, ew.kind) == ("forfeit", "forfeit")
    assert {ns.result, ew.result} == {"win", "loss"}
    assert (ns.level_difference, ew.level_difference, ns.upgrades, ew.upgrades) == (0, 0, 0, 0)


def test_s2_a_forfeit_needs_no_deals_even_in_the_deals_format():
    result = play([], DEFAULT, end=End("forfeit", NS))
    assert result.deals_played == 0 and (result.ew_cf, result.ew_jcf) == (2, 17)


# §2 "Lateness (迟到): late 0–5 min → the punctual side starts at 3; 5–10 min → at 4; over 10 min
# → the late side forfeits the round." Boundaries: 5 belongs to 0–5, 10 to 5–10.
@pytest.mark.parametrize(
    ("minutes", "punctual_level"),
    [
        (0, 2),  # not late
        (0.5, 3),
        (4.99, 3),
        (5, 3),
        (5.01, 4),
        (9.99, 4),
        (10, 4),
        (10.01, None),
        (25, None),
    ],
)
@pytest.mark.parametrize("late", [NS, EW])
def test_s2_lateness(minutes, punctual_level, late):
    state = start_for_lateness(minutes, late)
    if punctual_level is None:
        assert state is None  # the late side forfeits the round
        return
    assert state.level(late) == LOWEST
    assert state.level(late.other) == punctual_level
    assert state.on_stage is (None if punctual_level == LOWEST else late.other)


# §2 "Loss by penalty (判负): the match ends; the innocent side wins; its level is recorded as the
# offender's level + 4, the offender's level first lowered to J if it is above J (so J+4 = 过A);
# if the real difference at the table already favours the innocent side by more than 4, the
# table score stands."
@pytest.mark.parametrize(
    ("offender", "innocent", "recorded"),
    [
        (2, 2, (2, 6)),
        (5, 3, (5, 9)),  # the offender was ahead
        (7, 9, (7, 11)),  # the innocent side ahead by 2
        (10, 14, (10, 14)),  # ahead by exactly 4: offender + 4, the same levels
        (2, 6, (2, 6)),
        (2, 7, (2, 7)),  # ahead by 5: the table score stands
        (3, 14, (3, 14)),
        (11, 3, (11, 15)),  # at J: J + 4 = 过A
        (12, 5, (11, 15)),  # above J: lowered to J first
        (13, 13, (11, 15)),
        (14, 9, (11, 15)),  # the offender at A
        (15, 9, (11, 15)),  # the offender had already passed A
        (11, 15, (11, 15)),  # the innocent side had passed A
        (9, 15, (9, 15)),  # … by more than 4: stands
    ],
)
def test_s2_penalty_loss_levels(offender, innocent, recorded):
    assert penalty_loss_levels(offender, innocent) == recorded


@given(st.integers(2, 15), st.integers(2, 15))
def test_s2_penalty_loss_always_makes_the_innocent_side_win_by_at_least_4(offender, innocent):
    # §2 "the innocent side wins": never below its real level, JC exactly 4 unless it stands.
    recorded_offender, recorded_innocent = penalty_loss_levels(offender, innocent)
    assert recorded_innocent >= innocent and recorded_offender <= offender
    assert recorded_innocent - recorded_offender >= 4
    stands = innocent - offender > 4
    assert (recorded_offender, recorded_innocent) == (
        (offender, innocent) if stands else (min(offender, 11), min(offender, 11) + 4)
    )


@pytest.mark.parametrize(
    ("tokens", "start", "offender", "recorded", "jcf", "cf"),
    [
        (["EW2", "EW2", "NS3"], Start(2, 3), NS, (5, 9), (9, 17), (0, 2)),  # worked example
        ([*TO_A, "NS1"], None, NS, (11, 15), (9, 17), (0, 2)),  # offender at A → J, EW 过A
        (["NS3", "NS3", "NS3", "NS1"], None, NS, (11, 15), (9, 17), (0, 2)),  # at Q → J
        (["NS3", "NS3", "NS3"], None, EW, (11, 2), (22, 4), (2, 0)),  # innocent ahead by 9
        (["NS3", "NS1"], None, EW, (6, 2), (17, 9), (2, 0)),  # innocent ahead by exactly 4
        (["NS3", "NS2"], None, EW, (7, 2), (18, 8), (2, 0)),  # ahead by 5: stands
        ([], Start(2, 4), EW, (8, 4), (17, 9), (2, 0)),  # at the start, the offender late
    ],
)
def test_s2_penalty_loss_in_a_match(tokens, start, offender, recorded, jcf, cf):
    result = play(tokens, start=start, end=End("penalty_loss", offender))
    assert (result.ns_level, result.ew_level) == recorded
    assert (result.ns_jcf, result.ew_jcf) == jcf
    assert (result.ns_cf, result.ew_cf) == cf
    assert result.winner is offender.other and result.penalty_loss is offender
    assert result.finished
    # The table's own levels are kept for the score sheet.
    table = levels(result)[-1] if tokens else (start.ns, start.ew)
    assert (result.table_ns_level, result.table_ew_level) == table


def test_s2_penalty_loss_ends_a_deals_match_early():
    # §2 "the match ends": a 计副制 table with an end needs no more deals.
    result = play(["NS1", "EW1"], DEFAULT, end=End("penalty_loss", EW))
    assert result.deals_played == 2 and result.winner is NS


# §2 "Bye (轮空 …): default the same as a forfeit win (2 CF + 17 JCF), configurable."
@pytest.mark.parametrize(
    ("overrides", "cf", "jcf"),
    [({}, 2, 17), ({"bye": {"cf": 1, "jcf": 13}}, 1, 13), ({"bye": {"cf": 2, "jcf": 0}}, 2, 0)],
)
def test_s2_bye(overrides, cf, jcf):
    rules = RuleSet.from_dict(overrides)
    outcome = bye_outcome(3, 7, rules)
    assert (outcome.cf, outcome.jcf, outcome.kind, outcome.result) == (cf, jcf, "bye", "win")
    assert (outcome.opponent, outcome.level_difference, outcome.upgrades) == (None, 0, 0)
    if not overrides:  # "the same as a forfeit win"
        assert (rules.bye.cf, rules.bye.jcf) == (rules.forfeit.cf, rules.forfeit.jcf)


# ========== §3 Penalties ==========


# §3 "犯规 foul — the current deal ends, the offender's side is scored 双下 (the innocent side
# gets +3 from its own level)".
@pytest.mark.parametrize(
    ("state", "token", "after", "on_stage", "attempt"),
    [
        (TableState(2, 2), "foul:NS", (2, 5), EW, None),
        (TableState(6, 9, EW), "foul:EW", (9, 9), NS, None),  # from the innocent side's own level
        (TableState(12, 4, EW), "foul:EW", (14, 4), NS, None),  # capped at A
        (TableState(14, 4, EW), "foul:EW", (14, 4), NS, None),  # at A, not on stage: stays at A
        (TableState(14, 4, NS), "foul:EW", (15, 4), NS, NS),  # on stage at its A: 双下 passes A
        (TableState(14, 4, NS), "foul:NS", (14, 7), EW, NS),  # offender on stage at A: failed
    ],
)
def test_s3_foul_scores_the_innocent_side_plus_3(state, token, after, on_stage, attempt):
    change = apply_event(state, parse_event(token))
    assert (change.state.ns, change.state.ew) == after
    assert change.state.on_stage is on_stage
    assert change.attempt_at_a is attempt


def test_s3_a_foul_ends_the_deal_it_counts_as_one_of_the_rounds_deals():
    result = play(["foul:NS", "foul:EW"] * 4, DEFAULT)  # both sides 2→5→8→J→A
    assert result.deals_played == 8 and [s.deal_number for s in result.steps] == list(range(1, 9))
    with pytest.raises(ScoringError) as error:
        play(["foul:NS", "foul:EW"] * 4 + ["foul:NS"], DEFAULT)
    assert error.value.code == "too_many_deals"


# §3 "升级调整 level adjustment — … award the innocent side +N levels …; recorded as an event in
# the match's deal sequence." TOURNAMENT_FILE.md: capped at A, never passes A, not a deal.
@pytest.mark.parametrize(
    ("before", "token", "after"),
    [
        ([], "adjust:NS+2", (4, 2)),
        (["EW3"], "adjust:NS+3", (5, 5)),
        (["NS3", "NS3", "NS3"], "adjust:NS+2", (13, 2)),
        (["NS3", "NS3", "NS3"], "adjust:NS+5", (14, 2)),  # capped at A
        (TO_A, "adjust:NS+1", (14, 2)),  # at A: never passes A
        (TO_A, "adjust:NS+13", (14, 2)),
    ],
)
def test_s3_level_adjustment(before, token, after):
    result = play([*before, token], complete=False)
    step = result.steps[-1]
    assert (step.ns_level, step.ew_level) == after
    assert step.deal_number is None and step.level_played is None
    assert result.deals_played == len(before)
    assert result.on_stage is (result.steps[-2].event.beneficiary if before else None)
    assert result.passed_a is None


def test_s3_deduction_comes_off_the_tournament_total_not_the_match():
    # §3 "级差分扣分 deduction — subtract N JCF (often 1) from the offender's tournament total
    # (not from the match)"; §4 "deductions apply to JCF" (not to CF), from their round on.
    result = play(["NS1"])
    assert (result.ns_jcf, result.ew_jcf) == (14, 12)  # the match is untouched
    one, two = match_outcomes(1, 1, 2, result)
    three, four = match_outcomes(2, 1, 2, play(["EW1"]))
    deductions = [Deduction(2, 1, 1), Deduction(None, 2, 0.5)]
    after_1 = compute_standings([1, 2], [one, two], deductions, "regulation", 7, 1)
    after_2 = compute_standings([1, 2, 3], [one, two, three, four], deductions, "regulation", 7, 2)
    by_pair_1 = {row.pair: row for row in after_1}
    by_pair_2 = {row.pair: row for row in after_2}
    assert (by_pair_1[1].jcf, by_pair_1[1].deductions, by_pair_1[1].cf) == (14, 0, 2)
    assert (by_pair_1[2].jcf, by_pair_1[2].deductions) == (11.5, 0.5)  # no round: always
    assert (by_pair_2[1].jcf, by_pair_2[1].deductions, by_pair_2[1].cf) == (25, 1, 2)
    assert (by_pair_2[2].jcf, by_pair_2[2].cf) == (25.5, 2)


def test_s3_disqualification_results_so_far_stand():
    # §3 "取消资格 — the pair plays no further rounds; its results so far stand."
    r1 = match_outcomes(1, 1, 2, play(["NS3"]))
    r2 = match_outcomes(2, 1, 3, play(["EW1"]))  # pair 2 is disqualified after round 1
    rows = compute_standings([1, 2, 3], [*r1, *r2], [], "regulation", 1, 2)
    two = next(row for row in rows if row.pair == 2)
    assert (two.cf, two.jcf, two.losses) == (0, 10, 1)


# ========== §4 Standings and tiebreaks ==========


def test_s4_presets_agree_between_the_settings_and_the_standings():
    # §4 the two presets; TOURNAMENT_FILE.md "Criterion keys": the same lists in both modules.
    assert TIEBREAK_PRESETS == PRESETS
    assert TIEBREAK_PRESETS["regulation"] == (
        "jcf",
        "head_to_head",
        "wins",
        "draws",
        "level_difference",
        "opponents_cf",
        "previous_rank",
    )
    assert TIEBREAK_PRESETS["jiangsu2017"] == ("progressive", "wins", "jcf", "upgrades", "lot")
    for key in CRITERION_KEYS:
        compute_standings([1], [], [], [key], 0, 0)  # every settings key is a standings key


DRAW = ["NS1", "EW1"]  # a draw at 3:3 (RULES.md §2: a finished match with no deal is refused)


def _chain(matches, rules=TIMED):
    """Outcomes from (round, ns pair, ew pair, tokens, end) through the engine."""
    outcomes = []
    for number, ns, ew, tokens, *end in matches:
        result = play(tokens, rules, end=end[0] if end else None)
        outcomes.extend(match_outcomes(number, ns, ew, result))
    return outcomes


def test_s4_rank_by_total_match_points_first():
    # §4 "Rank by total match points (CF)": a win by 1 (2 CF, 14 JCF) above a draw (1 CF,
    # 13 JCF), the draw above the loss by 1 (0 CF, 12 JCF).
    outcomes = _chain([(1, 1, 2, ["NS1"]), (1, 3, 4, DRAW)])
    rows = compute_standings([1, 2, 3, 4], outcomes, [], "regulation", 3, 1)
    assert (rows[0].pair, rows[-1].pair) == (1, 2)
    assert rows[1].decided_by == "cf"


def test_s4_head_to_head_two_tied_pairs_that_met_winner_first():
    # §4 "head-to-head — if the tied pairs met, the winner ranks first". Pairs 1 and 2 have 2 CF
    # and 26 JCF each; 2 beat 1 in round 1.
    outcomes = _chain([(1, 1, 2, ["EW1"]), (1, 3, 4, DRAW), (2, 1, 3, ["NS1"]), (2, 2, 4, ["EW1"])])
    for seed in range(6):  # whatever the lot
        rows = {
            row.pair: row
            for row in compute_standings(range(1, 5), outcomes, [], "regulation", seed, 2)
        }
        assert (rows[1].cf, rows[1].jcf) == (rows[2].cf, rows[2].jcf) == (2, 26)
        assert rows[1].rank == rows[2].rank + 1
        assert rows[1].decided_by == "head_to_head"


def test_s4_head_to_head_mini_league_when_every_pair_met_every_other():
    # §4 "a mini-league among the tied pairs when every pair in the group has met every other":
    # 1, 2, 3 have 3 CF each; among themselves 1 beat 2, 2 drew 3, 1 drew 3 → 1 (3), 3 (2), 2 (1).
    outcomes = _chain(
        [
            (1, 1, 2, ["NS1"]),
            (1, 3, 4, DRAW),
            (2, 2, 3, DRAW),
            (2, 5, 1, ["NS1"]),
            (3, 1, 3, DRAW),
            (3, 2, 6, ["NS1"]),
        ]
    )
    for seed in range(6):
        rows = compute_standings(range(1, 7), outcomes, [], ["head_to_head"], seed, 3)
        assert [(row.pair, row.cf) for row in rows[:3]] == [(1, 3), (3, 3), (2, 3)]
        assert [row.decided_by for row in rows[:3]] == [None, "head_to_head", "head_to_head"]


def test_s4_head_to_head_not_applied_when_not_every_pair_of_the_group_met():
    # §4 "apply only when it separates the group cleanly; a mini-league … when every pair in the
    # group has met every other": 1 beat 2, but 3 met neither; the group goes on to the lot.
    outcomes = _chain(
        [(1, 1, 2, ["NS1"]), (1, 3, 4, ["NS1"]), (2, 2, 5, ["NS1"]), (2, 4, 3, ["NS1"])]
    )
    outcomes += _chain([(2, 1, 6, ["EW1"])])
    seeds = {
        tuple(r.pair for r in compute_standings(range(1, 7), outcomes, [], ["head_to_head"], s, 2))[
            :3
        ]
        for s in range(12)
    }
    assert len(seeds) > 1  # the lot, not head-to-head, orders 1, 2, 3


def test_s4_wins_draws_level_difference_opponents_cf_from_the_engine():
    # §4 3–6: wins (draws not counted), draws, signed sum of JC, opponents' cumulative CF (byes
    # count nothing).
    rules = TIMED
    outcomes = _chain([(1, 1, 2, ["NS2"]), (1, 3, 4, DRAW), (2, 1, 3, ["EW1"]), (2, 2, 4, DRAW)])
    outcomes.append(bye_outcome(3, 1, rules))
    outcomes += _chain([(3, 2, 3, ["NS3"])])
    rows = {row.pair: row for row in compute_standings([1, 2, 3, 4], outcomes, [], (), 0, 3)}
    one = rows[1]
    assert (one.cf, one.wins, one.draws, one.losses) == (4, 2, 0, 1)  # the bye is a win
    assert one.level_difference == 2 - 1  # +2, −1, bye 0
    assert one.opponents_cf == rows[2].cf + rows[3].cf  # nothing for the bye
    assert (rows[4].draws, rows[4].wins) == (2, 0)


def test_s4_previous_rank_is_the_rank_after_the_previous_round():
    # §4 regulation 7: "rank after the previous round" (same criteria, a chain of standings).
    outcomes = _chain([(1, 1, 2, ["EW1"]), (1, 3, 4, ["NS1"]), (2, 1, 4, ["NS1"]), (2, 2, 3, DRAW)])
    after_1 = compute_standings([1, 2, 3, 4], outcomes, [], "regulation", 9, 1)
    after_2 = compute_standings([1, 2, 3, 4], outcomes, [], "regulation", 9, 2)
    rank_1 = {row.pair: row.rank for row in after_1}
    assert all(row.previous_rank == rank_1[row.pair] for row in after_2)
    assert all(row.previous_rank is None for row in after_1)


def test_s4_jiangsu_progressive_and_upgrades_from_the_engine():
    # §4 Jiangsu 2017: "(去首)累进分 — the sum over rounds r = 2…N of the cumulative CF after r";
    # "total upgrades 升级数 (section 2: final level − 2 in each match, summed)".
    rules = RuleSet.from_dict({"round_format": "timed", "tiebreaks": "jiangsu2017"})
    outcomes = _chain(
        [
            (1, 1, 2, ["NS3", "EW1", "NS2"]),  # 1 ends at 7 (5), 2 at 3 (1)
            (1, 3, 4, ["EW2"]),
            (2, 1, 3, ["EW3"]),
            (2, 2, 4, ["NS1", "NS1"]),
            (3, 1, 4, DRAW),  # both end at 3: 1 each
            (3, 2, 3, ["foul:NS", "adjust:NS+2"]),  # EW (3) ends at 5 (3), NS (2) at 4 (2)
        ],
        rules,
    )
    rows = {
        row.pair: row
        for row in compute_standings([1, 2, 3, 4], outcomes, [], rules.tiebreaks, 0, 3)
    }
    assert rows[1].upgrades == 5 + 0 + 1
    assert rows[2].upgrades == 1 + 2 + 2
    assert rows[3].upgrades == 0 + 3 + 3
    # pair 1: CF 2, 2, 3 → progressive 2 + 3 = 5; pair 3: 0, 2, 4 → 2 + 4 = 6.
    assert (rows[1].progressive, rows[3].progressive) == (5, 6)


def test_s4_drawing_of_lots_is_seeded_reproducible_and_recorded():
    # §4 "drawing of lots (a seeded, recorded random order)".
    rules = RuleSet.from_dict({"seed": 20261129, "tiebreaks": "jiangsu2017"})
    assert rules.to_dict()["seed"] == 20261129
    first = compute_standings(range(1, 21), [], [], rules.tiebreaks, rules.seed, 0)
    again = compute_standings(list(range(20, 0, -1)), [], [], rules.tiebreaks, rules.seed, 0)
    assert [r.pair for r in first] == [r.pair for r in again]
    assert [r.pair for r in first] == sorted(range(1, 21), key=lambda p: lot_number(rules.seed, p))
    other = compute_standings(range(1, 21), [], [], rules.tiebreaks, rules.seed + 1, 0)
    assert [r.pair for r in other] != [r.pair for r in first]
    assert all(row.decided_by in (None, "lot") for row in first)


def test_s4_each_row_says_which_criterion_separated_it():
    # §4 "Each standings row should be able to say which criterion separated it from the row
    # above."
    outcomes = _chain([(1, 1, 2, ["NS1"]), (1, 3, 4, ["NS3"])])
    rows = compute_standings([1, 2, 3, 4], outcomes, [], "regulation", 0, 1)
    assert [(row.pair, row.decided_by) for row in rows] == [
        (3, None),
        (1, "jcf"),
        (2, "cf"),
        (4, "jcf"),
    ]


def test_s2_worked_example_event_kinds():
    # TOURNAMENT_FILE.md "Deals": the three event kinds and what they move.
    assert parse_event("NS3") == Event(EventKind.DEAL, NS, 3)
    assert parse_event("foul:EW").beneficiary is NS
    assert not parse_event("adjust:EW+2").is_deal
