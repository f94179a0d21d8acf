"""Result services: enter and undo events, lateness, forfeit/判负, confirm, correct.

Elsewhere: the confirmed results read for the standings (``scoring.results``), penalties
(``scoring.penalties``), who may impose what (``scoring.penalty_records``), one-time keys
(``scoring.once``), the two-party rule (``scoring.parties``).

May touch: ``tournaments.models.Table`` (its result fields), ``scoring`` models, ``Pair.status`` (a
disqualification), ``Tournament.results_version`` (read by the standings cache), and the pure core
(``scoring.engine``, ``scoring.standings``). Never re-pairs a round (RULES.md §5).

Concurrency (STYLE.md): every write runs in ``transaction.atomic()``, locks the table row with
``select_for_update()`` first, checks the caller's ``expected_version`` and finishes with a
compare-and-swap ``filter(pk=, version=v).update(version=F("version") + 1, …)``; a row count
other than 1 raises ``ConflictError`` and the transaction rolls back, so nothing half-written
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
from django.db.models import F
from django.utils import timezone

from rules.errors import RuleError
from rules.events import Event, EventKind, Side, parse_event
from rules.ruleset import TIMED_FORMATS, RuleSet
from rules.stages import Stage
from scoring.corrections import Edit, ErrorKind, apply_edit
from scoring.deadlines import round_deadlines, too_late_params
from scoring.engine import End, MatchResult, Start, extra_deal_allowed
from scoring.facts import (
    GAME_COLUMNS,
    MatchFacts,
    end_of,
    score_games,
    score_table,
    snapshot,
    split_games,
    start_of,
    table_facts,
    table_tokens,
)
from scoring.parties import (
    check_table_party,
    entering_pairs,
    own_pair,
    pair_of_code,
    referee_submitted,
    sign_step,
)
from scoring.penalty_records import (
    check_event_authority,
    require_authority,
    withdraw_foul_penalty,
)
from scoring.results import COUNTED_ROUNDS
from scoring.series import Series, game_winner, time_call_of_closed_game
from tournaments.errors import ConflictError, ForbiddenError, ServiceError, from_rule_error
from tournaments.models import AuditEntry, Game, Pair, Round, Table, Tournament
from tournaments.permissions import (
    CORRECTION_ROLES,
    DEADLINE_OVERRIDE_ROLES,
    RESULT_ROLES,
    has_role,
    require_role,
)
from tournaments.services import account, actor_name, audit, bump_results_version

from .models import Penalty, Signoff, TableEvent, Via

# --------------------------------------------------------------------------------------------
# Reading a table (the facts → the engine: ``scoring.facts``)

# The start/end columns a game row shares with its table (``tournaments.models.Game``).
GAME_FIELDS = ("start_ns", "start_ew", "end_kind", "end_side")


def _stage_rules(locked: Table) -> tuple[RuleSet, Stage]:
    """The rules a table is scored by (its stage's, ``RuleSet.for_stage``) and its stage."""
    rules = locked.round.tournament.rules
    return rules.for_stage(locked.round.stage), rules.stage(locked.round.stage)


def _game_rows(locked: Table) -> list[tuple[int, int, int, str, str]]:
    return list(locked.games.order_by("number").values_list(*GAME_COLUMNS))  # type: ignore[arg-type]


def _series(locked: Table, facts: MatchFacts, closed: bool) -> Series:
    """A knockout table's match so far, game by game (RULES.md §8); raises the engine's error."""
    rules, stage = _stage_rules(locked)
    return score_games(split_games(facts, _game_rows(locked)), rules, stage.games, closed)


def _score(locked: Table, facts: MatchFacts, complete: bool) -> MatchResult:
    """Score a table's facts by its stage's rules. A knockout table is scored game by game
    (``scoring.series``); complete, its match must be decided (a level tie needs the extra
    deal, a best of three its second win). Returns the (last) game's result."""
    rules, stage = _stage_rules(locked)
    try:
        if stage.kind != "knockout":
            result = score_table(facts, rules, complete=complete)
            if complete:
                _extra_deal_check(result, facts, rules)
            return result
        series = _series(locked, facts, complete)
    except RuleError as exc:
        raise from_rule_error(exc) from exc
    if complete and series.winner is None:
        raise ServiceError("match_not_decided", games=len(series.games), best_of=stage.games)
    return series.games[-1]


def _extra_deal_check(result: MatchResult, facts: MatchFacts, rules: RuleSet) -> None:
    """RULES.md §2 "Level tie" with ``tie: extra_deal``: a match level after its last regular
    deal, or level when time is called, is decided by one more deal — it cannot be submitted as
    a draw. (A knockout table is checked by its match: ``match_not_decided``.)"""
    if rules.tie != "extra_deal" or result.passed_a is not None or result.end is not None:
        return
    if result.table_ns_level != result.table_ew_level or result.extra_deal:
        return
    if extra_deal_allowed(result, facts.rules(rules)):
        raise ServiceError("extra_deal_due")
    if rules.round_format in TIMED_FORMATS and facts.time_deals is None:
        raise ServiceError("time_call_due")


def _next_game_if_due(locked: Table, facts: MatchFacts) -> None:
    """Before an event at a best-of-n knockout table: when the current game is over and the
    match is not, the event opens the next game (game 2 starts from 2 : 2); when the match is
    decided, nothing may follow."""
    _rules, stage = _stage_rules(locked)
    if stage.kind != "knockout" or stage.games == 1:
        return
    try:
        series = _series(locked, facts, closed=False)
    except RuleError as exc:
        raise from_rule_error(exc) from exc
    if series.winner is not None:
        raise ServiceError("match_decided")
    if series.next_game is not None:
        Game.objects.create(table=locked, number=series.next_game, first_position=len(facts.tokens))


def start_game(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    via: str = Via.REFEREE,
    *,
    pair: Pair | int | None = None,
) -> Table:
    """Close the current game of a best-of-n knockout match and open the next one — for a
    timed game, which only the referee ends (a game over by 过A or its deals opens the next
    by itself at the next event). The current game must have a winner."""
    with transaction.atomic():
        locked, pair = _lock_for_entry(table, user, expected_version, via, pair)
        _rules, stage = _stage_rules(locked)
        if stage.kind != "knockout" or stage.games == 1:
            raise ServiceError("not_best_of")
        facts = table_facts(locked)
        try:
            series = _series(locked, facts, closed=False)
            if series.next_game is None and series.winner is None:
                # A timed game: closing it decides it (its facts must be complete).
                series = _series(locked, facts, closed=True)
        except RuleError as exc:
            raise from_rule_error(exc) from exc
        if series.winner is not None:
            raise ServiceError("match_decided")
        if series.next_game is None:
            raise ServiceError("game_not_decided", game=len(series.games))
        Game.objects.create(table=locked, number=series.next_game, first_position=len(facts.tokens))
        fields = {"entry_status": Table.EntryStatus.OPEN}
        _cas(locked, **_touched_by(locked, user, fields))
    return locked


def call_time(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    via: str = Via.REFEREE,
    *,
    pair: Pair | int | None = None,
) -> Table:
    """RULES.md §2 "Level tie": the referee calls time on a timed match or knockout game (计时制
    / 计时计副制, ``tie: extra_deal``, any stage) whose levels are equal — the deals played are
    its regular deals and one extra deal follows, which decides it (``MatchFacts.time_deals``,
    ``RuleSet.at_time``). With unequal levels time is called by closing the game
    (``start_game``) or submitting the sheet; undo takes the call back while the extra deal is
    not entered."""
    with transaction.atomic():
        locked, pair = _lock_for_entry(table, user, expected_version, via, pair)
        rules, stage = _stage_rules(locked)
        if rules.round_format not in TIMED_FORMATS or rules.tie != "extra_deal":
            raise ServiceError("time_call_not_timed")
        if locked.end_kind:
            raise ServiceError("table_ended")
        facts = table_facts(locked)
        if stage.kind != "knockout":
            if facts.time_deals is not None:
                raise ServiceError("time_already_called")
            result = _score(locked, facts, complete=False)
            if result.table_ns_level != result.table_ew_level or result.passed_a is not None:
                raise ServiceError("time_levels_differ")
            fields = {"entry_status": Table.EntryStatus.OPEN, "time_deals": result.deals_played}
            _cas(locked, **_touched_by(locked, user, fields))
            return locked
        rows = _game_rows(locked)
        try:
            series = _series(locked, facts, closed=False)
        except RuleError as exc:
            raise from_rule_error(exc) from exc
        if series.winner is not None:
            raise ServiceError("match_decided")
        fields: dict[str, Any] = {"entry_status": Table.EntryStatus.OPEN}
        if series.next_game is not None:
            # The game before is over and the next has no deal yet: time is called at 2 : 2.
            Game.objects.create(
                table=locked,
                number=series.next_game,
                first_position=len(facts.tokens),
                time_deals=0,
            )
        else:
            current = split_games(facts, rows)[-1]
            result = series.games[-1]
            if current.time_deals is not None:
                raise ServiceError("time_already_called")
            if (
                result.table_ns_level != result.table_ew_level
                or result.passed_a is not None
                or result.end is not None
            ):
                raise ServiceError("time_levels_differ")
            if rows:
                Game.objects.filter(table=locked, number=len(rows) + 1).update(
                    time_deals=result.deals_played
                )
            else:
                fields["time_deals"] = result.deals_played
        _cas(locked, **_touched_by(locked, user, fields))
    return locked


def _take_back_time_call(locked: Table, tokens: Sequence[str], user: Any) -> bool:
    """Undo of a time call not yet followed by the extra deal (``call_time``): clears it and
    says so; False when the current game has no such call."""
    rows = _game_rows(locked)
    current = split_games(table_facts(locked, tokens), rows)[-1]
    if current.time_deals is None:
        return False
    deals = sum(1 for token in current.tokens if parse_event(token).is_deal)
    if deals > current.time_deals:
        return False
    fields: dict[str, Any] = {"entry_status": Table.EntryStatus.OPEN}
    if rows:
        Game.objects.filter(table=locked, number=len(rows) + 1).update(time_deals=None)
    else:
        fields["time_deals"] = None
    _cas(locked, **_touched_by(locked, user, fields))
    return True


# --------------------------------------------------------------------------------------------
# Locks and compare-and-swap


@dataclass(frozen=True, slots=True)
class TableAt:
    """A table as a page names it, for a write that reads the row itself, once and locked.

    ``TableAt.desk(tournament, round number, table number)``: a match table of a published or
    finished round (the referee desk's URL); ``TableAt.link(entry token)``: a match table of a
    published round (the table-side link). ``Table.DoesNotExist`` when there is none — a page
    answers 404 (a finished round's link: the table-side page decides 410).
    """

    lookup: tuple[tuple[str, Any], ...]

    @classmethod
    def desk(cls, tournament: Tournament, round_number: int, number: int) -> TableAt:
        return cls(
            (
                ("round__tournament_id", tournament.pk),
                ("round__number", round_number),
                ("round__status__in", COUNTED_ROUNDS),
                ("number", number),
                ("is_bye", False),
            )
        )

    @classmethod
    def link(cls, entry_token: str) -> TableAt:
        return cls(
            (
                ("entry_token", entry_token or ""),
                ("round__status", Round.Status.PUBLISHED),
                ("is_bye", False),
            )
        )


def lock_table(table: Table | TableAt | int) -> Table:
    """Lock the table row (only it: ``of=("self",)``) and load its round, tournament and pairs
    in the same query: the one read of the table a write makes."""
    rows = Table.objects.select_for_update(of=("self",)).select_related(
        "round__tournament", "ns", "ew"
    )
    if isinstance(table, TableAt):
        return rows.get(**dict(table.lookup))
    return rows.get(pk=table if isinstance(table, int) else table.pk)


def _check_version(locked: Table, expected_version: int | None) -> None:
    if expected_version is not None and locked.version != expected_version:
        raise ConflictError(current=locked.version, expected=expected_version)


def _cas(locked: Table, **fields: Any) -> None:
    """Compare-and-swap on ``Table.version``; ``fields`` are written with the new version."""
    count = Table.objects.filter(pk=locked.pk, version=locked.version).update(
        version=F("version") + 1, **fields
    )
    if count != 1:
        raise ConflictError(expected=locked.version)
    locked.version += 1
    for name, value in fields.items():
        setattr(locked, name, value)


def _check_actor(locked: Table, user: Any, via: str) -> None:
    # ``user`` None is the system (an import, a command). ``require_role`` reads the roles
    # ``tournaments.permissions`` remembers on the user for the request: the view's guard already
    # read them, so a tap checks the role with one query, not two.
    if via == Via.REFEREE:
        require_role(user, locked.round.tournament, *RESULT_ROLES)
    elif via not in (Via.TABLE, Via.IMPORT):
        raise ForbiddenError


def _lock_for_entry(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    via: str,
    pair: Pair | int | None,
) -> tuple[Table, Pair | None]:
    """The table locked for a change at the table (a deal, undo, submit, a game's close, a time
    call), with every check such a change makes first: the pair is the table's, the actor may
    enter this way, the version is the one shown, the round is open for entry, and the side
    that acts is the table's party (the two-person rule). Call inside the transaction."""
    locked = lock_table(table)
    own = own_pair(locked, pair)
    _check_actor(locked, user, via)
    _check_version(locked, expected_version)
    _require_open_for_entry(locked)
    check_table_party(locked, via, own)
    return locked, own


def _require_open_for_entry(locked: Table) -> None:
    if locked.is_bye:
        raise ServiceError("table_is_bye")
    if locked.round.status != Round.Status.PUBLISHED:
        raise ServiceError("round_not_published")
    if locked.entry_status == Table.EntryStatus.CONFIRMED:
        raise ServiceError("table_confirmed")


def _touched_by(locked: Table, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """Add ``user`` to the table's enterers (for the two-person rule) in the same CAS write."""
    if account(user) is not None and user.pk not in locked.enterers:
        fields["enterers"] = sorted({*locked.enterers, user.pk})
    return fields


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
    sequence is scored once.
    """
    with transaction.atomic():
        locked, pair = _lock_for_entry(table, user, expected_version, via, pair)
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
        _next_game_if_due(locked, facts)
        _score(locked, facts.with_tokens(new_tokens), complete=False)
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
        _cas(locked, **_touched_by(locked, user, fields))
        # After a submission every change is audited, the replacing deal as well as the undo.
        if was_entered or locked.entered_at is not None:
            audit(
                locked.round.tournament_id,
                AuditEntry.Action.ENTER_EVENT,
                user,
                table=locked,
                before=before,
                after=snapshot(locked, new_tokens),
                via=via,
            )
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
        locked, pair = _lock_for_entry(table, user, expected_version, via, pair)
        tokens = table_tokens(locked)
        empty_game = locked.games.filter(first_position__gte=len(tokens)).order_by("-number")
        if _stage_rules(locked)[1].kind == "knockout" and empty_game.exists():
            # The last game has no event yet: undo opens the game before it again.
            empty_game.first().delete()  # type: ignore[union-attr]
            _cas(locked, **_touched_by(locked, user, {"entry_status": Table.EntryStatus.OPEN}))
            return locked
        if _take_back_time_call(locked, tokens, user):
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
        _cas(locked, **_touched_by(locked, user, fields))
        if was_entered:
            audit(
                locked.round.tournament_id,
                AuditEntry.Action.UNDO_EVENT,
                user,
                table=locked,
                before=before,
                after=snapshot(locked, tokens[:-1]),
                via=via,
            )
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
        locked = lock_table(table)
        _check_actor(locked, user, Via.REFEREE)
        if authorise is not None:
            authorise(locked)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        facts = table_facts(locked)
        tokens = facts.tokens
        _rules, stage = _stage_rules(locked)
        games = _game_rows(locked) if stage.kind == "knockout" else []
        if games:
            # A best-of-n match: the start or end is the current game's (the last game row).
            facts = split_games(facts, games)[-1]
        start = facts.start if start is _UNCHANGED else start
        end = facts.end if end is _UNCHANGED else end
        if games:
            current = locked.games.order_by("-number").first()
            assert current is not None
            game_fields = {k: fields.pop(k) for k in list(fields) if k in GAME_FIELDS}
            Game.objects.filter(pk=current.pk).update(**game_fields)
            _score(locked, table_facts(locked), complete=False)
        else:
            _score(locked, MatchFacts(start, end, tokens, facts.time_deals), complete=False)
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
        _cas(locked, **_touched_by(locked, user, fields))
        if was_entered or chief_override:
            audit(
                locked.round.tournament_id,
                action,
                user,
                table=locked,
                before=before,
                after=snapshot(locked, tokens),
            )
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
        locked, pair = _lock_for_entry(table, user, expected_version, via, pair)
        if locked.entry_status != Table.EntryStatus.OPEN:
            raise ServiceError("table_not_open")
        facts = table_facts(locked)
        tokens = facts.tokens
        _score(locked, facts, complete=True)
        before = snapshot(locked, tokens)
        fields: dict[str, Any] = {
            "entry_status": Table.EntryStatus.ENTERED,
            "entered_at": timezone.now(),
        }
        if account(user) is not None:
            fields["entered_by"] = user
        _cas(locked, **_touched_by(locked, user, fields))
        sign_step(locked, Signoff.Step.SUBMIT, via, user, pair, before, tokens)
    return locked


def enterer_ids(table: Table, event_users: Iterable[int | None]) -> set[int]:
    """Every account that entered one of the table's events (``event_users``: their
    ``entered_by_id``), submitted the sheet or changed its facts: the two-person rule refuses
    each of them as the confirmer (RULES.md §7). The page asks the same to hide the button."""
    ids = {pk for pk in event_users if pk is not None}
    if table.entered_by_id is not None:
        ids.add(table.entered_by_id)
    return ids | set(table.enterers)


def _enterer_ids(locked: Table) -> set[int]:
    events = TableEvent.objects.filter(table=locked).values_list("entered_by_id", flat=True)
    return enterer_ids(locked, events)


def _confirm(locked: Table, user: Any, via: str, pair: Pair | None = None) -> None:
    facts = table_facts(locked)
    tokens = facts.tokens
    _score(locked, facts, complete=True)
    before = snapshot(locked, tokens)
    _cas(
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
    not be anyone who entered an event or set the table's start/end or marked it entered."""
    with transaction.atomic():
        locked = lock_table(table)
        _check_actor(locked, user, Via.REFEREE)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        if user is not None and user.pk in _enterer_ids(locked):
            raise ServiceError("same_person")
        _confirm(locked, user, Via.REFEREE)
    return locked


def confirm_table_by_pair_code(
    table: Table | TableAt, code: str, expected_version: int | None = None, *, user: Any = None
) -> Table:
    """The other pair confirms at the table with its own code (RULES.md §7: both pairs must
    have a say). Only a sheet submitted at the table (``entered``) can be confirmed this way,
    and only by a pair that entered none of its events and did not submit it; a logged-in
    ``user`` who entered through the link is refused too (two-person rule)."""
    with transaction.atomic():
        locked = lock_table(table)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        if locked.entry_status != Table.EntryStatus.ENTERED:
            raise ServiceError("table_not_entered")
        if referee_submitted(locked):
            raise ServiceError("table_link_read_only")
        pair = pair_of_code(locked, code)
        if pair.pk in entering_pairs(locked):
            raise ServiceError("confirmer_entered")
        if account(user) is not None and user.pk in _enterer_ids(locked):
            raise ServiceError("same_person")
        _confirm(locked, user, Via.TABLE, pair)
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
    if not deadline.passed(timezone.now()):
        return None
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


def _corrected_time_calls(
    old: tuple[MatchFacts, ...], new: tuple[MatchFacts, ...], rules: RuleSet, whole: bool
) -> tuple[MatchFacts, ...]:
    """A corrected timed knockout game's time call (``call_time``): kept on its last deal (the
    extra deal) while the levels before it are still equal; otherwise, and for a whole result
    given anew, read as the file reads it (``scoring.series.time_call_of_closed_game``: only a
    game that its levels leave undecided)."""
    if rules.round_format not in TIMED_FORMATS or rules.tie != "extra_deal":
        return tuple(replace(game, time_deals=None) for game in new)
    out = []
    for index, game in enumerate(new):
        had_call = not whole and index < len(old) and old[index].time_deals is not None
        try:
            time_deals = time_call_of_closed_game(game.tokens, rules, game.start, game.end)
            if time_deals is not None and not had_call:
                plain = score_table(replace(game, time_deals=None), rules, complete=True)
                if game_winner(plain) is not None:
                    time_deals = None
        except RuleError:
            time_deals = None  # the engine refuses the game itself below
        out.append(replace(game, time_deals=time_deals))
    return tuple(out)


def _match_winner(games: tuple[MatchFacts, ...], rules: RuleSet, stage: Stage) -> Side | None:
    """The winner of a knockout table's games scored complete (raises the engine's error)."""
    return score_games(games, rules, stage.games, closed=True).winner


def _void_games_after_decision(
    games: tuple[MatchFacts, ...], rules: RuleSet, stage: Stage
) -> tuple[MatchFacts, ...]:
    """A correction that decides a best-of-n match earlier (RULES.md §8: nothing follows the
    deciding game): the games after the deciding one should not have been played and go with
    the correction (the audit keeps their deals in ``before``)."""
    while True:
        try:
            score_games(games, rules, stage.games, closed=True)
        except RuleError as exc:
            after = exc.params.get("game") if exc.code == "game_after_match" else None
            if isinstance(after, int) and 1 < after <= len(games):
                games = games[: after - 1]
                continue
        return games


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
        locked = lock_table(table)
        require_role(user, locked.round.tournament, *CORRECTION_ROLES)
        _check_version(locked, expected_version)
        if locked.is_bye:
            raise ServiceError("table_is_bye")
        if locked.entry_status != Table.EntryStatus.CONFIRMED:
            raise ServiceError("table_not_confirmed")
        overridden = _check_deadline(locked, late, user) if late is not None else None
        rules, stage = _stage_rules(locked)
        knockout = stage.kind == "knockout"
        rows = _game_rows(locked) if knockout else []
        old_facts = table_facts(locked)
        old = split_games(old_facts, rows)
        new = corrected(old)
        if not new:
            raise ServiceError("bad_game", game=0, games=len(old))
        if knockout:
            # RULES.md §8: each game by the one engine, the match decided (scoring.series).
            new = _corrected_time_calls(old, new, rules, whole)
            if not whole:
                new = _void_games_after_decision(new, rules, stage)
            try:
                winner = _match_winner(new, rules, stage)
            except RuleError as exc:
                raise from_rule_error(exc) from exc
            if winner is None:
                raise ServiceError("match_not_decided", games=len(new), best_of=stage.games)
            _check_bracket(locked, old, rules, stage, winner)
        elif len(new) != 1:
            raise ServiceError("not_best_of")
        else:
            _score(locked, new[0], complete=True)
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
        if knockout:
            Game.objects.filter(table=locked).delete()
            first_position = len(new[0].tokens)
            for number, game in enumerate(new[1:], start=2):
                Game.objects.create(
                    table=locked,
                    number=number,
                    first_position=first_position,
                    start_ns=game.start.ns,
                    start_ew=game.start.ew,
                    end_kind=game.end.kind if game.end is not None else "",
                    end_side=str(game.end.side) if game.end is not None else "",
                    time_deals=game.time_deals,
                )
                first_position += len(game.tokens)
        first = new[0]
        kind = first.end.kind if first.end is not None else ""
        side_text = str(first.end.side) if first.end is not None else ""
        _cas(
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
        audit(
            locked.round.tournament_id,
            AuditEntry.Action.CORRECT,
            user,
            table=locked,
            before=before,
            after=after,
            reason=reason.strip(),
        )
        bump_results_version(locked.round.tournament_id)
    return locked


def _check_bracket(
    locked: Table, old: tuple[MatchFacts, ...], rules: RuleSet, stage: Stage, winner: Side
) -> None:
    """RULES.md §5 and §8: a knockout correction may change the games and levels, but not who
    goes on once any later round is drawn — the stage's next round (its meetings were made
    from this winner, or this loser's third-place match or repechage) or, after a stage that
    stopped at ``until``, the next stage's (its entrants were this stage's survivors):
    refused, naming that round."""
    try:
        before = _match_winner(old, rules, stage)
    except RuleError:
        before = None
    if before is winner:
        return
    later = (
        Round.objects.filter(
            tournament_id=locked.round.tournament_id, number__gt=locked.round.number
        )
        .order_by("number")
        .values_list("number", flat=True)
        .first()
    )
    if later is not None:
        raise ServiceError("correct_bracket_drawn", round=later)
