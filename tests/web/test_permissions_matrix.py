"""Permission matrix (issue 5 "Roles", issue 7): every page of the tournaments and pairing apps
× every role. Anonymous visitors are sent to log in on private pages, logged-in people without
the role get 403 (a referee of *another* tournament is nobody here), the role gets in. Public
pages are open to everybody. POST-only actions refuse GET and are checked with POST as well.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from pairing import services as pairing_services
from tournaments.models import Round, Tournament

ALL = ("anonymous", "outsider", "other_ref", "referee", "chief", "organizer")
PUBLIC = set(ALL)
ORGANIZER = {"organizer"}
ROUND_STAFF = {"organizer", "chief"}
DESK_STAFF = {"organizer", "chief", "referee"}  # check-in (签到)

# (url name, args builder, roles allowed)
GET_PAGES: list[tuple[str, str, set[str]]] = [
    ("public:detail", "t", PUBLIC),
    ("public:find", "t", PUBLIC),
    ("public:standings", "t", PUBLIC),
    ("public:pair", "t,pair", PUBLIC),
    ("public:projector", "t", PUBLIC),
    ("public:rounds", "t", PUBLIC),
    ("public:round", "t,round", PUBLIC),
    ("tournaments:manage", "t", ORGANIZER),
    ("tournaments:settings", "t", ORGANIZER),
    ("tournaments:pairs", "t", ORGANIZER),
    ("tournaments:pair_edit", "t,pair", ORGANIZER),
    ("tournaments:staff", "t", ORGANIZER),
    ("tournaments:audit", "t", ROUND_STAFF),
    ("pairing:control", "t", ROUND_STAFF),
    ("pairing:round_control", "t,round", ROUND_STAFF),
    ("tournaments:checkin", "t", DESK_STAFF),
    ("appeals:appeals", "t", ROUND_STAFF),
]
POST_ACTIONS: list[tuple[str, str, set[str]]] = [
    ("tournaments:unit_add", "t", ORGANIZER),
    ("tournaments:pair_status", "t,pair", ROUND_STAFF),
    ("tournaments:staff_revoke", "t", ORGANIZER),
    ("pairing:generate", "t", ROUND_STAFF),
    ("pairing:swap", "t,round", ROUND_STAFF),
    ("pairing:publish", "t,round", ROUND_STAFF),
    ("pairing:finish", "t,round", ROUND_STAFF),
    ("pairing:delete", "t,round", ROUND_STAFF),
    ("pairing:unpublish", "t,round", ROUND_STAFF),
    ("tournaments:staff_accounts", "t", ORGANIZER),
    ("tournaments:staff_done", "t", ORGANIZER),
    ("tournaments:staff_assign", "t", ORGANIZER),
    ("tournaments:staff_remove", "t", ORGANIZER),
    ("tournaments:staff_password", "t", ORGANIZER),
    ("tournaments:checkin_withdraw", "t", ORGANIZER),
]


def build_url(name: str, spec: str, tournament: Tournament, rnd: Round) -> str:
    values = {"t": tournament.slug, "pair": 1, "round": rnd.number}
    return reverse(name, args=[values[key] for key in spec.split(",")])


@pytest.fixture
def draft(tournament: Tournament, cast: dict[str, Any]) -> Round:
    return pairing_services.generate_round(tournament, cast["organizer"])


def assert_access(response: Any, role: str, allowed: set[str], url: str) -> None:
    if role in allowed:
        assert response.status_code in (200, 302), (role, url, response.status_code)
        if response.status_code == 302:
            assert "/accounts/login/" not in response["Location"], (role, url)
    elif role == "anonymous":
        assert response.status_code == 302, (role, url, response.status_code)
        assert response["Location"].startswith(reverse("login") + "?next="), (role, url)
    else:
        assert response.status_code == 403, (role, url, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("role", ALL)
def test_get_pages_matrix(role: str, tournament: Tournament, draft: Round, client_as: Any) -> None:
    client = client_as(role)
    for name, spec, allowed in GET_PAGES:
        if name == "public:round":  # drafts are not public: covered by test_draft_is_not_public
            continue
        url = build_url(name, spec, tournament, draft)
        assert_access(client.get(url), role, allowed, url)


@pytest.mark.django_db
@pytest.mark.parametrize("role", ALL)
def test_public_round_page_for_every_role(role: str, round1: Round, client_as: Any) -> None:
    url = reverse("public:round", args=[round1.tournament.slug, round1.number])
    assert client_as(role).get(url).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("role", ALL)
def test_post_actions_matrix(
    role: str, tournament: Tournament, draft: Round, client_as: Any
) -> None:
    """Refused roles never reach the service; allowed roles get a redirect back (the service
    may still refuse with a message, e.g. finishing a draft)."""
    client = client_as(role)
    for name, spec, allowed in POST_ACTIONS:
        url = build_url(name, spec, tournament, draft)
        response = client.post(url, {})
        assert_access(response, role, allowed, url)
        if role in allowed:
            assert client.get(url).status_code == 405, url


@pytest.mark.django_db
def test_draft_is_not_public(draft: Round, client_as: Any) -> None:
    url = reverse("public:round", args=[draft.tournament.slug, draft.number])
    assert client_as("anonymous").get(url).status_code == 404
    assert client_as("organizer").get(url).status_code == 404


@pytest.mark.django_db
def test_unknown_tournament_is_404_for_every_page(client_as: Any) -> None:
    client = client_as("organizer")
    for name, spec, _allowed in GET_PAGES:
        values = {"t": "no-such-event", "pair": 1, "round": 1}
        url = reverse(name, args=[values[key] for key in spec.split(",")])
        assert client.get(url).status_code == 404, url


@pytest.mark.django_db
@pytest.mark.parametrize("role", ALL)
def test_create_needs_the_add_tournament_permission(role: str, cast: Any, client_as: Any) -> None:
    url = reverse("tournaments:create")
    response = client_as(role).get(url)
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    elif role == "organizer":
        # Organizing a tournament here is enough (issue 15: the organizer account got 403).
        assert response.status_code == 200
    else:
        assert response.status_code == 403
        user = cast[role]
        user.user_permissions.add(Permission.objects.get(codename="add_tournament"))
        assert client_as(role).get(url).status_code == 200


@pytest.mark.django_db
def test_superuser_is_organizer_everywhere(tournament: Tournament, client: Any) -> None:
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser("root", "root@example.org", "pw-root")
    client.force_login(admin)
    assert client.get(reverse("tournaments:manage", args=[tournament.slug])).status_code == 200


@pytest.mark.django_db
def test_csrf_is_enforced_on_organizer_posts(tournament: Tournament, cast: Any) -> None:
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(cast["organizer"])
    response = client.post(reverse("pairing:generate", args=[tournament.slug]))
    assert response.status_code == 403
    assert not Round.objects.filter(tournament=tournament).exists()


@pytest.mark.django_db
def test_roles_helpers(tournament: Tournament, cast: Any) -> None:
    from tournaments.permissions import Role, roles_of

    assert roles_of(cast["organizer"], tournament) == {Role.ORGANIZER}
    assert roles_of(cast["chief"], tournament) == {Role.CHIEF_REFEREE, Role.REFEREE}
    assert roles_of(cast["referee"], tournament) == {Role.REFEREE}
    assert roles_of(cast["other_ref"], tournament) == set()
    assert roles_of(cast["other_ref"], cast["other_tournament"]) == {Role.REFEREE}
    assert roles_of(cast["outsider"], tournament) == set()
    assert roles_of(None, tournament) == set()


@pytest.mark.django_db
def test_one_role_check_for_services_and_views(tournament: Tournament, cast: Any) -> None:
    """``require_role`` refuses with the one error type; the system (``None``) always passes."""
    from django.contrib.auth.models import AnonymousUser

    from tournaments.errors import ForbiddenError, ServiceError
    from tournaments.permissions import ROUND_ROLES, Role, require_role

    require_role(None, tournament, Role.ORGANIZER)
    require_role(cast["chief"], tournament, *ROUND_ROLES)
    require_role(cast["chief"], tournament, Role.REFEREE)  # a chief referee is a referee
    for user in (cast["referee"], cast["outsider"], cast["other_ref"], AnonymousUser()):
        with pytest.raises(ForbiddenError) as refused:
            require_role(user, tournament, *ROUND_ROLES)
        assert isinstance(refused.value, ServiceError)
        assert refused.value.code == "forbidden"
