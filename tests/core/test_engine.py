"""The scoring engine (RULES.md §1–§2): a table's events → levels, 级差, 级差分, 场分."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.errors import ScoringError
from rules.events import Side, parse_event
from rules.levels import PAST_ACE
from rules.ruleset import RuleSet
from scoring.engine import End, Start, bye_outcome, match_outcomes, score_match

RULES = RuleSet()
TOKENS = [
    "NS3",
    "NS2",
    "NS1",
    "EW3",
    "EW2",
    "EW1",
    "foul:NS",
    "foul:EW",
    "adjust:NS+2",
    "adjust:EW+1",
]


# The worked example of TOURNAMENT_FILE.md, table by table.
def test_worked_example_table_1_foul_and_level_award():
    tokens = ["NS3", "EW1", "EW2", "foul:NS", "NS2", "adjust:NS+2", "NS1", "EW3", "NS2"]
    result = score_match(tokens, RULES)
    assert (result.ns_level, result.ew_level) == (12, 11)  # NS Q, EW J
    assert result.jc == 1
    assert (result.ns_jcf, result.ew_jcf) == (14, 12)
    assert (result.ns_cf, result.ew_cf) == (2, 0)
    assert result.deals_played == 8  # the level award is not a deal
    assert [step.ew_level for step in result.steps][:4] == [2, 3, 5, 8]  # foul: EW +3


def test_worked_example_table_2_lateness_and_penalty_loss():
    result = score_match(
        ["EW2", "EW2", "NS3"], RULES, Start(ns=2, ew=3), End("penalty_loss", Side.NS)
    )
    assert (result.table_ns_level, result.table_ew_level) == (5, 7)
    assert (result.ns_level, result.ew_level) == (5, 9)  # RULES.md §2: offender + 4
    assert result.jc == 4
    assert (result.ns_jcf, result.ew_jcf) == (9, 17)
    assert result.winner is Side.EW
    assert (result.ns_cf, result.ew_cf) == (0, 2)


def test_worked_example_table_3_forfeit():
    result = score_match([], RULES, end=End("forfeit", Side.EW))
    assert (result.ns_cf, result.ns_jcf, result.ew_cf, result.ew_jcf) == (2, 17, 0, 0)
    ns, ew = match_outcomes(1, 5, 8, result)
    assert (ns.result, ns.kind, ns.level_difference, ns.upgrades) == ("win", "forfeit", 0, 0)
    assert (ew.result, ew.cf, ew.jcf) == ("loss", 0, 0)


def test_worked_example_bye():
    outcome = bye_outcome(1, 7, RULES)
    assert (outcome.cf, outcome.jcf, outcome.result, outcome.opponent) == (2, 17, "win", None)


def test_lateness_puts_the_punctual_side_on_stage_for_the_first_deal():
    result = score_match(["NS1"], RULES, Start(ns=2, ew=4), complete=False)
    assert result.steps[0].on_stage is Side.EW
    assert result.steps[0].level_played == 4


def test_draw_on_equal_levels():
    result = score_match(["NS2", "EW2"] * 4, RULES)
    assert result.winner is None and result.jc == 0
    assert (result.ns_jcf, result.ew_jcf, result.ns_cf, result.ew_cf) == (13, 13, 1, 1)


def test_passing_a_ends_the_match():
    # RULES.md §2: in every format the match ends at once when a side passes A.
    tokens = ["NS3", "NS3", "NS3", "NS3", "NS2"]  # 2→5→8→J→A, then 过A on stage at A
    result = score_match(tokens, RULES)
    assert result.passed_a is Side.NS
    assert result.ns_level == PAST_ACE
    assert result.jc == 13 and (result.ns_jcf, result.ew_jcf) == (26, 0)
    assert result.finished


def test_event_after_passing_a_is_refused_with_its_position():
    with pytest.raises(ScoringError) as error:
        score_match(["NS3", "NS3", "NS3", "NS3", "NS2", "EW1"], RULES)
    assert error.value.code == "event_after_past_a"
    assert error.value.position == 5


def test_a_ninth_deal_in_an_eight_deal_round_is_refused():
    with pytest.raises(ScoringError) as error:
        score_match(["NS1", "EW1"] * 4 + ["NS1"], RULES)
    assert (error.value.code, error.value.position) == ("too_many_deals", 8)


def test_a_level_award_after_the_last_deal_is_allowed():
    result = score_match(["NS1", "EW1"] * 4 + ["adjust:NS+2"], RULES)
    assert result.deals_played == 8 and result.ns_level == 8


def test_a_finished_deals_table_needs_every_deal():
    with pytest.raises(ScoringError) as error:
        score_match(["NS1"] * 7, RULES)
    assert error.value.code == "too_few_deals"
    assert score_match(["NS1"] * 7, RULES, complete=False).deals_played == 7


def test_unknown_token_is_refused_with_its_position():
    with pytest.raises(ScoringError) as error:
        score_match(["NS1", "NS7"], RULES)
    assert (error.value.code, error.value.position, error.value.params["token"]) == (
        "bad_token",
        1,
        "NS7",
    )


def test_bad_start_is_refused():
    with pytest.raises(ScoringError) as error:
        score_match([], RULES, Start(ns=1, ew=2), complete=False)
    assert error.value.code == "bad_start"


# RULES.md §2 round formats.
def test_game_format_plays_until_a_side_passes_a():
    rules = RuleSet(round_format="game")
    long = ["NS1", "EW1"] * 12
    assert score_match(long, rules, complete=False).deals_played == 24
    with pytest.raises(ScoringError) as error:
        score_match(long, rules)
    assert error.value.code == "game_not_finished"


def test_timed_format_counts_the_deals_completed():
    assert score_match(["NS1"] * 3, RuleSet(round_format="timed")).deals_played == 3


def test_timed_deals_format_stops_at_the_deal_limit():
    rules = RuleSet(round_format="timed_deals", deals_per_round=4)
    assert score_match(["NS1"] * 3, rules).deals_played == 3
    with pytest.raises(ScoringError):
        score_match(["NS1"] * 5, rules)


def test_reset_to_2_in_a_match():
    rules = RuleSet(a_rule="reset_to_2", a_attempts=3, round_format="timed")
    tokens = ["NS3", "NS3", "NS3", "NS3", "NS1", "NS1", "NS1"]  # at A, three +1 wins
    result = score_match(tokens, rules)
    assert [step.ns_level for step in result.steps][-4:] == [14, 14, 14, 2]
    assert result.steps[-1].reset_to_2 is Side.NS


def test_28_point_scale():
    rules = RuleSet.from_dict({"scale": "28"})
    result = score_match(["NS3", "EW2"] * 4, rules)
    assert result.jc == 4 and (result.ns_jcf, result.ew_jcf) == (18, 10)


def test_match_points_variant():
    rules = RuleSet.from_dict({"match_points": {"win": 3, "draw": 2, "loss": 1}})
    result = score_match(["NS3"] + ["NS1", "EW1"] * 3 + ["EW1"], rules)
    assert (result.ns_cf, result.ew_cf) == (3, 1)


def test_upgrades_are_the_final_level_minus_2_after_a_penalty_loss():
    # RULES.md §2 "Upgrades 升级数 of a side in a match = its final level − 2": EW starts at 3
    # (lateness), reaches 7; NS reaches 5; 判负 of NS records EW at 5 + 4 = 9.
    result = score_match(
        ["EW2", "EW2", "NS3"], RULES, Start(ns=2, ew=3), End("penalty_loss", Side.NS)
    )
    assert (result.ns_level, result.ew_level) == (5, 9)
    assert (result.ns_upgrades, result.ew_upgrades) == (3, 7)


def test_a_bad_token_is_named_with_its_position():
    with pytest.raises(ScoringError) as error:
        score_match(["NS1", "adjust:NS+x"], RuleSet(), complete=False)
    assert error.value.position == 1


events = st.lists(st.sampled_from(TOKENS), max_size=30)


@settings(max_examples=300, deadline=None)
@given(events, st.sampled_from(["continue", "reset_to_2"]))
def test_properties_of_any_sequence(tokens, a_rule):
    rules = RuleSet(round_format="timed", a_rule=a_rule)
    try:
        result = score_match(tokens, rules)
    except ScoringError as error:
        if error.code == "nothing_played":  # RULES.md §2: no deal and no end is refused
            assert not any(parse_event(token).is_deal for token in tokens)
            return
        # Only 过A can stop a timed match early, and then nothing may follow it.
        assert error.code == "event_after_past_a"
        prefix = score_match(tokens[: error.position], rules)
        assert prefix.passed_a is not None
        return
    # The two sides' 级差分 always sum to the scale's total.
    assert result.ns_jcf + result.ew_jcf == rules.scale.total
    previous = (2, 2)
    for step in result.steps:
        for side, before, after in (
            (Side.NS, previous[0], step.ns_level),
            (Side.EW, *previous[1:], step.ew_level),
        ):
            # A level never decreases, except by reset_to_2.
            assert after >= before or (
                a_rule == "reset_to_2" and step.reset_to_2 is side and after == 2
            )
        previous = (step.ns_level, step.ew_level)
    if result.passed_a is not None:
        assert result.steps[-1].event.is_deal  # the match ended on the deal that passed A


@settings(max_examples=300, deadline=None)
@given(
    events,
    st.sampled_from(["continue", "reset_to_2"]),
    st.integers(min_value=1, max_value=3),
    st.sampled_from([(2, 2), (3, 2), (2, 4)]),
)
def test_the_state_machine_agrees_with_the_rules_event_by_event(tokens, a_rule, attempts, start):
    # score_match runs remembered transitions; .steps replays rules.progression.apply_event.
    rules = RuleSet(round_format="timed", a_rule=a_rule, a_attempts=attempts)
    try:
        result = score_match(tokens, rules, Start(*start))
    except ScoringError:
        return
    levels = {Side.NS: start[0], Side.EW: start[1]}
    for step in result.steps:
        levels = {Side.NS: step.ns_level, Side.EW: step.ew_level}
    assert (levels[Side.NS], levels[Side.EW]) == (result.table_ns_level, result.table_ew_level)
    # RULES.md §2: 升级数 = final level − 2 (the lateness head start counts, a reset too).
    assert (levels[Side.NS] - 2, levels[Side.EW] - 2) == (result.ns_upgrades, result.ew_upgrades)
    assert result.deals_played == sum(step.event.is_deal for step in result.steps)
    deals = [step for step in result.steps if step.event.is_deal]
    if deals:  # the side that won the last deal is on stage for the next one
        assert result.on_stage is deals[-1].event.beneficiary
