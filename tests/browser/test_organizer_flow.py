"""Browser flow (3): an organizer generates, reviews and publishes a round (issue 5).

Desktop viewport; the organizer logs in through the login form, generates round 2's draft,
reads the engine's reasons, swaps two pairs by hand, publishes, and the public pairings show
the round. Screenshots of every step go to docs/screenshots/organizer-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from pairing import services as pairing_services
from tests.support.tournament import NS_WINS, build_tournament, play_table
from tournaments.models import Round, Table


@pytest.fixture
def event(transactional_db: None) -> dict[str, Any]:
    """8 pairs, round 1 played and finished: the desk is about to pair round 2."""
    user_model = get_user_model()
    organizer = user_model.objects.create_user("organizer", password="pw-organizer-1")
    chief = user_model.objects.create_user("chief", password="pw-chief-1")
    referee = user_model.objects.create_user("referee", password="pw-referee-1")
    tournament = build_tournament(organizer, chief, [referee])
    rnd = pairing_services.publish_round(
        pairing_services.generate_round(tournament, organizer), organizer
    )
    for table in Table.objects.filter(round=rnd, is_bye=False):
        play_table(table, NS_WINS, referee, chief)
    pairing_services.finish_round(rnd, organizer)
    return {"tournament": tournament, "organizer": organizer}


def test_organizer_generates_reviews_and_publishes(
    event: dict[str, Any], desktop_page: Any, screenshot: Any
) -> None:
    from django.core.cache import cache

    cache.clear()
    page = desktop_page
    slug = event["tournament"].slug
    page.goto(f"/accounts/login/?next=/t/{slug}/manage/")
    page.get_by_label("用户名").fill("organizer")
    page.get_by_label("密码").fill("pw-organizer-1")
    screenshot(page, "organizer-1-login")
    page.get_by_role("button", name="登录").click()
    page.wait_for_url(f"**/t/{slug}/manage/")
    screenshot(page, "organizer-2-desk")

    page.get_by_role("link", name="编排与轮次").click()
    page.wait_for_url(f"**/t/{slug}/manage/rounds/")
    screenshot(page, "organizer-3-rounds")
    page.locator("#generate").click()
    page.wait_for_url(f"**/t/{slug}/manage/rounds/2/")
    assert page.locator("#round-status").inner_text() == "草稿"
    assert page.get_by_text("草稿检查").is_visible()
    reasons = page.locator("td.reasons").all_inner_texts()
    assert any("坐南北" in text for text in reasons)  # the engine's reasons, translated
    screenshot(page, "organizer-4-draft")

    rnd = Round.objects.get(tournament=event["tournament"], number=2)
    first, second = Table.objects.filter(round=rnd, is_bye=False).order_by("number")[:2]
    a, b = first.ew.number, second.ew.number
    page.get_by_label("参赛对编号 A").fill(str(a))
    page.get_by_label("参赛对编号 B").fill(str(b))
    page.locator("#swap").click()
    page.wait_for_load_state()
    assert page.get_by_text(f"已交换第{a}对与第{b}对的座位").is_visible()
    assert "编排人员手工调整" in page.locator("#table-1").inner_text()
    screenshot(page, "organizer-5-swapped")

    page.locator("#publish").click()
    page.wait_for_load_state()
    assert page.locator("#round-status").inner_text() == "已公布"
    screenshot(page, "organizer-6-published")

    page.get_by_role("link", name="公开对阵页").click()
    page.wait_for_url(f"**/t/{slug}/rounds/2/")
    assert page.locator("#table-1").is_visible()
    screenshot(page, "organizer-7-public-pairings")
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.PUBLISHED
