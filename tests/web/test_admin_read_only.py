"""Issue 29 finding F (point 6): the Django admin is read-only for every model a service owns,
teams included. A team added in the admin to a started team event, with pairs of another
event, made every line-up page answer 500 (a KeyError in ``round_lineups``): the admin locks,
validates and audits nothing, so it adds, changes and deletes nothing — a superuser works
through the organizer's pages (where a superuser holds every role)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from pairing import services as pairing_services
from tests.support.team_event import build_team_event
from tournaments.models import Pair, Team, Tournament

OUR_APPS = {"rules", "tournaments", "scoring", "pairing", "reports"}


def _our_admins() -> list[tuple[Any, Any]]:
    return sorted(
        (
            (model, model_admin)
            for model, model_admin in admin.site._registry.items()
            if model._meta.app_label in OUR_APPS
        ),
        key=lambda item: item[0].__name__,
    )


@pytest.fixture
def superuser(db: Any) -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw")


def _admin(superuser: Any) -> Client:
    client = Client()
    client.force_login(superuser)
    client.raise_request_exception = False
    return client


def test_every_model_of_the_apps_is_listed() -> None:
    names = {model.__name__ for model, _admin in _our_admins()}
    assert {"Tournament", "Unit", "Pair", "Player", "Team", "Round", "Table"} <= names


@pytest.mark.parametrize(
    "model", [model for model, _admin in _our_admins()], ids=lambda m: m.__name__
)
def test_no_model_of_the_apps_can_be_added_changed_or_deleted(superuser: Any, model: Any) -> None:
    model_admin = admin.site._registry[model]

    class Request:
        user = superuser

    assert not model_admin.has_add_permission(Request())
    assert not model_admin.has_change_permission(Request())
    assert not model_admin.has_delete_permission(Request())
    assert model_admin.has_view_permission(Request())
    client = _admin(superuser)
    base = f"admin:{model._meta.app_label}_{model._meta.model_name}"
    assert client.get(reverse(f"{base}_changelist")).status_code == 200
    assert client.post(reverse(f"{base}_add"), {}).status_code == 403


@pytest.mark.django_db
def test_a_team_cannot_be_added_to_a_started_event_with_another_events_pairs(
    superuser: Any, cast: dict[str, Any], tournament: Tournament
) -> None:
    """The replay: a started team event, a team of the pairs event's pairs posted to the
    admin's add form. Refused; the event's line-up and round pages keep answering."""
    event = build_team_event(cast["organizer"], cast["chief"], [cast["referee"]], n_teams=4)
    rnd = pairing_services.generate_round(event, cast["organizer"])
    pairing_services.publish_round(rnd, cast["organizer"])
    teams_before = Team.objects.filter(tournament=event).count()
    strangers = list(Pair.objects.filter(tournament=tournament)[:2])
    client = _admin(superuser)
    response = client.post(
        reverse("admin:tournaments_team_add"),
        {
            "tournament": event.pk,
            "code": "99",
            "name": "混入队",
            "status": "active",
            "captain_code": "ZZZZZZ",
            "pairs": [p.pk for p in strangers],
        },
    )
    assert response.status_code == 403
    assert Team.objects.filter(tournament=event).count() == teams_before
    team = Team.objects.filter(tournament=event).order_by("pk").first()
    assert team is not None
    change = reverse("admin:tournaments_team_change", args=[team.pk])
    page = client.get(change)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.post(
        change, {"name": "改名", "pairs": [p.pk for p in strangers]}
    ).status_code in (403,)
    team.refresh_from_db()
    assert team.name != "改名"
    organizer = Client()
    organizer.force_login(cast["organizer"])
    organizer.raise_request_exception = False
    lineup = reverse("tournaments:lineup", args=[event.slug, team.code])
    assert organizer.get(lineup).status_code == 200
