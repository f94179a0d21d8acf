"""Production's static files (issue 29 finding D): with ``DEBUG=0`` and the manifest storage,
``/sw.js`` answers (it was a 500: "Missing staticfiles manifest entry for ''", so the offline
sheet never installed), the files it lists exist, the web manifest and its icons exist, and so
does every static file any page names — its ``src``/``href`` to ``STATIC_URL`` and the
``url(…)`` of the style sheets — fetched through the app as gunicorn serves them (whitenoise).

And no page of the site answers 500 under production's settings (the URLconf walk).

The DEBUG=0 leg (``scripts/test_production.sh``: ``make test-production``, part of ``make test``
and CI) runs this module with ``DEBUG=0``, a real ``SECRET_KEY``, the manifest storage (hashed
static names) after ``collectstatic`` into a fresh ``STATIC_ROOT``, and static files served by
whitenoise through the app, as gunicorn serves them (the live server of ``tests/conftest.py``
does not put Django's debug static handler in front). ``/sw.js`` answered 500 there while every
test passed with ``DEBUG=1``. In the ordinary suite (``DEBUG=1``) it is skipped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from django.conf import settings
from django.test import Client

from scoring.views.offline import SHELL
from tests.support.walk import events_of_every_kind, site_pages
from tournaments.models import Round

pytestmark = pytest.mark.skipif(
    "Manifest" not in settings.STORAGES["staticfiles"]["BACKEND"],
    reason="DEBUG=0 leg only: scripts/test_production.sh runs it",
)


def test_the_settings_are_production_s() -> None:
    assert settings.DEBUG is False
    assert "Manifest" in settings.STORAGES["staticfiles"]["BACKEND"]
    assert (Path(settings.STATIC_ROOT) / "staticfiles.json").exists()


def _fetch(client: Client, url: str) -> tuple[int, bytes, str]:
    response = client.get(url)
    try:
        body = b"".join(response.streaming_content) if response.streaming else response.content
    finally:
        response.close()
    return response.status_code, body, response.get("Content-Type", "")


def _static(url: str) -> bool:
    return urlsplit(url).path.startswith(settings.STATIC_URL)


class _Links(HTMLParser):
    """Every ``src`` and ``href`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value for name, value in attrs if name in ("src", "href") and value]


def _named(page: str, body: bytes) -> set[str]:
    parser = _Links()
    parser.feed(body.decode("utf-8", "replace"))
    absolute = [urljoin(page, url) for url in parser.found]
    return {urlsplit(url).path for url in absolute if _static(url)}


def _check_static(client: Client, urls: set[str]) -> dict[str, Any]:
    """Fetch every static URL (and what style sheets and the manifest name in turn)."""
    seen: dict[str, Any] = {}
    todo = sorted(urls)
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        status, body, _ = _fetch(client, url)
        seen[url] = (status, len(body))
        if status != 200:
            continue
        if url.endswith(".css"):
            for ref in re.findall(rb"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)", body):
                target = urljoin(url, ref.decode())
                if not target.startswith("data:") and _static(target):
                    todo.append(urlsplit(target).path)
        if url.endswith(".webmanifest"):
            for icon in json.loads(body)["icons"]:
                todo.append(urlsplit(urljoin(url, icon["src"])).path)
    return seen


@pytest.mark.django_db
def test_the_service_worker_answers_and_its_files_exist() -> None:
    client = Client()
    status, body, kind = _fetch(client, "/sw.js")
    assert status == 200, body[:500]
    assert kind.startswith("application/javascript")
    text = body.decode()
    shell = json.loads(re.search(r"var SHELL = (\[.*?\]);", text).group(1))
    assert len(shell) == len(SHELL)
    # Hashed names: a new deploy is a new cache, and the old files are not served stale.
    assert all(re.search(r"\.[0-9a-f]{12}\.", url) for url in shell), shell
    assert f'var STATIC_PREFIX = "{settings.STATIC_URL}"' in text
    fetched = _check_static(client, set(shell))
    assert all(status == 200 and size > 0 for status, size in fetched.values()), fetched


@pytest.mark.django_db
def test_every_page_answers_and_every_static_file_it_names_exists(
    played: Round, cast: dict[str, Any]
) -> None:
    events = events_of_every_kind(played, cast)
    failures: list[tuple[str, str, int]] = []
    named: set[str] = set()
    pages = 0
    for role in ("anonymous", "organizer", "chief", "referee"):
        client = Client(raise_request_exception=False)
        if role != "anonymous":
            client.force_login(cast[role])
        for tournament, table in events:
            for url in site_pages(tournament, table):
                status, body, kind = _fetch(client, url)
                if status >= 500:
                    failures.append((role, url, status))
                if status == 200 and kind.startswith("text/html"):
                    pages += 1
                    named |= _named(url, body)
    assert not failures, failures
    assert pages > 100, pages
    # The pages name the sheet's style, scripts and the manifest at least.
    assert {Path(url).suffix for url in named} >= {".css", ".js", ".webmanifest"}, named
    fetched = _check_static(Client(), named)
    missing = {url: got for url, got in fetched.items() if got[0] != 200 or got[1] == 0}
    assert not missing, missing
    # Every name is the hashed one the manifest storage wrote (a long cache is then safe).
    unhashed = [u for u in named if not re.search(r"\.[0-9a-f]{12}\.\w+$", u)]
    assert not unhashed, unhashed
