"""Round-robin groups (小组, RULES.md §8): placing the entrants and the schedule of a group.

Pure: the standard library only; randomness comes in as a seeded ``random.Random``.

- ``snake_groups``: the entrants in ranking order dealt into g groups as a snake (1 8 9 16 /
  2 7 10 15 / … for 4 groups of 4): row r of the snake — entrants r·g+1 … r·g+g, a *pot* — puts
  one entrant in every group, left to right on even rows and right to left on odd ones, so the
  groups' seed totals are as even as they can be.
- ``lot_groups``: the same dealing after a draw by lot of the whole order.
- Units apart "where possible": when two entrants of one unit share a group, an entrant is
  swapped with the entrant of the *same pot* in another group (so every group keeps one entrant
  of every pot: the balance of the snake is kept), choosing the swap that removes the most
  same-unit couples, then the lowest pot (the weaker entrant moves), then the nearest group;
  repeated while a swap still removes one (each swap removes at least one couple, so it ends).
- ``round_robin_schedule``: the circle (Berger) method — entrant 1 fixed, the others turning
  one place a round; n − 1 rounds for an even n, n rounds and a bye a round for an odd n; every
  entrant meets every other exactly once. Entrant 1 changes direction every round.
"""

from __future__ import annotations

import random
import string
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True, slots=True)
class Entrant:
    """An entrant of a stage: its id (the pair's number), its seed (1 = best of the previous
    ranking), its unit (None: none) and, after a group stage, its group there (None: none)."""

    id: int
    seed: int
    unit: str | None = None
    group: str | None = None


def group_names(count: int) -> tuple[str, ...]:
    """ "A", "B" … "Z", then "AA", "AB" …: a group's name in the file and on the pages."""
    letters = string.ascii_uppercase
    names: list[str] = []
    width, index = 1, 0
    while len(names) < count:
        if index == len(letters) ** width:
            width, index = width + 1, 0
        name, rest = "", index
        for _ in range(width):
            rest, digit = divmod(rest, len(letters))
            name = letters[digit] + name
        names.append(name)
        index += 1
    return tuple(names)


def _couples(members: Sequence[Entrant]) -> int:
    """Same-unit couples in a group."""
    return sum(1 for a, b in combinations(members, 2) if a.unit is not None and a.unit == b.unit)


def _deal(ordered: Sequence[Entrant], groups: int) -> list[list[Entrant]]:
    """Deal the entrants as a snake; ``result[g][r]`` is group g's entrant of pot r."""
    dealt: list[list[Entrant]] = [[] for _ in range(groups)]
    for start in range(0, len(ordered), groups):
        row = list(ordered[start : start + groups])
        if (start // groups) % 2:
            # Right to left; a short last row still fills from the end it starts at.
            for offset, entrant in enumerate(row):
                dealt[groups - 1 - offset].append(entrant)
        else:
            for offset, entrant in enumerate(row):
                dealt[offset].append(entrant)
    return dealt


def _units_apart(dealt: list[list[Entrant]]) -> None:
    """Swap entrants of one pot between groups while a swap lowers the same-unit couples."""
    if not any(e.unit for members in dealt for e in members):
        return
    improved = True
    while improved:
        improved = False
        for g, members in enumerate(dealt):
            if not _couples(members):
                continue
            # (-gain, -pot, distance, other group): the biggest gain, moving the lowest pot
            # (the weakest entrant), to the nearest group.
            best: tuple[int, int, int, int] | None = None
            for pot, entrant in enumerate(members):
                if entrant.unit is None or not any(
                    o.unit == entrant.unit for o in members if o is not entrant
                ):
                    continue
                for h, others in enumerate(dealt):
                    if h == g or pot >= len(others):
                        continue
                    before = _couples(members) + _couples(others)
                    mine = [*members[:pot], others[pot], *members[pot + 1 :]]
                    theirs = [*others[:pot], entrant, *others[pot + 1 :]]
                    gain = before - _couples(mine) - _couples(theirs)
                    if gain > 0:
                        candidate = (-gain, -pot, abs(h - g), h)
                        if best is None or candidate < best:
                            best = candidate
            if best is not None:
                _, minus_pot, _, h = best
                pot = -minus_pot
                members[pot], dealt[h][pot] = dealt[h][pot], members[pot]
                improved = True


def snake_groups(
    ranked: Sequence[Entrant], groups: int, avoid_units: bool = True
) -> tuple[tuple[Entrant, ...], ...]:
    """Groups by snake seeding from ``ranked`` (best first), units apart where possible."""
    dealt = _deal(ranked, groups)
    if avoid_units:
        _units_apart(dealt)
    return tuple(tuple(members) for members in dealt)


def lot_groups(
    entrants: Sequence[Entrant], groups: int, rng: random.Random, avoid_units: bool = True
) -> tuple[tuple[Entrant, ...], ...]:
    """Groups by lot: the order drawn with ``rng``, then dealt like the snake."""
    drawn = sorted(entrants, key=lambda e: e.seed)
    rng.shuffle(drawn)
    return snake_groups(drawn, groups, avoid_units)


def round_robin_schedule(size: int) -> tuple[tuple[tuple[int, int | None], ...], ...]:
    """The rounds of a group of ``size`` entrants (0-based places in the group, in the order
    they were placed): each round a tuple of (first, second) meetings, ``second`` None for the
    bye of an odd group. The first of a meeting sits North–South."""
    if size < 2:
        return ()
    places: list[int | None] = list(range(size))
    if size % 2:
        places.append(None)
    m = len(places)
    rounds: list[tuple[tuple[int, int | None], ...]] = []
    for number in range(m - 1):
        meetings: list[tuple[int, int | None]] = []
        for i in range(m // 2):
            a, b = places[i], places[m - 1 - i]
            if i == 0 and number % 2:
                a, b = b, a  # the fixed entrant changes direction every round
            if a is None:
                a, b = b, None
            assert a is not None
            meetings.append((a, b))
        # Byes last, the rest in place order.
        meetings.sort(
            key=lambda ab: (ab[1] is None, min(ab[0], ab[1] if ab[1] is not None else ab[0]))
        )
        rounds.append(tuple(meetings))
        places = [places[0], places[-1], *places[1:-1]]
    return tuple(rounds)


def next_group_round(
    places: Sequence[int], played: Collection[frozenset[int]]
) -> tuple[tuple[int, int | None], ...]:
    """The next round of a group whose entrants stand in ``places`` (ids) and have played the
    meetings ``played``: the first round of the circle schedule that is still wholly unplayed
    (the usual case: the earlier rounds were this schedule's), else — after a hand-made or
    imported round — a round of unplayed meetings after which every remaining meeting can
    still be played, one round each (a search; groups are small). ``()`` when every meeting
    has been played; ``ValueError`` when no round can complete the group."""
    ids = list(places)
    left = {frozenset(c) for c in combinations(ids, 2)} - {frozenset(p) for p in played}
    if not left:
        return ()
    for meetings in round_robin_schedule(len(ids)):
        named = tuple((ids[a], ids[b] if b is not None else None) for a, b in meetings)
        if all(frozenset((a, b)) in left for a, b in named if b is not None):
            return named
    found = _completion(ids, left)
    if found is None:
        raise ValueError("no round completes the group")
    return found


def _completion(
    ids: list[int], left: set[frozenset[int]]
) -> tuple[tuple[int, int | None], ...] | None:
    """A round of meetings from ``left`` (a bye for one entrant of an odd group) after which the
    rest can be played round by round; a depth-first search over rounds."""
    if not left:
        return ()
    odd = len(ids) % 2 == 1

    def rounds_of(
        free: list[int], chosen: list[tuple[int, int | None]], remaining: set[frozenset[int]]
    ) -> Iterator[tuple[tuple[int, int | None], ...]]:
        if not free:
            yield tuple(chosen)
            return
        first, rest = free[0], free[1:]
        if odd and not any(b is None for _a, b in chosen):
            yield from rounds_of(rest, [*chosen, (first, None)], remaining)
        for other in rest:
            if frozenset((first, other)) in remaining:
                yield from rounds_of(
                    [x for x in rest if x != other], [*chosen, (first, other)], remaining
                )

    budget = [20_000]

    def solve(remaining: set[frozenset[int]]) -> tuple[tuple[int, int | None], ...] | None:
        if not remaining:
            return ()
        for candidate in rounds_of(ids, [], remaining):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            used = {frozenset((a, b)) for a, b in candidate if b is not None}
            if not used:
                continue
            if solve(remaining - used) is not None:
                return candidate
        return None

    return solve(left)
