"""Issue 29 finding D's acceptance in Chromium: with production's settings (``DEBUG=0``, the
manifest storage, whitenoise serving ``collectstatic``'s files) the offline sheet's service
worker installs, keeps the sheet's hashed files and the page, and opens the page offline.
Before the fix ``/sw.js`` answered 500 there and the worker never installed."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client

from tests.support.tournament import build_tournament, next_round

pytestmark = pytest.mark.skipif(
    "Manifest" not in settings.STORAGES["staticfiles"]["BACKEND"],
    reason="DEBUG=0 leg only: scripts/test_production.sh runs it",
)


def test_the_offline_sheets_worker_installs_in_production(phone_page: Any) -> None:
    users = get_user_model().objects
    organizer, chief, referee = (
        users.create_user(username=name, password="pw-" + name)
        for name in ("organizer", "chief", "referee")
    )
    rnd = next_round(build_tournament(organizer, chief, [referee]), organizer)
    table = rnd.tables.filter(is_bye=False).order_by("number").first()
    url = f"/table/{table.entry_token}/"
    worker = Client().get("/sw.js")
    assert worker.status_code == 200
    shell = json.loads(re.search(r"var SHELL = (\[.*?\]);", worker.content.decode()).group(1))

    page = phone_page
    page.goto(url)
    page.get_by_label("本方对号密码").fill(table.ns.code)  # the sheet (and its script) …
    page.get_by_test_id("identify").click()
    page.get_by_test_id("tap-NS3").wait_for()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")  # … its worker
    state = page.evaluate("navigator.serviceWorker.ready.then(r => r.active.state)")
    assert state == "activated"
    kept = page.evaluate(
        """() => caches.keys().then(names => Promise.all(names
            .filter(n => n.startsWith('gt-sheet-shell-'))
            .map(n => caches.open(n).then(c => c.keys()))))
            .then(lists => lists.flat().map(r => new URL(r.url).pathname))"""
    )
    assert set(shell) <= set(kept), (shell, kept)
    kept_page = """u => caches.open('gt-sheet-pages')
        .then(c => c.match(new URL(u, location.href).href)).then(r => !!r)"""
    for _ in range(100):  # the worker keeps the page it was first opened on
        if page.evaluate(kept_page, url):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the worker never kept the sheet page")
    page.context.set_offline(True)
    response = page.reload()
    assert response is not None and response.from_service_worker
    assert page.get_by_test_id("tap-NS3").is_visible()  # the sheet …
    styled = page.evaluate(
        """() => [...document.styleSheets].filter(s => s.href && s.cssRules.length > 0)
                 .map(s => new URL(s.href).pathname)"""
    )
    assert any(re.search(r"/css/site\.[0-9a-f]{12}\.css$", p) for p in styled), styled  # … styled
