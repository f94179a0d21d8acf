"""The results of a stage (RULES.md §8) as the stage services, the commands and the pages read
them: a group stage's group standings and a knockout's matches, decided game by game.

Reads only. Tables are scored with their stage's rules (``RuleSet.for_stage``: the stage's round
format, deals and tie rule) by the one engine through the one loader (``scoring.facts``); group
standings are the one standings engine (``scoring.standings.compute_standings``) over the
group's entrants and its confirmed matches, the stage's rounds numbered 1, 2 … within the stage
(so ``previous_rank`` and ``progressive`` are the group's own). Only confirmed results count; a
bye counts once its round is published.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rules.errors import RuleError
from rules.events import Side
from rules.ruleset import RuleSet
from scoring.engine import bye_outcome, match_outcomes
from scoring.facts import (
    FACT_COLUMNS,
    MatchFacts,
    games_by_table,
    score_games,
    score_table,
    split_games,
    tokens_by_table,
)
from scoring.results import standings_criteria
from scoring.series import Series
from scoring.standings import Deduction, Outcome, StandingRow, compute_standings
from tournaments.models import Game, Round, Table, Tournament

from .models import Penalty, TableEvent


def stage_round_numbers(tournament_id: int, stage: int) -> list[int]:
    """The numbers of the rounds of ``stage`` (drafts included), in order."""
    rows = Round.objects.filter(tournament_id=tournament_id, stage=stage).order_by("number")
    return list(rows.values_list("number", flat=True))


def group_members(tournament_id: int, stage: int) -> dict[str, list[int]]:
    """Each group's entrants (pair numbers) in their places: as the stage's first round placed
    them (``Round.draw_info["groups"]``), else every pair seated in the group, by number."""
    first = (
        Round.objects.filter(tournament_id=tournament_id, stage=stage).order_by("number").first()
    )
    if first is None:
        return {}
    placed = (first.draw_info or {}).get("groups")
    if isinstance(placed, dict) and placed:
        return {str(name): [int(p) for p in members] for name, members in placed.items()}
    members: dict[str, set[int]] = defaultdict(set)
    tables = Table.objects.filter(round__tournament_id=tournament_id, round__stage=stage)
    for group, ns, ew in tables.values_list("group", "ns__number", "ew__number"):
        members[group].add(ns)
        if ew is not None:
            members[group].add(ew)
    return {name: sorted(pairs) for name, pairs in sorted(members.items())}


def _stage_outcomes(
    tournament_id: int, rules: RuleSet, stage: int
) -> tuple[list[tuple[str, Outcome]], list[tuple[str, int, int]], dict[int, int]]:
    """Every counted outcome of the stage with its group, every meeting (group, a, b) of the
    stage's rounds (drafts included) and the stage's round numbers → 1, 2 … within the stage."""
    numbers = stage_round_numbers(tournament_id, stage)
    within = {number: index for index, number in enumerate(numbers, start=1)}
    stage_rules = rules.for_stage(stage)
    tables = Table.objects.filter(round__tournament_id=tournament_id, round__stage=stage)
    rows = list(
        tables.values_list(
            "pk",
            "round__number",
            "round__status",
            "entry_status",
            "group",
            "is_bye",
            "ns__number",
            "ew__number",
            *FACT_COLUMNS,
        )
    )
    counted = [r for r in rows if r[2] in Round.COUNTED and (r[5] or r[3] == "confirmed")]
    tokens = tokens_by_table(TableEvent.objects.filter(table_id__in=[r[0] for r in counted]))
    outcomes: list[tuple[str, Outcome]] = []
    meetings: list[tuple[str, int, int]] = []
    for pk, number, status, entry, group, is_bye, ns, ew, *columns in rows:
        if not is_bye:
            meetings.append((group, ns, ew))
        if status not in Round.COUNTED or not (is_bye or entry == "confirmed"):
            continue
        r = within[number]
        if is_bye:
            outcomes.append((group, bye_outcome(r, ns, stage_rules)))
            continue
        facts = MatchFacts.from_columns(*columns, tokens=tokens.get(pk, ()))
        for outcome in match_outcomes(r, ns, ew, score_table(facts, stage_rules, complete=True)):
            outcomes.append((group, outcome))
    return outcomes, meetings, within


def _stage_deductions(tournament_id: int, within: dict[int, int]) -> list[Deduction]:
    """The live deductions recorded in the stage's rounds, renumbered within the stage."""
    penalties = Penalty.objects.filter(
        tournament_id=tournament_id,
        kind=Penalty.Kind.DEDUCTION,
        withdrawn_at=None,
        round__number__in=list(within),
    )
    return [
        Deduction(within[number], pair, float(jcf))
        for number, pair, jcf in penalties.values_list("round__number", "pair__number", "jcf")
    ]


def group_standings(
    tournament: Tournament, stage: int
) -> list[tuple[str, tuple[StandingRow, ...]]]:
    """Each group's standings (the event's tiebreak list) after the stage's counted rounds."""
    rules = tournament.rules
    outcomes, _meetings, within = _stage_outcomes(tournament.pk, rules, stage)
    deductions = _stage_deductions(tournament.pk, within)
    criteria = standings_criteria(rules)
    after = len(within)
    out = []
    for name, members in group_members(tournament.pk, stage).items():
        inside = set(members)
        rows = compute_standings(
            members,
            [o for g, o in outcomes if o.pair in inside and g == name],
            [d for d in deductions if d.pair in inside],
            criteria,
            rules.seed or 0,
            after,
        )
        out.append((name, rows))
    return out


def stage_standings(
    tournament: Tournament, stage: int, entrants: list[int]
) -> tuple[StandingRow, ...]:
    """The standings of ``entrants`` over every counted match of the stage (all groups
    together): how entrants of equal place in different groups are ordered."""
    rules = tournament.rules
    outcomes, _meetings, within = _stage_outcomes(tournament.pk, rules, stage)
    inside = set(entrants)
    return compute_standings(
        entrants,
        [o for _g, o in outcomes if o.pair in inside],
        [d for d in _stage_deductions(tournament.pk, within) if d.pair in inside],
        standings_criteria(rules),
        rules.seed or 0,
        len(within),
    )


def group_meetings(tournament_id: int, stage: int) -> list[tuple[str, int, int]]:
    """Every meeting (group, a, b) seated so far in the stage's rounds (drafts included)."""
    tables = Table.objects.filter(
        round__tournament_id=tournament_id, round__stage=stage, is_bye=False
    )
    return list(tables.values_list("group", "ns__number", "ew__number"))


@dataclass(frozen=True, slots=True)
class KnockoutMatch:
    """One knockout table as played: ``a`` (North–South) against ``b`` (None: a bye), the
    match so far (``series``; None for a bye) and its winner once the table is confirmed."""

    round: int
    table: int
    slot: int
    a: int
    b: int | None
    series: Series | None
    winner: int | None
    status: str  # the round's status


def knockout_matches(tournament: Tournament, stage: int) -> list[list[KnockoutMatch]]:
    """The knockout stage's rounds in order, each its matches by slot (the third-place match,
    slot 0, last). A match's games are scored with the stage's rules; a table whose facts are
    still being entered and cannot be scored shows no games."""
    rules = tournament.rules
    stage_rules = rules.for_stage(stage)
    best_of = rules.stage(stage).games
    tables = Table.objects.filter(round__tournament_id=tournament.pk, round__stage=stage)
    rows = list(
        tables.order_by("round__number", "number").values_list(
            "pk",
            "round__number",
            "round__status",
            "number",
            "slot",
            "entry_status",
            "is_bye",
            "ns__number",
            "ew__number",
            *FACT_COLUMNS,
        )
    )
    pks = [r[0] for r in rows if not r[6]]
    tokens = tokens_by_table(TableEvent.objects.filter(table_id__in=pks))
    games = games_by_table(Game.objects.filter(table_id__in=pks))
    rounds: dict[int, list[KnockoutMatch]] = defaultdict(list)
    for pk, number, status, table, slot, entry, is_bye, ns, ew, *columns in rows:
        slot = slot if slot is not None else table
        if is_bye:
            rounds[number].append(KnockoutMatch(number, table, slot, ns, None, None, ns, status))
            continue
        facts = MatchFacts.from_columns(*columns, tokens=tokens.get(pk, ()))
        closed = entry != Table.EntryStatus.OPEN
        series: Series | None
        try:
            series = score_games(
                split_games(facts, games.get(pk, [])), stage_rules, best_of, closed
            )
        except RuleError:  # a sheet in progress that cannot be scored yet shows no games
            series = None
        winner = None
        if series is not None and series.winner is not None and entry == "confirmed":
            winner = ns if series.winner is Side.NS else ew
        rounds[number].append(KnockoutMatch(number, table, slot, ns, ew, series, winner, status))
    return [
        sorted(matches, key=lambda m: (m.slot == 0, m.slot))
        for _n, matches in sorted(rounds.items())
    ]
