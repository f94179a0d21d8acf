"""A knockout stage in the round services: the first round is the bracket (or the lot) of
``pairing.knockout.first_round``; each later round follows from the previous round's winners
(``next_round``), with the third-place match drawn alongside the final when the stage plays
one. A knockout with a repechage halves its field every round and draws the repechage after its
round ``r`` (``next_halving_round``, docs/stages.md "Knockout stages and the repechage"). It is
over at its final, or when ``until`` entrants remain (``knockout_over``); it places its
entrants (``placings``) and passes its survivors on (``survivors``)."""

from __future__ import annotations

import random
from typing import Any

from rules.kinds.knockout import (
    KNOCKOUT,
    knockout_field_problem,
    repechage_for,
    repechage_problem,
)
from scoring.stage_results import knockout_matches
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Tournament

from ..groups import Entrant
from ..knockout import (
    Decided,
    Meeting,
    first_round,
    knockout_over,
    next_halving_round,
    next_round,
    placings,
    repechage_pool,
    survivors,
)
from .base import Plan, StageDraw, StageTable, stage_entrants, unit_of


def decided(matches: list[Any]) -> list[Decided]:
    """Knockout matches as the pure core's ``Decided`` (slot, a, b, winner)."""
    return [Decided(m.slot, m.a, m.b, m.winner) for m in matches]


def knockout_seeds(tournament: Tournament, stage: int) -> dict[int, int]:
    """A knockout's entrants → their seeds, as its first round was drawn (``draw_info``); for
    an imported stage without one, the seeds the draw would give them (``stage_entrants``:
    after a stage with ``until``, its survivors in bracket order) when they are the pairs of
    its first round, else those pairs by number."""
    first = Round.objects.filter(tournament=tournament, stage=stage).order_by("number").first()
    if first is None:
        return {}
    entrants = (first.draw_info or {}).get("entrants")
    if not entrants:
        seated = first.tables.values_list("ns__number", "ew__number")
        entrants = sorted({p for pair in seated for p in pair if p is not None})
        drawn = [e.id for e in stage_entrants(tournament, stage)]
        if sorted(drawn) == entrants:
            entrants = drawn
    return {int(pid): seed for seed, pid in enumerate(entrants, start=1)}


def knockout_places(tournament: Tournament, stage: int) -> list[tuple[int, int]]:
    """``(place, pair)`` within a knockout stage as far as known (``pairing.knockout.placings``
    with the stage's ``repechage`` and ``until``)."""
    spec = tournament.rules.stage(stage)
    rounds = [decided(r) for r in knockout_matches(tournament, stage)]
    seeds = knockout_seeds(tournament, stage)
    return list(placings(rounds, seeds, spec.repechage_after, spec.until))


def is_repechage_round(tournament: Tournament, rnd: Round) -> bool:
    """Whether ``rnd`` is its stage's repechage round (附加赛: round ``repechage`` + 1 of the
    stage, ``rules.stages.Stage.is_repechage_round``)."""
    rules = tournament.rules
    if not rules.stages or rnd.stage > len(rules.stage_list):
        return False
    spec = rules.stage(rnd.stage)
    if spec.repechage_after is None:
        return False
    index = Round.objects.filter(
        tournament=tournament, stage=rnd.stage, number__lte=rnd.number
    ).count()
    return spec.is_repechage_round(index)


class KnockoutDraw(StageDraw):
    kind = KNOCKOUT

    def finished(self, tournament: Tournament, stage: int, rounds: int) -> bool:
        spec = tournament.rules.stage(stage)
        matches = knockout_matches(tournament, stage)
        seeds = knockout_seeds(tournament, stage)
        return knockout_over([decided(r) for r in matches], seeds, spec.until, spec.repechage_after)

    def ranking(self, tournament: Tournament, stage: int) -> tuple[list[int], int | None]:
        """The bracket's placings, the rest (not placed yet) after them in seed order; with
        ``until``, the entrants left first (``pairing.knockout.survivors``)."""
        spec = tournament.rules.stage(stage)
        places = knockout_places(tournament, stage)
        seeds = knockout_seeds(tournament, stage)
        placed = [entrant for _place, entrant in places]
        if spec.until is not None:
            # The entrants left go on (pairing.knockout.survivors), the others by place.
            rounds = [decided(r) for r in knockout_matches(tournament, stage)]
            left = survivors(rounds, seeds, spec.repechage_after)
            return left + [p for p in placed if p not in left], len(left)
        rest = sorted(set(seeds) - set(placed), key=seeds.__getitem__)
        return placed + rest, None

    def places(self, tournament: Tournament, stage: int) -> list[tuple[int, int]] | None:
        return knockout_places(tournament, stage)

    def plan_round(
        self, tournament: Tournament, stage: int, starts: bool, rng: random.Random
    ) -> Plan | None:
        spec = tournament.rules.stage(stage)
        avoid = tournament.rules.same_unit == "avoid"
        if spec.repechage_after is not None:
            return _halving_round(tournament, stage, starts, rng, avoid)
        if starts:
            entrants = _knockout_entrants(tournament, stage)
            meetings = first_round(entrants, spec.seeding_method, rng, avoid)
            info: dict[str, Any] = {"entrants": [e.id for e in entrants]}
        else:
            played = knockout_matches(tournament, stage)
            previous = decided(played[-1])
            if any(d.winner is None for d in previous):
                raise ServiceError("knockout_undecided", round=played[-1][0].round)
            by_id = _seeded(tournament, stage)
            meetings = next_round(
                previous, spec.seeding_method, by_id, rng, spec.plays_third_place, avoid
            )
            info = {}
        return _plan(meetings, info)


def _plan(meetings: list[Meeting], info: dict[str, Any]) -> Plan:
    """Tables by slot, the third-place match after the final, byes last."""
    ordered = sorted(meetings, key=lambda m: (m.b is None, m.slot == 0, m.slot))
    tables = [StageTable(number, m.a, m.b, "", m.slot) for number, m in enumerate(ordered, start=1)]
    info["byes"] = [m.a for m in meetings if m.b is None]
    return tables, info


def _seeded(tournament: Tournament, stage: int) -> dict[int, Entrant]:
    """The stage's entrants by pair number, with their seeds and units."""
    seeds = knockout_seeds(tournament, stage)
    ranked = sorted(seeds, key=seeds.__getitem__)
    units = {
        p.number: unit_of(p)
        for p in Pair.objects.filter(tournament=tournament).select_related("unit")
    }
    return {pid: Entrant(pid, seed, units.get(pid)) for seed, pid in enumerate(ranked, 1)}


def _knockout_entrants(tournament: Tournament, stage: int) -> list[Entrant]:
    """The entrants of a knockout stage's first round, refused when the stage cannot be played
    with them (too few; ``until`` not below them; a repechage that cannot be made)."""
    entrants = stage_entrants(tournament, stage)
    if len(entrants) < 2:
        raise ServiceError("stage_too_few_entrants", stage=stage, count=len(entrants))
    problem = knockout_field_problem(tournament.rules.stage(stage), stage, len(entrants))
    if problem is not None:
        raise ServiceError(problem.code, **problem.params)
    return entrants


def _halving_round(
    tournament: Tournament, stage: int, starts: bool, rng: random.Random, avoid: bool
) -> Plan:
    """The next round of a knockout stage with a repechage (``pairing.knockout``
    ``next_halving_round``); the repechage round's ``draw_info["repechage"]`` is true."""
    spec = tournament.rules.stage(stage)
    assert spec.repechage_after is not None
    info: dict[str, Any] = {}
    if starts:
        entrants = _knockout_entrants(tournament, stage)
        info["entrants"] = [e.id for e in entrants]
        rounds: list[list[Decided]] = []
        by_id = {e.id: e for e in entrants}
    else:
        played = knockout_matches(tournament, stage)
        rounds = [decided(r) for r in played]
        if any(d.winner is None for d in rounds[-1]):
            raise ServiceError("knockout_undecided", round=played[-1][0].round)
        by_id = _seeded(tournament, stage)
    try:
        meetings, repechage = next_halving_round(
            rounds,
            by_id,
            spec.seeding_method,
            spec.repechage_after,
            spec.until,
            rng,
            spec.plays_third_place,
            avoid,
        )
    except ValueError:
        # The rounds so far (an imported file, a hand-made round) leave a repechage pool that
        # cannot reach ``until`` × 2^j: say which numbers do not fit.
        pool, waiting = repechage_pool(rounds, spec.repechage_after)
        plan = repechage_for(spec.repechage_after, waiting, len(pool), spec.remaining)
        problem = repechage_problem(plan, stage, spec.remaining)
        raise ServiceError(problem.code, **problem.params) from None
    if repechage:
        info["repechage"] = True
    return _plan(meetings, info)
