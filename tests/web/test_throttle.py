"""Issue 11 finding 8: throttles in a store every worker shares, with an atomic count.

- pair codes are counted per (table, address) and per table, so a stranger's guesses lock out
  the stranger, not the real West;
- logins are counted per (account, address), per account and per address, with a per-address
  limit a venue's shared address (NAT) can live with;
- the count survives another worker (a per-process cache would not) and no race lets more than
  the limit through (reserve first, then check).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse

from scoring.once import new_once_key
from scoring.views import tableside as tableside_views
from tests.support.pages import (
    EIGHT,
    first_table,
    fresh,
    identified,
    link,
    make_cast,
    make_tournament,
    page_messages,
    tap,
)
from tests.support.tournament import next_round
from tournaments import throttle
from tournaments.models import Table

REDIS_URL = "redis://127.0.0.1:6379/7"


@pytest.fixture
def table(db: Any) -> Table:
    cast = make_cast()
    return first_table(next_round(make_tournament(cast), cast["organizer"]))


def _submitted(table: Table) -> None:
    # South proves itself with the North–South code first (issue 11: both pairs take part).
    south = identified(table, "NS", Client(REMOTE_ADDR="10.0.0.5"))
    for token in EIGHT:
        tap(south, table, token)
    south.post(link(table, "submit"), {"once": new_once_key(), "version": fresh(table).version})


def _guess(client: Client, table: Table, code: str) -> Any:
    return client.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": code},
        follow=True,
    )


def _wrong(table: Table) -> str:
    return "A" * 6 if table.ew.code != "AAAAAA" else "B" * 6


@pytest.mark.django_db
def test_a_strangers_guesses_do_not_lock_out_the_real_west(table: Table) -> None:
    _submitted(table)
    stranger = Client(REMOTE_ADDR="198.51.100.66")
    for _ in range(12):
        _guess(stranger, table, _wrong(table))
    # The stranger is refused, even with the right code…
    response = _guess(stranger, table, table.ew.code)
    assert any("次数过多" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"
    # …but West's phone at the venue is not.
    west = Client(REMOTE_ADDR="10.0.0.5")
    response = _guess(west, table, table.ew.code)
    assert fresh(table).entry_status == "confirmed", page_messages(response)


# --------------------------------------------------------------------------------------------
# Issue 29 point 11: per device, with a backoff — never the whole venue behind one address

VENUE = "10.0.0.5"  # the venue's Wi-Fi: every phone behind one address (NAT)


_REAL_TIME = time.time


def _later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The clock ``seconds`` after the real now (the database store's windows and waits)."""
    now = _REAL_TIME() + seconds
    monkeypatch.setattr(throttle.time, "time", lambda: now)


@pytest.mark.django_db
def test_ten_wrong_codes_from_one_phone_do_not_lock_out_another_phone_at_the_venue(
    table: Table,
) -> None:
    _submitted(table)
    guesser = Client(REMOTE_ADDR=VENUE)
    guesser.get(link(table))  # the page gives the phone its device cookie
    for _ in range(10):
        _guess(guesser, table, _wrong(table))
    response = _guess(guesser, table, table.ew.code)
    assert any("次数过多" in m for m in page_messages(response))  # the guesser is slowed …
    assert fresh(table).entry_status == "entered"
    west = Client(REMOTE_ADDR=VENUE)  # … West's phone on the same Wi-Fi is not
    west.get(link(table))
    response = _guess(west, table, table.ew.code)
    assert fresh(table).entry_status == "confirmed", page_messages(response)


@pytest.mark.django_db
def test_a_cookieless_guesser_does_not_lock_out_a_phone_at_the_venue(table: Table) -> None:
    """A script that never keeps a cookie is one cookie-less client of its address and
    browser, however many requests it makes; West's phone is another."""
    _submitted(table)
    for _ in range(12):
        _guess(Client(REMOTE_ADDR=VENUE, HTTP_USER_AGENT="curl/8.5"), table, _wrong(table))
    response = _guess(Client(REMOTE_ADDR=VENUE, HTTP_USER_AGENT="curl/8.5"), table, table.ew.code)
    assert fresh(table).entry_status == "entered", page_messages(response)
    west = Client(REMOTE_ADDR=VENUE, HTTP_USER_AGENT="Mozilla/5.0 (iPhone)")
    response = _guess(west, table, table.ew.code)
    assert fresh(table).entry_status == "confirmed", page_messages(response)


@pytest.mark.django_db
def test_a_wrong_code_slows_that_phone_without_a_captcha(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    _submitted(table)
    phone = Client(REMOTE_ADDR=VENUE)
    phone.get(link(table))
    for _ in range(3):  # three typos are free
        _guess(phone, table, _wrong(table))
    # The third wrong code makes the phone wait: even the right code is not checked yet …
    response = _guess(phone, table, table.ew.code)
    assert any("秒后再试" in m for m in page_messages(response)), page_messages(response)
    assert fresh(table).entry_status == "entered"
    _later(monkeypatch, 3)  # … and is, once the wait is over
    response = _guess(phone, table, table.ew.code)
    assert fresh(table).entry_status == "confirmed", page_messages(response)


@pytest.mark.django_db
def test_the_waits_grow_and_the_phone_stops_at_its_limit(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert [throttle.pair_code_wait(n) for n in range(1, 11)] == [0, 0, 2, 4, 8, 16, 32, 60, 60, 60]
    _submitted(table)
    phone = Client(REMOTE_ADDR=VENUE)
    phone.get(link(table))
    elapsed = 0
    for n in range(1, 11):  # ten wrong codes, each once the previous wait is over
        _guess(phone, table, _wrong(table))
        elapsed += throttle.pair_code_wait(n) + 1
        _later(monkeypatch, elapsed)
    assert elapsed < 600  # all within the window
    response = _guess(phone, table, table.ew.code)
    assert any("次数过多" in m for m in page_messages(response)), page_messages(response)
    assert fresh(table).entry_status == "entered"  # refused for the rest of the window


@pytest.mark.django_db
def test_a_forged_device_cookie_is_no_device(table: Table) -> None:
    _submitted(table)
    for n in range(12):  # a fresh made-up cookie each time: all one cookie-less client
        guesser = Client(REMOTE_ADDR=VENUE)
        guesser.cookies[throttle.DEVICE_COOKIE] = f"made-up-{n}"
        _guess(guesser, table, _wrong(table))
    forger = Client(REMOTE_ADDR=VENUE)
    forger.cookies[throttle.DEVICE_COOKIE] = "made-up-right"
    response = _guess(forger, table, table.ew.code)
    assert fresh(table).entry_status == "entered", page_messages(response)


@pytest.mark.django_db
def test_many_addresses_guessing_one_table_hit_the_per_table_ceiling(
    table: Table, settings: Any
) -> None:
    settings.PAIR_CODE_FAILURES_PER_TABLE_LIMIT = 12
    _submitted(table)
    for i in range(12):
        _guess(Client(REMOTE_ADDR=f"198.51.100.{i}"), table, _wrong(table))
    response = _guess(Client(REMOTE_ADDR="10.0.0.5"), table, table.ew.code)
    assert any("次数过多" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"


@pytest.mark.django_db
def test_the_pair_code_count_is_shared_by_every_worker(table: Table) -> None:
    """Another worker does not see this process's memory: clearing the per-process cache (what a
    different worker sees) must not reset the count."""
    _submitted(table)
    client = Client(REMOTE_ADDR="198.51.100.7")
    for _ in range(10):
        _guess(client, table, _wrong(table))
    cache.clear()  # another worker: an empty per-process cache
    response = _guess(client, table, table.ew.code)
    assert any("次数过多" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"


# --------------------------------------------------------------------------------------------
# Logins


@pytest.fixture
def referee_account(db: Any) -> Any:
    return get_user_model().objects.create_user("referee-li", password="right-password-2")


def _login(client: Client, username: str, password: str) -> Any:
    return client.post(reverse("login"), {"username": username, "password": password})


def test_a_venue_behind_one_address_is_not_locked_out_by_its_own_typos(
    referee_account: Any,
) -> None:
    venue = "203.0.113.50"
    # Sixty mistyped logins from the venue's Wi-Fi, over thirty accounts (two each)…
    for i in range(60):
        assert _login(Client(REMOTE_ADDR=venue), f"player{i % 30}", "typo").status_code == 200
    # …and the referee on the same Wi-Fi still gets in.
    assert _login(Client(REMOTE_ADDR=venue), "referee-li", "right-password-2").status_code == 302


def test_an_address_spraying_accounts_is_stopped_at_its_own_limit(
    referee_account: Any, settings: Any
) -> None:
    settings.LOGIN_FAILURES_PER_CLIENT_LIMIT = 8
    client = Client(REMOTE_ADDR="203.0.113.8")
    for i in range(8):
        assert _login(client, f"user{i}", "guess").status_code == 200
    assert _login(client, "referee-li", "right-password-2").status_code == 429


def test_one_account_guessed_from_many_addresses_is_throttled(referee_account: Any) -> None:
    for i in range(20):
        assert _login(Client(REMOTE_ADDR=f"192.0.2.{i}"), "referee-li", "x").status_code == 200
    response = _login(Client(REMOTE_ADDR="192.0.2.200"), "referee-li", "right-password-2")
    assert response.status_code == 429


def test_refused_attempts_do_not_count_towards_the_account_lock(referee_account: Any) -> None:
    """A guesser hammering from one address is refused after 5; the 45 refused attempts do not
    use up the account's 20, so the referee elsewhere still logs in."""
    guesser = Client(REMOTE_ADDR="198.51.100.99")
    statuses = [_login(guesser, "referee-li", "x").status_code for _ in range(50)]
    assert statuses.count(200) == 5 and statuses.count(429) == 45
    assert (
        _login(Client(REMOTE_ADDR="10.1.1.1"), "referee-li", "right-password-2").status_code == 302
    )


def test_the_login_count_is_shared_by_every_worker(referee_account: Any) -> None:
    client = Client(REMOTE_ADDR="203.0.113.70")
    for _ in range(5):
        _login(client, "referee-li", "wrong")
    cache.clear()  # another worker: an empty per-process cache
    assert _login(client, "referee-li", "right-password-2").status_code == 429


def test_the_window_passes(referee_account: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client = Client(REMOTE_ADDR="203.0.113.71")
    for _ in range(5):
        _login(client, "referee-li", "wrong")
    assert _login(client, "referee-li", "right-password-2").status_code == 429
    later = time.time() + 15 * 60 + 1
    monkeypatch.setattr(throttle.time, "time", lambda: later)
    assert _login(client, "referee-li", "right-password-2").status_code == 302


# --------------------------------------------------------------------------------------------
# No race lets more than the limit through


def _redis_up() -> bool:
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping()
    except Exception:
        return False
    return True


needs_postgres = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="concurrent writers need PostgreSQL (DATABASE_URL=postgres://…)",
)


def _storm(threads: int, body: Any) -> None:
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait(10)
            body()
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert not errors, errors


@needs_postgres
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_wrong_codes_get_no_more_than_the_limit_checked(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thirty wrong codes at once from one address: at most ten reach the code check."""
    _submitted(table)
    checked: list[int] = []
    real = tableside_views.confirm_table_by_pair_code

    def slow_check(*args: Any, **kwargs: Any) -> Any:
        checked.append(1)
        time.sleep(0.05)  # widen any check-then-increment window
        return real(*args, **kwargs)

    monkeypatch.setattr(tableside_views, "confirm_table_by_pair_code", slow_check)
    wrong, version = _wrong(table), fresh(table).version

    def guess() -> None:
        Client(REMOTE_ADDR="198.51.100.1").post(
            link(table, "confirm"), {"once": new_once_key(), "version": version, "code": wrong}
        )

    _storm(30, guess)
    assert len(checked) == 10, len(checked)
    assert fresh(table).entry_status == "entered"


@pytest.mark.parametrize("store", ["database", "redis"])
@pytest.mark.django_db(transaction=True)
def test_concurrent_attempts_reserve_exactly_the_limit(store: str, settings: Any) -> None:
    if store == "redis":
        if not _redis_up():
            pytest.skip("needs Redis on 127.0.0.1:6379")
        settings.THROTTLE_STORE, settings.THROTTLE_REDIS_URL = "redis", REDIS_URL
    elif connection.vendor != "postgresql":
        pytest.skip("concurrent database writers need PostgreSQL")
    key = f"test-storm-{time.time_ns()}"
    allowed: list[int] = []

    def one() -> None:
        if not throttle.attempt([(key, 10)], 60).blocked:
            allowed.append(1)

    _storm(25, one)
    assert len(allowed) == 10
    throttle.clear(key)


@pytest.mark.django_db
def test_a_success_gives_the_reservation_back(settings: Any) -> None:
    key = f"test-refund-{time.time_ns()}"
    for _ in range(3):
        throttle.attempt([(key, 3)], 60).settle()  # not a wrong guess: nothing kept
    kept = throttle.attempt([(key, 3)], 60)
    kept.keep()
    kept.settle()
    assert [throttle.attempt([(key, 3)], 60).blocked for _ in range(3)] == [False, False, True]


# --------------------------------------------------------------------------------------------
# check --deploy


def test_check_deploy_warns_without_a_shared_store() -> None:
    import secrets
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "DJANGO_SETTINGS_MODULE": "guandan_tourney.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "score.example.org",
    }
    args = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    alone = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert alone.returncode != 0 and "guandan.W001" in alone.stderr + alone.stdout
    if _redis_up():
        shared = subprocess.run(
            args, cwd=root, env={**env, "REDIS_URL": REDIS_URL}, capture_output=True, text=True
        )
        assert shared.returncode == 0, shared.stdout + shared.stderr
    broken = subprocess.run(
        args,
        cwd=root,
        env={**env, "REDIS_URL": "redis://127.0.0.1:1/0"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert broken.returncode != 0 and "guandan.E002" in broken.stderr + broken.stdout


@pytest.mark.django_db
def test_a_broken_store_falls_back_to_the_database_with_one_line_in_the_log(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A dead Redis must not lock every referee out on tournament day (nor print a traceback),
    and must not let every guess through either (issue 29 B): the database counts instead."""
    settings.THROTTLE_STORE, settings.THROTTLE_REDIS_URL = "redis", "redis://127.0.0.1:1/0"
    assert [throttle.attempt([("test-dead-store", 1)], 60).blocked for _ in range(3)] == [
        False,
        True,
        True,
    ]
    assert "throttle store unavailable" in caplog.text
    assert caplog.text.count("throttle store unavailable") == 1  # once per outage
    assert all(record.exc_info is None for record in caplog.records)
