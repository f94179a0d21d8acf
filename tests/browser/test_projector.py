"""Browser flow: the projector shows every table of a 40-table round, and every standings row,
within one cycle at 1280×720 and 1920×1080 (issue 15). The rows per screen are measured by
``static/js/projector.js``; the page clock is driven by Playwright so a cycle takes no real time.
Screenshots: docs/screenshots/projector-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from pairing import services as pairing_services
from tests.support.tournament import build_tournament
from tournaments.models import Table

SIZES = [(1280, 720), (1920, 1080)]


@pytest.fixture
def big_round(transactional_db: None) -> Any:
    """80 pairs, round 1 published: 40 tables."""
    user_model = get_user_model()
    organizer = user_model.objects.create_user("organizer", password="pw-organizer-1")
    chief = user_model.objects.create_user("chief", password="pw-chief-1")
    tournament = build_tournament(organizer, chief, [], n_pairs=80)
    rnd = pairing_services.generate_round(tournament, organizer)
    return pairing_services.publish_round(rnd, organizer)


def _cycle(page: Any, key: str) -> tuple[list[str], int]:
    """Every screenful of one cycle: the rows shown (``data-<key>``), each checked to be fully
    on the screen. Returns the rows in order of appearance and the number of screens."""
    seconds = int(page.get_attribute("#proj", "data-seconds"))
    pages = int(page.get_attribute("#proj", "data-pages"))
    height = page.evaluate("window.innerHeight")
    seen: list[str] = []
    for number in range(1, pages + 1):
        assert page.get_attribute("#proj", "data-page") == str(number)
        visible = page.evaluate(
            """key => Array.from(document.querySelectorAll('#proj tbody tr'))
                 .filter(r => !r.hidden)
                 .map(r => [r.dataset[key], r.getBoundingClientRect().top,
                            r.getBoundingClientRect().bottom])""",
            key,
        )
        assert visible, f"screen {number} of {pages} is empty"
        for row, top, bottom in visible:
            assert 0 <= top and bottom <= height, (row, top, bottom, height)
        seen.extend(row for row, _top, _bottom in visible)
        if number < pages:
            page.clock.run_for(seconds * 1000)
    return seen, pages


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_projector_shows_every_table_and_row_in_one_cycle(
    big_round: Any, browser: Any, live_server: Any, screenshot: Any, width: int, height: int
) -> None:
    from django.core.cache import cache

    cache.clear()
    slug = big_round.tournament.slug
    tables = list(
        Table.objects.filter(round=big_round).order_by("number").values_list("number", flat=True)
    )
    assert len(tables) == 40
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="zh-CN", base_url=live_server.url
    )
    try:
        page = context.new_page()
        page.clock.install()
        page.goto(f"/t/{slug}/projector/?show=pairings")
        seen, pages = _cycle(page, "table")
        assert seen == [str(n) for n in tables], "each table exactly once, in order"
        assert pages > 1
        page.clock.run_for(0)
        page.goto(f"/t/{slug}/projector/?show=pairings")
        screenshot(page, f"projector-pairings-{width}x{height}", full_page=False)

        page.goto(f"/t/{slug}/projector/?show=standings")
        seen, _pages = _cycle(page, "pair")
        assert sorted(map(int, seen)) == list(range(1, 81)) and len(seen) == 80
        page.goto(f"/t/{slug}/projector/?show=standings")
        screenshot(page, f"projector-standings-{width}x{height}", full_page=False)
    finally:
        context.close()
