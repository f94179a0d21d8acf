"""Per-tournament roles and the decorators/mixins that guard every private page.

A person's role is per tournament (issue 5 "Roles"): a referee at one event is nobody at another.
The roles, highest first:

- ``Role.ORGANIZER``      组委会/编排 — settings, registrations, round control, role assignment;
- ``Role.CHIEF_REFEREE``  裁判长 — everything a referee does, plus corrections of confirmed results;
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
``request.tournament_roles`` are set too. Class-based views use the mixins
(``OrganizerRequiredMixin`` …), which set ``self.tournament`` in ``dispatch``.

This module reads the database (one query per user and tournament, cached on the user object for
the request) and never writes.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from tournaments.models import Tournament

if TYPE_CHECKING:  # pragma: no cover - typing only
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

    AnyUser = AbstractBaseUser | AnonymousUser

__all__ = [
    "ChiefRefereeRequiredMixin",
    "OrganizerRequiredMixin",
    "RefereeRequiredMixin",
    "Role",
    "RoleRequiredMixin",
    "chief_referee_required",
    "get_tournament",
    "has_role",
    "is_chief_referee",
    "is_organizer",
    "is_referee",
    "organizer_required",
    "referee_required",
    "role_of",
    "role_required",
    "roles_of",
    "tournaments_of",
]


class Role(enum.StrEnum):
    """A person's role at one tournament."""

    ORGANIZER = "organizer"
    CHIEF_REFEREE = "chief_referee"
    REFEREE = "referee"
    PUBLIC = "public"


# Highest first: ``role_of`` returns the first one held.
_ORDER = (Role.ORGANIZER, Role.CHIEF_REFEREE, Role.REFEREE)
_ALL_ROLES = frozenset(_ORDER)
_CACHE_ATTR = "_tournament_roles_cache"


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


def role_of(user: AnyUser | None, tournament: Tournament) -> Role:
    """The highest role ``user`` holds at ``tournament``; ``Role.PUBLIC`` when none."""
    roles = roles_of(user, tournament)
    for role in _ORDER:
        if role in roles:
            return role
    return Role.PUBLIC


def has_role(user: AnyUser | None, tournament: Tournament, *roles: Role | str) -> bool:
    """Whether ``user`` holds at least one of ``roles`` at ``tournament``."""
    held = roles_of(user, tournament)
    return any(Role(role) in held for role in roles)


def is_organizer(user: AnyUser | None, tournament: Tournament) -> bool:
    return has_role(user, tournament, Role.ORGANIZER)


def is_chief_referee(user: AnyUser | None, tournament: Tournament) -> bool:
    return has_role(user, tournament, Role.CHIEF_REFEREE)


def is_referee(user: AnyUser | None, tournament: Tournament) -> bool:
    """Referees and chief referees."""
    return has_role(user, tournament, Role.REFEREE)


def tournaments_of(user: AnyUser | None) -> Iterable[Tournament]:
    """Tournaments where ``user`` holds any role (for "my tournaments" lists)."""
    if user is None or not user.is_authenticated:
        return Tournament.objects.none()
    if user.is_superuser:
        return Tournament.objects.all()
    ids = set(user.organized_tournaments.values_list("pk", flat=True))
    ids |= set(user.chief_refereed_tournaments.values_list("pk", flat=True))
    ids |= set(user.refereed_tournaments.values_list("pk", flat=True))
    return Tournament.objects.filter(pk__in=ids)


def get_tournament(slug: str) -> Tournament:
    """The tournament with this slug, or 404."""
    return get_object_or_404(Tournament, slug=slug)


def _check(request: HttpRequest, tournament: Tournament, roles: tuple[Role, ...]) -> None:
    """Raise ``PermissionDenied`` unless the (logged-in) user holds one of ``roles``."""
    held = roles_of(request.user, tournament)
    request.tournament = tournament  # type: ignore[attr-defined]
    request.tournament_roles = held  # type: ignore[attr-defined]
    if not any(role in held for role in roles):
        raise PermissionDenied


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


class RoleRequiredMixin:
    """Class-based-view guard: set ``required_roles``; ``self.tournament`` is set in dispatch.

    The URL must carry ``slug``; it stays in ``self.kwargs`` for the view's own use.
    """

    required_roles: tuple[Role, ...] = ()
    tournament: Tournament

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        self.tournament = get_tournament(kwargs["slug"])
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        _check(request, self.tournament, tuple(Role(r) for r in self.required_roles))
        return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]


class OrganizerRequiredMixin(RoleRequiredMixin):
    required_roles = (Role.ORGANIZER,)


class ChiefRefereeRequiredMixin(RoleRequiredMixin):
    required_roles = (Role.CHIEF_REFEREE,)


class RefereeRequiredMixin(RoleRequiredMixin):
    required_roles = (Role.REFEREE,)
