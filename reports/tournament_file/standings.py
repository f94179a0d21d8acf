"""Standings straight from a tournament file, by the pure standings engine: the golden tests,
the benchmarks and ``standings --json`` compare the database against them.

Pure: the standard library, ``rules`` and the pure scoring engine and standings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scoring.engine import bye_outcome, match_outcomes, score_match
from scoring.standings import Deduction, Outcome, StandingRow, compute_standings
from scoring.teams import team_deductions, team_outcomes

from .serialize import plain_number
from .specs import RoundSpec, TableSpec, TournamentSpec


def last_finished_round(spec: TournamentSpec) -> int:
    """The number of the last finished round (0 if none): the default ``--after-round``."""
    return max((r.number for r in spec.rounds if r.finished), default=0)


def counts(round_spec: RoundSpec, table: TableSpec) -> bool:
    """Only confirmed results count (STYLE.md "Standings"); a bye counts once published."""
    if table.is_bye:
        return round_spec.status != "draft"
    return round_spec.entry_of(table) == "confirmed"


def file_outcomes(
    spec: TournamentSpec, after_round: int | None = None
) -> tuple[list[int], list[Outcome], list[Deduction]]:
    """The standings' inputs: every pair id, one ``Outcome`` per pair per counted table, and
    the deductions (TOURNAMENT_FILE.md "Penalties": only ``deduction`` changes scores)."""
    outcomes: list[Outcome] = []
    for round_spec in spec.rounds:
        if after_round is not None and round_spec.number > after_round:
            break
        # Each stage's tables by its rules; a knockout places, it gives no standings points.
        rules = spec.rules.for_stage(round_spec.stage)
        if spec.rules.stages and not spec.rules.stage(round_spec.stage).type.gives_points:
            continue
        for table in round_spec.tables:
            if not counts(round_spec, table):
                continue
            if table.is_bye:
                outcomes.append(bye_outcome(round_spec.number, table.bye, rules))  # type: ignore[arg-type]
                continue
            result = table.result or score_match(
                table.events, rules, table.start, table.end, complete=True
            )
            outcomes.extend(match_outcomes(round_spec.number, table.ns, table.ew, result))  # type: ignore[arg-type]
    deductions = [
        Deduction(p.round, p.pair, float(p.jcf))
        for p in spec.penalties
        if p.kind == "deduction" and p.jcf is not None
    ]
    return [pair.id for pair in spec.pairs], outcomes, deductions


def file_team_numbers(spec: TournamentSpec) -> tuple[dict[int, str], dict[int, int]]:
    """The teams' numbers as the standings see them (``scoring.results.TeamField``: 1…T in the
    file's order): ``(code by number, team number by pair id)``."""
    codes = {k: team.id for k, team in enumerate(spec.teams, start=1)}
    team_of = {pair: k for k, team in enumerate(spec.teams, start=1) for pair in team.pairs}
    return codes, team_of


def standings_from_file(
    spec: TournamentSpec, after_round: int | None = None, *, teams: bool = False
) -> tuple[int, tuple[StandingRow, ...]]:
    """``(after_round, rows)``; by default after the last finished round. ``teams``: the team
    standings of a team event (rows' ``pair`` = the team's number, ``file_team_numbers``)."""
    if after_round is None:
        after_round = last_finished_round(spec)
    entrants, outcomes, deductions = file_outcomes(spec, after_round)
    rules = spec.rules
    if teams:
        codes, team_of = file_team_numbers(spec)
        number_of = {code: k for k, code in codes.items()}
        byes = {
            r.number: number_of[r.bye_team]
            for r in spec.rounds
            if r.bye_team is not None and r.status != "draft" and r.number <= after_round
        }
        entrants = list(codes)
        outcomes = team_outcomes(outcomes, team_of, rules, byes)
        deductions = team_deductions(deductions, team_of)
    rows = compute_standings(
        entrants, outcomes, deductions, rules.tiebreaks, rules.seed or 0, after_round
    )
    return after_round, rows


STANDINGS_FIELDS = (
    "rank",
    "pair",
    "cf",
    "jcf",
    "wins",
    "draws",
    "losses",
    "level_difference",
    "opponents_cf",
    "upgrades",
    "progressive",
    "deductions",
    "decided_by",
)


def standings_payload(
    tournament: str,
    after_round: int,
    rows: Iterable[StandingRow],
    team_codes: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """What ``standings --json`` prints (TOURNAMENT_FILE.md "Command line"). With
    ``team_codes`` (team number → the file's team id) the rows are a team event's team rows:
    ``"team"`` (the team id) in place of ``"pair"`` (TOURNAMENT_FILE.md "Team events")."""
    out = []
    for row in rows:
        item: dict[str, Any] = {}
        for name in STANDINGS_FIELDS:
            value = getattr(row, name)
            if name == "pair" and team_codes is not None:
                item["team"] = team_codes[value]
                continue
            item[name] = plain_number(value) if isinstance(value, float) else value
        out.append(item)
    return {"tournament": tournament, "after_round": after_round, "rows": out}
