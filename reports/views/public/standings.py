"""The standings (名次) and a pair's page: its standing, its path through the stages and
every round with the deals."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db.models import Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from reports.stages import pair_path
from reports.tables import STANDINGS_PER_PAGE, StandingsData, StandingsTable
from rules.events import Side
from scoring.cache import CompactStandings, cached_standings
from scoring.facts import score_table, table_facts
from scoring.results import team_field
from tournaments.bounds import clamp_int, parse_int
from tournaments.models import Pair, Player, Table, Team, Tournament
from tournaments.queries import pairs_with_players
from tournaments.wording import table_state, table_state_label

from .common import (
    PUBLIC_CACHE_SECONDS,
    counted_rounds,
    mark_provisional,
    public_page,
    standings_round,
)
from .tournament import FIND_LIMIT, search_pairs


def _standings_context(
    request: HttpRequest, tournament: Tournament, per_page: int = STANDINGS_PER_PAGE
) -> dict[str, Any]:
    rounds = counted_rounds(tournament)
    latest = rounds[-1].number if rounds else 0
    default = standings_round(tournament)
    after = clamp_int(request.GET.get("after"), default=default.after, minimum=0, maximum=latest)
    # A team event ranks its teams; its pair ranking is the second view (?view=pairs).
    team_event = tournament.rules.event == "teams"
    field = team_field(tournament.pk) if team_event and request.GET.get("view") != "pairs" else None
    rows = cached_standings(tournament, after_round=after, provisional=True, teams=bool(field))
    mine: set[int] = set()
    query = (request.GET.get("q") or "").strip()[:50]
    if (pair := parse_int(request.GET.get("pair"), minimum=1)) is not None and field is None:
        mine.add(pair)
    if query and field is None:
        mine.update(p.number for p in search_pairs(tournament, query, limit=FIND_LIMIT))
    elif query and field is not None:
        found = search_pairs(tournament, query, limit=FIND_LIMIT)
        mine.update(field.team_of[p.number] for p in found if p.number in field.team_of)
        number_of = field.number_of_pk
        mine.update(
            number_of[pk]
            for pk in Team.objects.filter(tournament=tournament, name__icontains=query).values_list(
                "pk", flat=True
            )[:FIND_LIMIT]
        )
    page = request.GET.get("page")
    if mine and not page:
        index = rows.first_index(mine)
        if index is not None:
            page = str(index // per_page + 1)
    rules = tournament.rules
    criteria = ("cf", *rules.tiebreaks)

    def table() -> StandingsTable:
        data = StandingsData(tournament, rows, mine, teams=field)
        return StandingsTable(data, criteria, per_page=per_page, page=page or 1)

    return {
        "tournament": tournament,
        "table_html": _standings_table_html(request, rows, table, cacheable=not mine),
        "rounds": rounds,
        "after": after,
        "latest": latest,
        "pending": default.pending if after == default.after else None,
        "query": query,
        "found": bool(mine),
        "criteria": criteria,
        "standings": rows,
        "team_event": team_event,
        "team_view": field is not None,
    }


# How long a rendered page of the standings table is kept: as long as a public page (the names
# and units in it may change without a new results version, as the page cache already allows).
STANDINGS_TABLE_SECONDS = PUBLIC_CACHE_SECONDS


def _standings_table_html(
    request: HttpRequest,
    rows: CompactStandings,
    table: Callable[[], StandingsTable],
    cacheable: bool,
) -> str:
    """One page of the standings table (``tournaments/_standings_table.html``), rendered once
    for every visitor of the same standings (issue 18).

    The page cache (``public_page``) is keyed by the tournament's results version, which every
    confirmation changes; the table is keyed by the standings it shows (``rows.key``, the
    version of their inputs), the request's path and query (the pager's links) and the
    language. So after a confirmation in round 9 the standings after round 8 — the default
    while round 9 is played — are not read again, and their names are not queried again: only
    the page around them is rendered. Not cached when the page marks the visitor's own pair
    (``cacheable`` False) or the standings are in no cache entry."""
    if not cacheable or rows.key is None:
        return render_to_string("tournaments/_standings_table.html", {"table": table()}, request)
    raw = "|".join((rows.key, get_language() or "", request.get_full_path()))
    key = "standings-table:" + hashlib.sha256(raw.encode()).hexdigest()
    html: str | None = cache.get(key)
    if html is None:
        html = render_to_string("tournaments/_standings_table.html", {"table": table()}, request)
        cache.set(key, html, STANDINGS_TABLE_SECONDS)
    return mark_safe(html)  # noqa: S308 (the template's own escaped output)


@public_page
def standings(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """名次 after any round, with the tiebreak columns and which criterion decided each row."""
    context = _standings_context(request, tournament)
    context["nav"] = "standings"
    response = render(request, "tournaments/standings.html", context)
    return mark_provisional(response, context["standings"])


def pair_history(tournament: Tournament, pair: Pair) -> list[dict[str, Any]]:
    """Every visible round of ``pair``: opponent, levels, 级差, 级差分, 场分 and the deals.

    Results are shown for confirmed tables only (what the standings count); a table still
    being played shows as such. Three queries whatever the number of rounds.
    """
    tables = list(
        Table.objects.counted()
        .filter(Q(ns=pair) | Q(ew=pair))
        .select_related("round", "ns", "ew")
        .prefetch_related(
            "events",
            Prefetch("ns__players", queryset=Player.objects.order_by("position")),
            Prefetch("ew__players", queryset=Player.objects.order_by("position")),
        )
        .order_by("round__number")
    )
    rules = tournament.rules
    history = []
    for table in tables:
        entry: dict[str, Any] = {"round": table.round, "table": table, "bye": table.is_bye}
        if table.is_bye:
            entry.update({"cf": rules.bye.cf, "jcf": rules.bye.jcf, "confirmed": True})
            history.append(entry)
            continue
        mine = Side.NS if table.ns_id == pair.pk else Side.EW
        entry["direction"] = str(mine)
        entry["opponent"] = table.ew if mine is Side.NS else table.ns
        entry["confirmed"] = table.entry_status == Table.EntryStatus.CONFIRMED
        entry["state_label"] = table_state_label(
            table_state(
                table.entry_status,
                is_bye=False,
                has_facts=bool(table.events.all()) or bool(table.end_kind),
            )
        )
        if entry["confirmed"]:
            try:
                # Each stage's tables by its rules (RULES.md §8); a knockout match of several
                # games is not one match here (its page is the bracket's).
                result = score_table(table_facts(table), rules.for_stage(table.round.stage))
            except Exception:  # a bad record must not break a public page
                entry["confirmed"] = False
                history.append(entry)
                continue
            other = mine.other
            # A forfeit or a late scoresheet (RULES.md §2) is a loss for the side responsible
            # whatever the levels say (0 CF, 0 JCF, 0 级差); the other side keeps the result of
            # the deals.
            lost_by_end = result.lost_by_end(mine)
            entry.update(
                {
                    "my_level": result.level(mine),
                    "their_level": result.level(other),
                    "jc": 0
                    if lost_by_end or result.forfeit
                    else result.level(mine) - result.level(other),
                    "jcf": result.jcf(mine),
                    "cf": result.cf(mine),
                    "won": result.winner is mine and not lost_by_end,
                    "lost": lost_by_end or result.winner is other,
                    "forfeit": result.forfeit,
                    "penalty_loss": result.penalty_loss,
                    "late_sheet": result.late_sheet,
                    "steps": [
                        {
                            "deal": step.deal_number,
                            "token": step.event.token,
                            "level_played": step.level_played,
                            "mine": step.ns_level if mine is Side.NS else step.ew_level,
                            "theirs": step.ew_level if mine is Side.NS else step.ns_level,
                        }
                        for step in result.steps
                    ],
                }
            )
        history.append(entry)
    return history


@public_page
def pair_detail(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """A pair's page: its standing and every round with the deals."""
    pair = get_object_or_404(
        pairs_with_players(Pair.objects.filter(tournament=tournament)), number=number
    )
    default = standings_round(tournament)
    rows = cached_standings(tournament, after_round=default.after, provisional=True)
    row = rows.rows_of([pair.number]).get(pair.number)
    response = render(
        request,
        "tournaments/pair.html",
        {
            "tournament": tournament,
            "nav": "standings",
            "pair": pair,
            "row": row,
            "history": pair_history(tournament, pair),
            "path": pair_path(tournament, pair.number),
            "per_page": STANDINGS_PER_PAGE,
            "standings": rows,
            "after": default.after,
            "pending": default.pending,
        },
    )
    return mark_provisional(response, rows)
