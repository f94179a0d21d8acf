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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.lineups import Fielded, round_lineups
from tournaments.models import Pair, Round, Seat, Table, Team, Tournament, new_entry_token
from tournaments.permissions import ROUND_ROLES, require_role
from tournaments.queries import live_table_of
from tournaments.services import audit, bump_results_version

from .stages import next_stage, plan_stage_round, stage_finished


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
    group: str = ""  # a round-robin table's group (RULES.md §8)
    slot: int | None = None  # a knockout table's bracket slot


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
            reasons=_reason_dicts(spec.reasons),
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


def _round_seed(tournament_seed: int | None, number: int) -> int:
    """Round 1 uses the tournament's seed itself (TOURNAMENT_FILE.md ``seed``); later rounds a
    value derived from it, so re-generating a deleted draft gives the same draw."""
    if tournament_seed is None:
        return secrets.randbelow(2**31)
    return tournament_seed if number == 1 else tournament_seed * 1000 + number


def _seat_history(
    meetings: Iterable[tuple[int, int, int]],
) -> tuple[dict[int, set[int]], dict[int, int], dict[int, int], dict[int, str]]:
    """Opponents, NS and EW counts and the last direction of every entrant from its meetings
    ``(round, ns, ew)`` (pairs at a table; for teams, a match's first and second team)."""
    opponents: dict[int, set[int]] = {}
    ns_count: dict[int, int] = {}
    ew_count: dict[int, int] = {}
    last_direction: dict[int, tuple[int, str]] = {}
    for rnd, ns, ew in meetings:
        opponents.setdefault(ns, set()).add(ew)
        opponents.setdefault(ew, set()).add(ns)
        ns_count[ns] = ns_count.get(ns, 0) + 1
        ew_count[ew] = ew_count.get(ew, 0) + 1
        for entrant, direction in ((ns, "NS"), (ew, "EW")):
            if entrant not in last_direction or last_direction[entrant][0] < rnd:
                last_direction[entrant] = (rnd, direction)
    return opponents, ns_count, ew_count, {e: d for e, (_, d) in last_direction.items()}


def _history(tournament: Tournament, before_round: int) -> dict[str, Any]:
    """Opponents, byes and directions of every pair in rounds < ``before_round`` (one query)."""
    had_bye: set[int] = set()
    meetings: list[tuple[int, int, int]] = []
    rows = Table.objects.filter(round__tournament=tournament, round__number__lt=before_round)
    for rnd, is_bye, ns, ew in rows.values_list(
        "round__number", "is_bye", "ns__number", "ew__number"
    ):
        if is_bye:
            had_bye.add(ns)
        else:
            meetings.append((rnd, ns, ew))
    opponents, ns_count, ew_count, last_direction = _seat_history(meetings)
    return {
        "opponents": opponents,
        "had_bye": had_bye,
        "ns_count": ns_count,
        "ew_count": ew_count,
        "last_direction": last_direction,
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
        last = Round.objects.filter(tournament=locked).order_by("-number").first()
        if last is not None and last.status != Round.Status.FINISHED:
            raise ServiceError("round_in_progress", number=last.number)
        number = last.number + 1 if last is not None else 1
        if rules.stages:
            where = next_stage(locked)
            if where is None:
                raise ServiceError("stages_complete", stages=len(rules.stages))
            stage, starts = where
            if not rules.stage(stage).type.swiss_paired:
                return _generate_stage_round(locked, user, number, stage, starts)
        elif rules.rounds is not None and number > rules.rounds:
            raise ServiceError("rounds_complete", rounds=rules.rounds)
        if rules.event == "teams":
            return _generate_team_round(locked, number, user)
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


# --------------------------------------------------------------------------------------------
# Team events (RULES.md §6): the same Swiss engine pairs teams; match m = tables 2m − 1 and 2m


def _team_history(tournament: Tournament, before_round: int, team_of: dict[int, int]) -> Any:
    """Opponents, byes and directions of every team (by number) in rounds < ``before_round``:
    a match's first team (its NS pair at table 2m − 1) counts as sitting "NS" that round, the
    other "EW" — the direction the engine alternates. Two queries."""
    first_tables = Table.objects.filter(
        round__tournament=tournament,
        round__number__lt=before_round,
        match__isnull=False,
        number=F("match") * 2 - 1,
    )
    meetings = [
        (rnd, team_of[ns], team_of[ew])
        for rnd, ns, ew in first_tables.values_list("round__number", "ns__number", "ew__number")
        if ns in team_of and ew in team_of
    ]
    opponents, ns_count, ew_count, last_direction = _seat_history(meetings)
    had_bye = set(
        Round.objects.filter(
            tournament=tournament, number__lt=before_round, bye_team__isnull=False
        ).values_list("bye_team_id", flat=True)
    )
    return opponents, had_bye, ns_count, ew_count, last_direction


def team_swiss_input(tournament: Tournament, number: int) -> list[Any]:
    """The engine's ``SwissPair`` list for round ``number`` of a team event: one entrant per
    active team (id: its team number, ``scoring.results.TeamField``), ranked by the team
    standings after the previous round, its unit the team's unit — the same engine and
    priorities as pairs (RULES.md §6)."""
    from scoring.cache import cached_standings
    from scoring.results import team_field

    from .swiss import SwissPair

    field = team_field(tournament.pk)
    number_of = field.number_of_pk
    rows = cached_standings(tournament, after_round=number - 1, teams=True)
    order = {row.pair: index for index, row in enumerate(rows)}
    points = {row.pair: row.cf for row in rows}
    active = list(
        Team.objects.filter(tournament=tournament, status=Team.Status.ACTIVE).select_related("unit")
    )
    active.sort(key=lambda t: (order.get(number_of[t.pk], len(order)), number_of[t.pk]))
    opponents, had_bye, ns_count, ew_count, last = _team_history(tournament, number, field.team_of)
    result = []
    for rank, team in enumerate(active, start=1):
        n = number_of[team.pk]
        result.append(
            SwissPair(
                id=n,
                rank=rank,
                match_points=points.get(n, 0),
                unit=team.unit.code if team.unit_id else None,
                opponents=frozenset(opponents.get(n, ())),
                had_bye=team.pk in had_bye,
                ns_count=ns_count.get(n, 0),
                ew_count=ew_count.get(n, 0),
                last_direction=last.get(n),
            )
        )
    return result


def _team_reasons(reasons: Sequence[Any], codes: dict[int, str]) -> list[dict[str, Any]]:
    """The engine's reasons of a team draw, its entrant ids (``pair``) given as the teams'
    codes under ``team``."""
    out = []
    for reason in _reason_dicts(reasons):
        params = dict(reason["params"])
        if "pair" in params:
            params["team"] = codes.get(params.pop("pair"), "")
        out.append({"code": reason["code"], "params": params})
    return out


def match_tables(
    number: int, first: Fielded, second: Fielded
) -> tuple[tuple[int, Pair, Pair], tuple[int, Pair, Pair]]:
    """The crossed seating of match ``number`` (RULES.md §6, "甲桌的南北与甲1桌的东西互为队友"):
    the first team's NS pair against the second's EW pair at table 2m − 1, the second team's NS
    pair against the first's EW pair at table 2m."""
    return (2 * number - 1, first.ns, second.ew), (2 * number, second.ns, first.ew)


def _generate_team_round(locked: Tournament, number: int, user: Any) -> Round:
    """``generate_round`` of a team event (inside its transaction, the tournament locked)."""
    from scoring.results import team_field

    from .swiss import PairingError, SwissOptions, pair_round

    rules = locked.rules
    teams = team_swiss_input(locked, number)
    if len(teams) < 2:
        raise ServiceError("not_enough_teams")
    field = team_field(locked.pk)
    lineups = round_lineups(locked, number)
    by_pk = {t.pk: t for t in Team.objects.filter(tournament=locked)}
    for entrant in teams:
        if lineups.get(field.pks[entrant.id]) is None:
            raise ServiceError("team_cannot_field", team=field.codes[entrant.id])
    seed = _round_seed(rules.seed, number)
    options = SwissOptions(same_unit=rules.same_unit, round1=rules.round1)
    try:
        draw = pair_round(teams, number, options, random.Random(seed))
    except PairingError as exc:
        raise ServiceError(exc.code, **dict(getattr(exc, "params", {}) or {})) from exc
    specs: list[TableSpec] = []
    for table in draw.tables:
        first = lineups[field.pks[table.ns]]
        second = lineups[field.pks[table.ew]]
        assert first is not None and second is not None
        reasons = _team_reasons(table.reasons, field.codes)
        for t, ns, ew in match_tables(table.number, first, second):
            specs.append(TableSpec(t, ns, ew, reasons, match=table.number))
    bye_team = by_pk[field.pks[draw.bye]] if draw.bye is not None else None
    draw_info = {
        "bye_team": field.codes[draw.bye] if draw.bye is not None else None,
        "bye_reasons": _team_reasons(draw.bye_reasons, field.codes),
        "same_unit_meetings": draw.same_unit_meetings,
        "total_gap": draw.total_gap,
    }
    rnd, _tables = create_round(
        locked, number, specs, seed=seed, draw_info=draw_info, bye_team=bye_team
    )
    audit(
        locked,
        "generate_round",
        user,
        round=rnd,
        after={
            "round": number,
            "seed": seed,
            "matches": len(draw.tables),
            "bye_team": draw_info["bye_team"],
        },
    )
    return rnd


def _generate_stage_round(
    locked: Tournament, user: Any, number: int, stage: int, starts: bool
) -> Round:
    """The next round of a round-robin or knockout stage as a draft (``pairing.stages``);
    inside ``generate_round``'s transaction, the tournament row locked."""
    seed = _round_seed(locked.rules.seed, number)
    planned, info = plan_stage_round(locked, stage, starts, random.Random(seed))
    by_number = {p.number: p for p in Pair.objects.filter(tournament=locked)}
    specs = [
        TableSpec(
            t.number,
            by_number[t.ns],
            by_number[t.ew] if t.ew is not None else None,
            group=t.group,
            slot=t.slot,
        )
        for t in planned
    ]
    info["stage"] = stage
    rnd, _tables = create_round(locked, number, specs, seed=seed, draw_info=info, stage=stage)
    audit(
        locked,
        "generate_round",
        user,
        round=rnd,
        after={"round": number, "stage": stage, "seed": seed, "tables": len(specs)},
    )
    return rnd


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
        locked = _lock_round(rnd)
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
        before = _team_seating(locked)
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
        Table.objects.filter(pk__in=tables).update(
            version=F("version") + 1, reasons=[{"code": "manual_swap", "params": {}}]
        )
        locked.refresh_from_db()
        warnings = _team_warnings(locked, {team_a.pk, team_b.pk})
        Round.objects.filter(pk=locked.pk).update(draw_info=team_draw_checks(locked))
        audit(
            locked.tournament_id,
            "swap_pairs",
            user,
            round=locked,
            before=before,
            after={"matches": _team_seating(locked), "warnings": [w.code for w in warnings]},
        )
    return warnings


def _team_seating(rnd: Round) -> dict[str, Any]:
    return round_matches(rnd)


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
    from scoring.results import team_field

    field = team_field(rnd.tournament_id)
    opponents, *_rest = _team_history(rnd.tournament, rnd.number, field.team_of)
    number_of = field.number_of_pk
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


def team_draw_checks(rnd: Round) -> dict[str, Any]:
    """``draw_checks`` of a team round: the bye team, the same-unit matches and Σ|场分差|
    over the matches (team match points)."""
    from scoring.cache import cached_standings
    from scoring.results import team_field

    field = team_field(rnd.tournament_id)
    number_of = field.number_of_pk
    points = {
        row.pair: row.cf
        for row in cached_standings(rnd.tournament, after_round=rnd.number - 1, teams=True)
    }
    old = rnd.draw_info or {}
    bye = rnd.bye_team.code if rnd.bye_team_id else None
    same_unit = 0
    gap = 0.0
    for a, b in _team_meetings(rnd):
        if a.unit_id is not None and a.unit_id == b.unit_id:
            same_unit += 1
        gap += abs(points.get(number_of[a.pk], 0) - points.get(number_of[b.pk], 0))
    return {
        **old,
        "bye_team": bye,
        "bye_reasons": old.get("bye_reasons", []) if bye == old.get("bye_team") else [],
        "same_unit_meetings": same_unit,
        "total_gap": gap,
    }


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
        rules = locked.tournament.rules
        planned = rules.rounds
        if rules.stages:
            ends_stage = stage_finished(locked.tournament, locked.stage)
            done = ends_stage and locked.stage >= len(rules.stages)
        else:
            ends_stage = done = planned is not None and locked.number >= planned
        if ends_stage:
            # The stage's correction deadline counts from now (``scoring.deadlines``).
            locked.ends_stage = True
            locked.save(update_fields=["ends_stage"])
        if done:
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
    if rnd.tournament.rules.event == "teams":
        # A pair moved alone would break a match's crossed seating: whole teams move
        # (``swap_teams``), and a team's own pairs change places by its line-up.
        raise ServiceError("swap_whole_teams")
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
    "match_tables",
    "publish_round",
    "round_matches",
    "swap_pairs",
    "swap_teams",
    "swiss_input",
    "team_draw_checks",
    "team_swiss_input",
    "unpublish_round",
    "withdraw_seated_pair",
]
