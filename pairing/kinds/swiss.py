"""A Swiss stage in the round services: paired by the Swiss engine (``pairing.services``), over
when its rounds are played, ranked by the event's standings after its last round."""

from __future__ import annotations

from rules.kinds.swiss import SWISS
from scoring.cache import cached_standings
from tournaments.models import Round, Tournament

from .base import StageDraw


class SwissDraw(StageDraw):
    kind = SWISS

    def finished(self, tournament: Tournament, stage: int, rounds: int) -> bool:
        planned = tournament.rules.stage(stage).planned_rounds
        return planned is not None and rounds >= planned

    def ranking(self, tournament: Tournament, stage: int) -> tuple[list[int], int | None]:
        numbers = Round.objects.filter(tournament=tournament, stage=stage)
        last = numbers.order_by("-number").values_list("number", flat=True).first() or 0
        return [row.pair for row in cached_standings(tournament, after_round=last)], None
