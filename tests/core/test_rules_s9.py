"""RULES.md §9 (formats as data) and the revised §2 "Level tie", sentence by sentence, against the
pure core: each test quotes the sentence it checks (the seed's or the club guide's, as RULES.md
gives it); tables are parametrized row by row. The per-stage settings (``RuleSet.for_stage``),
the settings' validation and round trip are here too; the file's are in
tests/core/test_file_variants.py, the pages' in tests/web/test_settings_variants.py.
"""

from __future__ import annotations

import pytest

from rules.errors import RuleSetError, ScoringError
from rules.events import Side
from rules.progression import TableState, apply_event, initial_state
from rules.ruleset import RuleSet
from rules.variants import Escalation, EscalationStep, Lateness, Upgrades
from scoring.engine import End, Start, match_outcomes, score_match
from scoring.ranking import RankColumn, rank_entrants
from scoring.series import check_tie_decided, game_winner
from scoring.standings import Outcome, compute_standings

NS, EW = Side.NS, Side.EW
EXTRA = RuleSet(tie="extra_deal")
BOTH_AT_10 = ["NS3", "NS3", "EW3", "EW3", "NS1", "EW1", "NS1", "EW1"]  # 10 : 10 after 8 deals


def problems_of(settings: dict) -> set[str]:
    with pytest.raises(RuleSetError) as refused:
        RuleSet.from_dict(settings)
    return {problem.code for problem in refused.value.problems}


# ========== §2 (revised) "Level tie": the extra deal decides, in every stage ==========


def test_s2_an_extra_deal_leaving_the_levels_equal_is_a_one_level_win_in_a_swiss_round():
    # §2 "Its winner (the side whose player went out first) wins the match even where the levels
    # stay equal (both at A, partner last): that win is scored as a 1-level win for 级差分 (14:12
    # on 26:0), in every stage, never as a draw." (seeds: "加打一副牌，决出胜负")
    both_at_a = ["NS3"] * 4 + ["EW3"] * 4
    result = score_match([*both_at_a, "EW1"], EXTRA)
    assert (result.ns_level, result.ew_level) == (14, 14) and result.extra_deal
    assert (result.winner, result.jc) == (EW, 1)
    assert (result.ns_jcf, result.ew_jcf, result.ns_cf, result.ew_cf) == (12, 14, 0, 2)
    ns, ew = match_outcomes(1, 1, 2, result)
    assert (ns.result, ew.result, ns.level_difference, ew.level_difference) == (
        "loss",
        "win",
        -1,
        1,
    )


@pytest.mark.parametrize(
    ("rules", "tokens", "code"),
    [
        (EXTRA, BOTH_AT_10, "extra_deal_due"),  # level after the 8th deal: the extra deal is due
        (RuleSet(round_format="timed", tie="extra_deal"), ["NS3", "EW3"], "time_call_due"),
        (RuleSet(round_format="deal_points", deals_per_round=2), ["NS3", "EW3"], "extra_deal_due"),
        (RuleSet(), BOTH_AT_10, None),  # tie: draw — a draw stands
        (EXTRA, [*BOTH_AT_10, "NS1"], None),  # decided by the extra deal
    ],
)
def test_s2_a_complete_match_left_level_is_refused_where_a_draw_is_not_allowed(rules, tokens, code):
    # §2 "when the levels are equal after the last regular deal (or when time is called), one
    # more deal is played … it decides the match" — the services and the file refuse it alike.
    result = score_match(tokens, rules)
    if code is None:
        check_tie_decided(result, rules)
        return
    with pytest.raises(ScoringError) as refused:
        check_tie_decided(result, rules)
    assert refused.value.code == code


def test_s2_a_timed_game_has_no_deal_limit_and_the_extra_deal_is_counted_apart():
    # Issue 28: "a second extra deal refused with 超过本轮规定的 8 副 although a timed game has no
    # deal limit": time called after 8 deals; the extra deal decides; nothing may follow it.
    timed = RuleSet(round_format="timed", tie="extra_deal")
    called = timed.at_time(8)
    assert called.max_deals is None and called.regular_deals == 8
    result = score_match([*BOTH_AT_10, "NS2"], called)
    assert result.extra_deal and result.regular_deals == 8 and result.winner is NS
    with pytest.raises(ScoringError) as refused:
        score_match([*BOTH_AT_10, "NS2", "EW3"], called)
    assert refused.value.code == "event_after_extra_deal"


# ========== §9 "Upgrades per deal" ==========

UPGRADES_531 = RuleSet(round_format="timed", upgrades=Upgrades(5, 3, 1))


# §9 "seed 001's company variant 5 / 3 / 1 ("如果是双贡，赢家升5级；如果对手有一家是下游，
# 赢家升3级；…升1级")" — the tokens keep their meaning: NS3 partner 2nd, NS2 3rd, NS1 last.
@pytest.mark.parametrize(
    ("state", "token", "after"),
    [
        (TableState(2, 2), "NS3", (7, 2)),  # 双下: +5
        (TableState(2, 2), "NS2", (5, 2)),  # 对手有一家是下游: +3
        (TableState(2, 2), "EW1", (2, 3)),  # 对门是下游: +1
        (TableState(2, 2), "foul:EW", (7, 2)),  # a foul is scored as the other side's 双下
        (TableState(12, 2, NS), "NS3", (14, 2)),  # A must be played: +5 stops at A
        (TableState(14, 2, NS), "NS2", (15, 2)),  # on stage at its own A, partner 3rd: 过A
        (TableState(14, 2, NS), "NS1", (14, 2)),  # partner last: stays at A
    ],
)
def test_s9_upgrades_five_three_one(state, token, after):
    from rules.events import parse_event

    new = apply_event(state, parse_event(token), upgrades=UPGRADES_531.upgrades.values).state
    assert (new.ns, new.ew) == after


def test_s9_upgrades_through_the_engine_and_a_default_of_three_two_one():
    assert RuleSet().upgrades.values == (3, 2, 1)
    assert score_match(["NS3", "EW2", "NS1"], UPGRADES_531).table_ns_level == 8  # 2 + 5 + 1
    assert score_match(["NS3", "EW2", "NS1"], RuleSet(round_format="timed")).table_ns_level == 6


@pytest.mark.parametrize(
    ("upgrades", "code"),
    [
        ({"double": 3, "partner_3rd": 4, "partner_4th": 1}, "upgrades_order"),
        ({"double": 0}, "upgrades_malformed"),
        ({"double": 14}, "upgrades_malformed"),
        ({"partner_5th": 1}, "upgrades_malformed"),
        ([5, 3, 1], "upgrades_malformed"),
    ],
)
def test_s9_upgrades_refused(upgrades, code):
    assert problems_of({"upgrades": upgrades}) == {code}


# ========== §9 "Deal-points match" ==========

POINTS = RuleSet(round_format="deal_points", deals_per_round=6)


# §9 "every deal is played at 2; the winning side scores 3 / 2 / 1 by its partner's place; after
# ``deals_per_round`` deals the higher total wins; equal totals play one extra deal whose winner
# wins. 级差 for 级差分 = the points difference, capped by the scale." (seed 001 "6局积分制")
@pytest.mark.parametrize(
    ("tokens", "points", "winner", "jc", "jcf"),
    [
        (["NS3", "EW1", "NS2", "EW3", "NS1", "EW1"], (6, 5), NS, 1, (14, 12)),
        (["NS3", "NS3", "NS3", "NS3", "NS3", "NS3"], (18, 0), NS, 13, (26, 0)),  # capped
        (["NS3", "EW1", "NS2", "EW3", "NS1", "EW2", "EW1"], (6, 7), EW, 1, (12, 14)),  # extra
        (["NS3", "foul:NS", "EW2", "NS1", "NS2", "EW1"], (6, 6), None, 0, (13, 13)),
    ],
)
def test_s9_deal_points(tokens, points, winner, jc, jcf):
    result = score_match(tokens, POINTS, complete=len(tokens) >= 6)
    assert result.points == points and (result.winner, result.jc) == (winner, jc)
    assert (result.ns_jcf, result.ew_jcf) == jcf
    assert (result.table_ns_level, result.table_ew_level) == (2, 2)  # every deal at 2
    assert all(step.level_played == 2 for step in result.steps)
    assert (result.ns_upgrades, result.ew_upgrades) == points


def test_s9_deal_points_play_one_extra_deal_on_equal_totals_only():
    level = ["NS3", "EW3", "NS2", "EW2", "NS1", "EW1"]
    with pytest.raises(ScoringError) as refused:
        check_tie_decided(score_match(level, POINTS), POINTS)
    assert refused.value.code == "extra_deal_due"
    with pytest.raises(ScoringError) as refused:
        score_match([*level, "NS1", "EW1"], POINTS)
    assert refused.value.code == "event_after_extra_deal"
    ahead = ["NS3", "EW3", "NS2", "EW2", "NS1", "NS1"]
    with pytest.raises(ScoringError) as refused:
        score_match([*ahead, "EW3"], POINTS)
    assert refused.value.code == "extra_deal_without_tie"
    with pytest.raises(ScoringError) as refused:
        score_match(level[:5], POINTS)
    assert refused.value.code == "too_few_deals"


# ========== §9 "Lateness" ==========


# §9 "`regulation` (§2: 3 / 4 / forfeit); `{"per_minutes": 5, "levels": 1, "forfeit_after": M}`
# (+1 level to the punctual side per started 5 minutes, a forfeit after M); `{"loss_after": 5}`
# (seed 001: "迟到五分钟以上未请假者判负": a 判负 of the late side); `forfeit` (any lateness is a
# forfeit: "未按时出场视为弃赛"). Start levels beyond 4 are allowed where the rule gives them
# (never past A)."
@pytest.mark.parametrize(
    ("lateness", "minutes", "kind", "level"),
    [
        (Lateness(), 0, "none", 2),
        (Lateness(), 5, "start", 3),
        (Lateness(), 10, "start", 4),
        (Lateness(), 11, "forfeit", 2),
        (Lateness("per_minutes", 5, 1, 30), 1, "start", 3),
        (Lateness("per_minutes", 5, 1, 30), 11, "start", 5),
        (Lateness("per_minutes", 5, 1, 30), 30, "start", 8),
        (Lateness("per_minutes", 5, 1, 30), 31, "forfeit", 2),
        (Lateness("per_minutes", 5, 4), 60, "start", 14),  # never past A
        (Lateness("loss_after", loss_after=5), 5, "none", 2),
        (Lateness("loss_after", loss_after=5), 6, "penalty_loss", 2),
        (Lateness("forfeit"), 1, "forfeit", 2),
    ],
)
def test_s9_lateness(lateness, minutes, kind, level):
    ruling = lateness.ruling(minutes)
    assert (ruling.kind, ruling.level) == (kind, level)


def test_s9_lateness_start_levels_accepted_by_the_rule():
    per = RuleSet(lateness=Lateness("per_minutes", 5, 1, 30))
    assert per.lateness.start_levels == tuple(range(2, 9))
    assert score_match(["EW1"], per, Start(2, 8), complete=False).table_ns_level == 2
    with pytest.raises(ScoringError) as refused:
        score_match([], RuleSet(), Start(2, 5), complete=False)
    assert refused.value.code == "start_beyond_lateness"
    with pytest.raises(ScoringError) as refused:
        score_match([], RuleSet(lateness=Lateness("loss_after", loss_after=5)), Start(3, 2))
    assert refused.value.code == "start_beyond_lateness"
    assert initial_state(2, 14, tuple(range(2, 15))).on_stage is EW


@pytest.mark.parametrize(
    "lateness",
    ["late", {"per_minutes": 5}, {"per_minutes": 0, "levels": 1}, {"loss_after": -1}, [5]],
)
def test_s9_lateness_refused(lateness):
    codes = problems_of({"lateness": lateness})
    assert codes <= {"lateness_malformed", "out_of_range"} and codes


# ========== §9 "The absent side of a forfeit" ==========


def test_s9_the_absent_side_may_score_negative_match_points():
    # §9 "what it scores; CF may be negative ("缺席队伍得 −1 分，对手自动获胜（记 1 分）")".
    rules = RuleSet.from_dict(
        {
            "match_points": {"win": 1, "draw": 0.5, "loss": 0},
            "forfeit": {"cf": 1, "jcf": 17, "absent": {"cf": -1, "jcf": 0}},
        }
    )
    result = score_match([], rules, end=End("forfeit", EW))
    assert (result.ns_cf, result.ns_jcf, result.ew_cf, result.ew_jcf) == (1, 17, -1, 0)
    assert RuleSet().forfeit.absent_cf == 0  # default: 0 and 0
    assert problems_of({"forfeit": {"cf": -1, "jcf": 17}}) == {"award_malformed"}
    assert problems_of({"forfeit": {"absent": {"cf": 3}}}) == {"award_absent_above"}
    assert problems_of({"bye": {"cf": 2, "absent": {"cf": -1}}}) == {"bye_absent"}
    assert problems_of({"forfeit": {"absent": {"jcf": -1}}}) == {"award_absent_malformed"}


# ========== §9 "Escalation ladder" ==========


def test_s9_the_events_escalation_ladder():
    # §9 "Example: "初次违反口头警告，两次违反判对手升三级，三次违反判对手本局获胜" = warning →
    # level_award 3 → penalty_loss, scope match. The software suggests the next step of the
    # event's own ladder; the referee confirms."
    from scoring.penalties import ladder_escalation

    rules = RuleSet.from_dict(
        {
            "escalation": {
                "scope": "match",
                "steps": [
                    {"kind": "warning"},
                    {"kind": "level_award", "levels": 3},
                    {"kind": "penalty_loss"},
                ],
            }
        }
    )
    ladder = rules.escalation
    assert ladder == Escalation(
        "match",
        (
            EscalationStep("warning"),
            EscalationStep("level_award", 3),
            EscalationStep("penalty_loss"),
        ),
    )
    assert ladder_escalation(ladder, 0) is None
    suggested = [ladder_escalation(ladder, n) for n in (1, 2, 5)]
    assert [(s.kind, s.levels) for s in suggested if s] == [
        ("level_award", 3),
        ("penalty_loss", None),
        ("penalty_loss", None),  # beyond the ladder: its last step again
    ]
    assert RuleSet().escalation is None  # regulation: §3's ladder


@pytest.mark.parametrize(
    ("escalation", "code"),
    [
        ({"scope": "week", "steps": [{"kind": "warning"}]}, "not_one_of"),
        ({"scope": "match", "steps": []}, "escalation_steps_count"),
        ({"scope": "match", "steps": [{"kind": "shout"}]}, "escalation_step_kind"),
        ({"scope": "match", "steps": [{"kind": "level_award"}]}, "escalation_step_levels"),
        (
            {"scope": "match", "steps": [{"kind": "warning", "levels": 2}]},
            "escalation_step_no_levels",
        ),
        ({"steps": [{"kind": "warning"}]}, "escalation_malformed"),
    ],
)
def test_s9_escalation_refused(escalation, code):
    assert problems_of({"escalation": escalation}) == {code}


# ========== §9 the extra deal at 2 and first_to_level ==========


def test_s9_the_extra_deal_played_at_2_by_both_sides():
    # §2 "Variants (§9): the extra deal played at 2 by both sides (`extra_deal_from: 2`)".
    from_two = RuleSet(tie="extra_deal", extra_deal_from=2)
    result = score_match([*BOTH_AT_10, "NS3"], from_two)
    assert (result.ns_level, result.ew_level, result.winner, result.jc) == (10, 10, NS, 1)
    assert result.steps[-1].level_played == 2 and result.extra_from_two
    current = score_match([*BOTH_AT_10, "NS3"], EXTRA)  # from the current levels: K : 10
    assert (current.ns_level, current.winner, current.jc) == (13, NS, 3)
    assert problems_of({"extra_deal_from": 3}) == {"not_one_of"}


# §2 "in timed formats, `first_to_level` (seed 001: "60分钟到时，双方打同一点数时，先晋级的为胜方"
# — the side that reached the common level first wins, scored as a 1-level win; no extra deal)".
@pytest.mark.parametrize(
    ("tokens", "winner"),
    [
        (["NS3", "EW3"], NS),  # NS reached 5 first
        (["EW2", "NS3", "EW1"], NS),  # NS at 5 after deal 2, EW only after deal 3
        (["EW3", "NS1", "NS2"], EW),
        (["NS3", "EW1"], NS),  # not level: the higher level
    ],
)
def test_s9_first_to_level(tokens, winner):
    rules = RuleSet(round_format="timed", tie="first_to_level")
    result = score_match(tokens, rules)
    assert result.winner is winner and game_winner(result) is winner
    if result.ns_level == result.ew_level:
        assert result.jc == 1 and not result.extra_deal


def test_s9_first_to_level_only_in_timed_formats():
    assert problems_of({"tie": "first_to_level"}) == {"tie_first_to_level_untimed"}
    staged = {
        "round_format": "timed",
        "stages": [
            {"kind": "swiss", "rounds": 2, "settings": {"tie": "first_to_level"}},
            {"kind": "knockout", "entrants": 4, "round_format": "game", "tie": "first_to_level"},
        ],
    }
    assert problems_of(staged) == {"tie_first_to_level_untimed"}


# ========== §9 "Head-to-head, two kinds" ==========


def _three_tied() -> list[Outcome]:
    """Pairs 1, 2, 3 all met (1 beat 2 and 3, 2 beat 3) and end on 4 CF each; by 级差分
    3 > 2 > 1."""

    def won(r: int, a: int, b: int, jc: int) -> list[Outcome]:
        return [
            Outcome(r, a, b, "played", "win", 2, 13 + jc, jc, 0),
            Outcome(r, b, a, "played", "loss", 0, 13 - jc, -jc, 0),
        ]

    return [
        *won(1, 1, 2, 1),
        *won(2, 2, 3, 1),
        *won(3, 1, 3, 1),
        *won(4, 4, 1, 13),
        *won(4, 2, 5, 1),
        *won(4, 3, 6, 13),
        *won(5, 7, 1, 1),
        *won(5, 8, 2, 1),
        *won(5, 3, 9, 13),
    ]


def test_s9_head_to_head_two_is_skipped_with_three_tied():
    # §9 "`head_to_head_two`: applied only when exactly two are tied ("3 队及以上总积分相同时，则
    # 比较各队的净积小分和累积小分") — with three or more tied it is skipped."
    pairs = list(range(1, 10))
    both = compute_standings(pairs, _three_tied(), [], ("head_to_head", "jcf"), 0, 5)
    two = compute_standings(pairs, _three_tied(), [], ("head_to_head_two", "jcf"), 0, 5)
    assert [r.pair for r in both[:3]] == [1, 2, 3] and both[1].decided_by == "head_to_head"
    assert [r.pair for r in two[:3]] == [3, 2, 1] and two[1].decided_by == "jcf"


def test_s9_head_to_head_two_in_the_ranking_alone():
    # Two tied on the first column: the relation decides; three tied: the next column does.
    points = {0: 2.0, 1: 0.0}
    two = rank_entrants(
        [RankColumn("cf", [5, 5, 1], True), RankColumn("head_to_head_two", None),
         RankColumn("lot", [0, 1, 2])],
        lambda group: {i: points.get(i, 0.0) for i in group},
    )  # fmt: skip
    assert two.order == (0, 1, 2) and two.decided_by[1] == "head_to_head_two"
    three = rank_entrants(
        [RankColumn("cf", [5, 5, 5], True), RankColumn("head_to_head_two", None),
         RankColumn("lot", [2, 1, 0])],
        lambda group: {i: float(i) for i in group},
    )  # fmt: skip
    assert three.order == (2, 1, 0) and three.decided_by[1:] == ("lot", "lot")
    assert problems_of({"tiebreaks": ["head_to_head", "head_to_head_two"]}) == {"two_head_to_heads"}


# ========== §9 "The organizer's words" and "Per-stage settings" ==========


def test_s9_labels():
    # §9 "criteria and columns may carry the event's own labels (总积分 for 场分, 净积小分 for
    # 总级差, 累积小分 for 升级数)".
    rules = RuleSet.from_dict(
        {"labels": {"cf": "总积分", "level_difference": "净积小分", "upgrades": "累积小分"}}
    )
    assert (rules.label("cf"), rules.label("upgrades"), rules.label("jcf")) == (
        "总积分",
        "累积小分",
        None,
    )
    assert problems_of({"labels": {"points": "x"}}) == {"unknown_criterion"}
    assert problems_of({"labels": {"cf": ""}}) == {"label_bad"}
    assert problems_of({"labels": {"cf": "x" * 21}}) == {"label_bad"}
    assert problems_of({"labels": ["cf"]}) == {"labels_malformed"}


STAGED = {
    "round_format": "timed",
    "tie": "extra_deal",
    "match_points": {"win": 1, "draw": 0.5, "loss": 0},
    "tiebreaks": ["level_difference", "upgrades"],
    "stages": [
        {"kind": "swiss", "rounds": 4, "settings": {"minutes": 70}},
        {
            "kind": "round_robin",
            "groups": 8,
            "qualify": 2,
            "settings": {
                "tiebreaks": ["head_to_head_two", "level_difference", "upgrades"],
                "labels": {"cf": "总积分"},
                "bye": {"cf": 1, "jcf": 13},
            },
        },
        {
            "kind": "knockout",
            "settings": {"minutes": 120, "extra_deal_from": 2, "lateness": "forfeit"},
        },
    ],
}


# §9 "every stage may override `match_points`, `forfeit`, `bye`, `tiebreaks`, `round_format`,
# `deals_per_round`, `minutes` (the time limit of timed formats: 70 in heats, 120 in a
# knockout), `tie`, `extra_deal_from`, `lateness`, `escalation` and the correction deadlines. A
# group stage ranks by its own tiebreak list, not the heats'."
@pytest.mark.parametrize(
    ("stage", "field", "value"),
    [
        (1, "minutes", 70),
        (2, "minutes", 60),
        (3, "minutes", 120),
        (1, "tiebreaks", ("level_difference", "upgrades")),
        (2, "tiebreaks", ("head_to_head_two", "level_difference", "upgrades")),
        (2, "labels", (("cf", "总积分"),)),
        (1, "labels", ()),
        (2, "bye_award", None),
        (3, "extra_deal_from", 2),
        (1, "extra_deal_from", "current"),
        (3, "tie", "extra_deal"),
        (
            1,
            "match_points",
            RuleSet.from_dict({"match_points": STAGED["match_points"]}).match_points,
        ),
    ],
)
def test_s9_per_stage_settings(stage, field, value):
    rules = RuleSet.from_dict(STAGED).for_stage(stage)
    if field == "bye_award":
        assert (rules.bye.cf, rules.bye.jcf) == (1, 13)
        return
    assert getattr(rules, field) == value


def test_s9_per_stage_settings_round_trip_and_refusals():
    rules = RuleSet.from_dict(STAGED)
    again = RuleSet.from_dict(rules.to_dict())
    assert again.to_dict() == rules.to_dict() and again == rules
    assert RuleSet.from_dict(STAGED).for_stage(3).lateness == Lateness("forfeit")
    bad = {"stages": [{"kind": "swiss", "rounds": 2, "settings": {"rounds": 3, "minutes": 0}}]}
    assert problems_of(bad) == {"stage_unknown_setting", "out_of_range"}
    twice = {"stages": [{"kind": "swiss", "rounds": 2, "tie": "draw", "settings": {"tie": "draw"}}]}
    assert problems_of(twice) == {"stage_setting_twice"}
    draw = {
        "stages": [
            {"kind": "swiss", "rounds": 1},
            {"kind": "knockout", "settings": {"tie": "draw"}},
        ]
    }
    assert problems_of(draw) == {"stage_knockout_draw"}
    assert problems_of({"stages": [{"kind": "swiss", "rounds": 1, "settings": []}]}) == {
        "not_an_object"
    }


def test_s9_minutes():
    # §9 "`minutes` (the time limit of timed formats: 70 in heats, 120 in a knockout)";
    # TOURNAMENT_FILE.md: default 60.
    assert RuleSet().minutes == 60 and "minutes" not in RuleSet().to_dict()
    assert RuleSet.from_dict({"minutes": 70}).to_dict()["minutes"] == 70
    assert problems_of({"minutes": 0}) == {"out_of_range"}
    assert problems_of({"minutes": 601}) == {"out_of_range"}
