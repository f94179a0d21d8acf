"""Who may impose which penalty (RULES.md §3 "Who may impose what"), checked in the services
for every path through the one map (``tournaments.permissions``: a penalty kind is an ``Action``
whose roles are the tournament's setting, ``RuleSet.may_impose``); and withdrawing a penalty
record — never deleting it — with a reason, audited."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from rules.errors import RuleError
from rules.events import Event, EventKind, Side, parse_event
from tournaments.errors import ForbiddenError, ServiceError
from tournaments.models import AuditEntry, Pair, Table, Tournament
from tournaments.permissions import PENALTY_ACTIONS, Action, Allowed, require
from tournaments.services import account, audit, bump_results_version

from .models import Penalty, Via

# A table event that is a penalty's score effect → the penalty kind it needs authority for.
EVENT_PENALTY_KIND = {
    EventKind.FOUL: Action.FOUL,
    EventKind.LOSE: Action.DEAL_LOSS,
    EventKind.ADJUST: Action.LEVEL_AWARD,
}


def event_action(token: str) -> Action | None:
    """The penalty kind whose authority entering or removing the event ``token`` needs
    (``foul:NS`` → ``Action.FOUL``), None for a deal (or a token that is no event)."""
    try:
        kind = parse_event(token).kind
    except RuleError:
        return None
    return EVENT_PENALTY_KIND.get(kind)


def require_authority(user: Any, tournament: Tournament, kind: str) -> None:
    """RULES.md §3 "Who may impose what": the tournament's ``RuleSet.may_impose(kind)`` names
    the role (by default warning/violation — any referee; foul, 本副判负, 判负, deductions,
    level awards — the chief referee; disqualification — the organizers), read through the
    one map (``tournaments.permissions.require``). ``user=None`` is the system (an import, a
    command) and passes, as in ``require_role``."""
    try:
        action = Action(str(kind))
    except ValueError:
        action = None
    if action not in PENALTY_ACTIONS:
        raise ServiceError("bad_penalty", detail="kind")
    require(user, tournament, action)


def record_kinds(may: Allowed) -> list[str]:
    """The kinds of penalty record ``may``'s user may impose (the penalty form's choices)."""
    return [kind for kind in Penalty.Kind.values if may[kind]]


def penalty_events_label(may: Allowed) -> str:
    """The heading of the table page's 犯规 / 本副判负 / 升级调整 forms: those ``may``'s user
    may use ("" when none)."""
    shown = tuple(may[a] for a in (Action.FOUL, Action.DEAL_LOSS, Action.LEVEL_AWARD))
    if shown == (True, True, True):
        return _("犯规 / 本副判负 / 升级调整")
    if shown == (True, False, True):
        return _("犯规 / 升级调整")
    labels = (_("犯规"), _("本副判负"), _("升级调整"))
    return " / ".join(label for label, show in zip(labels, shown, strict=True) if show)


def check_event_authority(locked: Table, event: Event, user: Any, via: str) -> None:
    """A foul, a 本副判负 or a level award is a penalty's score effect: never at the table link,
    and at the desk only by whoever may impose that penalty."""
    kind = EVENT_PENALTY_KIND.get(event.kind)
    if kind is None:
        return
    if via == Via.TABLE:
        raise ForbiddenError
    require_authority(user, locked.round.tournament, kind)


def withdraw_foul_penalty(locked: Table, event: Event, user: Any) -> None:
    """Undoing ``foul:<side>`` withdraws the latest live 犯规 record of that pair at this table."""
    offender_id = locked.ns_id if event.side == Side.NS else locked.ew_id
    penalty = (
        Penalty.objects.filter(
            table=locked, pair_id=offender_id, kind=Penalty.Kind.FOUL, withdrawn_at=None
        )
        .order_by("-created_at", "-pk")
        .first()
    )
    if penalty is not None:
        Pair.objects.select_for_update().get(pk=offender_id)
        _withdraw(penalty, user, "撤销犯规记录")


def _withdraw(penalty: Penalty, user: Any, reason: str) -> None:
    penalty.withdrawn_at = timezone.now()
    penalty.withdrawn_by = account(user)
    penalty.withdraw_reason = reason
    penalty.save(update_fields=["withdrawn_at", "withdrawn_by", "withdraw_reason"])
    described = {
        "pair": penalty.pair.number,
        "kind": penalty.kind,
        "deal": penalty.deal,
        "jcf": str(penalty.jcf) if penalty.jcf is not None else None,
    }
    audit(
        penalty.tournament_id,
        AuditEntry.Action.PENALTY,
        user,
        round=penalty.round,
        table=penalty.table,
        before={**described, "withdrawn": False},
        after={**described, "withdrawn": True},
        reason=reason,
    )
    if penalty.kind == Penalty.Kind.DEDUCTION:
        bump_results_version(penalty.tournament_id)


def withdraw_penalty(penalty: Penalty, user: Any, reason: str) -> Penalty:
    """The chief referee withdraws a penalty record (never deleted): reason required, audited,
    shown struck through; escalations and deductions count live records only. A withdrawn
    foul's event or 判负's end stays on the table (change those on the table page)."""
    if not (reason or "").strip():
        raise ServiceError("reason_required")
    require(user, penalty.tournament, Action.WITHDRAW_PENALTY)
    with transaction.atomic():
        Pair.objects.select_for_update().get(pk=penalty.pair_id)
        locked = Penalty.objects.select_related("pair", "round", "table").get(pk=penalty.pk)
        if locked.withdrawn_at is not None:
            raise ServiceError("penalty_withdrawn")
        _withdraw(locked, user, reason.strip())
    return locked
