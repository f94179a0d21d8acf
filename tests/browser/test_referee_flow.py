"""Browser flow (1) of issue 5: a referee enters all 8 deals of a table on a phone-sized
viewport, another referee confirms. Screenshots of each step: ``docs/screenshots/referee-*.png``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from scoring.models import TableEvent
from tests.support.tournament import build_tournament, next_round
from tournaments.models import Table

DEALS = ["NS3", "EW2", "NS2", "NS1", "EW3", "EW1", "NS3", "NS2"]


def _setup() -> tuple[Any, Any, Any, Table]:
    users = get_user_model().objects
    organizer, chief, ref, ref2 = (
        users.create_user(username=name, password="pw-" + name)
        for name in ("organizer", "chief", "li_referee", "wang_referee")
    )
    tournament = build_tournament(organizer, chief, [ref, ref2])
    rnd = next_round(tournament, organizer)
    return chief, ref, ref2, rnd.tables.filter(is_bye=False).order_by("number").first()


def test_referee_enters_eight_deals_and_another_confirms(
    phone_page: Any, login_as: Any, screenshot: Any
) -> None:
    page = phone_page
    chief, ref, ref2, table = _setup()
    slug = table.round.tournament.slug
    login_as(page, ref)

    page.goto(f"/t/{slug}/referee/")  # the current round's dashboard
    page.get_by_test_id("progress").wait_for()
    assert "0/4 已确认" in page.get_by_test_id("progress").inner_text()
    screenshot(page, "referee-1-dashboard")

    page.get_by_test_id(f"table-{table.number}").click()
    page.get_by_test_id("tap-NS3").wait_for()
    screenshot(page, "referee-2-empty-sheet")

    for number, token in enumerate(DEALS[:3], start=1):
        page.get_by_test_id(f"tap-{token}").click()
        expect(page.get_by_test_id("deals")).to_have_text(f"{number}/8")
    # Sheet after three deals: NS 2→5, EW 2→4 (played at 5), NS 5→7 (played at 4).
    assert page.get_by_test_id("ns-level").inner_text() == "7"
    assert page.get_by_test_id("ew-level").inner_text() == "4"
    assert page.get_by_test_id("next-level").inner_text() == "7"
    screenshot(page, "referee-3-three-deals", full_page=False)

    # A slip of the thumb, undone (the JS asks first).
    page.get_by_test_id("tap-EW1").click()
    expect(page.get_by_test_id("deals")).to_have_text("4/8")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("undo").click()
    expect(page.get_by_test_id("deals")).to_have_text("3/8")

    for number, token in enumerate(DEALS[3:], start=4):
        page.get_by_test_id(f"tap-{token}").click()
        expect(page.get_by_test_id("deals")).to_have_text(f"{number}/8")
    assert "8副已打完" in page.get_by_test_id("status-line").inner_text()
    # The tap updates the sheet at once; the page's buttons follow the server's answer (issue 16).
    page.get_by_test_id("submit").wait_for()
    assert page.get_by_test_id("tap-NS3").count() == 0
    screenshot(page, "referee-4-eight-deals")

    page.get_by_test_id("submit").click()
    # The same referee is not offered "confirm": another referee must confirm (RULES.md §7).
    page.get_by_text("确认须由录入人以外的另一名裁判完成").wait_for()
    assert page.get_by_test_id("confirm").count() == 0
    screenshot(page, "referee-5-same-person-refused", full_page=False)

    page.context.clear_cookies()
    login_as(page, ref2)
    page.goto(f"/t/{slug}/referee/round/1/table/{table.number}/")
    page.get_by_test_id("confirm").click()
    page.get_by_test_id("locked").wait_for()
    screenshot(page, "referee-6-confirmed")

    page.goto(f"/t/{slug}/referee/round/1/?show=unconfirmed")
    assert "1/4 已确认" in page.get_by_test_id("progress").inner_text()
    screenshot(page, "referee-7-dashboard-after")

    table.refresh_from_db()
    assert table.entry_status == "confirmed" and table.confirmed_by == ref2
    tokens = TableEvent.objects.filter(table=table).order_by("position")
    assert [e.token for e in tokens] == DEALS

    # The chief referee corrects the confirmed sheet by tapping deal 8, with a reason, visible in
    # the history as a sentence (the whole correction flow: tests/browser/test_desk_flow.py).
    page.context.clear_cookies()
    login_as(page, chief)
    page.goto(f"/t/{slug}/referee/round/1/table/{table.number}/")
    page.get_by_test_id("fix-8").click()
    corrected = [*DEALS[:-1], "NS3"]
    page.get_by_test_id("fix-reason").fill("第8副南北对家是二游，录成了三游")
    page.get_by_test_id("fix-tap-NS3").click()
    page.get_by_test_id("history").get_by_text("第8副南北对家是二游").wait_for()
    screenshot(page, "referee-8-corrected")
    tokens = TableEvent.objects.filter(table=table).order_by("position")
    assert [e.token for e in tokens] == corrected


def test_the_tab_bar_fits_a_phone(phone_page: Any, login_as: Any, tmp_path: Any) -> None:
    """390 px wide: every tab of the tournament (the organizer's staff tabs too) is on the
    screen — the bar wraps instead of running off the right edge (名次 was cut off)."""
    page = phone_page
    _chief, ref, _ref2, table = _setup()
    organizer = get_user_model().objects.get(username="organizer")
    slug = table.round.tournament.slug
    for user, path in ((ref, f"/t/{slug}/referee/round/1/"), (organizer, f"/t/{slug}/")):
        page.context.clear_cookies()
        login_as(page, user)
        page.goto(path)
        tabs = page.locator("nav.tabs a")
        assert tabs.count() >= 5
        width = page.evaluate("document.documentElement.clientWidth")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        for i in range(tabs.count()):
            box = tabs.nth(i).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (
                tabs.nth(i).inner_text(),
                box,
            )
        assert tabs.filter(has_text="名次").is_visible()
        page.screenshot(path=str(tmp_path / f"tabs-phone-{user.username}.png"))
