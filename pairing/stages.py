"""Stages (阶段, RULES.md §8) on the round services' side: which stage the next round belongs to,
a stage's entrants (every registration, or the qualifiers of the previous stage), the draw of
the next round of a stage that the Swiss engine does not pair, and the event's final placings.

What each kind of stage does here — how its rounds are drawn, when it is finished, how it
ranks and places its entrants — is its ``StageDraw`` (``pairing.kinds``, one module a kind);
this module only asks it. ``pairing.services.generate_round`` calls ``next_stage`` and, for a
stage the Swiss engine does not pair (``StageKind.swiss_paired``), ``plan_stage_round``.
Nothing here writes: the plan is a list of ``StageTable``s that the service writes with
``create_round``.

- A stage begins when the previous one is finished (every round of it finished, i.e. every
  table confirmed, and its kind says it is over: a Swiss stage's rounds played, every group's
  every meeting, a knockout's final or ``until`` entrants left).
- Entrants of stage k > 1, in seed order (``stage_entrants``): the previous stage's ranking
  (``stage_ranking``, its kind's) — its qualifiers in place order first (a group stage: all
  group winners, then all runners-up …), then, only if the per-unit cap left places free, the
  next places. ``entrants`` takes the first N; ``per_unit`` skips an entrant whose unit already
  has that many. Withdrawn and disqualified pairs never qualify (RULES.md §5).
"""

from __future__ import annotations

import random
from typing import Any

from tournaments.models import Round, Tournament

from .kinds import (
    StageTable,
    draw_of,
    stage_entrants,
    stage_finished,
    stage_ranking,
)

__all__ = [
    "StageTable",
    "final_placings",
    "next_stage",
    "plan_stage_round",
    "stage_entrants",
    "stage_finished",
    "stage_ranking",
]


def next_stage(tournament: Tournament) -> tuple[int, bool] | None:
    """``(stage, starts)`` of the next round: the stage it belongs to and whether it is that
    stage's first round; ``None`` when the last stage is finished. Call with the tournament
    locked and no round in progress."""
    last = Round.objects.filter(tournament=tournament).order_by("-number").first()
    if last is None:
        return 1, True
    if not stage_finished(tournament, last.stage):
        return last.stage, False
    if last.stage >= len(tournament.rules.stage_list):
        return None
    return last.stage + 1, True


def final_placings(tournament: Tournament) -> list[tuple[int, int]]:
    """RULES.md §8 "Final placings": ``(place, pair)`` — the last stage's places when its kind
    places its entrants (a knockout's from its bracket, equal places shared), then the entrants
    eliminated at each earlier stage by that stage's ranking, the latest stage first; an earlier
    stage's entrants that its kind places equal (knocked out in one round, or in its
    repechage) share their place. Only once the last stage is finished."""
    count = len(tournament.rules.stage_list)
    if not stage_finished(tournament, count):
        return []
    out = draw_of(tournament, count).places(tournament, count) or []
    placed = {entrant for _place, entrant in out}
    for stage in range(count if not out else count - 1, 0, -1):
        ranked, _qualifying = stage_ranking(tournament, stage)
        places = draw_of(tournament, stage).places(tournament, stage) or []
        shared = {pair: place for place, pair in places}
        last: tuple[int, int] | None = None  # (the stage's place, the event's place)
        for pair in ranked:
            if pair in placed:
                continue
            placed.add(pair)
            place = len(out) + 1
            if pair in shared and last is not None and last[0] == shared[pair]:
                place = last[1]
            last = (shared[pair], place) if pair in shared else None
            out.append((place, pair))
    return out


def plan_stage_round(
    tournament: Tournament, stage: int, starts: bool, rng: random.Random
) -> tuple[list[StageTable], dict[str, Any]]:
    """The next round of ``stage`` (``starts``: its first) as its kind draws it: its tables and
    the draw's notes (``draw_info``). ``ServiceError`` when the stage cannot be drawn (too few
    entrants, an undecided match)."""
    plan = draw_of(tournament, stage).plan_round(tournament, stage, starts, rng)
    if plan is None:  # a bug: the Swiss engine pairs this stage (pairing.services)
        raise ValueError(f"stage {stage} is paired by the Swiss engine")
    return plan
