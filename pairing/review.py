"""A draft under review: the checks the organizer reads (同单位相遇, Σ|场分差|, the bye), the
swaps by hand — two pairs' seats, or two teams' places in a team event — and a team round's
matches as the ``pair_round`` command prints them.

Every swap locks the round (``pairing.draws.lock_round``), is refused unless the round is a draft,
bumps the changed tables' versions (stale screens conflict), re-checks the draft and is audited.
A swap that makes a rematch or a same-unit meeting is not refused: it returns ``PairingWarning``s
and the organizer decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import F, Q

from scoring.cache import cached_standings
from scoring.results import team_field as team_numbers
from tournaments.errors import ServiceError
from tournaments.lineups import round_lineups
from tournaments.models import Pair, Round, Seat, Table, Team
from tournaments.permissions import ROUND_ROLES, require_role
from tournaments.services import audit

from .draws import lock_round
from .entrants import team_history


class PairingWarning(ServiceError):
    """Returned (not raised) by ``swap_pairs``: ``rematch`` or ``same_unit``."""


def draw_checks(rnd: Round) -> dict[str, Any]:
    """The draft's checks as its tables stand now (after any swap): the bye, the same-unit
    meetings and Σ|场分差| over the tables (the engine's ``SwissDraw`` figures). The engine's
    reasons for the bye are kept while the same pair has it. Three queries."""
    tables = list(Table.objects.filter(round=rnd).select_related("ns", "ew"))
    points = {
        row.pair: row.cf for row in cached_standings(rnd.tournament, after_round=rnd.number - 1)
    }
    meetings = [
        (t.ns.unit_id, t.ew.unit_id, t.ns.number, t.ew.number)
        for t in tables
        if not t.is_bye and t.ew is not None
    ]
    bye = next((t.ns.number for t in tables if t.is_bye), None)
    return _checks(rnd, ("bye", bye), meetings, points)


def team_draw_checks(rnd: Round) -> dict[str, Any]:
    """``draw_checks`` of a team round: the bye team, the same-unit matches and Σ|场分差|
    over the matches (team match points)."""
    number_of = team_numbers(rnd.tournament_id).number_of_pk
    points = {
        row.pair: row.cf
        for row in cached_standings(rnd.tournament, after_round=rnd.number - 1, teams=True)
    }
    meetings = [
        (a.unit_id, b.unit_id, number_of[a.pk], number_of[b.pk]) for a, b in _team_meetings(rnd)
    ]
    bye = rnd.bye_team.code if rnd.bye_team_id else None
    return _checks(rnd, ("bye_team", bye), meetings, points)


def _checks(
    rnd: Round,
    bye: tuple[str, Any],
    meetings: Iterable[tuple[int | None, int | None, int, int]],
    points: dict[int, float],
) -> dict[str, Any]:
    """The checks of a draft, pairs or teams alike: ``bye`` the key and value naming its bye,
    ``meetings`` each table's (or match's) two units and entrant ids, ``points`` the entrants'
    match points before the round. The engine's reasons for the bye are kept while the same
    entrant has it."""
    key, value = bye
    old = rnd.draw_info or {}
    same_unit = 0
    gap = 0.0
    for unit_a, unit_b, a, b in meetings:
        if unit_a is not None and unit_a == unit_b:
            same_unit += 1
        gap += abs(points.get(a, 0) - points.get(b, 0))
    return {
        **old,
        key: value,
        "bye_reasons": old.get("bye_reasons", []) if value == old.get(key) else [],
        "same_unit_meetings": same_unit,
        "total_gap": gap,
    }


def _mark_swapped(tables: Iterable[int]) -> None:
    """The swapped tables: their versions bumped (a stale screen conflicts), their reasons a
    swap by hand."""
    Table.objects.filter(pk__in=tables).update(
        version=F("version") + 1, reasons=[{"code": "manual_swap", "params": {}}]
    )


def _record_swap(
    locked: Round, user: Any, checks: dict[str, Any], before: Any, after: dict[str, Any]
) -> None:
    """The review's checks (同单位相遇, 场分差, the bye) follow the swap, which is audited."""
    Round.objects.filter(pk=locked.pk).update(draw_info=checks)
    audit(locked.tournament_id, "swap_pairs", user, round=locked, before=before, after=after)


# -- pairs --------------------------------------------------------------------------------------


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


def table_view(table: Table) -> dict[str, Any]:
    return {
        "table": table.number,
        "ns": table.ns.number,
        "ew": table.ew.number if table.ew_id else None,
        "bye": table.is_bye,
    }


def swap_pairs(rnd: Round, pair_a: Pair, pair_b: Pair, user: Any = None) -> list[PairingWarning]:
    """Swap two pairs' seats in a draft (also a pair with the bye, or NS with EW at one table).

    Audited. Returns warnings (not errors) when a resulting table is a rematch or a same-unit
    meeting; the organizer decides. Table versions are bumped so stale screens conflict.
    """
    require_role(user, rnd.tournament, *ROUND_ROLES)
    if pair_a.pk == pair_b.pk:
        raise ServiceError("same_pair")
    if rnd.tournament.rules.event == "teams":
        # A pair moved alone would break a match's crossed seating: whole teams move
        # (``swap_teams``), and a team's own pairs change places by its line-up.
        raise ServiceError("swap_whole_teams")
    with transaction.atomic():
        locked = lock_round(rnd)
        if locked.status != Round.Status.DRAFT:
            raise ServiceError("round_not_draft")
        seat_a, seat_b = _seat_of(locked, pair_a), _seat_of(locked, pair_b)
        tables = {seat_a.table_id, seat_b.table_id}
        before = [
            table_view(t)
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
        _mark_swapped(tables)
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
        after = {"tables": [table_view(t) for t in changed], "warnings": [w.code for w in warnings]}
        _record_swap(locked, user, draw_checks(locked), before, after)
    return warnings


# -- teams --------------------------------------------------------------------------------------


def round_matches(rnd: Round) -> dict[str, Any]:
    """A team round as ``pair_round --json`` prints it (TOURNAMENT_FILE.md "Team events"):
    ``{"round", "matches": [{"match", "teams": [x, y], "tables": [{"table", "ns", "ew"}, …]}],
    "bye_team"}``, teams by their codes (the file's ids) and pairs by number. Two queries."""
    team_of = {
        pair: code
        for pair, code in Team.pairs.through.objects.filter(
            team__tournament_id=rnd.tournament_id
        ).values_list("pair__number", "team__code")
    }
    matches: dict[int, dict[str, Any]] = {}
    for number, match, ns, ew in (
        Table.objects.filter(round=rnd, match__isnull=False)
        .order_by("number")
        .values_list("number", "match", "ns__number", "ew__number")
    ):
        item = matches.setdefault(match, {"match": match, "teams": [], "tables": []})
        if number == 2 * match - 1:
            item["teams"] = [team_of.get(ns), team_of.get(ew)]
        item["tables"].append({"table": number, "ns": ns, "ew": ew})
    bye = rnd.bye_team.code if rnd.bye_team_id else None
    return {"round": rnd.number, "matches": list(matches.values()), "bye_team": bye}


def swap_teams(rnd: Round, team_a: Team, team_b: Team, user: Any = None) -> list[PairingWarning]:
    """Swap two teams' places in a team event's draft: each takes the other's seats (its NS
    pair the other's NS seat, its EW pair the other's EW seat), or the bye. Audited; returns
    warnings (``rematch``, ``same_unit``, with the teams' codes) as ``swap_pairs`` does."""
    require_role(user, rnd.tournament, *ROUND_ROLES)
    if team_a.pk == team_b.pk:
        raise ServiceError("same_team")
    with transaction.atomic():
        locked = lock_round(rnd)
        if locked.status != Round.Status.DRAFT:
            raise ServiceError("round_not_draft")
        lineups = round_lineups(locked.tournament, locked.number)
        seats: dict[int, dict[str, Seat]] = {}
        for team in (team_a, team_b):
            if team.tournament_id != locked.tournament_id:
                raise ServiceError("wrong_tournament")
            members = team.pairs.values_list("pk", flat=True)
            found = Seat.objects.filter(round=locked, pair_id__in=list(members))
            seats[team.pk] = {s.direction: s for s in found}
            if not seats[team.pk] and locked.bye_team_id != team.pk:
                raise ServiceError("team_not_in_round", team=team.code)
        before = round_matches(locked)
        Seat.objects.filter(pk__in=[s.pk for d in seats.values() for s in d.values()]).delete()
        new: list[Seat] = []
        for mover, other in ((team_a, team_b), (team_b, team_a)):
            target = seats[other.pk]
            fielded = lineups.get(mover.pk)
            if not target:  # the other had the bye: the mover takes it
                if Round.objects.filter(
                    tournament_id=locked.tournament_id, bye_team=mover
                ).exists():
                    # RULES.md §5/§6: at most one bye (the database refuses a second one too).
                    raise ServiceError("team_had_bye", team=mover.code)
                Round.objects.filter(pk=locked.pk).update(bye_team=mover)
                continue
            if fielded is None:
                raise ServiceError("team_cannot_field", team=mover.code)
            for direction, seat in target.items():
                pair = fielded.ns if direction == Seat.Direction.NS else fielded.ew
                field = "ns" if direction == Seat.Direction.NS else "ew"
                Table.objects.filter(pk=seat.table_id).update(**{field: pair})
                new.append(
                    Seat(round=locked, table_id=seat.table_id, pair=pair, direction=direction)
                )
        Seat.objects.bulk_create(new)
        tables = [s.table_id for d in seats.values() for s in d.values()]
        _mark_swapped(tables)
        locked.refresh_from_db()
        warnings = _team_warnings(locked, {team_a.pk, team_b.pk})
        after = {"matches": round_matches(locked), "warnings": [w.code for w in warnings]}
        _record_swap(locked, user, team_draw_checks(locked), before, after)
    return warnings


def _team_meetings(rnd: Round) -> list[tuple[Team, Team]]:
    """The draft's matches as (first team, second team), from tables 2m − 1 (three queries)."""
    teams = {t.pk: t for t in Team.objects.filter(tournament_id=rnd.tournament_id)}
    team_by_pair = dict(
        Team.pairs.through.objects.filter(team__tournament_id=rnd.tournament_id).values_list(
            "pair_id", "team_id"
        )
    )
    return [
        (teams[team_by_pair[ns]], teams[team_by_pair[ew]])
        for ns, ew in Table.objects.filter(
            round=rnd, match__isnull=False, number=F("match") * 2 - 1
        ).values_list("ns_id", "ew_id")
        if ns in team_by_pair and ew in team_by_pair
    ]


def _team_warnings(rnd: Round, teams: set[int]) -> list[PairingWarning]:
    numbers = team_numbers(rnd.tournament_id)
    opponents = team_history(rnd.tournament, rnd.number, numbers).opponents
    number_of = numbers.number_of_pk
    avoid = rnd.tournament.rules.same_unit == "avoid"
    warnings: list[PairingWarning] = []
    for a, b in _team_meetings(rnd):
        if a.pk not in teams and b.pk not in teams:
            continue
        if number_of[b.pk] in opponents.get(number_of[a.pk], ()):
            warnings.append(PairingWarning("team_rematch", a=a.code, b=b.code))
        if avoid and a.unit_id is not None and a.unit_id == b.unit_id:
            warnings.append(PairingWarning("team_same_unit", a=a.code, b=b.code))
    return warnings
