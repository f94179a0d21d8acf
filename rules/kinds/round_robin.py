"""The group stage (小组循环赛, RULES.md §8): the entrants placed in ``groups`` groups (snake
seeding from the ranking, or by lot), every entrant meeting every other of its group once; the
top ``qualify`` of each group go on.

Pure: the standard library only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.errors import Problem

from .base import (
    COMMON_FIELDS,
    ENTRANT_FIELDS,
    StageKind,
    count,
    exceed_problem,
    gettext_noop,
    option,
)

if TYPE_CHECKING:
    from rules.stages import Stage

GROUP_SEEDINGS = ("snake", "lot")  # RULES.md §8: snake seeding from the ranking, or by lot


class RoundRobin(StageKind):
    name = "round_robin"
    label = gettext_noop("小组循环赛")
    fields = {
        "groups": count("groups", required=True),
        "qualify": count("qualify"),
        "seeding": option("seeding", GROUP_SEEDINGS),
        **ENTRANT_FIELDS,
        **COMMON_FIELDS,
    }
    seedings = GROUP_SEEDINGS
    default_seeding = "snake"
    has_groups = True

    def passes_on(self, stage: Stage) -> int | None:
        return stage.groups * (stage.qualify or 1) if stage.groups else None

    def follower_problems(self, stage: Stage, follower: Stage, number: int) -> list[Problem]:
        if not stage.groups:
            return []
        if stage.qualify is None:
            # A stage follows: how many of each group go on must be said.
            params = {"stage": number - 1, "key": "qualify"}
            return [Problem(f"stages.{number}", "stage_missing_key", params)]
        return exceed_problem(follower, number, stage.groups * stage.qualify)

    def field_problems(self, stage: Stage, number: int, entrants: int | None) -> list[Problem]:
        if not stage.groups or stage.entrants is None:
            return []
        where = f"stages.{number}"
        if stage.entrants < 2 * stage.groups:
            params = {"stage": number, "entrants": stage.entrants, "groups": stage.groups}
            return [Problem(where, "stage_groups_too_small", params)]
        size = stage.entrants // stage.groups
        if stage.qualify is not None and stage.qualify >= size:
            params = {"stage": number, "qualify": stage.qualify, "size": size}
            return [Problem(where, "stage_qualify_too_many", params)]
        return []


ROUND_ROBIN = RoundRobin()
