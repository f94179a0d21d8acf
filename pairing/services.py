"""Round services: generate a draft with the Swiss engine, swap by hand, publish, finish.

May touch: ``pairing`` models (rounds, tables, seats), read ``tournaments``/``scoring`` models,
write ``AuditEntry`` (append only), and call the pure engine ``pairing.swiss``. Every write runs in
``transaction.atomic()``; generating locks the tournament row (so two organizers clicking at once
get one round — the second sees the draft and is refused), the other services lock the round row.
Round generation is all-or-nothing: the engine runs before anything is written.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Seat, Table, Tournament, new_entry_token
from tournaments.permissions import ROUND_ROLES, require_role
from tournaments.queries import live_table_of
from tournaments.services import audit, bump_results_version


class PairingWarning(ServiceError):
    """Returned (not raised) by ``swap_pairs``: ``rematch`` or ``same_unit``."""


@dataclass(frozen=True)
class TableSpec:
    """One row of a round to create: a match (``ew`` set) or a bye (``ew`` None)."""

    number: int
    ns: Pair
    ew: Pair | None
    reasons: Sequence[dict[str, Any]] = ()
    match: int | None = None


def _reason_dicts(reasons: Sequence[Any]) -> list[dict[str, Any]]:
    out = []
    for reason in reasons:
        if isinstance(reason, dict):
            out.append(reason)
        else:
            params = getattr(reason, "params", {}) or {}
            out.append({"code": getattr(reason, "code", str(reason)), "params": dict(params)})
    return out


def create_round(
    tournament: Tournament,
    number: int,
    tables: Sequence[TableSpec],
    *,
    status: str = Round.Status.DRAFT,
    seed: int | None = None,
    draw_info: dict[str, Any] | None = None,
) -> tuple[Round, list[Table]]:
    """Write a round, its tables and seats in bulk (for ``generate_round`` and the importer).

    Call inside ``transaction.atomic()`` with the tournament row locked. Bye rows are confirmed
    at once (there is nothing to enter); they count in the standings once the round is
    published. The ``Seat`` rows make the database refuse a pair seated twice in the round.
    """
    now = timezone.now()
    rnd = Round.objects.create(
        tournament=tournament,
        number=number,
        status=status,
        seed=seed,
        draw_info=draw_info or {},
        published_at=now if status != Round.Status.DRAFT else None,
        finished_at=now if status == Round.Status.FINISHED else None,
    )
    rows = [
        Table(
            round=rnd,
            number=spec.number,
            is_bye=spec.ew is None,
            ns=spec.ns,
            ew=spec.ew,
            match=spec.match,
            reasons=_reason_dicts(spec.reasons),
            entry_status=Table.EntryStatus.CONFIRMED if spec.ew is None else Table.EntryStatus.OPEN,
        )
        for spec in tables
    ]
    created = Table.objects.bulk_create(rows)
    seats = []
    for table in created:
        if table.ew is None:
            seats.append(Seat(round=rnd, table=table, pair=table.ns, direction=Seat.Direction.BYE))
        else:
            seats.append(Seat(round=rnd, table=table, pair=table.ns, direction=Seat.Direction.NS))
            seats.append(Seat(round=rnd, table=table, pair=table.ew, direction=Seat.Direction.EW))
    Seat.objects.bulk_create(seats)
    return rnd, created


def _round_seed(tournament_seed: int | None, number: int) -> int:
    """Round 1 uses the tournament's seed itself (TOURNAMENT_FILE.md ``seed``); later rounds a
    value derived from it, so re-generating a deleted draft gives the same draw."""
    if tournament_seed is None:
        return secrets.randbelow(2**31)
    return tournament_seed if number == 1 else tournament_seed * 1000 + number


def _history(tournament: Tournament, before_round: int) -> dict[str, Any]:
    """Opponents, byes and directions of every pair in rounds < ``before_round`` (one query)."""
    opponents: dict[int, set[int]] = {}
    had_bye: set[int] = set()
    ns_count: dict[int, int] = {}
    ew_count: dict[int, int] = {}
    last_direction: dict[int, tuple[int, str]] = {}
    rows = Table.objects.filter(round__tournament=tournament, round__number__lt=before_round)
    for rnd, is_bye, ns, ew in rows.values_list(
        "round__number", "is_bye", "ns__number", "ew__number"
    ):
        if is_bye:
            had_bye.add(ns)
            continue
        opponents.setdefault(ns, set()).add(ew)
        opponents.setdefault(ew, set()).add(ns)
        ns_count[ns] = ns_count.get(ns, 0) + 1
        ew_count[ew] = ew_count.get(ew, 0) + 1
        for pair, direction in ((ns, "NS"), (ew, "EW")):
            if pair not in last_direction or last_direction[pair][0] < rnd:
                last_direction[pair] = (rnd, direction)
    return {
        "opponents": opponents,
        "had_bye": had_bye,
        "ns_count": ns_count,
        "ew_count": ew_count,
        "last_direction": {p: d for p, (_, d) in last_direction.items()},
    }


def swiss_input(tournament: Tournament, number: int) -> list[Any]:
    """The engine's ``SwissPair`` list for round ``number``: active pairs only (RULES.md §5:
    withdrawn or disqualified pairs are not paired), ranked by the standings after the previous
    round, which count CONFIRMED results only. Pair ids are the pairs' numbers."""
    from scoring.cache import cached_standings

    from .swiss import SwissPair

    active = list(
        Pair.objects.filter(tournament=tournament, status=Pair.Status.ACTIVE).select_related("unit")
    )
    rows = cached_standings(tournament, after_round=number - 1)
    order = {row.pair: index for index, row in enumerate(rows)}
    points = {row.pair: row.cf for row in rows}
    active.sort(key=lambda p: (order.get(p.number, len(order)), p.number))
    history = _history(tournament, number)
    result = []
    for rank, pair in enumerate(active, start=1):
        result.append(
            SwissPair(
                id=pair.number,
                rank=rank,
                match_points=points.get(pair.number, 0),
                unit=pair.unit.code if pair.unit_id else None,
                opponents=frozenset(history["opponents"].get(pair.number, ())),
                had_bye=pair.number in history["had_bye"],
                ns_count=history["ns_count"].get(pair.number, 0),
                ew_count=history["ew_count"].get(pair.number, 0),
                last_direction=history["last_direction"].get(pair.number),
                seeding=pair.seeding,
            )
        )
    return result


def generate_round(tournament: Tournament, user: Any = None) -> Round:
    """Pair the next round as a draft (round 1 by lot or seeding, later rounds Swiss).

    Refused while a round is a draft or published and unfinished, or when the planned number
    of rounds is reached. The engine's ``PairingError`` becomes a ``ServiceError`` with its code.
    """
    from .swiss import PairingError, SwissOptions, pair_round

    require_role(user, tournament, *ROUND_ROLES)
    with transaction.atomic():
        # Lock the tournament row: a second organizer's click waits here, then sees the draft.
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        rules = locked.rules
        if rules.event == "teams":
            raise ServiceError("teams_not_supported")
        last = Round.objects.filter(tournament=locked).order_by("-number").first()
        if last is not None and last.status != Round.Status.FINISHED:
            raise ServiceError("round_in_progress", number=last.number)
        number = last.number + 1 if last is not None else 1
        if rules.rounds is not None and number > rules.rounds:
            raise ServiceError("rounds_complete", rounds=rules.rounds)
        pairs = swiss_input(locked, number)
        if len(pairs) < 2:
            raise ServiceError("not_enough_pairs")
        seed = _round_seed(rules.seed, number)
        options = SwissOptions(same_unit=rules.same_unit, round1=rules.round1)
        try:
            draw = pair_round(pairs, number, options, random.Random(seed))
        except PairingError as exc:
            raise ServiceError(exc.code, **dict(getattr(exc, "params", {}) or {})) from exc
        by_number = {p.number: p for p in Pair.objects.filter(tournament=locked)}
        specs = [
            TableSpec(t.number, by_number[t.ns], by_number[t.ew], t.reasons) for t in draw.tables
        ]
        if draw.bye is not None:
            specs.append(
                TableSpec(len(draw.tables) + 1, by_number[draw.bye], None, draw.bye_reasons)
            )
        draw_info = {
            "bye": draw.bye,
            "bye_reasons": _reason_dicts(draw.bye_reasons),
            "same_unit_meetings": draw.same_unit_meetings,
            "total_gap": draw.total_gap,
        }
        rnd, _tables = create_round(locked, number, specs, seed=seed, draw_info=draw_info)
        audit(
            locked,
            "generate_round",
            user,
            round=rnd,
            after={"round": number, "seed": seed, "tables": len(draw.tables), "bye": draw.bye},
        )
    return rnd


def _lock_round(rnd: Round) -> Round:
    return Round.objects.select_for_update().select_related("tournament").get(pk=rnd.pk)


def publish_round(rnd: Round, user: Any = None) -> Round:
    """Draft → published: the tables become enterable and the pairing is public.

    RULES.md §5: a published pairing is never re-paired, whatever corrections come later.
    """
    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = _lock_round(rnd)
        if locked.status != Round.Status.DRAFT:
            raise ServiceError("round_not_draft")
        locked.status = Round.Status.PUBLISHED
        locked.published_at = timezone.now()
        locked.save(update_fields=["status", "published_at"])
        Tournament.objects.filter(pk=locked.tournament_id, status=Tournament.Status.SETUP).update(
            status=Tournament.Status.RUNNING
        )
        audit(locked.tournament_id, "publish_round", user, round=locked)
        # Its byes now count; the default "latest round" of the standings moved.
        bump_results_version(locked.tournament_id)
    return locked


def unpublish_round(rnd: Round, user: Any = None) -> Round:
    """Published → draft again (a wrong pairing noticed after publishing), while no table of
    the round has a result: no deal, no lateness start, no end, nothing submitted or confirmed,
    and no penalty recorded in the round. The tables get new entry links, so score sheets
    printed for the withdrawn pairing cannot enter results; the draft can then be swapped,
    deleted or published again. Audited; the standings' latest round moves back."""
    from scoring.models import Penalty, TableEvent

    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = _lock_round(rnd)
        if locked.status != Round.Status.PUBLISHED:
            raise ServiceError("round_not_published")
        tables = Table.objects.filter(round=locked, is_bye=False)
        touched = tables.filter(
            ~Q(entry_status=Table.EntryStatus.OPEN)
            | ~Q(end_kind="")
            | ~Q(start_ns=2)
            | ~Q(start_ew=2)
            | Q(pk__in=TableEvent.objects.filter(table__round=locked).values("table_id"))
        ).count()
        if touched:
            raise ServiceError("round_has_results", round=locked.number, count=touched)
        if Penalty.objects.filter(round=locked).exists():
            raise ServiceError("round_has_penalties", round=locked.number)
        for table in Table.objects.filter(round=locked).only("pk"):
            Table.objects.filter(pk=table.pk).update(
                entry_token=new_entry_token(), version=F("version") + 1
            )
        locked.status = Round.Status.DRAFT
        locked.published_at = None
        locked.save(update_fields=["status", "published_at"])
        if not Round.objects.filter(tournament_id=locked.tournament_id).exclude(
            status=Round.Status.DRAFT
        ):
            Tournament.objects.filter(pk=locked.tournament_id).update(
                status=Tournament.Status.SETUP
            )
        audit(locked.tournament_id, "unpublish_round", user, round=locked)
        bump_results_version(locked.tournament_id)
    return locked


def finish_round(rnd: Round, user: Any = None) -> Round:
    """Published → finished once every table is confirmed; table links stop working."""
    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = _lock_round(rnd)
        if locked.status != Round.Status.PUBLISHED:
            raise ServiceError("round_not_published")
        open_tables = (
            Table.objects.filter(round=locked)
            .exclude(entry_status=Table.EntryStatus.CONFIRMED)
            .count()
        )
        if open_tables:
            raise ServiceError("round_not_finishable", count=open_tables)
        locked.status = Round.Status.FINISHED
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "finished_at"])
        planned = locked.tournament.rules.rounds
        if planned is not None and locked.number >= planned:
            Tournament.objects.filter(pk=locked.tournament_id).update(
                status=Tournament.Status.FINISHED
            )
        audit(locked.tournament_id, "finish_round", user, round=locked)
        bump_results_version(locked.tournament_id)
    return locked


TABLE_ACTIONS = ("forfeit", "play")


def withdraw_seated_pair(
    pair: Pair,
    user: Any,
    table_action: str,
    reason: str = "",
    *,
    disqualify: bool = False,
) -> Table:
    """退赛 (or 取消资格) of a pair seated at a table of the round in play, deciding that table:
    ``forfeit`` ends it as the pair's forfeit (弃权, RULES.md §2) — the opponents win — or
    ``play`` leaves it to be played (the pair withdraws after this round). Either way the
    referee desk flags the table while it is unsettled. All or nothing."""
    from scoring.services import set_end
    from tournaments.permissions import is_referee
    from tournaments.services import disqualify_pair, withdraw_pair

    if table_action not in TABLE_ACTIONS:
        raise ServiceError("bad_table_choice")
    with transaction.atomic():
        table = live_table_of(pair)
        if table is None:
            raise ServiceError("pair_not_seated", pair=pair.number)
        (disqualify_pair if disqualify else withdraw_pair)(pair, user, reason)
        if table_action == "forfeit":
            side = "NS" if table.ns_id == pair.pk else "EW"
            # The forfeit is the withdrawal's consequence, decided by whoever may withdraw the
            # pair: an organizer who is no referee records it as the system, audited below.
            set_end(
                table, "forfeit", side, user if is_referee(user, pair.tournament) else None, None
            )
        audit(
            pair.tournament_id,
            "pair_status",
            user,
            table=table,
            after={"pair": pair.number, "status": pair.status, "table": table_action},
            reason=reason,
        )
    return table


def _seat_of(rnd: Round, pair: Pair) -> Seat:
    seat = Seat.objects.select_related("table").filter(round=rnd, pair=pair).first()
    if seat is None:
        raise ServiceError("pair_not_in_round", pair=pair.number)
    return seat


def _met_before(tournament_id: int, before_round: int, a: int, b: int) -> bool:
    return Table.objects.filter(
        Q(ns_id=a, ew_id=b) | Q(ns_id=b, ew_id=a),
        round__tournament_id=tournament_id,
        round__number__lt=before_round,
    ).exists()


def _table_view(table: Table) -> dict[str, Any]:
    return {
        "table": table.number,
        "ns": table.ns.number,
        "ew": table.ew.number if table.ew_id else None,
        "bye": table.is_bye,
    }


def draw_checks(rnd: Round) -> dict[str, Any]:
    """The draft's checks as its tables stand now (after any swap): the bye, the same-unit
    meetings and Σ|场分差| over the tables (the engine's ``SwissDraw`` figures). The engine's
    reasons for the bye are kept while the same pair has it. Three queries."""
    from scoring.cache import cached_standings

    tables = list(Table.objects.filter(round=rnd).select_related("ns", "ew"))
    points = {
        row.pair: row.cf for row in cached_standings(rnd.tournament, after_round=rnd.number - 1)
    }
    old = rnd.draw_info or {}
    bye = next((t.ns.number for t in tables if t.is_bye), None)
    same_unit = 0
    gap = 0.0
    for table in tables:
        if table.is_bye or table.ew is None:
            continue
        a, b = table.ns, table.ew
        if a.unit_id is not None and a.unit_id == b.unit_id:
            same_unit += 1
        gap += abs(points.get(a.number, 0) - points.get(b.number, 0))
    return {
        **old,
        "bye": bye,
        "bye_reasons": old.get("bye_reasons", []) if bye == old.get("bye") else [],
        "same_unit_meetings": same_unit,
        "total_gap": gap,
    }


def swap_pairs(rnd: Round, pair_a: Pair, pair_b: Pair, user: Any = None) -> list[PairingWarning]:
    """Swap two pairs' seats in a draft (also a pair with the bye, or NS with EW at one table).

    Audited. Returns warnings (not errors) when a resulting table is a rematch or a same-unit
    meeting; the organizer decides. Table versions are bumped so stale screens conflict.
    """
    require_role(user, rnd.tournament, *ROUND_ROLES)
    if pair_a.pk == pair_b.pk:
        raise ServiceError("same_pair")
    with transaction.atomic():
        locked = _lock_round(rnd)
        if locked.status != Round.Status.DRAFT:
            raise ServiceError("round_not_draft")
        seat_a, seat_b = _seat_of(locked, pair_a), _seat_of(locked, pair_b)
        tables = {seat_a.table_id, seat_b.table_id}
        before = [
            _table_view(t)
            for t in Table.objects.filter(pk__in=tables)
            .select_related("ns", "ew")
            .order_by("number")
        ]
        # Seats go first (unique (round, pair) would trip over a half-done swap), then tables.
        Seat.objects.filter(pk__in=[seat_a.pk, seat_b.pk]).delete()
        field = {"NS": "ns", "EW": "ew", "BYE": "ns"}
        if seat_a.table_id == seat_b.table_id:
            Table.objects.filter(pk=seat_a.table_id).update(
                **{field[seat_a.direction]: pair_b, field[seat_b.direction]: pair_a}
            )
        else:
            Table.objects.filter(pk=seat_a.table_id).update(**{field[seat_a.direction]: pair_b})
            Table.objects.filter(pk=seat_b.table_id).update(**{field[seat_b.direction]: pair_a})
        Seat.objects.bulk_create(
            [
                Seat(
                    round=locked, table_id=seat_a.table_id, pair=pair_b, direction=seat_a.direction
                ),
                Seat(
                    round=locked, table_id=seat_b.table_id, pair=pair_a, direction=seat_b.direction
                ),
            ]
        )
        Table.objects.filter(pk__in=tables).update(
            version=F("version") + 1, reasons=[{"code": "manual_swap", "params": {}}]
        )
        changed = list(
            Table.objects.filter(pk__in=tables)
            .select_related("ns__unit", "ew__unit")
            .order_by("number")
        )
        warnings: list[PairingWarning] = []
        avoid_units = locked.tournament.rules.same_unit == "avoid"
        for table in changed:
            if table.ew_id is None:
                continue
            a, b = table.ns, table.ew
            if _met_before(locked.tournament_id, locked.number, a.pk, b.pk):
                warnings.append(PairingWarning("rematch", a=a.number, b=b.number))
            if avoid_units and a.unit_id is not None and a.unit_id == b.unit_id:
                warnings.append(PairingWarning("same_unit", a=a.number, b=b.number))
        # The review's checks (同单位相遇, 场分差, the bye) follow the swap.
        Round.objects.filter(pk=locked.pk).update(draw_info=draw_checks(locked))
        audit(
            locked.tournament_id,
            "swap_pairs",
            user,
            round=locked,
            before=before,
            after={
                "tables": [_table_view(t) for t in changed],
                "warnings": [w.code for w in warnings],
            },
        )
    return warnings


def delete_draft(rnd: Round, user: Any = None) -> None:
    """Throw a draft away (its tables and seats); audit entries keep the round number."""
    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = _lock_round(rnd)
        if locked.status != Round.Status.DRAFT:
            raise ServiceError("round_not_draft")
        tables = [
            _table_view(t) for t in locked.tables.select_related("ns", "ew").order_by("number")
        ]
        audit(locked.tournament_id, "delete_draft", user, round=locked, before={"tables": tables})
        locked.delete()


__all__ = [
    "PairingWarning",
    "TableSpec",
    "create_round",
    "delete_draft",
    "finish_round",
    "generate_round",
    "publish_round",
    "swap_pairs",
    "swiss_input",
    "unpublish_round",
    "withdraw_seated_pair",
]
