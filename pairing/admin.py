"""Django admin for rounds, tables and seats: listed, filtered, searchable, read-only.

Results and pairings change only through ``pairing.services`` / ``scoring.services`` (locks,
compare-and-swap, audit); the admin is for looking, not for editing.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from .models import Round, Seat, Table


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only, even for superusers."""

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("tournament", "number", "status", "seed", "published_at", "finished_at")
    list_filter = ("status", "tournament")
    search_fields = ("tournament__name", "=number")


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("round", "number", "ns", "ew", "is_bye", "entry_status", "version")
    list_filter = ("entry_status", "is_bye", "round__tournament")
    search_fields = ("round__tournament__name", "ns__players__name", "ew__players__name")
    list_select_related = ("round", "ns", "ew")
    exclude = ("entry_token",)  # a secret: not shown even to superusers


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("round", "table", "pair", "direction")
    list_filter = ("direction", "round__tournament")
    search_fields = ("pair__players__name", "round__tournament__name")
    list_select_related = ("round", "table", "pair")
