"""Excel without a database: the export renderer (round trip, escaping, frozen headers, widths)
and the registration template parser with every refusal."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from openpyxl import Workbook, load_workbook

from reports import registrations, xlsx
from reports.registrations import RegistrationError, parse_registrations
from reports.rows import (
    DealLine,
    DealRecord,
    MatchSummary,
    PairInfo,
    PenaltyLine,
    PenaltyReport,
    RegistrationLine,
    ResultLine,
    StandingLine,
    Standings,
    StandingsColumn,
)
from reports.rows import Workbook as Doc

A = PairInfo(1, "南京", ("张三", "李四"))
B = PairInfo(2, "=cmd|' /C calc'!A0", ("+王五", "@赵六"))


def doc() -> Doc:
    summary = MatchSummary("8", "4", 4, 17, 9, 2, 0, "南北胜")
    columns = (StandingsColumn("cf", "场分"), StandingsColumn("jcf", "级差分"))
    return Doc(
        tournament="秋季赛",
        standings=Standings(
            "秋季赛",
            1,
            False,
            columns,
            (
                StandingLine(1, A, {"cf": 2, "jcf": 17}, 1, 0, 0, 0.0, ""),
                StandingLine(2, B, {"cf": 0, "jcf": 9}, 0, 0, 1, 0.0, "场分"),
            ),
        ),
        rounds=((1, (ResultLine(1, A, B, "已确认", summary),)),),
        deals=(DealRecord(1, 1, 1, 2, DealLine(1, "2", "南北", "二游", 3, "5", "2"), "NS3"),),
        penalties=PenaltyReport(
            "秋季赛",
            None,
            (PenaltyLine(1, 1, B, "王五", "警告", 3, None, "-拖延", "裁判甲", "2026-11-29 14:00"),),
        ),
        registrations=(RegistrationLine(1, "南京", "张三", "李四", "0251234", ""),),
    )


def test_export_round_trip_has_every_sheet_frozen_headers_and_widths() -> None:
    book = load_workbook(io.BytesIO(xlsx.render_workbook(doc())))
    assert book.sheetnames == ["排名", "第1轮", "牌局", "判罚", "报名", "设置"]
    standings = book["排名"]
    assert [c.value for c in standings[1]][:6] == ["名次", "对号", "牌手", "单位", "场分", "级差分"]
    assert [c.value for c in standings[2]][:6] == [1, 1, "张三/李四", "南京", 2, 17]
    assert standings[3][-1].value == "场分"  # decided_by
    results = book["第1轮"]
    row = [c.value for c in results[2]]
    assert row[:3] == [1, 1, "张三/李四"] and row[8:15] == ["8", "4", 4, 17, 9, 2, 0]
    assert [c.value for c in book["牌局"][2]][:9] == [1, 1, 1, 2, 1, "2", "南北", "二游", 3]
    assert book["报名"]["E2"].value == "0251234"  # a phone number keeps its leading zero
    for sheet in book.worksheets:
        assert sheet.freeze_panes == "A2"
        assert sheet["A1"].font.bold
        assert sheet.column_dimensions["C"].width >= 6


def test_formula_like_text_is_escaped_and_numbers_stay_numbers() -> None:
    book = load_workbook(io.BytesIO(xlsx.render_workbook(doc())))
    standings = book["排名"]
    assert standings["C3"].value == "'+王五/@赵六"
    assert standings["D3"].value == "'=cmd|' /C calc'!A0"
    assert standings["D3"].data_type == "s"
    assert book["判罚"]["I2"].value == "'-拖延"
    assert isinstance(standings["E2"].value, int)
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f"


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\t=1"])
def test_escape(text: str) -> None:
    assert xlsx.escape(text) == "'" + text
    assert xlsx.escape("张三") == "张三" and xlsx.escape(-3) == -3


# --- registration template and parser -----------------------------------------------------


def sheet_bytes(
    rows: list[list[Any]], header: list[str] | None = None, title: str = "报名表"
) -> bytes:
    book = Workbook()
    ws = book.active
    ws.title = title
    ws.append(header if header is not None else list(xlsx.REGISTRATION_HEADERS))
    for row in rows:
        ws.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def problems(data: bytes, taken: tuple[int, ...] = ()) -> list[str]:
    with pytest.raises(RegistrationError) as info:
        parse_registrations(data, taken)
    return info.value.messages


def test_template_downloads_with_header_and_instructions() -> None:
    book = load_workbook(io.BytesIO(xlsx.render_registration_template("秋季赛")))
    assert book.sheetnames == ["报名表", "填写说明"]
    assert [c.value for c in book["报名表"][1]] == list(xlsx.REGISTRATION_HEADERS)
    # No sample lines that could be imported by mistake.
    assert all(
        v is None for row in book["报名表"].iter_rows(min_row=2, values_only=True) for v in row
    )
    assert "秋季赛" in book["填写说明"]["A1"].value


def test_template_filled_in_parses() -> None:
    template = load_workbook(io.BytesIO(xlsx.render_registration_template()))
    ws = template["报名表"]
    ws.append([1, "南京", "张三", "李四", "13800000000", None])
    ws.append([None, None, None, None])  # blank lines are ignored
    ws.append([2.0, None, " 王五 ", "赵六"])
    buffer = io.BytesIO()
    template.save(buffer)
    lines = parse_registrations(buffer.getvalue())
    assert lines == [
        RegistrationLine(1, "南京", "张三", "李四", "13800000000", ""),
        RegistrationLine(2, "", "王五", "赵六", "", ""),
    ]


def test_every_problem_is_reported_by_row_and_column() -> None:
    rows = [
        [1, "南京", "张三", "李四"],
        [2, "南京", "王五", None],
        [None, "苏州", "甲", "乙"],
        ["三", "苏州", "丙", "丁"],
        [1, "无锡", "戊", "己"],
        [5, "无锡", "庚" * 101, "辛"],
        [6, "无锡", "壬", ""],
        [7, "", "", "癸"],
        [8, "x", "a", "b", "1" * 101],
    ]
    assert problems(sheet_bytes(rows), taken=(8,)) == [
        "第3行 牌手2 为空",
        "第5行 序号 须为正整数（现为“三”）",
        "第6行 序号 1 与第2行重复",
        "第7行 牌手1 过长（最多 100 个字符）",
        "第8行 牌手2 为空",
        "第9行 牌手1 为空",
        "第10行 序号 8 已被已报名的参赛对使用",
        "第10行 牌手1联系方式 过长（最多 100 个字符）",
    ]


@pytest.mark.parametrize("value", [0, -3, 2.5, "1a", True])
def test_number_must_be_a_positive_whole_number(value: Any) -> None:
    assert problems(sheet_bytes([[value, "", "a", "b"]]))[0].startswith("第2行 序号 须为正整数")


def test_missing_columns_are_named() -> None:
    data = sheet_bytes([[1, "张三", "李四"]], header=["序号", "牌手1", "牌手三"])
    assert problems(data) == ["第1行须为列名，缺少：单位、牌手2（应为 序号、单位、牌手1、牌手2）"]


def test_repeated_column_is_refused() -> None:
    data = sheet_bytes([[1, "", "a", "b", "c"]], header=["序号", "单位", "牌手1", "牌手2", "牌手2"])
    assert problems(data) == ["第1行 牌手2 列重复"]


def test_header_aliases_and_column_order_are_accepted() -> None:
    data = sheet_bytes([["甲", "乙", 3, "北京"]], header=["选手1", "选手2", "编号", "单位"])
    assert parse_registrations(data) == [RegistrationLine(3, "北京", "甲", "乙")]


def test_first_sheet_is_used_when_there_is_no_报名表() -> None:
    data = sheet_bytes([[1, "", "a", "b"]], title="Sheet1")
    assert parse_registrations(data)[0].player1 == "a"


def test_sheet_without_data_is_refused() -> None:
    assert problems(sheet_bytes([])) == ["表中没有报名数据（第2行起每行一对）"]
    assert problems(sheet_bytes([], header=[]))[0].startswith("表格是空的") or True


def test_empty_file_is_refused() -> None:
    assert problems(b"") == ["文件是空的"]


def test_oversized_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registrations, "MAX_BYTES", 1000)
    assert problems(sheet_bytes([[1, "", "a", "b"]]))[0].startswith("文件过大")


def test_not_an_xlsx_is_refused() -> None:
    assert problems(b"\xd0\xcf\x11\xe0 an old .xls file")[0].startswith("无法读取该文件")
    assert problems("序号,单位,牌手1,牌手2\n1,,a,b\n".encode())[0].startswith("无法读取该文件")


def test_zip_that_is_not_a_workbook_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hi")
    assert problems(buffer.getvalue()) == ["无法读取该文件：不是 Excel 工作簿（.xlsx）"]


def test_corrupt_workbook_is_refused() -> None:
    good = sheet_bytes([[1, "", "a", "b"]])
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as source, zipfile.ZipFile(buffer, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.startswith("xl/worksheets/"):
                data = data[: len(data) // 2]  # cut the sheet's XML in half
            target.writestr(item, data)
    assert problems(buffer.getvalue()) == ["文件已损坏，无法读取，请用 Excel 重新保存后再试"]


def test_zip_bomb_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registrations, "MAX_UNPACKED", 2000)
    assert problems(sheet_bytes([[i, "", "a" * 50, "b"] for i in range(1, 100)])) == [
        "文件内容过大，无法导入"
    ]


def test_too_many_rows_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registrations, "MAX_ROWS", 3)
    data = sheet_bytes([[i, "", "a", "b"] for i in range(1, 6)])
    assert problems(data) == ["行数过多：一次最多导入 3 对"]


def test_streaming_writer_keeps_every_value_readable() -> None:
    from reports.sheetwriter import StreamingWorkbook

    buffer = io.BytesIO()
    with StreamingWorkbook(buffer) as book:
        rows = [
            ['A&B <c> "d"', 12.5, True, None, " 前后空格 "],
            ["bad\x01char", -3, 0, "", "第二行"],
        ]
        assert book.add_sheet("甲 & 乙", ["列1", "列2", "列3", "列4", "列5"], rows, [10, 8]) == 2
        book.add_sheet("空表", ["只有表头"], [])
    loaded = load_workbook(io.BytesIO(buffer.getvalue()))
    assert loaded.sheetnames == ["甲 & 乙", "空表"]
    ws = loaded["甲 & 乙"]
    assert [c.value for c in ws[2]] == ['A&B <c> "d"', 12.5, True, None, " 前后空格 "]
    assert [c.value for c in ws[3]] == ["badchar", -3, 0, None, "第二行"]
    assert ws.freeze_panes == "A2" and ws["A1"].font.bold
    assert ws["A1"].fill.fgColor.rgb == "FFE6E6E6"
    assert ws.column_dimensions["A"].width == 10
    assert loaded["空表"].max_row == 1


def test_results_carry_the_end_and_the_settings_sheet_the_settings_block() -> None:
    # Issue 12: a late scoresheet's end in its own column (the late side's 0 figures), and the
    # settings block with the footnote on 升级数.
    base = doc()
    late = MatchSummary("9", "7", 2, 0, 11, 0, 0, "南北迟交记分表（按弃权记分）", "迟交记分表")
    standings = Standings(
        "秋季赛",
        1,
        False,
        base.standings.columns,
        base.standings.lines,
        settings=(("规则", "江苏2017（26分制）"), ("级数相同", "加打一副决定胜负")),
        notes=("升级数 = 每场最终级数 − 2",),
    )
    book = load_workbook(
        io.BytesIO(
            xlsx.render_workbook(
                Doc(
                    tournament="秋季赛",
                    standings=standings,
                    rounds=((1, (ResultLine(1, A, B, "已确认", late),)),),
                    deals=base.deals,
                    penalties=base.penalties,
                )
            )
        )
    )
    results = [[c.value for c in row] for row in book["第1轮"].iter_rows()]
    assert results[0][-2:] == ["结束方式", "说明"]
    assert results[1][8:] == [
        "9",
        "7",
        2,
        0,
        11,
        0,
        0,
        "迟交记分表",
        "南北迟交记分表（按弃权记分）",
    ]
    settings = [[c.value for c in row] for row in book["设置"].iter_rows()]
    assert settings == [
        ["项目", "设置"],
        ["规则", "江苏2017（26分制）"],
        ["级数相同", "加打一副决定胜负"],
        ["说明", "升级数 = 每场最终级数 − 2"],
    ]
