"""A team event's pages (RULES.md §6): the teams and a team's page."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from scoring.cache import cached_standings
from scoring.matches import matches_of_team
from scoring.results import team_field
from tournaments.models import Round, Team, Tournament
from tournaments.queries import members_by_team

from .common import counted_rounds, mark_provisional, public_page, standings_round

TEAMS_PER_PAGE = 100


def _team_event(tournament: Tournament) -> None:
    if tournament.rules.event != "teams":
        raise Http404


@public_page
def teams(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """参赛队: every team with its unit and its pairs (no codes), paginated."""
    _team_event(tournament)
    listing = Team.objects.filter(tournament=tournament).select_related("unit").order_by("pk")
    page = Paginator(listing, TEAMS_PER_PAGE).get_page(request.GET.get("page"))
    members = members_by_team(Team.objects.filter(pk__in=[t.pk for t in page]))
    return render(
        request,
        "reports/teams.html",
        {
            "tournament": tournament,
            "nav": "public_teams",
            "page": page,
            "rows": [(team, members.get(team.pk, [])) for team in page],
        },
    )


@public_page
def team_detail(request: HttpRequest, tournament: Tournament, code: str) -> HttpResponse:
    """A team's page: its pairs, its standing and every match (both tables, the combined
    result once both are confirmed)."""
    _team_event(tournament)
    team = get_object_or_404(
        Team.objects.select_related("unit"), tournament=tournament, code=code[:32]
    )
    default = standings_round(tournament)
    rows = cached_standings(tournament, after_round=default.after, provisional=True, teams=True)
    field = team_field(tournament.pk)
    number = field.number_of_pk.get(team.pk)
    row = rows.rows_of([number]).get(number) if number is not None else None
    matches = matches_of_team(team, counted_rounds(tournament))
    bye_rounds = list(
        Round.objects.counted()
        .filter(tournament=tournament, bye_team=team)
        .order_by("number")
        .values_list("number", flat=True)
    )
    response = render(
        request,
        "reports/team.html",
        {
            "tournament": tournament,
            "nav": "public_teams",
            "team": team,
            "pairs": members_by_team(Team.objects.filter(pk=team.pk)).get(team.pk, []),
            "row": row,
            "matches": [
                {
                    "match": m,
                    "opponent": m.opponent_of(team),
                    "outcome": m.outcome_of(team),
                    "home": m.home is not None and m.home.pk == team.pk,
                }
                for m in matches
            ],
            "bye_rounds": bye_rounds,
            "standings": rows,
            "after": default.after,
            "pending": default.pending,
        },
    )
    return mark_provisional(response, rows)
