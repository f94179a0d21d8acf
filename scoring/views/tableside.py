"""Table-side entry (RULES.md §7): the secret link on the score sheet, no login. Both pairs
have a say: the side that enters proves itself with its pair code when it opens the page (kept
in the session for this table), the other side confirms with its own code. A logged-in user
acting through the link is recorded as an enterer; once a referee has submitted the sheet the
link is read-only.

Thin views: the link is the key; every write is one service call.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.core.cache import cache
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from scoring.forms import (
    DealForm,
    PairCodeForm,
    VersionForm,
)
from scoring.models import Signoff, TableEvent, Via
from scoring.services import (
    confirm_table_by_pair_code,
    enter_event,
    mark_entered,
    new_once_key,
    pair_for_code,
    undo_last_event,
)
from scoring.sheet import tap_grid
from scoring.views.common import (
    _form_errors,
    _once_table,
    _service_message,
    _sheet_of,
    _tables_qs,
)
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Table

CODE_ATTEMPTS = 10  # wrong pair codes per table before the link refuses codes for a while
CODE_LOCK_SECONDS = 600


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


def _code_key(table: Table) -> str:
    return f"tableside-code-failures:{table.pk}"


def _codes_refused(table: Table) -> bool:
    return cache.get(_code_key(table), 0) >= CODE_ATTEMPTS


def _count_bad_code(table: Table) -> None:
    key = _code_key(table)
    cache.add(key, 0, CODE_LOCK_SECONDS)
    try:
        cache.incr(key)
    except ValueError:  # expired in between
        cache.set(key, 1, CODE_LOCK_SECONDS)


def _pair_key(table: Table) -> str:
    return f"tableside-pair:{table.pk}"


def _link_pair(request: HttpRequest, table: Table) -> Pair | None:
    """The pair this browser proved itself as at this table (its code, typed once)."""
    pk = request.session.get(_pair_key(table))
    if pk is not None and pk == table.ns_id:
        return table.ns
    if pk is not None and pk == table.ew_id:
        return table.ew
    return None


def _link_user(request: HttpRequest) -> Any:
    """A logged-in user acting through the link is recorded as an enterer (two-person rule)."""
    return request.user if request.user.is_authenticated else None


@_tableside
def tableside(request: HttpRequest, table: Table) -> HttpResponse:
    """South's entry page and West's confirmation, on one phone at the table."""
    rules = table.round.tournament.rules
    sheet = _sheet_of(table, rules)
    token = table.entry_token
    read_only = Signoff.objects.filter(
        table=table, step=Signoff.Step.SUBMIT, via=Via.REFEREE
    ).exists()
    pair = _link_pair(request, table)
    open_ = table.entry_status == Table.EntryStatus.OPEN and not read_only and pair is not None
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
            "identify_url": reverse("tableside:tableside_identify", args=[token]),
            "can_enter": open_ and not sheet.finished and not table.end_kind,
            "can_undo": open_ and bool(sheet.rows) and not table.end_kind,
            "can_submit": open_ and sheet.closable and not sheet.error,
            "can_confirm": table.entry_status == Table.EntryStatus.ENTERED and not read_only,
            "can_identify": table.entry_status == Table.EntryStatus.OPEN
            and not read_only
            and pair is None,
            "read_only": read_only and not table.is_confirmed,
            "link_pair": pair,
            "link_side": "" if pair is None else ("NS" if pair.pk == table.ns_id else "EW"),
            "locked": table.is_confirmed,
            "once": new_once_key(),
            "code_form": PairCodeForm(initial={"version": table.version}, auto_id="code_%s"),
            "identify_form": PairCodeForm(
                initial={"version": table.version}, auto_id="identify_%s"
            ),
        },
    )


@require_POST
@_tableside
def tableside_identify(request: HttpRequest, table: Table) -> HttpResponse:
    """The entering side proves itself once with its own pair code (RULES.md §7); the answer
    is kept in this browser's session for this table. Wrong codes count as at confirmation."""
    if _codes_refused(table):
        messages.error(request, _("密码错误次数过多，请稍后再试或联系裁判。"))
        return redirect("tableside:tableside", table.entry_token)
    form = PairCodeForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return redirect("tableside:tableside", table.entry_token)
    try:
        pair = pair_for_code(table, form.cleaned_data["code"])
    except ServiceError as error:
        if error.code == "bad_pair_code":
            _count_bad_code(table)
        _service_message(request, error)
    else:
        request.session[_pair_key(table)] = pair.pk
        side = _("南北") if pair.pk == table.ns_id else _("东西")
        messages.success(
            request,
            _("已确认：%(side)s（第%(n)s对）录入。录入完成后由另一方确认。")
            % {"side": side, "n": pair.number},
        )
    return redirect("tableside:tableside", table.entry_token)


def _tableside_action(
    request: HttpRequest,
    table: Table,
    form_class: type[forms.Form],
    call: Callable[[Table, Any], Any],
    success: str,
) -> HttpResponse:
    form = form_class(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
    else:
        try:
            call(table, form)
        except ServiceError as error:
            _service_message(request, error)
        else:
            if success:
                messages.success(request, success)
    return redirect("tableside:tableside", table.entry_token)


@require_POST
@_tableside
def tableside_event(request: HttpRequest, table: Table) -> HttpResponse:
    """South taps a deal (deals only; fouls and awards are the referee's)."""
    return _tableside_action(
        request,
        table,
        DealForm,
        lambda t, f: _once_table(
            request,
            "tableside_event",
            lambda: enter_event(
                t,
                f.cleaned_data["token"],
                _link_user(request),
                f.cleaned_data["version"],
                Via.TABLE,
                pair=_link_pair(request, t),
            ),
        ),
        "",
    )


@require_POST
@_tableside
def tableside_undo(request: HttpRequest, table: Table) -> HttpResponse:
    return _tableside_action(
        request,
        table,
        VersionForm,
        lambda t, f: undo_last_event(
            t,
            _link_user(request),
            f.cleaned_data["version"],
            Via.TABLE,
            pair=_link_pair(request, t),
        ),
        _("已撤销最后一副"),
    )


@require_POST
@_tableside
def tableside_submit(request: HttpRequest, table: Table) -> HttpResponse:
    """South hands the sheet to West for confirmation."""
    return _tableside_action(
        request,
        table,
        VersionForm,
        lambda t, f: mark_entered(
            t,
            _link_user(request),
            f.cleaned_data["version"],
            Via.TABLE,
            pair=_link_pair(request, t),
        ),
        _("已提交。请另一方输入自己的对号密码确认。"),
    )


@require_POST
@_tableside
def tableside_confirm(request: HttpRequest, table: Table) -> HttpResponse:
    """The pair that did not enter confirms with its own code; then only a referee can change
    the table. Wrong codes are counted per table (a shared cache) so a code cannot be guessed.
    A repeated confirmation (the same one-time key) gets the first answer."""
    if _codes_refused(table):
        messages.error(request, _("密码错误次数过多，请稍后再试或联系裁判。"))
        return redirect("tableside:tableside", table.entry_token)

    def confirm(t: Table, f: Any) -> None:
        try:
            _once_table(
                request,
                "tableside_confirm",
                lambda: confirm_table_by_pair_code(
                    t, f.cleaned_data["code"], f.cleaned_data["version"], user=_link_user(request)
                ),
            )
        except ServiceError as error:
            if error.code == "bad_pair_code":
                _count_bad_code(table)
            raise

    return _tableside_action(
        request, table, PairCodeForm, confirm, _("成绩已确认。谢谢！如需更改，请联系裁判。")
    )
