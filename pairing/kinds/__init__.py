"""The pairing layer's stage kinds (RULES.md §8; docs/architecture.md "Stage kinds"): for each
kind of the registry (``rules.kinds``) its ``StageDraw`` — how its rounds are drawn, when it
is finished, how it ranks and whether it places its entrants — one module a kind. This is the
one place of the layer that maps a kind to its behaviour; ``pairing.stages`` and everything
above ask ``draw_of``.
"""

from __future__ import annotations

from .base import (
    DRAWS,
    Plan,
    StageDraw,
    StageTable,
    draw_of,
    stage_entrants,
    stage_finished,
    stage_ranking,
    stage_rounds,
)
from .knockout import KnockoutDraw
from .round_robin import GroupDraw
from .swiss import SwissDraw

DRAWS.update({draw.kind.name: draw for draw in (SwissDraw(), GroupDraw(), KnockoutDraw())})

__all__ = [
    "DRAWS",
    "Plan",
    "StageDraw",
    "StageTable",
    "draw_of",
    "stage_entrants",
    "stage_finished",
    "stage_ranking",
    "stage_rounds",
]
