"""Browser flow (4): a player finds their table by name on a phone (issue 5).

Phone viewport (390×844, touch), no login. From the tournament home the player types part of a
name, sees round, table, direction and opponents, opens the pair's page and the standings with
their own row highlighted. Screenshots: docs/screenshots/player-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Q

from pairing import services as pairing_services
from tests.support.tournament import NS_WINS, build_tournament, play_table
from tournaments.models import Pair, Round, Table


@pytest.fixture
def event(transactional_db: None) -> dict[str, Any]:
    """Round 1 finished, round 2 published: what a player sees between rounds."""
    user_model = get_user_model()
    organizer = user_model.objects.create_user("organizer", password="pw-organizer-1")
    chief = user_model.objects.create_user("chief", password="pw-chief-1")
    referee = user_model.objects.create_user("referee", password="pw-referee-1")
    tournament = build_tournament(organizer, chief, [referee], n_pairs=16)
    rnd = pairing_services.publish_round(
        pairing_services.generate_round(tournament, organizer), organizer
    )
    for table in Table.objects.filter(round=rnd, is_bye=False):
        play_table(table, NS_WINS, referee, chief)
    pairing_services.finish_round(rnd, organizer)
    round2 = pairing_services.publish_round(
        pairing_services.generate_round(tournament, organizer), organizer
    )
    return {"tournament": tournament, "round": round2}


def test_player_finds_their_table_on_a_phone(
    event: dict[str, Any], phone_page: Any, screenshot: Any
) -> None:
    from django.core.cache import cache

    cache.clear()
    page = phone_page
    tournament, round2 = event["tournament"], event["round"]
    pair = Pair.objects.get(tournament=tournament, number=2)  # 李娜/刘洋
    table = Table.objects.get(Q(ns=pair) | Q(ew=pair), round=round2)
    opponent = table.ew if table.ns_id == pair.pk else table.ns
    direction = "北" if table.ns_id == pair.pk else "东"  # 李娜 is first: her own seat

    page.goto(f"/t/{tournament.slug}/")
    assert page.get_by_text("第2轮进行中").is_visible()
    screenshot(page, "player-1-home")

    box = page.get_by_label("查找我的座位")
    box.tap()
    box.fill("李娜")
    screenshot(page, "player-2-typing", full_page=False)
    box.press("Enter")
    page.wait_for_url("**/find/?q=*")
    card = page.locator("article.seat-card").first
    text = card.inner_text()
    assert "李娜/刘洋" in text
    assert f"第 {table.number} 桌" in text
    assert card.locator(".my-seat").inner_text() == direction
    assert opponent.player_names in text
    screenshot(page, "player-3-my-table")

    card.get_by_role("link").first.tap()
    page.wait_for_url(f"**/pairs/{pair.number}/")
    assert page.get_by_text("第1轮").first.is_visible()
    screenshot(page, "player-4-my-rounds")

    page.get_by_role("link", name="在名次表中查看").tap()
    page.wait_for_url("**/standings/**")
    mine = page.locator(f"#pair-{pair.number}")
    assert "mine" in (mine.get_attribute("class") or "")
    mine.scroll_into_view_if_needed()
    screenshot(page, "player-5-standings")

    # The phone layout does not scroll sideways as a whole page.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1
    assert Round.objects.filter(tournament=tournament).count() == 2
