"""Rules of RULES.md §1–§3 that live in ``rules/``: levels, events, progression, settings."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import RuleError, RuleSetError
from rules.events import Event, EventKind, Side, deal_from_places, parse_event
from rules.levels import ACE, PAST_ACE, level_label
from rules.progression import (
    TableState,
    apply_event,
    initial_state,
    penalty_loss_levels,
    start_for_lateness,
)
from rules.ruleset import SCALE_PRESETS, TIEBREAK_PRESETS, RuleSet, preset_settings


# RULES.md §1: levels 2…A encoded 2…14, 过A = 15.
@pytest.mark.parametrize(
    ("text", "level"),
    [("2", 2), ("9", 9), ("10", 10), ("J", 11), ("q", 12), ("K", 13), ("A", 14), ("过A", 15)],
)
def test_levels_display(text, level):
    assert level_label(level) == {"q": "Q"}.get(text, text)


@pytest.mark.parametrize("bad", [1, 16, 0, -2])
def test_bad_level_is_refused(bad):
    with pytest.raises(RuleError) as error:
        level_label(bad)
    assert error.value.code == "bad_level"


# TOURNAMENT_FILE.md "Deals".
@pytest.mark.parametrize(
    ("token", "kind", "side", "upgrade", "beneficiary"),
    [
        ("NS3", EventKind.DEAL, Side.NS, 3, Side.NS),
        ("EW1", EventKind.DEAL, Side.EW, 1, Side.EW),
        ("foul:NS", EventKind.FOUL, Side.NS, 3, Side.EW),
        ("adjust:EW+2", EventKind.ADJUST, Side.EW, 2, Side.EW),
    ],
)
def test_event_tokens_round_trip(token, kind, side, upgrade, beneficiary):
    event = parse_event(token)
    assert (event.kind, event.side, event.upgrade) == (kind, side, upgrade)
    assert event.beneficiary is beneficiary
    assert event.token == token


@pytest.mark.parametrize(
    "token", ["NS4", "NS0", "ns3", "XX3", "foul:", "adjust:NS+0", "adjust:NS", 3]
)
def test_bad_token_names_the_token(token):
    with pytest.raises(RuleError) as error:
        parse_event(token, position=4)
    assert error.value.code == "bad_token"
    assert error.value.params["token"] == token
    assert error.value.position == 4


# RULES.md §1: partner 2nd → +3, partner 3rd → +2, partner 4th → +1.
@pytest.mark.parametrize(("place", "upgrade"), [(2, 3), (3, 2), (4, 1)])
def test_upgrade_by_partner_place(place, upgrade):
    assert deal_from_places("NS", place) == Event.deal(Side.NS, upgrade)


def test_only_the_first_players_side_upgrades():
    # RULES.md §1: the other side does not move.
    change = apply_event(TableState(5, 7, Side.EW), parse_event("NS2"))
    assert (change.state.ns, change.state.ew) == (7, 7)


def test_deal_is_played_at_the_level_of_the_side_on_stage():
    # RULES.md §1: the side that won the previous deal is on stage.
    change = apply_event(TableState(5, 9, Side.EW), parse_event("NS1"))
    assert change.level_played == 9
    assert change.on_stage is Side.EW
    assert change.state.on_stage is Side.NS


def test_first_deal_is_played_at_2():
    change = apply_event(initial_state(), parse_event("EW3"))
    assert change.level_played == 2
    assert change.on_stage is None


# RULES.md §1 A必打.
@pytest.mark.parametrize(
    ("state", "token", "ns_after"),
    [
        (TableState(12, 5, Side.NS), "NS3", ACE),  # never jumps past A: stops at A
        (TableState(13, 5, Side.EW), "NS3", ACE),  # at K, winning at the other's level
        (TableState(ACE, 5, Side.NS), "NS3", PAST_ACE),  # on stage at A, partner 2nd
        (TableState(ACE, 5, Side.NS), "NS2", PAST_ACE),  # on stage at A, partner 3rd
        (TableState(ACE, 5, Side.NS), "NS1", ACE),  # partner last: stays at A
        (TableState(ACE, 5, Side.EW), "NS3", ACE),  # won at the other's level: not an attempt
        (TableState(ACE, 5, Side.NS), "EW3", ACE),  # lost the deal: stays at A
    ],
)
def test_a_must_be_played(state, token, ns_after):
    assert apply_event(state, parse_event(token)).state.ns == ns_after


def test_winning_at_the_other_sides_level_puts_the_side_at_a_on_stage():
    change = apply_event(TableState(ACE, 5, Side.EW), parse_event("NS3"))
    assert change.state.on_stage is Side.NS
    assert change.attempt_at_a is None


def test_level_award_never_passes_a_and_moves_nobody_on_stage():
    # TOURNAMENT_FILE.md: adjust is capped at A; RULES.md §3 it is not a deal.
    change = apply_event(TableState(13, 5, Side.EW), parse_event("adjust:NS+3"))
    assert change.state.ns == ACE
    assert change.state.on_stage is Side.EW
    assert change.level_played is None


def test_reset_to_2_after_three_failed_attempts():
    # RULES.md §1 variant (seeds 002/004): after 3 failed attempts at A the side drops to 2.
    state = TableState(ACE, 5, Side.NS)
    for expected_failures in (1, 2):
        state = apply_event(state, parse_event("NS1"), "reset_to_2", 3).state
        assert (state.ns, state.ns_a_failures) == (ACE, expected_failures)
    change = apply_event(state, parse_event("EW3"), "reset_to_2", 3)
    assert change.reset_to_2 is Side.NS
    assert (change.state.ns, change.state.ns_a_failures) == (2, 0)


def test_continue_rule_keeps_playing_a():
    state = TableState(ACE, 5, Side.NS)
    for _ in range(5):
        state = apply_event(state, parse_event("NS1"), "continue", 3).state
    assert state.ns == ACE


def test_a_deal_at_the_other_sides_level_is_not_an_attempt():
    # RULES.md §1: "that deal is not an attempt".
    state = TableState(ACE, 5, Side.EW)
    change = apply_event(state, parse_event("NS1"), "reset_to_2", 1)
    assert change.attempt_at_a is None
    assert change.state.ns == ACE


# RULES.md §2 迟到.
@pytest.mark.parametrize(
    ("minutes", "late", "levels"),
    [(0, Side.NS, (2, 2)), (3, Side.NS, (2, 3)), (5, Side.EW, (3, 2)), (8, Side.NS, (2, 4))],
)
def test_lateness_start_levels(minutes, late, levels):
    state = start_for_lateness(minutes, late)
    assert (state.ns, state.ew) == levels
    if levels[0] != levels[1]:
        assert state.on_stage is late.other  # the punctual side is on stage


def test_lateness_over_10_minutes_forfeits():
    assert start_for_lateness(11, Side.NS) is None


# RULES.md §2 判负.
@pytest.mark.parametrize(
    ("offender", "innocent", "recorded"),
    [
        (5, 7, (5, 9)),  # offender + 4
        (13, 9, (11, 15)),  # offender above J is lowered to J: J + 4 = 过A
        (11, 2, (11, 15)),
        (3, 8, (3, 8)),  # the table already favours the innocent side by more than 4: stands
        (3, 7, (3, 7)),  # by exactly 4: offender + 4 is the same
    ],
)
def test_penalty_loss_levels(offender, innocent, recorded):
    assert penalty_loss_levels(offender, innocent) == recorded


# RULES.md §2 scales.
@pytest.mark.parametrize(
    ("key", "jc", "points"),
    [("26:0", 0, (13, 13)), ("26:0", 4, (17, 9)), ("26:0", 13, (26, 0)), ("28", 1, (15, 13))],
)
def test_scale_presets(key, jc, points):
    assert SCALE_PRESETS[key].points(jc) == points


@given(st.integers(min_value=0, max_value=40), st.sampled_from(sorted(SCALE_PRESETS)))
def test_jcf_of_both_sides_sums_to_the_scale_total(jc, key):
    scale = SCALE_PRESETS[key]
    ahead, behind = scale.points(jc)
    assert ahead + behind == scale.total
    assert ahead >= behind


def test_custom_scale_is_validated():
    good = RuleSet.from_dict({"scale": {"table": [[0, 10, 10], [1, 12, 8], [2, 14, 6]]}})
    assert good.scale.points(5) == (14, 6)  # capped at the last row
    assert good.to_dict()["scale"] == {"table": [[0, 10, 10], [1, 12, 8], [2, 14, 6]]}


@pytest.mark.parametrize(
    ("table", "code"),
    [
        ([], "scale_table_empty"),
        ([[1, 14, 12]], "scale_not_consecutive"),
        ([[0, 13, 13], [2, 15, 11]], "scale_not_consecutive"),
        ([[0, 13, 13], [1, 12, 14]], "scale_ahead_below_behind"),
        ([[0, 13, 12]], "scale_draw_unequal"),
        ([[0, 13, 13], [1, 16, 10], [2, 15, 11]], "scale_not_monotone"),
        ([[0, 13]], "scale_row_malformed"),
    ],
)
def test_bad_custom_scale_is_refused(table, code):
    with pytest.raises(RuleSetError) as error:
        RuleSet.from_dict({"scale": {"table": table}})
    assert code in {problem.code for problem in error.value.problems}


def test_ruleset_defaults_match_the_file_format():
    rules = RuleSet.from_dict({})
    assert rules.deals_per_round == 8
    assert (rules.match_points.win, rules.match_points.draw, rules.match_points.loss) == (2, 1, 0)
    assert (rules.forfeit.cf, rules.forfeit.jcf) == (2, 17)
    assert (rules.bye.cf, rules.bye.jcf) == (2, 17)
    assert rules.tiebreaks == TIEBREAK_PRESETS["regulation"]
    assert rules.a_rule == "continue"


def test_ruleset_reports_every_wrong_setting():
    with pytest.raises(RuleSetError) as error:
        RuleSet.from_dict(
            {
                "round_format": "x",
                "deals_per_round": 0,
                "colour": "red",
                "tiebreaks": ["lot", "jcf"],
            }
        )
    settings = {problem.setting for problem in error.value.problems}
    assert settings == {"round_format", "deals_per_round", "colour", "tiebreaks"}


def test_tiebreak_list_drops_cf_and_keeps_lot_last():
    rules = RuleSet.from_dict({"tiebreaks": ["cf", "wins", "jcf", "lot"]})
    assert rules.tiebreaks == ("wins", "jcf", "lot")
    assert rules.to_dict()["tiebreaks"] == ["wins", "jcf", "lot"]


@pytest.mark.parametrize("preset", ["regulation", "jiangsu2017"])
def test_presets_round_trip(preset):
    settings = preset_settings(preset)
    assert RuleSet.from_dict(settings).to_dict() == settings


def test_match_points_may_be_fractional():
    rules = RuleSet.from_dict({"match_points": {"win": 1, "draw": 0.5, "loss": 0}})
    assert rules.match_points.draw == 0.5
    assert rules.to_dict()["match_points"] == {"win": 1, "draw": 0.5, "loss": 0}
