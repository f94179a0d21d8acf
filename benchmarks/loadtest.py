"""``make loadtest``: the production shape under a tournament's rush, on loopback only.

What it does (issue 7 "Load"), bounded in time and in requests:

1. creates a fresh PostgreSQL database (``LOAD_DB``, default ``gt_load``; dropped at the end),
   migrates it, collects static files, and imports a ``LOAD_PAIRS``-pair tournament (default
   1,000) through the real importer; round 1 is drawn by the real service and published;
2. starts gunicorn with ``LOAD_WORKERS`` (4) sync workers and ``DEBUG=0`` on 127.0.0.1, with the
   deployment's own ``deploy/gunicorn.conf.py`` (and Redis as the cache when it answers);
3. plays ``LOAD_TABLES`` tables (500) through the real pages: odd tables at the table-side link
   (South taps 8 deals, submits, West confirms with the pair code), even tables on the referee
   pages (one referee enters and submits, a second referee confirms), ``LOAD_CONCURRENCY`` tables
   at a time. ``LOAD_TAP`` says how a deal is tapped: ``mixed`` (default: half the tables of each
   kind like a phone without script — the form's POST and the page it redirects to — and half
   like the page's script of issue 16 — one POST answered in JSON, with a one-time key, every
   fourth tap sent twice with the same key as a retry after a lost answer), ``json`` or ``form``;
   while ``LOAD_PLAYERS`` (300) anonymous players poll the standings and "find my
   table" every ``LOAD_THINK`` (10) seconds or so;
4. stops when every table is confirmed or after ``LOAD_SECONDS`` (600) or ``LOAD_MAX_REQUESTS``;
5. reports requests per second, p50/p95/p99 per kind of request, errors (HTTP ≥ 400, transport
   errors, and pages that came back with an error message), and then verifies in the database
   that every deal the clients were told was saved is stored exactly once, in order — nothing
   lost, nothing doubled — and that no other table changed.

A short run: ``LOAD_TABLES=40 LOAD_PLAYERS=40 LOAD_SECONDS=30 make loadtest`` (about a minute,
set-up included).
A full run writes its figures into the "Load" section of docs/benchmarks.md (between markers,
nothing else in the file is touched; a short run only prints them unless ``LOAD_RECORD=1``);
``markdown_report()`` returns that section for ``benchmarks/run.py``. Exit status 1 when any
error, lost or doubled deal was seen.

Needs PostgreSQL (``LOAD_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``: the
server, without a database name). Touches nothing but its own database, its own gunicorn and its
own temporary directory.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "benchmarks.md"
# Our section of docs/benchmarks.md lives between these markers; everything else is left alone.
START_MARK = "<!-- loadtest:start (written by make loadtest) -->"
END_MARK = "<!-- loadtest:end -->"

# Valid 8-deal matches (no side passes A): the server's engine accepts each of them.
SHEETS = (
    ("NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1"),
    ("EW3", "EW2", "NS2", "NS1", "EW1", "NS1", "EW1", "NS1"),
    ("NS1", "EW1", "NS2", "EW2", "NS1", "EW1", "NS3", "EW1"),
    ("EW1", "NS1", "EW2", "NS2", "EW1", "NS1", "EW3", "NS1"),
)
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红鹏辉建国志文斌宇浩凯健俊帆"
REFEREES = 24
PASSWORD = secrets.token_urlsafe(16)  # random per run; lives only as long as the load database


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    return float(raw) if raw else default


@dataclass
class Config:
    tables: int = field(default_factory=lambda: env_int("LOAD_TABLES", 500))
    players: int = field(default_factory=lambda: env_int("LOAD_PLAYERS", 300))
    seconds: float = field(default_factory=lambda: env_float("LOAD_SECONDS", 600))
    pairs: int = field(default_factory=lambda: env_int("LOAD_PAIRS", 0))
    workers: int = field(default_factory=lambda: env_int("LOAD_WORKERS", 4))
    concurrency: int = field(default_factory=lambda: env_int("LOAD_CONCURRENCY", 0))
    think: float = field(default_factory=lambda: env_float("LOAD_THINK", 10.0))
    max_requests: int = field(default_factory=lambda: env_int("LOAD_MAX_REQUESTS", 200_000))
    tap: str = field(default_factory=lambda: os.environ.get("LOAD_TAP", "mixed"))
    db: str = field(default_factory=lambda: os.environ.get("LOAD_DB", "gt_load"))
    server: str = field(
        default_factory=lambda: os.environ.get(
            "LOAD_DATABASE_URL", "postgres://postgres@127.0.0.1:5432"
        ).rstrip("/")
    )

    def __post_init__(self) -> None:
        self.pairs = self.pairs or max(1000, 2 * self.tables)
        self.tables = max(0, min(self.tables, self.pairs // 2))
        self.concurrency = self.concurrency or max(1, min(self.tables, 32))
        if self.tap not in ("mixed", "json", "form"):
            raise SystemExit(f"LOAD_TAP must be mixed, json or form, got {self.tap!r}")
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", self.db):
            raise SystemExit(f"LOAD_DB must be a plain lower-case name, got {self.db!r}")


# --------------------------------------------------------------------------------------------
# Database and server


def admin_connection(config: Config) -> Any:
    import psycopg

    return psycopg.connect(f"{config.server}/postgres", autocommit=True, connect_timeout=5)


def drop_database(config: Config) -> None:
    with admin_connection(config) as conn:
        # Only connections to *our* database (a killed run may have left some behind).
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [config.db],
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{config.db}"')


def create_database(config: Config) -> None:
    drop_database(config)
    with admin_connection(config) as conn:
        conn.execute(f'CREATE DATABASE "{config.db}"')


def redis_available() -> bool:
    if os.environ.get("LOAD_REDIS", "auto") == "0":
        return False
    try:
        import redis  # noqa: F401
    except ImportError:
        return False
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
    except OSError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(config: Config, static_root: Path, port: int, use_redis: bool) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LOAD_", "DJANGO_", "DATABASE_", "REDIS_"))
    }
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        HTTPS="0",  # loopback, no TLS: no redirect, cookies without Secure
        DATABASE_URL=f"{config.server}/{config.db}",
        CONN_MAX_AGE="60",
        STATIC_ROOT=str(static_root),
        DJANGO_SETTINGS_MODULE="guandan_tourney.settings",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY=str(config.workers),
        GUNICORN_ACCESSLOG="off",
        GUNICORN_LOGLEVEL="warning",
        LOG_LEVEL="ERROR",
        APP_LOG_LEVEL="WARNING",
    )
    if use_redis:
        env["REDIS_URL"] = "redis://127.0.0.1:6379/0"
        env["CACHE_KEY_PREFIX"] = "gt-load-" + secrets.token_hex(4)  # nobody else's keys
    return env


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True
    )


def start_gunicorn(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    gunicorn = Path(sys.executable).parent / "gunicorn"
    with log.open("wb") as out:
        return subprocess.Popen(  # noqa: S603 - the venv's gunicorn, fixed arguments
            [str(gunicorn), "-c", "deploy/gunicorn.conf.py", "guandan_tourney.wsgi:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: we stop exactly what we started
        )


def wait_healthy(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            status, _, _ = Http(port).request("GET", "/healthz")
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not become healthy")


def stop_gunicorn(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)  # graceful: the master stops its workers
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


# --------------------------------------------------------------------------------------------
# The tournament


def tournament_file(config: Config) -> dict[str, Any]:
    from rules.ruleset import preset_settings

    rng = random.Random(20261129)
    units = [
        {"id": f"U{i}", "name": f"{SURNAMES[i % len(SURNAMES)]}家俱乐部{i}"} for i in range(50)
    ]
    pairs = []
    for number in range(1, config.pairs + 1):
        names = [rng.choice(SURNAMES) + rng.choice(GIVEN) + rng.choice(GIVEN) for _ in range(2)]
        pairs.append(
            {"id": number, "players": names, "unit": f"U{number % 50}", "status": "active"}
        )
    settings = {**preset_settings("regulation"), "rounds": 7, "seed": 20261129}
    return {
        "format": "guandan-tournament",
        "version": 1,
        "name": f"压力测试 {config.pairs} 对",
        "settings": settings,
        "units": units,
        "pairs": pairs,
        "rounds": [],
    }


@dataclass
class TablePlan:
    number: int
    token: str  # the table-side link's secret
    ew_code: str
    ns_code: str  # South proves North–South with it before entering (RULES.md §7)
    sheet: tuple[str, ...]
    mode: str  # "tableside" or "referee"
    enterer: int = 0  # referee indices
    confirmer: int = 0
    json_taps: bool = False  # the page's script (issue 16) rather than the plain form


def prepare(config: Config, env: dict[str, str]) -> tuple[str, list[TablePlan], list[str]]:
    """Import the tournament, draw and publish round 1; returns (slug, plans, player names)."""
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")})
    os.environ.setdefault("DEBUG", "1")  # this process only reads and verifies
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from pairing import services as pairing_services
    from reports.fileio import import_tournament
    from tournaments import services as tournament_services
    from tournaments.models import Player, Table
    from tournaments.permissions import Role

    users = get_user_model()
    hashed = make_password(PASSWORD)  # hash once (PBKDF2 is slow on purpose), share it
    organizer = users.objects.create(username="load-organizer", password=hashed)
    tournament = import_tournament(tournament_file(config), slug="load", user=organizer)
    referees = users.objects.bulk_create(
        users(username=f"load-ref{i}", password=hashed) for i in range(REFEREES)
    )
    for ref in referees:
        tournament_services.grant_role(tournament, ref, Role.REFEREE, organizer)
    rnd = pairing_services.generate_round(tournament, organizer)
    pairing_services.publish_round(rnd, organizer)
    rng = random.Random(7)
    plans = []
    tables = (
        Table.objects.filter(round=rnd, is_bye=False).select_related("ns", "ew").order_by("number")
    )
    for table in tables[: config.tables]:
        enterer = rng.randrange(REFEREES)
        plans.append(
            TablePlan(
                number=table.number,
                token=table.entry_token,
                ew_code=table.ew.code,
                ns_code=table.ns.code,
                sheet=rng.choice(SHEETS),
                mode="tableside" if table.number % 2 else "referee",
                enterer=enterer,
                confirmer=(enterer + 1 + rng.randrange(REFEREES - 1)) % REFEREES,
                json_taps=config.tap == "json" or (config.tap == "mixed" and table.number % 4 < 2),
            )
        )
    names = list(Player.objects.filter(pair__tournament=tournament).values_list("name", flat=True))
    return tournament.slug, plans, names


# --------------------------------------------------------------------------------------------
# HTTP clients


class Http:
    """A minimal browser: one connection per request (gunicorn's sync workers close it),
    cookies kept, CSRF token sent back as the form field."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, form: dict[str, Any] | None = None, accept: str = ""
    ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Host": "127.0.0.1", "User-Agent": "guandan-loadtest"}
        if accept:
            headers["Accept"] = accept
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            form = {**form, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")}
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
            for raw in response.headers.get_all("Set-Cookie") or []:
                cookie = SimpleCookie()
                cookie.load(raw)
                for key, morsel in cookie.items():
                    if morsel["max-age"] == "0" or morsel.value == "":
                        self.cookies.pop(key, None)
                    else:
                        self.cookies[key] = morsel.value
            return response.status, dict(response.headers.items()), text
        finally:
            conn.close()


class Recorder:
    """Latency per kind of request and every error, shared by all client threads."""

    def __init__(self, max_requests: int) -> None:
        self.lock = threading.Lock()  # guards the lists below (client-side bookkeeping only)
        self.latency: dict[str, list[float]] = {}
        self.errors: list[tuple[str, str]] = []
        self.count = 0
        self.max_requests = max_requests
        self.stop = threading.Event()

    def call(
        self,
        client: Http,
        kind: str,
        method: str,
        path: str,
        form: dict[str, Any] | None = None,
        accept: str = "",
    ) -> tuple[int, dict[str, str], str]:
        start = time.perf_counter()
        try:
            status, headers, text = client.request(method, path, form, accept)
        except OSError as error:
            self.error(kind, f"transport: {error}")
            raise
        elapsed = time.perf_counter() - start
        with self.lock:
            self.latency.setdefault(kind, []).append(elapsed)
            self.count += 1
            if self.count >= self.max_requests:
                self.stop.set()
        if status >= 400:
            self.error(kind, f"HTTP {status} {method} {path}")
        return status, headers, text

    def error(self, kind: str, detail: str) -> None:
        with self.lock:
            self.errors.append((kind, detail[:300]))


VERSION_RE = re.compile(r'name="version" value="(\d+)"')
ERROR_RE = re.compile(r'<li class="error"[^>]*>(.*?)</li>', re.S)


class Refused(Exception):
    """A page came back with an error message (a refusal the server explained)."""


def _page(
    rec: Recorder, client: Http, kind: str, path: str, need_version: bool = True
) -> tuple[int, str]:
    status, _, text = rec.call(client, kind, "GET", path)
    errors = ERROR_RE.findall(text)
    if errors:
        rec.error(kind, "page says: " + re.sub(r"<[^>]+>|\s+", " ", errors[0]).strip())
        raise Refused(errors[0])
    found = VERSION_RE.search(text)
    if status != 200 or (need_version and not found):
        rec.error(kind, f"no version on {path} ({status})")
        raise Refused(f"no version on {path} ({status})")
    return (int(found.group(1)) if found else -1), text


def _post(
    rec: Recorder,
    client: Http,
    kind: str,
    path: str,
    form: dict[str, Any],
    page: str,
    pkind: str,
    need_version: bool = True,
) -> tuple[int, str]:
    """POST a form, expect the redirect back (PRG), and load the page it leads to. The form
    carries a fresh one-time key, as every form of the pages does (a post without one is
    refused since issue 29)."""
    form = {"once": secrets.token_urlsafe(18), **form}
    status, _, _ = rec.call(client, kind, "POST", path, form)
    if status != 302:
        raise Refused(f"{kind}: HTTP {status}")
    return _page(rec, client, pkind, page, need_version)


def _tap_json(rec: Recorder, client: Http, path: str, token: str, version: int, twice: bool) -> int:
    """A tap as the page's script sends it (issue 16): one POST with a one-time key, answered
    with the new sheet in JSON; ``twice``: the same request again (a retry after a lost answer),
    which must be answered with the first result and store nothing."""
    form = {"token": token, "version": version, "once": secrets.token_urlsafe(18)}
    answers = []
    for _ in range(2 if twice else 1):
        status, _, text = rec.call(client, "tap (JSON)", "POST", path, form, "application/json")
        try:
            body = json.loads(text)
        except ValueError:
            body = {}
        if status != 200 or not body.get("ok"):
            raise Refused(f"tap (JSON): HTTP {status} {body.get('code', '')}")
        answers.append(body["state"])
    if twice and answers[1]["tokens"] != answers[0]["tokens"]:
        rec.error("tap (JSON)", f"a repeated key changed the sheet on {path}")
        raise Refused("a repeated key changed the sheet")
    return int(answers[0]["version"])


def _tap(
    rec: Recorder, client: Http, plan: TablePlan, page: str, k: int, token: str, version: int
) -> int:
    """Deal ``k`` of the plan's sheet: the page's script (JSON) or the plain form and its page."""
    if plan.json_taps:
        return _tap_json(rec, client, page + "event/", token, version, twice=k % 4 == 3)
    version, _ = _post(
        rec,
        client,
        "enter deal",
        page + "event/",
        {"token": token, "version": version},
        page,
        "table page",
    )
    return version


def play_tableside(rec: Recorder, port: int, plan: TablePlan, saved: dict[int, list[str]]) -> None:
    south = Http(port)
    page = f"/table/{plan.token}/"
    version, _ = _page(rec, south, "table page", page)
    version, _ = _post(
        rec,
        south,
        "identify",
        page + "identify/",
        {"code": plan.ns_code, "version": version},
        page,
        "table page",
    )
    for k, token in enumerate(plan.sheet):
        version = _tap(rec, south, plan, page, k, token, version)
        saved[plan.number].append(token)  # the server said: saved
    version, _ = _post(
        rec, south, "submit", page + "submit/", {"version": version}, page, "table page"
    )
    _post(
        rec,
        south,
        "confirm",
        page + "confirm/",
        {"code": plan.ew_code, "version": version},
        page,
        "table page",
        need_version=False,
    )


def play_referee(
    rec: Recorder,
    port: int,
    slug: str,
    plan: TablePlan,
    sessions: list[Http],
    saved: dict[int, list[str]],
) -> None:
    enterer = clone(sessions[plan.enterer])
    confirmer = clone(sessions[plan.confirmer])
    page = f"/t/{slug}/referee/round/1/table/{plan.number}/"
    version, _ = _page(rec, enterer, "table page", page)
    for k, token in enumerate(plan.sheet):
        version = _tap(rec, enterer, plan, page, k, token, version)
        saved[plan.number].append(token)
    _post(rec, enterer, "submit", page + "submit/", {"version": version}, page, "table page")
    version, _ = _page(rec, confirmer, "table page", page)
    _post(
        rec,
        confirmer,
        "confirm",
        page + "confirm/",
        {"version": version},
        page,
        "table page",
        need_version=False,
    )


def clone(client: Http) -> Http:
    """The same logged-in referee on another phone (sessions are shared, cookies copied)."""
    other = Http(client.port)
    other.cookies = dict(client.cookies)
    return other


def login(rec: Recorder, port: int, username: str) -> Http:
    client = Http(port)
    rec.call(client, "login", "GET", "/accounts/login/")
    status, _, _ = rec.call(
        client, "login", "POST", "/accounts/login/", {"username": username, "password": PASSWORD}
    )
    if status != 302 or "sessionid" not in client.cookies:
        raise RuntimeError(f"login of {username} failed ({status})")
    return client


def player(rec: Recorder, port: int, slug: str, names: list[str], seed: int) -> None:
    """One player on a phone: looks for their own table by (part of) their own name, and at the
    standings (mostly the first page), every ``LOAD_THINK`` seconds or so."""
    rng = random.Random(seed)
    client = Http(port)
    me = names[rng.randrange(len(names))]
    query = urllib.parse.urlencode({"q": me[:2]})  # surname + first character, as people type
    time.sleep(rng.uniform(0, rec_think(rec)))  # spread the first requests
    while not rec.stop.is_set():
        if rng.random() < 0.5:
            path = f"/t/{slug}/find/?{query}"
            kind = "find my table"
        else:
            page = rng.choice((1, 1, 1, 1, 2, 3, 5))
            path = f"/t/{slug}/standings/" + (f"?page={page}" if page > 1 else "")
            kind = "standings"
        try:
            rec.call(client, kind, "GET", path)
        except OSError:
            pass
        rec.stop.wait(rng.uniform(0.5, 1.5) * rec_think(rec))


_THINK = {"seconds": 10.0}


def rec_think(rec: Recorder) -> float:
    return _THINK["seconds"]


# --------------------------------------------------------------------------------------------
# Run, verify, report


def _cpu_of(pid: int, children: bool = False) -> float:
    """User + system CPU seconds of one process (Linux /proc), 0 when it is gone; with
    ``children``, also those of its children it has already reaped (recycled workers)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def server_cpu_seconds(master: int, config: Config) -> tuple[float, float]:
    """CPU used by the gunicorn workers and by the PostgreSQL backends serving our database.

    On a machine shared with other work, wall-clock latency says more about the neighbours than
    about us; CPU seconds per request do not, and give the capacity of an idle machine.
    """
    workers = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == master:
            workers.append(int(stat.parent.name))
    app = _cpu_of(master, children=True) + sum(_cpu_of(pid) for pid in workers)
    try:
        with admin_connection(config) as conn:
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", [config.db]
            ).fetchall()
        db = sum(_cpu_of(pid) for (pid,) in rows)
    except Exception:  # the database server is elsewhere: no figure
        db = 0.0
    return app, db


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def verify(plans: list[TablePlan], saved: dict[int, list[str]], slug: str) -> dict[str, Any]:
    """Every deal the clients were told was saved is stored exactly once, in order."""
    from scoring.models import TableEvent
    from tournaments.models import Table

    stored: dict[int, list[tuple[int, str]]] = {}
    rows = TableEvent.objects.filter(table__round__tournament__slug=slug).values_list(
        "table__number", "position", "token"
    )
    for number, position, token in rows:
        stored.setdefault(number, []).append((position, token))
    lost = doubled = wrong = unacknowledged = 0
    played: dict[int, list[tuple[int, str]]] = {}
    for plan in plans:
        events = sorted(stored.pop(plan.number, []))
        played[plan.number] = events
        positions = [p for p, _ in events]
        tokens = [t for _, t in events]
        expected = saved[plan.number]  # what the server told the client it had saved
        # Each deal k of the sheet is only ever sent for position k, so a stored sequence that
        # is not a prefix of the sheet means a deal stored twice or out of place.
        if len(set(positions)) != len(positions) or positions != list(range(len(positions))):
            doubled += 1
        elif tokens != list(plan.sheet[: len(tokens)]):
            wrong += 1
        if len(tokens) < len(expected) or tokens[: len(expected)] != expected:
            lost += max(1, len(expected) - len(tokens))
        elif len(tokens) > len(expected):
            # Saved, but the client never saw the answer (e.g. the page after it failed):
            # not lost, not doubled; the next look at the sheet shows it.
            unacknowledged += len(tokens) - len(expected)
    untouched = sum(len(v) for v in stored.values())  # events on tables nobody played
    confirmed = Table.objects.filter(
        round__tournament__slug=slug, is_bye=False, entry_status="confirmed"
    ).count()
    return {
        "deals_saved": sum(len(v) for v in saved.values()),
        "deals_stored": sum(len(stored_on) for stored_on in played.values()),
        "lost": lost,
        "doubled": doubled,
        "wrong_order": wrong,
        "unacknowledged": unacknowledged,
        "stray_events": untouched,
        "tables_confirmed": confirmed,
    }


def run(config: Config) -> dict[str, Any]:
    _THINK["seconds"] = config.think
    use_redis = redis_available()
    port = int(os.environ.get("LOAD_PORT") or free_port())
    work = Path(tempfile.mkdtemp(prefix="gt-load-"))
    env = server_env(config, work / "static", port, use_redis)
    print(
        f"loadtest: database {config.db}, {config.pairs} pairs, {config.tables} tables, "
        f"{config.players} players, {config.workers} workers, redis={use_redis}",
        flush=True,
    )
    create_database(config)
    proc = None
    try:
        t0 = time.monotonic()
        manage(env, "migrate", "--noinput")
        manage(env, "collectstatic", "--noinput")
        t1 = time.monotonic()
        slug, plans, names = prepare(config, env)
        setup_seconds = time.monotonic() - t0
        print(
            f"loadtest: migrate + collectstatic {t1 - t0:.1f}s, import + round 1 "
            f"{time.monotonic() - t1:.1f}s; starting gunicorn on :{port}",
            flush=True,
        )
        proc = start_gunicorn(env, work / "gunicorn.log")
        wait_healthy(port)

        rec = Recorder(config.max_requests)
        sessions = [login(rec, port, f"load-ref{i}") for i in range(REFEREES)]
        saved: dict[int, list[str]] = {plan.number: [] for plan in plans}
        todo: queue.Queue[TablePlan] = queue.Queue()
        for plan in plans:
            todo.put(plan)
        done = {"tables": 0, "failed": 0}
        done_lock = threading.Lock()  # client-side counter only

        def table_worker() -> None:
            while not rec.stop.is_set():
                try:
                    plan = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    if plan.mode == "tableside":
                        play_tableside(rec, port, plan, saved)
                    else:
                        play_referee(rec, port, slug, plan, sessions, saved)
                    ok = True
                except (Refused, OSError):
                    ok = False
                with done_lock:
                    done["tables" if ok else "failed"] += 1

        players = [
            threading.Thread(target=player, args=(rec, port, slug, names, i), daemon=True)
            for i in range(config.players)
        ]
        tables = [
            threading.Thread(target=table_worker, daemon=True) for _ in range(config.concurrency)
        ]
        start = time.monotonic()
        for thread in players + tables:
            thread.start()
        deadline = start + config.seconds
        for thread in tables:
            thread.join(max(0.0, deadline - time.monotonic()))
        if not plans:  # LOAD_TABLES=0: players only, for LOAD_SECONDS
            rec.stop.wait(max(0.0, deadline - time.monotonic()))
        rec.stop.set()
        for thread in players + tables:
            thread.join(30)
        elapsed = time.monotonic() - start
        if any(t.is_alive() for t in tables):
            rec.error("run", "table threads still running at the deadline")

        alive = proc.poll() is None
        app_cpu, db_cpu = server_cpu_seconds(proc.pid, config)
        stop_gunicorn(proc)
        proc = None
        verification = verify(plans, saved, slug)
        kinds = {}
        for kind, values in sorted(rec.latency.items()):
            kinds[kind] = {
                "requests": len(values),
                "p50_ms": round(percentile(values, 50) * 1000, 1),
                "p95_ms": round(percentile(values, 95) * 1000, 1),
                "p99_ms": round(percentile(values, 99) * 1000, 1),
                "mean_ms": round(statistics.fmean(values) * 1000, 1),
            }
        total = sum(len(v) for v in rec.latency.values())
        return {
            "when": time.strftime("%Y-%m-%d %H:%M %Z"),
            "load": round(os.getloadavg()[1], 1),
            "machine": f"{os.cpu_count()} cores, {sys.platform}, Python {sys.version.split()[0]}",
            "config": {
                "pairs": config.pairs,
                "tables": config.tables,
                "players": config.players,
                "workers": config.workers,
                "concurrency": config.concurrency,
                "think_s": config.think,
                "tap": config.tap,
                "seconds_limit": config.seconds,
                "redis": use_redis,
            },
            "setup_s": round(setup_seconds, 1),
            "elapsed_s": round(elapsed, 1),
            "requests": total,
            "requests_per_s": round(total / elapsed, 1) if elapsed else 0.0,
            "tables_done": done["tables"],
            "tables_failed": done["failed"],
            "errors": len(rec.errors),
            "error_samples": rec.errors[:10],
            "server_alive": alive,
            "app_cpu_s": round(app_cpu, 1),
            "db_cpu_s": round(db_cpu, 1),
            "kinds": kinds,
            "verification": verification,
        }
    finally:
        if proc is not None:
            stop_gunicorn(proc)
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: S110 - Django may not be set up when setup failed
            pass
        drop_database(config)
        log = work / "gunicorn.log"
        if log.exists() and "Traceback" in log.read_text(errors="replace"):
            print(f"loadtest: server errors kept in {log}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)


def ok(result: dict[str, Any]) -> bool:
    v = result["verification"]
    return (
        result["errors"] == 0
        and v["lost"] == 0
        and v["doubled"] == 0
        and v["wrong_order"] == 0
        and v["stray_events"] == 0
        and result["server_alive"]
    )


def cpu_ms(result: dict[str, Any]) -> float:
    """Server CPU (application + database) per request, in milliseconds."""
    if not result["requests"]:
        return 0.0
    return round((result["app_cpu_s"] + result["db_cpu_s"]) * 1000 / result["requests"], 1)


def text_report(result: dict[str, Any]) -> str:
    c, v = result["config"], result["verification"]
    lines = [
        f"{c['pairs']} pairs, {c['tables']} tables × 8 deals, {c['players']} players polling "
        f"every ~{c['think_s']:g}s, gunicorn {c['workers']} workers, redis={c['redis']}, "
        f"taps {c.get('tap', 'form')}",
        f"{result['requests']} requests in {result['elapsed_s']}s = "
        f"{result['requests_per_s']} req/s; server CPU {result['app_cpu_s']}s (gunicorn) + "
        f"{result['db_cpu_s']}s (PostgreSQL) = {cpu_ms(result)} ms per request; "
        f"tables confirmed {result['tables_done']}"
        f"/{c['tables']} (failed {result['tables_failed']}); errors {result['errors']}",
        f"{'kind':<16}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}",
    ]
    for kind, k in result["kinds"].items():
        lines.append(
            f"{kind:<16}{k['requests']:>9}{k['p50_ms']:>9}{k['p95_ms']:>9}{k['p99_ms']:>9}"
        )
    lines.append(
        f"deals saved {v['deals_saved']}, lost {v['lost']}, doubled {v['doubled']}, "
        f"out of order {v['wrong_order']}, stray {v['stray_events']}, saved but "
        f"unacknowledged {v.get('unacknowledged', 0)}; "
        f"tables confirmed in the database {v['tables_confirmed']}"
    )
    for kind, detail in result["error_samples"]:
        lines.append(f"  error [{kind}] {detail}")
    return "\n".join(lines)


def render_markdown(result: dict[str, Any]) -> str:
    """The "Load" section for docs/benchmarks.md from one run's result."""
    c, v = result["config"], result["verification"]
    out = [
        "## Load (`make loadtest`)",
        "",
        f"{result['when']}, {result['machine']}; PostgreSQL, gunicorn {c['workers']} sync workers "
        f"(`deploy/gunicorn.conf.py`, `DEBUG=0`), Redis cache: {'yes' if c['redis'] else 'no'}; "
        "server, database and load generator all on the same machine, loopback only.",
        "",
        f"A {c['pairs']}-pair tournament; {c['tables']} tables of round 1 enter 8 deals each and "
        "confirm through the real pages (odd tables: the table-side link, South enters and West "
        "confirms with the pair code; even tables: the referee pages, one referee enters and "
        f"another confirms), {c['concurrency']} tables at a time, while {c['players']} players "
        f'poll the standings and "find my table" every ~{c["think_s"]:g} s. Taps '
        f"(`LOAD_TAP={c.get('tap', 'form')}`): `mixed` is half the tables like a phone without "
        "script (the form's POST and the page it redirects to), half like the page's script "
        "(issue 16: one POST answered in JSON with a one-time key, every fourth tap sent twice "
        "with the same key, as a retry after a lost answer).",
        "",
        f"- {result['requests']} requests in {result['elapsed_s']} s: "
        f"**{result['requests_per_s']} requests/s** on this machine, whose other work left us "
        f"part of its cores (load average {result.get('load', '?')} during the run)",
        f"- server CPU: {result['app_cpu_s']} s in gunicorn + {result['db_cpu_s']} s in "
        f"PostgreSQL = **{cpu_ms(result)} ms per request**, so an idle machine of "
        f"{os.cpu_count()} cores serves about **"
        f"{round((os.cpu_count() or 1) * 1000 / cpu_ms(result)) if cpu_ms(result) else 0} "
        "requests/s** of this mix",
        f"- tables confirmed: {result['tables_done']} of {c['tables']}; "
        f"**errors: {result['errors']}**",
        f"- afterwards in the database: {v['deals_saved']} deals saved, "
        f"**lost {v['lost']}, doubled {v['doubled']}**, out of order {v['wrong_order']}, "
        f"stray events {v['stray_events']}; {v['tables_confirmed']} tables confirmed",
        "",
        "| request | count | p50 ms | p95 ms | p99 ms |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for kind, k in result["kinds"].items():
        out.append(f"| {kind} | {k['requests']} | {k['p50_ms']} | {k['p95_ms']} | {k['p99_ms']} |")
    out += ["", meaning(result), ""]
    return "\n".join(out)


def meaning(result: dict[str, Any]) -> str:
    """The test compresses a round into minutes; say what the figures mean for a real one."""
    c = result["config"]
    per_table = 2 * 8 + 5  # 8 × (tap + reload), the first page, submit, confirm and reloads
    demand = c["tables"] * per_table / (40 * 60) + c["players"] / c["think_s"]
    return (
        "What it means: the test compresses a whole round into minutes, every table entering "
        "as fast as the server answers, so it measures capacity and correctness under "
        "overload, not a real evening. In a real round the deals are entered as they are "
        f"played, over about 40 minutes: {c['tables']} tables × ~{per_table} requests plus "
        f"{c['players']} phones polling every {c['think_s']:g} s is about **{demand:.0f} "
        "requests/s**, to compare with the idle-machine capacity above. Latency under the "
        "test's own overload is queueing, and on a machine shared with other work it mostly "
        "measures the neighbours; the CPU per request does not."
    )


def markdown_report() -> str:
    """The "Load" section of docs/benchmarks.md as recorded by the last full ``make loadtest``
    (for ``benchmarks/run.py``, which may rebuild the file around it)."""
    text = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    if START_MARK in text and END_MARK in text:
        return text.split(START_MARK, 1)[1].split(END_MARK, 1)[0].strip() + "\n"
    return "## Load (`make loadtest`)\n\nNot recorded yet: run `make loadtest`.\n"


def record(section: str) -> None:
    """Put ``section`` between our markers in docs/benchmarks.md (appended the first time)."""
    block = f"{START_MARK}\n{section.strip()}\n{END_MARK}"
    text = REPORT.read_text(encoding="utf-8") if REPORT.exists() else "# Benchmarks\n"
    if START_MARK in text and END_MARK in text:
        head, rest = text.split(START_MARK, 1)
        text = head + block + rest.split(END_MARK, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    REPORT.write_text(text, encoding="utf-8")


def main() -> int:
    config = Config()
    result = run(config)
    print(text_report(result), flush=True)
    good = ok(result)
    full = config.tables >= 500 and config.players >= 300
    if os.environ.get("LOAD_RECORD", "1" if full else "0") == "1":
        record(render_markdown(result))
        print(f"loadtest: figures recorded in {REPORT.relative_to(ROOT)}")
    print("loadtest: " + ("OK (0 errors, nothing lost, nothing doubled)" if good else "FAILED"))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
