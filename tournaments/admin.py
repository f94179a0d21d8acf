"""Django admin for registration data, in Chinese (labels come from the models).

Tournaments, units, pairs, players and teams may be edited here by superusers (registration
data); results are never edited here: rounds, tables, events, penalties and the audit log are
read-only in the admin (``ReadOnlyAdmin`` below, ``scoring/admin.py``) so every result change goes
through the services, with their locks and audit entries.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import AuditEntry, Pair, Player, Round, Seat, Table, Team, Tournament, Unit


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    max_num = 2


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "slug")
    readonly_fields = ("results_version", "created_at")
    filter_horizontal = ("organizers", "chief_referees", "referees")
    prepopulated_fields = {"slug": ("name",)}

    def has_delete_permission(self, request: HttpRequest, obj: Tournament | None = None) -> bool:
        # Deleting a tournament would take its append-only audit log with it (cascade): a
        # tournament is archived with `backup` / `export_tournament`, never deleted from here.
        return False


@admin.register(Unit)
class UnitAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "tournament")
    list_filter = ("tournament",)
    search_fields = ("code", "name", "tournament__name")


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = ("number", "names", "unit", "status", "seeding", "tournament")
    list_filter = ("tournament", "status")
    search_fields = ("players__name", "unit__name", "unit__code", "tournament__name", "=number")
    list_select_related = ("unit", "tournament")
    readonly_fields = ("code",)
    inlines = [PlayerInline]

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).prefetch_related("players")

    @admin.display(description=_("选手"))
    def names(self, obj: Pair) -> str:
        return obj.player_names


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("name", "pair", "position", "contact")
    list_filter = ("pair__tournament",)
    search_fields = ("name", "contact", "pair__tournament__name")
    list_select_related = ("pair",)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "tournament")
    list_filter = ("tournament",)
    search_fields = ("code", "name", "pairs__players__name")
    filter_horizontal = ("pairs",)


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


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "tournament", "actor", "action", "round_number", "table_number")
    list_filter = ("action", "tournament")
    search_fields = ("actor", "reason", "tournament__name")
    list_select_related = ("tournament",)
