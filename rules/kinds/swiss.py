"""The Swiss stage (瑞士移位, RULES.md §4, §8): a number of rounds paired by the Swiss engine on
the event's standings. Without a ``stages`` setting the event is one Swiss stage of ``rounds``
rounds (``rules.stages.default_stage``).

Pure: the standard library only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.errors import Problem

from .base import COMMON_FIELDS, ENTRANT_FIELDS, StageKind, count, gettext_noop

if TYPE_CHECKING:
    from rules.stages import Stage


class Swiss(StageKind):
    name = "swiss"
    label = gettext_noop("瑞士移位")
    fields = {"rounds": count("rounds", required=True), **ENTRANT_FIELDS, **COMMON_FIELDS}
    default_seeding = "swiss"
    swiss_paired = True

    def planned_rounds(self, stage: Stage) -> int | None:
        return stage.rounds

    def later_problems(self, stage: Stage, number: int) -> list[Problem]:
        # The Swiss engine pairs every active pair on the event's standings: the first stage.
        return [Problem(f"stages.{number}", "stage_swiss_not_first", {"stage": number})]


SWISS = Swiss()
