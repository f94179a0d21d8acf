"""Django admin for events, penalties and the audit log: listed, searchable, read-only.

The audit log (操作日志) is append-only: no add, change or delete permission, even for
superusers (issue 7: it cannot be edited through any page or the admin).
"""

from __future__ import annotations

from django.contrib import admin

from pairing.admin import ReadOnlyAdmin

from .models import AuditEntry, Penalty, TableEvent


@admin.register(TableEvent)
class TableEventAdmin(ReadOnlyAdmin):
    list_display = ("table", "position", "token", "entered_by", "entered_via", "created_at")
    list_filter = ("entered_via", "table__round__tournament")
    search_fields = ("token", "table__round__tournament__name", "entered_by__username")
    list_select_related = ("table__round", "entered_by")


@admin.register(Penalty)
class PenaltyAdmin(ReadOnlyAdmin):
    list_display = (
        "tournament",
        "round",
        "pair",
        "kind",
        "deal",
        "jcf",
        "referee_name",
        "created_at",
    )
    list_filter = ("kind", "tournament")
    search_fields = ("reason", "referee_name", "pair__players__name", "tournament__name")
    list_select_related = ("tournament", "round", "pair")


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "tournament", "actor", "action", "round_number", "table_number")
    list_filter = ("action", "tournament")
    search_fields = ("actor", "reason", "tournament__name")
    list_select_related = ("tournament",)
