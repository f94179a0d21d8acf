"""Printing and Excel against the database: the documents of a played tournament, the Excel
round trip, the registration import (all or nothing), the organizer-only views and the
commands."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from reports import collect, pdf, xlsx
from reports.registrations import RegistrationError, import_registrations, parse_registrations
from scoring import penalties, penalty_records
from scoring.models import Penalty
from scoring.once import new_once_key
from tests.support.tournament import build_tournament, next_round, play_round, result_of
from tests.support.workbooks import template_with
from tournaments import services as tournament_services
from tournaments.models import Pair, Round, Table, Tournament


def pages(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


@pytest.fixture
def odd(organizer: Any, chief: Any, referee: Any) -> Tournament:
    """Seven pairs: every round has a bye."""
    return build_tournament(organizer, chief, [referee], n_pairs=7, slug="odd-seven")


@pytest.fixture
def played(tournament: Tournament, organizer: Any, referee: Any, referee2: Any) -> Tournament:
    """Round 1 played and confirmed, round 2 published and blank."""
    rnd = next_round(tournament, organizer)
    play_round(rnd, referee, referee2)
    from pairing import services as pairing_services

    pairing_services.finish_round(rnd, organizer)
    next_round(tournament, organizer)
    return tournament


def test_blank_score_sheets_one_page_per_table(round1: Round) -> None:
    tournament = round1.tournament
    sheets = collect.score_sheets(tournament, 1, base_url="https://gd.example")
    tables = list(round1.tables.filter(is_bye=False).order_by("number"))
    assert [s.table_number for s in sheets] == [t.number for t in tables]
    texts = pages(pdf.render_scoresheets(sheets))
    assert len(texts) == len(tables)
    for table, text in zip(tables, texts, strict=True):
        assert f"第 {table.number} 桌" in text
        assert f"第 {table.ns.number} 对" in text and f"第 {table.ew.number} 对" in text
        for player in [*table.ns.players.all(), *table.ew.players.all()]:
            assert player.name in text
        assert tournament.name in text
    assert sheets[0].entry_url == f"https://gd.example/table/{tables[0].entry_token}/"
    assert sheets[0].ns.unit in ("南京", "苏州", "无锡")


def test_filled_score_sheets_are_the_confirmed_record(played: Tournament) -> None:
    sheets = collect.score_sheets(played, 1, filled=True)
    assert sheets and all(s.filled for s in sheets)
    first = sheets[0]
    # conftest.NS_WINS: NS3 NS2 EW2 EW1 NS1 EW1 NS1 EW1 → North–South 9, East–West 7.
    assert len(first.lines) == 8
    assert (first.lines[0].first_side, first.lines[0].partner_place) == ("南北", "二游")
    assert [line.ns_level for line in first.lines] == ["5", "7", "7", "7", "8", "8", "9", "9"]
    assert first.lines[2].level_played == "7" and first.lines[3].level_played == "4"
    table = Table.objects.get(round__tournament=played, round__number=1, number=1)
    result = result_of(table)
    assert first.result is not None
    assert (first.result.ns_level, first.result.ew_level, first.result.jc) == ("9", "7", 2)
    assert (first.result.ns_jcf, first.result.ew_jcf) == (result.ns_jcf, result.ew_jcf) == (15, 11)
    assert (first.result.ns_cf, first.result.ew_cf) == (2, 0)
    assert first.confirmed.startswith("已确认")
    text = pages(pdf.render_scoresheets(sheets))[0]
    assert "15" in text and "南北胜" in text and "二游" in text
    # Round 2 is not played yet: nothing to print filled, blank sheets for all its tables.
    assert collect.score_sheets(played, 2, filled=True) == []
    assert len(collect.score_sheets(played, 2)) == 4


def test_pairing_list_shows_the_bye(odd: Tournament, organizer: Any) -> None:
    rnd = next_round(odd, organizer)
    bye = rnd.tables.get(is_bye=True)
    doc = collect.pairing_list(odd)
    assert doc.round_number == 1 and sum(line.is_bye for line in doc.lines) == 1
    by_table, by_pair = pages(pdf.render_pairings(doc))
    assert f"轮空：第 {bye.ns.number} 对" in by_table
    assert "轮空" in by_pair
    assert len(collect.score_sheets(odd, 1)) == 3  # a bye needs no score sheet


def test_standings_after_a_round_and_final(played: Tournament) -> None:
    doc = collect.standings(played, 1)
    assert doc.after_round == 1 and len(doc.lines) == 8
    assert [c.key for c in doc.columns] == [
        "cf",
        "jcf",
        "wins",
        "draws",
        "level_difference",
        "opponents_cf",
        "previous_rank",
    ]
    top = doc.lines[0]
    assert top.values["cf"] == 2 and top.values["jcf"] == 15 and top.wins == 1
    assert any(line.decided_by for line in doc.lines[1:])
    assert doc.criteria[0] == "场分" and doc.criteria[-1] == "抽签"
    assert "相互间胜负" in doc.criteria
    text = "".join(pages(pdf.render_standings(doc)))
    assert "场分、级差分、相互间胜负、胜场数" in text
    assert "第 1 轮后排名" in text and top.pair.names in text and "名次依据" in text
    final = collect.standings(played, final=True)
    assert final.final and "最终排名" in pages(pdf.render_standings(final))[0]


def test_penalty_report_for_a_round_and_the_event(played: Tournament, chief: Any) -> None:
    pair = Pair.objects.get(tournament=played, number=3)
    rnd = Round.objects.get(tournament=played, number=1)
    penalties.record_penalty(  # RULES.md §3: a deduction is the chief referee's
        played, pair, Penalty.Kind.DEDUCTION, chief, reason="越序抓牌", round=rnd, jcf=1
    )
    withdrawn = penalties.record_penalty(played, pair, "warning", chief, round=rnd)
    penalty_records.withdraw_penalty(withdrawn, chief, "误判")  # not in the report
    report = collect.penalty_report(played, 1)
    assert len(report.lines) == 1 and report.lines[0].kind == "级差分扣分"
    assert report.lines[0].jcf == 1.0 and report.lines[0].referee == "chief"
    text = pages(pdf.render_penalties(report))[0]
    assert "越序抓牌" in text and "第 1 轮" in text
    assert collect.penalty_report(played, 2).lines == ()
    assert len(collect.penalty_report(played).lines) == 1


def test_excel_export_round_trip(played: Tournament, organizer: Any) -> None:
    tournament_services.register_pair(played, ["=HYPERLINK(1)", "@x"], organizer)
    book = load_workbook(io.BytesIO(xlsx.render_workbook(collect.workbook(played))))
    assert book.sheetnames == ["排名", "第1轮", "第2轮", "牌局", "判罚", "报名", "设置"]
    standings = list(book["排名"].iter_rows(values_only=True))
    assert standings[0][:5] == ("名次", "对号", "牌手", "单位", "场分")
    assert len(standings) == 1 + 9
    results = list(book["第1轮"].iter_rows(values_only=True))
    assert len(results) == 1 + 4
    assert all(row[7] == "已确认" for row in results[1:])
    deals = list(book["牌局"].iter_rows(values_only=True))
    assert len(deals) == 1 + 4 * 8  # round 1's 32 deals; round 2 has none yet
    registrations = list(book["报名"].iter_rows(values_only=True))
    assert registrations[-1][2:4] == ("'=HYPERLINK(1)", "'@x")
    assert book["排名"].freeze_panes == "A2"


# --- registration import ------------------------------------------------------------------


def test_import_registers_pairs_units_and_contacts(db: Any, organizer: Any) -> None:
    t = tournament_services.create_tournament("春季赛", "spring", organizer)
    data = template_with(
        [
            [1, "南京市掼蛋协会", "张三", "李四", "13800000000", ""],
            [2, "南京市掼蛋协会", "王五", "赵六"],
            [5, "", "孙七", "周八"],
            [
                6,
                "一个名字特别特别特别长的单位：江苏省南京市玄武区某某街道掼蛋爱好者协会",
                "甲",
                "乙",
            ],
        ]
    )
    count = import_registrations(t, parse_registrations(data), organizer)
    assert count == 4
    pairs = {p.number: p for p in Pair.objects.filter(tournament=t).select_related("unit")}
    assert sorted(pairs) == [1, 2, 5, 6]
    assert pairs[1].unit == pairs[2].unit and pairs[1].unit.name == "南京市掼蛋协会"
    assert pairs[5].unit is None
    assert pairs[6].unit.name.endswith("协会") and len(pairs[6].unit.code) <= 32
    assert pairs[1].player_names == "张三/李四"
    assert pairs[1].players.get(position=1).contact == "13800000000"


def test_import_is_all_or_nothing_when_a_service_refuses(
    db: Any, organizer: Any, outsider: Any
) -> None:
    t = tournament_services.create_tournament("春季赛", "spring", organizer)
    lines = parse_registrations(
        template_with([[1, "南京", "张三", "李四"], [2, "", "王五", "赵六"]])
    )
    with pytest.raises(RegistrationError) as info:
        import_registrations(t, lines, outsider)  # no organizer role
    assert "权限" in info.value.messages[0]
    assert not Pair.objects.filter(tournament=t).exists()
    assert not t.units.exists()


def test_import_refuses_numbers_taken_in_the_tournament(tournament: Tournament) -> None:
    taken = Pair.objects.filter(tournament=tournament).values_list("number", flat=True)
    with pytest.raises(RegistrationError) as info:
        parse_registrations(template_with([[3, "", "a", "b"], [100, "", "c", "d"]]), taken)
    assert info.value.messages == ["第2行 序号 3 已被已报名的参赛对使用"]


# --- views --------------------------------------------------------------------------------


def test_downloads_are_for_organizers_only(
    client: Any, round1: Round, organizer: Any, referee: Any, outsider: Any
) -> None:
    slug = round1.tournament.slug
    url = reverse("reports:document", args=[slug, "scoresheets"]) + "?round=1"
    response = client.get(url)
    assert response.status_code == 302 and "login" in response["Location"]
    for user in (outsider, referee):
        client.force_login(user)
        assert client.get(url).status_code == 403
        assert client.get(reverse("reports:export", args=[slug])).status_code == 403
        assert client.get(reverse("reports:import", args=[slug])).status_code == 403
    client.force_login(organizer)
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert "attachment" in response["Content-Disposition"]
    texts = pages(response.content)
    assert len(texts) == round1.tables.filter(is_bye=False).count()
    token = round1.tables.filter(is_bye=False).order_by("number").first().entry_token
    sheets = collect.score_sheets(round1.tournament, 1, base_url="http://testserver/")
    assert sheets[0].entry_url == f"http://testserver/table/{token}/"


@pytest.mark.parametrize(
    "name,query",
    [
        ("pairings", "?round=1"),
        ("standings", ""),
        ("standings", "?final=1"),
        ("penalties", ""),
        ("scoresheets", "?round=1&filled=1"),
    ],
)
def test_every_document_downloads(
    client: Any, played: Tournament, organizer: Any, name: str, query: str
) -> None:
    client.force_login(organizer)
    response = client.get(reverse("reports:document", args=[played.slug, name]) + query)
    assert response.status_code == 200
    assert response.content.startswith(b"%PDF")


def test_missing_round_and_unknown_document(client: Any, round1: Round, organizer: Any) -> None:
    client.force_login(organizer)
    slug = round1.tournament.slug
    response = client.get(reverse("reports:document", args=[slug, "scoresheets"]) + "?round=9")
    assert response.status_code == 302
    assert client.get(reverse("reports:document", args=[slug, "nonsense"])).status_code == 404


def test_index_export_and_template_pages(client: Any, played: Tournament, organizer: Any) -> None:
    client.force_login(organizer)
    response = client.get(reverse("reports:index", args=[played.slug]))
    assert response.status_code == 200
    assert reverse("reports:export", args=[played.slug]) in response.content.decode()
    export = client.get(reverse("reports:export", args=[played.slug]))
    assert export.status_code == 200
    assert load_workbook(io.BytesIO(export.content)).sheetnames[0] == "排名"
    template = client.get(reverse("reports:template", args=[played.slug]))
    assert load_workbook(io.BytesIO(template.content)).sheetnames == ["报名表", "填写说明"]


def test_import_page_lists_problems_and_imports_nothing(
    client: Any, db: Any, organizer: Any
) -> None:
    t = tournament_services.create_tournament("春季赛", "spring", organizer)
    client.force_login(organizer)
    url = reverse("reports:import", args=[t.slug])
    assert client.get(url).status_code == 200
    bad = template_with([[1, "", "张三", "李四"]] * 5 + [[7, "", "王五", None]])
    upload = io.BytesIO(bad)
    upload.name = "报名.xlsx"
    response = client.post(url, {"once": new_once_key(), "file": upload})
    assert response.status_code == 400
    body = response.content.decode()
    assert "第7行 牌手2 为空" in body and "第3行 序号 1 与第2行重复" in body
    assert not Pair.objects.filter(tournament=t).exists()
    good = io.BytesIO(template_with([[1, "", "张三", "李四"], [2, "", "王五", "赵六"]]))
    good.name = "报名.xlsx"
    response = client.post(url, {"once": new_once_key(), "file": good})
    assert response.status_code == 302
    assert Pair.objects.filter(tournament=t).count() == 2
    response = client.post(url, {})
    assert response.status_code == 400 and "请选择" in response.content.decode()


# --- commands -----------------------------------------------------------------------------


def test_print_command_writes_each_document(played: Tournament, tmp_path: Path) -> None:
    target = tmp_path / "sheets.pdf"
    call_command("print", played.slug, "scoresheets", "--round", "2", "-o", str(target))
    assert (
        len(PdfReader(target).pages)
        == Table.objects.filter(round__tournament=played, round__number=2, is_bye=False).count()
    )
    call_command("print", played.slug, "scoresheets", "--round", "1", "--filled", "-o", str(target))
    assert "南北胜" in PdfReader(target).pages[0].extract_text()
    for document in ("pairings", "standings", "penalties"):
        call_command("print", played.slug, document, "-o", str(tmp_path / f"{document}.pdf"))
        assert (tmp_path / f"{document}.pdf").read_bytes().startswith(b"%PDF")
    with pytest.raises(CommandError, match="第9轮不存在"):
        call_command("print", played.slug, "pairings", "--round", "9", "-o", str(target))
    with pytest.raises(CommandError, match="找不到赛事"):
        call_command("print", "nope", "pairings", "-o", str(target))


def test_export_and_import_commands(
    played: Tournament, db: Any, organizer: Any, tmp_path: Path
) -> None:
    target = tmp_path / "out.xlsx"
    call_command("export_xlsx", played.slug, "-o", str(target))
    assert "排名" in load_workbook(target).sheetnames
    t = tournament_services.create_tournament("春季赛", "spring", organizer)
    sheet = tmp_path / "reg.xlsx"
    sheet.write_bytes(template_with([[1, "南京", "张三", "李四"], [2, "", "王五", None]]))
    with pytest.raises(CommandError, match="发现 1 个问题"):
        call_command("import_players", t.slug, str(sheet))
    assert not Pair.objects.filter(tournament=t).exists()
    sheet.write_bytes(template_with([[1, "南京", "张三", "李四"], [2, "", "王五", "赵六"]]))
    out = io.StringIO()
    call_command("import_players", t.slug, str(sheet), stdout=out)
    assert "已导入 2 对" in out.getvalue()
    assert Pair.objects.filter(tournament=t).count() == 2
