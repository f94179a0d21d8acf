"""Benchmark of the referees' round dashboard (``referee:round_dashboard``) at size.

``markdown_report()`` returns the "## Referee dashboard" section of docs/benchmarks.md (run by
``python -m benchmarks.run``; ``python -m benchmarks.web_scoring`` prints it). It makes its own
throw-away test database (SQLite in memory by default, or a test database beside
``DATABASE_URL``), so it runs outside any test runner, and builds each tournament with
``bulk_create``: one published round in which every state occurs — a third of the tables
confirmed (8 deals), a sixth entered, a sixth in progress (3 deals), the rest not started, a
few marked confirmed with too few deals (problems) and a bye when the count is odd.

Measured with Django's test client (middleware, sessions, templates; not the network), logged in
as a referee: the first page of the dashboard (cold and warm), the "unconfirmed" filter on its
second page and the "problem" filter. Each case is fetched ``REPEAT`` times; the fastest run is
kept. May touch: only its own test database.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from benchmarks.django_env import in_test_database as _in_test_database

SIZES = (2_000, 10_000)
REPEAT = 5
DEALS = ("NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1")
# (case, query string, clear Django's cache first: the round-wide problem scan runs again, as
# after any write to a table of the round)
CASES = (
    ("first page, cold", "", True),
    ("first page", "", False),
    ("unconfirmed, page 2", "?show=unconfirmed&page=2", False),
    ("problem tables", "?show=problem", False),
)


@dataclass(frozen=True)
class Measure:
    pairs: int
    case: str
    seconds: float
    cpu_seconds: float
    queries: int
    kbytes: float


def build(n_pairs: int, organizer: Any, referee: Any, slug: str) -> Any:
    """``n_pairs`` pairs and one published round written with bulk_create; returns the round."""
    from django.db import transaction

    from rules.ruleset import preset_settings
    from scoring.models import TableEvent
    from tournaments.models import Pair, Player, Round, Seat, Table
    from tournaments.services import create_tournament, grant_role

    rng = random.Random(n_pairs)
    settings = {**preset_settings("regulation"), "rounds": 7, "seed": 7}
    tournament = create_tournament(f"Bench {n_pairs}", slug, organizer, settings=settings)
    grant_role(tournament, referee, "referee", organizer)
    surnames, given = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗", "伟芳娜敏静丽强磊军洋勇艳杰涛明超"
    with transaction.atomic():
        pairs = Pair.objects.bulk_create(
            (Pair(tournament=tournament, number=i + 1, code=f"C{i:07d}") for i in range(n_pairs)),
            batch_size=2000,
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
        rnd = Round.objects.create(
            tournament=tournament, number=1, status=Round.Status.PUBLISHED, seed=7
        )
        order = pairs[:]
        rng.shuffle(order)
        n_tables = len(order) // 2

        def state(k: int) -> tuple[str, int]:
            """(entry status, deals) of table k: every dashboard status occurs."""
            if k % 97 == 5:
                return Table.EntryStatus.CONFIRMED, 5  # a problem: confirmed, not finished
            return [
                (Table.EntryStatus.CONFIRMED, 8),
                (Table.EntryStatus.CONFIRMED, 8),
                (Table.EntryStatus.ENTERED, 8),
                (Table.EntryStatus.OPEN, 3),
                (Table.EntryStatus.OPEN, 0),
                (Table.EntryStatus.OPEN, 0),
            ][k % 6]

        tables = Table.objects.bulk_create(
            (
                Table(
                    round=rnd,
                    number=k + 1,
                    ns=order[2 * k],
                    ew=order[2 * k + 1],
                    entry_status=state(k)[0],
                    entered_by=referee if state(k)[1] else None,
                    version=state(k)[1],
                )
                for k in range(n_tables)
            ),
            batch_size=2000,
        )
        if len(order) % 2:
            tables.append(
                Table.objects.create(
                    round=rnd,
                    number=n_tables + 1,
                    ns=order[-1],
                    is_bye=True,
                    entry_status="confirmed",
                )
            )
        Seat.objects.bulk_create(
            (
                Seat(round=rnd, table=t, pair=p, direction=d)
                for t in tables
                for p, d in ((t.ns, "NS"), (t.ew, "EW"))
                if p is not None
            ),
            batch_size=4000,
        )
        TableEvent.objects.bulk_create(
            (
                TableEvent(table=t, position=i, token=token, entered_by=referee)
                for k, t in enumerate(tables[:n_tables])
                for i, token in enumerate(DEALS[: state(k)[1]])
            ),
            batch_size=5000,
        )
    return rnd


def _measure(client: Any, url: str, pairs: int, case: str, cold: bool) -> Measure:
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    runs = []
    for _ in range(REPEAT):
        if cold:
            cache.clear()
        with CaptureQueriesContext(connection) as queries:
            start, cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        if response.status_code != 200:
            raise RuntimeError(f"{url}: HTTP {response.status_code}")
        runs.append(Measure(pairs, case, seconds, cpu, len(queries), len(response.content) / 1024))
    return min(runs, key=lambda m: m.seconds)


def run(sizes: tuple[int, ...] = SIZES) -> list[Measure]:
    """Build each size and measure the dashboard (call inside a test database)."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    users = get_user_model().objects
    organizer = users.create_user("bench-organizer")
    referee = users.create_user("bench-referee")
    client = Client()
    client.force_login(referee)
    results = []
    for n in sizes:
        rnd = build(n, organizer, referee, slug=f"bench-dashboard-{n}")
        url = reverse("referee:round_dashboard", args=[rnd.tournament.slug, rnd.number])
        for case, query, cold in CASES:
            results.append(_measure(client, url + query, n, case, cold))
    return results


def markdown_report(sizes: tuple[int, ...] = SIZES) -> str:
    """The "## Referee dashboard" section of docs/benchmarks.md."""
    results = _in_test_database(lambda: run(sizes))
    from django.db import connection

    lines = [
        "## Referee dashboard",
        "",
        f"The referees' round dashboard on {connection.vendor} (`benchmarks/web_scoring.py`): one",
        "published round, every status present (a third confirmed, a sixth entered, a sixth in",
        "progress, the rest not started, about 1% problem tables). Django's test client, logged",
        f"in as a referee; best of {REPEAT} runs. *cold*: Django's cache cleared first, so the",
        "round-wide problem scan runs (as after any write to the round); the other cases find",
        "it cached. CPU is this process's CPU time (wall ≫ CPU means a busy machine).",
        "",
        "| pairs | case | time (ms) | CPU (ms) | queries | size (KiB) |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for m in results:
        lines.append(
            f"| {m.pairs:,} | {m.case} | {m.seconds * 1000:.0f} | {m.cpu_seconds * 1000:.0f} "
            f"| {m.queries} | {m.kbytes:.0f} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - manual run
    print(markdown_report())
