"""The referee desk: the rounds, a round's tables with their state, and a table's one-tap score
sheet (enter, undo, lateness, end, submit, confirm, correct).

Views are thin (STYLE.md): check permission, validate the form, call ONE service from
``scoring.services``, put its message on the page, redirect. The sheet's wording is
``scoring.sheet``; the round's problem scan is ``scoring.dashboard``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from rules.levels import PAST_ACE, level_label
from scoring.clock import (
    TIMED_FORMATS,
    clock_of,
    default_minutes,
    lateness_suggestion,
    round_clock,
    start_round,
)
from scoring.dashboard import (
    desk_stamp,
    escalations_due,
    filtered_tables,
    round_overview,
    round_problems,
    round_suggestions,
    suggestion_row,
)
from scoring.deadlines import RoundDeadlines, deadline_text, desk_line, round_deadlines
from scoring.forms import (
    AwardForm,
    CorrectionForm,
    EditForm,
    EndForm,
    EventForm,
    FoulForm,
    LatenessForm,
    PenaltyForm,
    StartRoundForm,
    VersionForm,
)
from scoring.matches import team_matches
from scoring.models import Penalty, TableEvent, Via
from scoring.once import new_once_key, once, table_scope
from scoring.penalties import escalation_actions, escalations_allowed, record_foul
from scoring.penalty_records import event_action, penalty_events_label, record_kinds
from scoring.services import (
    TableAt,
    call_time,
    confirm_table,
    correct_result,
    correct_table,
    enter_event,
    enterer_ids,
    mark_entered,
    set_end,
    set_start_levels,
    start_game,
    undo_last_event,
)
from scoring.sheet import TableStatus, history_row, table_status, tap_grid
from scoring.views.common import (
    can_change,
    form_errors,
    live_sheet,
    load_round,
    load_table,
    once_table,
    service_message,
    sheet_of,
    tap_json,
    wants_json,
)
from tournaments.bounds import parse_int
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Pair, Player, Round, Table, Tournament
from tournaments.permissions import (
    Action,
    action_required,
    allowed,
)
from tournaments.staff import assigned_range
from tournaments.wording import event_text

FILTERS = ("all", "mine", "unconfirmed", "problem")
TABLES_PER_PAGE = 100


@action_required(Action.VIEW_DESK)
def dashboard(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The referee's start page: the rounds of the tournament, newest first."""
    rounds = list(
        Round.objects.counted()
        .filter(tournament=tournament)
        .annotate(
            n_tables=Count("tables", filter=Q(tables__is_bye=False)),
            n_confirmed=Count(
                "tables",
                filter=Q(tables__is_bye=False, tables__entry_status=Table.EntryStatus.CONFIRMED),
            ),
        )
        .order_by("-number")
    )
    current = next((r for r in rounds if r.status == Round.Status.PUBLISHED), None)
    if current is not None and request.GET.get("all") is None:
        return redirect("referee:round_dashboard", tournament.slug, current.number)
    return render(
        request,
        "scoring/dashboard.html",
        {"tournament": tournament, "nav": "referee", "rounds": rounds},
    )


@action_required(Action.VIEW_DESK)
def round_dashboard(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The round's tables with their pairs and status, ``TABLES_PER_PAGE`` a page.

    Sized for a 10,000-pair event: the progress and the counts by status cover the whole
    round (one aggregate query, plus the cached problem scan ``round_problems``); the filters
    run in SQL; sheets and statuses are worded only for the tables on the page. The number of
    queries does not grow with the round.
    """
    rnd = load_round(tournament, number)
    rules = tournament.rules
    show = request.GET.get("show", "all")
    if show not in FILTERS:
        show = "all"
    user_id = request.user.pk
    rnd.tournament = tournament
    overview = round_overview(rnd, rules)
    problems = round_problems(rnd, rules, overview)
    assigned = assigned_range(tournament, request.user)
    tables = filtered_tables(rnd, show, user_id, problems, assigned).select_related("ns", "ew")
    tables = tables.prefetch_related(
        Prefetch("ns__players", queryset=Player.objects.order_by("position")),
        Prefetch("ew__players", queryset=Player.objects.order_by("position")),
        Prefetch(
            "events",
            queryset=TableEvent.objects.order_by("position").only(
                "table_id", "position", "token", "entered_by_id"
            ),
        ),
    )
    page = Paginator(tables, TABLES_PER_PAGE).get_page(request.GET.get("page"))
    rows = []
    for table in page.object_list:
        table.round = rnd  # the page's tables all belong to it (no query per table)
        events = list(table.events.all()) if not table.is_bye else []
        sheet = None if table.is_bye else sheet_of(table, rules, with_rows=False)
        has_facts = bool(events or table.end_kind)
        status = table_status(table.entry_status, table.is_bye, has_facts, sheet)
        mine = (
            (assigned is not None and assigned[0] <= table.number <= assigned[1])
            or table.entered_by_id == user_id
            or table.confirmed_by_id == user_id
            or any(event.entered_by_id == user_id for event in events)
        )
        rows.append(
            {
                "table": table,
                "sheet": sheet,
                "status": status,
                "status_label": TableStatus.label(status),
                "mine": mine,
                "has_facts": has_facts,
                # A pair withdrawn or disqualified while seated here (issue 15): flagged until
                # the table is settled.
                "withdrawn": [
                    pair.number
                    for pair in (table.ns, table.ew)
                    if pair is not None and not pair.is_active
                ]
                if not table.is_confirmed
                else [],
            }
        )
    counts = {
        TableStatus.NOT_STARTED: overview.not_started,
        TableStatus.IN_PROGRESS: overview.in_progress,
        TableStatus.ENTERED: overview.entered,
        TableStatus.CONFIRMED: overview.confirmed,
        TableStatus.PROBLEM: len(problems),
    }
    for bucket in problems.values():  # a problem table counts as a problem only
        counts[bucket] -= 1
    total = overview.total
    confirmed = counts[TableStatus.CONFIRMED]
    filters = [
        {"key": "all", "label": _("全部")},
        {"key": "mine", "label": _("我的桌")},
        {"key": "unconfirmed", "label": _("未确认")},
        {"key": "problem", "label": _("有问题")},
    ]
    summary = [
        {"status": s, "label": TableStatus.label(s), "count": counts[s]} for s in TableStatus.ORDER
    ]
    matches = None
    if rules.event == "teams":  # the page's team matches, both tables each, combined
        numbers = {row["table"].match for row in rows if row["table"].match is not None}
        matches = team_matches(Table.objects.filter(round=rnd, match__in=numbers), rules)
    may = allowed(request.user, tournament)
    may_start = may[Action.ROUND_CONTROL]
    kinds = record_kinds(may)
    return render(
        request,
        "scoring/round_dashboard.html",
        {
            "matches": matches,
            "flagged": [m for m in matches or () if m.deals_disagree],
            "tournament": tournament,
            "nav": "referee",
            "round": rnd,
            "rows": rows,
            "page": page,
            "page_links": _page_links(page),
            "show": show,
            "filters": filters,
            "summary": summary,
            "total": total,
            "confirmed": confirmed,
            "percent": round(100 * confirmed / total) if total else 0,
            "can_record": bool(kinds),
            "once": new_once_key(),
            "suggestions": escalations_allowed(rnd, round_suggestions(rnd), may) if kinds else [],
            "penalty_form": PenaltyForm(
                pairs=Pair.objects.none(), kinds=kinds, by_number=True, auto_id="penalty_%s"
            ),
            "stamp": desk_stamp(rnd),
            "jump_table": request.GET.get("table", ""),
            **_clock_context(rnd),
            "may_start": may_start and rnd.status == Round.Status.PUBLISHED,
            # RULES.md §9: the time limit offered is the stage's ``minutes`` (changeable here).
            "start_form": StartRoundForm(initial={"minutes": rnd.minutes or default_minutes(rnd)})
            if may_start
            else None,
        },
    )


def _clock_context(rnd: Round) -> dict[str, Any]:
    """The round clock for a page (``scoring/_clock.html``, ``static/js/clock.js``), by the
    rules of the round's stage (``Round.rules``)."""
    now = timezone.now()
    # Only while the round is played: a finished round's clock would only say "时间到".
    playing = rnd.status == Round.Status.PUBLISHED
    return {
        "clock": clock_of(rnd, now) if playing else round_clock(None, None, "", now),
        "clock_now": int(now.timestamp()),
        "timed": rnd.rules.round_format in TIMED_FORMATS,
    }


@action_required(Action.VIEW_DESK)
def round_state(request: HttpRequest, tournament: Tournament, number: int) -> JsonResponse:
    """What the desk polls (``static/js/desk.js``): a stamp that changes with any write to the
    round's tables, penalties or clock, and the clock. The desk reloads its list only when the
    stamp moved, keeping the referee's filter and page (the same URL)."""
    rnd = load_round(tournament, number)
    rnd.tournament = tournament
    clock = clock_of(rnd)
    return JsonResponse({"stamp": desk_stamp(rnd), "clock": clock.as_json()})


@action_required(Action.VIEW_DESK)
def jump_to_table(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The desk's "go to table" box: the table's sheet, or back to the desk with a message."""
    rnd = load_round(tournament, number)
    wanted = parse_int(request.GET.get("table"), minimum=1)
    if wanted is not None and Table.objects.filter(round=rnd, number=wanted, is_bye=False).exists():
        return redirect("referee:table", tournament.slug, number, wanted)
    messages.error(
        request,
        _("本轮没有第%(n)s桌") % {"n": wanted} if wanted is not None else _("请输入桌号"),
    )
    url = reverse("referee:round_dashboard", args=[tournament.slug, number])
    show = request.GET.get("show")
    return redirect(f"{url}?show={show}" if show in FILTERS else url)


@require_POST
@action_required(Action.ROUND_CONTROL)
def round_start(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """开始本轮: the round clock starts now (lateness counts from it; timed formats count down
    ``minutes``)."""
    rnd = load_round(tournament, number)
    rnd.tournament = tournament
    form = StartRoundForm(request.POST)
    if not form.is_valid():
        form_errors(request, form)
    else:
        minutes = form.cleaned_data["minutes"] if rnd.rules.round_format in TIMED_FORMATS else None
        try:
            start_round(rnd, request.user, minutes)
        except ServiceError as error:
            service_message(request, error)
        else:
            messages.success(request, _("本轮已开始计时"))
    return redirect("referee:round_dashboard", tournament.slug, number)


def _page_links(page: Any) -> list[int | None]:
    """Page numbers to show: the first, the last and two either side of the current one
    (``None`` is a gap)."""
    last, current = page.paginator.num_pages, page.number
    wanted = sorted({1, last, *range(max(1, current - 2), min(last, current + 2) + 1)})
    links: list[int | None] = []
    for n in wanted:
        if links and n - (links[-1] or 0) > 1:
            links.append(None)
        links.append(n)
    return links


def round_pairs(rnd: Round) -> QuerySet[Pair]:
    return (
        Pair.objects.filter(seats__round=rnd)
        .prefetch_related(Prefetch("players", queryset=Player.objects.order_by("position")))
        .order_by("number")
    )


def _table_urls(tournament: Tournament, table: Table) -> dict[str, str]:
    args = [tournament.slug, table.round.number, table.number]
    names = (
        "event",
        "foul",
        "award",
        "undo",
        "start",
        "end",
        "submit",
        "confirm",
        "correct",
        "next_game",
        "call_time",
    )
    urls = {name: reverse(f"referee:table_{name}", args=args) for name in names}
    urls["page"] = reverse("referee:table", args=args)
    urls["round"] = reverse("referee:round_dashboard", args=args[:2])
    urls["penalty"] = reverse("penalties:penalty_new", args=[tournament.slug])
    urls["escalate"] = reverse("penalties:penalty_escalate", args=[tournament.slug])
    return urls


@action_required(Action.VIEW_DESK)
def table_page(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """A table's score sheet with the tap grid and every referee action."""
    obj = load_table(tournament, number, table)
    rules = tournament.rules
    # Who may do what (``tournaments.permissions``, the map the services read): the page
    # offers a button only to whoever the service behind it lets through.
    may = allowed(request.user, tournament)
    referee = may[Action.ENTER_RESULT]
    # The chief referee corrects a confirmed best-of-n match game by game: ``?game=2``.
    fixing = may[Action.CORRECT] and obj.is_confirmed
    games = obj.games.count() + 1 if fixing else 1
    fix_game = parse_int(request.GET.get("game"), minimum=1, maximum=games) if games > 1 else None
    sheet = sheet_of(obj, rules, game=fix_game)
    changeable = referee and can_change(obj)
    kinds = record_kinds(may)
    history = list(AuditEntry.objects.filter(table=obj).order_by("created_at", "pk"))
    penalties = list(
        Penalty.objects.filter(table=obj).select_related("pair").order_by("created_at", "pk")
    )
    pairs = [obj.ns, obj.ew]
    suggestions = []
    if kinds:
        due = escalations_due(obj.round, obj.pair_ids)
        for pair, side in zip(pairs, ("NS", "EW"), strict=True):
            if pair.pk in due:
                row = suggestion_row(pair, due[pair.pk])
                needs = escalation_actions(row["kind"], at_table=True, confirmed=obj.is_confirmed)
                suggestions.append({**row, "side": side, "may": all(may[a] for a in needs)})
    events = list(obj.events.all())
    tokens = " ".join(event.token for event in events)
    # RULES.md §7: until when a confirmed result may be corrected.
    deadlines = round_deadlines(obj.round) if referee and obj.is_confirmed else None
    corrections = [entry for entry in history if entry.action == AuditEntry.Action.CORRECT]
    corrected = bool(corrections)
    status = table_status(
        obj.entry_status, False, bool(sheet.rows or obj.end_kind), sheet, corrected=corrected
    )
    version = {"version": obj.version}
    # Undoing a foul, a 本副判负 or a level award needs the authority to impose it (a time
    # call not yet followed by its extra deal is taken back first, by anyone at the desk).
    undo_needs = None if not events or sheet.extra_deal_next else event_action(events[-1].token)
    # Two-person rule: whoever entered, submitted or changed the sheet is not offered "confirm".
    entered = enterer_ids(obj, (event.entered_by_id for event in events))
    may_confirm = may[Action.CONFIRM] and request.user.pk not in entered
    # A team match (RULES.md §6): both tables and the combined result, beside the sheet.
    match = None
    if obj.match is not None:
        both = team_matches(Table.objects.filter(round=obj.round, match=obj.match), rules)
        match = both[0] if both else None
    obj.round.tournament = tournament
    clock_context = _clock_context(obj.round)
    clock = clock_context["clock"]
    return render(
        request,
        "scoring/table.html",
        {
            "tournament": tournament,
            "nav": "referee",
            "table": obj,
            "matches": [match] if match is not None else None,
            "sheet": sheet,
            "grid": tap_grid(obj.round.rules),
            "urls": _table_urls(tournament, obj),
            "may": may,
            "changeable": changeable,
            "can_enter": changeable and not sheet.finished and not obj.end_kind,
            "can_undo": bool(sheet.rows) and (undo_needs is None or may[undo_needs]),
            # 犯规, 本副判负 and 升级调整 are penalties' score effects (RULES.md §3): each for
            # whoever may impose it (by default the chief referee, seed 003).
            "penalty_events": penalty_events_label(may),
            # Setting or lifting a 判负 is for whoever may impose it.
            "end_changeable": may[Action.PENALTY_LOSS]
            or obj.end_kind != Table.EndKind.PENALTY_LOSS,
            # A timed knockout game ends when the referee says so (RULES.md §8): the button
            # closes it and opens the next game from 2 : 2; on equal levels, in any timed
            # stage, it is "到时：加打一副" (RULES.md §2, ``call_time``) and the extra deal
            # decides.
            "can_close_game": sheet.match is not None and sheet.match.may_close_game,
            "can_call_time": sheet.may_call_time,
            "may_confirm": may_confirm,
            "status": status,
            "status_label": TableStatus.label(status),
            "history": [history_row(entry) for entry in history],
            "penalties": penalties,
            "suggestions": suggestions,
            "award_form": AwardForm(initial=version, auto_id="award_%s"),
            "foul_form": FoulForm(initial=version, auto_id="foul_%s"),
            "lateness_form": LatenessForm(
                initial={**version, "minutes": clock.elapsed_minutes},
                auto_id="late_%s",
                lateness=obj.round.rules.lateness,
            ),
            # Lateness is locked once a deal is entered; the chief referee may still change it.
            "lateness_locked": bool(sheet.rows) and not may[Action.CORRECT],
            "lateness_suggestion": lateness_suggestion(clock, obj.round),
            **clock_context,
            "end_form": EndForm(
                initial={**version, "kind": obj.end_kind, "side": obj.end_side},
                auto_id="end_%s",
                passed_a=bool(sheet.passed_a),
                penalty_loss=may[Action.PENALTY_LOSS],
            ),
            "correction_form": CorrectionForm(initial=version, auto_id="correct_%s"),
            "correction_tokens": tokens,
            "last_correction": corrections[-1] if corrections else None,
            "correction_deadline": desk_line(deadlines) if deadlines is not None else None,
            **_fix_context(request, obj, sheet, fixing, deadlines, fix_game, games),
            "penalty_form": PenaltyForm(pairs=pairs, kinds=kinds, auto_id="penalty_%s")
            if kinds
            else None,
            "level_choices": [(lv, level_label(lv)) for lv in range(2, PAST_ACE)],
            "once": new_once_key(),
            # Instant taps and the outbox (issue 16), wherever the referee may enter.
            "live": live_sheet(request, obj, sheet, _table_urls(tournament, obj)["event"])
            if changeable
            else None,
        },
    )


def _fix_context(
    request: HttpRequest,
    table: Table,
    sheet: Any,
    fixing: bool,
    deadlines: RoundDeadlines | None,
    game: int | None = None,
    games: int = 1,
) -> dict[str, Any]:
    """The chief referee's correction on the sheet (issue 15): ``?fix=5`` picks the sheet's
    fifth line (one past the last: a deal added at the end); the page then offers the tap grid
    to replace it or insert before it, and deleting it. A best-of-n match (RULES.md §8) is
    corrected game by game: ``?game=2&fix=1`` is game 2's first line (the last game without
    ``game``: the one the sheet shows). Every correction form names its error kind, each with
    its deadline (RULES.md §7), and once a deadline has passed offers the chief referee the
    override."""
    if not fixing or deadlines is None:
        return {"fixing": False}
    now = timezone.now()
    kinds = [
        (deadlines.entry, _("录入错误")),
        (deadlines.published, _("公布成绩错误或裁判发现的错误")),
    ]
    current = game or games
    end = (table.end_kind, table.end_side)
    if current > 1:
        row = table.games.filter(number=current).values_list("end_kind", "end_side").first()
        end = row if row is not None else ("", "")
    fix = parse_int(request.GET.get("fix"), minimum=1, maximum=len(sheet.rows) + 1)
    row = sheet.rows[fix - 1] if fix is not None and fix <= len(sheet.rows) else None
    return {
        "fixing": True,
        "fix": fix,
        "fix_row": row,
        "fix_append": fix is not None and row is None,
        "fix_grid": tap_grid(table.round.rules),
        "fix_extra": [
            (token, event_text(token)) for token in ("foul:NS", "foul:EW", "lose:NS", "lose:EW")
        ],
        "fix_url": reverse(
            "referee:table", args=[table.round.tournament.slug, table.round.number, table.number]
        ),
        "error_choices": [
            (str(d.kind), label, deadline_text(d), d.passed(now)) for d, label in kinds
        ],
        "error_default": str(deadlines.first_open(now)),
        "deadline_passed": any(d.passed(now) for d, _label in kinds),
        "edit_start_form": EditForm(
            initial={"version": table.version, "op": "start"}, auto_id="fixstart_%s"
        ),
        "edit_end_form": EditForm(
            initial={"version": table.version, "op": "end", "kind": end[0], "side": end[1]},
            auto_id="fixend_%s",
        ),
        # Best of n: which game the lines belong to, the other games to pick.
        "fix_game": current if games > 1 else None,
        "fix_games": range(1, games + 1) if games > 1 else (),
        "fix_game_query": f"game={current}&" if games > 1 else "",
    }


def _stage_rules(tournament: Tournament, number: int) -> Any:
    """The rules of round ``number``'s stage (``RuleSet.for_stage``), one query."""
    stage = Round.objects.filter(tournament=tournament, number=number).values_list("stage")
    found = stage.first()
    return tournament.rules.for_stage(found[0] if found else 1)


def _table_action(
    request: HttpRequest,
    tournament: Tournament,
    number: int,
    table_number: int,
    form_class: type[forms.Form],
    call: Callable[[TableAt, Any], Any],
    success: str,
) -> HttpResponse:
    """The shape of every table POST: validate the form, call ONE service with the version the
    page was rendered with, say what happened, redirect back to the sheet (PRG).

    The view does not load the table: the service reads it once, locked (``TableAt``); an
    unknown table, a bye or a draft round is a 404 as on the page itself. A lateness form reads
    the lateness rule of the round's stage (RULES.md §9)."""
    if issubclass(form_class, LatenessForm):
        form: forms.Form = form_class(
            request.POST, lateness=_stage_rules(tournament, number).lateness
        )
    else:
        form = form_class(request.POST)
    if not form.is_valid():
        load_table(tournament, number, table_number)  # 404 before any form message
        form_errors(request, form)
    else:
        try:
            call(TableAt.desk(tournament, number, table_number), form)
        except Table.DoesNotExist:
            raise Http404 from None
        except ServiceError as error:
            service_message(request, error)
        else:
            if success:
                messages.success(request, success)
    return redirect("referee:table", tournament.slug, number, table_number)


@require_POST
@action_required(Action.ENTER_RESULT)
def table_event(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """One tap of the grid (or a 本副判负 button, ``lose:NS``): append the event. The page's
    script asks for JSON (the new sheet); a plain form post is redirected to the sheet."""

    def write(t: TableAt, f: Any) -> Table:
        return once_table(
            request,
            "table_event",
            t,
            lambda: enter_event(
                t, f.cleaned_data["event"], request.user, f.cleaned_data["version"], Via.REFEREE
            ),
        )

    if wants_json(request):
        at = TableAt.desk(tournament, number, table)
        return tap_json(request, EventForm(request.POST), at, write)
    return _table_action(request, tournament, number, table, EventForm, write, "")


@require_POST
@action_required(Action.ENTER_RESULT)
def table_foul(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """犯规 in one step: the deal ends (the other side +3) and the 犯规 penalty is recorded for
    the offending pair (RULES.md §3), both or neither."""

    def call(t: TableAt, f: Any) -> None:
        once(
            request.POST.get("once") or None,
            "table_foul",
            lambda: record_foul(
                t,
                f.cleaned_data["side"],
                request.user,
                f.cleaned_data["version"],
                reason=f.cleaned_data["reason"],
            ),
            lambda done: {"table": done[0].pk, "penalty": done[1].pk},
            lambda first: (first["table"], first["penalty"]),
            scope=f"{table_scope(t)}&side={f.cleaned_data['side']}",
        )

    return _table_action(
        request, tournament, number, table, FoulForm, call, _("已记录犯规，并记入判罚")
    )


def _desk_write(
    form_class: type[forms.Form],
    call: Callable[[HttpRequest, TableAt, Any], Any],
    success: str | Promise,
) -> Callable[..., HttpResponse]:
    """A referee's table POST that is one service call on the validated form (``_table_action``),
    for the actions with nothing of their own to add."""

    @require_POST
    @action_required(Action.ENTER_RESULT)
    def view(request: HttpRequest, tournament: Tournament, number: int, table: int) -> HttpResponse:
        return _table_action(
            request,
            tournament,
            number,
            table,
            form_class,
            lambda t, f: call(request, t, f),
            str(success),
        )

    return view


# 升级调整: a level award as an event of the match (RULES.md §3); it creates an event, so it
# is keyed like a tap.
table_award = _desk_write(
    AwardForm,
    lambda request, t, f: once_table(
        request,
        "table_award",
        t,
        lambda: enter_event(t, f.token, request.user, f.cleaned_data["version"], Via.REFEREE),
    ),
    gettext_lazy("已记录升级调整"),
)
table_undo = _desk_write(
    VersionForm,
    lambda request, t, f: undo_last_event(t, request.user, f.cleaned_data["version"], Via.REFEREE),
    gettext_lazy("已撤销最后一条记录"),
)
# 迟到: the start levels from the lateness (RULES.md §2).
table_start = _desk_write(
    LatenessForm,
    lambda request, t, f: set_start_levels(
        t,
        f.cleaned_data["start_ns"],
        f.cleaned_data["start_ew"],
        request.user,
        f.cleaned_data["version"],
    ),
    gettext_lazy("已设置起始级"),
)
# 弃权 / 判负 / 迟交记分表 of one side, or clearing it.
table_end = _desk_write(
    EndForm,
    lambda request, t, f: set_end(
        t,
        f.cleaned_data["kind"],
        f.cleaned_data["side"],
        request.user,
        f.cleaned_data["version"],
    ),
    gettext_lazy("已记录结束方式"),
)
# Time called on a timed knockout game with equal levels: the extra deal follows (RULES.md §2).
table_call_time = _desk_write(
    VersionForm,
    lambda request, t, f: call_time(t, request.user, f.cleaned_data["version"], Via.REFEREE),
    gettext_lazy("已记录到时：加打一副决定本局"),
)
# A timed game of a knockout match closed by the referee; the next game opens (RULES.md §8).
table_next_game = _desk_write(
    VersionForm,
    lambda request, t, f: start_game(t, request.user, f.cleaned_data["version"], Via.REFEREE),
    gettext_lazy("本局结束，下一副开始下一局"),
)
# The enterer declares the sheet complete; a second referee confirms it.
table_submit = _desk_write(
    VersionForm,
    lambda request, t, f: mark_entered(t, request.user, f.cleaned_data["version"], Via.REFEREE),
    gettext_lazy("已提交，请另一名裁判确认"),
)


@require_POST
@action_required(Action.CONFIRM)
def table_confirm(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """Confirmation by a second person (the service enforces the two-person rule)."""
    return _table_action(
        request,
        tournament,
        number,
        table,
        VersionForm,
        lambda t, f: once_table(
            request,
            "table_confirm",
            t,
            lambda: confirm_table(t, request.user, f.cleaned_data["version"]),
        ),
        _("成绩已确认"),
    )


@require_POST
@action_required(Action.CORRECT)
def table_correct(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """裁判长更正 with a reason: one change tapped on the sheet (``op``: a line replaced,
    inserted or deleted, the lateness start or the end), or the whole result at once (the
    events as tokens, start and end)."""
    if "op" in request.POST:
        return _table_action(
            request,
            tournament,
            number,
            table,
            EditForm,
            lambda t, f: correct_table(
                t,
                f.cleaned_data["edit"],
                request.user,
                f.cleaned_data["reason"],
                f.cleaned_data["version"],
                error=f.cleaned_data["error"],
                override=f.cleaned_data["override"],
                game=f.cleaned_data.get("game"),
            ),
            _("成绩已更正，并记入日志"),
        )
    return _table_action(
        request,
        tournament,
        number,
        table,
        CorrectionForm,
        lambda t, f: correct_result(
            t,
            f.cleaned_data["tokens"],
            (f.cleaned_data["start_ns"], f.cleaned_data["start_ew"]),
            (f.cleaned_data["end_kind"], f.cleaned_data["end_side"])
            if f.cleaned_data["end_kind"]
            else None,
            request.user,
            f.cleaned_data["reason"],
            f.cleaned_data["version"],
            error=f.cleaned_data["error"],
            override=f.cleaned_data["override"],
        ),
        _("成绩已更正，并记入日志"),
    )
