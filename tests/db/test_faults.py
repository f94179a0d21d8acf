"""Faults: a process killed in the middle of a write, the database going away, a failing import.

- A process SIGKILLed inside the transaction of an entry, a round generation or an import
  leaves nothing half-written (PostgreSQL rolls the open transaction back when the connection
  drops), and the same work then succeeds. Deterministic: the child process pauses at a known
  point *inside* the transaction, and the test kills it there.
- gunicorn workers SIGKILLed while a table is being entered through the table-side link: the
  master starts new workers and the entry goes on; every deal is stored exactly once.
- The database unreachable (a TCP proxy in front of PostgreSQL is cut): pages answer a clear
  503, ``/healthz`` says so, no worker dies, and everything recovers when it is back.
- An import that fails at its last table (bad data, or the database refusing the last insert)
  writes nothing; a round generation failing in its last insert writes nothing.

The process-level tests need PostgreSQL (a second process must see the test database; pytest's
SQLite test database lives in memory) and are skipped on SQLite with that reason.
"""

from __future__ import annotations

import copy
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from pairing import services as pairing_services
from reports.fileformat import TournamentFileError, load_json
from reports.fileio import import_tournament
from scoring.models import Penalty, TableEvent
from scoring.once import new_once_key
from tests.support.golden import EXAMPLES
from tests.support.tournament import NS_WINS, enter_tokens
from tournaments.models import AuditEntry, Pair, Player, Round, Seat, Table, Tournament

ROOT = Path(__file__).resolve().parents[2]

ON_POSTGRES = connection.vendor == "postgresql"
needs_postgres = pytest.mark.skipif(
    not ON_POSTGRES,
    reason="needs PostgreSQL: a second process must reach the test database "
    "(run with DATABASE_URL=postgres://… as .ci/run does)",
)


def _database_url(port: int | None = None) -> str:
    s = connection.settings_dict
    host = s.get("HOST") or "127.0.0.1"
    user = urllib.parse.quote(s.get("USER") or "postgres")
    password = s.get("PASSWORD") or ""
    auth = f"{user}:{urllib.parse.quote(password)}@" if password else f"{user}@"
    return f"postgres://{auth}{host}:{port or s.get('PORT') or 5432}/{s['NAME']}"


def _child_env(**extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "PYTEST"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="guandan_tourney.settings",
        DATABASE_URL=_database_url(),
        DEBUG="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.update(extra)
    return env


def _counts() -> dict[str, int]:
    return {
        "tournaments": Tournament.objects.count(),
        "pairs": Pair.objects.count(),
        "players": Player.objects.count(),
        "rounds": Round.objects.count(),
        "tables": Table.objects.count(),
        "seats": Seat.objects.count(),
        "events": TableEvent.objects.count(),
        "penalties": Penalty.objects.count(),
        "audit": AuditEntry.objects.count(),
    }


def _wait_for_other_sessions_to_end(timeout: float = 10) -> None:
    """A killed or stopped process's PostgreSQL backend ends a moment after its socket closes;
    wait for it, so the test database can be flushed and dropped. One still there after
    ``timeout`` (a busy machine) is ended: every session on the *test* database is ours."""
    if not ON_POSTGRES:
        return
    others = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(f"SELECT count(*) {others}")
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)
        cursor.execute(f"SELECT pg_terminate_backend(pid) {others}")


# --------------------------------------------------------------------------------------------
# SIGKILL inside a transaction

CHILD_PRELUDE = """
import os, sys, time, django
django.setup()
MARKER = sys.argv[1]

def pause_here():
    # Inside the service's transaction, after its first writes: tell the test, then wait to be
    # killed. (If nobody kills us within a minute, fail loudly rather than commit.)
    with open(MARKER, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
    os._exit(3)
"""

CHILD_ENTRY = """
from tournaments.models import Table
from scoring import services
from django.contrib.auth import get_user_model
real_cas = services.cas
def cas_then_pause(locked, **fields):
    real_cas(locked, **fields)   # event inserted and version bumped, not committed
    pause_here()
services.cas = cas_then_pause
table = Table.objects.get(pk=int(sys.argv[2]))
user = get_user_model().objects.get(username="referee")
services.enter_event(table, "NS3", user, table.version)
"""

CHILD_GENERATE = """
from pairing import services
from tournaments.models import Tournament
from django.contrib.auth import get_user_model
real_audit = services.audit
def audit_then_pause(*args, **kwargs):
    real_audit(*args, **kwargs)  # round, tables and seats written, not committed
    pause_here()
services.audit = audit_then_pause
tournament = Tournament.objects.get(slug=sys.argv[2])
services.generate_round(tournament, get_user_model().objects.get(username="organizer"))
"""

CHILD_IMPORT = """
from pathlib import Path
from scoring.models import Penalty
from reports.fileformat import load_json
from reports.fileio import import_tournament
manager = Penalty.objects
real_bulk = manager.bulk_create
def bulk_then_pause(*args, **kwargs):
    # The last insert of the import: everything else is written, nothing committed.
    pause_here()
manager.bulk_create = bulk_then_pause
import_tournament(load_json(Path(sys.argv[2]).read_bytes()), slug="killed-import")
"""


def _kill_inside(script: str, *args: str, tmp_path: Path) -> None:
    """Run ``script`` in a child, wait until it pauses inside its transaction, SIGKILL it."""
    marker = tmp_path / "inside-transaction"
    marker.unlink(missing_ok=True)
    errors = tmp_path / "child-stderr.txt"
    with errors.open("wb") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD_PRELUDE + script, str(marker), *args],
            cwd=ROOT,
            env=_child_env(),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if child.poll() is not None:
                pytest.fail(f"child ended before pausing: {child.returncode}\n{errors.read_text()}")
            assert time.monotonic() < deadline, "child never reached the pause"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        assert child.returncode == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        _wait_for_other_sessions_to_end()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_killed_during_entry_leaves_no_half_written_event_and_entry_continues(
    round1: Round, referee: Any, tmp_path: Path
) -> None:
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    table = enter_tokens(table, NS_WINS[:3], referee)
    before = (tokens := list(table.events.order_by("position").values_list("token", flat=True)))
    _kill_inside(CHILD_ENTRY, str(table.pk), tmp_path=tmp_path)
    fresh = Table.objects.get(pk=table.pk)
    assert fresh.version == table.version  # the bump was rolled back with the insert
    assert list(fresh.events.order_by("position").values_list("token", flat=True)) == before
    # The lock died with the connection: the next entry goes straight through.
    fresh = enter_tokens(fresh, NS_WINS[3:], referee)
    assert list(fresh.events.order_by("position").values_list("token", flat=True)) == NS_WINS
    assert tokens == NS_WINS[:3]


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_killed_during_round_generation_leaves_no_half_round(
    tournament: Tournament, organizer: Any, tmp_path: Path
) -> None:
    before = _counts()
    _kill_inside(CHILD_GENERATE, tournament.slug, tmp_path=tmp_path)
    assert _counts() == before  # no round, no table, no seat, no audit entry
    rnd = pairing_services.generate_round(tournament, organizer)  # the tournament row is free
    assert rnd.number == 1
    assert Table.objects.filter(round=rnd).count() == 4


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_killed_during_import_leaves_nothing(tmp_path: Path) -> None:
    before = _counts()
    _kill_inside(CHILD_IMPORT, str(EXAMPLES / "jiangsu-28.json"), tmp_path=tmp_path)
    assert _counts() == before
    assert not Tournament.objects.filter(slug="killed-import").exists()
    data = load_json((EXAMPLES / "jiangsu-28.json").read_bytes())
    assert import_tournament(data, slug="killed-import").slug == "killed-import"


# --------------------------------------------------------------------------------------------
# gunicorn: workers killed while a table is entered; the database going away


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Gunicorn:
    """gunicorn with the deployment's config on a free loopback port, in its own process group."""

    def __init__(self, database_url: str, workers: int, log: Path) -> None:
        self.port = _free_port()
        env = _child_env(
            DATABASE_URL=database_url,
            GUNICORN_BIND=f"127.0.0.1:{self.port}",
            WEB_CONCURRENCY=str(workers),
            GUNICORN_ACCESSLOG="off",
            CONN_MAX_AGE="60",  # kept connections: recovery must cope with dead ones
            DB_CONNECT_TIMEOUT="2",
        )
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "gunicorn"),
                    "-c",
                    "deploy/gunicorn.conf.py",
                    "guandan_tourney.wsgi:application",
                ],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.wait_for(lambda: self.get("/healthz")[0] in (200, 503), "gunicorn to listen")

    def wait_for(self, condition: Any, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if condition():
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                pytest.fail(f"gunicorn exited:\n{self.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)
        pytest.fail(f"timed out waiting for {what}")

    def request(
        self, method: str, path: str, form: dict[str, str] | None = None, cookies: str = ""
    ) -> tuple[int, str, dict[str, str]]:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Host": "127.0.0.1"}
        if cookies:
            headers["Cookie"] = cookies
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return (
                response.status,
                response.read().decode("utf-8", "replace"),
                {k.lower(): v for k, v in response.getheaders()},
            )
        finally:
            conn.close()

    def get(self, path: str) -> tuple[int, str]:
        status, text, _ = self.request("GET", path)
        return status, text

    def workers(self) -> set[int]:
        out = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(self.proc.pid)],
            capture_output=True,
            text=True,
        ).stdout
        return {int(pid) for pid in out.split()}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


@pytest.fixture
def gunicorn_factory(tmp_path: Path) -> Iterator[Any]:
    started: list[Gunicorn] = []

    def start(database_url: str, workers: int = 2) -> Gunicorn:
        server = Gunicorn(database_url, workers, tmp_path / f"gunicorn{len(started)}.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    _wait_for_other_sessions_to_end()


def _csrf_form(server: Gunicorn, path: str) -> tuple[str, int]:
    """GET the table-side page: (cookie header with the CSRF cookie, version on the page)."""
    import re

    status, text, headers = server.request("GET", path)
    assert status == 200, (status, text[:500])
    token = re.search(r"csrftoken=([A-Za-z0-9]+)", headers.get("set-cookie", ""))
    version = re.search(r'name="version" value="(\d+)"', text)
    assert token and version
    return token.group(1), int(version.group(1))


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_workers_killed_during_table_side_entry_lose_and_double_nothing(
    round1: Round, gunicorn_factory: Any
) -> None:
    server = gunicorn_factory(_database_url(), workers=2)
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    page = f"/table/{table.entry_token}/"
    # South has proved North–South with its code (issue 11): a database session, so it
    # survives the workers being killed.
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    from scoring.views.tableside import _pair_key

    session = SessionStore()
    session[_pair_key(table.entry_token)] = table.ns_id
    session.create()
    south_session = f"{settings.SESSION_COOKIE_NAME}={session.session_key}"
    first_workers = server.workers()
    assert len(first_workers) == 2
    kills = 0
    transport_errors = 0
    killer_stop = threading.Event()

    def killer() -> None:
        nonlocal kills
        # Kill whichever worker is there, now and then, while South keeps tapping.
        while not killer_stop.wait(0.15):
            for pid in list(server.workers())[:1]:
                try:
                    os.kill(pid, signal.SIGKILL)
                    kills += 1
                except ProcessLookupError:
                    pass

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        for _ in range(400):  # bounded: South retries after every broken connection
            try:
                csrf, version = _csrf_form(server, page)
                stored = list(
                    Table.objects.get(pk=table.pk)
                    .events.order_by("position")
                    .values_list("token", flat=True)
                )
                assert stored == NS_WINS[: len(stored)], stored  # never a wrong or doubled deal
                if len(stored) == len(NS_WINS):
                    break
                status, _, _ = server.request(
                    "POST",
                    page + "event/",
                    {
                        "token": NS_WINS[len(stored)],
                        "version": str(version),
                        "csrfmiddlewaretoken": csrf,
                        "once": new_once_key(),  # the reloaded page's form key
                    },
                    cookies=f"csrftoken={csrf}; {south_session}",
                )
                # 302: saved (or refused with a message); 503: the database said "busy". A
                # 500 is a failure of the test, never a "transport error" to retry past.
                assert status in (302, 503), status
            except (OSError, http.client.HTTPException):
                # Only a broken connection (the worker was killed under us) is retried.
                transport_errors += 1
                time.sleep(0.05)
    finally:
        killer_stop.set()
        thread.join(10)
    events = list(TableEvent.objects.filter(table=table).order_by("position"))
    assert [e.token for e in events] == NS_WINS
    assert [e.position for e in events] == list(range(8))
    assert Table.objects.get(pk=table.pk).version == 8
    assert kills > 0
    # The master replaced the killed workers and still serves.
    server.wait_for(lambda: server.get("/healthz")[0] == 200, "healthy workers")
    assert server.proc.poll() is None
    assert server.workers() and server.workers() != first_workers


class CuttableProxy:
    """A TCP proxy in front of PostgreSQL that the test can cut and restore (a cable pulled)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = _free_port()
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()  # guards self.sockets (test plumbing, not data)
        self.listener: socket.socket | None = None
        self.up()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        if self.listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone would leave the
            # port listening on Linux.
            try:
                self.listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.listener.close()
            self.listener = None
        with self.lock:
            for sock in self.sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
            self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self.lock:
                self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                try:
                    sock.close()
                except OSError:
                    pass


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_database_unreachable_gives_503_no_crash_loop_and_recovers(
    tournament: Tournament, gunicorn_factory: Any
) -> None:
    s = connection.settings_dict
    proxy = CuttableProxy((s.get("HOST") or "127.0.0.1", int(s.get("PORT") or 5432)))
    try:
        server = gunicorn_factory(_database_url(port=proxy.port), workers=2)
        page = f"/t/{tournament.slug}/find/"
        server.wait_for(lambda: server.get(page)[0] == 200, "the page with the database up")
        assert server.get(page)[0] == 200
        workers = server.workers()

        proxy.down()
        for attempt in range(6):  # every worker, a kept connection and a new one
            status, text = server.get(f"{page}?q=zhang{attempt}")  # not in the page cache
            assert status == 503, text[:300]
            assert "暂时无法连接数据库" in text
        status, text, _ = server.request("POST", "/accounts/login/", {"username": "x"})
        assert status in (403, 503)  # CSRF refuses first, or the database is down: never 500
        assert server.get("/healthz")[0] == 503
        assert server.proc.poll() is None
        assert server.workers() == workers  # no worker died: no crash loop

        proxy.up()
        server.wait_for(lambda: server.get(f"{page}?q=li")[0] == 200, "recovery", timeout=30)
        assert server.get("/healthz")[0] == 200
        assert server.workers() == workers
        log = server.log.read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]  # handled, not crashed
        assert "Worker exiting" not in log and log.count("Booting worker") == 2, log[-3000:]
    finally:
        proxy.down()


# --------------------------------------------------------------------------------------------
# All-or-nothing imports and rounds (any database)


def _example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


@pytest.mark.django_db
def test_an_import_whose_last_table_is_bad_writes_nothing() -> None:
    data = _example("jiangsu-28.json")
    last_round = data["rounds"][-1]
    last_table = [t for t in last_round["tables"] if "deals" in t][-1]
    last_table["deals"] = [*last_table["deals"], "NS9"]  # not a deal
    before = _counts()
    with pytest.raises(TournamentFileError) as refused:
        import_tournament(data, slug="bad-last-table")
    assert refused.value.problems
    assert _counts() == before


@pytest.mark.django_db
def test_an_import_failing_in_its_last_insert_writes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _example("jiangsu-28.json")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")  # the database refusing the very last insert

    monkeypatch.setattr(Penalty.objects, "bulk_create", refuse)
    before = _counts()
    with pytest.raises(RuntimeError):
        import_tournament(copy.deepcopy(data), slug="failed-last-insert")
    assert _counts() == before


@pytest.mark.django_db
def test_a_round_generation_failing_in_its_last_insert_writes_nothing(
    tournament: Tournament, organizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("connection lost")

    monkeypatch.setattr(Seat.objects, "bulk_create", refuse)
    before = _counts()
    with pytest.raises(RuntimeError):
        pairing_services.generate_round(tournament, organizer)
    assert _counts() == before
