"""Benchmark of the web pages at size (issue 5 "make bench"): time and queries to render the
public standings page, the public pairings of a round, the referees' round dashboard and the
organizer's round review for tournaments of 2,000 and 10,000 pairs.

``markdown_report()`` returns the "## Web pages" section of docs/benchmarks.md. It builds each
tournament with ``bulk_create`` in a throw-away test database (SQLite in memory by default, or
a test database beside ``DATABASE_URL``): round 1 finished (every table confirmed, 8 deals),
round 2 published with half of its tables confirmed. Pages are fetched with Django's test
client, so the whole stack runs (middleware, sessions, templates) except the network.

Measured per page: "cold" (empty cache: the standings are computed from every event), "warm"
(the standings cached, the page itself not — a different page of the table each time) and, for
public pages, "cached" (the anonymous page cache hit). Each case is run ``REPEAT`` times and the
fastest run is kept, with its wall and CPU time (the CPU time of this process, so a busy shared
machine shows as wall ≫ CPU). ``python -m benchmarks.web_tournaments`` prints it.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.django_env import in_test_database as _in_test_database

SIZES = (2_000, 10_000)
REPEAT = 3
DEALS = ("NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1")


@dataclass(frozen=True)
class Measure:
    page: str
    pairs: int
    case: str
    seconds: float
    cpu_seconds: float
    queries: int
    kbytes: float


def build(n_pairs: int, organizer: Any, referee: Any, slug: str) -> tuple[Any, Any]:
    """``n_pairs`` pairs written with bulk_create; returns (tournament, round 2)."""
    from django.db import transaction

    from rules.ruleset import preset_settings
    from scoring.models import TableEvent
    from tournaments.models import PAIR_CODE_ALPHABET, Pair, Player, Round, Seat, Table, Unit
    from tournaments.services import bump_results_version, create_tournament, grant_role

    rng = random.Random(n_pairs)
    settings = {**preset_settings("regulation"), "rounds": 7, "seed": 7}
    tournament = create_tournament(f"Bench {n_pairs}", slug, organizer, settings=settings)
    grant_role(tournament, referee, "referee", organizer)
    with transaction.atomic():
        units = Unit.objects.bulk_create(
            Unit(tournament=tournament, code=f"U{i}", name=f"单位{i}") for i in range(50)
        )
        codes: set[str] = set()
        while len(codes) < n_pairs:
            codes.add("".join(rng.choice(PAIR_CODE_ALPHABET) for _ in range(6)))
        pairs = Pair.objects.bulk_create(
            (
                Pair(tournament=tournament, number=i + 1, unit=units[i % 50], code=code)
                for i, code in enumerate(sorted(codes))
            ),
            batch_size=2000,
        )
        surnames, given = (
            "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗",
            "伟芳娜敏静丽强磊军洋勇艳杰涛明超秀霞平刚",
        )
        Player.objects.bulk_create(
            (
                Player(
                    pair=pair,
                    position=position,
                    name=rng.choice(surnames) + rng.choice(given) + rng.choice(given),
                )
                for pair in pairs
                for position in (1, 2)
            ),
            batch_size=4000,
        )
        rounds = []
        for number, status in ((1, Round.Status.FINISHED), (2, Round.Status.PUBLISHED)):
            rnd = Round.objects.create(tournament=tournament, number=number, status=status, seed=7)
            order = pairs[:]
            rng.shuffle(order)
            tables = Table.objects.bulk_create(
                (
                    Table(
                        round=rnd,
                        number=k + 1,
                        ns=order[2 * k],
                        ew=order[2 * k + 1],
                        reasons=[{"code": "same_score", "params": {"cf": 0}}],
                        entry_status=Table.EntryStatus.CONFIRMED
                        if number == 1 or k % 2 == 0
                        else Table.EntryStatus.OPEN,
                    )
                    for k in range(len(order) // 2)
                ),
                batch_size=2000,
            )
            Seat.objects.bulk_create(
                (
                    Seat(round=rnd, table=t, pair=p, direction=d)
                    for t in tables
                    for p, d in ((t.ns, "NS"), (t.ew, "EW"))
                ),
                batch_size=4000,
            )
            TableEvent.objects.bulk_create(
                (
                    TableEvent(table=t, position=i, token=token, entered_by=referee)
                    for t in tables
                    if t.entry_status == Table.EntryStatus.CONFIRMED
                    for i, token in enumerate(DEALS)
                ),
                batch_size=5000,
            )
            rounds.append(rnd)
        bump_results_version(tournament.pk)
    tournament.refresh_from_db()
    return tournament, rounds[1]


def _measure(
    fetch: Callable[[], Any], page: str, pairs: int, case: str, before: Callable[[], None]
) -> Measure:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    before()
    with CaptureQueriesContext(connection) as queries:
        start, cpu_start = time.perf_counter(), time.process_time()
        response = fetch()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    if response.status_code != 200:
        raise RuntimeError(f"{page}: HTTP {response.status_code}")
    return Measure(page, pairs, case, seconds, cpu, len(queries), len(response.content) / 1024)


def _best(runs: list[Measure]) -> Measure:
    """The fastest run (the least disturbed by the rest of the machine)."""
    return min(runs, key=lambda m: m.seconds)


def _nothing() -> None:
    pass


def _cases(public: bool) -> list[tuple[str, Callable[[], None]]]:
    from django.core.cache import cache

    cases = [("cold", cache.clear), ("warm", _nothing)]
    return [*cases, ("cached", _nothing)] if public else cases


def _target(url: str, public: bool, case: str, run: int) -> str:
    """Warm public pages ask for another page of the list each run (2, 3, …), so the page cache
    never answers; the cached case asks for page 2 again (stored by the first warm run)."""
    if not public or case == "cold":
        return url
    return url + f"?page={run + 2 if case == 'warm' else 2}"


def run(sizes: tuple[int, ...] = SIZES) -> list[Measure]:
    """Build each size and measure every page (call inside a test database)."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    user_model = get_user_model()
    organizer = user_model.objects.create_user("bench-organizer")
    referee = user_model.objects.create_user("bench-referee")
    results: list[Measure] = []
    for n in sizes:
        tournament, rnd = build(n, organizer, referee, slug=f"bench-{n}")
        slug = tournament.slug
        anonymous, ref_client, org_client = Client(), Client(), Client()
        ref_client.force_login(referee)
        org_client.force_login(organizer)
        standings = reverse("public:standings", args=[slug])
        pairings = reverse("public:round", args=[slug, rnd.number])
        pages: list[tuple[str, Any, str, bool]] = [
            ("public standings", anonymous, standings, True),
            ("public pairings of a round", anonymous, pairings, True),
            (
                "referees' round dashboard",
                ref_client,
                reverse("referee:round_dashboard", args=[slug, rnd.number]),
                False,
            ),
            (
                "organizer's round review",
                org_client,
                reverse("pairing:round_control", args=[slug, rnd.number]),
                False,
            ),
        ]
        for label, client, url, public in pages:
            for case, before in _cases(public):
                runs = [
                    _measure(
                        functools.partial(client.get, _target(url, public, case, run)),
                        label,
                        n,
                        case,
                        before,
                    )
                    for run in range(REPEAT)
                ]
                results.append(_best(runs))
    return results


def markdown_report(sizes: tuple[int, ...] = SIZES) -> str:
    """The "## Web pages" section of docs/benchmarks.md."""
    results = _in_test_database(lambda: run(sizes))
    from django.db import connection

    lines = [
        "## Web pages",
        "",
        f"Rendered with Django's test client on {connection.vendor}"
        " (`benchmarks/web_tournaments.py`):",
        "two rounds, round 1 finished (8 deals a table), round 2 published and half confirmed.",
        "*cold*: empty cache, the standings computed from every event; *warm*: standings cached,",
        "another page of the list; *cached*: the anonymous public-page cache answers. Lists are",
        "paginated (50 standings rows, 100 tables a page), so queries do not grow with size.",
        f"Best of {REPEAT} runs; CPU is this process's CPU time during the request.",
        "",
        "| page | pairs | case | time (ms) | CPU (ms) | queries | size (KiB) |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for m in results:
        lines.append(
            f"| {m.page} | {m.pairs:,} | {m.case} | {m.seconds * 1000:.0f} "
            f"| {m.cpu_seconds * 1000:.0f} | {m.queries} | {m.kbytes:.0f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - manual run
    print(markdown_report())
