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
from scoring.models import Signoff, TableEvent, Via
from scoring.once import new_once_key
from scoring.parties import pair_for_code, refuse_staff_as_pair
from scoring.services import (
    TableAt,
    confirm_table_by_pair_code,
    enter_event,
    mark_entered,
    undo_last_event,
)
from scoring.sheet import tap_grid
from scoring.views.common import (
    form_errors,
    live_sheet,
    once_table,
    service_message,
    sheet_of,
    tables_qs,
    tap_json,
    wants_json,
)
from tournaments import throttle
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Table


class LinkGone(Exception):
    """The table's round is finished: the link is dead (410)."""

    def __init__(self, table: Table) -> None:
        self.table = table


def _tableside_table(token: str) -> Table:
    """The one table this link reaches; 404 for an unknown link, a bye or a draft round."""
    table = (
        tables_qs()
        .prefetch_related(Prefetch("events", queryset=TableEvent.objects.order_by("position")))
        .filter(entry_token=token, is_bye=False)
        .first()
    )
    if table is None or table.round.status not in Round.COUNTED:
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

    # The phone's device cookie: its wrong pair codes slow it, not the venue's other phones
    # behind the same address (tournaments/throttle.py).
    return never_cache(throttle.remembers_device(wrapper))


def _pair_key(token: str) -> str:
    return f"tableside-pair:{token}"


def _link_pair_id(request: HttpRequest, token: str) -> int | None:
    """The pair this browser proved itself as at this table (its code, typed once); the service
    checks it against the locked table."""
    pk = request.session.get(_pair_key(token))
    return pk if isinstance(pk, int) else None


def _link_pair(request: HttpRequest, table: Table) -> Pair | None:
    pk = _link_pair_id(request, table.entry_token)
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
    sheet = sheet_of(table, rules)
    token = table.entry_token
    read_only = Signoff.objects.filter(
        table=table, step=Signoff.Step.SUBMIT, via=Via.REFEREE
    ).exists()
    pair = _link_pair(request, table)
    open_ = table.entry_status == Table.EntryStatus.OPEN and not read_only and pair is not None
    try:  # staff are sent to the desk (issue 29): the page offers no pair-code form to them
        refuse_staff_as_pair(table.round.tournament, request.user)
        staff_desk_url = ""
    except ServiceError:
        staff_desk_url = reverse(
            "referee:table", args=[table.round.tournament.slug, table.round.number, table.number]
        )
    return render(
        request,
        "scoring/tableside.html",
        {
            "event_tournament": table.round.tournament,
            "table": table,
            "sheet": sheet,
            "grid": tap_grid(table.round.rules),
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
            "staff_desk_url": staff_desk_url,
            "once": new_once_key(),
            "code_form": PairCodeForm(initial={"version": table.version}, auto_id="code_%s"),
            "identify_form": PairCodeForm(
                initial={"version": table.version}, auto_id="identify_%s"
            ),
            # Instant taps and the outbox (issue 16), while this phone's pair may enter.
            "live": live_sheet(
                request, table, sheet, reverse("tableside:tableside_event", args=[token])
            )
            if open_
            else None,
        },
    )


@require_POST
@_tableside
def tableside_identify(request: HttpRequest, table: Table) -> HttpResponse:
    """The entering side proves itself once with its own pair code (RULES.md §7); the answer
    is kept in this browser's session for this table. Wrong codes count as at confirmation."""
    attempt = throttle.pair_code_attempt(request, table.pk)
    if attempt.blocked:
        messages.error(request, throttle.refusal(attempt))
        return redirect("tableside:tableside", table.entry_token)
    try:
        return _identify(request, table, attempt)
    finally:
        attempt.settle()


def _identify(request: HttpRequest, table: Table, attempt: Any) -> HttpResponse:
    form = PairCodeForm(request.POST)
    if not form.is_valid():
        form_errors(request, form)
        return redirect("tableside:tableside", table.entry_token)
    try:
        pair = pair_for_code(table, form.cleaned_data["code"], request.user)
    except ServiceError as error:
        if error.code == "bad_pair_code":
            attempt.keep()  # a wrong guess stays counted
        service_message(request, error)
    else:
        request.session[_pair_key(table.entry_token)] = pair.pk
        side = _("南北") if pair.pk == table.ns_id else _("东西")
        messages.success(
            request,
            _("已确认：%(side)s（第%(n)s对）录入。录入完成后由另一方确认。")
            % {"side": side, "n": pair.number},
        )
    return redirect("tableside:tableside", table.entry_token)


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
        form_errors(request, form)
    else:
        try:
            call(table, form)
        except ServiceError as error:
            service_message(request, error)
        else:
            if success:
                messages.success(request, str(success))
    return redirect("tableside:tableside", token)


def _tableside_write(
    form_class: type[forms.Form],
    action: str,
    call: Callable[[HttpRequest, str, TableAt, Any], Any],
    success: str | Promise,
    *,
    json: bool = False,
) -> Callable[..., HttpResponse]:
    """A table-side POST that does not load the table: the service reads it once, locked, by
    the link (``TableAt.link``: a match table of a published round), at most once per the
    page's one-time key. When there is none — or the form is invalid, which needs no service —
    the link is resolved as the page does it: 404, or 410 for a finished round. ``json``: the
    page's script may ask for the new sheet as JSON instead of the redirect (issue 16)."""

    def view(request: HttpRequest, token: str) -> HttpResponse:
        form = form_class(request.POST)

        def write(t: TableAt, f: Any) -> Any:
            return once_table(request, action, t, lambda: call(request, token, t, f))

        if json and wants_json(request):
            return tap_json(request, form, TableAt.link(token), write)
        try:
            if not form.is_valid():
                _tableside_table(token)
            try:
                return _tableside_action(request, TableAt.link(token), token, form, write, success)
            except Table.DoesNotExist:
                _tableside_table(token)  # 404 or 410 …
                raise Http404 from None  # … or published since: let South reload the page
        except LinkGone as gone:
            return _gone(request, gone.table)

    return never_cache(require_POST(view))


# The entering side taps a deal (deals only; fouls and awards are the referee's).
tableside_event = _tableside_write(
    DealForm,
    "tableside_event",
    lambda request, token, t, f: enter_event(
        t,
        f.cleaned_data["event"],
        _link_user(request),
        f.cleaned_data["version"],
        Via.TABLE,
        pair=_link_pair_id(request, token),
    ),
    "",
    json=True,
)
tableside_undo = _tableside_write(
    VersionForm,
    "tableside_undo",
    lambda request, token, t, f: undo_last_event(
        t,
        _link_user(request),
        f.cleaned_data["version"],
        Via.TABLE,
        pair=_link_pair_id(request, token),
    ),
    gettext_lazy("已撤销最后一副"),
)
# The entering side hands the sheet to the other pair for confirmation.
tableside_submit = _tableside_write(
    VersionForm,
    "tableside_submit",
    lambda request, token, t, f: mark_entered(
        t,
        _link_user(request),
        f.cleaned_data["version"],
        Via.TABLE,
        pair=_link_pair_id(request, token),
    ),
    gettext_lazy("已提交。请另一方输入自己的对号密码确认。"),
)


@require_POST
@_tableside
def tableside_confirm(request: HttpRequest, table: Table) -> HttpResponse:
    """The pair that did not enter confirms with its own code; then only a referee can change
    the table. Wrong codes are counted per table and per (table, address) in a shared store
    (tournaments/throttle.py), reserved before the code is checked, so no race gets extra
    tries. A repeated confirmation (the same one-time key) gets the first answer."""
    attempt = throttle.pair_code_attempt(request, table.pk)
    if attempt.blocked:
        messages.error(request, throttle.refusal(attempt))
        return redirect("tableside:tableside", table.entry_token)

    def confirm(t: Table, f: Any) -> None:
        # Staff confirm at the desk, as themselves (issue 29); refused before the code is read.
        refuse_staff_as_pair(t.round.tournament, request.user)
        try:
            once_table(
                request,
                "tableside_confirm",
                t,
                lambda: confirm_table_by_pair_code(
                    t, f.cleaned_data["code"], f.cleaned_data["version"], user=_link_user(request)
                ),
            )
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
