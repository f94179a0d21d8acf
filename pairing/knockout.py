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
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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


def placings(
    rounds: Sequence[Sequence[Decided]], seeds: Mapping[int, int]
) -> tuple[tuple[int, int], ...]:
    """``(place, entrant)`` for every entrant whose place is known, best first (see the
    module); ``seeds`` orders entrants sharing a place."""
    placed: list[tuple[int, int, int]] = []  # (place, seed, entrant)
    for matches in rounds:
        slots = [d for d in matches if d.slot]
        if not slots:
            continue
        third = next((d for d in matches if not d.slot), None)
        if len(slots) == 1:  # the final
            final = slots[0]
            if final.winner is not None and final.loser is not None:
                placed.append((1, 0, final.winner))
                placed.append((2, 0, final.loser))
            if third is not None and third.winner is not None and third.loser is not None:
                placed.append((3, 0, third.winner))
                placed.append((4, 0, third.loser))
            continue
        semi_final = len(slots) == 2
        for d in slots:
            loser = d.loser
            if loser is None:
                continue
            if semi_final and any(not m.slot for r in rounds for m in r):
                continue  # placed by the third-place match
            placed.append((len(slots) + 1, seeds.get(loser, 0), loser))
    placed.sort()
    return tuple((place, entrant) for place, _, entrant in placed)
