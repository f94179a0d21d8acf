"""Penalty escalation (RULES.md §3, §9): suggested by the software, applied when a referee
confirms.

By the regulation (``escalation: regulation``): two warnings to one side in a round → 违例; two
violations → 犯规; two fouls → 判负. A penalty recorded by confirming a suggestion carries
``escalation=True`` and "uses up" the two lesser ones, so they are not suggested again. A lesser
penalty recorded by hand does not use any up.

By the event's own ladder (``RuleSet.escalation``, RULES.md §9, e.g. "初次违反口头警告，两次违反
判对手升三级，三次违反判对手本局获胜"): every penalty of the ladder's kinds recorded against a side
within the ladder's scope (its match — the pair's table of the round —, its round, the event) is
an offence; a side with n offences is suggested the ladder's step n + 1 for its next one
(``ladder_escalation``), applied with its score effect when the referee confirms: a level award
to the opponents (an ``adjust:`` event at the pair's table), a 判负, a foul, a disqualification.

May touch: read ``scoring.models.Penalty``; ``apply_escalation`` writes through
``scoring.services`` (``record_penalty``, and for a table the foul event or the 判负 end).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from itertools import pairwise
from typing import Any

from django.db import transaction
from django.db.models import Count, Q, QuerySet

from rules.events import MAX_ADJUST, Side, parse_event
from rules.variants import ESCALATION_STEPS
from rules.variants import Escalation as Ladder
from scoring.facts import (
    snapshot,
    start_of,
    table_tokens,
)
from scoring.penalty_records import require_authority
from scoring.services import TableAt, correct_result, enter_event, lock_table, set_end
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Pair, Player, Round, Table, Tournament
from tournaments.permissions import Action, Allowed
from tournaments.services import account, audit, bump_results_version

from .models import Penalty, Via

Kind = Penalty.Kind
LADDER: tuple[str, ...] = (Kind.WARNING, Kind.VIOLATION, Kind.FOUL, Kind.PENALTY_LOSS)


@dataclass(frozen=True)
class Escalation:
    """Suggest recording ``kind`` because the pair has ``count`` unescalated ``because_of`` —
    or, by the event's ladder (``ladder``), because it has ``count`` offences: ``kind`` is the
    ladder's next step (``levels``: a level award's levels to the opponents)."""

    kind: str
    because_of: str
    count: int
    levels: int | None = None
    ladder: bool = False


def escalation_from_counts(
    counts: Mapping[tuple[str, bool], int],
) -> Escalation | None:
    """Pure rule: ``counts[(kind, escalation)]`` → the lowest escalation due, or None.

    pending(k) = all k − 2 × (escalated next(k)); two pending of k suggest next(k).
    """
    for lower, higher in pairwise(LADDER):
        total = counts.get((lower, False), 0) + counts.get((lower, True), 0)
        used = 2 * counts.get((higher, True), 0)
        pending = total - used
        if pending >= 2:
            return Escalation(kind=str(higher), because_of=str(lower), count=pending)
    return None


def ladder_escalation(ladder: Ladder, offences: int) -> Escalation | None:
    """Pure rule (RULES.md §9): the next step of the event's ladder for a side with
    ``offences`` offences in the ladder's scope; None before the first (nothing to escalate
    from)."""
    if offences < 1:
        return None
    step = ladder.step_for(offences)
    return Escalation(step.kind, "offence", offences, step.levels, True)


def offences_in_scope(rnd: Round, ladder: Ladder) -> QuerySet[Penalty]:
    """The live penalties that count as offences for ``ladder`` around round ``rnd``: those of
    its kinds in the round (scope ``match`` — a pair plays one match a round — or ``round``),
    or anywhere in the event (``event``)."""
    penalties = Penalty.objects.filter(
        tournament_id=rnd.tournament_id, withdrawn_at=None, kind__in=ESCALATION_STEPS
    )
    return penalties if ladder.scope == "event" else penalties.filter(round=rnd)


def _counts(pair: Pair, rnd: Round) -> dict[tuple[str, bool], int]:
    rows = (
        Penalty.objects.filter(pair=pair, round=rnd, withdrawn_at=None)
        .values("kind", "escalation")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {(row["kind"], row["escalation"]): row["n"] for row in rows}


def suggest_escalation(pair: Pair, rnd: Round) -> Escalation | None:
    """What the referee should consider for ``pair`` in ``rnd`` (one query): by the round's
    stage's escalation (RULES.md §9: the event's ladder, else §3's)."""
    ladder = rnd.rules.escalation
    if ladder is not None:
        return ladder_escalation(ladder, offences_in_scope(rnd, ladder).filter(pair=pair).count())
    return escalation_from_counts(_counts(pair, rnd))


def escalation_actions(kind: str, *, at_table: bool, confirmed: bool) -> tuple[Action, ...]:
    """What confirming an escalation to ``kind`` needs (``apply_escalation``): the authority to
    impose ``kind``; at a table a foul also ends the deal (an entry at the desk); a 判负 ends
    the pair's table, which is a correction once the table is ``confirmed``; an event ladder's
    level award (RULES.md §9) is an ``adjust:`` event at the pair's table (an entry)."""
    needs = [Action(kind)]
    if kind == Kind.PENALTY_LOSS:
        needs.append(Action.CORRECT if confirmed else Action.ENTER_RESULT)
    elif (kind == Kind.FOUL and at_table) or kind == Kind.LEVEL_AWARD:
        needs.append(Action.ENTER_RESULT)
    return tuple(needs)


def escalations_allowed(
    rnd: Round, rows: list[dict[str, Any]], may: Allowed
) -> list[dict[str, Any]]:
    """A round's suggestions (``scoring.dashboard.round_suggestions``), each saying whether
    ``may``'s user may confirm it (``row["may"]``): ``escalation_actions`` with, for a 判负,
    whether the pair's table is confirmed (one query per such suggestion)."""
    for row in rows:
        confirmed = False
        if row["kind"] == Kind.PENALTY_LOSS:
            confirmed = (
                Table.objects.filter(
                    round=rnd, is_bye=False, entry_status=Table.EntryStatus.CONFIRMED
                )
                .filter(Q(ns=row["pair"]) | Q(ew=row["pair"]))
                .exists()
            )
        needs = escalation_actions(row["kind"], at_table=False, confirmed=confirmed)
        row["may"] = all(may[action] for action in needs)
    return rows


def apply_escalation(
    pair: Pair,
    rnd: Round,
    user: Any,
    *,
    table: Table | None = None,
    expected_version: int | None = None,
    reason: str = "",
) -> Penalty:
    """The referee confirms the current suggestion: record it (``escalation=True``).

    With ``table`` given the score effect is applied too: a foul adds ``foul:<side>`` to the
    table's events — through the scoring services, with the table's compare-and-swap on
    ``expected_version``. A 判负 always applies its result (``apply_penalty_loss``: the pair's
    table of the round, found when not given, ends ``penalty_loss`` for its side), and so does a
    ladder's level award (the opponents' ``adjust:`` event at the pair's table), in the same
    transaction as the penalty record, so the standings move once the table is confirmed.
    """

    with transaction.atomic():
        # Lock the pair row so two referees confirming at once record one escalation.
        Pair.objects.select_for_update().get(pk=pair.pk)
        suggestion = suggest_escalation(pair, rnd)
        if suggestion is None:
            raise ServiceError("no_escalation")
        penalty = record_penalty(
            rnd.tournament,
            pair,
            suggestion.kind,
            user,
            reason=reason or f"{suggestion.count} × {suggestion.because_of}",
            round=rnd,
            table=table,
            escalation=True,
            levels=suggestion.levels,
        )
        if suggestion.kind == Kind.LEVEL_AWARD and suggestion.levels:
            # RULES.md §9 ladder: "+N levels to the opponents", an award at the pair's table.
            found = table or _table_of(rnd, pair)
            side = Side.EW if found.ns_id == pair.pk else Side.NS
            token = f"adjust:{side}+{min(suggestion.levels, MAX_ADJUST)}"
            enter_event(found, token, user, expected_version if table is not None else None)
        elif suggestion.kind == Kind.PENALTY_LOSS:
            apply_penalty_loss(
                rnd,
                pair,
                user,
                table=table,
                expected_version=expected_version,
                reason=penalty.reason,
            )
        elif table is not None and suggestion.kind == Kind.FOUL:
            side = "NS" if table.ns_id == pair.pk else "EW"
            enter_event(table, f"foul:{side}", user, expected_version)
    return penalty


# --------------------------------------------------------------------------------------------
# Recording penalties


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
    levels: int | None = None,
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
            levels=levels if kind == Penalty.Kind.LEVEL_AWARD else None,
            reason=reason,
            escalation=escalation,
            referee=account(user),
            referee_name=referee_name or (user.get_username() if account(user) else ""),
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


def _table_of(rnd: Round, pair: Pair) -> Table:
    """The pair's table of round ``rnd`` (``no_table_for_pair`` without one)."""
    table = (
        Table.objects.select_related("round__tournament", "ns", "ew")
        .filter(round=rnd, is_bye=False)
        .filter(Q(ns=pair) | Q(ew=pair))
        .first()
    )
    if table is None:
        raise ServiceError("no_table_for_pair", pair=pair.number)
    return table


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
        table = _table_of(rnd, pair)
    if pair.pk not in (table.ns_id, table.ew_id) or table.round_id != rnd.pk:
        raise ServiceError("no_table_for_pair", pair=pair.number)
    side = Side.NS.value if table.ns_id == pair.pk else Side.EW.value
    with transaction.atomic():
        locked = lock_table(table)
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
                deadline=False,  # a ruling (RULES.md §3), not an error's correction (§7)
            )
        before = snapshot(locked, tokens)
        was_entered = locked.entry_status == Table.EntryStatus.ENTERED
        changed = set_end(locked, Table.EndKind.PENALTY_LOSS, side, user, expected_version)
        if not was_entered:  # set_end audits a change of a submitted sheet itself
            audit(
                changed.round.tournament_id,
                AuditEntry.Action.SET_END,
                user,
                table=changed,
                before=before,
                after=snapshot(changed, tokens),
                reason=reason,
            )
    return changed
