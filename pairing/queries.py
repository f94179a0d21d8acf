"""Read-only queries about a round's tables, shared by the organizer's round control and the
public pairings page (both paginate ``round_tables``)."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from scoring.models import TableEvent
from tournaments.models import AuditEntry, Round, Table
from tournaments.queries import names_by_pair
from tournaments.wording import table_state


def round_tables(rnd: Round, query: str = "") -> QuerySet[Table]:
    """The round's tables by number; ``query`` matches a player's name, a table or pair number."""
    tables = Table.objects.filter(round=rnd).order_by("number")
    query = query.strip()
    if query:
        condition = Q(ns__players__name__icontains=query) | Q(ew__players__name__icontains=query)
        if query.isdigit():
            number = int(query)
            condition |= Q(number=number) | Q(ns__number=number) | Q(ew__number=number)
        ids = Table.objects.filter(round=rnd).filter(condition).values("pk")
        tables = tables.filter(pk__in=ids)
    return tables.select_related("ns__unit", "ew__unit")


def table_names(tables: list[Table]) -> dict[int, str]:
    """The players' names of every pair on the page by pair id (one query)."""
    return names_by_pair({pid for t in tables for pid in (t.ns_id, t.ew_id) if pid is not None})


def round_progress(rnd: Round) -> dict[str, int]:
    """How many of the round's tables (byes aside) there are, and how many are confirmed."""
    return Table.objects.filter(round=rnd, is_bye=False).aggregate(
        total=Count("pk"),
        confirmed=Count("pk", filter=Q(entry_status=Table.EntryStatus.CONFIRMED)),
    )


def table_states(tables: list[Table]) -> list[str]:
    """Each table's state (``tournaments.wording.table_state``: 未开始 … 已更正), in order, from
    two queries whatever the number of tables."""
    ids = [t.pk for t in tables]
    played = set(
        TableEvent.objects.filter(table_id__in=ids).values_list("table_id", flat=True).distinct()
    )
    corrected = set(
        AuditEntry.objects.filter(table_id__in=ids, action=AuditEntry.Action.CORRECT)
        .values_list("table_id", flat=True)
        .distinct()
    )
    return [
        table_state(
            t.entry_status,
            is_bye=t.is_bye,
            has_facts=t.pk in played or bool(t.end_kind),
            corrected=t.pk in corrected,
        )
        for t in tables
    ]
