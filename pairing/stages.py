"""Stages (阶段, RULES.md §8) on the round services' side: which stage the next round belongs to,
a stage's entrants (every registration, or the qualifiers of the previous stage) and the draw of
the next round of a group or knockout stage.

``pairing.services.generate_round`` calls ``next_stage`` and, for a round-robin or knockout
stage, ``plan_stage_round``; a Swiss stage is paired by the Swiss engine as before. Nothing here
writes: the plan is a list of ``StageTable``s that the service writes with ``create_round``.

- A stage begins when the previous one is finished: a Swiss stage when its rounds are played, a
  group stage when every group's every meeting has been played, a knockout when its final is
  played, or when ``until`` entrants remain (every round of it finished, i.e. every table
  confirmed); the entrants of the stage after a knockout are its survivors
  (``pairing.knockout.survivors``).
- Entrants of stage k > 1, in seed order: after a Swiss stage, the standings after its last
  round (``scoring.cache.cached_standings``); after a group stage, first the top ``qualify`` of
  each group by their place in the group (all group winners, then all runners-up …), equal
  places ordered by the standings of the whole stage (``scoring.stage_results``), then, only if
  the per-unit cap left places free, the next places in the same order. ``entrants`` takes the
  first N; ``per_unit`` skips an entrant whose unit already has that many. Withdrawn and
  disqualified pairs never qualify (RULES.md §5).
- A group stage's first round places the entrants (``pairing.groups``: snake or lot, units
  apart) and keeps the placing in the round's ``draw_info["groups"]``; every round is the next
  round of each group's circle schedule (``next_group_round``). Tables are numbered group by
  group (A's first), byes after the matches.
- A knockout's first round is the bracket (or the lot) of ``pairing.knockout.first_round``;
  each later round follows from the previous round's winners (``next_round``), with the
  third-place match drawn alongside the final when the stage plays one. A knockout with a
  repechage halves its field every round and draws the repechage after its round ``r``
  (``next_halving_round``, docs/stages.md "Knockout stages and the repechage").
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rules.stages import knockout_field_problem, repechage_for, repechage_problem
from scoring.cache import cached_standings
from scoring.stage_results import (
    group_meetings,
    group_members,
    group_standings,
    knockout_matches,
    stage_standings,
)
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Tournament

from .groups import Entrant, group_names, lot_groups, next_group_round, snake_groups
from .knockout import (
    Decided,
    first_round,
    knockout_over,
    next_halving_round,
    next_round,
    placings,
    repechage_pool,
    survivors,
)


@dataclass(frozen=True, slots=True)
class StageTable:
    """One table of a planned stage round (pair numbers): a match, or a bye (``ew`` None)."""

    number: int
    ns: int
    ew: int | None
    group: str = ""
    slot: int | None = None


def _rounds(tournament: Tournament, stage: int) -> list[tuple[int, str]]:
    rows = Round.objects.filter(tournament=tournament, stage=stage).order_by("number")
    return list(rows.values_list("number", "status"))


def stage_finished(tournament: Tournament, stage: int) -> bool:
    """Whether every round of ``stage`` that it needs has been played and finished."""
    rounds = _rounds(tournament, stage)
    if not rounds or any(status != Round.Status.FINISHED for _n, status in rounds):
        return False
    kind = tournament.rules.stage(stage)
    if kind.kind == "swiss":
        return kind.rounds is not None and len(rounds) >= kind.rounds
    if kind.kind == "round_robin":
        met = {frozenset((a, b)) for _g, a, b in group_meetings(tournament.pk, stage)}
        return all(
            frozenset((a, b)) in met
            for members in group_members(tournament.pk, stage).values()
            for i, a in enumerate(members)
            for b in members[i + 1 :]
        )
    matches = knockout_matches(tournament, stage)
    seeds = knockout_seeds(tournament, stage)
    return knockout_over([decided(r) for r in matches], seeds, kind.until, kind.repechage_after)


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


def _active(tournament: Tournament) -> dict[int, Pair]:
    pairs = Pair.objects.filter(tournament=tournament, status=Pair.Status.ACTIVE)
    return {p.number: p for p in pairs.select_related("unit")}


def _unit(pair: Pair) -> str | None:
    return pair.unit.code if pair.unit_id else None


def stage_ranking(tournament: Tournament, stage: int) -> tuple[list[int], int | None]:
    """Every entrant of ``stage`` best first (pair numbers) and how many of them qualify in
    place order (a group stage: the top ``qualify`` of each group come first; else None).

    Swiss: the standings after the stage's last round. Groups: by place in the group, equal
    places by the standings of the whole stage. Knockout: the bracket's placings, the rest (not
    placed yet) after them in seed order."""
    kind = tournament.rules.stage(stage)
    if kind.kind == "round_robin":
        places: dict[int, int] = {}
        for _name, rows in group_standings(tournament, stage):
            for place, row in enumerate(rows, start=1):
                places[row.pair] = place
        across = stage_standings(tournament, stage, list(places))
        order = {row.pair: index for index, row in enumerate(across)}
        ranked = sorted(places, key=lambda p: (places[p], order[p]))
        qualify = kind.qualify or 1
        return ranked, sum(1 for p in ranked if places[p] <= qualify)
    if kind.kind == "knockout":
        places = knockout_places(tournament, stage)
        seeds = knockout_seeds(tournament, stage)
        placed = [entrant for _place, entrant in places]
        if kind.until is not None:
            # The entrants left go on (pairing.knockout.survivors), the others by place.
            rounds = [decided(r) for r in knockout_matches(tournament, stage)]
            left = survivors(rounds, seeds, kind.repechage_after)
            return left + [p for p in placed if p not in left], len(left)
        rest = sorted(set(seeds) - set(placed), key=seeds.__getitem__)
        return placed + rest, None
    numbers = Round.objects.filter(tournament=tournament, stage=stage)
    last = numbers.order_by("-number").values_list("number", flat=True).first() or 0
    return [row.pair for row in cached_standings(tournament, after_round=last)], None


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


def stage_entrants(tournament: Tournament, stage: int) -> list[Entrant]:
    """The entrants of ``stage`` in seed order (see the module), seeds 1, 2 …"""
    rules = tournament.rules
    active = _active(tournament)
    if stage == 1:
        ordered = sorted(active.values(), key=lambda p: (p.seeding is None, p.seeding, p.number))
        return [Entrant(p.number, seed, _unit(p)) for seed, p in enumerate(ordered, start=1)]
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
            unit = _unit(pair)
            if current.per_unit is not None and unit is not None:
                if per_unit.get(unit, 0) >= current.per_unit:
                    skipped = True
                    continue
                per_unit[unit] = per_unit.get(unit, 0) + 1
            chosen.append(pair)
    group_of: dict[int, str] = {}
    if rules.stage(stage - 1).kind == "round_robin":
        # After groups (pairing.knockout "Groups apart"): each entrant's group there.
        for name, members in group_members(tournament.pk, stage - 1).items():
            group_of.update(dict.fromkeys(members, name))
    return [
        Entrant(p.number, seed, _unit(p), group_of.get(p.number))
        for seed, p in enumerate(chosen, start=1)
    ]


def final_placings(tournament: Tournament) -> list[tuple[int, int]]:
    """RULES.md §8 "Final placings": ``(place, pair)`` — the last stage's places (a knockout's
    from its bracket, equal places shared), then the entrants eliminated at each earlier stage
    by that stage's ranking, the latest stage first; an earlier knockout's entrants knocked out
    in one round (or in its repechage) share their place. Only once the last stage is
    finished."""
    count = len(tournament.rules.stage_list)
    if not stage_finished(tournament, count):
        return []
    out: list[tuple[int, int]] = []
    placed: set[int] = set()
    if tournament.rules.stage(count).kind == "knockout":
        out = knockout_places(tournament, count)
        placed = {entrant for _place, entrant in out}
    for stage in range(count if not out else count - 1, 0, -1):
        ranked, _qualifying = stage_ranking(tournament, stage)
        shared: dict[int, int] = {}
        if tournament.rules.stage(stage).kind == "knockout":
            shared = {pair: place for place, pair in knockout_places(tournament, stage)}
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


def decided(matches: list[Any]) -> list[Decided]:
    """Knockout matches as the pure core's ``Decided`` (slot, a, b, winner)."""
    return [Decided(m.slot, m.a, m.b, m.winner) for m in matches]


def plan_stage_round(
    tournament: Tournament, stage: int, starts: bool, rng: random.Random
) -> tuple[list[StageTable], dict[str, Any]]:
    """The next round of a round-robin or knockout ``stage``: its tables and the draw's notes
    (``draw_info``). ``ServiceError`` when the stage cannot be drawn (too few entrants, an
    undecided match)."""
    rules = tournament.rules
    spec = rules.stage(stage)
    avoid = rules.same_unit == "avoid"
    if spec.kind == "round_robin":
        return _group_round(tournament, stage, starts, rng, avoid)
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
        seeds = knockout_seeds(tournament, stage)
        ranked = sorted(seeds, key=seeds.__getitem__)
        units = {
            p.number: _unit(p)
            for p in Pair.objects.filter(tournament=tournament).select_related("unit")
        }
        by_id = {pid: Entrant(pid, seed, units.get(pid)) for seed, pid in enumerate(ranked, 1)}
        meetings = next_round(
            previous, spec.seeding_method, by_id, rng, spec.plays_third_place, avoid
        )
        info = {}
    ordered = sorted(meetings, key=lambda m: (m.b is None, m.slot == 0, m.slot))
    tables = [StageTable(number, m.a, m.b, "", m.slot) for number, m in enumerate(ordered, start=1)]
    info["byes"] = [m.a for m in meetings if m.b is None]
    return tables, info


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
) -> tuple[list[StageTable], dict[str, Any]]:
    """The next round of a knockout stage with a repechage (``pairing.knockout``
    ``next_halving_round``); the repechage round's ``draw_info["repechage"]`` is true."""
    spec = tournament.rules.stage(stage)
    assert spec.repechage_after is not None
    info: dict[str, Any] = {}
    if starts:
        entrants = _knockout_entrants(tournament, stage)
        info["entrants"] = [e.id for e in entrants]
        rounds: list[list[Decided]] = []
    else:
        played = knockout_matches(tournament, stage)
        rounds = [decided(r) for r in played]
        if any(d.winner is None for d in rounds[-1]):
            raise ServiceError("knockout_undecided", round=played[-1][0].round)
        seeds = knockout_seeds(tournament, stage)
        units = {
            p.number: _unit(p)
            for p in Pair.objects.filter(tournament=tournament).select_related("unit")
        }
        ranked = sorted(seeds, key=seeds.__getitem__)
        entrants = [Entrant(pid, seed, units.get(pid)) for seed, pid in enumerate(ranked, 1)]
    by_id = {e.id: e for e in entrants}
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
    ordered = sorted(meetings, key=lambda m: (m.b is None, m.slot == 0, m.slot))
    tables = [StageTable(number, m.a, m.b, "", m.slot) for number, m in enumerate(ordered, start=1)]
    info["byes"] = [m.a for m in meetings if m.b is None]
    return tables, info


def _group_round(
    tournament: Tournament, stage: int, starts: bool, rng: random.Random, avoid: bool
) -> tuple[list[StageTable], dict[str, Any]]:
    spec = tournament.rules.stage(stage)
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
