"""Whose a login is (issue 29 point 5): accounts belong to their event's organizers.

An organizer of another event once took over a referee account of this one: they gave the idle
account a role at their event, reset its password, took the role back, and when this event's
organizer gave it a role again, logged in to this event's desk — with nothing in this event's
audit log. So:

- ``record_creator(account, organizer, tournament)``: a login made by an organizer
  (``tournaments.staff.create_staff_accounts``) remembers who made it and for which event
  (``StaffAccount``);
- ``may_manage(organizer, account)``: whether ``organizer`` may grant that account a role or
  reset its password — the system (``None``), a superuser, the account's creator, an organizer
  of the event it was made for, or an organizer sharing an event with its creator. An account
  no organizer made (the admin's, ``manage.py organizer``) has no creator to protect: the
  other checks of the services apply;
- ``deactivate_if_idle(account)``: an account left with no role anywhere, no site permission
  and no administrator flag is deactivated (its printed login slip stops working), so no idle
  account waits to be taken; a grant by one who may manage it activates it again.

May touch: the user model and the ``tournaments`` models; no role check of its own (the
services call ``tournaments.permissions.require_role`` first).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef

from .models import StaffAccount, Tournament


def record_creator(account: Any, organizer: Any, tournament: Tournament) -> StaffAccount:
    """Remember that ``organizer`` made ``account`` for ``tournament`` (in the caller's
    transaction)."""
    creator = organizer if getattr(organizer, "is_authenticated", False) else None
    return StaffAccount.objects.create(user=account, created_by=creator, tournament=tournament)


def may_manage(organizer: Any, account: Any) -> bool:
    """Whether ``organizer`` may grant ``account`` a role or reset its password (see above)."""
    if organizer is None or getattr(organizer, "is_superuser", False):
        return True
    origin = StaffAccount.objects.filter(user_id=account.pk).first()
    if origin is None or (origin.created_by_id is None and origin.tournament_id is None):
        return True
    if origin.created_by_id == organizer.pk:
        return True
    organizes = Tournament.organizers.through.objects.filter(user_id=organizer.pk)
    if (
        origin.tournament_id is not None
        and organizes.filter(tournament_id=origin.tournament_id).exists()
    ):
        return True
    if origin.created_by_id is None:
        return False
    shared = Tournament.organizers.through.objects.filter(
        user_id=origin.created_by_id, tournament_id=OuterRef("tournament_id")
    )
    return organizes.filter(Exists(shared)).exists()


def has_site_powers(account: Any) -> bool:
    """An administrator, or an account given a site permission or group."""
    return bool(
        account.is_superuser
        or account.is_staff
        or account.user_permissions.exists()
        or account.groups.exists()
    )


def holds_a_role(account: Any) -> bool:
    """Whether ``account`` is an organizer, chief referee or referee anywhere."""
    return bool(
        account.organized_tournaments.exists()
        or account.chief_refereed_tournaments.exists()
        or account.refereed_tournaments.exists()
    )


def deactivate_if_idle(account: Any) -> bool:
    """Deactivate ``account`` when it holds no role anywhere and has no site powers; returns
    whether it is (now) idle and inactive."""
    idle = not (holds_a_role(account) or has_site_powers(account))
    if idle and account.is_active:
        account.is_active = False
        account.save(update_fields=["is_active"])
    return idle


__all__ = ["deactivate_if_idle", "has_site_powers", "holds_a_role", "may_manage", "record_creator"]
