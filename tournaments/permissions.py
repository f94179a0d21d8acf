"""Per-tournament roles and the one role check, used by the services and the views alike.

A person's role is per tournament (issue 5 "Roles"): a referee at one event is nobody at another.
The roles, highest first:

- ``Role.ORGANIZER``      组委会/编排 — settings, registrations, round control, role assignment;
- ``Role.CHIEF_REFEREE``  裁判长 — everything a referee does, plus corrections of confirmed results
  (after the correction deadline too, as an override that is logged);
- ``Role.REFEREE``        裁判 — round dashboard, table entry, confirmation, penalties;
- ``Role.PUBLIC``         everybody else (anonymous visitors and logged-in outsiders).

A chief referee counts as a referee (``referee_required`` lets them in); an organizer does *not*
automatically count as a referee (the desk and the tables are different jobs) unless also listed
as one. A superuser holds every role everywhere (the club's IT person setting things up).

Guards, for function views whose URL has a ``slug`` (the tournament's) keyword argument::

    @organizer_required
    def round_control(request, tournament, number): ...

The decorator loads the tournament (404 if the slug is unknown), sends an anonymous visitor to the
login page (``?next=`` back here), answers 403 to a logged-in user without the role, and calls the
view with ``tournament=<Tournament>`` **instead of** ``slug``. ``request.tournament`` and
``request.tournament_roles`` are set too.

Services call the same check, ``require_role(user, tournament, *roles)``, which raises
``ForbiddenError`` (a ``ServiceError``, code ``forbidden``); ``user=None`` is the system (an import
or a management command) and passes. The decorator turns that error into the 403 above. The role
sets of the services (``REGISTRATION_ROLES`` …) live here too, so a view can ask before it calls.

This module reads the database (one query per user and tournament, cached on the user object for
the request; ``forget_roles`` drops the cache after a grant) and never writes.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from tournaments.errors import ForbiddenError
from tournaments.models import Tournament

if TYPE_CHECKING:  # pragma: no cover - typing only
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

    AnyUser = AbstractBaseUser | AnonymousUser

__all__ = [
    "APPEAL_ROLES",
    "CHECKIN_ROLES",
    "CORRECTION_ROLES",
    "DEADLINE_OVERRIDE_ROLES",
    "DISQUALIFY_ROLES",
    "PENALTY_ROLES",
    "REGISTRATION_ROLES",
    "RESULT_ROLES",
    "ROUND_ROLES",
    "Role",
    "can_create_tournaments",
    "chief_referee_required",
    "forget_roles",
    "get_tournament",
    "has_role",
    "is_chief_referee",
    "is_referee",
    "organizer_required",
    "referee_required",
    "require_role",
    "role_required",
    "roles_of",
]


class Role(enum.StrEnum):
    """A person's role at one tournament."""

    ORGANIZER = "organizer"
    CHIEF_REFEREE = "chief_referee"
    REFEREE = "referee"
    PUBLIC = "public"


_ALL_ROLES = frozenset((Role.ORGANIZER, Role.CHIEF_REFEREE, Role.REFEREE))
_CACHE_ATTR = "_tournament_roles_cache"

# Who may do what at a tournament (the services check these; views may ask the same first).
REGISTRATION_ROLES = (Role.ORGANIZER,)
ROUND_ROLES = (Role.ORGANIZER, Role.CHIEF_REFEREE)
RESULT_ROLES = (Role.REFEREE, Role.CHIEF_REFEREE)
PENALTY_ROLES = (Role.REFEREE, Role.CHIEF_REFEREE)
CORRECTION_ROLES = (Role.CHIEF_REFEREE,)
# RULES.md §7: after the correction deadline a result stands unless the chief referee overrides.
DEADLINE_OVERRIDE_ROLES = (Role.CHIEF_REFEREE,)
DISQUALIFY_ROLES = (Role.ORGANIZER, Role.CHIEF_REFEREE)
# 签到 at the desk: whoever staffs it.
CHECKIN_ROLES = (Role.ORGANIZER, Role.CHIEF_REFEREE, Role.REFEREE)
# 申诉: lodged and decided by the chief referee or the organizers (the committee's secretary).
APPEAL_ROLES = (Role.ORGANIZER, Role.CHIEF_REFEREE)
# The site-level right to create tournaments (``manage.py organizer`` grants it).
CREATE_PERMISSION = "tournaments.add_tournament"


def can_create_tournaments(user: AnyUser | None) -> bool:
    """Whether ``user`` may create a tournament (``/new/``): a superuser, an account holding the
    site-level permission ``tournaments.add_tournament`` (``manage.py organizer`` creates one;
    a group granting it works too), or anyone already organizing a tournament here."""
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    if user.has_perm(CREATE_PERMISSION):
        return True
    return Tournament.organizers.through.objects.filter(user_id=user.pk).exists()


def roles_of(user: AnyUser | None, tournament: Tournament) -> frozenset[Role]:
    """Every role ``user`` holds at ``tournament`` (empty for the public).

    A chief referee is also reported as ``Role.REFEREE``. One query (three ``EXISTS`` on the M2M
    tables), cached on the user object so a page asking several times pays once.
    """
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    if user.is_superuser:
        return _ALL_ROLES
    cache: dict[int, frozenset[Role]] = user.__dict__.setdefault(_CACHE_ATTR, {})
    if tournament.pk in cache:
        return cache[tournament.pk]

    def member(through: Any) -> Exists:
        return Exists(through.objects.filter(tournament_id=OuterRef("pk"), user_id=user.pk))

    row = (
        Tournament.objects.filter(pk=tournament.pk)
        .values_list(
            member(Tournament.organizers.through),
            member(Tournament.chief_referees.through),
            member(Tournament.referees.through),
        )
        .first()
    )
    roles: set[Role] = set()
    if row is not None:
        organizer, chief, referee = row
        if organizer:
            roles.add(Role.ORGANIZER)
        if chief:
            roles.update((Role.CHIEF_REFEREE, Role.REFEREE))
        if referee:
            roles.add(Role.REFEREE)
    cache[tournament.pk] = frozenset(roles)
    return cache[tournament.pk]


def has_role(user: AnyUser | None, tournament: Tournament, *roles: Role | str) -> bool:
    """Whether ``user`` holds at least one of ``roles`` at ``tournament``."""
    held = roles_of(user, tournament)
    return any(Role(role) in held for role in roles)


def is_chief_referee(user: AnyUser | None, tournament: Tournament) -> bool:
    return has_role(user, tournament, Role.CHIEF_REFEREE)


def is_referee(user: AnyUser | None, tournament: Tournament) -> bool:
    """Referees and chief referees."""
    return has_role(user, tournament, Role.REFEREE)


def require_role(user: AnyUser | None, tournament: Tournament, *roles: Role | str) -> None:
    """The one role check: raise ``ForbiddenError`` unless ``user`` holds one of ``roles``.

    ``user=None`` is the system (an import, a management command) and is never refused; an
    anonymous user holds no role. Services call this first; ``role_required`` wraps it for views.
    """
    if user is not None and not has_role(user, tournament, *roles):
        raise ForbiddenError


def forget_roles(user: Any) -> None:
    """Drop the roles cached on this user object (after a role was granted or revoked)."""
    if user is not None:
        user.__dict__.pop(_CACHE_ATTR, None)


def get_tournament(slug: str) -> Tournament:
    """The tournament with this slug, or 404."""
    return get_object_or_404(Tournament, slug=slug)


def _check(request: HttpRequest, tournament: Tournament, roles: tuple[Role, ...]) -> None:
    """Raise ``PermissionDenied`` (403) unless the (logged-in) user holds one of ``roles``."""
    request.tournament = tournament  # type: ignore[attr-defined]
    request.tournament_roles = roles_of(request.user, tournament)  # type: ignore[attr-defined]
    try:
        require_role(request.user, tournament, *roles)
    except ForbiddenError as error:
        raise PermissionDenied from error


def role_required(*roles: Role | str) -> Callable[[Callable[..., HttpResponse]], Callable]:
    """Decorator factory: allow users holding any of ``roles`` at the URL's tournament.

    Anonymous → redirect to login; logged in without the role → 403; unknown slug → 404.
    The view receives ``tournament=`` in place of ``slug=``.
    """
    wanted = tuple(Role(role) for role in roles)
    if not wanted or Role.PUBLIC in wanted:
        raise ValueError("role_required needs at least one non-public role")

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            tournament = get_tournament(kwargs.pop("slug"))
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            _check(request, tournament, wanted)
            return view(request, *args, tournament=tournament, **kwargs)

        wrapper.required_roles = wanted  # type: ignore[attr-defined]
        return wrapper

    return decorator


organizer_required = role_required(Role.ORGANIZER)
organizer_required.__doc__ = "Only the tournament's organizers (组委会/编排)."
chief_referee_required = role_required(Role.CHIEF_REFEREE)
chief_referee_required.__doc__ = "Only the tournament's chief referees (裁判长)."
referee_required = role_required(Role.REFEREE)
referee_required.__doc__ = "The tournament's referees and chief referees (裁判/裁判长)."
