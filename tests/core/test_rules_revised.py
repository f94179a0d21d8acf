"""RULES.md §1–§4 as revised for issue 12, sentence by sentence, against the pure core: failed
attempts at A counted by deal or by stay on stage, how A is passed, 升级数 as the final level − 2,
the level tie and its extra deal, forfeits and byes by the scale, the late scoresheet, 判负 after
过A and the empty finished table, 本副判负, the escalations and who may impose what, and the
presets that name their seed. Same style as ``test_rules_by_section.py``: each test names its
section and quotes the sentence it checks.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import RuleSetError, ScoringError
from rules.events import Event, EventKind, Side, parse_event
from rules.levels import ACE, LOWEST, PAST_ACE
from rules.progression import TableState, apply_event
from rules.ruleset import (
    DEFAULT_PENALTY_AUTHORITY,
    ESCALATIONS,
    PRESETS,
    SCALE_PRESETS,
    TIEBREAK_PRESETS,
    Award,
    RuleSet,
    default_award,
    preset_settings,
)
from scoring.engine import End, Start, bye_outcome, extra_deal_allowed, match_outcomes, score_match
from tests.support.golden import EXAMPLES

NS, EW = Side.NS, Side.EW
TIMED = RuleSet(round_format="timed")
TO_A = ["NS3", "NS3", "NS3", "NS3"]  # NS 2→5→8→J→A, on stage at its own A


def rules_of(**settings_: object) -> RuleSet:
    return RuleSet.from_dict({"round_format": "timed", **settings_})


def final(tokens, rules=TIMED, start=None, end=None):
    result = score_match(tokens, rules, start, end)
    return result.table_ns_level, result.table_ew_level


# ========== §1 Failed attempts at A ==========


# §1 "What counts as an attempt is configurable too (`a_fail_count`): `deal` (default) — every
# deal played at the side's own A (it is on stage at A) that does not pass A; `stage` (seed 002,
# "第三次上臺又被推翻") — a stay on stage at A that ends by losing a deal (a win at A with the
# partner last keeps the side on stage and is not a failure)."
@pytest.mark.parametrize(
    ("state", "token", "count", "failure", "after"),
    [
        (TableState(ACE, 5, NS), "NS1", "deal", NS, (ACE, 5, NS)),  # a win at A, partner last
        (TableState(ACE, 5, NS), "NS1", "stage", None, (ACE, 5, NS)),  # keeps the stage
        (TableState(ACE, 5, NS), "EW1", "deal", NS, (ACE, 6, EW)),  # losing the deal
        (TableState(ACE, 5, NS), "EW1", "stage", NS, (ACE, 6, EW)),
        (TableState(ACE, 5, NS), "foul:NS", "stage", NS, (ACE, 8, EW)),
        (TableState(ACE, 5, NS), "lose:NS", "stage", NS, (ACE, 8, EW)),
        (TableState(ACE, 5, NS), "NS2", "stage", None, (PAST_ACE, 5, NS)),  # passes A
        (TableState(5, ACE, EW), "NS3", "stage", EW, (8, ACE, NS)),
    ],
)
def test_s1_what_counts_as_a_failed_attempt(state, token, count, failure, after):
    change = apply_event(state, parse_event(token), "continue", 3, count)
    assert change.a_failure is failure
    assert (change.state.ns, change.state.ew, change.state.on_stage) == after


@pytest.mark.parametrize("count", ["deal", "stage"])
def test_s1_a_win_at_the_other_sides_level_is_not_an_attempt(count):
    # §1 "A side at A that wins a deal played at the other side's level stays at A and goes on
    # stage; that deal is not an attempt."
    change = apply_event(TableState(ACE, 5, EW), parse_event("NS1"), "reset_to_2", 1, count)
    assert (change.state.ns, change.state.on_stage) == (ACE, NS)
    assert change.attempt_at_a is None and change.a_failure is None and change.reset_to_2 is None


# §1 "Variant from seeds 002 and 001: after 3 failed attempts the side drops back to 2" — with
# stage counting, the three stays on stage at A must each end by losing a deal.
STAGES = ["NS1", "EW3", "NS1", "NS1", "EW1", "NS1", "EW2"]  # wins at A (partner last) between


@pytest.mark.parametrize(
    ("count", "levels_after", "reset_at"),
    [
        # deal: failures at STAGES[0] (NS1 at A), [1] (EW3), [3] (NS1 at A) → reset at index 3.
        ("deal", [(14, 2), (14, 5), (14, 5), (2, 5), (2, 6), (3, 6), (3, 8)], 3),
        # stage: failures at [1] (EW3), [4] (EW1), [6] (EW2) → reset at index 6.
        ("stage", [(14, 2), (14, 5), (14, 5), (14, 5), (14, 6), (14, 6), (2, 8)], 6),
    ],
)
def test_s1_reset_to_2_after_three_failures_by_deal_or_by_stage(count, levels_after, reset_at):
    rules = rules_of(a_rule="reset_to_2", a_attempts=3, a_fail_count=count)
    steps = score_match([*TO_A, *STAGES], rules).steps[4:]
    assert [(s.ns_level, s.ew_level) for s in steps] == levels_after
    assert [i for i, s in enumerate(steps) if s.reset_to_2 is NS] == [reset_at]


def test_s1_stage_failures_are_only_counted_for_reset_to_2():
    # §1 "Failed attempts at A — configurable, default none (… keep playing A)".
    rules = rules_of(a_fail_count="stage")
    assert final([*TO_A, *STAGES], rules) == (ACE, 8)


# §1 "How A is passed — configurable (`a_pass`): `partner_2_or_3` (default …) or `double_only`
# (a company sheet in seed 001: "只有对方双下时才算是赢得本局" — only with the partner 2nd)."
@pytest.mark.parametrize(
    ("a_pass", "token", "level"),
    [
        ("partner_2_or_3", "NS3", PAST_ACE),
        ("partner_2_or_3", "NS2", PAST_ACE),
        ("partner_2_or_3", "NS1", ACE),
        ("double_only", "NS3", PAST_ACE),
        ("double_only", "NS2", ACE),
        ("double_only", "NS1", ACE),
        ("double_only", "foul:EW", PAST_ACE),  # a foul is scored as 双下 (+3)
        ("double_only", "lose:EW", PAST_ACE),
    ],
)
def test_s1_how_a_is_passed(a_pass, token, level):
    change = apply_event(TableState(ACE, 5, NS), parse_event(token), a_pass=a_pass)
    assert change.state.ns == level
    assert final([*TO_A, token], rules_of(a_pass=a_pass))[0] == level


def test_s1_double_only_keeps_the_side_on_stage_and_is_no_stage_failure():
    rules = rules_of(a_pass="double_only", a_rule="reset_to_2", a_attempts=1, a_fail_count="stage")
    result = score_match([*TO_A, "NS2", "NS2", "NS3"], rules)
    assert [(s.ns_level, s.on_stage) for s in result.steps[4:]] == [
        (ACE, NS),  # partner 3rd: not past A, still on stage
        (ACE, NS),
        (PAST_ACE, NS),  # partner 2nd: 过A
    ]
    assert result.passed_a is NS and result.ns_level == PAST_ACE


# ========== §2 A match and its result ==========


# §2 "Upgrades 升级数 of a side in a match = its final level − 2 (过A = 15 counts 13). So the
# lateness head start counts (the regulation calls it "升一级"), and a 判负 lowering or an A reset
# counts against it. Forfeits and byes count 0."
@pytest.mark.parametrize(
    ("tokens", "start", "end", "rules", "upgrades"),
    [
        (["NS1"], Start(3, 2), None, TIMED, (2, 0)),  # head start 3, +1 → 4
        (["EW2"], Start(2, 4), None, TIMED, (0, 4)),  # the punctual EW at 4 won nothing more
        ([*TO_A, "NS2"], None, None, TIMED, (13, 0)),  # 过A counts 13
        (["NS3", "NS3", "NS3", "NS2"], None, End("penalty_loss", NS), TIMED, (9, 13)),  # K → J
        (["EW2", "EW2", "NS3"], Start(2, 3), End("penalty_loss", NS), TIMED, (3, 7)),
        (["EW3", "EW3", "EW3"], None, End("penalty_loss", NS), TIMED, (0, 9)),  # table stands
        # NS fails at A three times (EW1 ×3) and drops to 2; EW ends at 5.
        ([*TO_A, "EW1", "NS1", "EW1", "NS1", "EW1"], None, None, "reset", (0, 3)),
        (["NS3"], None, End("forfeit", EW), TIMED, (0, 0)),
    ],
    ids=["lateness-3", "lateness-4", "past-a", "penalty-at-K", "penalty", "stands", "reset", "ff"],
)
def test_s2_upgrades_are_the_final_level_minus_2(tokens, start, end, rules, upgrades):
    if rules == "reset":
        rules = rules_of(a_rule="reset_to_2", a_attempts=3)
    result = score_match(tokens, rules, start, end)
    assert (result.ns_upgrades, result.ew_upgrades) == upgrades
    if end is None or end.kind != "forfeit":
        assert upgrades == (result.ns_level - LOWEST, result.ew_level - LOWEST)


def test_s2_upgrades_of_a_bye_are_0():
    assert bye_outcome(1, 7, RuleSet()).upgrades == 0


TOKENS = ["NS1", "NS2", "NS3", "EW1", "EW2", "EW3", "foul:NS", "lose:EW", "adjust:NS+2"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(TOKENS), min_size=1, max_size=30),
    st.sampled_from([None, End("penalty_loss", NS), End("penalty_loss", EW)]),
    st.sampled_from([(2, 2), (3, 2), (2, 4)]),
)
def test_s2_the_side_with_more_upgrades_wins(tokens, end, start):
    # §2 "The Jiangsu text decides a match by "升级数高的一方获胜", which this definition makes
    # the same as "the higher level wins"."
    try:
        result = score_match(tokens, TIMED, Start(*start), end)
    except ScoringError:
        return
    by_upgrades = (
        None
        if result.ns_upgrades == result.ew_upgrades
        else (NS if result.ns_upgrades > result.ew_upgrades else EW)
    )
    assert by_upgrades is result.winner


# §2 "Level tie (`tie`): `draw` (default) or `extra_deal` (Jiangsu: "如升级数相同，可加打一副牌，
# 决出胜负"; …): when the levels are equal after the last regular deal (or when time is called),
# one more deal is played from the current levels; it decides the match. The extra deal is the
# only deal allowed beyond `deals_per_round`."
EIGHT_TIED = ["NS1", "EW1"] * 4  # 6:6 after deal 8, EW on stage at 6
EXTRA = RuleSet(tie="extra_deal")


def test_s2_the_extra_deal_is_played_from_the_current_levels_and_decides():
    result = score_match([*EIGHT_TIED, "NS2"], EXTRA)
    assert result.deals_played == 9 and result.extra_deal and result.finished
    assert result.steps[-1].level_played == 6  # EW's level: EW won deal 8
    assert (result.ns_level, result.ew_level, result.winner) == (8, 6, NS)
    assert (result.ns_jcf, result.ew_jcf, result.ns_cf, result.ew_cf) == (15, 11, 2, 0)


def test_s2_without_the_extra_deal_a_tie_is_a_draw():
    # The file may hold the extra deal ("a table may hold one deal beyond"), so 8 tied deals
    # are still a complete match.
    result = score_match(EIGHT_TIED, EXTRA)
    assert result.winner is None and not result.extra_deal and not result.finished
    assert extra_deal_allowed(result, EXTRA)
    assert not extra_deal_allowed(result, RuleSet())  # tie: draw


@pytest.mark.parametrize(
    ("rules", "tokens", "code", "position"),
    [
        (RuleSet(), [*EIGHT_TIED, "NS2"], "too_many_deals", 8),  # tie: draw
        (EXTRA, [*EIGHT_TIED[:-1], "NS1", "NS2"], "extra_deal_without_tie", 8),  # 7:5
        # Only one extra deal: it decided the match (RULES.md §2), nothing follows it.
        (EXTRA, [*EIGHT_TIED, "NS2", "EW1"], "event_after_extra_deal", 9),
        (EXTRA, [*EIGHT_TIED, "NS2", "adjust:EW+1"], "event_after_extra_deal", 9),
        (RuleSet(round_format="timed_deals", tie="extra_deal"), ["NS1", "EW1"] * 5, None, None),
    ],
)
def test_s2_the_extra_deal_is_the_only_deal_beyond_deals_per_round(rules, tokens, code, position):
    if code is None:  # timed_deals: 8 + the extra deal, then the 10th is refused
        with pytest.raises(ScoringError) as error:
            score_match(tokens, rules)
        assert (error.value.code, error.value.position) == ("event_after_extra_deal", 9)
        return
    with pytest.raises(ScoringError) as error:
        score_match(tokens, rules)
    assert (error.value.code, error.value.position) == (code, position)


def test_s2_extra_deal_allowed_only_while_it_can_be_played():
    assert not extra_deal_allowed(score_match(EIGHT_TIED[:-1], EXTRA, complete=False), EXTRA)
    assert not extra_deal_allowed(score_match([*EIGHT_TIED[:-1], "NS1"], EXTRA), EXTRA)
    assert not extra_deal_allowed(score_match([*EIGHT_TIED, "NS1"], EXTRA), EXTRA)
    late = score_match(EIGHT_TIED, EXTRA, end=End("late_sheet", NS))
    assert not extra_deal_allowed(late, EXTRA)
    assert not extra_deal_allowed(score_match(["NS1", "EW1"], TIMED), TIMED)


# §2 "Forfeit (弃权): the present pair gets 2 CF + 17 JCF on the 26:0 scale (the scale's value for
# a 4-level win, so 18 on the 28 scale), the absent pair 0 + 0 (configurable)." and "Bye …:
# default the same as a forfeit win (2 CF + 17 JCF), configurable."
@pytest.mark.parametrize(
    ("settings_", "award"),
    [
        ({}, (2, 17)),
        ({"scale": "26:0"}, (2, 17)),
        ({"scale": "28"}, (2, 18)),
        ({"scale": {"table": [[0, 5, 5], [1, 6, 4], [2, 7, 3], [3, 8, 2], [4, 9, 1]]}}, (2, 9)),
        ({"scale": {"table": [[0, 5, 5], [1, 7, 3], [2, 10, 0]]}}, (2, 10)),  # capped at JC 2
    ],
)
def test_s2_forfeit_and_bye_are_the_scales_4_level_win(settings_, award):
    rules = RuleSet.from_dict(settings_)
    assert (rules.forfeit.cf, rules.forfeit.jcf) == award == (rules.bye.cf, rules.bye.jcf)
    assert rules.forfeit == default_award(rules.scale)
    result = score_match([], rules, end=End("forfeit", EW))
    assert (result.ns_cf, result.ns_jcf, result.ew_cf, result.ew_jcf) == (*award, 0, 0)
    bye = bye_outcome(2, 5, rules)
    assert (bye.cf, bye.jcf, bye.result) == (*award, "win")
    # Not written back when the file did not give it (TOURNAMENT_FILE.md: the default).
    assert "forfeit" not in rules.to_dict() and "bye" not in rules.to_dict()


def test_s2_forfeit_and_bye_are_configurable():
    rules = RuleSet.from_dict(
        {"scale": "28", "forfeit": {"cf": 2, "jcf": 17}, "bye": {"cf": 1, "jcf": 14}}
    )
    assert (rules.forfeit, rules.bye) == (Award(2, 17), Award(1, 14))
    assert rules.to_dict()["forfeit"] == {"cf": 2, "jcf": 17}
    assert rules.to_dict()["bye"] == {"cf": 1, "jcf": 14}
    assert RuleSet.from_dict({"scale": "28", "bye": {"jcf": 16}}).bye == Award(2, 16)


# §2 "Late scoresheet (seed 003: "…未按时交记分表者，责任方按弃权记分，非责任方按实际比赛结果记分"):
# the responsible side is scored as a forfeit loss (0 CF, 0 JCF, a loss) while the other side
# keeps the real result of the deals played." TOURNAMENT_FILE.md: "A `late_sheet` side counts a
# loss with 0 CF, 0 JCF, 0 `level_difference` and 0 `upgrades`; its opponent keeps the real
# figures of the deals."
NS_AHEAD = ["NS3", "NS3", "EW1", "NS2", "EW2", "NS1", "EW1", "NS1"]  # Q against 6: 19:7


@pytest.mark.parametrize(
    ("tokens", "late", "ns", "ew"),
    [
        # (result, cf, jcf, level_difference, upgrades) for each pair
        (NS_AHEAD, NS, ("loss", 0, 0, 0, 0), ("loss", 0, 7, -6, 4)),
        (NS_AHEAD, EW, ("win", 2, 19, 6, 10), ("loss", 0, 0, 0, 0)),
        (EIGHT_TIED, EW, ("draw", 1, 13, 0, 4), ("loss", 0, 0, 0, 0)),
    ],
    ids=["winner-late", "loser-late", "draw-late"],
)
def test_s2_late_scoresheet(tokens, late, ns, ew):
    result = score_match(tokens, RuleSet(), end=End("late_sheet", late))
    assert result.late_sheet is late and result.finished and result.penalty_loss is None
    assert (result.table_ns_level, result.table_ew_level) == (result.ns_level, result.ew_level)
    ns_out, ew_out = match_outcomes(3, 1, 2, result)
    for outcome, want in ((ns_out, ns), (ew_out, ew)):
        got = (outcome.result, outcome.cf, outcome.jcf, outcome.level_difference)
        assert (*got, outcome.upgrades) == want
        assert outcome.kind == "played" and outcome.opponent in (1, 2)  # a meeting


def test_s2_late_scoresheet_waives_the_number_of_deals():
    # TOURNAMENT_FILE.md: "exactly `deals_per_round` deals unless a side passed A or the table
    # has an `end`".
    result = score_match(NS_AHEAD[:5], RuleSet(), end=End("late_sheet", EW))
    assert result.deals_played == 5 and result.ns_cf == 2


# §2 "A 判负 after a side has passed A is refused (the match is over). A finished match with no
# deal and no `end` is refused (nothing was played)."
@pytest.mark.parametrize("offender", [NS, EW])
def test_s2_penalty_loss_after_passing_a_is_refused(offender):
    with pytest.raises(ScoringError) as error:
        score_match([*TO_A, "NS2"], TIMED, end=End("penalty_loss", offender))
    assert error.value.code == "penalty_loss_after_past_a"
    # A late sheet after 过A is a fact about the sheet, not the play: it stands.
    late = score_match([*TO_A, "NS2"], TIMED, end=End("late_sheet", NS))
    assert (late.ns_cf, late.ew_cf, late.ew_jcf) == (0, 0, 0)


@pytest.mark.parametrize("round_format", ["timed", "timed_deals"])
@pytest.mark.parametrize("tokens", [[], ["adjust:NS+2"]])
def test_s2_a_finished_match_with_no_deal_and_no_end_is_refused(round_format, tokens):
    rules = RuleSet(round_format=round_format)
    with pytest.raises(ScoringError) as error:
        score_match(tokens, rules)
    assert error.value.code == "nothing_played"
    assert score_match(tokens, rules, complete=False).deals_played == 0  # still being played
    assert score_match(tokens, rules, end=End("forfeit", NS)).ew_cf == 2


def test_s2_penalty_loss_with_no_deal_is_still_a_result():
    # §2 判负 "after the listed deals": none listed — the offender at 2, the innocent at 6.
    result = score_match([], TIMED, end=End("penalty_loss", NS))
    assert (result.ns_level, result.ew_level, result.ew_jcf) == (2, 6, 17)


# ========== §3 Penalties ==========


# §3 "本副判负 deal loss (seed 003: …"本副牌违规方直接判负，按双下记分") — scored exactly like a
# foul, but it is not a 犯规: it does not count towards "two fouls → 判负"."
@pytest.mark.parametrize(
    "before",
    [[], ["NS2"], ["EW3", "EW3"], [*TO_A], ["NS3", "NS3", "NS3", "EW1"]],
)
@pytest.mark.parametrize("offender", [NS, EW])
def test_s3_deal_loss_is_scored_exactly_like_a_foul(before, offender):
    foul = score_match([*before, f"foul:{offender}"], TIMED, complete=False)
    lose = score_match([*before, f"lose:{offender}"], TIMED, complete=False)
    assert [(s.ns_level, s.ew_level, s.on_stage) for s in foul.steps] == [
        (s.ns_level, s.ew_level, s.on_stage) for s in lose.steps
    ]
    assert (foul.ns_jcf, foul.deals_played) == (lose.ns_jcf, lose.deals_played)


def test_s3_deal_loss_is_its_own_event_not_a_foul():
    event = parse_event("lose:EW")
    assert (event.kind, event.side, event.beneficiary, event.upgrade) == (
        EventKind.LOSE,
        EW,
        NS,
        3,
    )
    assert event.kind is not EventKind.FOUL and event.is_deal
    assert event == Event.lose("EW") and event.token == "lose:EW" == str(event)
    # Not a 犯规: the foul escalation counts fouls only, and nothing counts deal losses.
    foul_rule = next(rule for rule in ESCALATIONS if rule.suggests == "penalty_loss")
    assert (foul_rule.counted, foul_rule.count, foul_rule.scope) == ("foul", 2, "round")
    assert all(rule.counted != "deal_loss" for rule in ESCALATIONS)


def test_s3_escalations():
    # §3 "The escalations (two warnings → 违例 …; two forfeits in a row or two 判负 → 取消资格,
    # seed 001) are suggested by the software for the referee to confirm."
    assert [(r.counted, r.count, r.scope, r.suggests) for r in ESCALATIONS] == [
        ("warning", 2, "round", "violation"),
        ("violation", 2, "round", "foul"),
        ("foul", 2, "round", "penalty_loss"),
        ("forfeit", 2, "consecutive_rounds", "disqualification"),
        ("penalty_loss", 2, "tournament", "disqualification"),
    ]
    assert all(rule.source for rule in ESCALATIONS)


# §3 "Who may impose what (seed 003): warning and violation — any referee; foul, deal loss, 判负
# and deductions — the chief referee (裁判长); disqualification — the organizers (组委会);
# configurable per tournament."
@pytest.mark.parametrize(
    ("kind", "role"),
    [
        ("warning", "referee"),
        ("violation", "referee"),
        ("foul", "chief_referee"),
        ("deal_loss", "chief_referee"),
        ("penalty_loss", "chief_referee"),
        ("deduction", "chief_referee"),
        ("disqualification", "organizer"),
    ],
)
def test_s3_who_may_impose_what_by_default(kind, role):
    assert RuleSet().may_impose(kind) == role == DEFAULT_PENALTY_AUTHORITY[kind]


def test_s3_who_may_impose_what_is_a_per_tournament_setting():
    rules = RuleSet.from_dict({"penalty_authority": {"foul": "referee"}})
    assert rules.may_impose("foul") == "referee"
    assert rules.may_impose("penalty_loss") == "chief_referee"
    assert rules.to_dict()["penalty_authority"] == {"foul": "referee"}
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert "penalty_authority" not in RuleSet().to_dict()  # the seed's defaults are not written
    with pytest.raises(RuleSetError) as error:
        RuleSet.from_dict({"penalty_authority": {"foul": "player", "nap": "referee"}})
    assert [p.code for p in error.value.problems] == ["not_one_of", "not_one_of"]
    with pytest.raises(RuleSetError):
        RuleSet.from_dict({"penalty_authority": ["foul"]})


# ========== §4 Presets ==========


def test_s4_the_jiangsu_preset_plays_the_jiangsu_text():
    # §4 "The Jiangsu text plays on the 26:0 scale with A must be played and no reset; a preset
    # named after it must say so (the 28 scale and `reset_to_2` are separate variants)." and §2
    # `tie` "extra_deal (Jiangsu: "如升级数相同，可加打一副牌，决出胜负" …)".
    settings_ = preset_settings("jiangsu2017")
    assert settings_["scale"] == "26:0" and settings_["a_rule"] == "continue"
    assert (settings_["tie"], settings_["tiebreaks"]) == ("extra_deal", "jiangsu2017")
    assert settings_["a_pass"] == "partner_2_or_3" and settings_["a_fail_count"] == "deal"
    rules = RuleSet.from_dict(settings_)
    assert rules.forfeit == Award(2, 17) and rules.tiebreaks == TIEBREAK_PRESETS["jiangsu2017"]
    preset = PRESETS["jiangsu2017"]
    assert (
        "26" in preset.label_zh and "28" not in preset.label_zh and "降回2" not in preset.label_zh
    )
    assert "001" in preset.seed and "按13级26分制计算" in preset.follows


def test_s4_the_jiangsu_golden_file_is_the_preset():
    data = json.loads((EXAMPLES / "jiangsu-2017.json").read_text(encoding="utf-8"))
    preset = preset_settings("jiangsu2017")
    assert {k: v for k, v in data["settings"].items() if k not in ("rounds", "seed")} == preset


def test_s4_the_regulation_preset_follows_seed_003():
    preset = PRESETS["regulation"]
    assert preset.seed == "003" and preset.rules == RuleSet()
    settings_ = preset_settings("regulation")
    assert settings_["scale"] == "26:0" and settings_["tiebreaks"] == "regulation"
    assert "tie" not in settings_ and RuleSet.from_dict(settings_).tie == "draw"
    assert RuleSet.from_dict(settings_).forfeit == Award(2, 17)


@pytest.mark.parametrize("name", list(PRESETS))
def test_s4_every_preset_names_its_seed_and_round_trips(name):
    preset = PRESETS[name]
    assert preset.key == name and preset.seed and preset.follows
    assert preset.label_zh and preset.label_en
    assert RuleSet.from_dict(preset_settings(name)).to_dict() == preset_settings(name)


# ========== TOURNAMENT_FILE.md "Settings": the new keys ==========


@pytest.mark.parametrize(
    ("key", "values", "default"),
    [
        ("a_fail_count", ("deal", "stage"), "deal"),
        ("a_pass", ("partner_2_or_3", "double_only"), "partner_2_or_3"),
        ("tie", ("draw", "extra_deal"), "draw"),
    ],
)
def test_file_new_settings_validate_and_round_trip(key, values, default):
    assert getattr(RuleSet.from_dict({}), key) == default
    assert key not in RuleSet.from_dict({}).to_dict()  # old files round-trip unchanged
    for value in values:
        rules = RuleSet.from_dict({key: value})
        assert getattr(rules, key) == value
        assert rules.to_dict()[key] == value  # written when given, even at the default
        assert RuleSet.from_dict(rules.to_dict()) == rules
    with pytest.raises(RuleSetError) as error:
        RuleSet.from_dict({key: "sometimes"})
    assert [(p.setting, p.code) for p in error.value.problems] == [(key, "not_one_of")]


def test_file_new_settings_come_after_seed_in_the_files_order():
    keys = list(
        RuleSet.from_dict({"seed": 1, "tie": "extra_deal", "a_pass": "double_only"}).to_dict()
    )
    assert keys[keys.index("seed") + 1 :] == ["a_pass", "tie"]
    assert SCALE_PRESETS["28"].points(4) == (18, 10)


def test_s1_the_score_sheet_names_each_failed_attempt():
    # §1 "What counts as an attempt is configurable too": the sheet's rows say which deal was a
    # failure under the tournament's count (the pages note "上台打A被推翻").
    for count, failures in (("deal", [4, 5, 7, 8, 10]), ("stage", [5, 8, 10])):
        steps = score_match([*TO_A, *STAGES], rules_of(a_fail_count=count)).steps
        assert [s.position for s in steps if s.a_failure is NS] == failures
