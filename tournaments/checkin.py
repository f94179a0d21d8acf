"""签到 (check-in) services: the desk marks pairs present before a round's draw — by tapping the
list or by scanning the pair's QR slip with a phone — and withdraws, in one step, the pairs
that did not come.

A check-in counts for one round: ``checkin_round(tournament)``, the round after the last one
published (round 1 before the event). The slip's QR code encodes the check-in address
``/t/<slug>/checkin/<check-in token>/`` (``checkin_path``; docs/event-desk.md), which only staff
can use: a player scanning their own slip meets the login page. The token is the pair's
``checkin_token``, never its code (issue 29): the desk's list, its QR images and the access
logs of the phones that scan slips hold no secret a pair proves itself with.

May touch: the ``tournaments`` models and the helpers of ``tournaments.services``.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max

from .errors import ServiceError
from .models import CheckIn, Pair, Round, Tournament
from .permissions import CHECKIN_ROLES, REGISTRATION_ROLES, require_role
from .services import audit, lock_tournament


def checkin_path(tournament: Tournament | str, token: str) -> str:
    """The path a pair's check-in QR code opens (the host is ``PUBLIC_BASE_URL``'s); ``token``
    is the pair's ``checkin_token``."""
    slug = tournament if isinstance(tournament, str) else tournament.slug
    return f"/t/{slug}/checkin/{token}/"


def checkin_round(tournament: Tournament) -> int:
    """The round a check-in made now is for: the one after the last published round."""
    latest = Round.objects.counted().filter(tournament=tournament).aggregate(m=Max("number"))["m"]
    return (latest or 0) + 1


def checked_in(tournament: Tournament, round_number: int) -> dict[int, CheckIn]:
    """pair id → its check-in for ``round_number``."""
    rows = CheckIn.objects.filter(pair__tournament=tournament, round_number=round_number)
    return {row.pair_id: row for row in rows.select_related("user")}


def check_in(pair: Pair, user: Any, via: str = CheckIn.Via.LIST) -> tuple[CheckIn, bool]:
    """Mark ``pair`` present for the coming round; ``(check-in, created)`` — scanning a slip
    twice is no error, the second scan reports the first check-in."""
    tournament = pair.tournament
    require_role(user, tournament, *CHECKIN_ROLES)
    if via not in CheckIn.Via.values:
        raise ServiceError("bad_checkin")
    with transaction.atomic():
        locked = Pair.objects.select_for_update().get(pk=pair.pk)
        if locked.status != Pair.Status.ACTIVE:
            raise ServiceError("pair_not_active", pair=locked.number)
        number = checkin_round(tournament)
        existing = CheckIn.objects.filter(pair=locked, round_number=number).first()
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                row = CheckIn.objects.create(
                    pair=locked,
                    round_number=number,
                    via=via,
                    user=user if getattr(user, "is_authenticated", False) else None,
                )
        except IntegrityError:  # a second desk checked the pair in meanwhile
            return CheckIn.objects.get(pair=locked, round_number=number), False
        audit(
            tournament,
            "check_in",
            user,
            after={"pair": locked.number, "round": number, "via": via},
        )
    return row, True


def undo_check_in(pair: Pair, user: Any) -> None:
    """Take a check-in back (tapped by mistake)."""
    tournament = pair.tournament
    require_role(user, tournament, *CHECKIN_ROLES)
    with transaction.atomic():
        number = checkin_round(tournament)
        deleted, _rows = CheckIn.objects.filter(pair=pair, round_number=number).delete()
        if not deleted:
            raise ServiceError("not_checked_in", pair=pair.number)
        audit(tournament, "check_in", user, before={"pair": pair.number, "round": number})


def withdraw_absent(tournament: Tournament, user: Any, reason: str = "") -> list[int]:
    """Withdraw (退赛) every active pair not checked in for the coming round, in one step,
    before its draw. Refused once the round's draft exists (delete it first) and when nobody
    has checked in at all (that is a forgotten check-in, not an empty hall). Returns the
    numbers of the pairs withdrawn."""
    require_role(user, tournament, *REGISTRATION_ROLES)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        number = checkin_round(locked)
        if Round.objects.filter(tournament=locked, number=number).exists():
            raise ServiceError("draw_exists", round=number)
        present = set(
            CheckIn.objects.filter(pair__tournament=locked, round_number=number).values_list(
                "pair_id", flat=True
            )
        )
        if not present:
            raise ServiceError("nobody_checked_in", round=number)
        absent = list(
            Pair.objects.select_for_update()
            .filter(tournament=locked, status=Pair.Status.ACTIVE)
            .exclude(pk__in=present)
            .order_by("number")
        )
        for pair in absent:
            Pair.objects.filter(pk=pair.pk).update(status=Pair.Status.WITHDRAWN)
            audit(
                locked,
                "pair_status",
                user,
                before={"pair": pair.number, "status": pair.status},
                after={"pair": pair.number, "status": Pair.Status.WITHDRAWN},
                reason=reason or "",
            )
    return [pair.number for pair in absent]
