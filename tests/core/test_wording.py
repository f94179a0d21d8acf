"""The one wording module (``tournaments.wording``): every key the core knows has its words, and
the words read the same on every page, form, document and command (issue 10)."""

from __future__ import annotations

import pytest
from django.utils import translation

from rules.events import Event, Side, parse_event
from rules.ruleset import CRITERION_KEYS
from scoring.standings import CRITERIA, PRESETS
from tournaments import wording


def test_every_criterion_key_has_a_chinese_and_an_english_label():
    keys = {"cf", *CRITERION_KEYS}
    assert keys == set(CRITERIA)  # the core's criteria are the settings' keys plus cf
    assert set(wording.CRITERIA) == keys
    for key in keys:
        zh, en = wording.CRITERIA[key]
        assert zh and en and zh != en
        assert wording.printed_criterion(key) == zh


def test_criterion_labels_follow_the_language():
    with translation.override("zh-hans"):
        assert wording.criterion_label("jcf") == "级差分"
    with translation.override("en"):
        assert wording.criterion_label("jcf") == "Level-difference points"
    assert wording.criterion_label("") == ""
    assert wording.criterion_label("nonsense") == "nonsense"


def test_every_preset_and_round_format_is_printed():
    assert set(PRESETS) <= set(wording.TIEBREAK_PRESETS)
    from rules.ruleset import ROUND_FORMATS, TIES

    # Every round format of the settings (RULES.md §9 adds deal points) and every tie rule.
    assert set(wording.ROUND_FORMATS) == set(ROUND_FORMATS)
    assert set(ROUND_FORMATS) == {"deals", "game", "timed", "timed_deals", "deal_points"}
    assert set(wording.PRINTED_TIES) == set(TIES)


@pytest.mark.parametrize(
    ("side", "zh", "en"),
    [("NS", "南北", "NS"), (Side.EW, "东西", "EW"), ("BYE", "轮空", "Bye"), (None, "—", "—")],
)
def test_sides_in_both_languages(side, zh, en):
    with translation.override("zh-hans"):
        assert wording.side_label(side) == zh
    with translation.override("en"):
        assert wording.side_label(side) == en
        assert wording.printed_side(side) == zh  # an official form is Chinese


def test_events_are_worded_once_for_the_sheet_and_the_public_pages():
    with translation.override("zh-hans"):
        assert wording.describe_event(parse_event("NS3")) == "南北上游，对家二游 +3"
        assert wording.describe_event(parse_event("EW1")) == "东西上游，对家末游 +1"
        assert wording.describe_event(parse_event("foul:EW")) == "东西犯规（南北 +3）"
        assert wording.event_text("foul:EW") == "东西犯规"
        assert wording.describe_event(Event.adjust("NS", 2)) == "南北升级调整 +2"
        assert wording.event_text("nonsense") == "nonsense"
    assert wording.printed_place(2) == "三游"
    assert wording.printed_event_note(parse_event("foul:NS")) == "南北犯规"
    assert wording.printed_event_note(parse_event("NS2")) == ""


def test_penalty_kinds_and_table_states_have_words():
    from scoring.models import Penalty
    from scoring.sheet import TableStatus

    assert set(wording.PENALTY_KINDS) == set(Penalty.Kind.values)
    with translation.override("zh-hans"):
        for kind, label in Penalty.Kind.choices:
            assert wording.penalty_kind_label(kind) == str(label)
    for state in (*TableStatus.ORDER, TableStatus.BYE):
        assert wording.table_state_label(state)


@pytest.mark.parametrize(
    ("action", "before", "after", "zh", "en"),
    [
        ("check_in", None, {"pair": 7, "round": 1, "via": "qr"}, "第7对签到（第1轮）",
         "Pair 7 checked in (round 1)"),
        ("check_in", {"pair": 7, "round": 1}, None, "撤销第7对的签到（第1轮）",
         "Check-in of pair 7 undone (round 1)"),
        ("create_accounts", None, {"role": "referee", "accounts": [{"user": "r1"}, {"user": "r2"}]},
         "2个裁判账号：r1, r2", "2 accounts (Referee): r1, r2"),
        ("assign_tables", None, {"user": "r1", "first": 1, "last": 10}, "r1：第1–10桌",
         "r1: tables 1–10"),
        ("lineup", None, {"team": "A", "round": 2, "ns": 3, "ew": 4},
         "A队第2轮：南北第3对，东西第4对", "Team A, round 2: pair 3 North–South, pair 4 East–West"),
        ("generate_round", None, {"round": 3, "matches": 6, "seed": 1}, "第3轮，6场团体赛",
         "Round 3, 6 team matches"),
    ],
)  # fmt: skip
def test_staff_and_team_actions_read_as_sentences(action, before, after, zh, en):
    with translation.override("zh-hans"):
        assert wording.audit_sentence(action, before, after) == zh
    with translation.override("en"):
        assert wording.audit_sentence(action, before, after) == en
