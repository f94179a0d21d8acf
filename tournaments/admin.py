"""Django admin for registration data, in Chinese (labels come from the models).

Tournaments, units, pairs, players and teams may be edited here by superusers (registration
data); results are never edited here: rounds, tables, events, penalties and the audit log are
read-only in the admin (``pairing/admin.py``, ``scoring/admin.py``) so every result change goes
through the services, with their locks and audit entries.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import Pair, Player, Team, Tournament, Unit


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
