"""Issue 14 benchmark: a staged event end to end through the command line.

``markdown_report()`` returns the "## Stages end to end" section of docs/benchmarks.md
(``make bench`` → ``benchmarks/run.py``). In a throw-away test database it runs a 2,000-pair
event of RULES.md §8: 7 Swiss rounds, then the top 64 in 16 groups of 4 (the winners qualify),
then a 16-entrant knockout played best of three with a third-place match:

1. ``import_tournament`` of a synthetic file (``reports.demo.synthetic_file``) with the first 6
   Swiss rounds played and the stages in its settings;
2. ``simulate --rounds 1``: round 7 paired by the Swiss engine (``pair_round``'s service) and
   every table entered deal by deal, submitted and confirmed through the services;
3. ``simulate --rounds 3``: the group stage (the first ``pair_round`` of a stage computes the
   qualifiers and snake-seeds the groups), then ``standings --stage 2 --json``;
4. ``simulate --rounds 4``: the knockout, game by game, then ``bracket --json`` (placings of
   every pair of the event);
5. ``export_tournament`` → ``import_tournament`` → ``export_tournament`` (identical).

Every step is timed (wall clock). ``python -m benchmarks.stages [--small]`` prints the section
(``--small``: 200 pairs). ``tests/db/test_stages_flow.py`` is the same flow at 20 pairs.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.django_env import in_test_database

PAIRS = 2_000


def stages_for(entrants: int, groups: int, knockout: int) -> list[dict[str, Any]]:
    return [
        {"kind": "swiss", "rounds": 7},
        {
            "kind": "round_robin",
            "groups": groups,
            "qualify": knockout // groups,
            "entrants": entrants,
        },
        {"kind": "knockout", "best_of": 3, "third_place": True},
    ]


def run_event(
    pairs: int = PAIRS, entrants: int = 64, groups: int = 16, knockout: int = 16, seed: int = 14
) -> dict[str, Any]:
    """Play the whole staged event; returns the step timings and the command outputs."""
    from django.core.management import call_command

    from reports.demo import synthetic_file
    from reports.fileio import export_tournament, import_tournament
    from tournaments.models import Tournament

    def cli(*args: Any) -> str:
        out = io.StringIO()
        call_command(*args, stdout=out, stderr=io.StringIO())
        return out.getvalue()

    timings: list[tuple[str, float]] = []

    def timed(label: str, work: Any) -> Any:
        started = time.perf_counter()
        value = work()
        timings.append((label, time.perf_counter() - started))
        return value

    data = synthetic_file(pairs, 6, seed=seed, planned=7)
    data["settings"]["stages"] = stages_for(entrants, groups, knockout)
    path = f"/tmp/stages-bench-{pairs}.json"  # noqa: S108 - a throw-away file of the run
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False)
    slug = timed("import (6 Swiss rounds played)", lambda: cli("import_tournament", path).strip())
    timed("simulate round 7 (Swiss)", lambda: cli("simulate", slug, "--rounds", "1", "--seed", "1"))
    timed("simulate the group stage", lambda: cli("simulate", slug, "--rounds", "3", "--seed", "2"))
    group_tables = json.loads(
        timed("standings --stage 2", lambda: cli("standings", slug, "--json", "--stage", "2"))
    )
    timed("simulate the knockout", lambda: cli("simulate", slug, "--rounds", "4", "--seed", "3"))
    bracket = json.loads(timed("bracket", lambda: cli("bracket", slug, "--json")))
    tournament = Tournament.objects.get(slug=slug)

    def round_trip() -> bool:
        exported = export_tournament(tournament)
        again = export_tournament(import_tournament(exported, slug=f"{slug}-again"))
        return again == exported

    same = timed("export → import → export", round_trip)
    return {
        "timings": timings,
        "groups": group_tables,
        "bracket": bracket,
        "status": tournament.status,
        "round_trip": same,
        "slug": slug,
    }


def report(result: dict[str, Any], pairs: int, vendor: str) -> str:
    bracket = result["bracket"]
    lines = [
        "## Stages end to end",
        "",
        f"A {pairs:,}-pair event (RULES.md §8) through the command line, {vendor}: 7 Swiss "
        "rounds (6 imported, round 7 paired and entered deal by deal through the services), "
        "the top 64 in 16 groups of 4 (3 rounds), the 16 group winners in a knockout played "
        "best of three with a third-place match (4 rounds). `python -m benchmarks.stages`.",
        "",
        "| step | seconds |",
        "| --- | ---: |",
    ]
    lines += [f"| {label} | {seconds:.2f} |" for label, seconds in result["timings"]]
    lines += [
        "",
        f"Groups: {len(result['groups']['groups'])}; knockout rounds: {len(bracket['rounds'])}; "
        f"placings: {len(bracket['placings'])} pairs; tournament status: {result['status']}; "
        f"round trip identical: {result['round_trip']}.",
        "",
    ]
    return "\n".join(lines)


def markdown_report(pairs: int = PAIRS) -> str:
    def work() -> str:
        from django.db import connection

        return report(run_event(pairs), pairs, connection.vendor)

    return in_test_database(work)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stages", description=__doc__)
    parser.add_argument("--small", action="store_true", help="200 pairs (a quick look)")
    args = parser.parse_args(argv)
    print(markdown_report(200 if args.small else PAIRS))
    return 0


if __name__ == "__main__":  # pragma: no cover - manual run
    raise SystemExit(main())
