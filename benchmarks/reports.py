"""Benchmark of printing and Excel: ``python -m benchmarks.reports`` or ``markdown_report()``.

Builds a synthetic tournament of 2,000 pairs × 9 played rounds (``reports.demo.
synthetic_file`` through helper ``reports.fileio.import_tournament``, i.e. the real import
path with bulk writes) in a throw-away test database, then times, each from the database to the
finished file:

- the score sheets of one round's 1,000 tables in one PDF, blank and filled (goal < 20 s);
- the final standings PDF (goal < 10 s);
- the Excel export (goal < 10 s).

May touch: only the test database it creates and destroys.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from benchmarks.django_env import setup_django as _setup_django

PAIRS = 2000
ROUNDS = 9
SHEETS_GOAL = 20.0
EXPORT_GOAL = 10.0


@dataclass(frozen=True, slots=True)
class Timing:
    label: str
    seconds: float  # wall clock
    cpu: float  # this process's CPU time: what the figure would be on an idle machine
    detail: str
    goal: float | None = None

    @property
    def verdict(self) -> str:
        if self.goal is None:
            return ""
        if self.seconds < self.goal:
            return "✓"
        return "✓ (CPU), ✗ wall" if self.cpu < self.goal else "✗ over goal"


@contextmanager
def _scratch_database() -> Iterator[None]:
    """A fresh test database (migrated), destroyed afterwards: the dev database is untouched."""
    from django.test.utils import setup_databases, teardown_databases

    old = setup_databases(verbosity=0, interactive=False, aliases={"default"})
    try:
        yield
    finally:
        teardown_databases(old, verbosity=0)


def _timed(
    label: str, work: Callable[[], Any], detail: Callable[[Any], str], goal: float | None
) -> tuple[Timing, Any]:
    from django.core.cache import cache

    cache.clear()  # the standings cache would flatter every run after the first
    started, cpu = time.perf_counter(), time.process_time()
    value = work()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return Timing(label, seconds, cpu, detail(value), goal), value


def run(pairs: int = PAIRS, rounds: int = ROUNDS, seed: int = 1) -> tuple[list[Timing], str]:
    """Build the tournament and time every document; returns the timings and a setup note."""
    _setup_django()
    from reports import collect, pdf, xlsx
    from reports.demo import synthetic_file
    from reports.fileio import import_tournament

    timings: list[Timing] = []
    with _scratch_database():
        started = time.perf_counter()
        tournament = import_tournament(synthetic_file(pairs, rounds, seed=seed), slug="bench")
        setup = time.perf_counter() - started

        def sheets(filled: bool) -> bytes:
            rows = collect.score_sheets(tournament, rounds, filled=filled)
            return pdf.render_scoresheets(rows, total=len(rows))

        n_tables = len(collect.score_sheets(tournament, rounds))
        for filled in (False, True):
            label = f"score sheets, {n_tables} tables, {'filled' if filled else 'blank'}"
            timing, _ = _timed(
                label,
                lambda filled=filled: sheets(filled),
                lambda data: f"{len(data) / 1e6:.1f} MB",
                SHEETS_GOAL,
            )
            timings.append(timing)
        timing, _ = _timed(
            f"standings PDF, {pairs} pairs after round {rounds}",
            lambda: pdf.render_standings(collect.standings(tournament, final=True)),
            lambda data: f"{len(data) / 1e6:.1f} MB",
            EXPORT_GOAL,
        )
        timings.append(timing)
        timing, _ = _timed(
            f"Excel export, {pairs} pairs × {rounds} rounds",
            lambda: xlsx.render_workbook(collect.workbook(tournament)),
            lambda data: f"{len(data) / 1e6:.1f} MB",
            EXPORT_GOAL,
        )
        timings.append(timing)
    note = f"data: {pairs} pairs × {rounds} rounds imported in {setup:.1f} s (not timed below)"
    return timings, note


def markdown_report() -> str:
    """The "## Printing and Excel" section of docs/benchmarks.md."""
    timings, note = run()
    lines = [
        "## Printing and Excel",
        "",
        "Each figure runs from the database to the finished file (queries, scoring every table "
        "with the engine, rendering); " + note + ".",
        "",
        "| document | wall s | CPU s | goal | size |",
        "|---|---:|---:|---:|---:|",
    ]
    for t in timings:
        goal = f"< {t.goal:g} s {t.verdict}" if t.goal else ""
        lines.append(f"| {t.label} | {t.seconds:.1f} | {t.cpu:.1f} | {goal} | {t.detail} |")
    cpus = os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    lines += [
        "",
        f"Machine: {cpus} CPU(s), load average {load:.1f} when measured. Wall time is what the "
        "organizer waits; on a shared, busy machine it exceeds the CPU time, which is what the "
        "same run takes on an idle one (every step is single-threaded).",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="Time printing and the Excel export.")
    parser.add_argument("--pairs", type=int, default=PAIRS)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    if (args.pairs, args.rounds) == (PAIRS, ROUNDS):
        print(markdown_report())
        return
    timings, note = run(args.pairs, args.rounds)
    print(note)
    for t in timings:
        print(f"{t.seconds:7.2f} s (CPU {t.cpu:.2f} s)  {t.label}  {t.detail}  {t.verdict}")


if __name__ == "__main__":
    main()
