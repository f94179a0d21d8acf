"""The confirmed results as the standings read them: every confirmed table of the published and
finished rounds scored from its stored facts (``scoring.facts``), byes, the live deductions, and
the full computation ``standings_from_db`` that the cache (``scoring.cache``) falls back to.
Reads only."""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from django.db.models import QuerySet

from rules.ruleset import RuleSet
from scoring.engine import bye_outcome, match_outcomes
from scoring.facts import (
    FACT_COLUMNS,
    MatchFacts,
    score_table,
    tokens_by_table,
)
from scoring.standings import Deduction, Outcome, StandingRow, compute_standings
from scoring.teams import team_deductions, team_outcomes
from tournaments.models import Pair, Round, Table, Team, Tournament

from .models import Penalty, TableEvent

# The statuses of the rounds that count, as ``scoring.services`` still names them: ask
# ``Round.objects.counted()`` / ``Table.objects.counted()`` instead.
COUNTED_ROUNDS = Round.COUNTED


def latest_round_number(tournament: Tournament) -> int:
    """The last published or finished round (0 before any)."""
    numbers = Round.objects.counted().filter(tournament=tournament).order_by("-number")
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
    return Table.objects.counted().filter(
        round__tournament_id=tournament_id, entry_status=Table.EntryStatus.CONFIRMED
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
    scored_knockout: list[ScoredTable] = []
    knockouts = [k for k, stage in enumerate(rules.stage_list, 1) if not stage.type.gives_points]
    if knockouts:
        # RULES.md §8: a knockout decides places, not standings points; its tables (and their
        # games) are read by ``scoring.stage_results``. Counted here as tables with no outcome.
        for pk, number, version in tables.filter(round__stage__in=knockouts).values_list(
            "pk", "round__number", "version"
        ):
            scored_knockout.append(ScoredTable(pk, number, version, ()))
        tables = tables.exclude(round__stage__in=knockouts)
    rows = list(
        tables.values_list(
            "pk",
            "round__number",
            "round__stage",
            "version",
            "is_bye",
            "ns__number",
            "ew__number",
            *FACT_COLUMNS,
        )
    )
    tokens = tokens_by_table(TableEvent.objects.filter(table__in=tables))
    scored: list[ScoredTable] = scored_knockout
    by_stage: dict[int, RuleSet] = {}
    for pk, number, stage, version, is_bye, ns, ew, *columns in rows:
        # Each stage's tables by the stage's rules (its round format, deals, tie rule).
        stage_rules = by_stage.get(stage) or by_stage.setdefault(stage, rules.for_stage(stage))
        if is_bye:
            scored.append(ScoredTable(pk, number, version, (bye_outcome(number, ns, stage_rules),)))
            continue
        facts = MatchFacts.from_columns(*columns, tokens=tokens.get(pk, ()))
        outcomes = match_outcomes(number, ns, ew, score_table(facts, stage_rules))
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


class TeamField(NamedTuple):
    """A team event's teams as the standings and the Swiss engine see them: team *numbers*
    1…T in registration order (the order of their ids, as the tournament file lists them),
    with each number's ``code`` (the file's team id) and ``pk``, and ``team_of``: a pair's
    number → its team's number."""

    numbers: tuple[int, ...]
    codes: dict[int, str]
    pks: dict[int, int]
    team_of: dict[int, int]

    @property
    def number_of_pk(self) -> dict[int, int]:
        return {pk: number for number, pk in self.pks.items()}


def team_field(tournament_id: int) -> TeamField:
    """The tournament's ``TeamField`` (two queries)."""
    rows = list(
        Team.objects.filter(tournament_id=tournament_id).order_by("pk").values_list("pk", "code")
    )
    number_of = {pk: k for k, (pk, _code) in enumerate(rows, start=1)}
    team_of = {
        pair: number_of[team]
        for team, pair in Team.pairs.through.objects.filter(team__tournament_id=tournament_id)
        .order_by("pk")
        .values_list("team_id", "pair__number")
    }
    return TeamField(
        tuple(number_of.values()),
        {number_of[pk]: code for pk, code in rows},
        {number: pk for pk, number in number_of.items()},
        team_of,
    )


def team_byes(
    tournament_id: int, field: TeamField, after_round: int | None = None
) -> dict[int, int]:
    """``{round number: team number}`` of the team byes of the published and finished rounds
    (up to ``after_round``): a bye counts once its round is published."""
    rounds = Round.objects.counted().filter(tournament_id=tournament_id, bye_team__isnull=False)
    if after_round is not None:
        rounds = rounds.filter(number__lte=after_round)
    number_of = field.number_of_pk
    return {number: number_of[team] for number, team in rounds.values_list("number", "bye_team_id")}


def standings_from_db(
    tournament_id: int, rules: RuleSet, after_round: int, *, teams: bool = False
) -> tuple[StandingRow, ...]:
    """The pure ``scoring.standings`` rows after ``after_round``, from CONFIRMED tables only
    plus byes and deductions, computed afresh: four queries whatever the size (three more
    for ``teams``: the team standings of a team event, ``scoring.teams``).

    Uncached: ``scoring.cache.cached_standings`` reads the standings through its cache and
    computes them incrementally (``scoring.cache.compute``); this full computation is what
    that must equal (the tests compare them).
    """
    entrants = pair_numbers(tournament_id)
    outcomes = collect_outcomes(tournament_id, rules, after_round)
    deductions = deductions_from_db(tournament_id)
    if teams:
        field = team_field(tournament_id)
        byes = team_byes(tournament_id, field, after_round)
        entrants = list(field.numbers)
        outcomes = team_outcomes(outcomes, field.team_of, rules, byes)
        deductions = team_deductions(deductions, field.team_of)
    criteria = standings_criteria(rules)
    return compute_standings(entrants, outcomes, deductions, criteria, rules.seed or 0, after_round)
