"""Issue 29 finding E (point 5): accounts belong to their event's organizers. An organizer of
event B granted a role at B to an idle referee account of event A, reset its password and
revoked the role; when A's organizer later granted that account a role again, B's organizer
logged in to A's desk with the password they had set — and A's audit log showed nothing.

Now the account remembers who created it and for which event (``StaffAccount``): a grant or a
password reset is refused for an account another organizer created unless the two organizers
share an event (or this one organizes the event it was made for); revoking an account's last
role deactivates it, so no idle account waits to be taken."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from tests.support.pages import make_user
from tests.support.tournament import build_tournament
from tournaments import services as tournament_services
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Tournament
from tournaments.permissions import Role
from tournaments.staff import create_staff_accounts, reset_staff_password

pytestmark = pytest.mark.django_db


@pytest.fixture
def events(db: Any) -> dict[str, Any]:
    """Event A (organizer ``alice``) and event B (organizer ``bob``), nobody shared."""
    alice, bob, chief = make_user("alice"), make_user("bob"), make_user("chief-a")
    a = build_tournament(alice, chief, [], n_pairs=4, slug="event-a")
    b = build_tournament(bob, make_user("chief-b"), [], n_pairs=4, slug="event-b")
    (login,) = create_staff_accounts(a, Role.REFEREE, 1, alice)
    account = get_user_model().objects.get(username=login.username)
    return {"alice": alice, "bob": bob, "a": a, "b": b, "account": account, "login": login}


def _logs_in(username: str, password: str) -> bool:
    return Client().login(username=username, password=password)


def test_revoking_the_last_role_deactivates_the_account(events: dict[str, Any]) -> None:
    account = events["account"]
    tournament_services.revoke_role(events["a"], account, Role.REFEREE, revoked_by=events["alice"])
    account.refresh_from_db()
    assert not account.is_active
    assert not _logs_in(account.username, events["login"].password)
    # Its own organizer gives it a role again: it works again, with its printed password.
    tournament_services.grant_role(events["a"], account, Role.REFEREE, granted_by=events["alice"])
    account.refresh_from_db()
    assert account.is_active and _logs_in(account.username, events["login"].password)


def test_another_events_organizer_cannot_take_an_account_over(events: dict[str, Any]) -> None:
    """The replay, through the services."""
    a, b, alice, bob, account = (events[k] for k in ("a", "b", "alice", "bob", "account"))
    tournament_services.revoke_role(a, account, Role.REFEREE, revoked_by=alice)  # idle now
    with pytest.raises(ServiceError) as refused:
        tournament_services.grant_role(b, account, Role.REFEREE, granted_by=bob)
    assert refused.value.code in ("account_not_yours", "account_inactive")
    account.refresh_from_db()
    assert not b.referees.filter(pk=account.pk).exists()
    # Even while it is active and staff here, an account of event A is not bob's to grant or reset.
    tournament_services.grant_role(a, account, Role.REFEREE, granted_by=alice)
    with pytest.raises(ServiceError) as refused:
        tournament_services.grant_role(b, account, Role.REFEREE, granted_by=bob)
    assert refused.value.code == "account_not_yours"
    b.referees.add(account)  # were it staff at B somehow (the admin of old, a command)
    with pytest.raises(ServiceError) as refused:
        reset_staff_password(b, account, bob)
    assert refused.value.code in ("account_not_yours", "cannot_reset_password")
    assert _logs_in(account.username, events["login"].password)


def test_the_replay_through_the_pages(events: dict[str, Any]) -> None:
    a, b, alice, bob, account = (events[k] for k in ("a", "b", "alice", "bob", "account"))
    alice_client, bob_client = Client(), Client()
    alice_client.force_login(alice)
    bob_client.force_login(bob)
    alice_client.post(
        reverse("tournaments:staff_revoke", args=[a.slug]),
        {"user_id": account.pk, "role": "referee"},
    )
    response = bob_client.post(
        reverse("tournaments:staff", args=[b.slug]),
        {"username": account.username, "role": "referee"},
    )
    assert response.status_code == 200  # the form again, with the refusal
    assert not b.referees.filter(pk=account.pk).exists()
    bob_client.post(reverse("tournaments:staff_password", args=[b.slug]), {"user_id": account.pk})
    alice_client.post(
        reverse("tournaments:staff", args=[a.slug]),
        {"username": account.username, "role": "referee"},
    )
    account.refresh_from_db()
    assert account.is_active and a.referees.filter(pk=account.pk).exists()
    kept = bob_client.session.get("staff_logins", {}).get(str(b.pk), [])
    assert kept == []  # bob never got a password for it
    assert _logs_in(account.username, events["login"].password)
    assert not AuditEntry.objects.filter(tournament=b, action="reset_password").exists()


def test_co_organizers_share_their_accounts(events: dict[str, Any]) -> None:
    """Organizers of one event grant and reset each other's accounts (a shared event), and an
    organizer of the event an account was made for may, whoever made it."""
    a, alice, account = events["a"], events["alice"], events["account"]
    carol = make_user("carol")
    tournament_services.grant_role(a, carol, Role.ORGANIZER, granted_by=alice)
    c = build_tournament(carol, make_user("chief-c"), [], n_pairs=4, slug="event-c")
    tournament_services.grant_role(c, account, Role.REFEREE, granted_by=carol)
    login = reset_staff_password(a, account, carol)
    assert _logs_in(account.username, login.password)
    assert Tournament.objects.filter(referees=account).count() == 2
