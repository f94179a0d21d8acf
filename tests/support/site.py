"""What a bad input must not change (``snapshot``), and the widest surface to throw input at
(``build_site``: a tournament with round 1 published, one table half entered, and a user who
holds every role in it)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache

from scoring import services as scoring_services
from scoring.models import Penalty, TableEvent
from tests.support.tournament import build_tournament, next_round
from tournaments import services as tournament_services
from tournaments.models import AuditEntry, Pair, Player, Round, Seat, Table, Tournament, Unit
from tournaments.permissions import Role


def snapshot() -> dict[str, Any]:
    """Everything a bad input must not change."""
    return {
        "tournaments": list(Tournament.objects.order_by("pk").values("pk", "status", "settings")),
        "units": Unit.objects.count(),
        "pairs": list(Pair.objects.order_by("pk").values_list("pk", "status", "unit_id")),
        "players": list(Player.objects.order_by("pk").values_list("pk", "name")),
        "rounds": list(Round.objects.order_by("pk").values_list("pk", "status")),
        "tables": list(
            Table.objects.order_by("pk").values_list(
                "pk", "version", "entry_status", "start_ns", "start_ew", "end_kind", "ns", "ew"
            )
        ),
        "seats": Seat.objects.count(),
        "events": list(TableEvent.objects.order_by("pk").values_list("pk", "token")),
        "penalties": Penalty.objects.count(),
        "audit": AuditEntry.objects.count(),
    }


def build_site() -> dict[str, Any]:
    """A tournament with round 1 published and one table half entered, and a user holding
    every role in it (the widest surface); a second tournament it has no role in."""
    cache.clear()
    users = get_user_model()
    organizer = users.objects.create_user("fuzz-organizer", password="pw-fuzz")
    referee = users.objects.create_user("fuzz-referee", password="pw-fuzz")
    boss = users.objects.create_user("fuzz-boss", password="pw-fuzz")
    tournament = build_tournament(organizer, organizer, [referee], slug="fuzz-open")
    for role in (Role.ORGANIZER, Role.CHIEF_REFEREE, Role.REFEREE):
        tournament_services.grant_role(tournament, boss, role, organizer)
    rnd = next_round(tournament, organizer)
    table = Table.objects.filter(round=rnd, is_bye=False).order_by("number").first()
    scoring_services.enter_event(table, "NS3", referee, table.version)
    return {"tournament": tournament, "round": rnd, "table": table, "boss": boss}
