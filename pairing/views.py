"""Round pages: the public pairings of any published round, and round control for organizers
and chief referees (generate the draft, review it with the engine's reasons, swap two pairs by
hand, publish, finish, or throw the draft away).

Thin views (STYLE.md): permission, form, one service from ``pairing.services``, message,
redirect. Lists are paginated, so every page costs a bounded number of queries whatever the
size of the round. Draft rounds are never shown on public pages.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from pairing.forms import SwapForm, TableFilterForm
from pairing.services import delete_draft, finish_round, generate_round, publish_round, swap_pairs
from tournaments.models import Pair, Round, Table, Tournament
from tournaments.permissions import Role, role_required
from tournaments.services import ServiceError
from tournaments.tables import cached_standings, names_by_pair
from tournaments.views import VISIBLE_ROUNDS, public_page

TABLES_PER_PAGE = 100
round_staff_required = role_required(Role.ORGANIZER, Role.CHIEF_REFEREE)


def _message(error: Exception) -> str:
    return str(getattr(error, "message", None) or error)


def _tables(rnd: Round, query: str = "") -> Any:
    tables = Table.objects.filter(round=rnd).order_by("number")
    query = query.strip()
    if query:
        condition = Q(ns__players__name__icontains=query) | Q(ew__players__name__icontains=query)
        if query.isdigit():
            number = int(query)
            condition |= Q(number=number) | Q(ns__number=number) | Q(ew__number=number)
        ids = Table.objects.filter(round=rnd).filter(condition).values("pk")
        tables = tables.filter(pk__in=ids)
    return tables.select_related("ns__unit", "ew__unit")


def _names(tables: list[Table]) -> dict[int, str]:
    """The players' names of every pair on the page by pair id (one query)."""
    return names_by_pair({pid for t in tables for pid in (t.ns_id, t.ew_id) if pid is not None})


def _progress(rnd: Round) -> dict[str, int]:
    return Table.objects.filter(round=rnd, is_bye=False).aggregate(
        total=Count("pk"),
        confirmed=Count("pk", filter=Q(entry_status=Table.EntryStatus.CONFIRMED)),
    )


# --------------------------------------------------------------------------------------------
# Public


@public_page
def rounds(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every published round, with its state and progress."""
    visible = list(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS)
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
    rnd = get_object_or_404(Round, tournament=tournament, number=number, status__in=VISIBLE_ROUNDS)
    form = TableFilterForm(request.GET or None)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    paginator = Paginator(_tables(rnd, query), TABLES_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    tables = list(page.object_list)
    # Labels looked up once: get_entry_status_display() rebuilds the choices dict on each call.
    labels = {value: str(label) for value, label in Table.EntryStatus.choices}
    rows = [{"table": t, "status": labels.get(t.entry_status, t.entry_status)} for t in tables]
    others = list(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS)
        .order_by("number")
        .values_list("number", flat=True)
    )
    return render(
        request,
        "pairing/round_public.html",
        {
            "tournament": tournament,
            "nav": "rounds",
            "round": rnd,
            "page": page,
            "rows": rows,
            "names": _names(tables),
            "form": form,
            "query": query,
            "numbers": others,
            "progress": _progress(rnd),
        },
    )


# --------------------------------------------------------------------------------------------
# Round control (organizers and chief referees)


@round_staff_required
def control(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """All rounds (drafts included) and the button that generates the next one."""
    all_rounds = list(
        Round.objects.filter(tournament=tournament)
        .annotate(
            table_count=Count("tables", filter=Q(tables__is_bye=False)),
            confirmed=Count(
                "tables",
                filter=Q(tables__is_bye=False, tables__entry_status=Table.EntryStatus.CONFIRMED),
            ),
        )
        .order_by("number")
    )
    last = all_rounds[-1] if all_rounds else None
    can_generate = last is None or last.status == Round.Status.FINISHED
    active = Pair.objects.filter(tournament=tournament, status=Pair.Status.ACTIVE).count()
    return render(
        request,
        "pairing/control.html",
        {
            "tournament": tournament,
            "nav": "round_control",
            "rounds": all_rounds,
            "last": last,
            "can_generate": can_generate,
            "active_pairs": active,
            "planned": tournament.rules.rounds,
        },
    )


@round_staff_required
@require_POST
def generate(request: HttpRequest, tournament: Tournament) -> HttpResponse:

    try:
        rnd = generate_round(tournament, request.user)
    except ServiceError as error:
        messages.error(request, _message(error))
        return redirect("pairing:control", tournament.slug)
    messages.success(request, _("第%(n)s轮编排草稿已生成，请检查后公布") % {"n": rnd.number})
    return redirect("pairing:round_control", tournament.slug, rnd.number)


def _rematches(rnd: Round, tables: list[Table]) -> set[int]:
    """Table ids on this page whose two pairs met in an earlier round (one query)."""
    ids = {pid for t in tables if not t.is_bye for pid in (t.ns_id, t.ew_id)}
    if not ids:
        return set()
    met = set()
    earlier = Table.objects.filter(
        round__tournament_id=rnd.tournament_id,
        round__number__lt=rnd.number,
        is_bye=False,
        ns_id__in=ids,
        ew_id__in=ids,
    ).values_list("ns_id", "ew_id")
    for a, b in earlier:
        met.add(frozenset((a, b)))
    return {t.pk for t in tables if not t.is_bye and frozenset((t.ns_id, t.ew_id)) in met}


@round_staff_required
def round_control(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """A round for review: each table with both pairs' match points and the engine's reasons;
    rematches and same-unit tables flagged; swap, publish, finish, delete."""
    rnd = get_object_or_404(Round, tournament=tournament, number=number)
    form = TableFilterForm(request.GET or None)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    paginator = Paginator(_tables(rnd, query), TABLES_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    tables = list(page.object_list)
    # Only the rows of the pairs on this page (the standings may have 10,000).
    numbers = {p.number for t in tables for p in (t.ns, t.ew) if p is not None}
    before = cached_standings(tournament, after_round=number - 1).rows_of(numbers)
    rematch = _rematches(rnd, tables)
    rows = []
    for table in tables:
        ns_row = before.get(table.ns.number)
        ew_row = before.get(table.ew.number) if table.ew_id else None
        same_unit = bool(table.ew_id and table.ns.unit_id and table.ns.unit_id == table.ew.unit_id)
        rows.append(
            {
                "table": table,
                "ns_cf": ns_row.cf if ns_row else 0,
                "ew_cf": ew_row.cf if ew_row else None,
                "ns_rank": ns_row.rank if ns_row else None,
                "ew_rank": ew_row.rank if ew_row else None,
                "rematch": table.pk in rematch,
                "same_unit": same_unit,
            }
        )
    return render(
        request,
        "pairing/round_control.html",
        {
            "tournament": tournament,
            "nav": "round_control",
            "round": rnd,
            "rows": rows,
            "names": _names(tables),
            "page": page,
            "form": form,
            "query": query,
            "swap_form": SwapForm(tournament=tournament),
            "progress": _progress(rnd),
            "draw_info": rnd.draw_info or {},
        },
    )


def _round_or_404(tournament: Tournament, number: int) -> Round:
    return get_object_or_404(Round, tournament=tournament, number=number)


@round_staff_required
@require_POST
def swap(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Swap two pairs of a draft by hand (audited); warn about rematches and same-unit tables."""

    rnd = _round_or_404(tournament, number)
    form = SwapForm(request.POST, tournament=tournament)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect("pairing:round_control", tournament.slug, number)
    data = form.cleaned_data
    try:
        warnings = swap_pairs(rnd, data["pair_a_obj"], data["pair_b_obj"], request.user)
    except ServiceError as error:
        messages.error(request, _message(error))
    else:
        messages.success(
            request,
            _("已交换第%(a)s对与第%(b)s对的座位") % {"a": data["pair_a"], "b": data["pair_b"]},
        )
        for warning in warnings:
            messages.warning(request, _("注意：") + _message(warning))
    return redirect("pairing:round_control", tournament.slug, number)


def _round_action(
    request: HttpRequest,
    tournament: Tournament,
    number: int,
    service: Any,
    success: str,
    done: str = "pairing:round_control",
) -> HttpResponse:
    """Call one round service; its refusal is a message and the user stays on the round."""
    rnd = _round_or_404(tournament, number)
    try:
        service(rnd, request.user)
    except ServiceError as error:
        messages.error(request, _message(error))
        return redirect("pairing:round_control", tournament.slug, number)
    messages.success(request, success)
    if done == "pairing:round_control":
        return redirect(done, tournament.slug, number)
    return redirect(done, tournament.slug)


@round_staff_required
@require_POST
def publish(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    message = _("第%(n)s轮对阵已公布") % {"n": number}
    return _round_action(request, tournament, number, publish_round, message)


@round_staff_required
@require_POST
def finish(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    message = _("第%(n)s轮已结束") % {"n": number}
    return _round_action(request, tournament, number, finish_round, message)


@round_staff_required
@require_POST
def delete(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    message = _("第%(n)s轮草稿已删除") % {"n": number}
    return _round_action(request, tournament, number, delete_draft, message, "pairing:control")
