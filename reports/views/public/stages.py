"""A staged event's pages (RULES.md §8): the bracket, the group tables, the final placings."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from pairing.stages import stage_finished
from reports.stages import (
    bracket_rounds,
    group_rows,
    group_stages,
    knockout_stages,
    placings_rows,
)
from tournaments.models import Round, Tournament

from .common import public_page

PLACINGS_PER_PAGE = 100


@public_page
def bracket(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The live bracket of every knockout stage (初赛, 复赛, 决赛 …, the repechage round marked):
    every published round, the rounds to come, each match's games and who leads. One column
    per round: side by side on a projector, scrolled sideways on a phone. A later knockout
    stage is shown once it has a published round (before that its entrants are not known)."""
    numbers = knockout_stages(tournament)
    if not numbers:
        raise Http404
    started = set(
        Round.objects.counted().filter(tournament=tournament).values_list("stage", flat=True)
    )
    shown = [n for n in numbers if n in started] or numbers[:1]
    stages = []
    for number in shown:
        spec = tournament.rules.stage(number)
        stages.append(
            {
                "stage": number,
                "best_of": spec.games,
                "wins_needed": spec.wins_needed,
                "until": spec.until,
                "rounds": bracket_rounds(tournament, number, Round.COUNTED),
            }
        )
    return render(
        request,
        "reports/bracket.html",
        {
            "tournament": tournament,
            "nav": "bracket",
            "stages": stages,
            "finished": bool(placings_done(tournament)),
        },
    )


def placings_done(tournament: Tournament) -> bool:
    """Whether the event's last stage is finished (its final placings are known)."""
    return stage_finished(tournament, len(tournament.rules.stage_list))


@public_page
def groups(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The group tables of every group stage whose first round is published, qualifiers
    marked."""
    visible = set(
        Round.objects.counted().filter(tournament=tournament).values_list("stage", flat=True)
    )
    stages = [
        {
            "stage": number,
            "qualify": tournament.rules.stage(number).qualify or 1,
            "finished": stage_finished(tournament, number),
            "groups": group_rows(tournament, number),
        }
        for number in group_stages(tournament)
        if number in visible
    ]
    if not group_stages(tournament):
        raise Http404
    return render(
        request,
        "reports/groups.html",
        {"tournament": tournament, "nav": "groups", "stages": stages},
    )


@public_page
def placings(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The final placings (RULES.md §8), once the last stage is finished; paginated."""
    if not tournament.rules.stages:
        raise Http404
    paginator = Paginator(placings_rows(tournament), PLACINGS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    return render(
        request,
        "reports/placings.html",
        {"tournament": tournament, "nav": "placings", "page": page, "rows": page.object_list},
    )
