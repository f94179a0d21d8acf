"""Issue 29 finding K: the public page cache keys on each page's known parameters, normalised —
not on the raw query string, where every distinct ``?x=`` rendered the page again (60 ms
against 7) and stored another ~108 KB in Redis for 30 s. And Redis is given a memory cap with
LRU eviction (``deploy/redis.conf``)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, get_resolver, reverse

from tournaments.models import Round

ROOT = Path(__file__).resolve().parents[2]


def _queries(client: Client, url: str) -> tuple[int, bytes]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(queries), response.content


@pytest.mark.django_db
def test_unknown_parameters_share_the_page_and_are_not_rendered_again(played: Round) -> None:
    standings = reverse("public:standings", args=[played.tournament.slug])
    client = Client()
    first, page = _queries(client, standings)
    assert first > 3  # rendered: the round, the standings, the names…
    for junk in ("?x=1", "?x=2", "?utm_source=wechat&from=singlemessage", "?x=<b>"):
        count, content = _queries(client, standings + junk)
        assert count <= 1, (junk, count)  # the tournament; the page itself from the cache
        assert content == page


@pytest.mark.django_db
def test_a_known_parameter_is_keyed_by_its_value_normalised(played: Round) -> None:
    standings = reverse("public:standings", args=[played.tournament.slug])
    client = Client()
    _, after_1 = _queries(client, standings + "?after=1")
    for same in ("?after=01", "?after=+1", "?after=1&x=9", "?x=9&after=1"):
        count, content = _queries(client, standings + same)
        assert count <= 1 and content == after_1, same
    _, after_0 = _queries(client, standings + "?after=0")
    assert after_0 != after_1  # what the page shows still follows its parameters


@pytest.mark.django_db
def test_a_junk_parameter_does_not_reach_the_page(played: Round) -> None:
    """The page renders from its normalised query only: nothing of an unknown parameter is
    echoed (the language links' ``next``), so a cached page is the same for every visitor."""
    detail = reverse("public:detail", args=[played.tournament.slug])
    content = Client().get(detail + "?injected=zzz-marker").content.decode()
    assert "zzz-marker" not in content and "injected" not in content


@pytest.mark.django_db
def test_the_find_box_still_finds(played: Round) -> None:
    pair = played.tournament.pairs.order_by("number").first()
    name = pair.players.first().name
    url = reverse("public:find", args=[played.tournament.slug])
    content = Client().get(url, {"q": f"  {name} ", "junk": "1"}).content.decode()
    assert name in content


@pytest.mark.django_db
def test_a_cached_public_page_holds_no_csrf_token_and_sets_no_cookie(played: Round) -> None:
    """What the cache hands every visitor is the same for all: no token, no cookie."""
    slug = played.tournament.slug
    for name, args in (
        ("detail", []),
        ("find", []),
        ("standings", []),
        ("pair", [1]),
        ("projector", []),
        ("rounds", []),
        ("round", [played.number]),
    ):
        for _ in range(2):  # rendered, then from the cache
            response = Client().get(reverse(f"public:{name}", args=[slug, *args]))
            assert response.status_code == 200, name
            assert b"csrfmiddlewaretoken" not in response.content, name
            assert not response.cookies, (name, response.cookies)


def test_every_cached_public_page_lists_its_parameters() -> None:
    """A public page added later must say which parameters it reads, or its query is kept raw
    (the old behaviour) — never silently dropped."""
    from reports import pagecache

    names = {
        entry.name
        for entry in get_resolver().url_patterns
        for entry in getattr(entry, "url_patterns", [])
        if isinstance(entry, URLPattern)
        and getattr(entry.callback, "__wrapped__", None) is not None
        and entry.callback.__module__.startswith("reports.views.public")
    }
    assert names, "the walk found the public pages"
    assert names <= set(pagecache.PARAMETERS), names - set(pagecache.PARAMETERS)


# --------------------------------------------------------------------------------------------
# Redis: a memory cap and LRU eviction


def _redis_conf() -> dict[str, str]:
    settings = {}
    for line in (ROOT / "deploy" / "redis.conf").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            settings[key] = value.strip()
    return settings


def test_deploy_gives_redis_a_memory_cap_and_lru_eviction() -> None:
    conf = _redis_conf()
    assert conf["maxmemory-policy"] == "allkeys-lru"
    assert conf["maxmemory"].endswith("mb") and 64 <= int(conf["maxmemory"][:-2]) <= 1024


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_redis_starts_with_the_deploy_configuration(tmp_path: Path) -> None:
    import redis

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            "redis-server",
            str(ROOT / "deploy" / "redis.conf"),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(tmp_path),
            "--save",
            "",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
        for _ in range(50):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.1)
        assert client.config_get("maxmemory-policy")["maxmemory-policy"] == "allkeys-lru"
        assert int(client.config_get("maxmemory")["maxmemory"]) == int(
            _redis_conf()["maxmemory"][:-2]
        ) * (1024 * 1024)
    finally:
        server.terminate()
        server.wait(10)


def test_the_throttle_counters_are_kept_out_of_the_evicting_cache() -> None:
    """An evicting cache may drop a counter under a flood of pages: the deployment keeps the
    throttle counters in the database."""
    env = (ROOT / "deploy" / "env.example").read_text()
    assert "\nTHROTTLE_STORE=database\n" in env
