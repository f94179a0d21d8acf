"""What a kind of stage does in the round services (RULES.md §8): the base of the pairing
layer's stage kinds (``pairing.kinds``), and the stage functions every kind shares.

A kind's ``StageDraw`` (one module a kind, registered in ``DRAWS`` by the kind's name in
``rules.kinds``) says how its next round is drawn, when it is finished, how it ranks its
entrants and whether it places them. ``stage_finished``, ``stage_ranking`` and
``stage_entrants`` ask the stage's draw; the kinds use them in turn (a knockout's seeds are
its entrants, which are the previous stage's ranking).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rules.kinds import StageKind
from tournaments.models import Pair, Round, Tournament

from ..groups import Entrant


@dataclass(frozen=True, slots=True)
class StageTable:
    """One table of a planned stage round (pair numbers): a match, or a bye (``ew`` None)."""

    number: int
    ns: int
    ew: int | None
    group: str = ""
    slot: int | None = None


# A planned round: its tables and the draw's notes (``Round.draw_info``).
Plan = tuple[list[StageTable], dict[str, Any]]


class StageDraw:
    """One kind of stage in the round services. A subclass a kind (``pairing/kinds/<name>.py``)
    with the defaults below: a stage that ranks its entrants and places nobody itself."""

    kind: StageKind  # the kind of the registry (``rules.kinds``) it plays

    def plan_round(
        self, tournament: Tournament, stage: int, starts: bool, rng: random.Random
    ) -> Plan | None:
        """The stage's next round (``starts``: its first), or None when the Swiss engine pairs
        it (``pairing.services.generate_round``). ``ServiceError`` when it cannot be drawn."""
        return None

    def finished(self, tournament: Tournament, stage: int, rounds: int) -> bool:
        """Whether the stage is over, its ``rounds`` rounds drawn so far all finished."""
        raise NotImplementedError

    def ranking(self, tournament: Tournament, stage: int) -> tuple[list[int], int | None]:
        """Every entrant of the stage best first (pair numbers) and how many of them qualify
        in place order (None: the next stage takes its top ``entrants``)."""
        raise NotImplementedError

    def places(self, tournament: Tournament, stage: int) -> list[tuple[int, int]] | None:
        """``(place, pair)`` as far as known, equal places shared, when the stage places its
        entrants (a bracket); None when it only ranks them."""
        return None

    def entrant_groups(self, tournament: Tournament, stage: int) -> dict[int, str]:
        """Each entrant's group in the stage (none without groups): the next stage's draw
        keeps group-mates apart (``pairing.knockout`` "Groups apart")."""
        return {}


# The file's ``kind`` → its draw (filled by ``pairing.kinds``).
DRAWS: dict[str, StageDraw] = {}


def draw_of(tournament: Tournament, stage: int) -> StageDraw:
    """The draw of the tournament's stage ``stage`` (1-based)."""
    return DRAWS[tournament.rules.stage(stage).kind]


def stage_rounds(tournament: Tournament, stage: int) -> list[tuple[int, str]]:
    """``(number, status)`` of the stage's rounds, in order."""
    rows = Round.objects.filter(tournament=tournament, stage=stage).order_by("number")
    return list(rows.values_list("number", "status"))


def stage_finished(tournament: Tournament, stage: int) -> bool:
    """Whether every round of ``stage`` that it needs has been played and finished."""
    rounds = stage_rounds(tournament, stage)
    if not rounds or any(status != Round.Status.FINISHED for _n, status in rounds):
        return False
    return draw_of(tournament, stage).finished(tournament, stage, len(rounds))


def stage_ranking(tournament: Tournament, stage: int) -> tuple[list[int], int | None]:
    """Every entrant of ``stage`` best first (pair numbers) and how many of them qualify in
    place order (a group stage: the top ``qualify`` of each group come first; else None) —
    the stage kind's ranking (``StageDraw.ranking``)."""
    return draw_of(tournament, stage).ranking(tournament, stage)


def active_pairs(tournament: Tournament) -> dict[int, Pair]:
    pairs = Pair.objects.filter(tournament=tournament, status=Pair.Status.ACTIVE)
    return {p.number: p for p in pairs.select_related("unit")}


def unit_of(pair: Pair) -> str | None:
    return pair.unit.code if pair.unit_id else None


def stage_entrants(tournament: Tournament, stage: int) -> list[Entrant]:
    """The entrants of ``stage`` in seed order, seeds 1, 2 … (``pairing.stages``): stage 1's
    every active pair by seeding number, then pair number; later, the previous stage's
    ranking — its qualifiers in place order first, then only if the per-unit cap left places
    free the next places — the first ``entrants`` of them, ``per_unit`` skipping an entrant
    whose unit already has that many."""
    rules = tournament.rules
    active = active_pairs(tournament)
    if stage == 1:
        ordered = sorted(active.values(), key=lambda p: (p.seeding is None, p.seeding, p.number))
        return [Entrant(p.number, seed, unit_of(p)) for seed, p in enumerate(ordered, start=1)]
    current = rules.stage(stage)
    ranked, qualifying = stage_ranking(tournament, stage - 1)
    if qualifying is None:
        first, later = ranked, []
    else:
        first, later = ranked[:qualifying], ranked[qualifying:]
    limit = current.entrants or len(first)
    chosen: list[Pair] = []
    per_unit: dict[str, int] = {}
    skipped = False
    for candidates in (first, later):
        if candidates is later and not skipped:
            break  # the later places only fill what the per-unit cap left free
        for number in candidates:
            if len(chosen) >= limit:
                break
            pair = active.get(number)
            if pair is None:
                continue
            unit = unit_of(pair)
            if current.per_unit is not None and unit is not None:
                if per_unit.get(unit, 0) >= current.per_unit:
                    skipped = True
                    continue
                per_unit[unit] = per_unit.get(unit, 0) + 1
            chosen.append(pair)
    # After groups (pairing.knockout "Groups apart"): each entrant's group there.
    group_of = draw_of(tournament, stage - 1).entrant_groups(tournament, stage - 1)
    return [
        Entrant(p.number, seed, unit_of(p), group_of.get(p.number))
        for seed, p in enumerate(chosen, start=1)
    ]
