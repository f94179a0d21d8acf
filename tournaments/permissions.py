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
as one, nor a chief referee (the organizers do not outrank the chief referee at the tables: each
action names the roles that may do it). A superuser holds every role everywhere (the club's IT
person setting things up).

**Who may do what: one map.** ``Action`` names everything a service guards and a page offers
as a button or a form; ``ACTION_ROLES`` gives the roles of each, except the penalties, whose
roles are the tournament's setting (RULES.md §3 "Who may impose what", ``RuleSet.may_impose``:
by default warning and violation any referee, foul, 本副判负, 判负, deduction and level award
the chief referee, disqualification the organizers). ``require(user, tournament, action)`` is
what a service calls, ``may(...)`` what a page asks before it offers the button, and
``allowed(user, tournament)`` the same answers for a template (``{% if may.foul %}``). So a page
never offers what the service behind it refuses (``tests/web/test_authority_walk.py`` walks
every role × every action on both). The ``*_ROLES`` tuples are the map's fixed entries by name.

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
    "ACTION_ROLES",
    "APPEAL_ROLES",
    "AUDIT_ROLES",
    "CHECKIN_ROLES",
    "CORRECTION_ROLES",
    "DEADLINE_OVERRIDE_ROLES",
    "DESK_ROLES",
    "LINEUP_ROLES",
    "PENALTY_ACTIONS",
    "REGISTRATION_ROLES",
    "RESULT_ROLES",
    "ROUND_ROLES",
    "Action",
    "Allowed",
    "Role",
    "action_required",
    "action_roles",
    "allowed",
    "can_create_tournaments",
    "chief_referee_required",
    "forget_roles",
    "get_tournament",
    "has_role",
    "is_chief_referee",
    "is_referee",
    "may",
    "organizer_required",
    "referee_required",
    "require",
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


class Action(enum.StrEnum):
    """Something a service guards and a page offers (a button, a form, a choice in a form).

    The first eight are the penalty kinds of RULES.md §3 (``Penalty.Kind`` and the keys of
    ``RuleSet.penalty_authority``): who may impose them is the tournament's setting.
    """

    WARNING = "warning"  # 警告
    VIOLATION = "violation"  # 违例
    FOUL = "foul"  # 犯规 (the penalty record, and the ``foul:`` event ending the deal)
    DEAL_LOSS = "deal_loss"  # 本副判负 (a ``lose:`` event)
    PENALTY_LOSS = "penalty_loss"  # 判负 (the penalty record, and the table's end)
    DEDUCTION = "deduction"  # 级差分扣分
    LEVEL_AWARD = "level_award"  # 升级调整 (an ``adjust:`` event)
    DISQUALIFICATION = "disqualification"  # 取消资格 (the penalty, and the pair's status)
    ENTER_RESULT = "enter_result"  # taps, undo, lateness, ends, submit, time calls (the desk)
    CONFIRM = "confirm"  # confirm a sheet (by a second person: the two-party rule)
    CORRECT = "correct"  # change a confirmed result; the lateness start after a deal
    OVERRIDE_DEADLINE = "override_deadline"  # correct after the deadline (RULES.md §7)
    WITHDRAW_PENALTY = "withdraw_penalty"  # a penalty struck through with a reason
    APPEAL = "appeal"  # 申诉: lodge and decide
    ROUND_CONTROL = "round_control"  # generate, swap, publish, finish, start the clock, stages
    LINEUP = "lineup"  # a team's line-up from a staff account (the captain has a code)
    CHECK_IN = "check_in"  # 签到
    REGISTRATION = "registration"  # settings, units, pairs (withdraw, reinstate), staff, files
    VIEW_DESK = "view_desk"  # the referee desk's pages, read-only for an organizer
    AUDIT_LOG = "audit_log"  # 操作日志


# RULES.md §3 "Who may impose what": the roles come from ``tournament.rules.may_impose(kind)``.
PENALTY_ACTIONS = frozenset(
    (
        Action.WARNING,
        Action.VIOLATION,
        Action.FOUL,
        Action.DEAL_LOSS,
        Action.PENALTY_LOSS,
        Action.DEDUCTION,
        Action.LEVEL_AWARD,
        Action.DISQUALIFICATION,
    )
)
# Everything else: the roles that may (any one of them).
ACTION_ROLES: dict[Action, tuple[Role, ...]] = {
    Action.ENTER_RESULT: (Role.REFEREE, Role.CHIEF_REFEREE),
    Action.CONFIRM: (Role.REFEREE, Role.CHIEF_REFEREE),
    Action.CORRECT: (Role.CHIEF_REFEREE,),
    # RULES.md §7: after the correction deadline a result stands unless the chief referee
    # overrides.
    Action.OVERRIDE_DEADLINE: (Role.CHIEF_REFEREE,),
    Action.WITHDRAW_PENALTY: (Role.CHIEF_REFEREE,),
    # 申诉: lodged and decided by the chief referee or the organizers (the committee's
    # secretary).
    Action.APPEAL: (Role.ORGANIZER, Role.CHIEF_REFEREE),
    Action.ROUND_CONTROL: (Role.ORGANIZER, Role.CHIEF_REFEREE),
    Action.LINEUP: (Role.ORGANIZER, Role.CHIEF_REFEREE),
    # 签到 at the desk: whoever staffs it.
    Action.CHECK_IN: (Role.ORGANIZER, Role.CHIEF_REFEREE, Role.REFEREE),
    Action.REGISTRATION: (Role.ORGANIZER,),
    # Organizers may watch the tables; only referees enter.
    Action.VIEW_DESK: (Role.REFEREE, Role.ORGANIZER),
    Action.AUDIT_LOG: (Role.ORGANIZER, Role.CHIEF_REFEREE),
}

# The fixed entries by name, for the services' ``require_role`` and the views' decorators.
REGISTRATION_ROLES = ACTION_ROLES[Action.REGISTRATION]
ROUND_ROLES = ACTION_ROLES[Action.ROUND_CONTROL]
RESULT_ROLES = ACTION_ROLES[Action.ENTER_RESULT]
CORRECTION_ROLES = ACTION_ROLES[Action.CORRECT]
DEADLINE_OVERRIDE_ROLES = ACTION_ROLES[Action.OVERRIDE_DEADLINE]
CHECKIN_ROLES = ACTION_ROLES[Action.CHECK_IN]
APPEAL_ROLES = ACTION_ROLES[Action.APPEAL]
LINEUP_ROLES = ACTION_ROLES[Action.LINEUP]
DESK_ROLES = ACTION_ROLES[Action.VIEW_DESK]
AUDIT_ROLES = ACTION_ROLES[Action.AUDIT_LOG]
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


def action_roles(tournament: Tournament, action: Action | str) -> tuple[Role, ...]:
    """The roles that may do ``action`` at ``tournament`` (any one of them): the map's entry,
    or for a penalty the tournament's setting (``RuleSet.may_impose``, one role: a chief
    referee holds ``Role.REFEREE`` too, an organizer holds no referee role unless listed as
    one). ``ValueError`` for a name that is no action."""
    action = Action(action)
    if action in PENALTY_ACTIONS:
        return (Role(tournament.rules.may_impose(action.value)),)
    return ACTION_ROLES[action]


def may(user: AnyUser | None, tournament: Tournament, action: Action | str) -> bool:
    """Whether ``user`` may do ``action`` at ``tournament``: what a page asks before it offers
    the button (``user=None``, the system, always may)."""
    return user is None or has_role(user, tournament, *action_roles(tournament, action))


def require(user: AnyUser | None, tournament: Tournament, action: Action | str) -> None:
    """What a service calls: ``ForbiddenError`` unless ``may(user, tournament, action)``."""
    require_role(user, tournament, *action_roles(tournament, action))


class Allowed:
    """``may`` for a template: ``{% if may.foul %}`` (each answer read once per page; one roles
    query per user and tournament, remembered on the user)."""

    def __init__(self, user: AnyUser | None, tournament: Tournament) -> None:
        self.user = user
        self.tournament = tournament
        self._known: dict[Action, bool] = {}

    def __getitem__(self, name: str) -> bool:
        try:
            action = Action(name)
        except ValueError:
            raise KeyError(name) from None
        if action not in self._known:
            self._known[action] = may(self.user, self.tournament, action)
        return self._known[action]


def allowed(user: AnyUser | None, tournament: Tournament) -> Allowed:
    return Allowed(user, tournament)


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


def action_required(
    action: Action,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """``role_required`` for a fixed action of the map (a penalty's roles are the tournament's:
    its views let the desk in and the service decides)."""
    if action in PENALTY_ACTIONS:
        raise ValueError("a penalty's roles are a tournament setting: check them in the service")
    return role_required(*ACTION_ROLES[action])


organizer_required = role_required(Role.ORGANIZER)
organizer_required.__doc__ = "Only the tournament's organizers (组委会/编排)."
chief_referee_required = role_required(Role.CHIEF_REFEREE)
chief_referee_required.__doc__ = "Only the tournament's chief referees (裁判长)."
referee_required = role_required(Role.REFEREE)
referee_required.__doc__ = "The tournament's referees and chief referees (裁判/裁判长)."
