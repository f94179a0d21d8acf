"""``make bench``: run every benchmark section and write docs/benchmarks.md.

Each section is a module's ``markdown_report() -> str`` (a "## …" Markdown section). Modules are
imported optionally, so a section that does not exist yet is simply listed as missing; a section
that fails is reported with its error and the others still run. Each section is printed as soon
as it completes; at the end docs/benchmarks.md is written with the date and the machine facts
(a benchmark figure means little without the machine it ran on).

``python -m benchmarks.run [--only MODULE …] [--no-write]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import platform
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "benchmarks.md"

# (module, what it measures) in report order.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("benchmarks.standings", "scoring engine and standings (pure)"),
    ("benchmarks.pairing", "Swiss pairing engine (pure)"),
    ("benchmarks.tournament_db", "import, standings from the database, pair_round (issue 4)"),
    ("benchmarks.teams", "team events at 2,000 teams: team standings and team pairing (issue 13)"),
    ("benchmarks.stages", "a staged event end to end: Swiss, groups, knockout (issue 14)"),
    ("benchmarks.web_tournaments", "web pages at size"),
    ("benchmarks.web_scoring", "referee dashboard at size"),
    ("benchmarks.web_tap", "one deal tap: form and page against JSON; the sheet's weight"),
    ("benchmarks.reports", "printing and exports"),
    ("benchmarks.loadtest", "load test (from the last `make loadtest`)"),
)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError):
        pass
    return "unknown"


def _database() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        return "SQLite (default)"
    scheme = url.split(":", 1)[0]
    return {"postgres": "PostgreSQL", "postgresql": "PostgreSQL", "sqlite": "SQLite"}.get(
        scheme, scheme
    )


def machine_facts() -> list[str]:
    try:
        load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    except (AttributeError, OSError):
        load = "unknown"
    return [
        f"- date: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"- machine: {platform.system()} {platform.release()} ({platform.machine()}), "
        f"{_cpu_model()}, {os.cpu_count()} CPUs, {_memory()} RAM",
        f"- Python {platform.python_version()}; database: {_database()}",
        f"- load average (1, 5, 15 min) when the run started: {load}",
    ]


def run_section(module_name: str) -> tuple[str, float, bool]:
    """``(markdown, seconds, ok)`` for one section; a missing module is not a failure."""
    start = time.perf_counter()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            return f"## `{module_name}`\n\nNot available yet.\n", 0.0, True
        raise
    report = getattr(module, "markdown_report", None)
    if report is None:
        return f"## `{module_name}`\n\nNo `markdown_report()` yet.\n", 0.0, True
    try:
        text = report()
    except Exception:
        trace = traceback.format_exc()
        print(trace, file=sys.stderr)
        last = trace.strip().splitlines()[-1]
        return f"## `{module_name}`\n\nFailed: `{last}`\n", time.perf_counter() - start, False
    start_mark = getattr(module, "START_MARK", None)
    end_mark = getattr(module, "END_MARK", None)
    if start_mark and end_mark:
        # A section its module also writes itself (benchmarks.loadtest) keeps its markers.
        text = f"{start_mark}\n{text.strip()}\n{end_mark}\n"
    return text, time.perf_counter() - start, True


# Hand-written sections (comparisons across commits) that a full run keeps from the old report.
KEPT_SECTIONS = (
    "## Before and after the layered layout (issue 10)",
    "## Standings before and after the follow-up of issue 18",
)


def kept_sections(path: Path) -> list[str]:
    """The ``KEPT_SECTIONS`` chunks of the report at ``path``, as they are."""
    if not path.exists():
        return []
    chunks: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("## ") or not chunks:
            chunks.append(line)
        else:
            chunks[-1] += line
    return [c.rstrip() + "\n" for c in chunks if c.splitlines()[0] in KEPT_SECTIONS]


def replace_sections(path: Path, sections: Sequence[str], date: str) -> str:
    """The report at ``path`` with the given sections replaced (matched by their "## " heading)
    or appended, for ``--only``; the re-run date goes under each replaced section's heading."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    chunks: list[str] = []
    for line in old.splitlines(keepends=True):
        if line.startswith("## ") or not chunks:
            chunks.append(line)
        else:
            chunks[-1] += line
    for section in sections:
        heading = section.splitlines()[0]
        first, _, rest = section.partition("\n")
        dated = f"{first}\n\n(re-run alone: {date.removeprefix('- date: ')})\n{rest}\n"
        for index, chunk in enumerate(chunks):
            if chunk.splitlines()[0] == heading:
                chunks[index] = dated
                break
        else:
            chunks.append("\n" + dated)
    return "".join(chunks)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__)
    parser.add_argument("--only", nargs="*", default=None, help="run only these modules")
    parser.add_argument("--no-write", action="store_true", help="do not write the report")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_tourney.settings")

    selected = [(m, d) for m, d in SECTIONS if args.only is None or m in args.only]
    header = ["# Benchmarks", "", "Written by `make bench` (`python -m benchmarks.run`).", ""]
    header += machine_facts()
    print("\n".join(header), flush=True)
    sections: list[str] = []
    timings: list[str] = []
    ok = True
    for module_name, description in selected:
        print(f"\n… {module_name}: {description}", file=sys.stderr, flush=True)
        text, seconds, passed = run_section(module_name)
        ok = ok and passed
        sections.append(text.rstrip() + "\n")
        timings.append(f"| `{module_name}` | {description} | {seconds:.0f} |")
        print("\n" + text.rstrip(), flush=True)

    if args.no_write:
        return 0 if ok else 1
    if args.only is None:
        body = [*header, "", "| section | what | run time (s) |", "|---|---|---:|", *timings]
        text = "\n".join(body) + "\n\n" + "\n".join([*sections, *kept_sections(OUTPUT)])
    else:
        text = replace_sections(OUTPUT, sections, machine_facts()[0])
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"\nwrote {OUTPUT.relative_to(ROOT)}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
