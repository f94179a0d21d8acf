"""Benchmark and cross-check of the Swiss pairing engine (``pairing.swiss``); no Django.

``python -m pairing.bench --pairs N --rounds R [--units U] [--seed S] [--json] [--compare]
[--cases K]`` builds a realistic field — R−1 rounds played with the engine itself and random
results — and times pairing round R. ``--compare`` also times an exact reference (networkx's
blossom, a test-only dependency) on the same input and checks that both reach the same
(same-unit meetings, Σ gap). ``--cases K`` cross-checks K random small fields against the
reference. :func:`markdown_report` runs the ``make bench`` configuration for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from pairing.swiss import SwissDraw, SwissOptions, SwissPair, pair_round

__all__ = [
    "BenchResult",
    "adversarial_field",
    "check_draw",
    "main",
    "markdown_report",
    "random_field",
    "reference_cost",
    "run_bench",
    "simulate_field",
]


# --------------------------------------------------------------------------------------------
# Realistic fields
# --------------------------------------------------------------------------------------------


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
) -> list[SwissPair]:
    """A field of ``n`` pairs after ``rounds_played`` rounds paired by the engine itself.

    Results are random with a hidden strength per pair (the stronger pair wins more often),
    draws at ``draw_rate``; win 2, draw 1, loss 0, a bye counts as a win (RULES.md §2). The
    ranking is by CF, then by a random level-difference total (a stand-in for §4 tiebreaks).
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
        draw = pair_round(field, r, options, random.Random(seed * 1000 + r))
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
    """A realistic field (few large units) with obstacles that put the parity bound out of reach.

    On top of :func:`simulate_field`: the two leaders sit alone on the top score and have met;
    three pairs who have all met each other sit alone at the bottom; and a small score group in
    the middle (half a point above its neighbours) holds four pairs of which three share a unit
    and have met the fourth. Each obstacle forces extra floats that the parity bound ignores.
    """
    pairs = simulate_field(n, rounds_played, units, seed)
    top = max(p.match_points for p in pairs)
    ids = [p.id for p in pairs]
    rng = random.Random(seed)
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


# --------------------------------------------------------------------------------------------
# The exact reference (networkx, imported lazily: a test-only dependency)
# --------------------------------------------------------------------------------------------


def reference_cost(pairs: Sequence[SwissPair], avoid: bool) -> tuple[int, float] | None:
    """(same-unit meetings, Σ gap) of an optimal rematch-free pairing of an even field, by
    networkx's exact blossom; None when no such pairing exists."""
    import networkx as nx

    n = len(pairs)
    fr = [Fraction(p.match_points) for p in pairs]
    span = (max(fr) - min(fr)) if fr else Fraction(0)
    denominator = 1
    for f in fr:
        denominator = denominator * f.denominator // _gcd(denominator, f.denominator)
    big_a = int(span * denominator) * (n // 2) + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    costs: dict[tuple[int, int], int] = {}
    for i in range(n):
        for j in range(i + 1, n):
            if pairs[j].id in pairs[i].opponents or pairs[i].id in pairs[j].opponents:
                continue
            same = avoid and pairs[i].unit is not None and pairs[i].unit == pairs[j].unit
            costs[(i, j)] = int(same) * big_a + int(abs(fr[i] - fr[j]) * denominator)
    top = max(costs.values(), default=0) + 1
    for (i, j), c in costs.items():
        graph.add_edge(i, j, weight=top - c)
    mate = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(mate) != n:
        return None
    same_unit = 0
    gap = Fraction(0)
    for i, j in mate:
        if pairs[i].unit is not None and pairs[i].unit == pairs[j].unit:
            same_unit += 1
        gap += abs(fr[i] - fr[j])
    return same_unit, float(gap)


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def check_draw(pairs: Sequence[SwissPair], draw: SwissDraw, options: SwissOptions) -> list[str]:
    """Problems with ``draw`` against the reference: rematches, unseated pairs, worse cost."""
    problems: list[str] = []
    by_id = {p.id: p for p in pairs}
    seated: list[int] = []
    for t in draw.tables:
        seated += [t.ns, t.ew]
        if t.ew in by_id[t.ns].opponents or t.ns in by_id[t.ew].opponents:
            problems.append(f"rematch at table {t.number}: {t.ns}-{t.ew}")
    if draw.bye is not None:
        seated.append(draw.bye)
    if sorted(seated) != sorted(by_id):
        problems.append("not every pair seated exactly once")
    rest = [p for p in pairs if p.id != draw.bye]
    ref = reference_cost(rest, options.same_unit == "avoid")
    if ref is None:
        problems.append("reference finds no pairing without rematch")
    elif options.same_unit == "allow" and ref[1] != draw.total_gap:
        # Units are not a priority then; only Σ gap is optimised (and counted either way).
        problems.append(f"gap {draw.total_gap} != reference {ref[1]}")
    elif options.same_unit == "avoid" and ref != (draw.same_unit_meetings, draw.total_gap):
        problems.append(f"cost {(draw.same_unit_meetings, draw.total_gap)} != reference {ref}")
    return problems


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchResult:
    pairs: int
    round: int
    units: int
    seconds: float
    setup_seconds: float
    same_unit_meetings: int
    total_gap: float
    reference_seconds: float | None = None
    reference_equal: bool | None = None


def run_bench(
    pairs: int, rounds: int, units: int = 30, seed: int = 1, compare: bool = False
) -> BenchResult:
    """Build the field (R−1 rounds, not timed in ``seconds``) and time pairing round R."""
    started = time.perf_counter()
    field = simulate_field(pairs, rounds - 1, units, seed)
    setup = time.perf_counter() - started
    options = SwissOptions()
    started = time.perf_counter()
    draw = pair_round(field, rounds, options, random.Random(seed))
    seconds = time.perf_counter() - started
    ref_seconds = None
    equal = None
    if compare:
        rest = [p for p in field if p.id != draw.bye]
        started = time.perf_counter()
        ref = reference_cost(rest, True)
        ref_seconds = time.perf_counter() - started
        equal = ref == (draw.same_unit_meetings, draw.total_gap)
    return BenchResult(
        pairs=pairs,
        round=rounds,
        units=units,
        seconds=seconds,
        setup_seconds=setup,
        same_unit_meetings=draw.same_unit_meetings,
        total_gap=draw.total_gap,
        reference_seconds=ref_seconds,
        reference_equal=equal,
    )


def run_cases(cases: int, seed: int = 0, max_pairs: int = 150) -> tuple[int, list[str]]:
    """Cross-check ``cases`` random fields against the reference; returns (checked, problems)."""
    from pairing.swiss import PairingError

    rng = random.Random(seed)
    problems: list[str] = []
    for case in range(cases):
        n = rng.randint(4, max_pairs if rng.random() < 0.1 else min(max_pairs, 40))
        field = random_field(rng, n, 12, 8)
        options = SwissOptions(same_unit=rng.choice(["avoid", "avoid", "allow"]))
        try:
            draw = pair_round(field, rng.randint(2, 13), options, random.Random(case))
        except PairingError as exc:
            if exc.code != "no_pairing_without_rematch":
                problems.append(f"case {case}: unexpected {exc.code}")
            continue
        problems += [f"case {case}: {p}" for p in check_draw(field, draw, options)]
    return cases, problems


# The `make bench` configuration (issue 3).
BENCH_SIZES = (100, 1_000, 10_000, 20_000)
COMPARE_SIZES = (128, 256)


def markdown_report() -> str:
    """Run the ``make bench`` configuration and return the "## Swiss pairing" section."""
    rows = [run_bench(n, 9, 30, seed=1) for n in BENCH_SIZES]
    comps = [run_bench(n, 9, 30, seed=1, compare=True) for n in COMPARE_SIZES]
    t = {r.pairs: r.seconds for r in rows}
    ratio = t[20_000] / t[10_000] if t[10_000] > 0 else float("inf")
    c256 = next(c for c in comps if c.pairs == 256)
    speedup = (c256.reference_seconds or 0.0) / c256.seconds if c256.seconds > 0 else 0.0
    lines = [
        "## Swiss pairing",
        "",
        "Round 9 paired by `pairing.swiss.pair_round` on a field built by playing rounds 1–8 with",
        "the engine and random results (30 units of varied size). Time is for round 9 only.",
        "",
        "| pairs | round 9 pairing (s) | field setup (s) | same-unit meetings | Σ gap |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.pairs:,} | {r.seconds:.3f} | {r.setup_seconds:.1f} | "
            f"{r.same_unit_meetings} | {r.total_gap:g} |"
        )
    lines += [
        "",
        "| pairs | engine (s) | networkx blossom (s) | speed-up | equal cost |",
        "|---:|---:|---:|---:|:---:|",
    ]
    for c in comps:
        ref = c.reference_seconds or 0.0
        lines.append(
            f"| {c.pairs} | {c.seconds:.4f} | {ref:.2f} | {ref / c.seconds:,.0f}× | "
            f"{'yes' if c.reference_equal else 'NO'} |"
        )
    goals = [
        ("10,000 pairs in under 2 s", t[10_000] < 2.0, f"{t[10_000]:.3f} s"),
        ("time(20,000) / time(10,000) ≤ 2.5", ratio <= 2.5, f"{ratio:.2f}"),
        (
            "≥ 50× faster than the exact reference at 256 pairs, equal cost",
            speedup >= 50 and bool(c256.reference_equal),
            f"{speedup:,.0f}×, equal: {'yes' if c256.reference_equal else 'no'}",
        ),
    ]
    lines += ["", "| goal | measured | met |", "|---|---:|:---:|"]
    for name, met, measured in goals:
        lines.append(f"| {name} | {measured} | {'yes' if met else 'no'} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pairing.bench", description=__doc__)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--units", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--compare", action="store_true", help="also time networkx's blossom")
    parser.add_argument("--cases", type=int, default=0, help="cross-check K random fields")
    parser.add_argument("--report", action="store_true", help="print markdown_report()")
    args = parser.parse_args(argv)
    if args.report:
        print(markdown_report(), end="")
        return 0
    out: dict[str, Any] = {}
    ok = True
    if args.cases:
        checked, problems = run_cases(args.cases, args.seed)
        out["cases"] = checked
        out["problems"] = problems
        ok = not problems
    if args.pairs:
        result = run_bench(args.pairs, args.rounds, args.units, args.seed, args.compare)
        out.update(vars(result) if not hasattr(result, "__dataclass_fields__") else _asdict(result))
        if args.compare and not result.reference_equal:
            ok = False
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            if key == "problems":
                for p in value:
                    print("problem:", p)
            else:
                print(f"{key}: {value}")
    return 0 if ok else 1


def _asdict(result: BenchResult) -> dict[str, Any]:
    return {k: getattr(result, k) for k in result.__dataclass_fields__}


_ = replace  # dataclasses.replace is re-exported for callers building variants of a field

if __name__ == "__main__":
    sys.exit(main())
