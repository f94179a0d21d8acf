"""Production shape: settings only from the environment, ``check --deploy`` clean, error pages.

Settings are module-level, so every "what if the environment says X" runs in a subprocess with
exactly that environment (nothing inherited from the test run but PATH and the interpreter).
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import socket
import subprocess
import sys
import types
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.urls import path

from guandan_tourney.middleware import DatabaseUnavailableMiddleware

ROOT = Path(__file__).resolve().parents[2]
PROD_KEY = secrets.token_urlsafe(50)


def _env(**overrides: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "DJANGO_SETTINGS_MODULE": "guandan_tourney.settings",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(overrides)
    return env


def _prod_env(**overrides: str) -> dict[str, str]:
    values = {"DEBUG": "0", "SECRET_KEY": PROD_KEY, "ALLOWED_HOSTS": "score.example.org"}
    values.update(overrides)
    return _env(**values)


def _redis_reachable() -> bool:
    try:
        import redis  # noqa: F401
    except ImportError:
        return False
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
    except OSError:
        return False
    return True


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(not _redis_reachable(), reason="needs the redis package and Redis on :6379")
def test_check_deploy_is_clean_with_production_settings() -> None:
    # Production has a shared store (without one: guandan.W001, tests/web/test_throttle.py).
    env = _prod_env(REDIS_URL="redis://127.0.0.1:6379/15")
    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="PostgreSQL leg only (DATABASE_URL=postgres://…)",
)
def test_check_deploy_is_clean_on_postgresql_with_redis() -> None:
    env = _prod_env(DATABASE_URL=os.environ["DATABASE_URL"], REDIS_URL="redis://127.0.0.1:6379/15")
    args = ["manage.py", "check", "--deploy", "--database", "default", "--fail-level", "WARNING"]
    result = _run(args, env)
    assert result.returncode == 0, result.stdout + result.stderr


SETTINGS_FILE = ROOT / "guandan_tourney" / "settings.py"


def _load_settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> types.ModuleType:
    """Execute settings.py afresh (as a separate module) with exactly ``env`` set — the same
    as a server starting with that environment, without the cost of a subprocess."""
    for name in list(os.environ):
        if name not in {"PATH", "HOME", "DJANGO_SETTINGS_MODULE"}:
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location("settings_probe", SETTINGS_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "0", "SECRET_KEY": "short", "ALLOWED_HOSTS": "x.org"}, "at least 50"),
        ({"DEBUG": "0", "SECRET_KEY": "a" * 60, "ALLOWED_HOSTS": "x.org"}, "at least 50"),
        ({"DEBUG": "maybe"}, "DEBUG must be a boolean"),
        ({"CONN_MAX_AGE": "forever"}, "CONN_MAX_AGE must be a whole number"),
        ({"LOGIN_FAILURES_LIMIT": "0"}, "LOGIN_FAILURES_LIMIT must be at least 1"),
        ({"DEBUG": "0", "SECRET_KEY": PROD_KEY, "ALLOWED_HOSTS": "x", "HTTPS": "2"}, "HTTPS"),
    ],
)
def test_a_bad_environment_fails_loudly_at_start(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    with pytest.raises(ImproperlyConfigured, match=message):
        _load_settings(monkeypatch, **{"DEBUG": "1", **env})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "0", "ALLOWED_HOSTS": "x.org"}, "SECRET_KEY must be set"),
        ({"DEBUG": "0", "SECRET_KEY": PROD_KEY}, "ALLOWED_HOSTS must be set"),
    ],
)
@pytest.mark.parametrize("entry", ["wsgi", "asgi"])
def test_production_without_its_secrets_does_not_serve(
    env: dict[str, str], message: str, entry: str
) -> None:
    """A missing SECRET_KEY or ALLOWED_HOSTS stops the server (gunicorn imports the WSGI
    application) and fails ``check --deploy``, with the message that says what to set."""
    result = _run(["-c", f"import guandan_tourney.{entry}"], _env(**env))
    assert result.returncode != 0 and message in result.stderr, result.stderr
    result = _run(["manage.py", "check", "--deploy"], _env(**env))
    assert result.returncode != 0, result.stdout + result.stderr
    assert "guandan.E003" in result.stderr and message in result.stderr
    served = _run(["-c", "import guandan_tourney.wsgi"], _prod_env())
    assert served.returncode == 0, served.stderr


def test_commands_that_serve_nothing_run_without_production_secrets() -> None:
    """A fresh clone's ``manage.py makemigrations --check`` with no environment at all (DEBUG off,
    no SECRET_KEY): the migrations are checked, not the deployment."""
    result = _run(["manage.py", "makemigrations", "--check", "--dry-run"], _env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No changes detected" in result.stdout


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _load_settings(
        monkeypatch,
        DEBUG="0",
        SECRET_KEY=PROD_KEY,
        ALLOWED_HOSTS="a.example.org, b.example.org",
        CSRF_TRUSTED_ORIGINS="https://a.example.org",
        DATABASE_URL="postgres://gt@db.internal:5432/gt",
        CONN_MAX_AGE="30",
        DB_CONNECT_TIMEOUT="3",
        REDIS_URL="redis://127.0.0.1:6379/1",
        HTTPS="0",
    )
    assert s.DEBUG is False
    assert s.SECRET_KEY == PROD_KEY
    assert s.ALLOWED_HOSTS == ["a.example.org", "b.example.org"]
    assert s.CSRF_TRUSTED_ORIGINS == ["https://a.example.org"]
    db = s.DATABASES["default"]
    assert (db["ENGINE"], db["HOST"], db["NAME"]) == (
        "django.db.backends.postgresql",
        "db.internal",
        "gt",
    )
    assert db["CONN_MAX_AGE"] == 30 and db["CONN_HEALTH_CHECKS"] is True
    assert db["OPTIONS"]["connect_timeout"] == 3
    assert s.CACHES["default"]["BACKEND"].endswith("RedisCache")
    assert s.CACHES["default"]["LOCATION"] == "redis://127.0.0.1:6379/1"
    assert (s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.SECURE_HSTS_SECONDS) == (
        False,
        False,
        0,
    )
    assert "Manifest" in s.STORAGES["staticfiles"]["BACKEND"]


def test_production_defaults_are_secure(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _load_settings(monkeypatch, DEBUG="0", SECRET_KEY=PROD_KEY, ALLOWED_HOSTS="x.org")
    assert s.SECURE_SSL_REDIRECT and s.SESSION_COOKIE_SECURE and s.CSRF_COOKIE_SECURE
    assert s.SECURE_HSTS_SECONDS >= 31536000
    assert s.SESSION_COOKIE_HTTPONLY and s.X_FRAME_OPTIONS == "DENY"
    assert s.DATABASES["default"]["CONN_MAX_AGE"] == 60
    assert s.CACHES["default"]["BACKEND"].endswith("LocMemCache")


def test_debug_is_off_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11 finding 12: an unset DEBUG is production (so it needs its secrets to serve)."""
    s = _load_settings(monkeypatch)
    assert s.DEBUG is False and s.SECRET_KEY == ""
    assert any("SECRET_KEY must be set" in problem for problem in s.SERVING_PROBLEMS)
    s = _load_settings(monkeypatch, SECRET_KEY=PROD_KEY, ALLOWED_HOSTS="x.org")
    assert s.DEBUG is False


def test_debug_on_is_a_laptop_with_sqlite_and_no_secrets_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s = _load_settings(monkeypatch, DEBUG="1")
    assert s.DEBUG is True
    assert s.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert s.DATABASES["default"]["CONN_MAX_AGE"] == 0


@pytest.mark.skipif(not _redis_reachable(), reason="needs the redis package and Redis on :6379")
def test_the_optional_redis_cache_works_and_is_shared() -> None:
    # The backend production configures (``REDIS_URL``): Django's, degrading when Redis is down.
    from tournaments.resilient_cache import ResilientRedisCache as RedisCache

    token = secrets.token_hex(8)
    one = RedisCache("redis://127.0.0.1:6379/15", {"KEY_PREFIX": "gt-test"})
    two = RedisCache("redis://127.0.0.1:6379/15", {"KEY_PREFIX": "gt-test"})
    one.set("deploy-test", token, 30)
    assert two.get("deploy-test") == token  # another worker sees it
    two.add("deploy-test-counter", 0, 30)
    one.incr("deploy-test-counter")
    assert two.incr("deploy-test-counter") == 2  # atomic across clients (login throttle)
    one.delete_many(["deploy-test", "deploy-test-counter"])


def test_gunicorn_config_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    from gunicorn.config import Config

    monkeypatch.setenv("WEB_CONCURRENCY", "4")
    namespace: dict[str, object] = {}
    code = (ROOT / "deploy" / "gunicorn.conf.py").read_text()
    exec(compile(code, "gunicorn.conf.py", "exec"), namespace)  # noqa: S102 - our own file
    config = Config()
    for name, value in namespace.items():
        if name in config.settings:
            config.set(name, value)  # validates like gunicorn -c does
    assert config.workers == 4
    assert config.worker_class_str == "sync"
    assert config.address == [("127.0.0.1", 8000)]


# --- error pages -------------------------------------------------------------------------


def _db_down(request: HttpRequest) -> HttpResponse:
    raise OperationalError('connection to server at "127.0.0.1", port 5432 failed')


def _boom(request: HttpRequest) -> HttpResponse:
    raise ValueError("a programming error")


urlpatterns = [path("db-down/", _db_down), path("boom/", _boom)]


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_an_unreachable_database_gives_a_clear_503_page(client) -> None:
    client.raise_request_exception = False
    response = client.get("/db-down/")
    assert response.status_code == 503
    assert response["Retry-After"]
    text = response.content.decode()
    assert "暂时无法服务" in text
    assert "没有保存" in text


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_other_errors_stay_500_with_our_page(client, settings) -> None:
    settings.DEBUG = False
    client.raise_request_exception = False
    response = client.get("/boom/")
    assert response.status_code == 500
    assert "服务器错误" in response.content.decode()


def test_only_connection_errors_become_503(rf) -> None:
    middleware = DatabaseUnavailableMiddleware(lambda r: HttpResponse())
    request = rf.get("/")
    assert middleware.process_exception(request, InterfaceError("closed")).status_code == 503
    assert middleware.process_exception(request, ValueError("x")) is None


@pytest.mark.django_db
def test_404_page_is_ours_and_in_chinese(client, settings) -> None:
    settings.DEBUG = False
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "页面不存在" in response.content.decode()


@pytest.mark.django_db
def test_healthz_answers_without_session_or_host_check(client, settings) -> None:
    settings.ALLOWED_HOSTS = ["score.example.org"]
    response = client.get("/healthz", HTTP_HOST="10.0.0.5")
    assert response.status_code == 200
    assert response.content.decode().splitlines()[:2] == ["ok", "database: ok"]
    assert "sessionid" not in response.cookies


# --- make loadtest's report -----------------------------------------------------------------


def test_loadtest_writes_only_its_own_section_of_the_benchmarks_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchmarks import loadtest

    report = tmp_path / "benchmarks.md"
    report.write_text("# Benchmarks\n\n## Import\n\nfigures\n", encoding="utf-8")
    monkeypatch.setattr(loadtest, "REPORT", report)
    result = {
        "when": "2026-11-29 20:00 CST",
        "load": 1.0,
        "machine": "2 cores",
        "config": {
            "pairs": 1000,
            "tables": 500,
            "players": 300,
            "workers": 4,
            "concurrency": 32,
            "think_s": 10.0,
            "seconds_limit": 600,
            "redis": True,
        },
        "elapsed_s": 200.0,
        "requests": 12000,
        "requests_per_s": 60.0,
        "app_cpu_s": 250.0,
        "db_cpu_s": 10.0,
        "tables_done": 500,
        "tables_failed": 0,
        "errors": 0,
        "error_samples": [],
        "server_alive": True,
        "kinds": {"enter deal": {"requests": 4000, "p50_ms": 20, "p95_ms": 40, "p99_ms": 60}},
        "verification": {
            "deals_saved": 4000,
            "deals_stored": 4000,
            "lost": 0,
            "doubled": 0,
            "wrong_order": 0,
            "stray_events": 0,
            "tables_confirmed": 500,
        },
    }
    assert loadtest.ok(result)
    loadtest.record(loadtest.render_markdown(result))
    loadtest.record(loadtest.render_markdown(result))  # replaced, not appended twice
    text = report.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\n## Import\n\nfigures\n")
    assert text.count(loadtest.START_MARK) == 1
    section = loadtest.markdown_report()
    assert "lost 0, doubled 0" in section
    assert "21.7 ms per request" in section  # (250 + 10) s / 12,000 requests
    assert "| enter deal | 4000 |" in section
    assert not loadtest.ok({**result, "verification": {**result["verification"], "doubled": 1}})
