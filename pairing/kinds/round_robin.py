"""A group stage in the round services: the first round places the entrants in groups
(``pairing.groups``: snake or lot, units apart) and keeps the placing in the round's
``draw_info["groups"]``; every round is the next round of each group's circle schedule
(``next_group_round``), tables numbered group by group (A's first), byes after the matches.
It is over when every group's every meeting has been played; it ranks by place in the group,
equal places by the standings of the whole stage (``scoring.stage_results``)."""

from __future__ import annotations

import random
from typing import Any

from rules.kinds.round_robin import ROUND_ROBIN
from scoring.stage_results import group_meetings, group_members, group_standings, stage_standings
from tournaments.errors import ServiceError
from tournaments.models import Tournament

from ..groups import group_names, lot_groups, next_group_round, snake_groups
from .base import Plan, StageDraw, StageTable, stage_entrants


class GroupDraw(StageDraw):
    kind = ROUND_ROBIN

    def finished(self, tournament: Tournament, stage: int, rounds: int) -> bool:
        met = {frozenset((a, b)) for _g, a, b in group_meetings(tournament.pk, stage)}
        return all(
            frozenset((a, b)) in met
            for members in group_members(tournament.pk, stage).values()
            for i, a in enumerate(members)
            for b in members[i + 1 :]
        )

    def ranking(self, tournament: Tournament, stage: int) -> tuple[list[int], int | None]:
        places: dict[int, int] = {}
        for _name, rows in group_standings(tournament, stage):
            for place, row in enumerate(rows, start=1):
                places[row.pair] = place
        across = stage_standings(tournament, stage, list(places))
        order = {row.pair: index for index, row in enumerate(across)}
        ranked = sorted(places, key=lambda p: (places[p], order[p]))
        qualify = tournament.rules.stage(stage).qualify or 1
        return ranked, sum(1 for p in ranked if places[p] <= qualify)

    def entrant_groups(self, tournament: Tournament, stage: int) -> dict[int, str]:
        group_of: dict[int, str] = {}
        for name, members in group_members(tournament.pk, stage).items():
            group_of.update(dict.fromkeys(members, name))
        return group_of

    def plan_round(
        self, tournament: Tournament, stage: int, starts: bool, rng: random.Random
    ) -> Plan | None:
        spec = tournament.rules.stage(stage)
        avoid = tournament.rules.same_unit == "avoid"
        info: dict[str, Any] = {}
        if starts:
            entrants = stage_entrants(tournament, stage)
            count = spec.groups or 1
            if len(entrants) < 2 * count:
                raise ServiceError("stage_too_few_entrants", stage=stage, count=len(entrants))
            if spec.seeding_method == "lot":
                placed = lot_groups(entrants, count, rng, avoid)
            else:
                placed = snake_groups(entrants, count, avoid)
            groups = {
                name: [e.id for e in members]
                for name, members in zip(group_names(count), placed, strict=True)
            }
            info["groups"] = groups
            played: set[frozenset[int]] = set()
        else:
            groups = group_members(tournament.pk, stage)
            played = {frozenset((a, b)) for _g, a, b in group_meetings(tournament.pk, stage)}
        matches: list[tuple[str, int, int | None]] = []
        for name, members in groups.items():
            try:
                meetings = next_group_round(members, played)
            except ValueError:
                raise ServiceError("group_schedule_impossible", group=name) from None
            matches.extend((name, a, b) for a, b in meetings)
        ordered = sorted(matches, key=lambda m: m[2] is None)  # byes after the matches
        tables = [StageTable(n, a, b, name) for n, (name, a, b) in enumerate(ordered, start=1)]
        info["byes"] = [a for _name, a, b in matches if b is None]
        return tables, info
