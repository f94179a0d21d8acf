"""RULES.md §9 on the pages (issue 28): the settings page offers every setting, each explained by
the sentence it comes from (no internal reference), saves them and refuses a wrong one with a
sentence; the stages page sets each stage's own rules; the standings and group pages head their
columns in the event's words."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import translation

from tests.support.stages import post_data
from tournaments.forms import SettingsForm
from tournaments.models import Tournament
from tournaments.settings_fields import SOURCES

pytestmark = pytest.mark.django_db


def form_data(initial: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    data = {key: ("" if value is None else value) for key, value in initial.items()}
    data.update(overrides)
    return data


def settings_url(tournament: Tournament) -> str:
    return reverse("tournaments:settings", args=[tournament.slug])


def test_every_setting_is_on_the_page_with_its_sentence(tournament, client_as):
    with translation.override("zh-hans"):
        html = client_as("organizer").get(settings_url(tournament)).content.decode()
        for key in ("minutes", "deal_points", "first_to_level", "extra_deal_from", "lateness"):
            assert str(SOURCES[key]) in html, key
        for key in ("escalation", "forfeit_absent", "labels", "head_to_head_two", "upgrades"):
            assert str(SOURCES[key]).split("“")[0] in html, key
    # Each setting's field: the time limit, the upgrades, the round formats, the tie rules, the
    # extra deal, lateness, the escalation ladder, the absent side, the labels.
    for name in (
        "minutes",
        "upgrades_double",
        "upgrades_partner_3rd",
        "upgrades_partner_4th",
        "extra_deal_from",
        "lateness",
        "lateness_per_minutes",
        "lateness_loss_after",
        "escalation",
        "escalation_scope",
        "escalation_step_1",
        "forfeit_absent_cf",
        "label_cf",
        "label_head_to_head_two",
    ):
        assert f'name="{name}"' in html, name
    for value in ("deal_points", "first_to_level", "head_to_head_two"):
        assert f'value="{value}"' in html, value
    # The settings' own help names its sources, never "seed 003" or "RULES §2".
    fieldsets = html[html.index("<fieldset>") : html.rindex("</fieldset>")]
    assert not re.search(r"seed \d{3}|RULES", fieldsets)


def test_the_settings_are_saved_and_read_back(tournament, client_as):
    initial = SettingsForm.initial_from(tournament.settings)
    data = form_data(
        initial,
        round_format="timed",
        minutes="70",
        upgrades_double="5",
        upgrades_partner_3rd="3",
        tie="first_to_level",
        extra_deal_from="2",
        lateness="per_minutes",
        lateness_per_minutes="5",
        lateness_levels="1",
        lateness_forfeit_after="20",
        escalation="custom",
        escalation_scope="match",
        escalation_step_1="warning",
        escalation_step_2="level_award:3",
        escalation_step_3="penalty_loss",
        forfeit_absent_cf="-1",
        label_cf="总积分",
        label_level_difference="净积小分",
        win="1",
        draw="0.5",
    )
    response = client_as("organizer").post(settings_url(tournament), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    tournament.refresh_from_db()
    settings = tournament.settings
    assert settings["minutes"] == 70 and settings["tie"] == "first_to_level"
    assert settings["upgrades"] == {"double": 5, "partner_3rd": 3, "partner_4th": 1}
    assert settings["lateness"] == {"per_minutes": 5, "levels": 1, "forfeit_after": 20}
    assert settings["escalation"] == {
        "scope": "match",
        "steps": [
            {"kind": "warning"},
            {"kind": "level_award", "levels": 3},
            {"kind": "penalty_loss"},
        ],
    }
    assert settings["extra_deal_from"] == 2
    assert settings["forfeit"] == {"cf": 2, "jcf": 17, "absent": {"cf": -1, "jcf": 0}}
    assert settings["labels"] == {"cf": "总积分", "level_difference": "净积小分"}
    # The page shows them again as saved (the form round-trips the settings).
    again = SettingsForm.initial_from(settings)
    assert (again["minutes"], again["upgrades_double"], again["escalation_step_2"]) == (
        70,
        5,
        "level_award:3",
    )
    assert SettingsForm(data=form_data(again)).is_valid()


def test_an_unsaved_setting_is_not_written(tournament, client_as):
    initial = SettingsForm.initial_from(tournament.settings)
    client_as("organizer").post(settings_url(tournament), form_data(initial))
    tournament.refresh_from_db()
    for key in ("minutes", "upgrades", "lateness", "escalation", "extra_deal_from", "labels"):
        assert key not in tournament.settings


@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        ({"tie": "first_to_level"}, "tie", "计时"),  # a 计副制 event: refused
        ({"lateness": "per_minutes", "lateness_per_minutes": "5"}, "lateness", "迟到"),
        ({"escalation": "custom", "escalation_scope": "match"}, "escalation", "判罚升级"),
        ({"forfeit_absent_cf": "3"}, "forfeit_cf", "缺席方"),
        ({"upgrades_double": "1"}, "upgrades_double", "升级数"),
    ],
)
def test_a_wrong_setting_comes_back_as_a_sentence(tournament, client_as, overrides, field, words):
    before = dict(tournament.settings)
    data = form_data(SettingsForm.initial_from(tournament.settings), **overrides)
    with translation.override("zh-hans"):
        response = client_as("organizer").post(settings_url(tournament), data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors or "__all__" in errors, errors
    assert words in " ".join(str(e) for e in errors.values())
    tournament.refresh_from_db()
    assert tournament.settings == before


def test_each_stage_sets_its_own_rules_on_the_stages_page(tournament, client_as):
    client = client_as("organizer")
    url = reverse("pairing:stages", args=[tournament.slug])
    page = client.get(url).content.decode()
    assert str(SOURCES["stage"]) in page and 'name="form-0-minutes"' in page
    stages = [
        {"kind": "swiss", "rounds": 2, "minutes": 70, "label_cf": "总积分"},
        {
            "kind": "round_robin",
            "groups": 2,
            "qualify": 2,
            "win": 1,
            "draw": "0.5",
            "loss": 0,
            "tiebreak_preset": "custom",
            "tiebreak_1": "head_to_head_two",
            "tiebreak_2": "level_difference",
            "tiebreak_3": "upgrades",
            "forfeit_absent_cf": -1,
            "escalation": "custom",
            "escalation_scope": "round",
            "escalation_step_1": "warning",
            "escalation_step_2": "level_award:3",
        },
        {"kind": "knockout", "minutes": 120, "tie": "extra_deal", "extra_deal_from": "2"},
    ]
    response = client.post(url, post_data(stages))
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament.refresh_from_db()
    saved = tournament.settings["stages"]
    assert saved[0]["settings"] == {"minutes": 70, "labels": {"cf": "总积分"}}
    assert saved[1]["settings"] == {
        "match_points": {"win": 1, "draw": 0.5, "loss": 0},
        "forfeit": {"cf": 2, "jcf": 17, "absent": {"cf": -1, "jcf": 0}},  # by the scale
        "tiebreaks": ["head_to_head_two", "level_difference", "upgrades"],
        "escalation": {
            "scope": "round",
            "steps": [{"kind": "warning"}, {"kind": "level_award", "levels": 3}],
        },
    }
    assert saved[2]["settings"] == {"minutes": 120, "tie": "extra_deal", "extra_deal_from": 2}
    rules = tournament.rules
    assert rules.for_stage(2).tiebreaks == ("head_to_head_two", "level_difference", "upgrades")
    assert rules.for_stage(3).extra_from_two and rules.for_stage(1).minutes == 70
    # Shown again as saved.
    page = client.get(url).content.decode()
    assert (
        'name="form-2-minutes" value="120"' in page or 'value="120" name="form-2-minutes"' in page
    )


def test_a_stages_wrong_setting_is_refused_with_a_sentence(tournament, client_as):
    client = client_as("organizer")
    url = reverse("pairing:stages", args=[tournament.slug])
    stages = [{"kind": "swiss", "rounds": 2}, {"kind": "knockout", "tie": "draw"}]
    with translation.override("zh-hans"):
        response = client.post(url, post_data(stages), follow=True)
    text = response.content.decode()
    assert "淘汰赛" in text and "stages" not in tournament.settings


def test_the_standings_page_heads_its_columns_in_the_events_words(played, tournament, client_as):
    settings = {**tournament.settings, "labels": {"cf": "总积分", "jcf": "净积小分"}}
    Tournament.objects.filter(pk=tournament.pk).update(settings=settings)
    for language in ("zh-hans", "en"):
        client = client_as("anonymous")
        client.cookies["django_language"] = language
        html = client.get(reverse("public:standings", args=[tournament.slug])).content.decode()
        headers = re.findall(r"<th[^>]*>([^<]*)</th>", html)
        assert "总积分" in headers and "净积小分" in headers, (language, headers)
