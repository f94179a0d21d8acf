"""A finished round to correct (RULES.md §7 correction deadlines): shared by the deadline tests."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from pairing import services as pairing_services
from scoring.corrections import Edit
from tests.support.pages import EIGHT
from tests.support.tournament import build_tournament, next_round, play_table
from tournaments.models import AuditEntry, Round, Table

FIX = Edit.replace(4, "NS2")  # deal 5: 对家末游 → 对家三游


def finished_round(cast: dict[str, Any], settings: dict[str, Any] | None = None) -> Round:
    """Round 1 of an 8-pair event, every table played (EIGHT) and confirmed, the round
    finished."""
    tournament = build_tournament(
        cast["organizer"], cast["chief"], [cast["referee"], cast["referee2"]], settings=settings
    )
    rnd = next_round(tournament, cast["organizer"])
    for table in rnd.tables.filter(is_bye=False):
        play_table(table, EIGHT, cast["referee"], cast["referee2"])
    return pairing_services.finish_round(rnd, cast["organizer"])


def ended(rnd: Round, minutes_ago: float) -> Table:
    """Say the round finished ``minutes_ago``; its first table."""
    at = timezone.now() - timedelta(minutes=minutes_ago)
    Round.objects.filter(pk=rnd.pk).update(finished_at=at)
    return rnd.tables.filter(is_bye=False).order_by("number").first()


def corrections(table: Table) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(table=table, action="correct").order_by("pk"))
