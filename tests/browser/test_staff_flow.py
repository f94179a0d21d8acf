"""Browser flows of issue 15 part A: an organizer sets up an event alone from an empty site and
gives three referees their logins; check-in by scanning a pair's QR code; a late entry joins in
round 3; a pair withdraws in the middle of a round. Screenshots: docs/screenshots/staff-*.png,
checkin-*.png, late-entry-*.png, withdraw-*.png (the README tour uses them).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from openpyxl import Workbook

from pairing import services as pairing_services
from reports import xlsx
from tests.support.tournament import NS_WINS, build_tournament, play_table
from tournaments.models import Pair, Round, Table, Tournament


def _login(page: Any, username: str, password: str, next_url: str) -> None:
    page.goto(f"/accounts/login/?next={next_url}")
    page.get_by_label("用户名").fill(username)
    page.get_by_label("密码").fill(password)
    page.get_by_role("button", name="登录").click()
    page.wait_for_url(f"**{next_url}")


def test_organizer_sets_up_an_event_alone_and_gives_three_referees_their_logins(
    transactional_db: None, desktop_page: Any, browser: Any, live_server: Any, screenshot: Any
) -> None:
    # The one step on the server (docs/deploy.md): the first organizer account. No admin.
    call_command("organizer", "boss", "--password", "pw-boss-1", stdout=io.StringIO())
    assert not Tournament.objects.exists()
    page = desktop_page
    _login(page, "boss", "pw-boss-1", "/")
    page.get_by_role("link", name="创建赛事").click()
    page.wait_for_url("**/new/")
    page.get_by_label("赛事名称").fill("2026 常州掼蛋邀请赛")
    page.get_by_label("网址标识").fill("changzhou")
    screenshot(page, "staff-1-new-event")
    page.get_by_role("button", name="创建赛事").click()
    page.wait_for_url("**/t/changzhou/manage/")

    page.goto("/t/changzhou/manage/staff/")
    page.get_by_label("账号数").fill("3")
    page.get_by_label("每人分配桌数").fill("10")
    page.locator("#create-accounts").click()
    page.wait_for_load_state()
    assert page.get_by_text("已创建 3 个账号").is_visible()
    usernames = page.locator("td.login-username").all_inner_texts()
    passwords = page.locator("td.login-password").all_inner_texts()
    assert usernames == ["changzhou-r01", "changzhou-r02", "changzhou-r03"]
    screenshot(page, "staff-2-logins")
    with page.expect_download() as download:
        page.locator("#login-slips").click()
    slips = Path(download.value.path()).read_bytes()
    assert slips.startswith(b"%PDF")
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", "-", "-"], input=slips, capture_output=True, check=True
        ).stdout.decode()
        assert all(u in text for u in usernames) and all(p in text for p in passwords)
    page.get_by_role("button", name="完成，清除密码").click()
    page.wait_for_load_state()
    assert passwords[0] not in page.content()
    screenshot(page, "staff-3-staff-page")

    # Each referee logs in with the slip and finds the desk, tables 11–20 for the second.
    context = browser.new_context(locale="zh-CN", base_url=live_server.url)
    try:
        referee_page = context.new_page()
        _login(referee_page, usernames[1], passwords[1], "/t/changzhou/referee/")
        assert "裁判台" in referee_page.content()
        screenshot(referee_page, "staff-4-referee-desk")
    finally:
        context.close()
    assert get_user_model().objects.filter(username__startswith="changzhou-r").count() == 3


@pytest.fixture
def event(transactional_db: None) -> dict[str, Any]:
    user_model = get_user_model()
    organizer = user_model.objects.create_user("organizer", password="pw-organizer-1")
    chief = user_model.objects.create_user("chief", password="pw-chief-1")
    referee = user_model.objects.create_user("referee", password="pw-referee-1")
    tournament = build_tournament(organizer, chief, [referee])
    return {"tournament": tournament, "organizer": organizer, "chief": chief, "referee": referee}


def test_check_in_by_scanning_the_pair_qr(
    event: dict[str, Any],
    desktop_page: Any,
    phone_page: Any,
    login_as: Any,
    screenshot: Any,
    tmp_path: Path,
) -> None:
    if shutil.which("zbarimg") is None:
        pytest.skip("zbarimg not installed (Debian: zbar-tools; make test installs it)")
    slug = event["tournament"].slug
    pair = Pair.objects.get(tournament=event["tournament"], number=5)
    desk = desktop_page
    login_as(desk, event["organizer"])
    desk.goto(f"/t/{slug}/manage/checkin/")
    assert "已签到 0 / 8 对" in desk.locator("#checkin-count").inner_text()
    # The QR code of pair 5, as the desk shows it (and as a printed slip carries it).
    desk.goto(f"/t/{slug}/reports/checkin/{pair.number}.svg")
    png = tmp_path / "qr.png"
    desk.screenshot(path=str(png))
    decoded = subprocess.run(
        ["zbarimg", "-q", "--raw", str(png)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert decoded.endswith(f"/t/{slug}/checkin/{pair.checkin_token}/")

    # A referee's phone opens what the code says.
    login_as(phone_page, event["referee"])
    phone_page.goto(decoded)
    assert "第5对 签到" in phone_page.locator("h1").inner_text()
    screenshot(phone_page, "checkin-1-scanned")
    phone_page.locator("#checkin-confirm").click()
    phone_page.wait_for_load_state()
    assert "第1轮已签到" in phone_page.locator("#checkin-state").inner_text()
    screenshot(phone_page, "checkin-2-done")

    desk.goto(f"/t/{slug}/manage/checkin/")
    assert "已签到 1 / 8 对" in desk.locator("#checkin-count").inner_text()
    assert "扫码" in desk.locator("#pair-5").inner_text()
    desk.locator("#pair-1").get_by_role("button", name="签到").click()
    desk.wait_for_load_state()
    assert "已签到 2 / 8 对" in desk.locator("#checkin-count").inner_text()
    screenshot(desk, "checkin-3-desk")


def _play_and_finish(rnd: Round, event: dict[str, Any]) -> None:
    for table in Table.objects.filter(round=rnd, is_bye=False):
        play_table(table, NS_WINS, event["referee"], event["chief"])
    pairing_services.finish_round(rnd, event["organizer"])


def test_a_late_entry_joins_in_round_3(
    event: dict[str, Any], desktop_page: Any, login_as: Any, screenshot: Any, tmp_path: Path
) -> None:
    tournament, organizer = event["tournament"], event["organizer"]
    for _number in (1, 2):
        rnd = pairing_services.generate_round(tournament, organizer)
        _play_and_finish(pairing_services.publish_round(rnd, organizer), event)
    # The organizer's sheet: the eight registered pairs and two late ones (no 序号).
    book = Workbook()
    sheet = book.active
    sheet.title = "报名表"
    sheet.append(list(xlsx.REGISTRATION_HEADERS))
    for pair in Pair.objects.filter(tournament=tournament).order_by("number"):
        sheet.append([pair.number, "", *pair.player_names.split("/")])
    sheet.append([None, "常州", "迟到甲", "迟到乙"])
    sheet.append([None, "常州", "迟到丙", "迟到丁"])
    path = tmp_path / "报名表.xlsx"
    book.save(path)

    page = desktop_page
    login_as(page, organizer)
    page.goto(f"/t/{tournament.slug}/reports/registrations/import/")
    assert "从第3轮起参加编排" in page.locator("#late-entry-note").inner_text()
    page.locator("#id_file").set_input_files(str(path))
    assert page.locator("#id_append").is_checked()
    screenshot(page, "late-entry-1-import")
    page.get_by_role("button", name="导入").click()
    page.wait_for_load_state()
    assert page.get_by_text("已导入 2 对").is_visible()
    late = set(
        Pair.objects.filter(tournament=tournament, number__in=(9, 10)).values_list("pk", flat=True)
    )
    assert len(late) == 2

    page.goto(f"/t/{tournament.slug}/manage/rounds/")
    page.locator("#generate").click()
    page.wait_for_url(f"**/t/{tournament.slug}/manage/rounds/3/")
    rnd3 = Round.objects.get(tournament=tournament, number=3)
    seated = {p for t in rnd3.tables.all() for p in (t.ns_id, t.ew_id)}
    assert late <= seated
    assert "迟到甲" in page.content()
    screenshot(page, "late-entry-2-round3-draft")


def test_a_pair_withdraws_in_the_middle_of_a_round(
    event: dict[str, Any], desktop_page: Any, browser: Any, live_server: Any, screenshot: Any
) -> None:
    tournament, organizer = event["tournament"], event["organizer"]
    rnd = pairing_services.publish_round(
        pairing_services.generate_round(tournament, organizer), organizer
    )
    table = Table.objects.filter(round=rnd, is_bye=False).order_by("number")[1]
    pair = table.ew
    page = desktop_page
    _login(page, "organizer", "pw-organizer-1", f"/t/{tournament.slug}/manage/")
    page.goto(f"/t/{tournament.slug}/manage/pairs/{pair.number}/")
    page.locator("#id_action").select_option("withdraw")
    page.get_by_label("原因").last.fill("身体不适")
    page.get_by_role("button", name="确定").click()
    page.wait_for_url(f"**/manage/pairs/{pair.number}/withdraw-seated/**")
    assert f"第{table.number}桌" in page.locator("#seated-warning").inner_text()
    screenshot(page, "withdraw-1-question")
    page.get_by_label(f"判第{pair.number}对弃权").check()
    page.locator("#withdraw-confirm").click()
    page.wait_for_url(f"**/t/{tournament.slug}/manage/pairs/")
    assert page.get_by_text(f"第{pair.number}对已退赛，第{table.number}桌判其弃权").is_visible()
    table.refresh_from_db()
    assert (table.end_kind, table.end_side) == ("forfeit", "EW")

    context = browser.new_context(locale="zh-CN", base_url=live_server.url)
    try:
        desk = context.new_page()
        _login(desk, "referee", "pw-referee-1", f"/t/{tournament.slug}/referee/round/1/")
        flag = desk.locator(f'[data-testid="table-{table.number}"] .withdrawn-flag')
        assert flag.inner_text() == f"第{pair.number}对已退赛"
        screenshot(desk, "withdraw-2-desk-flag")
    finally:
        context.close()
