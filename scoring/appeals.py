"""Appeals (申诉, RULES.md §3): lodged in writing within 30 minutes of the round's end, with a
fee refunded if the appeal succeeds; the appeals committee (仲裁委员会) decides, finally.

- ``lodge_appeal``: the record — which pair appeals, against which table or penalty, what it
  says, the fee, who took it and when. Refused once the round ended more than
  ``APPEAL_WINDOW`` ago (the rules' 30 minutes: the settings of TOURNAMENT_FILE.md have no key
  for it).
- ``decide_appeal``: upheld or rejected, the decision's text, the committee members, who
  recorded it and when; a decided appeal is final.

A decision that changes a result changes nothing by itself: the chief referee corrects the
table through ``scoring.services.correct_result`` (audited, reason naming the appeal), and the
appeal's page lists the corrections of its table made since it was lodged.

May touch: the ``scoring`` and ``tournaments`` models, ``tournaments.services.audit``.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Pair, Round, Table, Tournament
from tournaments.permissions import APPEAL_ROLES, require_role
from tournaments.services import audit

from .models import Appeal, Penalty

APPEAL_WINDOW = timedelta(minutes=30)  # RULES.md §3 (seed 003)
MAX_FEE = Decimal("100000")
MAX_TEXT = 2000


def _fee(value: Any) -> Decimal:
    try:
        fee = Decimal(str(value if value not in (None, "") else 0))
    except (InvalidOperation, ValueError):
        raise ServiceError("bad_fee") from None
    if not fee.is_finite() or fee < 0 or fee > MAX_FEE:
        raise ServiceError("bad_fee")
    return fee.quantize(Decimal("0.01"))


def lodge_appeal(
    tournament: Tournament,
    pair: Pair,
    text: str,
    user: Any,
    *,
    table: Table | None = None,
    penalty: Penalty | None = None,
    fee: Any = 0,
    now: Any = None,
) -> Appeal:
    """Record a pair's appeal against a table's result or a penalty (one of them)."""
    require_role(user, tournament, *APPEAL_ROLES)
    text = (text or "").strip()[:MAX_TEXT]
    if not text:
        raise ServiceError("appeal_text_required")
    amount = _fee(fee)
    if (table is None) == (penalty is None):
        raise ServiceError("appeal_subject")
    if penalty is not None:
        if penalty.tournament_id != tournament.pk or penalty.round_id is None:
            raise ServiceError("appeal_subject")
        rnd = penalty.round
        involved = {penalty.pair_id}
        if penalty.table_id is not None:
            involved.update(penalty.table.pair_ids)
    else:
        assert table is not None
        rnd = table.round
        if rnd.tournament_id != tournament.pk or table.is_bye:
            raise ServiceError("appeal_subject")
        involved = set(table.pair_ids)
    if pair.tournament_id != tournament.pk or pair.pk not in involved:
        raise ServiceError("appeal_pair")
    rnd = Round.objects.get(pk=rnd.pk)  # its end as stored now, not as the caller loaded it
    now = now or timezone.now()
    if rnd.finished_at is not None and now > rnd.finished_at + APPEAL_WINDOW:
        raise ServiceError(
            "appeal_too_late",
            round=rnd.number,
            finished=timezone.localtime(rnd.finished_at).strftime("%H:%M"),
            minutes=int(APPEAL_WINDOW.total_seconds() // 60),
        )
    with transaction.atomic():
        appeal = Appeal.objects.create(
            tournament=tournament,
            round=rnd,
            table=table if table is not None else penalty.table if penalty else None,
            penalty=penalty,
            pair=pair,
            text=text,
            fee=amount,
            filed_by=user if getattr(user, "is_authenticated", False) else None,
        )
        audit(
            tournament,
            AuditEntry.Action.APPEAL,
            user,
            round=rnd,
            table=appeal.table,
            after={
                "appeal": appeal.pk,
                "pair": pair.number,
                "penalty": penalty.pk if penalty else None,
                "fee": str(amount),
            },
            reason=text,
        )
    return appeal


def decide_appeal(appeal: Appeal, status: str, decision: str, committee: str, user: Any) -> Appeal:
    """The committee's final decision: ``upheld`` (the fee is refunded) or ``rejected``."""
    require_role(user, appeal.tournament, *APPEAL_ROLES)
    if status not in (Appeal.Status.UPHELD, Appeal.Status.REJECTED):
        raise ServiceError("appeal_decision_required")
    decision = (decision or "").strip()[:MAX_TEXT]
    committee = (committee or "").strip()[:200]
    if not decision or not committee:
        raise ServiceError("appeal_decision_required")
    with transaction.atomic():
        locked = Appeal.objects.select_for_update().get(pk=appeal.pk)
        if locked.status != Appeal.Status.PENDING:
            raise ServiceError("appeal_decided")
        locked.status = status
        locked.decision = decision
        locked.committee = committee
        locked.decided_by = user if getattr(user, "is_authenticated", False) else None
        locked.decided_at = timezone.now()
        locked.save(update_fields=["status", "decision", "committee", "decided_by", "decided_at"])
        audit(
            locked.tournament_id,
            AuditEntry.Action.APPEAL,
            user,
            round=locked.round,
            table=locked.table,
            before={"appeal": locked.pk, "status": Appeal.Status.PENDING},
            after={"appeal": locked.pk, "status": status, "committee": committee},
            reason=decision,
        )
    return locked


def corrections_since(appeal: Appeal) -> list[AuditEntry]:
    """The corrections of the appeal's table made since it was lodged (newest last)."""
    if appeal.table_id is None:
        return []
    return list(
        AuditEntry.objects.filter(
            table_id=appeal.table_id,
            action=AuditEntry.Action.CORRECT,
            created_at__gte=appeal.filed_at,
        ).order_by("created_at", "pk")
    )
