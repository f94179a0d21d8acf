"""Django admin, in Chinese (labels come from the models): a superuser's window on the data,
read-only for every model — each is owned by a service (issue 11 finding 11, issue 29 point 6,
docs/deploy.md "The admin").

The services lock, validate, audit and bump the results version; the admin does none of that.
A change made here used to leave standings that the engine refuses (500s) and no trace, and a
team added here to a started team event with another event's pairs made every line-up page
answer 500 (``round_lineups``). So nothing is added, changed or deleted here
(``ReadOnlyAdmin``, ``scoring/admin.py`` too): settings, registrations, teams, roles and results
are changed through the organizer's and referees' pages, where a superuser holds every role.
The lists stay, searchable, with the table links left out (a secret).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .models import AuditEntry, Pair, Player, Round, Seat, Table, Team, Tournament, Unit


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    max_num = 2
    can_delete = False

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only, even for superusers: every model here is a service's (see above)."""

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        # A tournament deleted here would take its append-only audit log with it (cascade): it
        # is archived with `backup` / `export_tournament`.
        return False


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ("name", "slug", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "slug")


@admin.register(Unit)
class UnitAdmin(ReadOnlyAdmin):
    list_display = ("code", "name", "tournament")
    list_filter = ("tournament",)
    search_fields = ("code", "name", "tournament__name")


@admin.register(Pair)
class PairAdmin(ReadOnlyAdmin):
    list_display = ("number", "names", "unit", "status", "seeding", "tournament")
    list_filter = ("tournament", "status")
    search_fields = ("players__name", "unit__name", "unit__code", "tournament__name", "=number")
    list_select_related = ("unit", "tournament")
    inlines = [PlayerInline]
    # The pair's secret code and its check-in token stay out of the page.
    exclude = ("code", "checkin_token")

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).prefetch_related("players")

    @admin.display(description=_("选手"))
    def names(self, obj: Pair) -> str:
        return obj.player_names


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ("name", "pair", "position", "contact")
    list_filter = ("pair__tournament",)
    search_fields = ("name", "contact", "pair__tournament__name")
    list_select_related = ("pair",)


@admin.register(Team)
class TeamAdmin(ReadOnlyAdmin):
    list_display = ("code", "name", "unit", "status", "tournament")
    list_filter = ("status", "tournament")
    search_fields = ("code", "name", "pairs__players__name")
    exclude = ("captain_code",)  # the captain's secret


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
