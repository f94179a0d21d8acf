"""Benchmark of the Swiss pairing engine (``pairing.swiss``); no Django.

``python -m benchmarks.pairing --pairs N --rounds R [--units U] [--seed S] [--json] [--compare]
[--cases K]`` builds a realistic field — R−1 rounds played with the engine itself and random
results — and times pairing round R. ``--adversarial`` times round 9 of
``tests.support.fields.adversarial_field`` (one unit holding half the field, met leaders, a met
trio, a unit-majority group) instead. ``--compare`` also times an exact reference (networkx's
blossom, a test-only dependency) and checks that both reach the same (same-unit meetings, Σ gap).
``--cases K`` cross-checks K random small fields against the reference. :func:`markdown_report`
runs the ``make bench`` configuration for docs/benchmarks.md (each measurement in a child process
with a time limit, so a configuration the engine cannot do in time is reported, not waited for).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pairing.swiss import SwissOptions, pair_round
from tests.support.fields import adversarial_field, random_field, simulate_field
from tests.support.reference import check_draw, reference_cost

__all__ = ["BenchResult", "main", "markdown_report", "run_adversarial", "run_bench", "run_rounds"]


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


def run_adversarial(pairs: int, seed: int = 1, compare: bool = False) -> BenchResult:
    """Build :func:`adversarial_field` (8 rounds of history) and time pairing round 9."""
    started = time.perf_counter()
    field = adversarial_field(pairs, 8, seed)
    setup = time.perf_counter() - started
    return _time_round(field, 9, 4, seed, setup, compare)


def _time_round(field: list[Any], rnd: int, units: int, seed: int, setup: float, compare: bool):
    options = SwissOptions()
    started = time.perf_counter()
    draw = pair_round(field, rnd, options, random.Random(seed))
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
        pairs=len(field),
        round=rnd,
        units=units,
        seconds=seconds,
        setup_seconds=setup,
        same_unit_meetings=draw.same_unit_meetings,
        total_gap=draw.total_gap,
        reference_seconds=ref_seconds,
        reference_equal=equal,
    )


def run_rounds(pairs: int, units: int, seed: int = 1, rounds: int = 9) -> list[float]:
    """Seconds to pair each of rounds 1..``rounds`` of a field played by the engine."""
    times: list[float] = []
    simulate_field(pairs, rounds, units, seed, on_round=lambda r, t: times.append(t))
    return times


def _child(queue: Any, fn: Callable[..., Any], args: tuple[Any, ...], stream: bool) -> None:
    if stream:
        simulate_field(*args, on_round=lambda r, t: queue.put((r, t)))
    else:
        queue.put(fn(*args))
    queue.put(None)


def _limited(
    fn: Callable[..., Any], args: tuple[Any, ...], limit: float, stream: bool = False
) -> tuple[list[Any], bool]:
    """Run ``fn(*args)`` in a child process for at most ``limit`` seconds: (results, finished).
    With ``stream`` the child is :func:`simulate_field` and each round's time is a result."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue, fn, args, stream), daemon=True)
    child.start()
    deadline = time.monotonic() + limit
    results: list[Any] = []
    finished = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            item = queue.get(timeout=min(left, 1.0))
        except Exception:  # queue.Empty
            if not child.is_alive() and queue.empty():
                break
            continue
        if item is None:
            finished = True
            break
        results.append(item)
    if child.is_alive():
        child.terminate()
    child.join()
    return results, finished


# The `make bench` configuration (issues 3 and 17).
BENCH_SIZES = (100, 1_000, 10_000, 20_000)
COMPARE_SIZES = (128, 256)
ADVERSARIAL_SIZES = (200, 1_000, 5_000, 10_000)
ADVERSARIAL_LIMIT = 240.0  # seconds per adversarial size (field built in the child too)
ROUNDS_SIZES = (800, 10_000)
ROUNDS_UNITS = (2, 4, 8, 30)
ROUNDS_LIMIT = 60.0  # seconds per simulated event (rounds 1–9)
ROUND_GOAL = 30.0  # seconds for any one round of them (the adversarial 10,000-pair goal)


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
    # Adversarial fields (issue 17): one unit holds half the field; limited time each.
    lines += [
        "",
        "Adversarial field (`tests.support.fields.adversarial_field`: U1 holds half the field, "
        "met leaders alone on top, a met trio at the bottom, a unit-majority group), round 9, "
        f"at most {ADVERSARIAL_LIMIT:.0f} s each; networkx compared up to 400 pairs:",
        "",
        "| pairs | round 9 pairing (s) | same-unit meetings | Σ gap | networkx (s) | equal cost |",
        "|---:|---:|---:|---:|---:|:---:|",
    ]
    adversarial: dict[int, float | None] = {}
    for n in ADVERSARIAL_SIZES:
        got, done = _limited(run_adversarial, (n, 1, n <= 400), ADVERSARIAL_LIMIT)
        if not done or not got:
            adversarial[n] = None
            lines.append(f"| {n:,} | not done in {ADVERSARIAL_LIMIT:.0f} s | | | | |")
            continue
        r = got[0]
        adversarial[n] = r.seconds
        ref = "" if r.reference_seconds is None else f"{r.reference_seconds:.2f}"
        eq = "" if r.reference_equal is None else ("yes" if r.reference_equal else "NO")
        lines.append(
            f"| {n:,} | {r.seconds:.3f} | {r.same_unit_meetings} | {r.total_gap:g} | {ref} | {eq} |"
        )
    # Every round of events with few and many units (issue 17).
    lines += [
        "",
        "Every round 1–9 of an event played by the engine (`simulate_field`), seconds per round, "
        f"at most {ROUNDS_LIMIT:.0f} s per event (— : not reached in time):",
        "",
        "| pairs | units | " + " | ".join(f"r{r}" for r in range(1, 10)) + " |",
        "|---:|---:|" + "---:|" * 9,
    ]
    slowest, missing = 0.0, 0
    for n in ROUNDS_SIZES:
        for units in ROUNDS_UNITS:
            got, _ = _limited(simulate_field, (n, 9, units, 1), ROUNDS_LIMIT, stream=True)
            cells = [f"{sec:.3f}" for _, sec in got] + ["—"] * (9 - len(got))
            lines.append(f"| {n:,} | {units} | " + " | ".join(cells) + " |")
            slowest = max([slowest, *(sec for _, sec in got)])
            missing += 9 - len(got)

    def adv(n: int, goal: float) -> tuple[str, bool, str]:
        sec = adversarial[n]
        shown = f"{sec:.2f} s" if sec is not None else f"> {ADVERSARIAL_LIMIT:.0f} s"
        return (f"adversarial {n:,} pairs < {goal:g} s", sec is not None and sec < goal, shown)

    goals = [
        ("10,000 pairs (30 units) ≤ 0.3 s", t[10_000] <= 0.3, f"{t[10_000]:.3f} s"),
        ("time(20,000) / time(10,000) ≤ 2.5", ratio <= 2.5, f"{ratio:.2f}"),
        (
            "≥ 50× faster than the exact reference at 256 pairs, equal cost",
            speedup >= 50 and bool(c256.reference_equal),
            f"{speedup:,.0f}×, equal: {'yes' if c256.reference_equal else 'no'}",
        ),
        adv(1_000, 1),
        adv(5_000, 10),
        adv(10_000, 30),
        (
            f"every round above paired, each < {ROUND_GOAL:g} s",
            missing == 0 and slowest < ROUND_GOAL,
            f"slowest {slowest:.2f} s" + (f", {missing} not reached" if missing else ""),
        ),
    ]
    lines += ["", "| goal | measured | met |", "|---|---:|:---:|"]
    for name, met, measured in goals:
        lines.append(f"| {name} | {measured} | {'yes' if met else 'no'} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pairing", description=__doc__)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--units", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--compare", action="store_true", help="also time networkx's blossom")
    parser.add_argument("--cases", type=int, default=0, help="cross-check K random fields")
    parser.add_argument("--report", action="store_true", help="print markdown_report()")
    parser.add_argument(
        "--adversarial", action="store_true", help="time round 9 of the adversarial field"
    )
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
        if args.adversarial:
            result = run_adversarial(args.pairs, args.seed, args.compare)
        else:
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


if __name__ == "__main__":
    sys.exit(main())
