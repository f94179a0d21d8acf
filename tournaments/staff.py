"""Staff services: referee and chief-referee accounts made in bulk, their table ranges, and
taking access away (issue 15 "Staff"). Players never need an account.

- ``create_staff_accounts(tournament, role, count, user, prefix=…, tables_each=…)`` makes
  ``count`` accounts with generated passwords, gives them the role here and (optionally) a range
  of tables each; it returns the ``Login`` rows, the only time a password exists in clear — the
  organizer's page keeps them in the session until the login slips are printed
  (``reports.pdf.logins``) and dismissed.
- ``assign_tables(tournament, referee, first, last, user)``: the tables "我的桌" shows.
- ``remove_staff(tournament, member, user)``: every role here and the table range taken away;
  an account that then holds nothing anywhere is deactivated, so its printed slip stops working.
- ``reset_staff_password(tournament, member, user)``: a lost password replaced by a new
  generated one (a new login slip; the old password and the account's sessions stop working),
  only for a referee or chief referee whose roles are all in tournaments this organizer runs,
  and never for an account another organizer made unless they share an event (issue 29,
  ``tournaments.accounts``: accounts belong to their event's organizers).

Refusals are ``ServiceError`` worded by ``tournaments.messages``; the role check is
``tournaments.permissions.require_role`` (organizers). May touch: the user model, the
``tournaments`` models, ``tournaments.services`` (the audit helper and the role grant).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from .accounts import deactivate_if_idle, has_site_powers, may_manage, record_creator
from .errors import ServiceError
from .models import TableAssignment, Tournament
from .permissions import REGISTRATION_ROLES, Role, forget_roles, require_role
from .services import ROLE_FIELDS, audit, lock_tournament

MAX_ACCOUNTS = 100  # in one go; a 200-pair event needs 20 referees
MAX_TABLE = 10_000
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # noqa: S105 - an alphabet; no 0/o, 1/l/i
PASSWORD_LENGTH = 10
# Django's username characters (letters, digits and @.+-_); the number is appended.
PREFIX_PATTERN = re.compile(r"^[\w.@+-]{1,40}$", re.ASCII)
STAFF_ROLES = (Role.CHIEF_REFEREE, Role.REFEREE)

# Where the organizer's page keeps the logins just created (in the server-side session) until
# the slips are printed: ``{SESSION_KEY: {str(tournament.pk): [Login.as_dict(), …]}}``.
SESSION_KEY = "staff_logins"


@dataclass(frozen=True, slots=True)
class Login:
    """One new account's login slip."""

    username: str
    password: str
    role: str
    first_table: int | None = None
    last_table: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "username": self.username,
            "password": self.password,
            "role": self.role,
            "first_table": self.first_table,
            "last_table": self.last_table,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Login:
        return cls(
            str(data["username"]),
            str(data["password"]),
            str(data["role"]),
            data.get("first_table"),
            data.get("last_table"),
        )


def new_password() -> str:
    """Ten characters from an alphabet with no look-alikes (about 49 bits)."""
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))


def default_prefix(tournament: Tournament, role: str) -> str:
    """``<slug>-r`` for referees, ``<slug>-c`` for chief referees."""
    letter = "c" if role == Role.CHIEF_REFEREE else "r"
    return f"{tournament.slug[:36]}-{letter}"


def create_staff_accounts(
    tournament: Tournament,
    role: str,
    count: int,
    user: Any,
    *,
    prefix: str = "",
    tables_each: int | None = None,
) -> list[Login]:
    """``count`` new accounts ``<prefix>01``, ``<prefix>02`` … (numbers already taken are
    skipped) with generated passwords and ``role`` here; with ``tables_each`` each referee gets
    the next ``tables_each`` tables after the last range given out. All or nothing."""
    require_role(user, tournament, *REGISTRATION_ROLES)
    if role not in STAFF_ROLES:
        raise ServiceError("bad_role", role=role)
    if not 1 <= count <= MAX_ACCOUNTS:
        raise ServiceError("account_count", max=MAX_ACCOUNTS)
    prefix = (prefix or "").strip() or default_prefix(tournament, role)
    if not PREFIX_PATTERN.match(prefix):
        raise ServiceError("bad_username_prefix", prefix=prefix[:40])
    if tables_each is not None and not 1 <= tables_each <= MAX_TABLE:
        raise ServiceError("bad_table_range")
    users = get_user_model()
    logins: list[Login] = []
    with transaction.atomic():
        locked = lock_tournament(tournament)
        taken = set(
            users.objects.filter(username__startswith=prefix).values_list("username", flat=True)
        )
        next_table = 1 + max(
            TableAssignment.objects.filter(tournament=locked).values_list("last", flat=True),
            default=0,
        )
        number = 0
        field = getattr(locked, ROLE_FIELDS[Role(role)])
        for _index in range(count):
            number += 1
            while f"{prefix}{number:02d}" in taken:
                number += 1
            username = f"{prefix}{number:02d}"
            password = new_password()
            account = users.objects.create_user(username, password=password)
            record_creator(account, user, locked)  # whose it is (issue 29)
            field.add(account)
            first = last = None
            if tables_each is not None and next_table + tables_each - 1 <= MAX_TABLE:
                first, last = next_table, next_table + tables_each - 1
                TableAssignment.objects.create(
                    tournament=locked, user=account, first=first, last=last
                )
                next_table = last + 1
            logins.append(Login(username, password, role, first, last))
        audit(
            locked,
            "create_accounts",
            user,
            after={
                "role": role,
                "accounts": [
                    {"user": login.username, "first": login.first_table, "last": login.last_table}
                    for login in logins
                ],
            },
        )
    return logins


def assign_tables(
    tournament: Tournament, member: Any, first: int | None, last: int | None, user: Any
) -> TableAssignment | None:
    """Give a referee (or chief referee) of this tournament the tables ``first``–``last``
    ("我的桌"); ``first`` None takes the range away."""
    require_role(user, tournament, *REGISTRATION_ROLES)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        is_staff = (
            locked.referees.filter(pk=member.pk).exists()
            or locked.chief_referees.filter(pk=member.pk).exists()
        )
        if not is_staff:
            raise ServiceError("not_a_referee", user=member.get_username())
        before = (
            TableAssignment.objects.filter(tournament=locked, user=member)
            .values("first", "last")
            .first()
        )
        assignment = None
        if first is None:
            TableAssignment.objects.filter(tournament=locked, user=member).delete()
        else:
            last = first if last is None else last
            if not (1 <= first <= last <= MAX_TABLE):
                raise ServiceError("bad_table_range")
            assignment, _created = TableAssignment.objects.update_or_create(
                tournament=locked, user=member, defaults={"first": first, "last": last}
            )
        audit(
            locked,
            "assign_tables",
            user,
            before={"user": member.get_username(), **(before or {})},
            after={"user": member.get_username(), "first": first, "last": last},
        )
    return assignment


def remove_staff(tournament: Tournament, member: Any, user: Any) -> bool:
    """Take every role at this tournament and the table range from ``member``; deactivate the
    account when it then holds no role anywhere, no site permission and is no administrator.
    Returns whether the account was deactivated."""
    require_role(user, tournament, *REGISTRATION_ROLES)
    if member.pk == getattr(user, "pk", None):
        raise ServiceError("cannot_remove_self")
    with transaction.atomic():
        locked = lock_tournament(tournament)
        held = [
            role.value
            for role, field in ROLE_FIELDS.items()
            if getattr(locked, field).filter(pk=member.pk).exists()
        ]
        for field in ROLE_FIELDS.values():
            getattr(locked, field).remove(member)
        TableAssignment.objects.filter(tournament=locked, user=member).delete()
        forget_roles(member)
        deactivate = deactivate_if_idle(member)
        audit(
            locked,
            "revoke_role",
            user,
            before={"user": member.get_username(), "roles": held},
            after={"user": member.get_username(), "deactivated": deactivate},
        )
    return deactivate


def reset_staff_password(tournament: Tournament, member: Any, user: Any) -> Login:
    """A new generated password for a referee or chief referee of this tournament, returned as
    a login slip (shown once, like a new account's). Refused for oneself, for an account that
    organizes any tournament or holds a site permission, and for one that is staff of a
    tournament ``user`` does not organize: an organizer can only ever take over an account that
    has no more access than his own events give. Changing the password ends the account's
    sessions (Django's session hash), so a lost phone's login stops working."""
    require_role(user, tournament, *REGISTRATION_ROLES)
    if member.pk == getattr(user, "pk", None):
        raise ServiceError("cannot_reset_own_password")
    with transaction.atomic():
        locked = lock_tournament(tournament)
        roles = [
            role
            for role in STAFF_ROLES
            if getattr(locked, ROLE_FIELDS[role]).filter(pk=member.pk).exists()
        ]
        if not roles:
            raise ServiceError("not_a_referee", user=member.get_username())
        if not may_manage(user, member):  # another organizer's account (issue 29)
            raise ServiceError("account_not_yours", user=member.get_username())
        staff_elsewhere = (
            Tournament.objects.filter(Q(referees=member) | Q(chief_referees=member))
            .exclude(organizers=user)
            .exists()
        )
        privileged = member.organized_tournaments.exists() or has_site_powers(member)
        if privileged or staff_elsewhere or not member.is_active:
            raise ServiceError("cannot_reset_password", user=member.get_username())
        password = new_password()
        member.set_password(password)
        member.save(update_fields=["password"])
        assignment = TableAssignment.objects.filter(tournament=locked, user=member).first()
        audit(locked, "reset_password", user, after={"user": member.get_username()})
    return Login(
        member.get_username(),
        password,
        roles[0].value,
        assignment.first if assignment else None,
        assignment.last if assignment else None,
    )


def assignments_by_user(tournament: Tournament) -> dict[int, TableAssignment]:
    return {a.user_id: a for a in TableAssignment.objects.filter(tournament=tournament)}


def assigned_range(tournament: Tournament, user: Any) -> tuple[int, int] | None:
    """The tables ``user`` is assigned here, or None (the referee desk's "我的桌")."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    row = (
        TableAssignment.objects.filter(tournament=tournament, user=user)
        .values_list("first", "last")
        .first()
    )
    return (row[0], row[1]) if row else None


def make_site_organizer(username: str, password: str | None = None) -> tuple[Login, bool]:
    """An account that may create tournaments (``manage.py organizer``): created when missing,
    given the site-level permission ``tournaments.add_tournament``. A new account gets
    ``password`` or a generated one (returned once); an existing one keeps its password unless
    ``password`` is given. Returns the login (password "" when kept) and whether it was new.
    The system's action (a command on the server): no role check."""
    from django.contrib.auth.models import Permission

    username = (username or "").strip()
    if not username or len(username) > 150 or not PREFIX_PATTERN.match(username[:40]):
        raise ServiceError("bad_username_prefix", prefix=username[:40])
    users = get_user_model()
    with transaction.atomic():
        account, created = users.objects.get_or_create(username=username)
        given = password or (new_password() if created else "")
        if given:
            account.set_password(given)
        account.is_active = True
        account.save()
        account.user_permissions.add(
            Permission.objects.get(content_type__app_label="tournaments", codename="add_tournament")
        )
    return Login(username, given, "organizer"), created
