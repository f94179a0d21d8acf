"""The published rounds and each round's pairings."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from pairing.forms import TableFilterForm
from pairing.queries import round_progress, round_tables, table_names, table_states
from scoring.matches import team_matches
from tournaments.models import Round, Table, Tournament
from tournaments.wording import table_state_label

from .common import public_page

ROUND_TABLES_PER_PAGE = 100


@public_page
def rounds(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every published round, with its state and progress."""
    visible = list(
        Round.objects.counted()
        .filter(tournament=tournament)
        .annotate(
            table_count=Count("tables", filter=Q(tables__is_bye=False)),
            confirmed=Count(
                "tables",
                filter=Q(tables__is_bye=False, tables__entry_status=Table.EntryStatus.CONFIRMED),
            ),
        )
        .order_by("number")
    )
    return render(
        request,
        "pairing/rounds.html",
        {"tournament": tournament, "nav": "rounds", "rounds": visible},
    )


@public_page
def round_public(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The pairings of a published round: table, 南北, 东西, state; filter by name or number."""
    rnd = get_object_or_404(Round.objects.counted(), tournament=tournament, number=number)
    form = TableFilterForm(request.GET or None)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    paginator = Paginator(round_tables(rnd, query), ROUND_TABLES_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    tables = list(page.object_list)
    rows = []
    for table, state in zip(tables, table_states(tables), strict=True):
        rows.append({"table": table, "state": state, "status": table_state_label(state)})
    others = list(
        Round.objects.counted()
        .filter(tournament=tournament)
        .order_by("number")
        .values_list("number", flat=True)
    )
    matches = None
    if tournament.rules.event == "teams":  # both tables of the page's matches, combined
        numbers = {t.match for t in tables if t.match is not None}
        matches = team_matches(Table.objects.filter(round=rnd, match__in=numbers), tournament.rules)
    return render(
        request,
        "pairing/round_public.html",
        {
            "matches": matches,
            "tournament": tournament,
            "nav": "rounds",
            "round": rnd,
            "page": page,
            "rows": rows,
            "names": table_names(tables),
            "form": form,
            "query": query,
            "numbers": others,
            "progress": round_progress(rnd),
        },
    )
