"""A tournament's home page and "find my seat" (找座位), with the search for pairs the
standings page shares."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from tournaments.bounds import parse_int
from tournaments.forms import FindForm
from tournaments.models import Pair, Player, Round, Table, Tournament
from tournaments.queries import pairs_with_players
from tournaments.search import is_pinyin_query, name_matches, pairs_by_pinyin, spellings
from tournaments.wording import seat_label

from .common import counted_rounds, public_page

FIND_LIMIT = 20


@public_page
def detail(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Tournament home: state, rounds, progress of the current round, links."""
    rounds = counted_rounds(tournament)
    current = rounds[-1] if rounds else None
    progress = None
    if current is not None:
        counts = Table.objects.filter(round=current, is_bye=False).aggregate(
            total=Count("pk"),
            confirmed=Count("pk", filter=Q(entry_status=Table.EntryStatus.CONFIRMED)),
        )
        progress = counts
    pair_counts = Pair.objects.filter(tournament=tournament).aggregate(
        total=Count("pk"), active=Count("pk", filter=Q(status=Pair.Status.ACTIVE))
    )
    rules = tournament.rules
    return render(
        request,
        "tournaments/detail.html",
        {
            "tournament": tournament,
            "nav": "home",
            "rounds": rounds,
            "current": current,
            "progress": progress,
            "pair_counts": pair_counts,
            "rules": rules,
            "find_form": FindForm(),
        },
    )


def _seat_rows(
    tournament: Tournament, rnd: Round, pairs: list[Pair], query: str = ""
) -> list[dict[str, Any]]:
    """Where each pair sits in ``rnd``: table, direction, each player's seat, opponents (two
    queries)."""
    numbers = [p.pk for p in pairs]
    tables = (
        Table.objects.filter(round=rnd)
        .filter(Q(ns_id__in=numbers) | Q(ew_id__in=numbers))
        .select_related("ns__unit", "ew__unit")
        .prefetch_related(
            Prefetch("ns__players", queryset=Player.objects.order_by("position")),
            Prefetch("ew__players", queryset=Player.objects.order_by("position")),
        )
    )
    seat: dict[int, tuple[Table, str]] = {}
    for table in tables:
        if table.is_bye:
            seat[table.ns_id] = (table, "BYE")
        else:
            seat[table.ns_id] = (table, "NS")
            seat[table.ew_id] = (table, "EW")
    rows = []
    for pair in pairs:
        found = seat.get(pair.pk)
        row: dict[str, Any] = {"pair": pair, "table": None, "direction": None, "opponent": None}
        if found is not None:
            table, direction = found
            row["table"] = table
            row["direction"] = direction
            if direction == "NS":
                row["opponent"] = table.ew
            elif direction == "EW":
                row["opponent"] = table.ns
            if direction in ("NS", "EW"):
                # Each player's own seat (北/南, 东/西), the one searched for marked.
                row["seats"] = [
                    {
                        "seat": seat_label(direction, player.position),
                        "name": player.name,
                        "found": name_matches(player.name, query),
                    }
                    for player in pair.players.all()
                ]
                found = [s["seat"] for s in row["seats"] if s["found"]]
                row["my_seat"] = found[0] if len(found) == 1 else ""
        rows.append(row)
    return rows


def search_pairs(tournament: Tournament, query: str, limit: int = FIND_LIMIT) -> list[Pair]:
    """Pairs whose number is ``query`` or a player's name contains it, in simplified or
    traditional characters, or whose pinyin (full or initials) matches it
    (``tournaments.search``; bounded)."""
    query = query.strip()
    condition = Q()
    for spelling in spellings(query):
        condition |= Q(players__name__icontains=spelling)
    if (number := parse_int(query, minimum=1)) is not None:
        condition |= Q(number=number)
    if is_pinyin_query(query):
        condition |= Q(pk__in=pairs_by_pinyin(tournament, query, limit))
    ids = list(
        Pair.objects.filter(tournament=tournament)
        .filter(condition)
        .order_by("number")
        .values_list("pk", flat=True)
        .distinct()[:limit]
    )
    return list(pairs_with_players(Pair.objects.filter(pk__in=ids)).order_by("number"))


@public_page
def find(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """找座位: part of a name (or the pair number) → round, table, direction, opponents."""
    form = FindForm(request.GET or None)
    rounds = counted_rounds(tournament)
    current = rounds[-1] if rounds else None
    results: list[dict[str, Any]] = []
    searched = False
    if form.is_valid():
        searched = True
        pairs = search_pairs(tournament, form.cleaned_data["q"])
        if current is not None:
            results = _seat_rows(tournament, current, pairs, form.cleaned_data["q"])
        else:
            results = [
                {"pair": p, "table": None, "direction": None, "opponent": None} for p in pairs
            ]
    return render(
        request,
        "tournaments/find.html",
        {
            "tournament": tournament,
            "nav": "find",
            "form": form,
            "current": current,
            "results": results,
            "searched": searched,
            "limit": FIND_LIMIT,
        },
    )
