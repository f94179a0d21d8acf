"""Issue 11 finding 12: a Content-Security-Policy the pages pass (no inline script, no inline
event handler, no inline style), and ``Cache-Control: no-store`` on every page that shows a pair
code or a table link. (``DEBUG`` off unless set: tests/db/test_deploy.py.)"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from guandan_tourney.middleware import content_security_policy
from tests.support.urls import all_urls
from tournaments.models import Round, Table

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)
STYLE_ATTRIBUTE = re.compile(r"<[^>]+\sstyle\s*=", re.I)
JS_URL = re.compile(r"""(?:href|src|action)\s*=\s*["']\s*javascript:""", re.I)


@pytest.fixture
def superuser(db: Any) -> Any:
    return get_user_model().objects.create_superuser("root-h", "root@example.com", "pw")


def _pages(round1: Round) -> list[tuple[str, str]]:
    table = Table.objects.filter(round=round1, is_bye=False).first()
    skip = ("logout", "set_language", "public:language")
    return [
        (name, url)
        for name, url in all_urls(round1.tournament.slug, table.entry_token)
        if not name.endswith(skip) and not name.startswith("admin:")
    ]


def test_the_policy_forbids_inline_script() -> None:
    policy = content_security_policy()
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    # The self-contained error pages' <style> blocks are allowed by hash, nothing else inline.
    assert directives["style-src"].count("'sha256-") >= 1


def test_every_page_has_the_policy_and_no_inline_script(
    round1: Round, cast: dict[str, Any], superuser: Any
) -> None:
    problems = []
    for user in (None, cast["organizer"], superuser):
        client = Client()
        client.raise_request_exception = False
        if user is not None:
            client.force_login(user)
        for name, url in _pages(round1):
            response = client.get(url)
            if response.status_code >= 500:
                problems.append((name, url, response.status_code))
                continue
            if "Content-Security-Policy" not in response:
                problems.append((name, url, "no CSP"))
            if "text/html" not in response.get("Content-Type", ""):
                continue
            html = response.content.decode("utf-8", "replace")
            for label, pattern in (
                ("inline script", INLINE_SCRIPT),
                ("event handler", EVENT_HANDLER),
                ("style attribute", STYLE_ATTRIBUTE),
                ("javascript: URL", JS_URL),
            ):
                found = pattern.search(html)
                if found:
                    problems.append((name, url, label, found.group(0)[:80]))
    assert not problems, problems


def test_pages_with_codes_or_links_are_not_stored(round1: Round, cast: dict[str, Any]) -> None:
    tournament = round1.tournament
    slug = tournament.slug
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    organizer = Client()
    organizer.force_login(cast["organizer"])
    chief = Client()
    chief.force_login(cast["chief"])
    pages = [
        (organizer, reverse("tournaments:pairs", args=[slug])),
        (organizer, reverse("tournaments:pair_edit", args=[slug, table.ns.number])),
        (organizer, reverse("reports:index", args=[slug])),
        (organizer, reverse("reports:document", args=[slug, "scoresheets"]) + "?round=1"),
        (organizer, reverse("pairing:control", args=[slug])),
        (chief, reverse("referee:dashboard", args=[slug]) + "?all=1"),
        (chief, reverse("referee:round_dashboard", args=[slug, 1])),
        (chief, reverse("referee:table", args=[slug, 1, table.number])),
        (Client(), reverse("tableside:tableside", args=[table.entry_token])),
    ]
    for client, url in pages:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        assert "no-store" in response.get("Cache-Control", ""), url
        assert "private" in response.get("Cache-Control", ""), url


def test_public_pages_may_still_be_cached(round1: Round) -> None:
    response = Client().get(reverse("public:standings", args=[round1.tournament.slug]))
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")
