"""Appeals (申诉, RULES.md §3) for the chief referee and the organizers: the list, a new
appeal, and an appeal's page with the committee's decision.

Thin views: permission, form, one service from ``scoring.appeals``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from scoring.appeals import APPEAL_WINDOW, corrections_since, decide_appeal, lodge_appeal
from scoring.forms import AppealDecisionForm, AppealForm
from scoring.models import Appeal, Penalty
from scoring.once import new_once_key, once
from tournaments.errors import ServiceError
from tournaments.models import Pair, Table, Tournament
from tournaments.permissions import Action, action_required, may

appeal_staff_required = action_required(Action.APPEAL)


@appeal_staff_required
def appeals(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every appeal, newest first; lodge a new one."""
    form = AppealForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            pair, table, penalty = _subject(tournament, data)
            # One-time key (issue 29): a repeated post lodges one appeal, and the key is about
            # this pair and subject.
            appeal = once(
                request.POST.get("once") or None,
                "appeal",
                lambda: lodge_appeal(
                    tournament,
                    pair,
                    data["text"],
                    request.user,
                    table=table,
                    penalty=penalty,
                    fee=data.get("fee") or 0,
                ),
                lambda lodged: {"appeal": lodged.pk},
                lambda first: Appeal.objects.get(pk=first["appeal"]),
                scope=f"pair={pair.pk}&table={table.pk if table else ''}"
                f"&penalty={penalty.pk if penalty else ''}",
            )
        except ServiceError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("申诉 #%(n)s 已登记") % {"n": appeal.pk})
            return redirect("appeals:appeal", tournament.slug, appeal.pk)
    listing = (
        Appeal.objects.filter(tournament=tournament)
        .select_related("round", "table", "pair", "penalty")
        .order_by("-filed_at", "-pk")
    )
    page = Paginator(listing, 100).get_page(request.GET.get("page"))
    return render(
        request,
        "scoring/appeals.html",
        {
            "tournament": tournament,
            "nav": "appeals",
            "form": form,
            "page": page,
            "window": int(APPEAL_WINDOW.total_seconds() // 60),
            "once": new_once_key(),
        },
    )


def _subject(
    tournament: Tournament, data: dict[str, Any]
) -> tuple[Pair, Table | None, Penalty | None]:
    """The appealing pair and the table or penalty named by the form (refused when unknown)."""
    pair = Pair.objects.filter(tournament=tournament, number=data["pair"]).first()
    if pair is None:
        raise ServiceError("unknown_pair", id=data["pair"])
    if data.get("penalty"):
        penalty = (
            Penalty.objects.select_related("round", "table")
            .filter(tournament=tournament, pk=data["penalty"], round__number=data["round"])
            .first()
        )
        if penalty is None:
            raise ServiceError("appeal_subject")
        return pair, None, penalty
    if data.get("table"):
        table = (
            Table.objects.select_related("round")
            .filter(round__tournament=tournament, round__number=data["round"], number=data["table"])
            .first()
        )
        if table is None:
            raise ServiceError("unknown_table", round=data["round"], table=data["table"])
        return pair, table, None
    raise ServiceError("appeal_subject")


@appeal_staff_required
def appeal(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """One appeal: what it says, the fee, the decision and who decided; the corrections of its
    table since it was lodged, and the way to make one (the chief referee's correction)."""
    record = get_object_or_404(
        Appeal.objects.select_related(
            "round", "table", "pair", "penalty", "filed_by", "decided_by"
        ),
        tournament=tournament,
        pk=pk,
    )
    form = AppealDecisionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            decide_appeal(record, data["status"], data["decision"], data["committee"], request.user)
        except ServiceError as error:
            form.add_error(None, error.message)
        else:
            messages.success(request, _("申诉 #%(n)s 已裁决") % {"n": record.pk})
            return redirect("appeals:appeal", tournament.slug, record.pk)
    return render(
        request,
        "scoring/appeal.html",
        {
            "tournament": tournament,
            "nav": "appeals",
            "appeal": record,
            "form": form,
            "corrections": corrections_since(record),
            "may_correct": may(request.user, tournament, Action.CORRECT),
        },
    )
