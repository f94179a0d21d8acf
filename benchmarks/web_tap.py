"""Benchmark of one deal tap (issue 16): the plain form (POST, redirect, the sheet's GET) against
the page's script (one POST answered with the new sheet as JSON), and the sheet page's weight.

``markdown_report()`` returns the "## One tap" section of docs/benchmarks.md (run by
``python -m benchmarks.run``; ``python -m benchmarks.web_tap`` prints it). It makes its own
throw-away test database (``benchmarks.django_env``) with a 16-pair tournament and one published
round, then plays ``TABLES`` tables' 8 deals each way, at the table-side link (South proved with
its pair code) and on the referee desk. Measured with Django's test client (middleware, sessions,
templates; not the network): server time and CPU per tap (the median over every tap), and the
bytes of the request body and of the answers. A form tap costs its POST and the GET it redirects
to (the browser loads the whole page again); a JSON tap is one POST.

The page weight is what a phone downloads for the sheet: the table-side page's HTML, its CSS and
JavaScript, and the rules as data (raw and gzip; whitenoise serves the static files compressed,
the rules are gzipped by their view). May touch: only its own test database.
"""

from __future__ import annotations

import gzip
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.django_env import in_test_database as _in_test_database

ROOT = Path(__file__).resolve().parents[1]
TABLES = 6
DEALS = ("NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1")
JSON = {"HTTP_ACCEPT": "application/json"}
CSRF = "x" * 64  # a masked CSRF token's length (the test client does not check it)
STATIC = ("css/site.css", "css/entry.css", "js/entry.js", "js/sheet-rules.js", "js/live-sheet.js")


@dataclass(frozen=True)
class TapFigures:
    where: str
    how: str
    ms: float
    cpu_ms: float
    sent: float  # bytes of the request body(ies) per tap
    received: float  # bytes of the answer(s) per tap


def _tournament() -> tuple[Any, Any, list[Any]]:
    from django.contrib.auth import get_user_model

    from pairing import services as pairing_services
    from rules.ruleset import preset_settings
    from tournaments.models import Pair, Player
    from tournaments.services import create_tournament, grant_role

    users = get_user_model().objects
    organizer = users.create_user("bench-tap-organizer")
    referee = users.create_user("bench-tap-referee")
    settings = {**preset_settings("regulation"), "rounds": 7, "seed": 16}
    tournament = create_tournament("Bench taps", "bench-taps", organizer, settings=settings)
    grant_role(tournament, referee, "referee", organizer)
    for i in range(4 * TABLES):
        pair = Pair.objects.create(tournament=tournament, number=i + 1, code=f"T{i:05d}")
        Player.objects.create(pair=pair, position=1, name=f"甲{i}")
        Player.objects.create(pair=pair, position=2, name=f"乙{i}")
    rnd = pairing_services.generate_round(tournament, organizer)
    rnd = pairing_services.publish_round(rnd, organizer)
    tables = list(rnd.tables.filter(is_bye=False).order_by("number"))
    return tournament, referee, tables


def _body_size(data: dict[str, Any]) -> int:
    from urllib.parse import urlencode

    return len(urlencode(data).encode())


def _play(client: Any, event_url: str, page_url: str, csrf: str, as_json: bool) -> list[tuple]:
    """Eight taps on one table; per tap (seconds, cpu seconds, bytes sent, bytes received)."""
    from scoring.once import new_once_key

    out = []
    version = _version_of(client, page_url)
    for token in DEALS:
        data = {"csrfmiddlewaretoken": csrf, "version": version, "token": token}
        data["once"] = new_once_key()
        start, cpu = time.perf_counter(), time.process_time()
        if as_json:
            response = client.post(event_url, data, **JSON)
            received = len(response.content)
            if response.status_code != 200:
                raise RuntimeError(f"{event_url}: HTTP {response.status_code}")
            version = response.json()["state"]["version"]
        else:
            response = client.post(event_url, data)
            if response.status_code != 302:
                raise RuntimeError(f"{event_url}: HTTP {response.status_code}")
            page = client.get(response["Location"])
            received = len(response.content) + len(page.content)
            version = page.context["table"].version
        out.append(
            (time.perf_counter() - start, time.process_time() - cpu, _body_size(data), received)
        )
    return out


def _version_of(client: Any, page_url: str) -> int:
    return int(client.get(page_url).context["table"].version)


def _figures(where: str, how: str, taps: list[tuple]) -> TapFigures:
    return TapFigures(
        where,
        how,
        statistics.median(t[0] for t in taps) * 1000,
        statistics.median(t[1] for t in taps) * 1000,
        statistics.mean(t[2] for t in taps),
        statistics.mean(t[3] for t in taps),
    )


def run() -> tuple[list[TapFigures], dict[str, tuple[int, int]]]:
    """Play the tables both ways at both places, and weigh the table-side page."""
    from django.test import Client
    from django.urls import reverse

    tournament, referee, tables = _tournament()
    results: dict[tuple[str, str], list[tuple]] = {}
    weight: dict[str, tuple[int, int]] = {}
    for index, table in enumerate(tables):
        as_json = index % 2 == 1
        how = "JSON (script)" if as_json else "form + page (no script)"
        # Table-side: South proves itself once, then taps.
        south = Client(enforce_csrf_checks=False)
        link = reverse("tableside:tableside", args=[table.entry_token])
        south.post(
            reverse("tableside:tableside_identify", args=[table.entry_token]),
            {"version": table.version, "code": table.ns.code},
        )
        page = south.get(link)
        if not weight:
            weight = _weigh(south, page)
        taps = _play(
            south,
            reverse("tableside:tableside_event", args=[table.entry_token]),
            link,
            CSRF,
            as_json,
        )
        results.setdefault(("table-side link", how), []).extend(taps)
    # The referee desk on a second round's worth of the same tables: undo them all first.
    from scoring.models import TableEvent
    from tournaments.models import Table

    TableEvent.objects.filter(table__in=tables).delete()
    Table.objects.filter(pk__in=[t.pk for t in tables]).update(entry_status="open")
    desk = Client()
    desk.force_login(referee)
    for index, table in enumerate(tables):
        as_json = index % 2 == 1
        how = "JSON (script)" if as_json else "form + page (no script)"
        args = [tournament.slug, table.round.number, table.number]
        taps = _play(
            desk,
            reverse("referee:table_event", args=args),
            reverse("referee:table", args=args),
            CSRF,
            as_json,
        )
        results.setdefault(("referee desk", how), []).extend(taps)
    figures = [_figures(where, how, taps) for (where, how), taps in results.items()]
    return figures, weight


def _weigh(client: Any, page: Any) -> dict[str, tuple[int, int]]:
    """(raw, gzip) bytes of the table-side page, its static files and the rules as data."""
    weight = {"HTML (table-side page, empty sheet)": _sizes(page.content)}
    for name in STATIC:
        weight[name] = _sizes((ROOT / "static" / name).read_bytes())
    rules = client.get(page.context["live"]["rules_url"])
    weight["rules as data (JSON)"] = _sizes(rules.content)
    return weight


def _sizes(content: bytes) -> tuple[int, int]:
    return len(content), len(gzip.compress(content, 9))


def markdown_report() -> str:
    """The "## One tap" section of docs/benchmarks.md."""
    figures, weight = _in_test_database(run)
    from django.db import connection

    lines = [
        "## One tap (issue 16)",
        "",
        f"One deal tap on {connection.vendor} (`benchmarks/web_tap.py`): {TABLES} tables × 8",
        "deals, half by the plain form (the POST and the sheet page it redirects to: what a",
        "phone without the script, or before issue 16, loads per tap), half by the page's",
        "script (one POST answered with the new sheet as JSON). Django's test client (no",
        "network); the median over every tap; bytes are the request body and the answers.",
        "",
        "| where | how | server time (ms) | CPU (ms) | bytes sent | bytes received |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for f in sorted(figures, key=lambda f: (f.where, f.how)):
        lines.append(
            f"| {f.where} | {f.how} | {f.ms:.1f} | {f.cpu_ms:.1f} | {f.sent:,.0f} "
            f"| {f.received:,.0f} |"
        )
    total_raw = sum(raw for raw, _ in weight.values())
    total_gz = sum(gz for _, gz in weight.values())
    lines += [
        "",
        "The sheet page's weight (what a phone downloads once; the worker keeps the files):",
        "",
        "| part | bytes | gzip |",
        "|---|---:|---:|",
        *(f"| {name} | {raw:,} | {gz:,} |" for name, (raw, gz) in weight.items()),
        f"| **total** | **{total_raw:,}** | **{total_gz:,}** |",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - manual run
    print(markdown_report())
