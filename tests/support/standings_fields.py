"""Random standings inputs for the property tests of ``scoring.standings`` (test support only).

``random_field`` builds a small Swiss-like or round-robin field from a seeded ``random.Random``:
byes, pairs sitting a round out, forfeits, draws and a narrow range of results so that ties,
head-to-head between two pairs and mini-leagues of three or more are common; optionally
fractional match points (the rounded, non-exact path) and deductions. ``truncated`` keeps only a
prefix of one round's outcomes: a round in progress with some tables confirmed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scoring.standings import CRITERIA, PRESETS, Deduction, Outcome

__all__ = ["Field", "random_criteria", "random_field", "truncated"]

SELECTABLE = tuple(key for key in CRITERIA if key not in {"cf", "lot"})


@dataclass(frozen=True)
class Field:
    pairs: tuple[int, ...]
    outcomes: tuple[Outcome, ...]
    deductions: tuple[Deduction, ...]
    rounds: int
    criteria: tuple[str, ...]
    seed: int


def random_criteria(rng: random.Random) -> tuple[str, ...]:
    """A preset, or a random ordered subset of the selectable criteria (head-to-head often
    early, where it meets the most tie groups)."""
    roll = rng.random()
    if roll < 0.3:
        return PRESETS[rng.choice(sorted(PRESETS))]
    keys = list(SELECTABLE)
    rng.shuffle(keys)
    keys = keys[: rng.randint(0, len(keys))]
    if roll < 0.7 and "head_to_head" not in keys:
        keys.insert(rng.randint(0, min(1, len(keys))), "head_to_head")
    if "head_to_head" in keys and "head_to_head_two" in keys:
        # One kind of head-to-head a list (RULES.md §9): now one, now the other.
        keys.remove("head_to_head" if rng.random() < 0.5 else "head_to_head_two")
    return tuple(keys)


def _match(
    rng: random.Random, number: int, a: int, b: int, points: tuple[float, float, float]
) -> list[Outcome]:
    win, draw, loss = points
    roll = rng.random()
    if roll < 0.08:  # 弃权: a forfeit either way
        present, absent = (a, b) if rng.random() < 0.5 else (b, a)
        return [
            Outcome(number, present, absent, "forfeit", "win", win, 17, 0, 0),
            Outcome(number, absent, present, "forfeit", "loss", 0, 0, 0, 0),
        ]
    jc = rng.choice((0, 0, 1, 1, 2, 3))  # narrow: many equal JCF and level differences
    if jc == 0:
        up = rng.randint(0, 3)
        return [
            Outcome(number, a, b, "played", "draw", draw, 13, 0, up),
            Outcome(number, b, a, "played", "draw", draw, 13, 0, rng.randint(0, 3)),
        ]
    winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
    return [
        Outcome(number, winner, loser, "played", "win", win, 13 + jc, jc, jc + rng.randint(0, 2)),
        Outcome(number, loser, winner, "played", "loss", loss, 13 - jc, -jc, rng.randint(0, 2)),
    ]


def random_field(rng: random.Random, max_pairs: int = 10, max_rounds: int = 7) -> Field:
    n = rng.randint(1, max_pairs)
    pairs = rng.sample(range(1, 4 * max_pairs + 1), n)
    rounds = rng.randint(0, max_rounds)
    points: tuple[float, float, float] = rng.choice(
        ((2, 1, 0), (2, 1, 0), (3, 1, 0), (1, 0.5, 0), (2, 0.5, 0.25))
    )
    round_robin = n <= 8 and rng.random() < 0.5
    if round_robin and rng.random() < 0.6:  # exactly one full cycle: mini-leagues everywhere
        rounds = n - 1 + n % 2
    outcomes: list[Outcome] = []
    for number in range(1, rounds + 1):
        if round_robin:  # circle method: everyone meets everyone every n-1 (or n) rounds
            ring = sorted(pairs) + ([None] if n % 2 else [])
            k = (number - 1) % max(len(ring) - 1, 1)
            ring = [ring[0], *(ring[1:][-k:] + ring[1:][:-k] if k else ring[1:])]
            half = len(ring) // 2
            meetings = list(zip(ring[:half], reversed(ring[half:]), strict=True))
        else:
            present = list(pairs)
            rng.shuffle(present)
            present = present[: rng.randint(max(0, len(present) - 2), len(present))]
            if len(present) % 2:
                present.append(None)  # type: ignore[arg-type]
            meetings = list(zip(present[::2], present[1::2], strict=True))
        for a, b in meetings:
            if a is None or b is None:
                bye = a if b is None else b
                if bye is not None:
                    outcomes.append(Outcome(number, bye, None, "bye", "win", points[0], 17, 0, 0))
                continue
            outcomes += _match(rng, number, a, b, points)
    deductions = [
        Deduction(
            rng.choice([None, *range(1, rounds + 1)]),
            rng.choice(pairs),
            rng.choice((1, 1, 2, 0.5)),
        )
        for _ in range(rng.choice((0, 0, 1, 3)))
    ]
    rng.shuffle(outcomes)
    criteria = random_criteria(rng)
    if round_robin and rng.random() < 0.7:  # head-to-head straight after CF: mini-leagues
        kind = "head_to_head_two" if "head_to_head_two" in criteria else "head_to_head"
        criteria = (kind, *(key for key in criteria if key != kind))
    return Field(
        tuple(pairs), tuple(outcomes), tuple(deductions), rounds, criteria, rng.randrange(2**32)
    )


def truncated(field: Field, number: int, keep: int) -> tuple[Outcome, ...]:
    """Every outcome of the rounds before ``number`` and the first ``keep`` matches (both
    sides) or byes of round ``number``: that round in progress."""
    earlier = tuple(o for o in field.outcomes if o.round < number)
    this = sorted(
        (o for o in field.outcomes if o.round == number),
        key=lambda o: (min(o.pair, o.opponent or o.pair), o.pair),
    )
    tables: dict[int, list[Outcome]] = {}
    for o in this:
        tables.setdefault(min(o.pair, o.opponent or o.pair), []).append(o)
    kept = [o for key in sorted(tables)[:keep] for o in tables[key]]
    return earlier + tuple(kept)
