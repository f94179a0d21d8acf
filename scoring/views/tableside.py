"""Table-side entry (RULES.md §7): the secret link on the score sheet, no login. South enters,
West confirms with the East–West pair's code.

Thin views: the link is the key; every write is one service call.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from scoring.forms import (
    DealForm,
    PairCodeForm,
    VersionForm,
)
from scoring.models import TableEvent, Via
from scoring.services import (
    TableAt,
    confirm_table_by_pair_code,
    enter_event,
    mark_entered,
    undo_last_event,
)
from scoring.sheet import tap_grid
from scoring.views.common import _form_errors, _service_message, _sheet_of, _tables_qs
from tournaments import throttle
from tournaments.errors import ServiceError
from tournaments.models import Round, Table


class LinkGone(Exception):
    """The table's round is finished: the link is dead (410)."""

    def __init__(self, table: Table) -> None:
        self.table = table


def _tableside_table(token: str) -> Table:
    """The one table this link reaches; 404 for an unknown link, a bye or a draft round."""
    table = (
        _tables_qs()
        .prefetch_related(Prefetch("events", queryset=TableEvent.objects.order_by("position")))
        .filter(entry_token=token, is_bye=False)
        .first()
    )
    if table is None or table.round.status == Round.Status.DRAFT:
        raise Http404
    if table.round.status == Round.Status.FINISHED:
        raise LinkGone(table)
    return table


def _gone(request: HttpRequest, table: Table) -> HttpResponse:
    return render(
        request,
        "scoring/tableside_gone.html",
        {"event_tournament": table.round.tournament, "table": table},
        status=410,
    )


def _tableside(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Resolve the link's table (404 / 410) and never let a proxy cache the secret page."""

    @wraps(view)
    def wrapper(request: HttpRequest, token: str) -> HttpResponse:
        try:
            table = _tableside_table(token)
        except LinkGone as gone:
            return _gone(request, gone.table)
        return view(request, table)

    return never_cache(wrapper)


@_tableside
def tableside(request: HttpRequest, table: Table) -> HttpResponse:
    """South's entry page and West's confirmation, on one phone at the table."""
    rules = table.round.tournament.rules
    sheet = _sheet_of(table, rules)
    token = table.entry_token
    open_ = table.entry_status == Table.EntryStatus.OPEN
    return render(
        request,
        "scoring/tableside.html",
        {
            "event_tournament": table.round.tournament,
            "table": table,
            "sheet": sheet,
            "grid": tap_grid(),
            "event_url": reverse("tableside:tableside_event", args=[token]),
            "undo_url": reverse("tableside:tableside_undo", args=[token]),
            "submit_url": reverse("tableside:tableside_submit", args=[token]),
            "confirm_url": reverse("tableside:tableside_confirm", args=[token]),
            "can_enter": open_ and not sheet.finished and not table.end_kind,
            "can_undo": open_ and bool(sheet.rows) and not table.end_kind,
            "can_submit": open_ and sheet.closable and not sheet.error,
            "can_confirm": table.entry_status == Table.EntryStatus.ENTERED,
            "locked": table.is_confirmed,
            "code_form": PairCodeForm(initial={"version": table.version}, auto_id="code_%s"),
        },
    )


def _tableside_action(
    request: HttpRequest,
    table: Table | TableAt,
    token: str,
    form: forms.Form,
    call: Callable[[Any, Any], Any],
    success: str | Promise,
) -> HttpResponse:
    """Call ONE service with a valid form, say what happened, redirect back to the link."""
    if not form.is_valid():
        _form_errors(request, form)
    else:
        try:
            call(table, form)
        except ServiceError as error:
            _service_message(request, error)
        else:
            if success:
                messages.success(request, str(success))
    return redirect("tableside:tableside", token)


def _tableside_write(
    form_class: type[forms.Form], call: Callable[[TableAt, Any], Any], success: str | Promise
) -> Callable[..., HttpResponse]:
    """A table-side POST that does not load the table: the service reads it once, locked, by
    the link (``TableAt.link``: a match table of a published round). When there is none — or
    the form is invalid, which needs no service — the link is resolved as the page does it:
    404, or 410 for a finished round."""

    def view(request: HttpRequest, token: str) -> HttpResponse:
        form = form_class(request.POST)
        try:
            if not form.is_valid():
                _tableside_table(token)
            try:
                return _tableside_action(request, TableAt.link(token), token, form, call, success)
            except Table.DoesNotExist:
                _tableside_table(token)  # 404 or 410 …
                raise Http404 from None  # … or published since: let South reload the page
        except LinkGone as gone:
            return _gone(request, gone.table)

    return never_cache(require_POST(view))


# South taps a deal (deals only; fouls and awards are the referee's).
tableside_event = _tableside_write(
    DealForm,
    lambda t, f: enter_event(
        t, f.cleaned_data["event"], None, f.cleaned_data["version"], Via.TABLE
    ),
    "",
)
tableside_undo = _tableside_write(
    VersionForm,
    lambda t, f: undo_last_event(t, None, f.cleaned_data["version"], Via.TABLE),
    gettext_lazy("已撤销最后一副"),
)
# South hands the sheet to West for confirmation.
tableside_submit = _tableside_write(
    VersionForm,
    lambda t, f: mark_entered(t, None, f.cleaned_data["version"], Via.TABLE),
    gettext_lazy("已提交。请西家输入东西方的对号密码确认。"),
)


@require_POST
@_tableside
def tableside_confirm(request: HttpRequest, table: Table) -> HttpResponse:
    """West confirms with the East–West pair's code; then only a referee can change the table.
    Wrong codes are counted per table and per (table, address) in a shared store
    (tournaments/throttle.py), reserved before the code is checked, so no race gets extra tries."""
    attempt = throttle.pair_code_attempt(request, table.pk)
    if attempt.blocked:
        messages.error(request, _("密码错误次数过多，请稍后再试或联系裁判。"))
        return redirect("tableside:tableside", table.entry_token)

    def confirm(t: Table, f: Any) -> None:
        try:
            confirm_table_by_pair_code(t, f.cleaned_data["code"], f.cleaned_data["version"])
        except ServiceError as error:
            if error.code == "bad_pair_code":
                attempt.keep()  # a wrong guess stays counted
            raise

    try:
        return _tableside_action(
            request,
            table,
            table.entry_token,
            PairCodeForm(request.POST),
            confirm,
            _("成绩已确认。谢谢！如需更改，请联系裁判。"),
        )
    finally:
        attempt.settle()
