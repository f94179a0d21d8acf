"""Django admin for events and penalties: listed, searchable, read-only."""

from __future__ import annotations

from django.contrib import admin

from tournaments.admin import ReadOnlyAdmin

from .models import Penalty, TableEvent


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
