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
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from pairing import services as pairing_services
from reports.fileio import import_tournament
from tests.db.conftest import play_table
from tests.web.team_event import build_team_event
from tests.web.test_security import all_urls
from tournaments import throttle
from tournaments.models import Pair, Round, Table, Team, Tournament

DEAD_REDIS = "redis://127.0.0.1:1/0"
STAGES = Path(__file__).parents[1] / "db" / "data" / "stages"


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


def _tournament_urls(tournament: Tournament, table: Table) -> list[str]:
    """Every named page of the site (the URLconf walk) for ``tournament``, and the pages that
    walk cannot guess: real pair, round, table and team numbers, the documents, query strings."""
    slug = tournament.slug
    urls = [url for name, url in all_urls(slug, table.entry_token) if not name.startswith("admin")]
    rnd = table.round
    pair = Pair.objects.filter(tournament=tournament).order_by("number").first()
    player = pair.players.first() if pair else None
    urls += [
        reverse("public:standings", args=[slug]) + "?after=1",
        reverse("public:standings", args=[slug]) + "?page=2",
        reverse("public:round", args=[slug, rnd.number]),
        reverse("public:find", args=[slug]) + "?q=1",
        reverse("referee:round_dashboard", args=[slug, rnd.number]),
        reverse("referee:table", args=[slug, rnd.number, table.number]),
        reverse("reports:document", args=[slug, "standings"]),
        reverse("reports:document", args=[slug, "pairings"]) + f"?round={rnd.number}",
        reverse("reports:document", args=[slug, "scoresheets"]) + f"?round={rnd.number}",
        reverse("reports:export", args=[slug]),
        reverse("tableside:tableside", args=[table.entry_token]),
        "/sw.js",
    ]
    if pair is not None:
        urls.append(reverse("public:pair", args=[slug, pair.number]))
    if player is not None:
        urls.append(reverse("public:find", args=[slug]) + f"?q={player.name}")
        urls.append(reverse("public:find", args=[slug]) + "?q=zhao")  # the pinyin index
    for team in Team.objects.filter(tournament=tournament)[:2]:
        urls.append(reverse("public:team", args=[slug, team.code]))
    return urls


@pytest.mark.django_db
def test_every_page_answers_with_the_cache_unreachable(
    played: Round, cast: dict[str, Any], dead_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    table = Table.objects.filter(round=played, is_bye=False).order_by("number").first()
    urls = _tournament_urls(played.tournament, table)
    failures = []
    for role in ("anonymous", "organizer", "chief", "referee"):
        client = Client(raise_request_exception=False)
        if role != "anonymous":
            client.force_login(cast[role])
        failures += [(role, *f) for f in _get_all(client, urls)]
    assert not failures, failures
    assert "cache unavailable" in caplog.text


@pytest.mark.django_db
def test_team_and_stage_pages_answer_with_the_cache_unreachable(
    cast: dict[str, Any], dead_cache: None
) -> None:
    teams = build_team_event(cast["organizer"], cast["chief"], [cast["referee"]])
    rnd = pairing_services.publish_round(
        pairing_services.generate_round(teams, cast["organizer"]), cast["organizer"]
    )
    for table in Table.objects.filter(round=rnd, is_bye=False).order_by("number")[:4]:
        play_table(table, ["NS2", "EW1"], cast["referee"], cast["chief"])
    import json

    stages = import_tournament(
        json.loads((STAGES / "knockout.json").read_text(encoding="utf-8")), slug="ko"
    )
    failures = []
    for tournament in (teams, stages):
        table = (
            Table.objects.filter(round__tournament=tournament, is_bye=False)
            .order_by("round__number", "number")
            .first()
        )
        urls = _tournament_urls(tournament, table)
        urls += [
            reverse("public:bracket", args=[tournament.slug]),
            reverse("public:placings", args=[tournament.slug]),
            reverse("reports:stage_document", args=[tournament.slug, "bracket"]),
        ]
        for role in ("anonymous", "organizer"):
            client = Client(raise_request_exception=False)
            if role != "anonymous":
                client.force_login(cast[role])
            failures += [(tournament.slug, role, *f) for f in _get_all(client, urls)]
    assert not failures, failures


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
