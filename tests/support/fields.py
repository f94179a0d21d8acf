"""Field generators for the Swiss engine's tests and benchmarks (no Django).

- :func:`simulate_field`: a realistic field after R rounds paired by the engine itself;
- :func:`adversarial_field`: a realistic field with obstacles that put the parity bound out of
  reach (met leaders, a met trio, a unit-majority group), on top of few large units;
- :func:`random_field`: random, deliberately inconsistent history (dense rematch sets).

Used by ``tests/core/test_swiss*.py`` and ``benchmarks/pairing.py``; the app never imports it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace

from pairing.swiss import SwissOptions, SwissPair, pair_round

__all__ = ["adversarial_field", "random_field", "simulate_field"]


def _unit_names(n: int, units: int, rng: random.Random) -> list[str | None]:
    """Units of varied size: weights 1/k (Zipf-like), some pairs without a unit."""
    if units <= 0:
        return [None] * n
    weights = [1.0 / (k + 1) for k in range(units)]
    names = [f"U{k + 1}" for k in range(units)]
    out: list[str | None] = []
    for _ in range(n):
        out.append(None if rng.random() < 0.05 else rng.choices(names, weights)[0])
    return out


def simulate_field(
    n: int,
    rounds_played: int,
    units: int,
    seed: int,
    options: SwissOptions | None = None,
    draw_rate: float = 0.04,
    on_round: Callable[[int, float], None] | None = None,
) -> list[SwissPair]:
    """A field of ``n`` pairs after ``rounds_played`` rounds paired by the engine itself.

    Results are random with a hidden strength per pair (the stronger pair wins more often),
    draws at ``draw_rate``; win 2, draw 1, loss 0, a bye counts as a win (RULES.md §2). The
    ranking is by CF, then by a random level-difference total (a stand-in for §4 tiebreaks).
    ``on_round(r, seconds)`` is called after each round is paired (the benchmark times them).
    """
    rng = random.Random(seed)
    options = options or SwissOptions()
    unit_of = _unit_names(n, units, rng)
    strength = [rng.gauss(0.0, 1.0) for _ in range(n)]
    cf = [0] * n
    jcf = [0] * n
    opponents: list[set[int]] = [set() for _ in range(n)]
    had_bye = [False] * n
    ns = [0] * n
    ew = [0] * n
    last: list[str | None] = [None] * n
    for r in range(1, rounds_played + 1):
        field = _field(n, cf, jcf, unit_of, opponents, had_bye, ns, ew, last)
        started = time.perf_counter()
        draw = pair_round(field, r, options, random.Random(seed * 1000 + r))
        if on_round is not None:
            on_round(r, time.perf_counter() - started)
        if draw.bye is not None:
            k = draw.bye - 1
            had_bye[k] = True
            cf[k] += 2
            jcf[k] += 17
        for table in draw.tables:
            a, b = table.ns - 1, table.ew - 1
            opponents[a].add(b + 1)
            opponents[b].add(a + 1)
            ns[a] += 1
            ew[b] += 1
            last[a], last[b] = "NS", "EW"
            x = rng.random()
            if x < draw_rate:
                cf[a] += 1
                cf[b] += 1
                jcf[a] += 13
                jcf[b] += 13
                continue
            p_a = 1.0 / (1.0 + 2.718281828 ** (strength[b] - strength[a]))
            win, lose = (a, b) if rng.random() < p_a else (b, a)
            jc = rng.randint(1, 13)
            cf[win] += 2
            jcf[win] += 13 + jc
            jcf[lose] += 13 - jc
    return _field(n, cf, jcf, unit_of, opponents, had_bye, ns, ew, last)


def _field(
    n: int,
    cf: list[int],
    jcf: list[int],
    unit_of: list[str | None],
    opponents: list[set[int]],
    had_bye: list[bool],
    ns: list[int],
    ew: list[int],
    last: list[str | None],
) -> list[SwissPair]:
    order = sorted(range(n), key=lambda k: (-cf[k], -jcf[k], k))
    return [
        SwissPair(
            id=k + 1,
            rank=pos + 1,
            match_points=float(cf[k]),
            unit=unit_of[k],
            opponents=frozenset(opponents[k]),
            had_bye=had_bye[k],
            ns_count=ns[k],
            ew_count=ew[k],
            last_direction=last[k],
            seeding=k + 1,
        )
        for pos, k in enumerate(order)
    ]


def adversarial_field(n: int, rounds_played: int, seed: int, units: int = 4) -> list[SwissPair]:
    """A realistic history with one unit holding half the field and obstacles on top.

    The history is :func:`simulate_field` with 30 units (so building it is quick at any size);
    then the units are redrawn: ``U1`` holds exactly half the pairs (so it is a majority of
    about half the score groups and its surplus must float or meet itself) and the rest are
    spread over ``units − 1`` other units. On top: the two leaders sit alone on the top score
    and have met; three pairs who have all met each other sit alone at the bottom; and a small
    score group in the middle (half a point above its neighbours) holds four pairs of which three
    are in U1 and have met the fourth. Each obstacle forces floats the parity bound ignores.
    """
    pairs = simulate_field(n, rounds_played, 30, seed)
    rng = random.Random(seed)
    half = set(rng.sample([p.id for p in pairs], n // 2))
    others = [f"U{k + 2}" for k in range(max(units - 1, 1))]
    pairs = [
        replace(p, unit="U1" if p.id in half else others[rng.randrange(len(others))]) for p in pairs
    ]
    top = max(p.match_points for p in pairs)
    ids = [p.id for p in pairs]
    mid = rng.sample(ids[n // 3 : 2 * n // 3], 4)
    leaders = ids[:2]
    bottom = ids[-3:]
    met: dict[int, set[int]] = {p.id: set(p.opponents) for p in pairs}

    def meet(a: int, b: int) -> None:
        met[a].add(b)
        met[b].add(a)

    meet(*leaders)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        meet(bottom[a], bottom[b])
    for a in mid[:3]:
        meet(a, mid[3])
    mid_cf = sorted(p.match_points for p in pairs)[n // 2] + 0.5
    out = []
    for p in pairs:
        cf, unit = p.match_points + 1, p.unit
        if p.id in leaders:
            cf = top + 3
        elif p.id in bottom:
            cf = 0
        elif p.id in mid:
            cf = mid_cf + 1
            unit = "U1" if p.id != mid[3] else unit
        out.append(replace(p, match_points=cf, unit=unit, opponents=frozenset(met[p.id])))
    out.sort(key=lambda p: (-p.match_points, p.rank))
    return [replace(p, rank=k + 1) for k, p in enumerate(out)]


def random_field(rng: random.Random, n: int, max_history: int, max_units: int) -> list[SwissPair]:
    """An adversarial-ish random field: random CF, random opponents, varied units, some byes.

    Unlike :func:`simulate_field` the history need not be consistent with real rounds, so it
    produces small score groups, dense rematch sets and dominant units that a greedy gets wrong.
    """
    history = rng.randint(0, max_history)
    cf = [rng.randint(0, 2 * history) if history else 0 for _ in range(n)]
    if rng.random() < 0.3:
        cf = [c / 2 for c in cf]  # the 1/0.5/0 match-point scale
    n_units = rng.randint(0, max_units)
    names = [f"U{k}" for k in range(n_units)]
    weights = [rng.random() ** 2 + 0.01 for _ in range(n_units)]
    units = [rng.choices(names, weights)[0] if names and rng.random() < 0.9 else None for _ in cf]
    opponents: list[set[int]] = [set() for _ in range(n)]
    density = rng.random()
    for a in range(n):
        for _ in range(history):
            if rng.random() < density:
                b = rng.randrange(n)
                if b != a:
                    opponents[a].add(b + 1)
                    opponents[b].add(a + 1)
    order = sorted(range(n), key=lambda k: (-cf[k], rng.random()))
    return [
        SwissPair(
            id=k + 1,
            rank=pos + 1,
            match_points=float(cf[k]),
            unit=units[k],
            opponents=frozenset(opponents[k]),
            had_bye=rng.random() < 0.2,
            ns_count=rng.randint(0, history),
            ew_count=rng.randint(0, history),
            last_direction=rng.choice(["NS", "EW", None]),
        )
        for pos, k in enumerate(order)
    ]
