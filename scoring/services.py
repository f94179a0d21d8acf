"""Result services: enter and undo events, lateness, forfeit/判负, confirm, correct, penalties,
and the standings from confirmed results.

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

import re
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple, TypeVar

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from rules.errors import RuleError
from rules.events import Event, EventKind, Side, parse_event
from rules.ruleset import RuleSet
from scoring.engine import End, MatchResult, Start, bye_outcome, match_outcomes
from scoring.facts import (
    FACT_COLUMNS,
    MatchFacts,
    end_of,
    score_table,
    start_of,
    table_facts,
    table_tokens,
    tokens_by_table,
)
from scoring.standings import Deduction, Outcome, StandingRow, compute_standings
from tournaments.errors import ConflictError, ForbiddenError, ServiceError, from_rule_error
from tournaments.models import AuditEntry, Pair, Player, Round, Table, Tournament
from tournaments.permissions import CORRECTION_ROLES, RESULT_ROLES, Role, require_role
from tournaments.services import audit, bump_results_version

from .models import Penalty, Signoff, TableEvent, UsedKey, Via

COUNTED_ROUNDS = (Round.Status.PUBLISHED, Round.Status.FINISHED)

# --------------------------------------------------------------------------------------------
# Reading a table (the facts → the engine: ``scoring.facts``)


def _score(rules: RuleSet, facts: MatchFacts, complete: bool) -> MatchResult:
    try:
        return score_table(facts, rules, complete=complete)
    except RuleError as exc:
        raise from_rule_error(exc) from exc


def table_result(table: Table, tokens: Sequence[str] | None = None) -> MatchResult:
    """The (possibly provisional) result of a match table, for score sheets and pages."""
    if table.is_bye:
        raise ServiceError("table_is_bye")
    rules = table.round.tournament.rules
    return _score(rules, table_facts(table, tokens), complete=False)


def table_for_entry_token(token: str) -> Table:
    """The table of a table-side entry link; dead unless its round is published."""
    table = (
        Table.objects.select_related("round__tournament", "ns", "ew")
        .filter(entry_token=token or "", is_bye=False)
        .first()
    )
    if table is None or table.round.status != Round.Status.PUBLISHED:
        raise ServiceError("bad_entry_link")
    return table


def _snapshot(table: Table, tokens: Sequence[str]) -> dict[str, Any]:
    end = None
    if table.end_kind:
        end = {table.end_kind: table.end_side.lower()}
    return {
        "start": {"ns": table.start_ns, "ew": table.start_ew},
        "deals": list(tokens),
        "end": end,
        "status": table.entry_status,
        "version": table.version,
    }


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


def _lock_table(table: Table | TableAt | int) -> Table:
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


def _require_open_for_entry(locked: Table) -> None:
    if locked.is_bye:
        raise ServiceError("table_is_bye")
    if locked.round.status != Round.Status.PUBLISHED:
        raise ServiceError("round_not_published")
    if locked.entry_status == Table.EntryStatus.CONFIRMED:
        raise ServiceError("table_confirmed")


def _user_or_none(user: Any) -> Any:
    return user if user is not None and getattr(user, "is_authenticated", False) else None


def _touched_by(locked: Table, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """Add ``user`` to the table's enterers (for the two-person rule) in the same CAS write."""
    if _user_or_none(user) is not None and user.pk not in locked.enterers:
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
        locked = _lock_table(table)
        pair = _own_pair(locked, pair)
        _check_actor(locked, user, via)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        _check_table_party(locked, via, pair)
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
        _check_event_authority(locked, event, user, via)
        new_tokens = [*tokens, event.token]
        rules = locked.round.tournament.rules
        _score(rules, facts.with_tokens(new_tokens), complete=False)
        before = _snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        TableEvent.objects.create(
            table=locked,
            position=len(tokens),
            token=event.token,
            entered_by=_user_or_none(user),
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
                after=_snapshot(locked, new_tokens),
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
        locked = _lock_table(table)
        pair = _own_pair(locked, pair)
        _check_actor(locked, user, via)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        _check_table_party(locked, via, pair)
        tokens = table_tokens(locked)
        if not tokens:
            raise ServiceError("no_events")
        last = parse_event(tokens[-1], len(tokens) - 1)
        _check_event_authority(locked, last, user, via)
        before = _snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        TableEvent.objects.filter(table=locked, position=len(tokens) - 1).delete()
        if last.kind is EventKind.FOUL:
            _withdraw_foul_penalty(locked, last, user)
        fields = {"entry_status": Table.EntryStatus.OPEN} if was_entered else {}
        _cas(locked, **_touched_by(locked, user, fields))
        if was_entered:
            audit(
                locked.round.tournament_id,
                AuditEntry.Action.UNDO_EVENT,
                user,
                table=locked,
                before=before,
                after=_snapshot(locked, tokens[:-1]),
                via=via,
            )
    return locked


def set_start_levels(
    table: Table | TableAt, ns: int, ew: int, user: Any, expected_version: int | None
) -> Table:
    """Lateness (RULES.md §2): the punctual side starts at 3 (0–5 min) or 4 (5–10 min)."""
    return _change_start_or_end(
        table,
        user,
        expected_version,
        {"start_ns": ns, "start_ew": ew},
        AuditEntry.Action.SET_START,
        start=start_of(ns, ew),
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
) -> Table:
    """Change a table's start levels or its end, checked by the engine against the events
    already listed. An entered sheet goes back to open, audited (before/after)."""
    with transaction.atomic():
        locked = _lock_table(table)
        _check_actor(locked, user, Via.REFEREE)
        if authorise is not None:
            authorise(locked)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        facts = table_facts(locked)
        tokens = facts.tokens
        rules = locked.round.tournament.rules
        start = facts.start if start is _UNCHANGED else start
        end = facts.end if end is _UNCHANGED else end
        _score(rules, MatchFacts(start, end, tokens), complete=False)
        before = _snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        fields = dict(fields)
        if _user_or_none(user) is not None:
            fields["entered_by"] = user
        if was_entered:
            fields["entry_status"] = Table.EntryStatus.OPEN
        _cas(locked, **_touched_by(locked, user, fields))
        if was_entered:
            audit(
                locked.round.tournament_id,
                action,
                user,
                table=locked,
                before=before,
                after=_snapshot(locked, tokens),
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
        locked = _lock_table(table)
        pair = _own_pair(locked, pair)
        _check_actor(locked, user, via)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        _check_table_party(locked, via, pair)
        if locked.entry_status != Table.EntryStatus.OPEN:
            raise ServiceError("table_not_open")
        rules = locked.round.tournament.rules
        facts = table_facts(locked)
        tokens = facts.tokens
        _score(rules, facts, complete=True)
        before = _snapshot(locked, tokens)
        fields: dict[str, Any] = {
            "entry_status": Table.EntryStatus.ENTERED,
            "entered_at": timezone.now(),
        }
        if _user_or_none(user) is not None:
            fields["entered_by"] = user
        _cas(locked, **_touched_by(locked, user, fields))
        _sign(locked, Signoff.Step.SUBMIT, via, user, pair, before, tokens)
    return locked


def _enterer_ids(locked: Table) -> set[int]:
    ids = set(
        TableEvent.objects.filter(table=locked)
        .exclude(entered_by=None)
        .values_list("entered_by_id", flat=True)
    )
    if locked.entered_by_id is not None:
        ids.add(locked.entered_by_id)
    return ids | set(locked.enterers)


def _confirm(locked: Table, user: Any, via: str, pair: Pair | None = None) -> None:
    facts = table_facts(locked)
    tokens = facts.tokens
    rules = locked.round.tournament.rules
    _score(rules, facts, complete=True)
    before = _snapshot(locked, tokens)
    _cas(
        locked,
        entry_status=Table.EntryStatus.CONFIRMED,
        confirmed_by=_user_or_none(user),
        confirmed_via=via,
        confirmed_at=timezone.now(),
    )
    _sign(locked, Signoff.Step.CONFIRM, via, user, pair, before, tokens)
    bump_results_version(locked.round.tournament_id)


def confirm_table(table: Table | TableAt, user: Any, expected_version: int | None) -> Table:
    """A referee confirms the sheet. Two-person rule (RULES.md §7, issue 4): the confirmer must
    not be anyone who entered an event or set the table's start/end or marked it entered."""
    with transaction.atomic():
        locked = _lock_table(table)
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
        locked = _lock_table(table)
        _check_version(locked, expected_version)
        _require_open_for_entry(locked)
        if locked.entry_status != Table.EntryStatus.ENTERED:
            raise ServiceError("table_not_entered")
        if _referee_submitted(locked):
            raise ServiceError("table_link_read_only")
        pair = _pair_of_code(locked, code)
        if pair.pk in _entering_pairs(locked):
            raise ServiceError("confirmer_entered")
        if _user_or_none(user) is not None and user.pk in _enterer_ids(locked):
            raise ServiceError("same_person")
        _confirm(locked, user, Via.TABLE, pair)
    return locked


# --------------------------------------------------------------------------------------------
# Two parties behind every result (RULES.md §7)


def _pair_of_code(locked: Table, code: str) -> Pair:
    """The table's pair whose code this is (compared in constant time), else ``bad_pair_code``."""
    given = (code or "").strip().upper().encode()
    found = None
    for pair in (locked.ns, locked.ew):
        if pair is not None and secrets.compare_digest(given, pair.code.upper().encode()):
            found = pair
    if found is None or not given:
        raise ServiceError("bad_pair_code")
    return found


def pair_for_code(table: Table, code: str) -> Pair:
    """Which of the table's pairs is entering at the table link: the one whose code this is.

    The link's page asks for it once (the first code typed when the page is opened); the
    views keep the answer in the session and pass it as ``pair`` to every table-side write."""
    if table.is_bye:
        raise ServiceError("table_is_bye")
    return _pair_of_code(table, code)


def _referee_submitted(locked: Table) -> bool:
    return Signoff.objects.filter(table=locked, step=Signoff.Step.SUBMIT, via=Via.REFEREE).exists()


def _own_pair(locked: Table, pair: Pair | int | None) -> Pair | None:
    """The table's own pair for ``pair`` (an instance or an id, as the link's session keeps
    it), or None when it is neither of the table's pairs."""
    pk = pair.pk if isinstance(pair, Pair) else pair
    if pk is not None and pk == locked.ns_id:
        return locked.ns
    if pk is not None and pk == locked.ew_id:
        return locked.ew
    return None


def _check_table_party(locked: Table, via: str, pair: Pair | None) -> None:
    """A write through the table link needs the pair that proved itself with its code, and the
    link is read-only once a referee has submitted the sheet."""
    if via != Via.TABLE:
        return
    if pair is None or pair.pk not in (locked.ns_id, locked.ew_id):
        raise ServiceError("pair_code_required")
    if _referee_submitted(locked):
        raise ServiceError("table_link_read_only")


def _entering_pairs(locked: Table) -> set[int | None]:
    """The pairs that entered the table's events at the link or submitted its sheet there
    (``None`` when an event came through the link without a proven pair: nobody can then
    confirm at the table)."""
    pairs = set(
        TableEvent.objects.filter(table=locked, entered_via=Via.TABLE).values_list(
            "entered_pair_id", flat=True
        )
    )
    last = (
        Signoff.objects.filter(table=locked, step=Signoff.Step.SUBMIT)
        .order_by("-created_at", "-pk")
        .first()
    )
    if last is not None and last.via == Via.TABLE:
        pairs.add(last.pair_id)
    if None in pairs:
        pairs.update((locked.ns_id, locked.ew_id))
    return pairs


def _party(user: Any, pair: Pair | None, locked: Table) -> dict[str, Any] | None:
    if pair is None:
        return None
    side = "NS" if pair.pk == locked.ns_id else "EW"
    return {"pair": pair.number, "side": side}


def _sign(
    locked: Table,
    step: str,
    via: str,
    user: Any,
    pair: Pair | None,
    before: dict[str, Any],
    tokens: Sequence[str],
) -> None:
    """Record who submitted or confirmed (an account or a pair) and how, and audit it."""
    Signoff.objects.create(
        table=locked, step=step, via=via, user=_user_or_none(user), pair=pair,
        version=locked.version,
    )  # fmt: skip
    after = _snapshot(locked, tokens)
    party = _party(user, pair, locked)
    if party is not None:
        after["by_pair"] = party
    action = (
        AuditEntry.Action.CONFIRM
        if step == Signoff.Step.CONFIRM
        else AuditEntry.Action.MARK_ENTERED
    )
    audit(
        locked.round.tournament_id,
        action,
        user,
        table=locked,
        before=before,
        after=after,
        via=via if party is None else f"{via}:{party['side']}",
    )


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
) -> Table:
    """The chief referee replaces a confirmed table's whole result (events, start, end).

    Reason required; audited with before/after; the standings recompute (results version bump).
    RULES.md §5: 成绩更正不改变已公布的编排 — a later round already published is left as it is.
    """
    if not (reason or "").strip():
        raise ServiceError("reason_required")
    with transaction.atomic():
        locked = _lock_table(table)
        require_role(user, locked.round.tournament, *CORRECTION_ROLES)
        _check_version(locked, expected_version)
        if locked.is_bye:
            raise ServiceError("table_is_bye")
        if locked.entry_status != Table.EntryStatus.CONFIRMED:
            raise ServiceError("table_not_confirmed")
        new_start = _as_start(start)
        kind, side_text = _as_end(end)
        new_end = end_of(kind, side_text)
        events = []
        for position, token in enumerate(new_tokens):
            try:
                events.append(parse_event(token, position).token)
            except RuleError as exc:
                raise from_rule_error(exc) from exc
        rules = locked.round.tournament.rules
        _score(rules, MatchFacts(new_start, new_end, tuple(events)), complete=True)
        before = _snapshot(locked, table_tokens(locked))
        TableEvent.objects.filter(table=locked).delete()
        TableEvent.objects.bulk_create(
            TableEvent(
                table=locked,
                position=i,
                token=token,
                entered_by=_user_or_none(user),
                entered_via=Via.REFEREE,
            )
            for i, token in enumerate(events)
        )
        _cas(
            locked,
            start_ns=new_start.ns,
            start_ew=new_start.ew,
            end_kind=kind,
            end_side=side_text,
        )
        audit(
            locked.round.tournament_id,
            AuditEntry.Action.CORRECT,
            user,
            table=locked,
            before=before,
            after=_snapshot(locked, events),
            reason=reason.strip(),
        )
        bump_results_version(locked.round.tournament_id)
    return locked


# --------------------------------------------------------------------------------------------
# Penalties


def record_penalty(
    tournament: Tournament,
    pair: Pair,
    kind: str,
    user: Any,
    *,
    reason: str = "",
    round: Round | None = None,
    table: Table | None = None,
    player: Player | None = None,
    deal: int | None = None,
    jcf: Decimal | float | int | None = None,
    referee_name: str = "",
    escalation: bool = False,
) -> Penalty:
    """Record a penalty (RULES.md §3). Only a deduction changes the standings through this
    record; a foul's or a 判负's score effect is the table's events/end (``enter_event`` with
    ``foul:XX``, ``set_end``). A disqualification also sets the pair's status (it plays no
    further rounds; its results stand). Who may impose which kind: ``require_authority``."""
    if kind not in Penalty.Kind.values:
        raise ServiceError("bad_penalty", detail="kind")
    require_authority(user, tournament, kind)
    if pair.tournament_id != tournament.pk:
        raise ServiceError("wrong_tournament")
    if table is not None:
        if table.round.tournament_id != tournament.pk or pair.pk not in table.pair_ids:
            raise ServiceError("wrong_tournament")
        round = round or table.round
        if round.pk != table.round_id:
            raise ServiceError("wrong_tournament")
    if round is not None and round.tournament_id != tournament.pk:
        raise ServiceError("wrong_tournament")
    if player is not None and player.pair_id != pair.pk:
        raise ServiceError("wrong_tournament")
    if kind == Penalty.Kind.DEDUCTION:
        if jcf is None or Decimal(str(jcf)) <= 0:
            raise ServiceError("bad_penalty", detail="jcf")
        jcf = Decimal(str(jcf))
    elif jcf is not None:
        raise ServiceError("bad_penalty", detail="jcf")
    with transaction.atomic():
        # Lock the pair: escalation counts for one pair are read and written one at a time.
        locked_pair = Pair.objects.select_for_update().get(pk=pair.pk)
        penalty = Penalty.objects.create(
            tournament=tournament,
            round=round,
            table=table,
            pair=locked_pair,
            player=player,
            kind=kind,
            deal=deal,
            jcf=jcf,
            reason=reason,
            escalation=escalation,
            referee=_user_or_none(user),
            referee_name=referee_name or (user.get_username() if _user_or_none(user) else ""),
        )
        if kind == Penalty.Kind.DISQUALIFICATION and locked_pair.status != Pair.Status.DISQUALIFIED:
            before = locked_pair.status
            locked_pair.status = Pair.Status.DISQUALIFIED
            locked_pair.save(update_fields=["status"])
            pair.status = Pair.Status.DISQUALIFIED
            audit(
                tournament,
                AuditEntry.Action.PAIR_STATUS,
                user,
                before={"pair": pair.number, "status": before},
                after={"pair": pair.number, "status": Pair.Status.DISQUALIFIED},
                reason=reason,
                round=round,
            )
        audit(
            tournament,
            AuditEntry.Action.PENALTY,
            user,
            round=round,
            table=table,
            after={
                "pair": pair.number,
                "kind": kind,
                "deal": deal,
                "jcf": str(jcf) if jcf is not None else None,
                "escalation": escalation,
            },
            reason=reason,
        )
        if kind == Penalty.Kind.DEDUCTION:
            bump_results_version(tournament.pk)
    return penalty


def record_foul(
    table: Table | TableAt,
    side: str | Side,
    user: Any,
    expected_version: int | None,
    reason: str = "",
    deal: int | None = None,
) -> tuple[Table, Penalty]:
    """犯规 in one step (RULES.md §3): the current deal ends, scored as 双下 for the innocent side
    (the ``foul:<side>`` event, +3 to the other side), and the 犯规 penalty record for the
    offending pair — both in ONE transaction, or neither.

    Lock order as in ``penalties.apply_escalation`` (the pair, then the table) so the two can
    never deadlock; the table's compare-and-swap on ``expected_version`` (inside
    ``enter_event``) turns a stale page into a ``ConflictError`` that rolls everything back.
    ``deal`` defaults to the deal the foul ended. Returns the table (its new version) and the
    penalty; the escalation suggestion counts the new foul at once (two fouls → 判负).
    """
    side_text = str(side or "").upper()
    if side_text not in (Side.NS.value, Side.EW.value):
        raise ServiceError("bad_end_side", value=side)
    with transaction.atomic():
        if isinstance(table, TableAt):  # the pair is locked before the table (see above)
            table = Table.objects.get(**dict(table.lookup))
        offender_id = table.ns_id if side_text == Side.NS.value else table.ew_id
        if offender_id is None:
            raise ServiceError("table_is_bye")
        Pair.objects.select_for_update().get(pk=offender_id)
        locked = enter_event(table, f"foul:{side_text}", user, expected_version, Via.REFEREE)
        offender = locked.ns if side_text == Side.NS.value else locked.ew
        if deal is None:
            # The foul is the last event; it ended the n-th deal (awards are not deals).
            deal = sum(1 for token in table_tokens(locked) if parse_event(token).is_deal)
        penalty = record_penalty(
            locked.round.tournament,
            offender,
            Penalty.Kind.FOUL,
            user,
            reason=(reason or "").strip(),
            round=locked.round,
            table=locked,
            deal=deal,
        )
    return locked, penalty


def apply_penalty_loss(
    rnd: Round,
    pair: Pair,
    user: Any,
    *,
    table: Table | None = None,
    expected_version: int | None = None,
    reason: str = "",
) -> Table:
    """判负 of ``pair`` in ``rnd`` applied to its result (RULES.md §2–§3): its table's end
    becomes ``penalty_loss`` for its side, audited. An open or submitted table is changed
    like ``set_end``; a confirmed one through ``correct_result`` (the chief referee's, as a
    判负 is), so the standings move at once. The caller's transaction holds the penalty."""
    if table is None:
        table = (
            Table.objects.select_related("round__tournament", "ns", "ew")
            .filter(round=rnd, is_bye=False)
            .filter(Q(ns=pair) | Q(ew=pair))
            .first()
        )
        if table is None:
            raise ServiceError("no_table_for_pair", pair=pair.number)
    if pair.pk not in (table.ns_id, table.ew_id) or table.round_id != rnd.pk:
        raise ServiceError("no_table_for_pair", pair=pair.number)
    side = Side.NS.value if table.ns_id == pair.pk else Side.EW.value
    with transaction.atomic():
        locked = _lock_table(table)
        tokens = table_tokens(locked)
        if locked.entry_status == Table.EntryStatus.CONFIRMED:
            return correct_result(
                locked,
                tokens,
                start_of(locked.start_ns, locked.start_ew),
                (Table.EndKind.PENALTY_LOSS, side),
                user,
                reason or Penalty.Kind.PENALTY_LOSS.label,
                expected_version,
            )
        before = _snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        changed = set_end(locked, Table.EndKind.PENALTY_LOSS, side, user, expected_version)
        if not was_entered:  # set_end audits a change of a submitted sheet itself
            audit(
                changed.round.tournament_id,
                AuditEntry.Action.SET_END,
                user,
                table=changed,
                before=before,
                after=_snapshot(changed, tokens),
                reason=reason,
            )
    return changed


# The role each authority level of ``RuleSet.may_impose`` names (a chief referee also holds
# ``Role.REFEREE``; an organizer is not a referee unless also listed as one).
AUTHORITY_ROLES = {
    "referee": Role.REFEREE,
    "chief_referee": Role.CHIEF_REFEREE,
    "organizer": Role.ORGANIZER,
}
# A table event that is a penalty's score effect → the penalty kind it needs authority for.
EVENT_PENALTY_KIND = {
    EventKind.FOUL: "foul",
    EventKind.LOSE: "deal_loss",
    EventKind.ADJUST: "level_award",
}


def require_authority(user: Any, tournament: Tournament, kind: str) -> None:
    """RULES.md §3 "Who may impose what": the tournament's ``RuleSet.may_impose(kind)`` names
    the role (by default warning/violation — any referee; foul, 本副判负, 判负, deductions,
    level awards — the chief referee; disqualification — the organizers). ``user=None`` is the
    system (an import, a command) and passes, as in ``require_role``."""
    try:
        authority = tournament.rules.may_impose(str(kind))
    except KeyError:
        raise ServiceError("bad_penalty", detail="kind") from None
    require_role(user, tournament, AUTHORITY_ROLES[authority])


def _check_event_authority(locked: Table, event: Event, user: Any, via: str) -> None:
    """A foul, a 本副判负 or a level award is a penalty's score effect: never at the table link,
    and at the desk only by whoever may impose that penalty."""
    kind = EVENT_PENALTY_KIND.get(event.kind)
    if kind is None:
        return
    if via == Via.TABLE:
        raise ForbiddenError
    require_authority(user, locked.round.tournament, kind)


def _withdraw_foul_penalty(locked: Table, event: Event, user: Any) -> None:
    """Undoing ``foul:<side>`` withdraws the latest live 犯规 record of that pair at this table."""
    offender_id = locked.ns_id if event.side == Side.NS else locked.ew_id
    penalty = (
        Penalty.objects.filter(
            table=locked, pair_id=offender_id, kind=Penalty.Kind.FOUL, withdrawn_at=None
        )
        .order_by("-created_at", "-pk")
        .first()
    )
    if penalty is not None:
        Pair.objects.select_for_update().get(pk=offender_id)
        _withdraw(penalty, user, "撤销犯规记录")


def _withdraw(penalty: Penalty, user: Any, reason: str) -> None:
    penalty.withdrawn_at = timezone.now()
    penalty.withdrawn_by = _user_or_none(user)
    penalty.withdraw_reason = reason
    penalty.save(update_fields=["withdrawn_at", "withdrawn_by", "withdraw_reason"])
    described = {
        "pair": penalty.pair.number,
        "kind": penalty.kind,
        "deal": penalty.deal,
        "jcf": str(penalty.jcf) if penalty.jcf is not None else None,
    }
    audit(
        penalty.tournament_id,
        AuditEntry.Action.PENALTY,
        user,
        round=penalty.round,
        table=penalty.table,
        before={**described, "withdrawn": False},
        after={**described, "withdrawn": True},
        reason=reason,
    )
    if penalty.kind == Penalty.Kind.DEDUCTION:
        bump_results_version(penalty.tournament_id)


def withdraw_penalty(penalty: Penalty, user: Any, reason: str) -> Penalty:
    """The chief referee withdraws a penalty record (never deleted): reason required, audited,
    shown struck through; escalations and deductions count live records only. A withdrawn
    foul's event or 判负's end stays on the table (change those on the table page)."""
    if not (reason or "").strip():
        raise ServiceError("reason_required")
    require_role(user, penalty.tournament, *CORRECTION_ROLES)
    with transaction.atomic():
        Pair.objects.select_for_update().get(pk=penalty.pair_id)
        locked = Penalty.objects.select_related("pair", "round", "table").get(pk=penalty.pk)
        if locked.withdrawn_at is not None:
            raise ServiceError("penalty_withdrawn")
        _withdraw(locked, user, reason.strip())
    return locked


# --------------------------------------------------------------------------------------------
# One-time keys (idempotent writes)

T = TypeVar("T")
ONCE_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def new_once_key() -> str:
    """A fresh one-time key for a form (a hidden field, generated when the form is rendered)."""
    return secrets.token_urlsafe(18)


def once(
    key: str | None,
    action: str,
    write: Callable[[], T],
    remember: Callable[[T], dict[str, Any]],
    recall: Callable[[dict[str, Any]], T],
) -> T:
    """Run ``write`` at most once per ``key``; a repeat (a phone's retry, a double tap, a
    concurrent duplicate) gets the first result back (``recall``) and writes nothing.

    The key is inserted in the same transaction as what ``write`` creates: a concurrent
    duplicate's insert waits on the unique index until the first commits (then it reads the
    first result) or rolls back (then it writes). A refused ``write`` rolls its key back, so
    the form can be posted again. No key (or ``settings.IDEMPOTENCY_KEYS = False``, the tests'
    negative control): no protection."""
    if not key or not getattr(django_settings, "IDEMPOTENCY_KEYS", True):
        return write()
    if not ONCE_KEY.match(key):
        raise ServiceError("bad_once_key")
    stored = f"{action}:{key}"  # one key per rendered page serves each of its forms once
    with transaction.atomic():
        try:
            with transaction.atomic():
                used = UsedKey.objects.create(key=stored, action=action)
        except IntegrityError:
            first = UsedKey.objects.filter(key=stored).first()
            if first is None or not first.result:
                raise ServiceError("bad_once_key") from None
            return recall(first.result)
        result = write()
        UsedKey.objects.filter(pk=used.pk).update(result=remember(result))
    return result


def remember_table(table: Table) -> dict[str, Any]:
    return {"table": table.pk}


def recall_table(result: dict[str, Any]) -> Table:
    return Table.objects.select_related("round__tournament", "ns", "ew").get(pk=result["table"])


def remember_penalty(penalty: Penalty) -> dict[str, Any]:
    return {"penalty": penalty.pk}


def recall_penalty(result: dict[str, Any]) -> Penalty:
    return Penalty.objects.select_related("pair").get(pk=result["penalty"])


# --------------------------------------------------------------------------------------------
# Standings


def latest_round_number(tournament: Tournament) -> int:
    """The last published or finished round (0 before any)."""
    numbers = Round.objects.filter(tournament=tournament, status__in=COUNTED_ROUNDS).order_by(
        "-number"
    )
    return numbers.values_list("number", flat=True).first() or 0


class ScoredTable(NamedTuple):
    """One confirmed table (or bye) of a counted round, scored: what the standings take from
    it. ``version`` is the table's version when read (every write of a table bumps it), so a
    kept ``ScoredTable`` is still right while the table's version is unchanged."""

    pk: int
    round: int
    version: int
    outcomes: tuple[Outcome, ...]


def _confirmed_tables(tournament_id: int) -> QuerySet[Table]:
    return Table.objects.filter(
        round__tournament_id=tournament_id,
        round__status__in=COUNTED_ROUNDS,
        entry_status=Table.EntryStatus.CONFIRMED,
    )


def scored_tables(
    tournament_id: int,
    rules: RuleSet,
    after_round: int | None = None,
    *,
    pks: Collection[int] | None = None,
) -> list[ScoredTable]:
    """Every CONFIRMED table (byes included) of published/finished rounds up to
    ``after_round`` (or only those of ``pks``), scored — two queries whatever the size
    (tables, then all their events at once)."""
    tables = _confirmed_tables(tournament_id)
    if after_round is not None:
        tables = tables.filter(round__number__lte=after_round)
    if pks is not None:
        tables = tables.filter(pk__in=list(pks))
    rows = list(
        tables.values_list(
            "pk", "round__number", "version", "is_bye", "ns__number", "ew__number", *FACT_COLUMNS
        )
    )
    tokens = tokens_by_table(TableEvent.objects.filter(table__in=tables))
    scored: list[ScoredTable] = []
    for pk, number, version, is_bye, ns, ew, *columns in rows:
        if is_bye:
            scored.append(ScoredTable(pk, number, version, (bye_outcome(number, ns, rules),)))
            continue
        facts = MatchFacts.from_columns(*columns, tokens=tokens.get(pk, ()))
        outcomes = match_outcomes(number, ns, ew, score_table(facts, rules))
        scored.append(ScoredTable(pk, number, version, tuple(outcomes)))
    return scored


def confirmed_table_versions(tournament_id: int, round_number: int) -> dict[int, int]:
    """``{table id: version}`` of the CONFIRMED tables of round ``round_number`` if it is
    published or finished (one query, no events): what tells which kept ``ScoredTable``s of
    the round in progress are still right."""
    rows = _confirmed_tables(tournament_id).filter(round__number=round_number)
    return dict(rows.order_by().values_list("pk", "version"))


def collect_outcomes(
    tournament_id: int, rules: RuleSet, after_round: int | None = None
) -> list[Outcome]:
    """Every pair's outcome of every CONFIRMED table (byes included) of published/finished
    rounds — two queries whatever the size (tables, then all their events at once)."""
    return [
        outcome
        for table in scored_tables(tournament_id, rules, after_round)
        for outcome in table.outcomes
    ]


def deductions_from_db(tournament_id: int, round_number: int | None = None) -> list[Deduction]:
    """The deductions that count (not withdrawn), in the order they were recorded (the order
    their sums are made in); only those of round ``round_number`` if given."""
    penalties = Penalty.objects.filter(
        tournament_id=tournament_id, kind=Penalty.Kind.DEDUCTION, withdrawn_at=None
    )
    if round_number is not None:
        penalties = penalties.filter(round__number=round_number)
    return [
        Deduction(number, pair, float(jcf))
        for number, pair, jcf in penalties.values_list("round__number", "pair__number", "jcf")
    ]


def standings_criteria(rules: RuleSet) -> str | tuple[str, ...]:
    """The standings criteria of ``rules`` (a preset's name or the keys)."""
    return rules.tiebreak_preset or rules.tiebreaks


def pair_numbers(tournament_id: int) -> list[int]:
    """Every registered pair's number (the standings' entrants)."""
    return list(Pair.objects.filter(tournament_id=tournament_id).values_list("number", flat=True))


def standings_from_db(
    tournament_id: int, rules: RuleSet, after_round: int
) -> tuple[StandingRow, ...]:
    """The pure ``scoring.standings`` rows after ``after_round``, from CONFIRMED tables only
    plus byes and deductions, computed afresh: four queries whatever the size.

    Uncached: ``scoring.cache.cached_standings`` reads the standings through its cache and
    computes them incrementally (``scoring.cache.compute``); this full computation is what
    that must equal (the tests compare them).
    """
    pairs = pair_numbers(tournament_id)
    outcomes = collect_outcomes(tournament_id, rules, after_round)
    deductions = deductions_from_db(tournament_id)
    criteria = standings_criteria(rules)
    return compute_standings(pairs, outcomes, deductions, criteria, rules.seed or 0, after_round)
