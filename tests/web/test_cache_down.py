"""Issue 29 finding B: with the cache (Redis) unreachable every page still answers — the
standings, cached pages and the name index are computed instead, and the logs say so —
``/healthz`` names the cache apart from the database, and the throttles count in the database
instead of letting every guess through.

The broken cache is the production configuration (``guandan_tourney/settings.py`` evaluated
with ``REDIS_URL`` set) pointed at a closed port, so what is tested is what production builds.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator
from types import ModuleType
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.walk import events_of_every_kind, site_pages
from tournaments import throttle
from tournaments.models import Round

DEAD_REDIS = "redis://127.0.0.1:1/0"


def production_settings(**env: str) -> ModuleType:
    """``guandan_tourney/settings.py`` evaluated afresh under ``env`` (as a server starts)."""
    import guandan_tourney.settings as real

    spec = importlib.util.spec_from_file_location("settings_probe", real.__file__)
    assert spec is not None and spec.loader is not None
    probe = importlib.util.module_from_spec(spec)
    with mock.patch.dict(os.environ, env):
        spec.loader.exec_module(probe)
    return probe


@pytest.fixture
def dead_cache(settings: Any) -> Iterator[None]:
    """The cache and the throttle store as production configures them for ``REDIS_URL``,
    pointed at a port nobody listens on."""
    probe = production_settings(REDIS_URL=DEAD_REDIS, DEBUG="1")
    settings.CACHES = probe.CACHES
    settings.THROTTLE_STORE = probe.THROTTLE_STORE
    settings.THROTTLE_REDIS_URL = probe.THROTTLE_REDIS_URL
    assert settings.THROTTLE_STORE == "redis"
    yield


def _get_all(client: Client, urls: list[str]) -> list[tuple[str, int]]:
    failures = []
    for url in urls:
        response = client.get(url)
        if response.status_code >= 500:
            failures.append((url, response.status_code))
    return failures


@pytest.mark.django_db
def test_every_page_answers_with_the_cache_unreachable(
    played: Round, cast: dict[str, Any], dead_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    """Every page of a Swiss, a team and a knockout event (public pages, standings, a pair's
    page, find — the pinyin index —, projector, rounds, teams, bracket, the referee's round
    and table, the standings PDF, the Excel export …), for each role."""
    failures = []
    for tournament, table in events_of_every_kind(played, cast):
        urls = site_pages(tournament, table)
        for role in ("anonymous", "organizer", "chief", "referee"):
            client = Client(raise_request_exception=False)
            if role != "anonymous":
                client.force_login(cast[role])
            failures += [(tournament.slug, role, *f) for f in _get_all(client, urls)]
    assert not failures, failures
    assert "cache unavailable" in caplog.text


@pytest.mark.django_db
def test_healthz_names_the_cache_apart_from_the_database(client: Client, dead_cache: None) -> None:
    response = client.get("/healthz")
    body = response.content.decode()
    # The site works without its cache (pages are computed), so the probe stays up — and says
    # which part is down, naming the cache it tried.
    assert response.status_code == 200, body
    assert "database: ok" in body
    assert "cache: unavailable" in body and "127.0.0.1:1" in body


@pytest.mark.django_db
def test_healthz_reports_both_parts_when_all_is_well(client: Client) -> None:
    body = client.get("/healthz").content.decode()
    assert body.splitlines()[0] == "ok"
    assert "database: ok" in body and "cache: ok" in body


@pytest.mark.django_db
def test_the_throttle_counts_in_the_database_when_redis_is_down(
    dead_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    """Never silently open: the guesses are counted (in the database) and the log says so."""
    caplog.set_level(logging.WARNING, logger="tournaments.throttle")
    results = [throttle.attempt([("test-dead-redis", 3)], 60) for _ in range(5)]
    for result in results:
        result.keep()
        result.settle()
    assert [r.blocked for r in results] == [False, False, False, True, True]
    assert "database" in caplog.text


@pytest.mark.django_db
def test_login_is_throttled_with_redis_down(cast: dict[str, Any], dead_cache: None) -> None:
    client = Client(REMOTE_ADDR="203.0.113.90")
    for _ in range(5):
        response = client.post(reverse("login"), {"username": "referee", "password": "wrong"})
        assert response.status_code == 200
    response = client.post(reverse("login"), {"username": "referee", "password": "pw-referee"})
    assert response.status_code == 429


def test_a_dead_cache_is_asked_once_per_pause_and_again_after_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from tournaments import resilient_cache
    from tournaments.resilient_cache import ResilientRedisCache

    dead = ResilientRedisCache(DEAD_REDIS, {})
    calls: list[str] = []
    real_get = dead._cache.get

    def counted_get(*args: Any) -> Any:
        calls.append("get")
        return real_get(*args)

    monkeypatch.setattr(dead._cache, "get", counted_get)
    assert [dead.get("k", "default") for _ in range(5)] == ["default"] * 5
    assert dead.add("lock", "token") is True  # nothing held: the caller goes ahead
    assert calls == ["get"]  # resting after the first failure
    assert caplog.text.count("cache unavailable") == 1 and "127.0.0.1:1" in caplog.text
    now = resilient_cache.time.monotonic()
    monkeypatch.setattr(resilient_cache.time, "monotonic", lambda: now + 60)
    assert dead.get("k", "default") == "default"
    assert calls == ["get", "get"]  # asked again after the pause
    assert caplog.text.count("cache unavailable") == 1  # still one line for the outage


def test_the_cache_with_redis_up_is_a_cache() -> None:
    from tournaments.resilient_cache import ResilientRedisCache

    live = ResilientRedisCache("redis://127.0.0.1:6379/15", {"KEY_PREFIX": "gt-test-b"})
    if not live.health()[0]:
        pytest.skip("needs Redis on 127.0.0.1:6379")
    live.set("resilient", "kept", 30)
    assert live.get("resilient") == "kept"
    assert live.add("resilient", "other", 30) is False
    live.delete("resilient")
    assert live.get("resilient") is None
