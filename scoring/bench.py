"""Benchmark of the scoring core (``scoring.engine`` and ``scoring.standings``); no Django.

``python -m scoring.bench --pairs N --rounds R [--seed S] [--repeat K] [--json] [--report]``
builds a random tournament in memory and times, each as the best of K runs (issue 2 §6):

(a) scoring every match: ``score_match`` on the table's tokens plus ``match_outcomes``;
(b) the standings after every round with the regulation preset (``standings_by_round``, the
    ``previous_rank`` chain, which also runs head-to-head on every tie group);
(c) the floor: a bare loop that only walks the same event lists (reads every token).

The tournament: round 1 paired at random, later rounds neighbours in the current match points
(a Swiss-like field with realistic ties; rematches are not avoided, which the standings do not
mind); with an odd number of pairs the last pair that has not had a bye sits out. Every match
has 8 deals (``deals`` format) of realistic events — the side that went out first and 3/2/1 in
plausible proportions, an occasional foul or level award — cut where a side passes A; about one
table in 200 is a forfeit, one in 500 a loss by penalty, one in 100 starts with lateness, and
about one pair in 100 gets a deduction. :func:`markdown_report` runs the ``make bench``
configuration (2,000 and 10,000 pairs × 9 rounds) and returns the "## Scoring and standings"
section for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from rules.errors import ScoringError
from rules.events import Side
from rules.ruleset import RuleSet
from scoring.engine import End, Start, bye_outcome, match_outcomes, score_match
from scoring.standings import Deduction, Outcome, standings_by_round

__all__ = ["BenchResult", "Table", "build_tournament", "main", "markdown_report", "run_bench"]

DEALS_PER_ROUND = 8
# Goals on this machine (issue 2 §6).
SCORING_FLOOR_FACTOR = 20.0
STANDINGS_GOAL_SECONDS = 2.0
STANDINGS_GOAL_PAIRS = 10_000
# "Linear" when time(large)/time(small) is within this factor of size(large)/size(small).
LINEAR_TOLERANCE = 1.5
# The `make bench` configuration.
BENCH_SIZES = (2_000, 10_000)
BENCH_ROUNDS = 9

# Deal tokens with plausible weights: partner 2nd (+3) rarer than 3rd (+2) or last (+1).
_TOKENS = ("NS3", "NS2", "NS1", "EW3", "EW2", "EW1", "foul:NS", "foul:EW", "adjust:NS+2")
_WEIGHTS = (22, 30, 46, 22, 30, 46, 1, 1, 0.3)


@dataclass(frozen=True, slots=True)
class Table:
    """One match as the engine receives it."""

    round: int
    ns: int
    ew: int
    tokens: tuple[str, ...]
    start: Start | None
    end: End | None


@dataclass(frozen=True, slots=True)
class BenchResult:
    pairs: int
    rounds: int
    seed: int
    repeat: int
    matches: int
    events: int
    setup_seconds: float
    # CPU seconds of this process, best of ``repeat``: the cost of the work itself, much less
    # inflated than wall-clock time when other programs share the machine. The goals use these.
    scoring_seconds: float  # (a)
    standings_seconds: float  # (b)
    floor_seconds: float  # (c)
    # Wall-clock seconds, best of ``repeat`` (equal to the CPU seconds on an idle machine).
    scoring_wall_seconds: float
    standings_wall_seconds: float
    floor_wall_seconds: float

    @property
    def scoring_over_floor(self) -> float:
        return self.scoring_seconds / self.floor_seconds if self.floor_seconds else float("inf")

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = asdict(self)
        data["scoring_over_floor"] = round(self.scoring_over_floor, 1)
        data["scoring_goal_met"] = self.scoring_over_floor <= SCORING_FLOOR_FACTOR
        if self.pairs >= STANDINGS_GOAL_PAIRS and self.rounds >= BENCH_ROUNDS:
            data["standings_goal_met"] = self.standings_seconds < STANDINGS_GOAL_SECONDS
        return data


def _table_events(rng: random.Random) -> tuple[tuple[str, ...], Start | None, End | None]:
    """A realistic table: 8 events, sometimes lateness, a forfeit or a loss by penalty."""
    roll = rng.random()
    if roll < 0.005:  # 弃权: no deals
        return (), None, End("forfeit", rng.choice((Side.NS, Side.EW)))
    start = None
    if rng.random() < 0.01:  # 迟到: the punctual side starts at 3 or 4
        level = rng.choice((3, 4))
        start = Start(ns=level) if rng.random() < 0.5 else Start(ew=level)
    tokens: list[str] = []
    deals = 0
    while deals < DEALS_PER_ROUND:  # a level award is an event but not a deal
        token = rng.choices(_TOKENS, _WEIGHTS)[0]
        tokens.append(token)
        deals += not token.startswith("adjust")
    end = End("penalty_loss", rng.choice((Side.NS, Side.EW))) if roll > 0.998 else None
    return tuple(tokens), start, end


def build_tournament(
    pairs: int, rounds: int, seed: int, rules: RuleSet
) -> tuple[list[Table], list[Outcome], list[Deduction]]:
    """The tables of every round, their outcomes, and some deductions (not timed)."""
    rng = random.Random(seed)
    ids = list(range(1, pairs + 1))
    cf = dict.fromkeys(ids, 0.0)
    had_bye: set[int] = set()
    tables: list[Table] = []
    outcomes: list[Outcome] = []
    for number in range(1, rounds + 1):
        if number == 1:
            order = ids[:]
            rng.shuffle(order)
        else:  # neighbours in the current match points, random within a score group
            noise = {p: rng.random() for p in ids}
            order = sorted(ids, key=lambda p: (-cf[p], noise[p]))
        if len(order) % 2:
            bye = next((p for p in reversed(order) if p not in had_bye), order[-1])
            had_bye.add(bye)
            order.remove(bye)
            outcomes.append(bye_outcome(number, bye, rules))
            cf[bye] += outcomes[-1].cf
        for ns, ew in zip(order[::2], order[1::2], strict=True):
            tokens, start, end = _table_events(rng)
            try:
                result = score_match(tokens, rules, start=start, end=end)
            except ScoringError as error:
                if error.code == "event_after_past_a" and error.position is not None:
                    tokens = tokens[: error.position]  # the match ended when a side passed A
                elif error.code != "penalty_loss_after_past_a":
                    raise
                end = None  # RULES.md §2: no 判负 after 过A
                result = score_match(tokens, rules, start=start, end=end)
            tables.append(Table(number, ns, ew, tokens, start, end))
            pair_outcomes = match_outcomes(number, ns, ew, result)
            outcomes.extend(pair_outcomes)
            cf[ns] += pair_outcomes[0].cf
            cf[ew] += pair_outcomes[1].cf
    deductions = [Deduction(rng.randint(1, rounds), pair, 1) for pair in ids if rng.random() < 0.01]
    return tables, outcomes, deductions


def _best(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """Best CPU time and best wall time of ``repeat`` runs (the least disturbed ones)."""
    cpu = wall = float("inf")
    for _ in range(repeat):
        started_cpu, started = time.process_time(), time.perf_counter()
        run()
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, time.process_time() - started_cpu)
    return cpu, wall


def run_bench(pairs: int, rounds: int, seed: int = 1, repeat: int = 3) -> BenchResult:
    rules = RuleSet.from_dict({"rounds": rounds, "deals_per_round": DEALS_PER_ROUND, "seed": seed})
    started = time.perf_counter()
    tables, outcomes, deductions = build_tournament(pairs, rounds, seed, rules)
    setup = time.perf_counter() - started
    pair_ids = list(range(1, pairs + 1))

    def scoring() -> None:  # (a)
        for t in tables:
            match_outcomes(t.round, t.ns, t.ew, score_match(t.tokens, rules, t.start, t.end))

    def standings() -> None:  # (b)
        standings_by_round(pair_ids, outcomes, deductions, rules.tiebreaks, seed, rounds)

    def floor() -> None:  # (c)
        walked = 0
        for t in tables:
            for token in t.tokens:
                walked += len(token)

    scoring_cpu, scoring_wall = _best(repeat, scoring)
    standings_cpu, standings_wall = _best(repeat, standings)
    floor_cpu, floor_wall = _best(repeat, floor)
    return BenchResult(
        pairs=pairs,
        rounds=rounds,
        seed=seed,
        repeat=repeat,
        matches=len(tables),
        events=sum(len(t.tokens) for t in tables),
        setup_seconds=setup,
        scoring_seconds=scoring_cpu,
        standings_seconds=standings_cpu,
        floor_seconds=floor_cpu,
        scoring_wall_seconds=scoring_wall,
        standings_wall_seconds=standings_wall,
        floor_wall_seconds=floor_wall,
    )


def _load_average() -> str:
    """The 1-minute load average (other work on this 2-core machine), or "unknown"."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "unknown"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def markdown_report(seed: int = 1, repeat: int = 5) -> str:
    """Run the ``make bench`` configuration and return the "## Scoring and standings" section."""
    load = _load_average()
    small, large = (run_bench(n, BENCH_ROUNDS, seed, repeat) for n in BENCH_SIZES)
    size_ratio = (large.pairs * large.rounds) / (small.pairs * small.rounds)
    scoring_growth = large.scoring_seconds / small.scoring_seconds
    standings_growth = large.standings_seconds / small.standings_seconds
    lines = [
        "## Scoring and standings",
        "",
        f"`python -m scoring.bench`: a random tournament of {BENCH_ROUNDS} rounds with",
        f"{DEALS_PER_ROUND} deals a match (Swiss-like pairing by match points, occasional fouls,",
        "level awards, lateness, forfeits, losses by penalty and deductions). Times are the best",
        f"of {repeat} runs in CPU seconds of the benchmark process (less disturbed than wall",
        "time by other work on the machine; best wall-clock seconds in brackets). (a)",
        "`score_match` + `match_outcomes` for every match; (b)",
        "`standings_by_round` with the regulation preset after every round (the `previous_rank`",
        "chain, head-to-head on every tie group); (c) the floor: a bare loop walking the same",
        f"event lists. Load average when the run started: {load}.",
        "",
        "| pairs × rounds | matches | events | (a) scoring (s) | (c) floor (s) | (a)/(c) "
        "| (b) standings (s) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in (small, large):
        lines.append(
            f"| {r.pairs:,} × {r.rounds} | {r.matches:,} | {r.events:,} | "
            f"{r.scoring_seconds:.3f} ({r.scoring_wall_seconds:.3f}) | "
            f"{r.floor_seconds:.4f} ({r.floor_wall_seconds:.4f}) | {r.scoring_over_floor:.0f}× | "
            f"{r.standings_seconds:.3f} ({r.standings_wall_seconds:.3f}) |"
        )
    linear_limit = size_ratio * LINEAR_TOLERANCE
    goals = [
        (
            f"scoring within {SCORING_FLOOR_FACTOR:.0f}× the bare loop ({large.pairs:,} pairs)",
            f"{large.scoring_over_floor:.0f}×",
            large.scoring_over_floor <= SCORING_FLOOR_FACTOR,
        ),
        (
            f"standings for {large.pairs:,} pairs × {large.rounds} rounds under "
            f"{STANDINGS_GOAL_SECONDS:.0f} s",
            f"{large.standings_seconds:.3f} s",
            large.standings_seconds < STANDINGS_GOAL_SECONDS,
        ),
        (
            f"scoring grows linearly: time ratio vs size ratio {size_ratio:g} (≤ {linear_limit:g})",
            f"{scoring_growth:.2f}",
            scoring_growth <= linear_limit,
        ),
        (
            f"standings grow linearly: time ratio vs size ratio {size_ratio:g} "
            f"(≤ {linear_limit:g})",
            f"{standings_growth:.2f}",
            standings_growth <= linear_limit,
        ),
    ]
    lines += ["", "| goal | measured | met |", "|---|---:|:---:|"]
    lines += [f"| {name} | {measured} | {_yes(met)} |" for name, measured, met in goals]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scoring.bench", description=__doc__)
    parser.add_argument("--pairs", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=BENCH_ROUNDS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="best of K runs (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--report", action="store_true", help="print markdown_report()")
    args = parser.parse_args(argv)
    if args.pairs < 2 or args.rounds < 1 or args.repeat < 1:
        print("--pairs must be at least 2, --rounds and --repeat at least 1.", file=sys.stderr)
        return 2
    if args.report:
        print(markdown_report(args.seed, args.repeat), end="")
        return 0
    data = run_bench(args.pairs, args.rounds, args.seed, args.repeat).as_dict()
    if args.json:
        print(json.dumps(data))
    else:
        for key, value in data.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
