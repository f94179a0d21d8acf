"""Team matches as the pages show them (复式/团体, RULES.md §6): the two tables of each match of
a team round, the teams, each table scored, the combined result once both tables are confirmed,
and whether the two tables disagree in the number of deals played.

Match *m* is tables 2m − 1 (甲) and 2m (甲1): the *home* team has its NS pair at 甲 and its EW
pair at 甲1, the *away* team the other two seats. Each table is scored as today
(``scoring.facts.score_table``); the combination is ``scoring.teams.team_round_outcomes``, the
one the standings use. Both tables play the same boards, so two tables that played out their
deals (no 过A, no forfeit / 判负 / late sheet, no extra deal) with different counts are flagged
for the referee desk.

Reads only: four queries for any number of matches (tables, events, membership, teams).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from rules.errors import GuandanError
from rules.ruleset import RuleSet
from scoring.engine import MatchResult, match_outcomes
from scoring.facts import FACT_COLUMNS, MatchFacts, score_table, tokens_by_table
from scoring.standings import Outcome
from scoring.teams import team_round_outcomes
from tournaments.models import Round, Table, Team
from tournaments.wording import table_state, table_state_label

from .models import TableEvent


@dataclass(frozen=True, slots=True)
class MatchTable:
    """One table of a team match: its number, pairs (numbers), state and score."""

    pk: int
    number: int
    ns: int
    ew: int
    entry_status: str
    result: MatchResult | None  # None: the facts do not score (a refused record)

    @property
    def confirmed(self) -> bool:
        return self.entry_status == Table.EntryStatus.CONFIRMED

    @property
    def deals_played(self) -> int:
        return self.result.deals_played if self.result is not None else 0

    @property
    def state_label(self) -> str:
        """The table's state in the active language (as on the desk and the round page)."""
        has_facts = self.result is not None and (bool(self.result.events) or self.result.end)
        return table_state_label(
            table_state(self.entry_status, is_bye=False, has_facts=bool(has_facts))
        )

    @property
    def played_out(self) -> bool:
        """Ended by its deals alone: the count that both tables of a match should share."""
        r = self.result
        return (
            r is not None
            and r.passed_a is None
            and r.end is None
            and not r.extra_deal
            and self.entry_status != Table.EntryStatus.OPEN
        )


@dataclass(frozen=True, slots=True)
class TeamMatch:
    """Match ``number`` of round ``round``: ``home`` has its NS pair at 甲 (table 2m − 1)."""

    round: int
    number: int
    home: Team | None
    away: Team | None
    tables: tuple[MatchTable, ...]
    home_outcome: Outcome | None = None  # the combined result, once both tables are confirmed
    away_outcome: Outcome | None = None

    @property
    def confirmed(self) -> bool:
        return len(self.tables) == 2 and all(t.confirmed for t in self.tables)

    @property
    def deals_disagree(self) -> bool:
        """Both tables played out their deals, in different numbers (the same boards)."""
        return (
            len(self.tables) == 2
            and all(t.played_out for t in self.tables)
            and self.tables[0].deals_played != self.tables[1].deals_played
        )

    def involves(self, team: Team) -> bool:
        return team.pk in (getattr(self.home, "pk", None), getattr(self.away, "pk", None))

    def outcome_of(self, team: Team) -> Outcome | None:
        if self.home is not None and team.pk == self.home.pk:
            return self.home_outcome
        if self.away is not None and team.pk == self.away.pk:
            return self.away_outcome
        return None

    def opponent_of(self, team: Team) -> Team | None:
        if self.home is not None and team.pk == self.home.pk:
            return self.away
        return self.home


def team_matches(tables: QuerySet[Table], rules: RuleSet) -> list[TeamMatch]:
    """The team matches of ``tables`` (any tables with a ``match``; both tables of each match
    should be included), by round and match number; each scored by its stage's rules
    (``RuleSet.for_stage``)."""
    tables = tables.filter(match__isnull=False)
    rows = list(
        tables.order_by("round__number", "number").values_list(
            "pk",
            "round__number",
            "round__tournament_id",
            "round__stage",
            "number",
            "match",
            "entry_status",
            "ns_id",
            "ew_id",
            "ns__number",
            "ew__number",
            *FACT_COLUMNS,
        )
    )
    if not rows:
        return []
    tokens = tokens_by_table(TableEvent.objects.filter(table__in=[r[0] for r in rows]))
    tournament_id = rows[0][2]
    through = Team.pairs.through
    team_of_pk = dict(
        through.objects.filter(team__tournament_id=tournament_id).values_list("pair_id", "team_id")
    )
    teams = Team.objects.filter(tournament_id=tournament_id).in_bulk()
    grouped: dict[tuple[int, int], list[tuple[MatchTable, int | None, int | None]]] = {}
    stage_of: dict[int, int] = {}
    for pk, rnd, _t, stage, number, match, status, ns_pk, ew_pk, ns, ew, *columns in rows:
        stage_of[rnd] = stage
        facts = MatchFacts.from_columns(*columns, tokens=tokens.get(pk, ()))
        try:
            result: MatchResult | None = score_table(facts, rules.for_stage(stage))
        except GuandanError:
            result = None
        table = MatchTable(pk, number, ns, ew, status, result)
        grouped.setdefault((rnd, match), []).append(
            (table, team_of_pk.get(ns_pk), team_of_pk.get(ew_pk))
        )
    return [
        _match(rnd, match, listed, teams, rules.for_stage(stage_of[rnd]))
        for (rnd, match), listed in sorted(grouped.items())
    ]


def _match(
    rnd: int,
    number: int,
    listed: list[tuple[MatchTable, int | None, int | None]],
    teams: dict[int, Team],
    rules: RuleSet,
) -> TeamMatch:
    first = next((item for item in listed if item[0].number == 2 * number - 1), listed[0])
    home, away = teams.get(first[1] or 0), teams.get(first[2] or 0)
    tables = tuple(item[0] for item in listed)
    match = TeamMatch(rnd, number, home, away, tables)
    if not match.confirmed or home is None or away is None:
        return match
    if any(t.result is None for t in tables):
        return match
    team_of: dict[int, int] = {}
    outcomes: list[Outcome] = []
    for table, ns_team, ew_team in listed:
        assert table.result is not None
        team_of[table.ns], team_of[table.ew] = ns_team or 0, ew_team or 0
        outcomes.extend(match_outcomes(rnd, table.ns, table.ew, table.result))
    try:
        combined = {o.pair: o for o in team_round_outcomes(rnd, outcomes, team_of, rules)}
    except GuandanError:
        return match
    return TeamMatch(rnd, number, home, away, tables, combined.get(home.pk), combined.get(away.pk))


def round_team_matches(rnd: Round) -> list[TeamMatch]:
    """Every team match of round ``rnd``."""
    return team_matches(Table.objects.filter(round=rnd), rnd.tournament.rules)


def matches_of_team(team: Team, rounds: Iterable[Round]) -> list[TeamMatch]:
    """The matches team ``team`` played in ``rounds`` (both tables of each)."""
    pair_ids = list(Team.pairs.through.objects.filter(team=team).values_list("pair_id", flat=True))
    mine = Table.objects.filter(round__in=list(rounds), match__isnull=False).filter(
        Q(ns_id__in=pair_ids) | Q(ew_id__in=pair_ids)
    )
    keys = set(mine.values_list("round_id", "match"))
    if not keys:
        return []
    condition = Q()
    for round_id, match in keys:
        condition |= Q(round_id=round_id, match=match)
    return team_matches(Table.objects.filter(condition), team.tournament.rules)


__all__ = ["MatchTable", "TeamMatch", "matches_of_team", "round_team_matches", "team_matches"]
