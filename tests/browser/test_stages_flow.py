"""Browser flow of issue 14 (RULES.md §8): the organizer sets up the stages of a small event
(one Swiss round, then the top 4 in a best-of-three knockout), the qualifiers appear when the
Swiss stage ends, the knockout starts; a referee enters a semi-final on a phone — game 1, game 2
from 2 : 2 ending level, the extra deal — another referee confirms, and the public bracket shows
the result. Screenshots: ``docs/screenshots/stages-*.png``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from pairing import services as pairing_services
from scoring import services as scoring_services
from tests.support.tournament import build_tournament, play_round
from tournaments.models import Round, Table


def _people() -> dict[str, Any]:
    users = get_user_model().objects
    return {
        name: users.create_user(username=name, password="pw-" + name)
        for name in ("organizer", "chief", "li_referee", "wang_referee")
    }


def _fill_stage(page: Any, index: int, values: dict[str, str]) -> None:
    for name, value in values.items():
        field = page.locator(f"[name=form-{index}-{name}]")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        elif field.get_attribute("type") == "checkbox":
            field.check()
        else:
            field.fill(value)


def _tap(page: Any, token: str) -> None:
    """One deal, as a referee enters it: tapped, synced, and the next deal not within the
    outbox's double-tap window (live-sheet.js DOUBLE_TAP_MS, 600 ms: two taps of the same
    button closer than that are one deal)."""
    page.get_by_test_id(f"tap-{token}").click()
    expect(page.get_by_test_id("sync-status")).to_have_text("已同步")
    page.wait_for_timeout(650)


def test_organizer_sets_up_stages_and_a_referee_enters_a_best_of_three_semi_final(
    desktop_page: Any, phone_page: Any, login_as: Any, screenshot: Any
) -> None:
    people = _people()
    tournament = build_tournament(
        people["organizer"],
        people["chief"],
        [people["li_referee"], people["wang_referee"]],
        n_pairs=6,
        slug="stages-cup",
    )
    page = desktop_page
    login_as(page, people["organizer"])

    # 1. The organizer adds the stages on the stages page (one row at a time).
    page.goto("/t/stages-cup/manage/rounds/")
    page.locator("#stages-link").click()
    _fill_stage(page, 0, {"kind": "swiss", "rounds": "1"})
    page.locator("#save-stages").click()
    page.get_by_test_id("stage-form-2").wait_for()
    _fill_stage(
        page,
        1,
        {"kind": "knockout", "entrants": "4", "best_of": "3", "deals_per_round": "2"},
    )
    page.locator("#save-stages").click()
    page.get_by_test_id("stage-rows").wait_for()
    assert "淘汰赛" in page.get_by_test_id("stage-rows").inner_text()
    screenshot(page, "stages-1-setup")

    # 2. The Swiss round is played; its qualifiers appear; the organizer starts the knockout.
    tournament.refresh_from_db()
    assert tournament.rules.stage(2).games == 3
    rnd = pairing_services.publish_round(
        pairing_services.generate_round(tournament, people["organizer"]), people["organizer"]
    )
    play_round(rnd, people["li_referee"], people["wang_referee"])
    pairing_services.finish_round(rnd, people["organizer"])
    page.reload()
    qualifiers = page.get_by_test_id("qualifiers")
    assert qualifiers.locator("li").count() == 4
    screenshot(page, "stages-2-qualifiers")
    page.locator("#start-stage").click()
    page.locator("#publish").click()
    page.wait_for_load_state("load")
    semi = Round.objects.get(tournament=tournament, number=2)
    assert semi.stage == 2 and semi.status == Round.Status.PUBLISHED

    # 3. A referee enters semi-final 1 on a phone: game 1 (8 : 2), game 2 level at 4 : 4 after
    # its two deals, the extra deal offered and played.
    phone = phone_page
    login_as(phone, people["li_referee"])
    phone.goto("/t/stages-cup/referee/round/2/table/1/")
    phone.get_by_test_id("match-state").wait_for()
    for token in ("NS3", "NS3", "EW2", "NS2"):
        _tap(phone, token)
    phone.get_by_test_id("extra-deal").wait_for()
    assert phone.get_by_test_id("ns-games").inner_text() == "1"
    screenshot(phone, "stages-3-extra-deal", full_page=False)
    _tap(phone, "NS1")
    assert phone.get_by_test_id("ns-games").inner_text() == "2"
    phone.get_by_test_id("submit").click()
    phone.wait_for_load_state("load")
    screenshot(phone, "stages-4-match-decided", full_page=False)
    table = Table.objects.get(round=semi, number=1)
    scoring_services.confirm_table(table, people["wang_referee"], table.version)

    # 4. The public bracket: the semi-final decided, games 8:2 and 5:4, the final to come.
    page.goto("/t/stages-cup/bracket/")
    match = page.get_by_test_id("bracket-match").first
    assert "8:2" in match.inner_text() and "5:4" in match.inner_text()
    assert match.locator(".bracket-side.won").count() == 1
    screenshot(page, "stages-5-bracket")
    phone.goto("/t/stages-cup/bracket/")
    phone.get_by_test_id("bracket").wait_for()
    screenshot(phone, "stages-6-bracket-phone", full_page=False)
