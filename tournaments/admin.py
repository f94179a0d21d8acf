"""Django admin, in Chinese (labels come from the models): a superuser's window on the data,
read-only for everything the services own (issue 11 finding 11, docs/deploy.md "The admin").

The services lock, validate, audit and bump the results version; the admin does none of that,
so a change made here used to leave standings that the engine refuses (500s) and no trace.
Therefore:

- results — rounds, tables, seats, events, penalties, the audit log — are read-only
  (``ReadOnlyAdmin`` below, ``scoring/admin.py``);
- a tournament's ``settings``, ``status`` and results version are read-only (the organizer's
  settings page validates, audits and refuses what round 1 has fixed); names, slug and the roles
  stay editable, so a superuser can still hand a tournament to its first organizer;
- pairs cannot be added, deleted or moved to another tournament here; their number, code and
  status (withdraw / disqualify: the pair page, audited) are read-only, and once a pair has sat
  at a table its players, unit and seeding are too (the organizer's pair page);
- players are read-only (edited with their pair); a unit cannot move to another tournament.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import AuditEntry, Pair, Player, Round, Seat, Table, Team, Tournament, Unit


def _seated(pair: Pair | None) -> bool:
    return pair is not None and pair.pk is not None and Seat.objects.filter(pair=pair).exists()


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    max_num = 2
    can_delete = False

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: Any, obj: Any = None) -> Any:
        if _seated(obj):
            return ("name", "position", "contact")
        return ("position",)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("name", "slug")
    # Settings and status belong to the services (the settings page: validated, audited).
    readonly_fields = ("settings", "status", "results_version", "created_at")
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

    def get_readonly_fields(self, request: Any, obj: Any = None) -> Any:
        return ("tournament", "code") if obj is not None else ()

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Pair)
class PairAdmin(admin.ModelAdmin):
    list_display = ("number", "names", "unit", "status", "seeding", "tournament")
    list_filter = ("tournament", "status")
    search_fields = ("players__name", "unit__name", "unit__code", "tournament__name", "=number")
    list_select_related = ("unit", "tournament")
    inlines = [PlayerInline]

    def get_readonly_fields(self, request: Any, obj: Any = None) -> Any:
        fields = ("tournament", "number", "code", "status")
        return (*fields, "unit", "seeding") if _seated(obj) else fields

    def has_add_permission(self, request: Any) -> bool:
        return False  # registration: the organizer's pairs page or the Excel import

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).prefetch_related("players")

    @admin.display(description=_("选手"))
    def names(self, obj: Pair) -> str:
        return obj.player_names


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only, even for superusers."""

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ("name", "pair", "position", "contact")
    list_filter = ("pair__tournament",)
    search_fields = ("name", "contact", "pair__tournament__name")
    list_select_related = ("pair",)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "unit", "status", "tournament")
    list_filter = ("status", "tournament")
    search_fields = ("code", "name", "pairs__players__name")
    filter_horizontal = ("pairs",)

    def get_readonly_fields(self, request: Any, obj: Any = None) -> Any:
        if obj is None:
            return ()
        if Round.objects.filter(tournament_id=obj.tournament_id).exists():
            return ("tournament", "pairs")  # team membership is fixed once play has begun
        return ("tournament",)


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
