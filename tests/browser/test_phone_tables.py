"""Browser flow: the public pairings at phone width (390 px, issue 15): every name whole and
on the screen, no sideways scrolling. Screenshot: docs/screenshots/player-4-pairings-phone.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from pairing import services as pairing_services
from rules.ruleset import preset_settings
from tournaments import services as tournament_services
from tournaments.models import Player

LONG_NAMES = [
    ("欧阳明月", "司马长风"),
    ("上官婉儿", "诸葛青云"),
    ("慕容雪", "端木蓉"),
    ("张伟", "王芳"),
    ("公孙策", "皇甫嵩"),
    ("李娜", "刘洋"),
    ("东方既白", "南宫问天"),
    ("陈静", "杨磊"),
]
UNITS = [("CZ", "常州市掼蛋协会"), ("NJ", "南京队")]


@pytest.fixture
def published(transactional_db: None) -> Any:
    organizer = get_user_model().objects.create_user("organizer", password="pw-organizer-1")
    settings = {**preset_settings("regulation"), "rounds": 5, "seed": 7}
    tournament = tournament_services.create_tournament(
        "2026 常州掼蛋公开赛", "cz-open", organizer, settings=settings
    )
    for code, name in UNITS:
        tournament_services.add_unit(tournament, code, name, organizer)
    for i, names in enumerate(LONG_NAMES):
        tournament_services.register_pair(tournament, list(names), organizer, unit=UNITS[i % 2][0])
    rnd = pairing_services.generate_round(tournament, organizer)
    return pairing_services.publish_round(rnd, organizer)


def test_public_pairings_fit_a_phone(published: Any, phone_page: Any, screenshot: Any) -> None:
    from django.core.cache import cache

    cache.clear()
    page = phone_page
    page.goto(f"/t/{published.tournament.slug}/rounds/{published.number}/")
    table = page.locator("table.pairings")
    assert table.is_visible()
    width = page.evaluate("window.innerWidth")
    scroller = page.evaluate(
        """() => { const s = document.querySelector('.table-scroll');
                   return [s.scrollWidth, s.clientWidth]; }"""
    )
    assert scroller[0] <= scroller[1], f"the pairings scroll sideways: {scroller}"
    boxes = page.evaluate(
        """() => Array.from(document.querySelectorAll('table.pairings .names')).map(n => {
             const r = n.getBoundingClientRect();
             return [n.textContent, r.left, r.right]; })"""
    )
    assert len(boxes) == 8
    for text, left, right in boxes:
        assert 0 <= left and right <= width, (text, left, right, width)
    # Each player's name stays whole (a line may break only at the "/").
    for name in Player.objects.values_list("name", flat=True):
        lines = page.evaluate(
            """name => {
                 const span = Array.from(document.querySelectorAll('table.pairings .names'))
                   .find(n => n.textContent.split('/').includes(name));
                 const text = span.firstChild, start = span.textContent.indexOf(name);
                 const range = document.createRange();
                 range.setStart(text, start); range.setEnd(text, start + name.length);
                 const tops = Array.from(range.getClientRects()).map(r => Math.round(r.top));
                 return new Set(tops).size;
               }""",
            name,
        )
        assert lines == 1, name
    screenshot(page, "player-4-pairings-phone", full_page=False)
