"""Referee and table-side pages for results entry (issue 5 "Referees" and "At the table").

Views are thin (STYLE.md): check permission, validate the form, call ONE service from
``scoring.services``, put its message on the page, redirect. No ORM writes here; reads only.

The first part of this module is pure presentation: ``build_sheet`` turns the engine's
``MatchResult`` into the rows and the summary the score-sheet template shows (levels as players
write them, who is on stage, the running 级差), so no template ever computes a domain rule.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import Count, Exists, Max, OuterRef, Prefetch, Q, QuerySet, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from guandan_tourney.redirects import safe_next
from rules.errors import RuleError
from rules.events import PARTNER_PLACE_UPGRADE, Event, EventKind, Side, deal_from_places
from rules.levels import PAST_ACE, level_label
from rules.ruleset import RuleSet
from scoring.engine import End, MatchResult, Start, score_match
from scoring.forms import (
    AwardForm,
    CorrectionForm,
    DealForm,
    EndForm,
    EscalationForm,
    EventForm,
    FoulForm,
    LatenessForm,
    PairCodeForm,
    PenaltyFilterForm,
    PenaltyForm,
    VersionForm,
)
from scoring.models import Penalty, TableEvent, Via
from scoring.penalties import apply_escalation, escalation_from_counts, suggest_escalation
from scoring.services import (
    confirm_table,
    confirm_table_by_pair_code,
    correct_result,
    enter_event,
    mark_entered,
    record_foul,
    record_penalty,
    set_end,
    set_start_levels,
    undo_last_event,
)
from tournaments.messages import describe_rule_error
from tournaments.models import AuditEntry, Pair, Player, Round, Table, Tournament
from tournaments.permissions import (
    Role,
    chief_referee_required,
    is_chief_referee,
    is_referee,
    referee_required,
    role_required,
)
from tournaments.services import ConflictError, ServiceError

# --------------------------------------------------------------------------------------------
# Presentation (pure: the engine's result → what the score sheet shows)


def side_label(side: Side | str | None) -> str:
    """南北 / 东西 (an em dash for nobody)."""
    if side is None or side == "":
        return "—"
    return _("南北") if Side(side) is Side.NS else _("东西")


def place_label(place: int) -> str:
    """The partner's finishing place: 二游 / 三游 / 末游 (RULES.md §1)."""
    return {2: _("二游"), 3: _("三游"), 4: _("末游")}[place]


def describe_event(event: Event) -> str:
    """One event as a referee reads it off the sheet: "南北上游，对家二游 +3"."""
    if event.kind is EventKind.DEAL:
        place = next(p for p, up in PARTNER_PLACE_UPGRADE.items() if up == event.upgrade)
        return _("%(side)s上游，对家%(place)s +%(up)s") % {
            "side": side_label(event.side),
            "place": place_label(place),
            "up": event.upgrade,
        }
    if event.kind is EventKind.FOUL:
        # RULES.md §3: a foul ends the deal, scored as the innocent side's +3.
        return _("%(side)s犯规（%(other)s +3）") % {
            "side": side_label(event.side),
            "other": side_label(event.side.other),
        }
    return _("%(side)s升级调整 +%(up)s") % {"side": side_label(event.side), "up": event.upgrade}


@dataclass(frozen=True, slots=True)
class TapButton:
    """One button of the entry grid: the token it posts and the words on it."""

    token: str
    side: str  # "NS" / "EW", for styling
    first: str  # "南北上游"
    partner: str  # "对家二游"
    upgrade: int

    @property
    def label(self) -> str:
        return _("%(first)s，%(partner)s +%(up)s") % {
            "first": self.first,
            "partner": self.partner,
            "up": self.upgrade,
        }


def tap_grid() -> tuple[tuple[TapButton, ...], ...]:
    """The six deal buttons (NS/EW × +3/+2/+1), one row per side, built from the core's
    ``deal_from_places`` so the button and the rule can never disagree."""
    rows = []
    for side in (Side.NS, Side.EW):
        buttons = []
        for place in (2, 3, 4):
            event = deal_from_places(side, place)
            buttons.append(
                TapButton(
                    token=event.token,
                    side=side.value,
                    first=_("%(side)s上游") % {"side": side_label(side)},
                    partner=_("对家%(place)s") % {"place": place_label(place)},
                    upgrade=event.upgrade,
                )
            )
        rows.append(tuple(buttons))
    return tuple(rows)


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One line of the score sheet (a deal, a foul or a level award)."""

    number: int  # 1-based position of the event at the table
    deal_number: int | None
    kind: str  # "deal" / "foul" / "adjust"
    token: str
    description: str
    level_played: str  # the level label, "" for an award
    on_stage: str  # who was on stage when the deal was played
    ns_level: str
    ew_level: str
    note: str  # 打A / 过A / 回到2


@dataclass(frozen=True, slots=True)
class Sheet:
    """Everything the sheet template shows for one table, already worded."""

    rows: tuple[SheetRow, ...]
    ns_level: str  # levels as played at the table
    ew_level: str
    recorded_ns_level: str  # after a 判负 award, if any
    recorded_ew_level: str
    next_level: str  # the level the next deal is played at ("" when finished)
    on_stage: str  # "NS" / "EW" / "" — who is on stage for the next deal
    on_stage_label: str
    deals: int
    max_deals: int | None
    jc: int  # the running 级差 (recorded levels)
    leader: str  # "NS" / "EW" / "" (level)
    leader_label: str
    finished: bool  # no further event may be entered (过A, an end, or all deals played)
    closable: bool  # the sheet may be submitted/confirmed now (timed formats: when time is called)
    status_line: str  # why it is finished, or "" while play goes on
    ns_jcf: float
    ew_jcf: float
    ns_cf: float
    ew_cf: float
    error: str  # the engine's refusal of the stored events (a "problem" table), else ""

    @property
    def events(self) -> int:
        return len(self.rows)

    @property
    def deals_label(self) -> str:
        if self.max_deals is None:
            return str(self.deals)
        return f"{self.deals}/{self.max_deals}"


TIMED_FORMATS = ("timed", "timed_deals")


def match_finished(result: MatchResult, rules: RuleSet) -> bool:
    """No further event may be entered: 过A, an end, or all the round's deals played."""
    max_deals = rules.max_deals
    return result.finished or (max_deals is not None and result.deals_played >= max_deals)


def _end_of(kind: str, side: str) -> End | None:
    return End(kind, Side(side)) if kind and side else None


def _note(step_event: Event, attempt: Side | None, reset: Side | None, after: int) -> str:
    if reset is not None:
        return _("%(side)s打A三次未过，回到2") % {"side": side_label(reset)}
    if step_event.is_deal and after == PAST_ACE:
        return _("过A")
    if attempt is not None:
        return _("%(side)s打A") % {"side": side_label(attempt)}
    return ""


def sheet_from_result(
    result: MatchResult,
    rules: RuleSet,
    *,
    error: str = "",
    events_note: str = "",
    with_rows: bool = True,
) -> Sheet:
    """Word a ``MatchResult`` for the score sheet (pure; ``_`` is the active language).
    ``with_rows=False`` skips the per-event lines (the dashboard shows only the summary)."""
    rows = []
    for step in result.steps if with_rows else ():
        after = max(step.ns_level, step.ew_level)
        rows.append(
            SheetRow(
                number=step.position + 1,
                deal_number=step.deal_number,
                kind=step.event.kind.value,
                token=step.event.token,
                description=describe_event(step.event),
                level_played=level_label(step.level_played) if step.level_played else "",
                # A level award is not a deal: nobody was "on stage" for it.
                on_stage=side_label(step.on_stage) if step.level_played else "",
                ns_level=level_label(step.ns_level),
                ew_level=level_label(step.ew_level),
                note=_note(step.event, step.attempt_at_a, step.reset_to_2, after),
            )
        )
    max_deals = rules.max_deals
    on_stage = result.on_stage
    if on_stage is None:
        next_level = min(result.table_ns_level, result.table_ew_level)
    else:
        next_level = result.table_ns_level if on_stage is Side.NS else result.table_ew_level
    all_played = max_deals is not None and result.deals_played >= max_deals
    finished = match_finished(result, rules)
    if result.forfeit is not None:
        status = _("%(side)s弃权") % {"side": side_label(result.forfeit)}
    elif result.penalty_loss is not None:
        status = _("%(side)s判负") % {"side": side_label(result.penalty_loss)}
    elif result.passed_a is not None:
        status = _("%(side)s过A，比赛结束") % {"side": side_label(result.passed_a)}
    elif all_played:
        status = _("%(n)s副已打完") % {"n": result.deals_played}
    else:
        status = events_note
    leader = "" if result.winner is None else result.winner.value
    return Sheet(
        rows=tuple(rows),
        ns_level=level_label(result.table_ns_level),
        ew_level=level_label(result.table_ew_level),
        recorded_ns_level=level_label(result.ns_level),
        recorded_ew_level=level_label(result.ew_level),
        next_level="" if finished else level_label(next_level),
        on_stage="" if on_stage is None else on_stage.value,
        on_stage_label=side_label(on_stage),
        deals=result.deals_played,
        max_deals=max_deals,
        jc=result.jc,
        leader=leader,
        leader_label=side_label(result.winner) if leader else _("平"),
        finished=finished,
        # 计时制 / 计时计副制 (RULES.md §2): the referee closes the match when time is called.
        closable=finished or (rules.round_format in TIMED_FORMATS and result.deals_played > 0),
        status_line=status,
        ns_jcf=result.ns_jcf,
        ew_jcf=result.ew_jcf,
        ns_cf=result.ns_cf,
        ew_cf=result.ew_cf,
        error=error,
    )


def build_sheet(
    tokens: list[str] | tuple[str, ...],
    rules: RuleSet,
    start_ns: int = 2,
    start_ew: int = 2,
    end_kind: str = "",
    end_side: str = "",
    *,
    with_rows: bool = True,
) -> Sheet:
    """Score a table's stored facts and word them. A sequence the engine refuses (it can only
    happen if the rules changed after entry) is shown as far as it goes, with the refusal."""
    start = Start(start_ns, start_ew)
    end = _end_of(end_kind, end_side)
    try:
        result = score_match(tokens, rules, start, end, complete=False)
        return sheet_from_result(result, rules, with_rows=with_rows)
    except RuleError as error:
        good = list(tokens[: error.position or 0])
        message = rule_error_message(error)
        try:
            partial = score_match(good, rules, start, None, complete=False)
        except RuleError:
            partial = score_match([], rules, Start(), None, complete=False)
        return sheet_from_result(partial, rules, error=message, with_rows=with_rows)


def rule_error_message(error: RuleError) -> str:
    """The translated sentence for an engine error code (``tournaments.messages``)."""
    return str(describe_rule_error(error))


# --------------------------------------------------------------------------------------------
# Dashboard status (pure)


class TableStatus:
    """The dashboard's status of a table (issue 5): not started … confirmed, or a problem."""

    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    ENTERED = "entered"
    CONFIRMED = "confirmed"
    PROBLEM = "problem"
    BYE = "bye"
    ORDER = (NOT_STARTED, IN_PROGRESS, ENTERED, CONFIRMED, PROBLEM)

    LABELS = {
        NOT_STARTED: gettext_lazy("未开始"),
        IN_PROGRESS: gettext_lazy("录入中"),
        ENTERED: gettext_lazy("待确认"),
        CONFIRMED: gettext_lazy("已确认"),
        PROBLEM: gettext_lazy("有问题"),
        BYE: gettext_lazy("轮空"),
    }

    @staticmethod
    def label(status: str) -> str:
        return str(TableStatus.LABELS[status])


def table_status(entry_status: str, is_bye: bool, has_facts: bool, sheet: Sheet | None) -> str:
    """Pure: the dashboard status. A problem is a sheet the engine refuses, or a table marked
    entered/confirmed whose sheet is not a finished match (e.g. fewer deals than the round)."""
    if is_bye:
        return TableStatus.BYE
    if sheet is not None and sheet.error:
        return TableStatus.PROBLEM
    if entry_status in ("entered", "confirmed") and sheet is not None and not sheet.finished:
        return TableStatus.PROBLEM
    if entry_status == "confirmed":
        return TableStatus.CONFIRMED
    if entry_status == "entered":
        return TableStatus.ENTERED
    return TableStatus.IN_PROGRESS if has_facts else TableStatus.NOT_STARTED


def describe_snapshot(snapshot: Any) -> str:
    """An audit entry's before/after (``scoring.services._snapshot``) in one short line."""
    if not isinstance(snapshot, dict):
        return "" if snapshot is None else str(snapshot)
    parts = []
    start = snapshot.get("start")
    if isinstance(start, dict):
        try:
            parts.append(
                _("起始 %(ns)s:%(ew)s")
                % {"ns": level_label(int(start["ns"])), "ew": level_label(int(start["ew"]))}
            )
        except (KeyError, TypeError, ValueError, RuleError):
            pass
    deals = snapshot.get("deals")
    if isinstance(deals, list):
        parts.append(" ".join(str(d) for d in deals) or _("（无记录）"))
    end = snapshot.get("end")
    if isinstance(end, dict) and end:
        ((kind, side),) = list(end.items())[:1]
        word = _("弃权") if kind == "forfeit" else _("判负")
        parts.append(f"{side_label(str(side).upper())}{word}")
    known = {"start", "deals", "end", "status", "version"}
    for key, value in snapshot.items():
        if key not in known:
            parts.append(f"{key}={value}")
    return " · ".join(parts)


def history_row(entry: AuditEntry) -> dict[str, Any]:
    """One line of a table's history; "before" only when it differs from "after"."""
    before, after = describe_snapshot(entry.before), describe_snapshot(entry.after)
    return {"entry": entry, "before": "" if before == after else before, "after": after}


# --------------------------------------------------------------------------------------------
# Loading (reads only)


def _tables_qs() -> QuerySet[Table]:
    return Table.objects.select_related("round__tournament", "ns", "ew").prefetch_related(
        Prefetch("ns__players", queryset=Player.objects.order_by("position")),
        Prefetch("ew__players", queryset=Player.objects.order_by("position")),
    )


def _round(tournament: Tournament, number: int) -> Round:
    """A round referees may see: published or finished (a draft is the organizers' business)."""
    return get_object_or_404(
        Round,
        tournament=tournament,
        number=number,
        status__in=(Round.Status.PUBLISHED, Round.Status.FINISHED),
    )


def _table(tournament: Tournament, number: int, table_number: int) -> Table:
    rnd = _round(tournament, number)
    table = get_object_or_404(
        _tables_qs().prefetch_related(
            Prefetch("events", queryset=TableEvent.objects.order_by("position"))
        ),
        round=rnd,
        number=table_number,
        is_bye=False,
    )
    return table


def _sheet_of(table: Table, rules: RuleSet, *, with_rows: bool = True) -> Sheet:
    tokens = [event.token for event in table.events.all()]
    return build_sheet(
        tokens,
        rules,
        table.start_ns,
        table.start_ew,
        table.end_kind,
        table.end_side,
        with_rows=with_rows,
    )


def _can_change(table: Table) -> bool:
    return table.round.status == Round.Status.PUBLISHED and not table.is_confirmed


def _service_message(request: HttpRequest, error: ServiceError) -> None:
    """A refusal as a message; a conflict says clearly that nothing was saved."""
    if isinstance(error, ConflictError):
        messages.error(
            request,
            _("%(msg)s。您的操作没有保存；下面是最新的记录，请核对后再操作。")
            % {"msg": error.message.rstrip("。")},
        )
    else:
        messages.error(request, error.message)


def _form_errors(request: HttpRequest, form: forms.Form) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


# --------------------------------------------------------------------------------------------
# Referee pages

VIEW_ROLES = (Role.REFEREE, Role.ORGANIZER)  # organizers may watch; only referees enter


@role_required(*VIEW_ROLES)
def dashboard(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The referee's start page: the rounds of the tournament, newest first."""
    rounds = list(
        Round.objects.filter(
            tournament=tournament,
            status__in=(Round.Status.PUBLISHED, Round.Status.FINISHED),
        )
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
        return redirect("scoring:round_dashboard", tournament.slug, current.number)
    return render(
        request,
        "scoring/dashboard.html",
        {"tournament": tournament, "nav": "referee", "rounds": rounds},
    )


FILTERS = ("all", "mine", "unconfirmed", "problem")
TABLES_PER_PAGE = 100
PROBLEMS_CACHE_SECONDS = 600


def is_problem(
    entry_status: str,
    tokens: list[str] | tuple[str, ...],
    rules: RuleSet,
    start: Start,
    end: End | None,
) -> bool:
    """Pure: the "problem" half of ``table_status`` without wording a sheet (the round-wide
    scan): the engine refuses the stored events, or the table is marked entered/confirmed but
    its match is not finished."""
    try:
        result = score_match(tokens, rules, start, end, complete=False)
    except RuleError:
        return True
    return entry_status in ("entered", "confirmed") and not match_finished(result, rules)


@dataclass(frozen=True, slots=True)
class RoundOverview:
    """The round's counts from one aggregate query (byes apart), and a fingerprint that
    changes whenever any of its tables does (every service write bumps a table's version)."""

    total: int
    confirmed: int
    entered: int
    in_progress: int
    fingerprint: str

    @property
    def not_started(self) -> int:
        return self.total - self.confirmed - self.entered - self.in_progress


def round_overview(rnd: Round, rules: RuleSet) -> RoundOverview:
    """Counts by entry state for the whole round: one query whatever its size."""
    match = Q(is_bye=False)
    has_facts = Q(has_events=True) | ~Q(end_kind="")
    row = (
        Table.objects.filter(round=rnd)
        .annotate(has_events=Exists(TableEvent.objects.filter(table=OuterRef("pk"))))
        .aggregate(
            total=Count("pk", filter=match),
            confirmed=Count("pk", filter=match & Q(entry_status=Table.EntryStatus.CONFIRMED)),
            entered=Count("pk", filter=match & Q(entry_status=Table.EntryStatus.ENTERED)),
            in_progress=Count(
                "pk", filter=match & Q(entry_status=Table.EntryStatus.OPEN) & has_facts
            ),
            versions=Sum("version"),
            last=Max("pk"),
            n=Count("pk"),
        )
    )
    # The rules are part of the key: a sheet the rules no longer accept is a problem.
    settings_digest = hashlib.sha256(
        json.dumps(rules.to_dict(), sort_keys=True, default=str).encode()
    ).hexdigest()[:16]
    created = rnd.tournament.created_at.timestamp()
    fingerprint = (
        f"{rnd.pk}:{created:.6f}:{row['n']}:{row['last']}:{row['versions'] or 0}:{settings_digest}"
    )
    return RoundOverview(
        total=row["total"],
        confirmed=row["confirmed"],
        entered=row["entered"],
        in_progress=row["in_progress"],
        fingerprint=fingerprint,
    )


def round_problems(rnd: Round, rules: RuleSet, overview: RoundOverview) -> dict[int, str]:
    """Every problem table of the round: ``{table pk: its entry-state bucket}`` (the status it
    would have had, so the summary can move it to "problem").

    The one round-wide scan (two lean queries, no model instances, ~µs a match in the engine),
    cached under the round's fingerprint: any write to any table of the round, or a change of
    the rules, makes a new key."""
    key = f"round-problems:{overview.fingerprint}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    rows = Table.objects.filter(round=rnd, is_bye=False).values_list(
        "pk", "entry_status", "start_ns", "start_ew", "end_kind", "end_side"
    )
    tokens: dict[int, list[str]] = {}
    events = TableEvent.objects.filter(table__round=rnd).order_by("table_id", "position")
    for table_id, token in events.values_list("table_id", "token"):
        tokens.setdefault(table_id, []).append(token)
    problems: dict[int, str] = {}
    for pk, entry_status, start_ns, start_ew, end_kind, end_side in rows:
        table_tokens = tokens.get(pk, [])
        end = _end_of(end_kind, end_side)
        if is_problem(entry_status, table_tokens, rules, Start(start_ns, start_ew), end):
            if entry_status in (TableStatus.CONFIRMED, TableStatus.ENTERED):
                problems[pk] = entry_status
            elif table_tokens or end_kind:
                problems[pk] = TableStatus.IN_PROGRESS
            else:
                problems[pk] = TableStatus.NOT_STARTED
    cache.set(key, problems, PROBLEMS_CACHE_SECONDS)
    return problems


def _filtered_tables(
    rnd: Round, show: str, user_id: int, problems: dict[int, str]
) -> QuerySet[Table]:
    """The round's tables under a filter, in SQL, so the page is a LIMIT/OFFSET slice."""
    tables = Table.objects.filter(round=rnd)
    if show == "mine":
        mine_events = TableEvent.objects.filter(table=OuterRef("pk"), entered_by_id=user_id)
        tables = tables.filter(
            Q(entered_by_id=user_id) | Q(confirmed_by_id=user_id) | Exists(mine_events)
        )
    elif show == "unconfirmed":
        # A confirmed table with a problem still needs a referee: it is "unconfirmed" too.
        confirmed_problems = [pk for pk, bucket in problems.items() if bucket == "confirmed"]
        tables = tables.filter(is_bye=False).filter(
            ~Q(entry_status=Table.EntryStatus.CONFIRMED) | Q(pk__in=confirmed_problems)
        )
    elif show == "problem":
        tables = tables.filter(pk__in=list(problems))
    return tables.order_by("number")


@role_required(*VIEW_ROLES)
def round_dashboard(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The round's tables with their pairs and status, ``TABLES_PER_PAGE`` a page.

    Sized for a 10,000-pair event: the progress and the counts by status cover the whole
    round (one aggregate query, plus the cached problem scan ``round_problems``); the filters
    run in SQL; sheets and statuses are worded only for the tables on the page. The number of
    queries does not grow with the round.
    """
    rnd = _round(tournament, number)
    rules = tournament.rules
    show = request.GET.get("show", "all")
    if show not in FILTERS:
        show = "all"
    user_id = request.user.pk
    rnd.tournament = tournament
    overview = round_overview(rnd, rules)
    problems = round_problems(rnd, rules, overview)
    tables = _filtered_tables(rnd, show, user_id, problems).select_related("ns", "ew")
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
        sheet = None if table.is_bye else _sheet_of(table, rules, with_rows=False)
        has_facts = bool(events or table.end_kind)
        status = table_status(table.entry_status, table.is_bye, has_facts, sheet)
        mine = (
            table.entered_by_id == user_id
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
    return render(
        request,
        "scoring/round_dashboard.html",
        {
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
            "can_record": is_referee(request.user, tournament),
            "suggestions": round_suggestions(rnd),
            "penalty_form": PenaltyForm(
                pairs=Pair.objects.none(), by_number=True, auto_id="penalty_%s"
            ),
        },
    )


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


def _round_pairs(rnd: Round) -> QuerySet[Pair]:
    return (
        Pair.objects.filter(seats__round=rnd)
        .prefetch_related(Prefetch("players", queryset=Player.objects.order_by("position")))
        .order_by("number")
    )


def _table_urls(tournament: Tournament, table: Table) -> dict[str, str]:
    args = [tournament.slug, table.round.number, table.number]
    names = ("event", "foul", "award", "undo", "start", "end", "submit", "confirm", "correct")
    urls = {name: reverse(f"scoring:table_{name}", args=args) for name in names}
    urls["page"] = reverse("scoring:table", args=args)
    urls["round"] = reverse("scoring:round_dashboard", args=args[:2])
    urls["penalty"] = reverse("scoring:penalty_new", args=[tournament.slug])
    urls["escalate"] = reverse("scoring:penalty_escalate", args=[tournament.slug])
    return urls


@role_required(*VIEW_ROLES)
def table_page(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """A table's score sheet with the tap grid and every referee action."""
    obj = _table(tournament, number, table)
    rules = tournament.rules
    sheet = _sheet_of(obj, rules)
    referee = is_referee(request.user, tournament)
    chief = is_chief_referee(request.user, tournament)
    changeable = referee and _can_change(obj)
    history = list(AuditEntry.objects.filter(table=obj).order_by("created_at", "pk"))
    penalties = list(
        Penalty.objects.filter(table=obj).select_related("pair").order_by("created_at", "pk")
    )
    pairs = [obj.ns, obj.ew]
    suggestions = []
    if referee:
        for pair in pairs:
            suggestion = suggest_escalation(pair, obj.round)
            if suggestion is not None:
                suggestions.append(
                    {
                        "pair": pair,
                        "side": "NS" if pair.pk == obj.ns_id else "EW",
                        "kind": suggestion.kind,
                        "kind_label": Penalty.Kind(suggestion.kind).label,
                        "because_label": Penalty.Kind(suggestion.because_of).label,
                        "count": suggestion.count,
                    }
                )
    tokens = " ".join(event.token for event in obj.events.all())
    version = {"version": obj.version}
    return render(
        request,
        "scoring/table.html",
        {
            "tournament": tournament,
            "nav": "referee",
            "table": obj,
            "sheet": sheet,
            "grid": tap_grid(),
            "urls": _table_urls(tournament, obj),
            "referee": referee,
            "chief": chief,
            "changeable": changeable,
            "can_enter": changeable and not sheet.finished and not obj.end_kind,
            "status": table_status(
                obj.entry_status, False, bool(sheet.rows or obj.end_kind), sheet
            ),
            "status_label": TableStatus.label(
                table_status(obj.entry_status, False, bool(sheet.rows or obj.end_kind), sheet)
            ),
            "history": [history_row(entry) for entry in history],
            "penalties": penalties,
            "suggestions": suggestions,
            "award_form": AwardForm(initial=version, auto_id="award_%s"),
            "foul_form": FoulForm(initial=version, auto_id="foul_%s"),
            "lateness_form": LatenessForm(initial=version, auto_id="late_%s"),
            "end_form": EndForm(
                initial={**version, "kind": obj.end_kind, "side": obj.end_side}, auto_id="end_%s"
            ),
            "correction_form": CorrectionForm(initial=version, auto_id="correct_%s"),
            "correction_tokens": tokens,
            "penalty_form": PenaltyForm(
                pairs=Pair.objects.filter(pk__in=obj.pair_ids).order_by("number"),
                auto_id="penalty_%s",
            ),
            "level_choices": [(lv, level_label(lv)) for lv in range(2, PAST_ACE)],
        },
    )


def _table_action(
    request: HttpRequest,
    tournament: Tournament,
    number: int,
    table_number: int,
    form_class: type[forms.Form],
    call: Callable[[Table, Any], Any],
    success: str,
) -> HttpResponse:
    """The shape of every table POST: validate the form, call ONE service with the version the
    page was rendered with, say what happened, redirect back to the sheet (PRG)."""
    table = _table(tournament, number, table_number)
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
    return redirect("scoring:table", tournament.slug, number, table_number)


@require_POST
@referee_required
def table_event(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """One tap of the grid (or a foul button): append the event."""
    return _table_action(
        request,
        tournament,
        number,
        table,
        EventForm,
        lambda t, f: enter_event(
            t, f.cleaned_data["token"], request.user, f.cleaned_data["version"], Via.REFEREE
        ),
        "",
    )


@require_POST
@referee_required
def table_foul(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """犯规 in one step: the deal ends (the other side +3) and the 犯规 penalty is recorded for
    the offending pair (RULES.md §3), both or neither."""

    def call(t: Table, f: Any) -> None:
        record_foul(
            t,
            f.cleaned_data["side"],
            request.user,
            f.cleaned_data["version"],
            reason=f.cleaned_data["reason"],
        )

    return _table_action(
        request, tournament, number, table, FoulForm, call, _("已记录犯规，并记入判罚")
    )


@require_POST
@referee_required
def table_award(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """升级调整: a level award as an event of the match (RULES.md §3)."""
    return _table_action(
        request,
        tournament,
        number,
        table,
        AwardForm,
        lambda t, f: enter_event(t, f.token, request.user, f.cleaned_data["version"], Via.REFEREE),
        _("已记录升级调整"),
    )


@require_POST
@referee_required
def table_undo(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    return _table_action(
        request,
        tournament,
        number,
        table,
        VersionForm,
        lambda t, f: undo_last_event(t, request.user, f.cleaned_data["version"], Via.REFEREE),
        _("已撤销最后一条记录"),
    )


@require_POST
@referee_required
def table_start(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """迟到: the start levels from the lateness (RULES.md §2)."""
    return _table_action(
        request,
        tournament,
        number,
        table,
        LatenessForm,
        lambda t, f: set_start_levels(
            t,
            f.cleaned_data["start_ns"],
            f.cleaned_data["start_ew"],
            request.user,
            f.cleaned_data["version"],
        ),
        _("已设置起始级"),
    )


@require_POST
@referee_required
def table_end(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """弃权 / 判负 of one side, or clearing it."""
    return _table_action(
        request,
        tournament,
        number,
        table,
        EndForm,
        lambda t, f: set_end(
            t,
            f.cleaned_data["kind"],
            f.cleaned_data["side"],
            request.user,
            f.cleaned_data["version"],
        ),
        _("已记录结束方式"),
    )


@require_POST
@referee_required
def table_submit(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """The enterer declares the sheet complete; a second referee confirms it."""
    return _table_action(
        request,
        tournament,
        number,
        table,
        VersionForm,
        lambda t, f: mark_entered(t, request.user, f.cleaned_data["version"], Via.REFEREE),
        _("已提交，请另一名裁判确认"),
    )


@require_POST
@referee_required
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
        lambda t, f: confirm_table(t, request.user, f.cleaned_data["version"]),
        _("成绩已确认"),
    )


@require_POST
@chief_referee_required
def table_correct(
    request: HttpRequest, tournament: Tournament, number: int, table: int
) -> HttpResponse:
    """裁判长更正: replace a confirmed table's events, start and end, with a reason."""
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
        ),
        _("成绩已更正，并记入日志"),
    )


# --------------------------------------------------------------------------------------------
# Penalties


def _penalty_scope(
    tournament: Tournament, round_number: Any, table_number: Any
) -> tuple[Round | None, Table | None]:
    """The round/table a penalty form was posted from (hidden fields), or 404."""
    rnd = table = None
    if round_number not in (None, ""):
        rnd = _round(tournament, _positive(round_number))
        if table_number not in (None, ""):
            table = get_object_or_404(
                Table.objects.select_related("round__tournament"),
                round=rnd,
                number=_positive(table_number),
                is_bye=False,
            )
    return rnd, table


def _positive(value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise Http404 from None
    if number < 1:
        raise Http404
    return number


def _scope_pairs(tournament: Tournament, rnd: Round | None, table: Table | None) -> Any:
    if table is not None:
        return Pair.objects.filter(pk__in=table.pair_ids).order_by("number")
    if rnd is not None:
        return _round_pairs(rnd)
    return Pair.objects.filter(tournament=tournament).order_by("number")


@require_POST
@referee_required
def penalty_new(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Record a penalty from the table page or the round page (RULES.md §3)."""
    rnd, table = _penalty_scope(tournament, request.POST.get("round"), request.POST.get("table"))
    form = PenaltyForm(request.POST, pairs=_scope_pairs(tournament, rnd, table))
    fallback = reverse("scoring:penalties", args=[tournament.slug])
    target = safe_next(request, request.POST.get("next"), fallback)
    if not form.is_valid():
        _form_errors(request, form)
        return redirect(target)
    data = form.cleaned_data
    try:
        penalty = record_penalty(
            tournament,
            data["pair"],
            data["kind"],
            request.user,
            reason=data["reason"],
            round=rnd,
            table=table,
            deal=data["deal"],
            jcf=data["jcf"],
        )
    except ServiceError as error:
        _service_message(request, error)
    else:
        messages.success(
            request,
            _("已记录判罚：第%(pair)s对 %(kind)s")
            % {"pair": penalty.pair.number, "kind": penalty.get_kind_display()},
        )
    return redirect(target)


@require_POST
@referee_required
def penalty_escalate(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Confirm the suggested escalation (two warnings → 违例 …); at a table the score effect
    (a foul, a 判负) is applied too, compare-and-swap on the table's version."""
    form = EscalationForm(request.POST)
    fallback = reverse("scoring:penalties", args=[tournament.slug])
    if not form.is_valid():
        _form_errors(request, form)
        return redirect(fallback)
    data = form.cleaned_data
    rnd, table = _penalty_scope(tournament, data["round"], data["table"])
    pair = get_object_or_404(_scope_pairs(tournament, rnd, table), number=data["pair"])
    target = safe_next(request, data["next"], fallback)
    try:
        penalty = apply_escalation(
            pair, rnd, request.user, table=table, expected_version=data["version"]
        )
    except ServiceError as error:
        _service_message(request, error)
    else:
        messages.success(
            request,
            _("已按累计升级判罚：第%(pair)s对 %(kind)s")
            % {"pair": pair.number, "kind": penalty.get_kind_display()},
        )
    return redirect(target)


def round_suggestions(rnd: Round) -> list[dict[str, Any]]:
    """Every escalation due in a round, from one aggregate query (the rule is the pure
    ``escalation_from_counts``)."""
    counts: dict[int, dict[tuple[str, bool], int]] = {}
    rows = (
        Penalty.objects.filter(round=rnd)
        .values_list("pair_id", "kind", "escalation")
        .annotate(n=Count("id"))
        .order_by()
    )
    for pair_id, kind, escalated, n in rows:
        counts.setdefault(pair_id, {})[(kind, escalated)] = n
    due = {pk: escalation_from_counts(c) for pk, c in counts.items()}
    due = {pk: s for pk, s in due.items() if s is not None}
    if not due:
        return []
    pairs = Pair.objects.filter(pk__in=due).prefetch_related(
        Prefetch("players", queryset=Player.objects.order_by("position"))
    )
    return [
        {
            "pair": pair,
            "kind_label": Penalty.Kind(due[pair.pk].kind).label,
            "because_label": Penalty.Kind(due[pair.pk].because_of).label,
            "count": due[pair.pk].count,
        }
        for pair in sorted(pairs, key=lambda p: p.number)
    ]


PENALTIES_PER_PAGE = 100


@role_required(*VIEW_ROLES)
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
        },
    )


# --------------------------------------------------------------------------------------------
# At the table (no login: the secret link is the key; RULES.md §7 South enters, West confirms)

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
            "event_url": reverse("scoring:tableside_event", args=[token]),
            "undo_url": reverse("scoring:tableside_undo", args=[token]),
            "submit_url": reverse("scoring:tableside_submit", args=[token]),
            "confirm_url": reverse("scoring:tableside_confirm", args=[token]),
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
    return redirect("scoring:tableside", table.entry_token)


@require_POST
@_tableside
def tableside_event(request: HttpRequest, table: Table) -> HttpResponse:
    """South taps a deal (deals only; fouls and awards are the referee's)."""
    return _tableside_action(
        request,
        table,
        DealForm,
        lambda t, f: enter_event(
            t, f.cleaned_data["token"], None, f.cleaned_data["version"], Via.TABLE
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
        lambda t, f: undo_last_event(t, None, f.cleaned_data["version"], Via.TABLE),
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
        lambda t, f: mark_entered(t, None, f.cleaned_data["version"], Via.TABLE),
        _("已提交。请西家输入东西方的对号密码确认。"),
    )


@require_POST
@_tableside
def tableside_confirm(request: HttpRequest, table: Table) -> HttpResponse:
    """West confirms with the East–West pair's code; then only a referee can change the table.
    Wrong codes are counted per table (a shared cache) so the code cannot be guessed."""
    key = _code_key(table)
    if cache.get(key, 0) >= CODE_ATTEMPTS:
        messages.error(request, _("密码错误次数过多，请稍后再试或联系裁判。"))
        return redirect("scoring:tableside", table.entry_token)

    def confirm(t: Table, f: Any) -> None:
        try:
            confirm_table_by_pair_code(t, f.cleaned_data["code"], f.cleaned_data["version"])
        except ServiceError as error:
            if error.code == "bad_pair_code":
                cache.add(key, 0, CODE_LOCK_SECONDS)
                try:
                    cache.incr(key)
                except ValueError:  # expired in between
                    cache.set(key, 1, CODE_LOCK_SECONDS)
            raise

    return _tableside_action(
        request, table, PairCodeForm, confirm, _("成绩已确认。谢谢！如需更改，请联系裁判。")
    )
