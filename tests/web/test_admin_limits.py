"""Issue 11 finding 11: the admin is read-only for what the services own, and a page whose
stored results the engine refuses shows the problem instead of a 500."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.support.pages import make_cast, make_tournament
from tests.support.tournament import next_round, play_round
from tournaments.models import Pair, Player, Round, Tournament


@pytest.fixture
def superuser(db: Any) -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw")


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def played(cast: dict[str, Any]) -> Round:
    """Round 1 of an 8-pair tournament, every table confirmed."""
    tournament = make_tournament(cast)
    rnd = next_round(tournament, cast["organizer"])
    play_round(rnd, cast["referee"], cast["chief"])
    return rnd


def _admin(superuser: Any) -> Client:
    client = Client()
    client.force_login(superuser)
    client.raise_request_exception = False
    return client


def _tournament_form(tournament: Tournament, **changes: Any) -> dict[str, Any]:
    import json

    data: dict[str, Any] = {
        "name": tournament.name,
        "slug": tournament.slug,
        "settings": json.dumps(tournament.settings, ensure_ascii=False),
        "status": tournament.status,
        "organizers": [u.pk for u in tournament.organizers.all()],
        "chief_referees": [u.pk for u in tournament.chief_referees.all()],
        "referees": [u.pk for u in tournament.referees.all()],
    }
    data.update(changes)
    return data


def test_published_settings_cannot_be_changed_in_the_admin(played: Round, superuser: Any) -> None:
    import json

    tournament = played.tournament
    before = dict(tournament.settings)
    changed = {**before, "deals_per_round": 2}
    url = reverse("admin:tournaments_tournament_change", args=[tournament.pk])
    response = _admin(superuser).post(
        url, _tournament_form(tournament, settings=json.dumps(changed), status="finished")
    )
    assert response.status_code == 403  # read-only since issue 29 (the settings page owns them)
    tournament.refresh_from_db()
    assert tournament.settings == before
    assert tournament.status == Tournament.Status.RUNNING or tournament.status != "finished"


def test_a_seated_pair_cannot_move_to_another_tournament(
    played: Round, cast: dict[str, Any], superuser: Any
) -> None:
    pair = Pair.objects.get(tournament=played.tournament, number=1)
    other = cast["other_tournament"]
    players = list(Player.objects.filter(pair=pair).order_by("position"))
    data: dict[str, Any] = {
        "tournament": other.pk,
        "number": 99,
        "status": "disqualified",
        "unit": "",
        "seeding": "",
        "players-TOTAL_FORMS": str(len(players)),
        "players-INITIAL_FORMS": str(len(players)),
        "players-MIN_NUM_FORMS": "0",
        "players-MAX_NUM_FORMS": "2",
    }
    for index, player in enumerate(players):
        data[f"players-{index}-id"] = player.pk
        data[f"players-{index}-pair"] = pair.pk
        data[f"players-{index}-name"] = "换人"
        data[f"players-{index}-position"] = player.position
        data[f"players-{index}-contact"] = ""
    url = reverse("admin:tournaments_pair_change", args=[pair.pk])
    response = _admin(superuser).post(url, data)
    assert response.status_code == 403  # read-only since issue 29
    pair.refresh_from_db()
    assert pair.tournament_id == played.tournament_id and pair.number == 1
    assert pair.status == "active"
    assert [p.name for p in Player.objects.filter(pair=pair)] == [p.name for p in players]


def test_pairs_cannot_be_added_or_deleted_and_players_are_read_only(
    played: Round, superuser: Any
) -> None:
    client = _admin(superuser)
    pair = Pair.objects.filter(tournament=played.tournament).first()
    assert client.get(reverse("admin:tournaments_pair_add")).status_code == 403
    assert client.get(reverse("admin:tournaments_pair_delete", args=[pair.pk])).status_code == 403
    player = Player.objects.filter(pair=pair).first()
    url = reverse("admin:tournaments_player_change", args=[player.pk])
    assert client.post(url, {"name": "x", "pair": pair.pk, "position": 1}).status_code == 403
    player.refresh_from_db()
    assert player.name != "x"


@pytest.mark.parametrize("model", ["round", "table", "seat", "auditentry"])
def test_results_stay_read_only(played: Round, superuser: Any, model: str) -> None:
    model_admin = next(m for k, m in admin.site._registry.items() if k._meta.model_name == model)

    class Request:
        user = superuser

    assert not model_admin.has_change_permission(Request())
    assert not model_admin.has_add_permission(Request())


def test_events_and_penalties_stay_read_only(superuser: Any) -> None:
    from scoring.models import Penalty, TableEvent

    class Request:
        user = superuser

    for model in (TableEvent, Penalty):
        model_admin = admin.site._registry[model]
        assert not model_admin.has_change_permission(Request())
        assert not model_admin.has_delete_permission(Request())


# --------------------------------------------------------------------------------------------
# Stored results the engine refuses (what the old admin could leave behind)


def test_pages_show_the_problem_when_the_engine_refuses_stored_results(
    played: Round, cast: dict[str, Any]
) -> None:
    tournament = played.tournament
    # What an admin edit did: fewer deals per round than every table has played.
    Tournament.objects.filter(pk=tournament.pk).update(
        settings={**tournament.settings, "deals_per_round": 2},
        results_version=tournament.results_version + 1,
    )
    client = Client()
    client.raise_request_exception = False
    slug = tournament.slug
    pair = Pair.objects.filter(tournament=tournament).first()
    for url in [
        f"/t/{slug}/standings/",
        f"/t/{slug}/pairs/{pair.number}/",
        f"/t/{slug}/projector/?show=standings",
    ]:
        response = client.get(url)
        assert response.status_code != 500, url
        assert response.status_code == 409, (url, response.status_code)
        page = response.content.decode()
        assert "无法计算" in page, url


def test_an_unrelated_tournament_is_unaffected(cast: dict[str, Any]) -> None:
    other = cast["other_tournament"]
    assert Client().get(f"/t/{other.slug}/standings/").status_code == 200
