"""Browser flow (issue 13): a team event from the organizer's Excel sheet to the team standings.

Desktop viewport. The organizer creates a team event (团体赛) from the create form, imports 12
teams from a team sheet, sets a team's line-up (出场名单), generates and publishes round 1; two
referees enter and confirm both tables of match 1 (each confirms what the other entered); the
desk shows the match's combined result and the public team standings count it. Screenshots go to
docs/screenshots/team-*.png.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from tests.support.team_event import team_rows, team_sheet
from tournaments import services as tournament_services
from tournaments.models import LineUp, Round, Table, Team, Tournament

SLUG = "team-cup"
# Four deals a round; each table: NS 2→5→7→8→10 (NS3, NS2, NS1, NS2), EW stays at 2.
DEALS = ["NS3", "NS2", "NS1", "NS2"]


@pytest.fixture
def cast(transactional_db: None) -> dict[str, Any]:
    users = get_user_model().objects
    organizer = users.create_user("organizer", password="pw-organizer-1")
    organizer.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    return {
        "organizer": organizer,
        "referee": users.create_user("referee", password="pw-referee-1"),
        "referee2": users.create_user("referee2", password="pw-referee-2"),
    }


def _tap(page: Any, slug: str, table: int) -> None:
    page.goto(f"/t/{slug}/referee/round/1/table/{table}/")
    for number, token in enumerate(DEALS, start=1):
        page.get_by_test_id(f"tap-{token}").click()
        expect(page.get_by_test_id("deals")).to_have_text(f"{number}/4")
    page.get_by_test_id("submit").click()
    page.get_by_text("确认须由录入人以外的另一名裁判完成").wait_for()


def _confirm(page: Any, slug: str, table: int) -> None:
    page.goto(f"/t/{slug}/referee/round/1/table/{table}/")
    page.get_by_test_id("confirm").click()
    page.get_by_test_id("locked").wait_for()


def test_a_team_event_from_the_sheet_to_the_standings(
    cast: dict[str, Any], desktop_page: Any, login_as: Any, screenshot: Any, tmp_path: Any
) -> None:
    from django.core.cache import cache

    cache.clear()
    page = desktop_page
    login_as(page, cast["organizer"])

    # 1. The organizer creates the team event.
    page.goto("/new/")
    page.get_by_label("赛事名称").fill("2026 单位掼蛋团体赛")
    page.get_by_label("网址标识").fill(SLUG)
    page.get_by_label("比赛项目").select_option("teams")
    page.get_by_label("每轮副数").fill("4")
    page.locator("form button[type=submit]").last.click()
    page.wait_for_url(f"**/t/{SLUG}/manage/")
    tournament = Tournament.objects.get(slug=SLUG)
    assert tournament.rules.event == "teams"
    for user in (cast["referee"], cast["referee2"]):
        tournament_services.grant_role(tournament, user, "referee", cast["organizer"])

    # 2. … imports 12 teams from the team sheet.
    sheet = tmp_path / "团体报名表.xlsx"
    sheet.write_bytes(team_sheet(team_rows(12)))
    page.goto(f"/t/{SLUG}/reports/registrations/import/")
    assert page.get_by_text("下载团体报名表模板").is_visible()
    page.locator("#id_file").set_input_files(str(sheet))
    page.get_by_role("button", name="导入").click()
    page.get_by_text("已导入 12 队").wait_for()
    screenshot(page, "team-1-import")
    assert Team.objects.filter(tournament=tournament).count() == 12

    # 3. … sees the teams with their captain codes and sets team 3's line-up.
    page.goto(f"/t/{SLUG}/manage/teams/")
    screenshot(page, "team-2-teams")
    page.get_by_role("link", name="第1轮出场名单 第3队").click()
    team = Team.objects.get(tournament=tournament, code="3")
    members = [m.pair for m in Team.pairs.through.objects.filter(team=team).order_by("pk")]
    page.get_by_label("甲桌南北").select_option(str(members[2].pk))
    page.get_by_label("甲1桌东西").select_option(str(members[0].pk))
    page.get_by_role("button", name="保存出场名单").click()
    page.get_by_text("已保存第1轮出场名单").wait_for()
    screenshot(page, "team-3-lineup")
    assert LineUp.objects.get(team=team, round_number=1).ns_id == members[2].pk

    # 4. … generates and publishes round 1.
    page.goto(f"/t/{SLUG}/manage/rounds/")
    page.locator("#generate").click()
    page.wait_for_url(f"**/t/{SLUG}/manage/rounds/1/")
    page.locator("#publish").click()
    page.wait_for_load_state()
    assert page.locator("#round-status").inner_text() == "已公布"
    rnd = Round.objects.get(tournament=tournament, number=1)
    first, second = Table.objects.filter(round=rnd, match=1).order_by("number")
    page.goto(f"/t/{SLUG}/rounds/1/")
    page.get_by_text("团体赛对阵").wait_for()
    screenshot(page, "team-4-round")

    # 5. Two referees: each enters one table of match 1 and confirms the other's.
    page.context.clear_cookies()
    login_as(page, cast["referee"])
    _tap(page, SLUG, first.number)
    page.context.clear_cookies()
    login_as(page, cast["referee2"])
    _tap(page, SLUG, second.number)
    _confirm(page, SLUG, first.number)
    page.goto(f"/t/{SLUG}/referee/round/1/")
    row = page.locator("#match-1")
    assert "待两桌确认" in row.inner_text()
    page.context.clear_cookies()
    login_as(page, cast["referee"])
    _confirm(page, SLUG, second.number)
    page.goto(f"/t/{SLUG}/referee/round/1/")
    row = page.locator("#match-1")
    # Each team won one table by 8 levels: equal JCF sums, a draw.
    assert "场分 1 : 1" in row.inner_text()
    screenshot(page, "team-5-desk")

    # 6. The public team standings count the match.
    page.context.clear_cookies()
    page.goto(f"/t/{SLUG}/standings/?after=1")
    page.get_by_text("团体名次").first.wait_for()
    body = page.locator("table.standings").inner_text()
    home = Team.objects.get(pk=first.ns.teams.first().pk)
    assert home.name in body
    screenshot(page, "team-6-standings")
    page.goto(f"/t/{SLUG}/teams/{home.code}/")
    assert "场分" in page.locator("table.team-history").inner_text()
    screenshot(page, "team-7-team-page")
