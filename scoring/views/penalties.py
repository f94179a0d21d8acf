"""Penalties (判罚, RULES.md §3): the list, a new penalty and the suggested escalations.

Thin views: permission, form, one service from ``scoring.services`` / ``scoring.penalties``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from scoring.forms import (
    EscalationForm,
    PenaltyFilterForm,
    PenaltyForm,
)
from scoring.models import Penalty
from scoring.once import new_once_key, once, recall_penalty, remember_penalty
from scoring.penalties import apply_escalation, record_penalty
from scoring.penalty_records import withdraw_penalty
from scoring.views.common import form_errors, load_round, service_message
from scoring.views.referee import round_pairs
from tournaments.bounds import parse_int
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Table, Tournament
from tournaments.permissions import (
    Action,
    action_required,
    allowed,
)
from tournaments.redirects import safe_next


def _penalty_scope(
    tournament: Tournament, round_number: Any, table_number: Any
) -> tuple[Round | None, Table | None]:
    """The round/table a penalty form was posted from (hidden fields), or 404."""
    rnd = table = None
    if round_number not in (None, ""):
        rnd = load_round(tournament, _positive(round_number))
        if table_number not in (None, ""):
            table = get_object_or_404(
                Table.objects.select_related("round__tournament"),
                round=rnd,
                number=_positive(table_number),
                is_bye=False,
            )
    return rnd, table


def _positive(value: Any) -> int:
    number = parse_int(value, minimum=1)
    if number is None:
        raise Http404
    return number


def _penalty_scope_key(
    pair: Pair, kind: str, rnd: Round | None, table: Table | None, deal: int | None
) -> str:
    """The one-time key's scope of a penalty form: the pair, the kind, where and which deal."""
    where = f"round={rnd.pk if rnd else ''}&table={table.pk if table else ''}"
    return f"pair={pair.pk}&kind={kind}&{where}&deal={deal or ''}"


def _scope_pairs(tournament: Tournament, rnd: Round | None, table: Table | None) -> Any:
    if table is not None:
        return Pair.objects.filter(pk__in=table.pair_ids).order_by("number")
    if rnd is not None:
        return round_pairs(rnd)
    return Pair.objects.filter(tournament=tournament).order_by("number")


@require_POST
@action_required(Action.VIEW_DESK)
def penalty_new(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Record a penalty from the table page or the round page (RULES.md §3). Open to the desk
    (an organizer too): who may impose which kind is the tournament's setting, which the
    service checks (by default a disqualification is the organizers')."""
    rnd, table = _penalty_scope(tournament, request.POST.get("round"), request.POST.get("table"))
    form = PenaltyForm(request.POST, pairs=_scope_pairs(tournament, rnd, table))
    fallback = reverse("penalties:penalties", args=[tournament.slug])
    target = safe_next(request, request.POST.get("next"), fallback)
    if not form.is_valid():
        form_errors(request, form)
        return redirect(target)
    data = form.cleaned_data
    try:
        # One-time key (hidden ``once``): a retried or doubled post records one penalty.
        penalty = once(
            request.POST.get("once") or None,
            "penalty",
            lambda: record_penalty(
                tournament,
                data["pair"],
                data["kind"],
                request.user,
                reason=data["reason"],
                round=rnd,
                table=table,
                deal=data["deal"],
                jcf=data["jcf"],
            ),
            remember_penalty,
            recall_penalty,
            # What the form is about: a stale form re-posted for another pair or kind is that
            # other penalty, not the first one's answer (issue 29).
            scope=_penalty_scope_key(data["pair"], data["kind"], rnd, table, data["deal"]),
        )
    except ServiceError as error:
        service_message(request, error)
    else:
        messages.success(
            request,
            _("已记录判罚：第%(pair)s对 %(kind)s")
            % {"pair": penalty.pair.number, "kind": penalty.get_kind_display()},
        )
    return redirect(target)


@require_POST
@action_required(Action.VIEW_DESK)
def penalty_escalate(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Confirm the suggested escalation (two warnings → 违例 …); at a table the score effect
    (a foul, a 判负) is applied too, compare-and-swap on the table's version."""
    form = EscalationForm(request.POST)
    fallback = reverse("penalties:penalties", args=[tournament.slug])
    if not form.is_valid():
        form_errors(request, form)
        return redirect(fallback)
    data = form.cleaned_data
    rnd, table = _penalty_scope(tournament, data["round"], data["table"])
    pair = get_object_or_404(_scope_pairs(tournament, rnd, table), number=data["pair"])
    target = safe_next(request, data["next"], fallback)
    try:
        penalty = once(
            request.POST.get("once") or None,
            "escalation",
            lambda: apply_escalation(
                pair, rnd, request.user, table=table, expected_version=data["version"]
            ),
            remember_penalty,
            recall_penalty,
            scope=_penalty_scope_key(pair, "escalation", rnd, table, None),
        )
    except ServiceError as error:
        service_message(request, error)
    else:
        messages.success(
            request,
            _("已按累计升级判罚：第%(pair)s对 %(kind)s")
            % {"pair": pair.number, "kind": penalty.get_kind_display()},
        )
    return redirect(target)


@require_POST
@action_required(Action.WITHDRAW_PENALTY)
def penalty_withdraw(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The chief referee withdraws a penalty with a reason (never deleted; struck through)."""
    fallback = reverse("penalties:penalties", args=[tournament.slug])
    target = safe_next(request, request.POST.get("next"), fallback)
    penalty = get_object_or_404(
        Penalty.objects.select_related("tournament", "pair"),
        tournament=tournament,
        pk=_positive(request.POST.get("penalty")),
    )
    try:
        withdraw_penalty(penalty, request.user, (request.POST.get("reason") or "")[:1000])
    except ServiceError as error:
        service_message(request, error)
    else:
        messages.success(
            request,
            _("已撤销判罚：第%(pair)s对 %(kind)s")
            % {"pair": penalty.pair.number, "kind": penalty.get_kind_display()},
        )
    return redirect(target)


PENALTIES_PER_PAGE = 100


@action_required(Action.VIEW_DESK)
def penalties(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every penalty of the tournament, filtered by round, kind and pair."""
    filters = PenaltyFilterForm(request.GET or None)
    qs = (
        Penalty.objects.filter(tournament=tournament)
        .select_related("round", "table", "pair")
        .order_by("-created_at", "-pk")
    )
    if filters.is_valid():
        data = filters.cleaned_data
        if data["round"]:
            qs = qs.filter(round__number=data["round"])
        if data["kind"]:
            qs = qs.filter(kind=data["kind"])
        if data["pair"]:
            qs = qs.filter(pair__number=data["pair"])
    page = Paginator(qs, PENALTIES_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "scoring/penalties.html",
        {
            "tournament": tournament,
            "nav": "referee",
            "filters": filters,
            "page": page,
            "query": query.urlencode(),
            "may": allowed(request.user, tournament),
            "once": new_once_key(),
        },
    )
