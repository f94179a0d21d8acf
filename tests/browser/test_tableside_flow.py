"""Browser flow (2) of issue 5: table-side entry by South through the table's secret link (the
North–South pair's code typed once) and confirmation by West with the East–West pair's code
(RULES.md §7, issue 11: both pairs have a say). Screenshots:
``docs/screenshots/tableside-*.png``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.support.tournament import build_tournament, next_round
from tournaments.models import Table

DEALS = ["EW3", "EW2", "NS3", "EW1", "NS2", "EW3", "NS1", "EW2"]


def _table() -> Table:
    users = get_user_model().objects
    organizer, chief, ref = (
        users.create_user(username=name, password="pw-" + name)
        for name in ("organizer", "chief", "referee")
    )
    tournament = build_tournament(organizer, chief, [ref])
    rnd = next_round(tournament, organizer)
    return rnd.tables.filter(is_bye=False).order_by("number").first()


def _deals_are(page: Any, text: str) -> None:
    expect(page.get_by_test_id("deals")).to_have_text(f"{text}")


def test_south_enters_and_west_confirms_with_the_pair_code(
    phone_page: Any, screenshot: Any
) -> None:
    page = phone_page
    table = _table()
    page.goto(f"/table/{table.entry_token}/")
    page.get_by_label("本方对号密码").fill(table.ns.code)
    page.get_by_test_id("identify").click()
    page.get_by_test_id("tap-NS3").wait_for()
    screenshot(page, "tableside-1-start")

    for number, token in enumerate(DEALS[:4], start=1):
        page.get_by_test_id(f"tap-{token}").click()
        _deals_are(page, f"{number}/8")
    screenshot(page, "tableside-2-four-deals", full_page=False)

    for number, token in enumerate(DEALS[4:], start=5):
        page.get_by_test_id(f"tap-{token}").click()
        _deals_are(page, f"{number}/8")
    screenshot(page, "tableside-3-eight-deals")

    page.get_by_test_id("submit").click()
    page.get_by_label("本方对号密码").wait_for()
    page.get_by_label("本方对号密码").fill("ZZZZZZ" if table.ew.code != "ZZZZZZ" else "YYYYYY")
    page.get_by_test_id("confirm").click()
    page.locator(".messages li.error").wait_for()
    assert "密码不正确" in page.locator(".messages").inner_text()
    screenshot(page, "tableside-4-west-confirms", full_page=False)

    page.get_by_label("本方对号密码").fill(table.ew.code.lower())
    page.get_by_test_id("confirm").click()
    page.get_by_test_id("locked").wait_for()
    assert page.get_by_test_id("tap-NS3").count() == 0
    screenshot(page, "tableside-5-locked")

    table.refresh_from_db()
    assert table.entry_status == "confirmed" and table.confirmed_via == "table"
