"""Writing a drawn round: its tables and seats in bulk, the seed of its draw, the engine's reasons
as stored, the crossed seating of a team match (RULES.md §6), and the lock every later change of
the round takes.

For ``pairing.services`` (generation, the round's life cycle) and ``pairing.review`` (swaps).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from tournaments.lineups import Fielded
from tournaments.models import Pair, Round, Seat, Table, Team, Tournament


@dataclass(frozen=True)
class TableSpec:
    """One row of a round to create: a match (``ew`` set) or a bye (``ew`` None)."""

    number: int
    ns: Pair
    ew: Pair | None
    reasons: Sequence[Any] = ()  # the engine's reasons, or dicts (stored by ``reason_dicts``)
    match: int | None = None
    group: str = ""  # a round-robin table's group (RULES.md §8)
    slot: int | None = None  # a knockout table's bracket slot


def reason_dicts(reasons: Sequence[Any]) -> list[dict[str, Any]]:
    """The engine's reasons (``Reason`` objects or dicts) as stored: ``{"code", "params"}``."""
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
    bye_team: Team | None = None,
    stage: int = 1,
) -> tuple[Round, list[Table]]:
    """Write a round, its tables and seats in bulk (for ``generate_round`` and the importer).

    Call inside ``transaction.atomic()`` with the tournament row locked. Bye rows are confirmed
    at once (there is nothing to enter); they count in the standings once the round is
    published. The ``Seat`` rows make the database refuse a pair seated twice in the round.
    ``bye_team``: a team event's bye (``Round.bye_team``), which has no table.
    """
    now = timezone.now()
    rnd = Round.objects.create(
        tournament=tournament,
        number=number,
        stage=stage,
        status=status,
        seed=seed,
        draw_info=draw_info or {},
        bye_team=bye_team,
        published_at=now if status != Round.Status.DRAFT else None,
        finished_at=now if status == Round.Status.FINISHED else None,
    )
    # Foreign keys by id (``round_id``, ``ns_id`` …): assigning instances goes through Django's
    # related descriptors, a third of the time at 2,000 tables (benchmarks/teams.py).
    rows = [
        Table(
            round_id=rnd.pk,
            number=spec.number,
            is_bye=spec.ew is None,
            ns_id=spec.ns.pk,
            ew_id=spec.ew.pk if spec.ew is not None else None,
            match=spec.match,
            group=spec.group,
            slot=spec.slot,
            reasons=reason_dicts(spec.reasons),
            entry_status=Table.EntryStatus.CONFIRMED if spec.ew is None else Table.EntryStatus.OPEN,
        )
        for spec in tables
    ]
    created = Table.objects.bulk_create(rows)
    seats = []
    for table in created:
        if table.ew_id is None:
            seats.append(
                Seat(round_id=rnd.pk, table_id=table.pk, pair_id=table.ns_id, direction="BYE")
            )
        else:
            seats.append(
                Seat(round_id=rnd.pk, table_id=table.pk, pair_id=table.ns_id, direction="NS")
            )
            seats.append(
                Seat(round_id=rnd.pk, table_id=table.pk, pair_id=table.ew_id, direction="EW")
            )
    Seat.objects.bulk_create(seats)
    return rnd, created


def round_seed(tournament_seed: int | None, number: int) -> int:
    """Round 1 uses the tournament's seed itself (TOURNAMENT_FILE.md ``seed``); later rounds a
    value derived from it, so re-generating a deleted draft gives the same draw."""
    if tournament_seed is None:
        return secrets.randbelow(2**31)
    return tournament_seed if number == 1 else tournament_seed * 1000 + number


def match_tables(
    number: int, first: Fielded, second: Fielded
) -> tuple[tuple[int, Pair, Pair], tuple[int, Pair, Pair]]:
    """The crossed seating of match ``number`` (RULES.md §6, "甲桌的南北与甲1桌的东西互为队友"):
    the first team's NS pair against the second's EW pair at table 2m − 1, the second team's NS
    pair against the first's EW pair at table 2m."""
    return (2 * number - 1, first.ns, second.ew), (2 * number, second.ns, first.ew)


def lock_round(rnd: Round) -> Round:
    """The round row locked (``select_for_update``) with its tournament: what every change of
    a drawn round (publish, unpublish, finish, swap, delete) takes first."""
    return Round.objects.select_for_update().select_related("tournament").get(pk=rnd.pk)
