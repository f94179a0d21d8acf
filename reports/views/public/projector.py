"""The projector: the pairings of the round in play or the standings, in large type, a
screenful at a time."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone

from reports.tables import StandingsData
from scoring.cache import CompactStandings, cached_standings
from scoring.clock import clock_of
from tournaments.bounds import INT_MAX, clamp_int
from tournaments.models import Round, Table, Tournament
from tournaments.queries import names_by_pair

from .common import StandingsRound, counted_rounds, mark_provisional, public_page, standings_round

# Rows sent per load: the script shows as many as fit the screen at a time, then loads the next
# chunk (or the first again, which also refreshes the data).
PROJECTOR_CHUNK = 200
PROJECTOR_SECONDS = 12


@public_page
def projector(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Large-type pages for a projector, advanced by ``static/js/projector.js``.

    ``show=pairings`` (default while a round is being played) or ``standings``; ``offset``
    picks the chunk of rows. The script measures the screen and the rows, shows as many rows as
    fit, one screenful every ``seconds``, so every row appears once a cycle whatever the
    screen; after the last one it loads ``next_url`` (the next chunk, or the first one again).
    """
    rounds = counted_rounds(tournament)
    current = rounds[-1] if rounds else None
    default = "pairings" if current and current.status == Round.Status.PUBLISHED else "standings"
    show = request.GET.get("show", default)
    if show not in ("pairings", "standings"):
        show = default
    offset = clamp_int(request.GET.get("offset"), default=0, minimum=0, maximum=INT_MAX)
    chunk = PROJECTOR_CHUNK
    standings_rows: CompactStandings | None = None
    standings_at: StandingsRound | None = None
    total = 0
    if show == "pairings" and current is not None:
        base = Table.objects.filter(round=current)
        total = base.count()
        tables = list(base.order_by("number").select_related("ns", "ew")[offset : offset + chunk])
        names = names_by_pair({pid for t in tables for pid in (t.ns_id, t.ew_id) if pid})
        items = [
            {"table": t, "ns_names": names.get(t.ns_id, ""), "ew_names": names.get(t.ew_id, "")}
            for t in tables
        ]
    elif show == "standings":
        standings_at = standings_round(tournament)
        standings_rows = cached_standings(
            tournament, after_round=standings_at.after, provisional=True
        )
        total = len(standings_rows)
        items = list(StandingsData(tournament, standings_rows, set())[offset : offset + chunk])
    else:
        items = []
    # The round clock of the round being played (计时制 / 计时计副制: time left, "最后一副").
    now = timezone.now()
    clock = (
        clock_of(current, tournament.rules, now)
        if current is not None and current.status == Round.Status.PUBLISHED
        else None
    )
    next_offset = offset + chunk if offset + chunk < total else 0
    next_url = (
        reverse("public:projector", args=[tournament.slug]) + f"?show={show}&offset={next_offset}"
    )
    response = render(
        request,
        "tournaments/projector.html",
        {
            "tournament": tournament,
            "show": show,
            "current": current,
            "items": items,
            "next_url": next_url,
            "seconds": PROJECTOR_SECONDS,
            "offset": offset,
            "standings": standings_rows,
            "after": standings_at.after if standings_at else None,
            "pending": standings_at.pending if standings_at else None,
            "clock": clock,
            "clock_now": int(now.timestamp()),
        },
    )
    return mark_provisional(response, standings_rows)
