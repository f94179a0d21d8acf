"""The live bracket of a knockout in three stages with a repechage (seed 001's 初赛/复赛/决赛 and
附加赛; the hand-computed ``knockout-stages.json``) in a browser: every knockout stage shown, the
repechage round marked (dashed), on a projector and on a phone (scrolled sideways). Screenshots
``docs/screenshots/stages-7-repechage*.png`` (the README tour)."""

from __future__ import annotations

from typing import Any

from reports.fileio import import_tournament
from tests.support.stages import load


def test_bracket_page_shows_the_three_knockout_stages_and_the_repechage(
    desktop_page: Any, phone_page: Any, screenshot: Any
) -> None:
    import_tournament(load("knockout-stages.json"), slug="ks-cup")
    for page in (desktop_page, phone_page):
        page.goto("/t/ks-cup/bracket/")
        for stage in (1, 2, 3):
            page.get_by_test_id(f"bracket-stage-{stage}").wait_for()
        repechage = page.get_by_test_id("repechage-round")
        assert repechage.count() == 1
        assert repechage.get_by_role("heading").inner_text().startswith("附加赛")
        match = repechage.get_by_test_id("bracket-match").first
        assert match.evaluate("e => getComputedStyle(e).borderTopStyle") == "dashed"
        assert repechage.get_by_test_id("bracket-match").count() == 3
    screenshot(desktop_page, "stages-7-repechage")
    screenshot(phone_page, "stages-8-repechage-phone", full_page=False)
    first = phone_page.get_by_test_id("bracket-stage-1").get_by_test_id("bracket")
    assert first.evaluate("e => e.scrollWidth > e.clientWidth")  # scrolled sideways
