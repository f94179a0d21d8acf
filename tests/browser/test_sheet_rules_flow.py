"""Browser flow of issue 12 on the referee sheet (phone viewport): the chief referee records a
本副判负 with its button (the page asks first), the table reaches a level tie under the Jiangsu
preset, the grid offers the extra deal labelled 加打一副, and after it the match is over."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from rules.ruleset import preset_settings
from scoring.models import TableEvent
from tests.support.tournament import build_tournament, next_round

# After lose:NS (EW 2 → 5) these leave the levels tied at 8 : 8 after 8 deals.
TIED = ["lose:NS", "NS3", "NS1", "EW1", "NS1", "EW1", "NS1", "EW1"]


def test_deal_loss_and_the_extra_deal_on_a_phone(phone_page: Any, login_as: Any) -> None:
    page = phone_page
    users = get_user_model().objects
    organizer, chief, ref = (
        users.create_user(username=name, password="pw-" + name)
        for name in ("organizer", "chief", "li_referee")
    )
    settings = {**preset_settings("jiangsu2017"), "rounds": 7, "seed": 20261129}
    tournament = build_tournament(organizer, chief, [ref], settings=settings)
    table = next_round(tournament, organizer).tables.filter(is_bye=False).order_by("number")[0]
    login_as(page, chief)
    page.goto(f"/t/{tournament.slug}/referee/round/1/table/{table.number}/")
    page.get_by_test_id("tap-NS3").wait_for()

    page.get_by_text("犯规 / 本副判负 / 升级调整").click()
    page.once("dialog", lambda dialog: dialog.accept())  # "记录本副判负？…"
    page.get_by_test_id("lose-NS").click()
    expect(page.get_by_test_id("deals")).to_have_text("1/8")
    assert "南北本副判负（东西 +3）" in page.get_by_test_id("sheet").inner_text()
    assert page.get_by_test_id("ew-level").inner_text() == "5"

    for number, token in enumerate(TIED[1:], start=2):
        page.get_by_test_id(f"tap-{token}").click()
        expect(page.get_by_test_id("deals")).to_have_text(f"{number}/8")
    assert (
        page.get_by_test_id("ns-level").inner_text() == page.get_by_test_id("ew-level").inner_text()
    )
    assert "双方级数相同：加打一副决定胜负" in page.get_by_test_id("status-line").inner_text()
    assert page.get_by_test_id("extra-deal").inner_text() == "加打一副"

    page.get_by_test_id("tap-EW2").click()
    page.get_by_text("加打一副后比赛结束").wait_for()
    page.get_by_test_id("submit").wait_for()  # the page's buttons follow the server (issue 16)
    assert page.get_by_test_id("tap-NS3").count() == 0
    assert page.get_by_test_id("submit").count() == 1
    tokens = list(
        TableEvent.objects.filter(table=table).order_by("position").values_list("token", flat=True)
    )
    assert tokens == [*TIED, "EW2"]
