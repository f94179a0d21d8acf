"""Result services: enter and undo events, lateness, forfeit/判负, confirm, correct — the public
entry of every write to a table's result (``start_game`` and ``call_time`` are
``scoring.games``'s, named here too).

Elsewhere: the opening of every write (``scoring.writes``: the lock, the checks, the
compare-and-swap, the audit), what a stage's kind means for entry and correction — one game or
a best-of-n series, the referee's clock (``scoring.games``), the confirmed results read for the
standings (``scoring.results``), penalties (``scoring.penalties``), who may impose what
(``scoring.penalty_records``), one-time keys (``scoring.once``), the two-party rule
(``scoring.parties``).

May touch: ``tournaments.models.Table`` (its result fields), ``scoring`` models, ``Pair.status`` (a
disqualification), ``Tournament.results_version`` (read by the standings cache), and the pure core
(``scoring.engine``, ``scoring.standings``). Never re-pairs a round (RULES.md §5).

Concurrency (STYLE.md): every write runs in ``transaction.atomic()``, locks the table row with
``select_for_update()`` first (``scoring.writes.open_table``, with every check a write makes
first), checks the caller's ``expected_version`` and finishes with a compare-and-swap
``filter(pk=, version=v).update(version=F("version") + 1, …)`` (``scoring.writes.cas``); a row
count other than 1 raises ``ConflictError`` and the transaction rolls back, so nothing half-written
stays. The CAS is what protects SQLite (no row locks; writers are serialised by its IMMEDIATE
transactions) and anybody holding a stale page. ``TableEvent``'s unique (table, position) is the
last line of defence against a doubled event.

Every change of a result after it was entered (undo, an added event, start/end changes on an
entered table), every confirmation and every correction writes an ``AuditEntry``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.utils import timezone

from rules.errors import RuleError
from rules.events import Event, EventKind, Side, parse_event
from scoring.corrections import Edit, ErrorKind, apply_edit
from scoring.deadlines import round_deadlines, too_late_params
from scoring.engine import End, Start
from scoring.facts import (
    MatchFacts,
    end_of,
    snapshot,
    start_of,
    table_facts,
    table_tokens,
)
from scoring.games import (
    call_time,
    change_current_game,
    check_tap,
    corrected_games,
    current_game,
    match_games,
    score_match_of,
    start_game,
    undo_game_or_time_call,
    write_games,
)
from scoring.parties import (
    TableEntries,
    enterer_ids,
    entering_pairs,
    pair_of_code,
    read_entries,
    referee_submitted,
    sign_step,
)
from scoring.penalty_records import (
    check_event_authority,
    require_authority,
    withdraw_foul_penalty,
)
from tournaments.errors import ServiceError, from_rule_error
from tournaments.models import AuditEntry, Pair, Table
from tournaments.permissions import (
    CORRECTION_ROLES,
    DEADLINE_OVERRIDE_ROLES,
    has_role,
    require_role,
)
from tournaments.services import account, actor_name, bump_results_version

from .models import Penalty, Signoff, TableEvent, Via
from .writes import CONFIRMED, TableAt, audit_table, cas, lock_table, open_table, touched_by

__all__ = [
    "TableAt",
    "call_time",
    "confirm_table",
    "confirm_table_by_pair_code",
    "correct_result",
    "correct_table",
    "enter_event",
    "enterer_ids",
    "lock_table",
    "mark_entered",
    "set_end",
    "set_start_levels",
    "start_game",
    "undo_last_event",
]

# --------------------------------------------------------------------------------------------
# Entry at the table


def enter_event(
    table: Table | TableAt,
    token: str | Event,
    user: Any,
    expected_version: int | None,
    via: str = Via.REFEREE,
    *,
    pair: Pair | int | None = None,
) -> Table:
    """Append one event (``NS3``, ``foul:EW``, ``adjust:NS+2``) to a table of a published round.

    The whole new sequence is checked by ``score_match(complete=False)``: a deal after 过A, more
    deals than the round allows or a bad token are refused with the engine's code and the
    1-based ``position``. Returns the locked table with its new ``version``.

    One tap, one read: the table row is read once (locked, with its round, tournament and
    pairs), its events once; an ``Event`` the form already parsed is not parsed again; the new
    sequence is scored once (a best-of-n series: each game once, ``scoring.games.check_tap``).
    """
    with transaction.atomic():
        locked, pair = open_table(table, user, expected_version, via=via, pair=pair)
        if locked.end_kind:
            raise ServiceError("table_ended")
        facts = table_facts(locked)
        tokens = facts.tokens
        if isinstance(token, Event):
            event = token
        else:
            try:
                event = parse_event(token, len(tokens))
            except RuleError as exc:
                raise from_rule_error(exc) from exc
        check_event_authority(locked, event, user, via)
        new_tokens = [*tokens, event.token]
        check_tap(locked, facts, event.token)
        before = snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        TableEvent.objects.create(
            table=locked,
            position=len(tokens),
            token=event.token,
            entered_by=account(user),
            entered_via=via,
            entered_pair=pair,
        )
        fields = {"entry_status": Table.EntryStatus.OPEN} if was_entered else {}
        cas(locked, **touched_by(locked, user, fields))
        # After a submission every change is audited, the replacing deal as well as the undo.
        if was_entered or locked.entered_at is not None:
            after = snapshot(locked, new_tokens)
            audit_table(locked, AuditEntry.Action.ENTER_EVENT, user, before, after, via=via)
    return locked


def undo_last_event(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    via: str = Via.REFEREE,
    *,
    pair: Pair | int | None = None,
) -> Table:
    """Remove the last event, before confirmation only (afterwards: ``correct_result``).

    Undoing a foul withdraws its 犯规 penalty record in the same transaction; removing a foul,
    a 本副判负 or a level award needs the authority to impose it (never the table link)."""
    with transaction.atomic():
        locked, pair = open_table(table, user, expected_version, via=via, pair=pair)
        tokens = table_tokens(locked)
        if undo_game_or_time_call(locked, tokens, user):
            return locked
        if not tokens:
            raise ServiceError("no_events")
        last = parse_event(tokens[-1], len(tokens) - 1)
        check_event_authority(locked, last, user, via)
        before = snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        TableEvent.objects.filter(table=locked, position=len(tokens) - 1).delete()
        if last.kind is EventKind.FOUL:
            withdraw_foul_penalty(locked, last, user)
        fields = {"entry_status": Table.EntryStatus.OPEN} if was_entered else {}
        cas(locked, **touched_by(locked, user, fields))
        if was_entered:
            after = snapshot(locked, tokens[:-1])
            audit_table(locked, AuditEntry.Action.UNDO_EVENT, user, before, after, via=via)
    return locked


def set_start_levels(
    table: Table | TableAt, ns: int, ew: int, user: Any, expected_version: int | None
) -> Table:
    """Lateness (RULES.md §2): the punctual side starts at 3 (0–5 min) or 4 (5–10 min).

    Locked once a deal is entered (issue 15: a changed start silently re-scored every deal
    played from it): then only the chief referee changes it, audited, and after the
    confirmation as a correction (``correct_table``)."""
    return _change_start_or_end(
        table,
        user,
        expected_version,
        {"start_ns": ns, "start_ew": ew},
        AuditEntry.Action.SET_START,
        start=start_of(ns, ew),
        locked_after_events=True,
    )


def _parse_end(kind: str, side: str | Side | None) -> tuple[str, str]:
    kind = kind or ""
    if kind == "":
        return "", ""
    side_text = str(side or "").upper()
    ends = (Table.EndKind.FORFEIT, Table.EndKind.PENALTY_LOSS, Table.EndKind.LATE_SHEET)
    if kind not in ends or side_text not in (
        "NS",
        "EW",
    ):
        raise ServiceError("bad_end")
    return kind, side_text


def set_end(
    table: Table | TableAt,
    kind: str,
    side: str | Side | None,
    user: Any,
    expected_version: int | None,
) -> Table:
    """Forfeit (弃权), 判负 or late scoresheet of ``side`` (the absent / penalised / late side);
    ``kind=""`` clears it.

    The events already listed stay (判负 is "after the listed deals", RULES.md §2).
    """
    kind, side_text = _parse_end(kind, side)

    def authorise(locked: Table) -> None:
        # Setting or lifting a 判负 is the chief referee's (RULES.md §3 "Who may impose what").
        if Table.EndKind.PENALTY_LOSS in (kind, locked.end_kind):
            require_authority(user, locked.round.tournament, Penalty.Kind.PENALTY_LOSS)

    return _change_start_or_end(
        table,
        user,
        expected_version,
        {"end_kind": kind, "end_side": side_text},
        AuditEntry.Action.SET_END,
        end=end_of(kind, side_text),
        authorise=authorise,
    )


_UNCHANGED: Any = object()


def _change_start_or_end(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    fields: dict[str, Any],
    action: str,
    *,
    start: Start = _UNCHANGED,
    end: End | None = _UNCHANGED,
    authorise: Callable[[Table], None] | None = None,
    locked_after_events: bool = False,
) -> Table:
    """Change a table's start levels or its end, checked by the engine against the events
    already listed. An entered sheet goes back to open, audited (before/after).
    ``locked_after_events``: refused once the table has an event, except to the chief referee,
    whose change is audited whatever the sheet's state."""
    with transaction.atomic():
        locked, _pair = open_table(table, user, expected_version, authorise=authorise)
        tokens = table_tokens(locked)
        # A best-of-n match: the start or end is the current game's (the last game row).
        facts, games = current_game(locked, table_facts(locked, tokens))
        start = facts.start if start is _UNCHANGED else start
        end = facts.end if end is _UNCHANGED else end
        if games:
            fields = change_current_game(locked, fields)
        else:
            changed = MatchFacts(start, end, tuple(tokens), facts.time_deals)
            score_match_of(locked, changed, complete=False, rows=games)
        # After the engine's check (a bad level is "bad_start" first); a refusal rolls back.
        chief_override = False
        if locked_after_events and facts.tokens and start != facts.start:
            # Lateness is locked once a deal is entered (issue 15); the chief may change it.
            if not has_role(user, locked.round.tournament, *CORRECTION_ROLES):
                raise ServiceError("start_locked")
            chief_override = True
        before = snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        fields = dict(fields)
        if account(user) is not None:
            fields["entered_by"] = user
        if was_entered:
            fields["entry_status"] = Table.EntryStatus.OPEN
        cas(locked, **touched_by(locked, user, fields))
        if was_entered or chief_override:
            audit_table(locked, action, user, before, snapshot(locked, tokens))
    return locked


def mark_entered(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    via: str = Via.REFEREE,
    *,
    pair: Pair | int | None = None,
) -> Table:
    """The enterer declares the sheet complete (South at the table, or a referee).

    The sequence must be a complete match (``score_match(complete=True)``: e.g. all 8 deals of
    an 8-deal round, unless a side passed A or the table has an end).
    """
    with transaction.atomic():
        locked, pair = open_table(table, user, expected_version, via=via, pair=pair)
        if locked.entry_status != Table.EntryStatus.OPEN:
            raise ServiceError("table_not_open")
        facts = table_facts(locked)
        tokens = facts.tokens
        score_match_of(locked, facts, complete=True)
        before = snapshot(locked, tokens)
        fields: dict[str, Any] = {
            "entry_status": Table.EntryStatus.ENTERED,
            "entered_at": timezone.now(),
        }
        if account(user) is not None:
            fields["entered_by"] = user
        cas(locked, **touched_by(locked, user, fields))
        sign_step(locked, Signoff.Step.SUBMIT, via, user, pair, before, tokens)
    return locked


def _confirm(
    locked: Table, entries: TableEntries, user: Any, via: str, pair: Pair | None = None
) -> None:
    tokens = entries.tokens
    score_match_of(locked, table_facts(locked, tokens), complete=True)
    before = snapshot(locked, tokens)
    cas(
        locked,
        entry_status=Table.EntryStatus.CONFIRMED,
        confirmed_by=account(user),
        confirmed_via=via,
        confirmed_at=timezone.now(),
    )
    sign_step(locked, Signoff.Step.CONFIRM, via, user, pair, before, tokens)
    bump_results_version(locked.round.tournament_id)


def confirm_table(table: Table | TableAt, user: Any, expected_version: int | None) -> Table:
    """A referee confirms the sheet. Two-person rule (RULES.md §7, issue 4): the confirmer must
    not be anyone who entered an event or set the table's start/end or marked it entered.
    The table's events are read once, for both the rule and the score."""
    with transaction.atomic():
        locked, _pair = open_table(table, user, expected_version)
        entries = read_entries(locked)
        if user is not None and user.pk in enterer_ids(locked, entries.users):
            raise ServiceError("same_person")
        _confirm(locked, entries, user, Via.REFEREE)
    return locked


def confirm_table_by_pair_code(
    table: Table | TableAt, code: str, expected_version: int | None = None, *, user: Any = None
) -> Table:
    """The other pair confirms at the table with its own code (RULES.md §7: both pairs must
    have a say). Only a sheet submitted at the table (``entered``) can be confirmed this way,
    and only by a pair that entered none of its events and did not submit it; a logged-in
    ``user`` who entered through the link is refused too (two-person rule)."""
    with transaction.atomic():
        locked, _pair = open_table(table, user, expected_version, via=None)
        if locked.entry_status != Table.EntryStatus.ENTERED:
            raise ServiceError("table_not_entered")
        if referee_submitted(locked):
            raise ServiceError("table_link_read_only")
        pair = pair_of_code(locked, code)
        entries = read_entries(locked)
        if pair.pk in entering_pairs(locked, entries):
            raise ServiceError("confirmer_entered")
        if account(user) is not None and user.pk in enterer_ids(locked, entries.users):
            raise ServiceError("same_person")
        _confirm(locked, entries, user, Via.TABLE, pair)
    return locked


def _as_start(start: Start | tuple[int, int] | dict[str, int] | None) -> Start:
    if start is None:
        return Start()
    if isinstance(start, Start):
        return start
    if isinstance(start, dict):
        return start_of(int(start.get("ns", 2)), int(start.get("ew", 2)))
    return start_of(int(start[0]), int(start[1]))


def _as_end(end: End | tuple[str, str] | dict[str, str] | None) -> tuple[str, str]:
    if end is None:
        return "", ""
    if isinstance(end, End):
        return end.kind, str(end.side)
    if isinstance(end, dict):  # the file's {"forfeit": "ns"}
        if len(end) != 1:
            raise ServiceError("bad_end")
        ((kind, side),) = end.items()
        return _parse_end(kind, side)
    return _parse_end(end[0], end[1])


def correct_result(
    table: Table | TableAt,
    new_tokens: Sequence[str],
    start: Start | tuple[int, int] | dict[str, int] | None,
    end: End | tuple[str, str] | dict[str, str] | None,
    user: Any,
    reason: str,
    expected_version: int | None = None,
    *,
    error: ErrorKind | str = ErrorKind.ENTRY,
    override: bool = False,
    deadline: bool = True,
    games: Sequence[Mapping[str, Any]] | None = None,
) -> Table:
    """The chief referee replaces a confirmed table's whole result (events, start, end): the
    tournament file and the tests; the sheet corrects one change at a time (``correct_table``).

    A knockout match played best of n (RULES.md §8): ``games`` gives every game as the file
    does (``{"deals": [...], "start": …, "end": …}``, TOURNAMENT_FILE.md "Stages"; then
    ``new_tokens``/``start``/``end`` are not read); without it the events are the whole
    table's, split where its games begin now (so their number must not change), ``start`` is
    game 1's and ``end`` the last game's (a 判负 ends the match).

    Reason required; audited with before/after; the standings recompute (results version bump).
    RULES.md §5: 成绩更正不改变已公布的编排 — a later round already published is left as it is;
    a knockout match whose winner would change once the next round is drawn is refused.
    RULES.md §7: refused after the deadline of an ``error`` of its kind unless ``override``
    (``_check_deadline``); ``deadline=False`` is a ruling, not an error's correction (a 判负
    applied to a confirmed table, ``scoring.penalties.apply_penalty_loss``).
    """
    late = _Late(ErrorKind(error), override) if deadline else None
    if games is not None:
        wanted = tuple(
            MatchFacts(
                _as_start(game.get("start")),
                end_of(*_as_end(game.get("end"))),
                _tokens_of(game.get("deals") or ()),
            )
            for game in games
        )
        return _correct(
            table, lambda _old: wanted, user, reason, expected_version, late, whole=True
        )
    new_start = _as_start(start)
    kind, side_text = _as_end(end)
    facts = MatchFacts(new_start, end_of(kind, side_text), _tokens_of(new_tokens))

    def replaced(old: tuple[MatchFacts, ...]) -> tuple[MatchFacts, ...]:
        if len(old) == 1:
            return (replace(facts, time_deals=old[0].time_deals),)
        bounds = [0]
        for game in old:
            bounds.append(bounds[-1] + len(game.tokens))
        if bounds[-1] != len(facts.tokens):
            raise ServiceError("correct_games_split", games=len(old))
        out = [
            replace(game, tokens=facts.tokens[bounds[i] : bounds[i + 1]])
            for i, game in enumerate(old)
        ]
        out[0] = replace(out[0], start=facts.start)
        out[-1] = replace(out[-1], end=facts.end)
        return tuple(out)

    return _correct(table, replaced, user, reason, expected_version, late)


def _tokens_of(tokens: Iterable[str]) -> tuple[str, ...]:
    events = []
    for position, token in enumerate(tokens):
        try:
            events.append(parse_event(token, position).token)
        except RuleError as exc:
            raise from_rule_error(exc) from exc
    return tuple(events)


def correct_table(
    table: Table | TableAt,
    edit: Edit,
    user: Any,
    reason: str,
    expected_version: int | None = None,
    *,
    error: ErrorKind | str = ErrorKind.ENTRY,
    override: bool = False,
    game: int | None = None,
) -> Table:
    """The chief referee corrects a confirmed table by one change on the sheet (issue 15):
    deal 5 from 二游 to 三游, a deal inserted or deleted, the lateness start or the end changed
    (``scoring.corrections.Edit``). The edit applies to the facts read under the lock; the rest
    is ``correct_result``'s: the engine checks the whole corrected match, audited with the
    reason, the standings recompute; after the deadline of an ``error`` of its kind only with
    the chief referee's ``override`` (RULES.md §7). A knockout match played best of n: the edit
    applies to game ``game`` (1-based; None: the last, the game the sheet shows), its positions
    within it."""

    def corrected(old: tuple[MatchFacts, ...]) -> tuple[MatchFacts, ...]:
        index = len(old) - 1 if game is None else game - 1
        if not 0 <= index < len(old):
            raise ServiceError("bad_game", game=game, games=len(old))
        facts = old[index]
        try:
            start, end, tokens = apply_edit(facts.start, facts.end, facts.tokens, edit)
        except RuleError as exc:
            raise from_rule_error(exc) from exc
        out = list(old)
        out[index] = MatchFacts(start, end, tokens, facts.time_deals)
        return tuple(out)

    return _correct(
        table, corrected, user, reason, expected_version, _Late(ErrorKind(error), override)
    )


@dataclass(frozen=True, slots=True)
class _Late:
    """A correction's error kind (which deadline applies) and whether the chief referee
    overrides a deadline that has passed (RULES.md §7)."""

    error: ErrorKind
    override: bool


def _check_deadline(locked: Table, late: _Late, user: Any) -> dict[str, Any] | None:
    """RULES.md §7: after the deadline of its kind a correction is refused unless the chief
    referee overrides (``DEADLINE_OVERRIDE_ROLES``, the one role check). Returns what the audit
    entry records of an override (None within the deadline)."""
    deadlines = round_deadlines(locked.round)
    deadline = deadlines.of(late.error)
    now = timezone.now()
    if not deadline.passed(now):
        if late.error is ErrorKind.ENTRY or not deadlines.entry.passed(now):
            return None
        # A published-result error declared once the round's entry deadline has passed: its
        # own window (after the stage) is still open, but choosing that kind is no silent way
        # round the entry deadline (issue 29 G) — the chief referee's decision, logged as such.
        require_role(user, locked.round.tournament, *DEADLINE_OVERRIDE_ROLES)
        assert deadlines.entry.until is not None
        return {
            "error": str(ErrorKind.ENTRY),
            "declared": str(late.error),
            "minutes": deadlines.entry.minutes,
            "deadline": deadlines.entry.until.isoformat(),
            "by": actor_name(user),
        }
    if not late.override:
        params = too_late_params(deadlines, late.error)
        if late.error is ErrorKind.ENTRY:
            raise ServiceError("correction_too_late_round", **params)
        raise ServiceError("correction_too_late_stage", **params)
    require_role(user, locked.round.tournament, *DEADLINE_OVERRIDE_ROLES)
    assert deadline.until is not None
    return {
        "error": str(late.error),
        "minutes": deadline.minutes,
        "deadline": deadline.until.isoformat(),
        "by": actor_name(user),
    }


def _correct(
    table: Table | TableAt,
    corrected: Callable[[tuple[MatchFacts, ...]], tuple[MatchFacts, ...]],
    user: Any,
    reason: str,
    expected_version: int | None,
    late: _Late | None,
    *,
    whole: bool = False,
) -> Table:
    if not (reason or "").strip():
        raise ServiceError("reason_required")
    with transaction.atomic():
        locked, _pair = open_table(
            table, user, expected_version, roles=CORRECTION_ROLES, state=CONFIRMED
        )
        overridden = _check_deadline(locked, late, user) if late is not None else None
        old_facts = table_facts(locked)
        old = match_games(locked, old_facts)
        new = corrected(old)
        if not new:
            raise ServiceError("bad_game", game=0, games=len(old))
        # RULES.md §8: a series game by game by the one engine, the match decided.
        new = corrected_games(locked, old, new, whole)
        tokens = tuple(token for game in new for token in game.tokens)
        before = snapshot(locked, old_facts.tokens)
        TableEvent.objects.filter(table=locked).delete()
        TableEvent.objects.bulk_create(
            TableEvent(
                table=locked,
                position=i,
                token=token,
                entered_by=account(user),
                entered_via=Via.REFEREE,
            )
            for i, token in enumerate(tokens)
        )
        write_games(locked, new)
        first = new[0]
        kind = first.end.kind if first.end is not None else ""
        side_text = str(first.end.side) if first.end is not None else ""
        cas(
            locked,
            start_ns=first.start.ns,
            start_ew=first.start.ew,
            end_kind=kind,
            end_side=side_text,
            time_deals=first.time_deals,
        )
        after = snapshot(locked, tokens)
        if overridden is not None:
            after["overridden"] = overridden
        audit_table(locked, AuditEntry.Action.CORRECT, user, before, after, reason=reason.strip())
        bump_results_version(locked.round.tournament_id)
    return locked
