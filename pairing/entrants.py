"""The entrants of the next Swiss round, from the database: pairs or teams through the same
functions (RULES.md §5, §6 — the same engine and priorities for both).

A field is the engine's ``SwissPair`` list — the active entrants ranked by the standings after
the previous round (CONFIRMED results only), with their match points, unit, opponents, bye and
directions so far — and how a draw of them is seated. What differs between pairs and teams is
only what an entrant is and where it sits:

- ``PairField``: an entrant is a pair (its id the pair's number), seated at one table; a bye is
  a bye table. Loaded in three queries: every pair with its unit, the standings (through the
  cache), every earlier table.
- ``TeamField`` (``team_field``): an entrant is a team (its id the team's number,
  ``scoring.results.TeamField``), playing a match at two tables with its line-up seated crossed
  (``pairing.draws.match_tables``); a bye is the round's ``bye_team``. A team meets another when
  their match's first table (2m − 1) is played; its first team counts as sitting "NS".

Every entrant's history (``History``) is read once, from every earlier round, and the field is
read once per generation: the draw and its tables come from the same objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db.models import F

from scoring.cache import cached_standings
from scoring.results import TeamField as TeamNumbers
from scoring.results import team_field as team_numbers
from tournaments.errors import ServiceError
from tournaments.lineups import Fielded, round_lineups
from tournaments.models import Pair, Round, Table, Team, Tournament

from .draws import TableSpec, match_tables, reason_dicts
from .swiss_problem import SwissDraw, SwissPair


@dataclass(frozen=True)
class History:
    """Every entrant's opponents, bye, NS and EW counts and last direction in the rounds
    before the one being drawn (entrants by id)."""

    opponents: dict[int, set[int]]
    had_bye: set[int]
    ns_count: dict[int, int]
    ew_count: dict[int, int]
    last_direction: dict[int, str]


def seat_history(meetings: Iterable[tuple[int, int, int]], byes: Iterable[int]) -> History:
    """The ``History`` of the meetings ``(round, ns, ew)`` (pairs at a table; for teams, a
    match's first and second team) and the entrants that had a bye."""
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
    return History(
        opponents,
        set(byes),
        ns_count,
        ew_count,
        {e: d for e, (_, d) in last_direction.items()},
    )


class Entrant(NamedTuple):
    """An active entrant as the engine knows it: its id, unit code and seeding."""

    id: int
    unit: str | None
    seeding: int | None = None


def swiss_pairs(
    entrants: Iterable[Entrant], standings: Iterable[Any], history: History
) -> list[SwissPair]:
    """The engine's input: ``entrants`` ranked by ``standings`` (rows whose ``pair`` is the
    entrant's id; an entrant without a row after those with one), then by id."""
    order: dict[int, int] = {}
    points: dict[int, float] = {}
    for index, row in enumerate(standings):
        order[row.pair] = index
        points[row.pair] = row.cf
    unranked = len(order)
    ranked = sorted(entrants, key=lambda e: (order.get(e.id, unranked), e.id))
    return [
        SwissPair(
            id=entrant.id,
            rank=rank,
            match_points=points.get(entrant.id, 0),
            unit=entrant.unit,
            opponents=frozenset(history.opponents.get(entrant.id, ())),
            had_bye=entrant.id in history.had_bye,
            ns_count=history.ns_count.get(entrant.id, 0),
            ew_count=history.ew_count.get(entrant.id, 0),
            last_direction=history.last_direction.get(entrant.id),
            seeding=entrant.seeding,
        )
        for rank, entrant in enumerate(ranked, start=1)
    ]


@dataclass(frozen=True)
class Seating:
    """A draw seated: the tables to write, the bye team (team events), the round's
    ``draw_info`` and what the audit entry of the generation records."""

    tables: list[TableSpec]
    bye_team: Team | None
    draw_info: dict[str, Any]
    summary: dict[str, Any]


def seating(
    draw: SwissDraw,
    tables: list[TableSpec],
    bye_team: Team | None,
    bye: tuple[str, Any],
    bye_reasons: list[dict[str, Any]],
    count: str,
) -> Seating:
    """The ``Seating`` of ``draw`` for either kind of entrant: ``bye`` is the key and value
    naming the bye (``"bye"`` and the pair's number, ``"bye_team"`` and the team's code) and
    ``count`` what the draw's tables are (``"tables"`` or ``"matches"``)."""
    key, value = bye
    draw_info = {
        key: value,
        "bye_reasons": bye_reasons,
        "same_unit_meetings": draw.same_unit_meetings,
        "total_gap": draw.total_gap,
    }
    return Seating(tables, bye_team, draw_info, {count: len(draw.tables), key: value})


# -- pairs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairField:
    """The pairs of a pairs event's next Swiss round: ``entrants`` for the engine (active
    pairs only, RULES.md §5), ``pairs`` every registered pair by number."""

    entrants: list[SwissPair]
    pairs: dict[int, Pair]

    def check(self) -> None:
        """Refuse a draw of fewer than two pairs."""
        if len(self.entrants) < 2:
            raise ServiceError("not_enough_pairs")

    def seat(self, draw: SwissDraw) -> Seating:
        """One table per meeting, numbered as drawn, and the bye table after them."""
        pairs = self.pairs
        tables = [TableSpec(t.number, pairs[t.ns], pairs[t.ew], t.reasons) for t in draw.tables]
        if draw.bye is not None:
            tables.append(TableSpec(len(draw.tables) + 1, pairs[draw.bye], None, draw.bye_reasons))
        return seating(
            draw, tables, None, ("bye", draw.bye), reason_dicts(draw.bye_reasons), "tables"
        )


def pair_history(tournament: Tournament, before_round: int, number_of: dict[int, int]) -> History:
    """The pairs' ``History`` (by number) in rounds < ``before_round``: one query over the
    earlier tables; ``number_of`` maps every pair's id to its number."""
    byes: list[int] = []
    meetings: list[tuple[int, int, int]] = []
    rows = Table.objects.filter(round__tournament=tournament, round__number__lt=before_round)
    for rnd, is_bye, ns, ew in rows.values_list("round__number", "is_bye", "ns_id", "ew_id"):
        if is_bye:
            byes.append(number_of[ns])
        else:
            meetings.append((rnd, number_of[ns], number_of[ew]))
    return seat_history(meetings, byes)


def pair_field(tournament: Tournament, number: int) -> PairField:
    """The ``PairField`` of round ``number`` (three queries, the standings cached)."""
    pairs = list(Pair.objects.filter(tournament=tournament).select_related("unit"))
    standings = cached_standings(tournament, after_round=number - 1)
    history = pair_history(tournament, number, {p.pk: p.number for p in pairs})
    entrants = [
        Entrant(p.number, p.unit.code if p.unit_id else None, p.seeding)
        for p in pairs
        if p.status == Pair.Status.ACTIVE
    ]
    return PairField(swiss_pairs(entrants, standings, history), {p.number: p for p in pairs})


# -- teams ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TeamField:
    """The teams of a team event's next Swiss round: ``entrants`` for the engine (active
    teams), ``numbers`` the teams' numbering, ``teams`` every team by id and ``lineups`` the
    round's line-ups by team id (None: the team cannot field two pairs)."""

    entrants: list[SwissPair]
    numbers: TeamNumbers
    teams: dict[int, Team]
    lineups: dict[int, Fielded | None]

    def check(self) -> None:
        """Refuse a draw of fewer than two teams, or with a team that cannot field two pairs."""
        if len(self.entrants) < 2:
            raise ServiceError("not_enough_teams")
        numbers = self.numbers
        for entrant in self.entrants:
            if self.lineups.get(numbers.pks[entrant.id]) is None:
                raise ServiceError("team_cannot_field", team=numbers.codes[entrant.id])

    def seat(self, draw: SwissDraw) -> Seating:
        """Two tables per match, the line-ups seated crossed; the bye is the round's."""
        numbers = self.numbers
        tables: list[TableSpec] = []
        for meeting in draw.tables:
            first = self.lineups[numbers.pks[meeting.ns]]
            second = self.lineups[numbers.pks[meeting.ew]]
            assert first is not None and second is not None
            reasons = team_reasons(meeting.reasons, numbers.codes)
            for t, ns, ew in match_tables(meeting.number, first, second):
                tables.append(TableSpec(t, ns, ew, reasons, match=meeting.number))
        bye = draw.bye
        bye_team = self.teams[numbers.pks[bye]] if bye is not None else None
        code = numbers.codes[bye] if bye is not None else None
        return seating(
            draw,
            tables,
            bye_team,
            ("bye_team", code),
            team_reasons(draw.bye_reasons, numbers.codes),
            "matches",
        )


def team_reasons(reasons: Sequence[Any], codes: dict[int, str]) -> list[dict[str, Any]]:
    """The engine's reasons of a team draw, its entrant ids (``pair``) given as the teams'
    codes under ``team``."""
    out = []
    for reason in reason_dicts(reasons):
        params = dict(reason["params"])
        if "pair" in params:
            params["team"] = codes.get(params.pop("pair"), "")
        out.append({"code": reason["code"], "params": params})
    return out


def team_history(tournament: Tournament, before_round: int, numbers: TeamNumbers) -> History:
    """The teams' ``History`` (by number) in rounds < ``before_round``: a match's first team
    (its NS pair at table 2m − 1) counts as sitting "NS" that round, the other "EW" — the
    direction the engine alternates. Two queries."""
    team_of = numbers.team_of
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
    number_of = numbers.number_of_pk
    byes = Round.objects.filter(
        tournament=tournament, number__lt=before_round, bye_team__isnull=False
    ).values_list("bye_team_id", flat=True)
    return seat_history(meetings, (number_of[pk] for pk in byes))


def team_field(tournament: Tournament, number: int) -> TeamField:
    """The ``TeamField`` of round ``number``: the teams' numbering, every team with its unit,
    the team standings (through the cache), the history and the line-ups."""
    numbers = team_numbers(tournament.pk)
    standings = cached_standings(tournament, after_round=number - 1, teams=True)
    teams = {t.pk: t for t in Team.objects.filter(tournament=tournament).select_related("unit")}
    history = team_history(tournament, number, numbers)
    number_of = numbers.number_of_pk
    entrants = [
        Entrant(number_of[t.pk], t.unit.code if t.unit_id else None)
        for t in teams.values()
        if t.status == Team.Status.ACTIVE
    ]
    lineups = round_lineups(tournament, number)
    return TeamField(swiss_pairs(entrants, standings, history), numbers, teams, lineups)


def swiss_input(tournament: Tournament, number: int) -> list[SwissPair]:
    """The engine's ``SwissPair`` list for round ``number`` of a pairs event: active pairs only
    (RULES.md §5: withdrawn or disqualified pairs are not paired), ranked by the standings after
    the previous round, which count CONFIRMED results only. Pair ids are the pairs' numbers."""
    return pair_field(tournament, number).entrants


def team_swiss_input(tournament: Tournament, number: int) -> list[SwissPair]:
    """The engine's ``SwissPair`` list for round ``number`` of a team event: one entrant per
    active team (id: its team number, ``scoring.results.TeamField``), ranked by the team
    standings after the previous round, its unit the team's unit — the same engine and
    priorities as pairs (RULES.md §6)."""
    return team_field(tournament, number).entrants
