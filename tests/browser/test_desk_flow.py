"""Browser flows of issue 15 for the chief referee and the desk: a chief correcting deal 5 by
tapping; the desk refreshing itself without losing the referee's filter, and its jump box; the
round clock of a timed format on the projector ("最后一副", "时间到"); a correction after the
deadline, by the chief referee's override (RULES.md §7).
Screenshots: docs/screenshots/correction-*.png, desk-*.png, projector-clock.png.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from scoring import services as scoring_services
from scoring.models import TableEvent
from tests.support.tournament import build_tournament, enter_tokens, next_round
from tournaments.models import Round, Tournament

EIGHT = ["NS3", "EW2", "NS2", "NS1", "EW3", "EW1", "NS3", "NS2"]


def _cast() -> tuple[Any, Any, Any, Any]:
    users = get_user_model().objects
    return tuple(  # type: ignore[return-value]
        users.create_user(username=name, password="pw-" + name)
        for name in ("organizer", "chief", "li_referee", "wang_referee")
    )


def test_chief_corrects_deal_5_by_tapping(phone_page: Any, login_as: Any, screenshot: Any) -> None:
    page = phone_page
    organizer, chief, ref, ref2 = _cast()
    tournament = build_tournament(organizer, chief, [ref, ref2])
    table = next_round(tournament, organizer).tables.filter(is_bye=False).order_by("number")[0]
    table = enter_tokens(table, EIGHT, ref)
    scoring_services.confirm_table(table, ref2, table.version)
    login_as(page, chief)
    page.goto(f"/t/{tournament.slug}/referee/round/1/table/{table.number}/")
    page.get_by_test_id("locked").wait_for()
    screenshot(page, "correction-1-confirmed", full_page=False)

    # Deal 5 was entered as 东西上游 对家二游; it was 对家三游.
    page.get_by_test_id("fix-5").click()
    assert "更正第5副" in page.get_by_test_id("fixing").inner_text()
    page.get_by_test_id("fix-reason").fill("第5副东西对家是三游，录成了二游")
    page.get_by_test_id("fixing").scroll_into_view_if_needed()
    screenshot(page, "correction-2-deal-5", full_page=False)
    page.get_by_test_id("fix-tap-EW2").click()

    history = page.get_by_test_id("history")
    history.get_by_text("第5副：东西上游 对家二游 → 对家三游").wait_for()
    assert "原因：第5副东西对家是三游" in history.inner_text()
    corrected_by = page.get_by_test_id("corrected-by").inner_text()
    assert "chief" in corrected_by and "第5副东西对家是三游，录成了二游" in corrected_by
    assert page.get_by_test_id("table-status").inner_text() == "已更正"
    screenshot(page, "correction-3-corrected")
    tokens = list(
        TableEvent.objects.filter(table=table).order_by("position").values_list("token", flat=True)
    )
    assert tokens == [*EIGHT[:4], "EW2", *EIGHT[5:]]

    # A tap without a reason is stopped by the browser (the field is required): nothing posted.
    page.get_by_test_id("fix-3").click()
    page.get_by_test_id("fix-tap-EW1").click()
    assert page.get_by_test_id("fixing").is_visible()
    assert TableEvent.objects.get(table=table, position=2).token == "NS2"


def test_after_the_deadline_only_the_chiefs_override_corrects(
    phone_page: Any, login_as: Any, screenshot: Any
) -> None:
    """RULES.md §7: after the deadlines a correction is refused with the reason; the chief
    ticks the override, and the history says the deadline had passed and who decided."""
    from pairing import services as pairing_services

    page = phone_page
    organizer, chief, ref, ref2 = _cast()
    tournament = build_tournament(organizer, chief, [ref, ref2], n_pairs=2)
    rnd = next_round(tournament, organizer)
    table = rnd.tables.filter(is_bye=False)[0]
    table = enter_tokens(table, EIGHT, ref)
    scoring_services.confirm_table(table, ref2, table.version)
    pairing_services.finish_round(rnd, organizer)
    # The round ended 40 minutes ago and the event with it: both deadlines have passed.
    Round.objects.filter(pk=rnd.pk).update(finished_at=timezone.now() - timedelta(minutes=40))
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    login_as(page, chief)
    page.goto(f"/t/{tournament.slug}/referee/round/1/table/{table.number}/")
    deadline = page.get_by_test_id("correction-deadline").inner_text()
    assert deadline == "更正期限已过，仅裁判长可更正"
    page.get_by_test_id("fix-5").click()
    page.get_by_test_id("fix-reason").fill("第5副东西对家是三游")
    page.get_by_test_id("fix-tap-EW2").click()
    page.get_by_text("更正期限已过，仅裁判长可决定超过期限更正").wait_for()
    assert TableEvent.objects.get(table=table, position=4).token == "EW3"

    page.get_by_test_id("fix-5").click()
    page.get_by_test_id("fix-reason").fill("第5副东西对家是三游，裁判长决定更正")
    page.get_by_test_id("override").first.check()
    page.get_by_test_id("fixing").scroll_into_view_if_needed()
    screenshot(page, "correction-4-deadline-override", full_page=False)
    page.get_by_test_id("fix-tap-EW2").click()
    history = page.get_by_test_id("history")
    history.get_by_text("由裁判长 chief 决定更正", exact=False).wait_for()
    assert TableEvent.objects.get(table=table, position=4).token == "EW2"


def test_the_desk_refreshes_itself_and_keeps_the_filter(
    desktop_page: Any, login_as: Any, screenshot: Any
) -> None:
    page = desktop_page
    organizer, chief, ref, ref2 = _cast()
    tournament = build_tournament(organizer, chief, [ref, ref2], n_pairs=16)
    rnd = next_round(tournament, organizer)
    tables = list(rnd.tables.filter(is_bye=False).order_by("number"))
    login_as(page, ref)
    page.clock.install()
    page.goto(f"/t/{tournament.slug}/referee/round/1/?show=unconfirmed")
    stamp = page.get_attribute("#desk-live", "data-stamp")
    assert "0/8 已确认" in page.get_by_test_id("progress").inner_text()

    # Another referee confirms table 3 meanwhile: within one poll the desk shows it, same filter.
    done = enter_tokens(tables[2], EIGHT, ref2)
    scoring_services.confirm_table(done, ref, done.version)
    page.clock.run_for(16_000)
    page.wait_for_function(
        "stamp => document.getElementById('desk-live').dataset.stamp !== stamp", arg=stamp
    )
    assert "1/8 已确认" in page.get_by_test_id("progress").inner_text()
    assert page.get_by_test_id(f"table-{tables[2].number}").count() == 0  # filtered out
    assert page.url.endswith("?show=unconfirmed")
    screenshot(page, "desk-1-refreshed", full_page=False)

    # The jump box opens a table by its number.
    page.get_by_label("跳到第几桌").fill(str(tables[5].number))
    page.get_by_label("跳到第几桌").press("Enter")
    page.get_by_test_id("tap-NS3").wait_for()
    assert page.url.endswith(f"/table/{tables[5].number}/")
    page.go_back()
    page.get_by_label("跳到第几桌").fill("99")
    page.get_by_label("跳到第几桌").press("Enter")
    page.get_by_text("本轮没有第99桌").wait_for()
    assert page.url.endswith("?show=unconfirmed")


def test_timed_round_clock_on_the_desk_and_the_projector(
    browser: Any, live_server: Any, transactional_db: None, login_as: Any, screenshot: Any
) -> None:
    organizer, chief, ref, ref2 = _cast()
    tournament = build_tournament(organizer, chief, [ref, ref2], n_pairs=16)
    Tournament.objects.filter(pk=tournament.pk).update(
        settings={**tournament.settings, "round_format": "timed_deals"}
    )
    tournament.refresh_from_db()
    rnd = next_round(tournament, organizer)
    context = browser.new_context(
        viewport={"width": 1280, "height": 720}, locale="zh-CN", base_url=live_server.url
    )
    try:
        page = context.new_page()
        login_as(page, chief)
        page.goto(f"/t/{tournament.slug}/referee/round/1/")
        assert page.get_by_test_id("clock").count() == 0
        page.get_by_label("本轮时长（分钟）").fill("64")
        page.get_by_test_id("start-round-button").click()
        page.get_by_test_id("clock").wait_for()
        assert "64:00" in page.get_by_test_id("clock").inner_text() or "63:5" in (
            page.get_by_test_id("clock").inner_text()
        )
        screenshot(page, "desk-2-round-clock", full_page=False)

        # On the projector, 8:05 before the end: the clock counts down in the browser and says
        # "最后一副" at 8:00 (the projector moves to its next page after 12 s: stay under it).
        def started(before_end: timedelta) -> None:
            started_at = timezone.now() - timedelta(minutes=64) + before_end
            Round.objects.filter(pk=rnd.pk).update(started_at=started_at)

        started(timedelta(minutes=8, seconds=5))
        page.clock.install()
        page.goto(f"/t/{tournament.slug}/projector/?show=pairings")
        clock = page.get_by_test_id("clock")
        assert "最后一副" not in clock.inner_text() and "08:0" in clock.inner_text()
        page.clock.run_for(10_000)
        page.wait_for_function(
            "() => document.querySelector('[data-clock-warning]').textContent === '最后一副'"
        )
        assert "07:5" in clock.inner_text()
        screenshot(page, "projector-clock", full_page=False)
        started(timedelta(seconds=5))
        page.goto(f"/t/{tournament.slug}/projector/?show=pairings")
        page.clock.run_for(10_000)
        page.wait_for_function(
            "() => document.querySelector('[data-clock-warning]').textContent === '时间到'"
        )
        assert "00:00" in clock.inner_text()
    finally:
        context.close()
    rnd.refresh_from_db()
    assert rnd.minutes == 64 and rnd.started_at is not None
