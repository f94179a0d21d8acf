"""Single elimination (淘汰赛, RULES.md §8): the bracket, the rounds after it, final placings.

Pure: the standard library only; randomness comes in as a seeded ``random.Random``.

**Bracket order.** For a bracket of size 2^k the seeds stand in the standard order, built by
doubling: [1, 2] → [1, 4, 3, 2] → [1, 8, 5, 4, 3, 6, 7, 2] → …, each seed s of the smaller
bracket becoming the meeting of s and its partner 2^j + 1 − s (at every second place the
partner first); read in meetings of two this is 1–16, 8–9, 5–12, 4–13, 3–14, 6–11, 7–10, 2–15
for 16 (TOURNAMENT_FILE.md, RULES.md §8): seed 1 at the top, seed 2 at the bottom, so seeds 1
and 2 can meet only in the final, seeds 1–4 only from the semi-finals, and so on. The better
seed of a meeting is its ``a``.

**Byes.** With n entrants and a bracket of the next power of two, the seeds n + 1 … size are
missing: their opponents — the top seeds — have a bye (RULES.md §8: "Byes go to the top seeds").

**Units apart.** After placing by seed, a first-round meeting of two entrants of one unit is
resolved, where the bracket allows, by exchanging the lower seed (the second of the meeting,
always a seed in the bottom half of the seedings) with the lower seed of another meeting, the
nearest seed first, when neither meeting then pairs one unit. Only the lower seeds move, so
the top half of the seedings keeps its places: seeds 1 and 2 still meet only in the final.

**Groups apart.** After a group stage the entrants of one group have met already: a first-round
meeting of two entrants of one group is exchanged away the same way (whatever ``same_unit``
says), before units — first an exchange that leaves neither meeting of one group or one unit,
then, for a meeting still of one group, one that leaves neither meeting of one group.

**By lot** (the company sheets: "每轮比赛结束后，重新抽签"): the top seeds still take the byes of
the first round; every round's meetings are then drawn with ``rng`` among the entrants left,
same-unit meetings exchanged away as above.

**Later rounds.** In bracket order the winners of slots 2k − 1 and 2k meet in slot k of the next
round (the winner of the upper slot first). With a third-place match the losers of the two
semi-finals meet when the final is drawn (slot 0).

**Placings** (RULES.md §8): the final's winner 1, loser 2; the third-place match's winner 3 and
loser 4, or both semi-final losers 3 without one; the losers of a round of m meetings share
place m + 1 (5 for the quarter-finals, 9 for the round of 16 …), listed by seed.

**Several knockout stages and the repechage** (seed 001's 初赛/复赛/决赛, 附加赛; docs/stages.md):
a stage with ``until`` stops when that many are left (``knockout_over``; ``survivors`` orders
them for the next stage); a stage with a repechage after round r halves its field every round
(``halving_round``), and round r's losers and bye play the repechage in round r + 1
(``repechage_round``, by lot) so that ``until`` × 2^j go on
(``rules.kinds.knockout.repechage_for``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from rules.kinds.knockout import RepechagePlan, halving_fields, repechage_for, repechage_plan

from .groups import Entrant


@dataclass(frozen=True, slots=True)
class Meeting:
    """One knockout match to play: slot (1-based from the top; 0 = the third-place match),
    ``a`` (sits North–South) against ``b``; ``b`` None is a bye for ``a``."""

    slot: int
    a: int
    b: int | None


@dataclass(frozen=True, slots=True)
class Decided:
    """A knockout match as played: its meeting and the winner (None while it is undecided)."""

    slot: int
    a: int
    b: int | None
    winner: int | None

    @property
    def loser(self) -> int | None:
        if self.winner is None or self.b is None:
            return None
        return self.b if self.winner == self.a else self.a


def bracket_size(entrants: int) -> int:
    """The smallest power of two ≥ ``entrants`` (at least 2)."""
    size = 2
    while size < entrants:
        size *= 2
    return size


def bracket_order(size: int) -> tuple[int, ...]:
    """The seeds in slot order for a bracket of ``size`` (a power of two ≥ 2)."""
    if size < 2 or size & (size - 1):
        raise ValueError("the bracket size must be a power of two ≥ 2")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [
            seed
            for i, s in enumerate(order)
            for seed in ((s, total - s) if i % 2 == 0 else (total - s, s))
        ]
    return tuple(order)


def _same_unit(a: Entrant, b: Entrant | None) -> bool:
    return b is not None and a.unit is not None and a.unit == b.unit


def _same_group(a: Entrant, b: Entrant | None) -> bool:
    return b is not None and a.group is not None and a.group == b.group


def _same_group_or_unit(a: Entrant, b: Entrant | None) -> bool:
    return _same_group(a, b) or _same_unit(a, b)


def _units_apart(
    pairs: list[tuple[Entrant, Entrant | None]],
    clash: Callable[[Entrant, Entrant | None], bool] = _same_unit,
) -> None:
    """Exchange the second entrants of two meetings to break meetings that ``clash`` (one
    unit, see the module); byes never move."""
    for i, (a, b) in enumerate(pairs):
        if not clash(a, b):
            continue
        assert b is not None
        options = []
        for j, (c, d) in enumerate(pairs):
            if j == i or d is None:
                continue
            if not clash(a, d) and not clash(c, b):
                options.append((abs(d.seed - b.seed), abs(j - i), j))
        if options:
            _, _, j = min(options)
            c, d = pairs[j]
            pairs[i], pairs[j] = (a, d), (c, b)


def first_round(
    entrants: Sequence[Entrant],
    seeding: str,
    rng: random.Random,
    avoid_units: bool = True,
) -> tuple[Meeting, ...]:
    """The first round of a knockout for ``entrants`` (their ``seed``s 1…n): ``bracket`` order
    or by ``lot`` (top seeds take the byes either way); units apart where the bracket allows."""
    ranked = sorted(entrants, key=lambda e: e.seed)
    n = len(ranked)
    if n < 2:
        raise ValueError("a knockout needs two entrants")
    size = bracket_size(n)
    pairs: list[tuple[Entrant, Entrant | None]]
    if seeding == "lot":
        byes = size - n
        pairs = [(e, None) for e in ranked[:byes]]
        drawn = list(ranked[byes:])
        rng.shuffle(drawn)
        pairs += [(drawn[i], drawn[i + 1]) for i in range(0, len(drawn), 2)]
    else:
        by_seed = {position + 1: e for position, e in enumerate(ranked)}
        order = bracket_order(size)
        pairs = []
        for i in range(0, size, 2):
            better, worse = sorted((order[i], order[i + 1]))
            top, bottom = by_seed[better], by_seed.get(worse)  # the worse seed may be missing
            pairs.append((top, bottom))
    if any(e.group is not None for e in ranked):
        # Groups apart (see the module): entrants of one group have met already.
        if avoid_units:
            _units_apart(pairs, _same_group_or_unit)
        _units_apart(pairs, _same_group)
    elif avoid_units:
        _units_apart(pairs)
    return tuple(
        Meeting(slot, a.id, b.id if b is not None else None)
        for slot, (a, b) in enumerate(pairs, start=1)
    )


def next_round(
    previous: Sequence[Decided],
    seeding: str,
    entrants: Mapping[int, Entrant],
    rng: random.Random,
    third_place: bool = False,
    avoid_units: bool = True,
) -> tuple[Meeting, ...]:
    """The round after ``previous`` (every meeting decided, slot 0 left out): the winners in
    bracket order, or drawn by lot; with ``third_place`` the semi-final losers meet in slot 0
    when this is the final."""
    played = sorted((d for d in previous if d.slot), key=lambda d: d.slot)
    winners = [d.winner for d in played]
    if any(w is None for w in winners) or len(played) < 2:
        raise ValueError("every meeting of the previous round must be decided")
    ids = [w for w in winners if w is not None]
    meetings: list[Meeting] = []
    if seeding == "lot":
        drawn = list(ids)
        rng.shuffle(drawn)
        pairs: list[tuple[Entrant, Entrant | None]] = [
            (entrants[drawn[i]], entrants[drawn[i + 1]]) for i in range(0, len(drawn), 2)
        ]
        if avoid_units:
            _units_apart(pairs)
        meetings = [
            Meeting(slot, a.id, b.id if b else None) for slot, (a, b) in enumerate(pairs, 1)
        ]
    else:
        meetings = [Meeting(k // 2 + 1, ids[k], ids[k + 1]) for k in range(0, len(ids), 2)]
    if third_place and len(played) == 2:
        losers = [d.loser for d in played]
        if losers[0] is not None and losers[1] is not None:
            meetings.append(Meeting(0, losers[0], losers[1]))
    return tuple(meetings)


def is_final(meetings: Sequence[Meeting | Decided]) -> bool:
    """A round of one meeting (and perhaps the third-place match) is the final."""
    return sum(1 for m in meetings if m.slot) == 1


def _after_repechage(index: int, repechage: int | None) -> bool:
    return repechage is not None and index == repechage + 1


def eliminated(rounds: Sequence[Sequence[Decided]], repechage: int | None = None) -> set[int]:
    """Every entrant knocked out so far: the losers of every round but round ``repechage``
    (its losers play the repechage in the next round)."""
    out: set[int] = set()
    for index, matches in enumerate(rounds, start=1):
        if index != repechage:
            out.update(d.loser for d in matches if d.loser is not None)
    return out


def knockout_over(
    rounds: Sequence[Sequence[Decided]],
    entrants: Collection[int],
    until: int | None = None,
    repechage: int | None = None,
) -> bool:
    """Whether the stage is played out: every match decided and ``until`` entrants left (or,
    without ``until``, one: the final and any third-place match played)."""
    if not rounds or any(d.winner is None for matches in rounds for d in matches):
        return False
    if _after_repechage(len(rounds) + 1, repechage):
        return False  # the repechage is still to come
    return len(set(entrants) - eliminated(rounds, repechage)) <= (until or 1)


def placings(
    rounds: Sequence[Sequence[Decided]],
    seeds: Mapping[int, int],
    repechage: int | None = None,
    until: int | None = None,
) -> tuple[tuple[int, int], ...]:
    """``(place, entrant)`` for every entrant whose place is known, best first (see the
    module); ``seeds`` orders entrants sharing a place. The losers of a round share the place
    after the entrants still in when it is over: its meetings' winners and byes, and in the
    repechage round the winners waiting for it too (seed 001: the 3 repechage losers beside 8
    still in share 9th); round ``repechage`` places nobody. With ``until`` the stage plays no
    final: the entrants left are placed by the next stage."""
    placed: list[tuple[int, int, int]] = []  # (place, seed, entrant)
    third_place_played = any(not m.slot for r in rounds for m in r)
    waiting = 0
    for index, matches in enumerate(rounds, start=1):
        slots = [d for d in matches if d.slot]
        if not slots or index == repechage:
            waiting = sum(1 for d in slots if d.b is not None)
            continue
        extra = waiting if _after_repechage(index, repechage) else 0
        third = next((d for d in matches if not d.slot), None)
        if len(slots) == 1 and not extra and until is None:  # the final
            final = slots[0]
            if final.winner is not None and final.loser is not None:
                placed.append((1, 0, final.winner))
                placed.append((2, 0, final.loser))
            if third is not None and third.winner is not None and third.loser is not None:
                placed.append((3, 0, third.winner))
                placed.append((4, 0, third.loser))
            continue
        semi_final = len(slots) == 2 and not extra
        for d in slots:
            loser = d.loser
            if loser is None:
                continue
            if semi_final and third_place_played:
                continue  # placed by the third-place match
            placed.append((len(slots) + extra + 1, seeds.get(loser, 0), loser))
    placed.sort()
    return tuple((place, entrant) for place, _, entrant in placed)


def survivors(
    rounds: Sequence[Sequence[Decided]], seeds: Mapping[int, int], repechage: int | None = None
) -> list[int]:
    """The entrants still in (a stage with ``until`` stopped), in the order the next stage
    seeds them: those that did not need the repechage first, each by the best seed of the
    part of the bracket it won (so a bracket goes on as drawn: seed 12 that beat seed 4 in
    seed 4's quarter stands where seed 4 stood), then by its own seed."""
    block = dict(seeds)
    through: set[int] = set()
    for index, matches in enumerate(rounds, start=1):
        for d in matches:
            if not d.slot or d.winner is None:
                continue
            if d.b is not None:
                block[d.winner] = min(block.get(d.a, 0), block.get(d.b, 0))
            if _after_repechage(index, repechage):
                through.add(d.winner)
    out = set(seeds) - eliminated(rounds, repechage)
    return sorted(out, key=lambda e: (e in through, block.get(e, 0), seeds.get(e, 0)))


# --------------------------------------------------------------------------------------------
# A stage with a repechage (附加赛, seed 001): the field halves every round, then the repechage.


def halving_round(
    field: Sequence[Entrant], seeding: str, rng: random.Random, avoid_units: bool = True
) -> tuple[Meeting, ...]:
    """One round of a stage with a repechage, its field halved: ``bracket`` re-seeds every
    round, the best seed left against the worst (1–n, 2–(n−1) …), an odd field's best seed a
    bye; ``lot`` draws every round, the bye too (seed 001: "剩下11对重新抽签……1对轮空"). The bye
    is the last slot."""
    ranked = sorted(field, key=lambda e: e.seed)
    if len(ranked) < 2:
        raise ValueError("a knockout round needs two entrants")
    bye: Entrant | None = None
    if seeding == "lot":
        drawn = list(ranked)
        rng.shuffle(drawn)
        if len(drawn) % 2:
            bye = drawn.pop()
        pairs: list[tuple[Entrant, Entrant | None]] = [
            (drawn[i], drawn[i + 1]) for i in range(0, len(drawn), 2)
        ]
    else:
        if len(ranked) % 2:
            bye, ranked = ranked[0], ranked[1:]
        half = len(ranked) // 2
        pairs = [(ranked[i], ranked[-1 - i]) for i in range(half)]
    if avoid_units:
        _units_apart(pairs)
    meetings = [Meeting(slot, a.id, b.id if b else None) for slot, (a, b) in enumerate(pairs, 1)]
    if bye is not None:
        meetings.append(Meeting(len(meetings) + 1, bye.id, None))
    return tuple(meetings)


def repechage_pool(rounds: Sequence[Sequence[Decided]], repechage: int) -> tuple[list[int], int]:
    """Who plays the repechage: the losers of round ``repechage`` and its bye, and how many of
    its winners wait."""
    matches = [d for d in rounds[repechage - 1] if d.slot]
    pool = [d.loser if d.b is not None else d.a for d in matches]
    if any(p is None for p in pool):
        raise ValueError("every meeting of the previous round must be decided")
    return [p for p in pool if p is not None], sum(1 for d in matches if d.b is not None)


def repechage_round(
    pool: Sequence[Entrant], plan: RepechagePlan, rng: random.Random, avoid_units: bool = True
) -> tuple[Meeting, ...]:
    """The repechage, drawn by lot among ``pool``: ``plan.byes`` of them drawn to rejoin
    without playing, the others in ``plan.matches`` meetings (slots first, byes after)."""
    drawn = sorted(pool, key=lambda e: e.seed)
    rng.shuffle(drawn)
    byes, playing = drawn[: plan.byes], drawn[plan.byes :]
    pairs: list[tuple[Entrant, Entrant | None]] = [
        (playing[i], playing[i + 1]) for i in range(0, len(playing), 2)
    ]
    if avoid_units:
        _units_apart(pairs)
    pairs += [(e, None) for e in byes]
    return tuple(
        Meeting(slot, a.id, b.id if b else None) for slot, (a, b) in enumerate(pairs, start=1)
    )


def next_halving_round(
    rounds: Sequence[Sequence[Decided]],
    entrants: Mapping[int, Entrant],
    seeding: str,
    repechage: int,
    until: int | None,
    rng: random.Random,
    third_place: bool = False,
    avoid_units: bool = True,
) -> tuple[tuple[Meeting, ...], bool]:
    """The next round of a stage with a repechage after round ``repechage`` and whether it is
    the repechage: after round ``repechage`` its pool (``repechage_pool``, ``repechage_for``:
    enough rejoin to make the field ``until`` × 2^j), else the entrants still in halved
    (``halving_round``); with ``third_place`` the semi-final losers meet in slot 0 beside the
    final. ``ValueError`` when a match is undecided or the repechage cannot be made."""
    if any(d.winner is None for matches in rounds for d in matches):
        raise ValueError("every meeting of the previous round must be decided")
    if not rounds:
        return halving_round(list(entrants.values()), seeding, rng, avoid_units), False
    if len(rounds) == repechage:
        pool, waiting = repechage_pool(rounds, repechage)
        plan = repechage_for(repechage, waiting, len(pool), until or 1)
        if not plan.possible:
            raise ValueError("the repechage cannot bring the field to a power of two")
        return repechage_round([entrants[p] for p in pool], plan, rng, avoid_units), True
    left = sorted(set(entrants) - eliminated(rounds, repechage))
    meetings = halving_round([entrants[p] for p in left], seeding, rng, avoid_units)
    previous = [d for d in rounds[-1] if d.slot]
    if third_place and len(left) == 2 and len(previous) == 2 and len(rounds) != repechage + 1:
        losers = [d.loser for d in previous]
        if losers[0] is not None and losers[1] is not None:
            meetings += (Meeting(0, losers[0], losers[1]),)
    return meetings, False


@dataclass(frozen=True, slots=True)
class RoundShape:
    """One round of a knockout stage as its settings foresee it: ``entrants`` playing
    ``matches`` meetings, ``byes`` passing; ``repechage`` for the repechage round."""

    entrants: int
    matches: int
    byes: int
    repechage: bool = False


def stage_shape(entrants: int, until: int | None, repechage: int | None) -> tuple[RoundShape, ...]:
    """Every round of a knockout stage of ``entrants`` (the pages draw the rounds to come from
    it): a bracket — the first round's byes, then halving to ``until`` (or the final); with a
    repechage — halving fields up to its round, the repechage (``repechage_plan``), then
    halving from its target. Empty when the settings cannot be played."""
    left = until or 1
    out: list[RoundShape] = []
    if entrants < 2 or entrants <= left:
        return ()
    if repechage is None:
        size = bracket_size(entrants)
        out.append(RoundShape(entrants, entrants - size // 2, size - entrants))
        field = size // 2
    else:
        plan = repechage_plan(entrants, repechage, left)
        if not plan.possible:
            return ()
        out.extend(RoundShape(f, f // 2, f % 2) for f in halving_fields(entrants, repechage))
        out.append(RoundShape(plan.pool, plan.matches, plan.byes, True))
        field = plan.target
    while field > left and field >= 2:
        out.append(RoundShape(field, field // 2, field % 2))
        field = (field + 1) // 2
    return tuple(out)
