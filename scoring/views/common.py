"""What the referee desk, the penalty pages and table-side entry share: loading a round or a
table (reads only) and turning a refusal into a message."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.contrib import messages
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _

from rules.ruleset import RuleSet
from scoring.facts import MatchFacts, table_facts, table_games
from scoring.models import TableEvent
from scoring.once import once, recall_table, remember_table, table_scope
from scoring.services import TableAt
from scoring.sheet import Sheet, build_match_sheet, build_sheet, sheet_state
from scoring.views.offline import rules_version
from tournaments.errors import ConflictError, ForbiddenError, ServiceError
from tournaments.models import Player, Round, Table, TableQuerySet, Tournament


def tables_qs() -> TableQuerySet:
    return Table.objects.select_related("round__tournament", "ns", "ew").prefetch_related(
        Prefetch("ns__players", queryset=Player.objects.order_by("position")),
        Prefetch("ew__players", queryset=Player.objects.order_by("position")),
    )


def load_round(tournament: Tournament, number: int) -> Round:
    """A round referees may see: published or finished (a draft is the organizers' business)."""
    return get_object_or_404(Round.objects.counted(), tournament=tournament, number=number)


def load_table(tournament: Tournament, number: int, table_number: int) -> Table:
    """A match table of a round referees may see, with its round, pairs, players and events
    (the table and its round in one query)."""
    return get_object_or_404(
        tables_qs()
        .counted()
        .prefetch_related(Prefetch("events", queryset=TableEvent.objects.order_by("position"))),
        round__tournament=tournament,
        round__number=number,
        number=table_number,
        is_bye=False,
    )


def sheet_of(
    table: Table, rules: RuleSet, *, with_rows: bool = True, game: int | None = None
) -> Sheet:
    """The table's sheet by its stage's rules (``RuleSet.for_stage``); a knockout table game by
    game (``scoring.sheet.build_match_sheet``) — ``game``: as it stood after that game (its
    rows), for the chief referee's correction of an earlier game."""
    stage = table.round.stage
    staged = rules.for_stage(stage)
    if rules.plays_series(stage):
        games = table_games(table)
        if game is not None:
            games = games[:game]
        return build_match_sheet(games, staged, rules.stage(stage).games, with_rows=with_rows)
    return build_sheet(table_facts(table), staged, with_rows=with_rows)


def _sheet_and_facts(table: Table, rules: RuleSet) -> tuple[Sheet, MatchFacts]:
    """The table's sheet (``sheet_of``) and the facts it shows: the table's, or a knockout
    match's current game (what the page's script puts its waiting taps after)."""
    stage = table.round.stage
    if rules.plays_series(stage):
        games = table_games(table)
        sheet = build_match_sheet(games, rules.for_stage(stage), rules.stage(stage).games)
        return sheet, _current_game(games, table)
    facts = table_facts(table)
    return build_sheet(facts, rules.for_stage(stage)), facts


def _current_game(games: Sequence[MatchFacts], table: Table) -> MatchFacts:
    return games[-1] if games else table_facts(table)


def can_change(table: Table) -> bool:
    return table.round.status == Round.Status.PUBLISHED and not table.is_confirmed


def service_message(request: HttpRequest, error: ServiceError) -> None:
    """A refusal as a message; a conflict says clearly that nothing was saved."""
    if isinstance(error, ConflictError):
        messages.error(
            request,
            _("%(msg)s。您的操作没有保存；下面是最新的记录，请核对后再操作。")
            % {"msg": error.message.rstrip("。")},
        )
    else:
        messages.error(request, error.message)


def form_errors(request: HttpRequest, form: forms.Form) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


def once_table(
    request: HttpRequest, action: str, table: Table | TableAt, write: Callable[[], Table]
) -> Table:
    """Run a write on ``table`` at most once per the form's one-time key (hidden field
    ``once``, generated when the page was rendered), scoped to the table: a repeat gets the
    first result, not a second row; a post without a key is refused."""
    key = request.POST.get("once") or None
    return once(key, action, write, remember_table, recall_table, scope=table_scope(table))


# --------------------------------------------------------------------------------------------
# Taps answered in JSON (issue 16): the page updates in place and keeps an outbox


def wants_json(request: HttpRequest) -> bool:
    """A tap sent by the page's script (static/js/live-sheet.js) asks for the new sheet as
    JSON; a plain form post (no JavaScript) gets the redirect as before."""
    return request.headers.get("Accept", "").startswith("application/json")


def sheet_answer(table: Table, status: int = 200, **extra: Any) -> JsonResponse:
    """The table's sheet as JSON (``scoring.sheet.sheet_state``) with its entry status."""
    sheet, facts = _sheet_and_facts(table, table.round.tournament.rules)
    state = sheet_state(sheet, facts, table.version)
    body = {"ok": status == 200, "entry_status": table.entry_status, "state": state, **extra}
    return JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})


def tap_json(
    request: HttpRequest,
    form: forms.Form,
    at: TableAt,
    write: Callable[[TableAt, Any], Table],
) -> JsonResponse:
    """One tap, answered with the new sheet (200). A refusal names its code and sentence and
    carries the table as it is now, so the page can show both versions: 409 when somebody else
    changed the table meanwhile (the version), 403 when this user or link may not enter, 422 for
    any other refusal; 400 for a malformed request. The write is the same service call as the
    form's (``write``), behind the same one-time key: a repeated key gets the first result."""
    key = request.POST.get("once", "")
    if not form.is_valid():
        message = next((str(e) for errors in form.errors.values() for e in errors), "")
        return JsonResponse(
            {"ok": False, "code": "invalid", "message": message, "key": key},
            status=400,
            json_dumps_params={"ensure_ascii": False},
        )
    try:
        table = write(at, form)
    except Table.DoesNotExist:
        raise Http404 from None
    except ServiceError as error:
        current = (
            Table.objects.select_related("round__tournament", "ns", "ew")
            .filter(**dict(at.lookup))
            .first()
        )
        if current is None:
            raise Http404 from None
        status = 409 if isinstance(error, ConflictError) else 422
        if isinstance(error, ForbiddenError):
            status = 403
        return sheet_answer(current, status, code=error.code, message=error.message, key=key)
    return sheet_answer(table, key=key)


def outbox_name(request: HttpRequest, table: Table) -> str:
    """Where the page keeps its waiting taps in the phone's ``localStorage`` (``gt-outbox:`` and
    this): the table, by the page (the desk or the table-side link) and, when logged in, the
    user — whose outboxes logging out removes (static/js/logout.js), and whose taps another
    user on the same phone never sends. Never the page's address: the link's is its secret."""
    match = getattr(request, "resolver_match", None)
    page = "link" if match is not None and match.namespace == "tableside" else "desk"
    user = f"u{request.user.pk}:" if request.user.is_authenticated else ""
    return f"{user}{page}:t{table.pk}"


def live_sheet(
    request: HttpRequest,
    table: Table,
    sheet: Sheet,
    event_url: str,
) -> dict[str, Any] | None:
    """What the page's script needs (templates/scoring/_live_sheet.html): the sheet as the tap
    answers give it, where to post taps, and the rules as data for this tournament."""
    tournament = table.round.tournament
    rules = tournament.rules
    knockout = rules.plays_series(table.round.stage)
    # A knockout table's facts are its current game's (``_sheet_and_facts``).
    facts = _current_game(table_games(table), table) if knockout else table_facts(table)
    return {
        "state": sheet_state(sheet, facts, table.version),
        "event_url": event_url,
        "rules_url": reverse("offline:sheet_rules", args=[tournament.slug])
        + f"?stage={table.round.stage}&v={rules_version(rules.for_stage(table.round.stage))}",
        "store": outbox_name(request, table),
        # A best-of-n match (the next game from 2 : 2, the match's winner) is not replayed by the
        # page: its waiting taps queue and sync, shown without levels until the server answers
        # (docs/offline.md).
        "replay": not knockout,
    }
