"""The score sheet as the referee sees it: the engine's ``MatchResult`` turned into rows and a
summary (levels as players write them, who is on stage, the running 级差), the tap buttons, a
table's state and its history lines.

Presentation only: no template ever computes a domain rule, and nothing here touches the
database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from rules.errors import RuleError
from rules.events import Side, deal_from_places, parse_event
from rules.levels import LOWEST, PAST_ACE, level_label
from rules.ruleset import RuleSet
from scoring.engine import MatchResult, Step, extra_deal_allowed
from scoring.facts import MatchFacts, score_games, score_table
from scoring.rules_data import tap_tokens
from tournaments.messages import describe_rule_error
from tournaments.models import AuditEntry
from tournaments.wording import (
    EXTRA_DEAL,
    audit_sentence,
    describe_event,
    end_label,
    place_label,
    side_label,
    table_state,
    table_state_label,
)


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


def tap_grid(rules: RuleSet | None = None) -> tuple[tuple[TapButton, ...], ...]:
    """The six deal buttons (NS/EW × partner 2nd/3rd/last), one row per side, built from the
    core's ``deal_from_places`` so the button and the rule can never disagree; each says the
    levels it gives by ``rules`` (RULES.md §9 ``upgrades``: +3/+2/+1 by default; a deal-points
    match: 3/2/1 points)."""
    gains = (3, 2, 1) if rules is None or rules.deal_points else rules.upgrades.values
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
                    upgrade=gains[3 - event.upgrade],
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
    note: str  # 打A / 过A / 回到2 / 加打一副
    extra: bool = False  # the extra deal of a level tie (``tie: extra_deal``)


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
    passed_a: str = ""  # "NS" / "EW" once a side passed A (no 判负 any more)
    extra_deal_next: bool = False  # the levels are tied: the next deal is the extra deal
    match: MatchState | None = None  # a knockout match played best of n (RULES.md §8)
    # A timed match or game on equal levels (``tie: extra_deal``): "到时：加打一副" is offered
    # (``scoring.services.call_time``) and the sheet cannot be submitted as a draw.
    may_call_time: bool = False
    # The extra deal of a tie was played: it is counted apart from the regular deals ("8/8+1";
    # a timed game "12+1", issue 28).
    extra_played: bool = False
    # RULES.md §9 deal points: the levels shown are the sides' points.
    points: bool = False

    @property
    def events(self) -> int:
        return len(self.rows)

    @property
    def deals_label(self) -> str:
        regular = self.deals - 1 if self.extra_played else self.deals
        label = str(regular) if self.max_deals is None else f"{regular}/{self.max_deals}"
        return f"{label}+1" if self.extra_played else label


# The sheet's notes and status lines, worded once: ``_a_note`` and ``sheet_from_result`` use them,
# and ``sheet_words`` hands them to the page's offline sheet (static/js/sheet-rules.js).
NOTES = {
    "reset_stage": gettext_noop("%(side)s第%(n)s次上台打A被推翻，回到2"),
    "fail_stage": gettext_noop("%(side)s第%(n)s次上台打A被推翻"),
    "reset": gettext_noop("%(side)s打A%(n)s次未过，回到2"),
    "past_ace": gettext_noop("过A"),
    "attempt": gettext_noop("%(side)s打A"),
}
STATUS = {
    "passed_a": gettext_noop("%(side)s过A，比赛结束"),
    "extra_played": gettext_noop("加打一副后比赛结束"),
    "extra_next": gettext_noop("双方级数相同：加打一副决定胜负"),
    "extra_next_points": gettext_noop("双方积分相同：加打一副决定胜负"),
    "extra_from_two": gettext_noop("从2打"),
    "all_played": gettext_noop("%(n)s副已打完"),
}


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game of a best-of-n match on the sheet: its final levels and winner."""

    number: int
    ns_level: str
    ew_level: str
    winner: str  # "NS" / "EW" / "" while the game goes on
    winner_label: str


@dataclass(frozen=True, slots=True)
class MatchState:
    """Where a best-of-n knockout match stands (RULES.md §8, 三局两胜): the game being played,
    the games each side has won, who leads, every game so far."""

    best_of: int
    game: int  # the game the sheet's rows belong to (the current one)
    ns_games: int
    ew_games: int
    leader: str  # "NS" / "EW" / "" (level)
    leader_label: str
    winner: str  # the match's winner once decided, else ""
    games: tuple[GameLine, ...]
    status_line: str
    # A timed game (计时制 / 计时计副制) ends when the referee calls time: on equal levels (tie
    # extra_deal) by "到时：加打一副" (``scoring.services.call_time``); otherwise, when the match
    # goes on, by closing the game (``start_game``), else by submitting the sheet.
    may_call_time: bool = False
    may_close_game: bool = False


def build_match_sheet(
    games: Sequence[MatchFacts], rules: RuleSet, best_of: int, *, with_rows: bool = True
) -> Sheet:
    """The sheet of a knockout table (``rules``: the stage's): the current game's rows and
    levels (game 2 starts from 2 : 2) and the match so far (``MatchState``). When a game is
    over and the match is not, the sheet is not finished: the next deal opens the next game.
    A match in one game (best of 1) shows the same, with its winner decided by the extra deal
    on a level tie."""
    current = games[-1] if games else MatchFacts.from_columns()
    sheet = build_sheet(current, rules, with_rows=with_rows)
    try:
        series = score_games(games or (current,), rules, best_of, closed=False)
    except RuleError as error:
        return replace(sheet, error=sheet.error or rule_error_message(error))
    lines = tuple(
        GameLine(
            number,
            _level(result.table_ns_level),
            _level(result.table_ew_level),
            "" if winner is None else winner.value,
            side_label(winner) if winner is not None else "",
        )
        for number, (result, winner) in enumerate(
            zip(series.games, series.winners, strict=True), start=1
        )
    )
    ns_games, ew_games = series.wins(Side.NS), series.wins(Side.EW)
    leader = series.leader
    if series.winner is not None:
        status = _("%(side)s %(won)s : %(lost)s 胜出") % {
            "side": side_label(series.winner),
            "won": max(ns_games, ew_games),
            "lost": min(ns_games, ew_games),
        }
    elif series.next_game is not None:
        status = _("第%(game)s局结束，下一副开始第%(next)s局（从2 : 2打起）") % {
            "game": len(series.games),
            "next": series.next_game,
        }
    else:
        status = ""
    state = MatchState(
        best_of=best_of,
        game=len(series.games),
        ns_games=ns_games,
        ew_games=ew_games,
        leader="" if leader is None else leader.value,
        leader_label=side_label(leader) if leader is not None else _("平"),
        winner="" if series.winner is None else series.winner.value,
        games=lines,
        status_line=status,
    )
    decided = series.winner is not None
    closable = decided
    timed = rules.timed and current.time_deals is None
    if timed and not decided and series.next_game is None and not sheet.error:
        last = series.games[-1]
        level = last.table_ns_level == last.table_ew_level and last.passed_a is None
        if level and last.end is None and rules.tie == "extra_deal":
            # Offered once the game has a deal (and not when the extra deal is already due).
            may = bool(sheet.rows) and not sheet.extra_deal_next
            state = replace(state, may_call_time=may)
        elif sheet.rows:
            try:
                closed = score_games(games or (current,), rules, best_of, closed=True)
            except RuleError:
                closed = None
            # Time called on unequal levels decides the game: the match, or the next game.
            closable = closed is not None and closed.winner is not None
            state = replace(state, may_close_game=closed is not None and not closable)
    return replace(
        sheet,
        match=state,
        may_call_time=state.may_call_time,
        finished=decided,
        closable=closable,
        status_line=status or sheet.status_line,
    )


def _level(level: int) -> str:
    """A level as the page shows it: "2" … "A", and 过A in the active language."""
    return _("过A") if level == PAST_ACE else level_label(level)


def match_finished(result: MatchResult, rules: RuleSet) -> bool:
    """No further event may be entered: 过A, an end, the extra deal played, or all the round's
    deals played — unless the levels are tied and the rules play one extra deal
    (``scoring.engine.extra_deal_allowed``, RULES.md §2 "Level tie")."""
    if result.finished:
        return True
    max_deals = rules.max_deals
    if max_deals is None or result.deals_played < max_deals:
        return False
    return not extra_deal_allowed(result, rules)


def _a_note(step: Step, result: MatchResult, stage_failures: dict[Side, int]) -> str:
    """What the sheet notes about an attempt at A (RULES.md §1 "Failed attempts at A"): with
    ``a_fail_count: stage`` each time a side on stage at its own A is knocked off is counted
    ("第2次上台打A被推翻"); a reset to 2 names the tournament's ``a_attempts``."""
    failure, reset = step.a_failure, step.reset_to_2
    stage = result.a_fail_count == "stage"
    if stage and failure is not None:
        stage_failures[failure] = stage_failures.get(failure, 0) + 1
        count = stage_failures[failure]
        if reset is not None:
            stage_failures[reset] = 0
            return _(NOTES["reset_stage"]) % {
                "side": side_label(reset),
                "n": count,
            }
        return _(NOTES["fail_stage"]) % {"side": side_label(failure), "n": count}
    if reset is not None:
        return _(NOTES["reset"]) % {
            "side": side_label(reset),
            "n": result.a_attempts,
        }
    if step.event.is_deal and max(step.ns_level, step.ew_level) == PAST_ACE:
        return _(NOTES["past_ace"])
    if step.attempt_at_a is not None:
        return _(NOTES["attempt"]) % {"side": side_label(step.attempt_at_a)}
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
    max_deals = rules.max_deals
    limit = result.regular_deals
    points = result.points is not None
    upgrades = result.upgrades_table
    # In a deal-points match (RULES.md §9) the sheet's level columns are the sides' points.
    shown = str if points else _level
    stage_failures: dict[Side, int] = {}
    for step in result.steps if with_rows else ():
        note = "" if points else _a_note(step, result, stage_failures)
        extra = limit is not None and step.deal_number is not None and step.deal_number > limit
        if extra:
            words = _(EXTRA_DEAL)
            if result.extra_from_two:
                words = f"{words}（{_(STATUS['extra_from_two'])}）"
            note = f"{words}；{note}" if note else words
        rows.append(
            SheetRow(
                number=step.position + 1,
                deal_number=step.deal_number,
                kind=step.event.kind.value,
                token=step.event.token,
                description=describe_event(step.event, (3, 2, 1) if points else upgrades),
                level_played=_level(step.level_played) if step.level_played else "",
                # A level award is not a deal: nobody was "on stage" for it.
                on_stage=side_label(step.on_stage) if step.level_played else "",
                ns_level=shown(step.ns_level),
                ew_level=shown(step.ew_level),
                note=note,
                extra=extra,
            )
        )
    on_stage = result.on_stage
    if on_stage is None:
        next_level = min(result.table_ns_level, result.table_ew_level)
    else:
        next_level = result.table_ns_level if on_stage is Side.NS else result.table_ew_level
    if result.extra_from_two and extra_deal_allowed(result, rules):
        next_level = LOWEST  # RULES.md §9: the extra deal is played at 2 by both sides
    all_played = max_deals is not None and result.deals_played >= max_deals
    finished = match_finished(result, rules)
    extra_next = extra_deal_allowed(result, rules)
    if result.forfeit is not None:
        status = _("%(side)s弃权") % {"side": side_label(result.forfeit)}
    elif result.penalty_loss is not None:
        status = _("%(side)s判负") % {"side": side_label(result.penalty_loss)}
    elif result.late_sheet is not None:
        # RULES.md §2 "Late scoresheet": the play stands, the late side is scored a forfeit loss.
        status = _("%(side)s迟交记分表（按弃权记分）") % {"side": side_label(result.late_sheet)}
    elif result.passed_a is not None:
        status = _(STATUS["passed_a"]) % {"side": side_label(result.passed_a)}
    elif result.extra_deal:
        status = _(STATUS["extra_played"])
    elif extra_next:
        status = _(STATUS["extra_next_points" if points else "extra_next"])
    elif all_played:
        status = _(STATUS["all_played"]) % {"n": result.deals_played}
    else:
        status = events_note
    leader = "" if result.winner is None else result.winner.value
    ns_shown, ew_shown = result.points or (result.table_ns_level, result.table_ew_level)
    recorded = result.points or (result.ns_level, result.ew_level)
    return Sheet(
        rows=tuple(rows),
        ns_level=shown(ns_shown),
        ew_level=shown(ew_shown),
        recorded_ns_level=shown(recorded[0]),
        recorded_ew_level=shown(recorded[1]),
        next_level="" if finished else _level(next_level),
        on_stage="" if on_stage is None else on_stage.value,
        on_stage_label=side_label(on_stage),
        deals=result.deals_played,
        max_deals=max_deals,
        jc=result.jc,
        leader=leader,
        leader_label=side_label(result.winner) if leader else _("平"),
        finished=finished,
        # 计时制 / 计时计副制 (RULES.md §2): the referee closes the match when time is called,
        # not while the extra deal of a level tie is due.
        closable=finished or (rules.timed and result.deals_played > 0 and not extra_next),
        status_line=status,
        ns_jcf=result.ns_jcf,
        ew_jcf=result.ew_jcf,
        ns_cf=result.ns_cf,
        ew_cf=result.ew_cf,
        error=error,
        passed_a="" if result.passed_a is None else result.passed_a.value,
        extra_deal_next=extra_next,
        extra_played=result.extra_deal,
        points=points,
    )


def build_sheet(facts: MatchFacts, rules: RuleSet, *, with_rows: bool = True) -> Sheet:
    """Score a table's stored facts (``scoring.facts``) and word them. A sequence the engine
    refuses (it can only happen if the rules changed after entry) is shown as far as it goes,
    with the refusal. A game where the referee called time on equal levels is worded by the
    rules of that call (``MatchFacts.rules``: the extra deal next)."""
    timed_tie = (
        facts.time_deals is None and rules.timed and rules.tie == "extra_deal" and facts.end is None
    )
    rules = facts.rules(rules)
    try:
        sheet = sheet_from_result(score_table(facts, rules), rules, with_rows=with_rows)
    except RuleError as error:
        good = facts.tokens[: error.position or 0]
        message = rule_error_message(error)
        try:
            partial = score_table(MatchFacts(facts.start, None, good), rules)
        except RuleError:
            partial = score_table(MatchFacts.from_columns(), rules)
        return sheet_from_result(partial, rules, error=message, with_rows=with_rows)
    if timed_tie and sheet.ns_level == sheet.ew_level and not sheet.passed_a:
        # Level when time is called: the extra deal decides (RULES.md §2), never a draw.
        may = sheet.deals > 0 and not sheet.extra_deal_next
        return replace(sheet, may_call_time=may, closable=False)
    return sheet


def sheet_state(sheet: Sheet, facts: MatchFacts, version: int) -> dict[str, Any]:
    """The sheet as JSON, for a tap's answer and the page's offline outbox (issue 16): what the
    page shows (already worded, as in ``Sheet``), plus the facts the page replays its waiting
    taps on (``tokens`` from ``start``) and the table's ``version`` the next tap must carry."""
    return {
        "version": version,
        "start": [facts.start.ns, facts.start.ew],
        "ended": facts.end is not None,
        "tokens": list(facts.tokens),
        "time_deals": facts.time_deals,
        "rows": [
            {
                "number": row.number,
                "deal_number": row.deal_number,
                "kind": row.kind,
                "token": row.token,
                "description": row.description,
                "level_played": row.level_played,
                "on_stage": row.on_stage,
                "ns_level": row.ns_level,
                "ew_level": row.ew_level,
                "note": row.note,
            }
            for row in sheet.rows
        ],
        "ns_level": sheet.ns_level,
        "ew_level": sheet.ew_level,
        "recorded_ns_level": sheet.recorded_ns_level,
        "recorded_ew_level": sheet.recorded_ew_level,
        "next_level": sheet.next_level,
        "on_stage": sheet.on_stage,
        "deals": sheet.deals,
        "deals_label": sheet.deals_label,
        "jc": sheet.jc,
        "leader": sheet.leader,
        "leader_label": sheet.leader_label,
        "finished": sheet.finished,
        "closable": sheet.closable,
        "status_line": sheet.status_line,
        "ns_jcf": sheet.ns_jcf,
        "ew_jcf": sheet.ew_jcf,
        "ns_cf": sheet.ns_cf,
        "ew_cf": sheet.ew_cf,
        "error": sheet.error,
        "may_call_time": sheet.may_call_time,
        # A knockout match (best of n): where it stands; the page fetches its block afresh
        # when this changes (a game over, the match decided).
        "match": None
        if sheet.match is None
        else {
            "game": sheet.match.game,
            "ns_games": sheet.match.ns_games,
            "ew_games": sheet.match.ew_games,
            "winner": sheet.match.winner,
            "may_close_game": sheet.match.may_close_game,
        },
        "extra_deal_next": sheet.extra_deal_next,
    }


def sheet_words(rules: RuleSet | None = None) -> dict[str, Any]:
    """The words the page's offline sheet needs, in the active language, from the same
    catalogue as the server's sheet (``NOTES``, ``STATUS``, ``tournaments.wording``); the
    events described with ``rules``' upgrades (RULES.md §9)."""
    upgrades = (3, 2, 1) if rules is None else rules.upgrades.values
    return {
        "levels": {str(level): _level(level) for level in range(2, PAST_ACE + 1)},
        "sides": {"NS": side_label("NS"), "EW": side_label("EW"), "": side_label(None)},
        "draw": _("平"),
        "extra_deal": _(EXTRA_DEAL),
        "describe": {token: describe_event(parse_event(token), upgrades) for token in tap_tokens()},
        "notes": {key: _(text) for key, text in NOTES.items()},
        "status": {key: _(text) for key, text in STATUS.items()},
    }


def rule_error_message(error: RuleError) -> str:
    """The translated sentence for an engine error code (``tournaments.messages``)."""
    return str(describe_rule_error(error))


# --------------------------------------------------------------------------------------------
# Dashboard status (pure)


class TableStatus:
    """The desk's status of a table: the states of ``tournaments.wording.table_state`` and
    ``problem``."""

    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    ENTERED = "entered"
    CONFIRMED = "confirmed"
    CORRECTED = "corrected"
    PROBLEM = "problem"
    BYE = "bye"
    ORDER = (NOT_STARTED, IN_PROGRESS, ENTERED, CONFIRMED, PROBLEM)

    @staticmethod
    def label(status: str) -> str:
        """The status in words (``tournaments.wording.TABLE_STATES``)."""
        return table_state_label(status)


def table_status(
    entry_status: str,
    is_bye: bool,
    has_facts: bool,
    sheet: Sheet | None,
    *,
    corrected: bool = False,
) -> str:
    """Pure: the desk status, ``tournaments.wording.table_state`` unless the table has a
    problem: a sheet the engine refuses, or a table marked entered/confirmed whose sheet is not
    a finished match (e.g. fewer deals than the round)."""
    if not is_bye:
        if sheet is not None and sheet.error:
            return TableStatus.PROBLEM
        if entry_status in ("entered", "confirmed") and sheet is not None and not sheet.finished:
            return TableStatus.PROBLEM
    return table_state(entry_status, is_bye=is_bye, has_facts=has_facts, corrected=corrected)


def describe_snapshot(snapshot: Any) -> str:
    """An audit entry's before/after (``scoring.facts.snapshot``) in one short line."""
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
        word = end_label(str(kind))
        parts.append(f"{side_label(str(side).upper())}{word}")
    known = {"start", "deals", "end", "status", "version"}
    for key, value in snapshot.items():
        if key not in known:
            parts.append(f"{key}={value}")
    return " · ".join(parts)


def history_row(entry: AuditEntry) -> dict[str, Any]:
    """One line of a table's history: the change in a sentence ("第5副：南北上游 对家二游 →
    对家三游", ``tournaments.wording.audit_sentence``); else the snapshots in a short line,
    "before" only when it differs from "after"."""
    before, after = describe_snapshot(entry.before), describe_snapshot(entry.after)
    return {
        "entry": entry,
        "sentence": audit_sentence(entry.action, entry.before, entry.after),
        "before": "" if before == after else before,
        "after": after,
    }
