"""Issue 29 finding D, once the offline sheet works in production: a phone passed from hand to
hand. After a referee logs out, the next person must not find the referee's page (their name,
the logout form, a CSRF token) by opening it offline, nor the referee's waiting taps; what the
service worker keeps never holds a CSRF token or the account; the table-side outbox does not
keep the link's secret token.

Runs in the ordinary suite and in the DEBUG=0 leg (scripts/test_production.sh)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from scoring.models import TableEvent
from tests.support.tournament import build_tournament, next_round
from tournaments.models import Table

PAGES = "gt-sheet-pages"


def _table_and_referee() -> tuple[Table, Any]:
    users = get_user_model().objects
    organizer, chief, referee = (
        users.create_user(username=name, password="pw-" + name)
        for name in ("organizer", "chief", "referee-wang")
    )
    tournament = build_tournament(organizer, chief, [referee])
    rnd = next_round(tournament, organizer)
    return rnd.tables.filter(is_bye=False).order_by("number").first(), referee


def _desk(table: Table) -> str:
    return reverse(
        "referee:table", args=[table.round.tournament.slug, table.round.number, table.number]
    )


def _synced(page: Any) -> None:
    expect(page.get_by_test_id("sync-status")).to_contain_text("已同步")


def _kept(page: Any, url: str) -> str | None:
    """The worker's kept copy of ``url`` (its HTML), or None."""
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller")
    found: str | None = page.evaluate(
        """url => caches.open('gt-sheet-pages')
                .then(c => c.match(new URL(url, location.href).href))
                .then(r => r ? r.text() : null)""",
        url,
    )
    return found


def _wait_kept(page: Any, url: str) -> str:
    for _ in range(50):
        kept = _kept(page, url)
        if kept is not None:
            return kept
        page.wait_for_timeout(100)
    raise AssertionError(f"{url} was never kept by the worker")


def _storage(page: Any) -> dict[str, str]:
    return dict(page.evaluate("Object.fromEntries(Object.entries(localStorage))"))


def _tap_offline(page: Any, token: str) -> None:
    page.context.set_offline(True)
    page.context.route("**/event/", lambda route: route.abort("internetdisconnected"))
    page.get_by_test_id(f"tap-{token}").click()
    expect(page.get_by_test_id("sync-status")).to_contain_text("未上传")


def _online(page: Any) -> None:
    page.context.unroute("**/event/")
    page.context.set_offline(False)


def test_the_kept_page_has_no_csrf_token_and_no_account(phone_page: Any, login_as: Any) -> None:
    table, referee = _table_and_referee()
    page = phone_page
    login_as(page, referee)
    page.goto(_desk(table))
    _synced(page)
    live = page.content()
    assert referee.username in live and re.search(r'csrfmiddlewaretoken" value="\w+', live)
    kept = _wait_kept(page, _desk(table))
    assert referee.username not in kept
    assert "data-logout" not in kept
    assert not re.search(r'name="csrfmiddlewaretoken" value="[^"]', kept), "a CSRF token kept"
    assert 'data-testid="tap-NS3"' in kept  # the sheet itself is kept

    # Opened again from the kept copy (offline) and back online, the taps still post: the
    # page takes the CSRF cookie's secret for the token it was kept without.
    page.context.set_offline(True)
    reopened = page.context.new_page()
    response = reopened.goto(_desk(table))
    assert response is not None and response.from_service_worker
    assert referee.username not in reopened.content()
    page.context.set_offline(False)
    reopened.get_by_test_id("tap-NS2").click()
    _synced(reopened)
    assert list(TableEvent.objects.filter(table=table).values_list("token", flat=True)) == ["NS2"]


def test_after_logout_the_next_person_finds_nothing_of_the_referee_offline(
    phone_page: Any, login_as: Any
) -> None:
    table, referee = _table_and_referee()
    page = phone_page
    login_as(page, referee)
    page.goto(_desk(table))
    _synced(page)
    _wait_kept(page, _desk(table))
    page.get_by_test_id("tap-NS2").click()
    _synced(page)
    assert any(key.startswith(f"gt-outbox:u{referee.pk}:") for key in _storage(page))

    page.get_by_test_id("logout").click()
    page.wait_for_url(re.compile(r"^https?://[^/]+/$"))
    assert "登录" in page.content()  # logged out
    assert not any(key.startswith(f"gt-outbox:u{referee.pk}:") for key in _storage(page))
    assert _kept(page, _desk(table)) is None  # the worker's copy is gone

    # The next person, offline, opens the referee's page: the worker has nothing to show.
    page.context.set_offline(True)
    with pytest.raises(Exception, match=r"ERR_INTERNET_DISCONNECTED|ERR_FAILED"):
        page.goto(_desk(table))


def test_logging_out_with_waiting_taps_asks_first(phone_page: Any, login_as: Any) -> None:
    table, referee = _table_and_referee()
    page = phone_page
    login_as(page, referee)
    page.goto(_desk(table))
    _synced(page)
    # The tap cannot reach the server (its address refused), the logout form can.
    page.context.route("**/event/", lambda route: route.abort("internetdisconnected"))
    page.get_by_test_id("tap-NS2").click()
    expect(page.get_by_test_id("sync-status")).to_contain_text("未上传")

    questions: list[str] = []

    def dismiss(dialog: Any) -> None:
        questions.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.get_by_test_id("logout").click()
    page.wait_for_timeout(300)
    assert questions and "1" in questions[0] and "丢弃" in questions[0]
    assert page.get_by_test_id("logout").is_visible()  # still logged in, the tap still waits
    outbox = [v for k, v in _storage(page).items() if k.startswith(f"gt-outbox:u{referee.pk}:")]
    assert len(json.loads(outbox[0])["pending"]) == 1

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("logout").click()
    page.wait_for_url(re.compile(r"^https?://[^/]+/$"))
    assert not any(k.startswith(f"gt-outbox:u{referee.pk}:") for k in _storage(page))


def test_the_table_side_outbox_does_not_keep_the_link_token(phone_page: Any) -> None:
    table, _ = _table_and_referee()
    page = phone_page
    page.goto(f"/table/{table.entry_token}/")
    page.get_by_label("本方对号密码").fill(table.ns.code)
    page.get_by_test_id("identify").click()
    page.get_by_test_id("tap-NS3").wait_for()
    _synced(page)
    _tap_offline(page, "NS2")
    stored = _storage(page)
    assert any(key.startswith("gt-outbox:") for key in stored), stored
    assert not any(
        table.entry_token in key or table.entry_token in value for key, value in stored.items()
    )
    _online(page)
    _synced(page)
