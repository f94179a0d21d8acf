"""The organizer's stages page (RULES.md §8, issue 14): add, edit and remove stages until they
start, clear messages for a wrong stage, the qualifiers of a finished stage and the button that
starts the next one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from pairing import services as pairing_services
from tests.support.stages import post_data, url
from tests.support.tournament import play_round
from tournaments.models import Round

pytestmark = pytest.mark.django_db


def test_organizer_adds_stages(client_as, tournament):
    client = client_as("organizer")
    assert client.get(url(tournament)).status_code == 200
    stages = [
        {"kind": "swiss", "rounds": 1, "groups": 3},  # a group count left over: not kept
        {"kind": "knockout", "entrants": 4, "best_of": 3, "third_place": True},
        {"kind": ""},  # the empty row
    ]
    response = client.post(url(tournament), post_data(stages))
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert tournament.settings["stages"] == [
        {"kind": "swiss", "rounds": 1},
        {"kind": "knockout", "entrants": 4, "best_of": 3, "third_place": True},
    ]
    html = client.get(url(tournament)).content.decode()
    assert 'data-testid="stage-form-3"' in html  # two stages and an empty row to add one


def test_a_wrong_stage_gets_the_catalogue_message_and_nothing_changes(client_as, tournament):
    client = client_as("organizer")
    before = dict(tournament.settings)
    stages = [{"kind": "knockout"}, {"kind": "swiss", "rounds": 2}]
    response = client.post(url(tournament), post_data(stages))
    assert response.status_code == 200
    html = response.content.decode()
    assert "前一个淘汰赛阶段没有设“until”" in html
    tournament.refresh_from_db()
    assert tournament.settings == before


def test_a_started_stage_keeps_its_settings_the_later_ones_change(client_as, tournament, cast):
    client = client_as("organizer")
    stages = [{"kind": "swiss", "rounds": 1}, {"kind": "knockout", "entrants": 4}]
    client.post(url(tournament), post_data(stages))
    tournament.refresh_from_db()
    rnd = pairing_services.generate_round(tournament, cast["organizer"])
    pairing_services.publish_round(rnd, cast["organizer"])
    # Try to change stage 1 (disabled: its values stay) and stage 2 (allowed).
    changed = [{"kind": "swiss", "rounds": 5}, {"kind": "knockout", "entrants": 2}]
    data = post_data(changed)
    data["form-INITIAL_FORMS"] = "2"
    response = client.post(url(tournament), data)
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert tournament.settings["stages"] == [
        {"kind": "swiss", "rounds": 1},
        {"kind": "knockout", "entrants": 2},
    ]
    html = client.get(url(tournament)).content.decode()
    assert "第1阶段（已开始）" in html


def test_qualifiers_appear_and_the_next_stage_starts(client_as, tournament, cast):
    client = client_as("organizer")
    stages = [{"kind": "swiss", "rounds": 1}, {"kind": "knockout", "entrants": 4}]
    client.post(url(tournament), post_data(stages))
    tournament.refresh_from_db()
    rnd = pairing_services.generate_round(tournament, cast["organizer"])
    pairing_services.publish_round(rnd, cast["organizer"])
    assert 'data-testid="qualifiers"' not in client.get(url(tournament)).content.decode()
    play_round(rnd, cast["referee"], cast["chief"])
    pairing_services.finish_round(rnd, cast["organizer"])
    html = client.get(url(tournament)).content.decode()
    qualifiers = html.split('data-testid="qualifiers"')[1].split("</ol>")[0]
    assert qualifiers.count("<li>") == 4
    assert 'id="start-stage"' in html
    response = client.post(reverse("pairing:generate", args=[tournament.slug]))
    assert response.status_code == 302
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.stage == 2 and second.status == Round.Status.DRAFT


def test_removing_a_stage(client_as, tournament):
    client = client_as("organizer")
    stages = [{"kind": "swiss", "rounds": 2}, {"kind": "knockout"}]
    client.post(url(tournament), post_data(stages))
    data = post_data(stages, delete=(1,))
    data["form-INITIAL_FORMS"] = "2"
    assert client.post(url(tournament), data).status_code == 302
    tournament.refresh_from_db()
    assert tournament.settings["stages"] == [{"kind": "swiss", "rounds": 2}]


@pytest.mark.parametrize("role", ["anonymous", "outsider", "referee", "chief"])
def test_only_organizers_set_up_stages(client_as, tournament, role):
    response = client_as(role).post(url(tournament), post_data([{"kind": "swiss", "rounds": 1}]))
    assert response.status_code in (302, 403)
    tournament.refresh_from_db()
    assert "stages" not in tournament.settings


def test_bad_input_is_a_message_not_a_500(client_as, tournament):
    client = client_as("organizer")
    data = post_data([{"kind": "round_robin", "groups": "9" * 30, "qualify": "\x00"}])
    response = client.post(url(tournament), data)
    assert response.status_code == 200
    data = post_data([{"kind": "nonsense"}])
    assert client.post(url(tournament), data).status_code == 200
    tournament.refresh_from_db()
    assert "stages" not in tournament.settings
