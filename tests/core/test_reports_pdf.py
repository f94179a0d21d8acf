"""The PDF renderers on plain rows (no database): text is extractable, pages match tables,
and one score sheet is rendered to PNG for the README (docs/screenshots/)."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from reports import pdf
from reports.rows import (
    DealLine,
    MatchSummary,
    PairInfo,
    PairingLine,
    PairingList,
    PenaltyLine,
    PenaltyReport,
    ScoreSheet,
    StandingLine,
    Standings,
    StandingsColumn,
)

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
NS = PairInfo(12, "南京市掼蛋协会", ("张建国", "李秀英"))
EW = PairInfo(27, "苏州工业园区俱乐部", ("王伟", "陈静"))
URL = "http://127.0.0.1:8000/table/AbCdEfGhIjKlMnOpQrStUv/"


def sheet(table: int = 12, filled: bool = False) -> ScoreSheet:
    lines = (
        DealLine(1, "2", "南北", "二游", 3, "5", "2"),
        DealLine(2, "5", "东西", "末游", 1, "5", "3"),
        DealLine(3, "3", "南北", "三游", 2, "7", "3"),
        DealLine(4, "7", "", "", 3, "7", "6", "南北犯规"),
        DealLine(5, "6", "南北", "二游", 3, "10", "6"),
        DealLine(None, "", "", "", 2, "10", "8", "东西升级调整"),
        DealLine(6, "10", "南北", "三游", 2, "Q", "8"),
        DealLine(7, "Q", "南北", "二游", 3, "A", "8"),
    )
    return ScoreSheet(
        tournament="2026年江苏省掼蛋锦标赛（双人赛）",
        round_number=3,
        table_number=table,
        ns=NS,
        ew=EW,
        entry_url=URL,
        rows=9 if filled else 8,
        lines=lines if filled else (),
        result=MatchSummary("A", "8", 6, 19, 7, 2, 0, "南北胜") if filled else None,
        confirmed="已确认 2026-11-29 14:05 裁判 王五" if filled else "",
        round_format="计副制 每轮 8 副",
    )


def text_of(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


def test_blank_score_sheets_one_page_per_table_with_names_and_numbers() -> None:
    data = pdf.render_scoresheets([sheet(t) for t in (1, 2, 3)], printed_at="2026-11-29 12:00")
    pages = text_of(data)
    assert len(pages) == 3
    for number, text in zip((1, 2, 3), pages, strict=True):
        assert f"第 {number} 桌" in text
        assert "第 3 轮" in text
        assert "记  分  表" in text or "记 分 表" in text
        for name in ("张建国", "李秀英", "王伟", "陈静", "南京市掼蛋协会"):
            assert name in text
        assert "第 12 对" in text and "第 27 对" in text
        for label in ("级差分", "场分", "终局级数", "南北方签名", "东西方签名", "裁判签名"):
            assert label in text


def test_filled_score_sheet_shows_every_deal_and_the_result() -> None:
    text = text_of(pdf.render_scoresheets([sheet(filled=True)]))[0]
    assert "成绩确认后打印" in text
    assert "南北犯规" in text and "东西升级调整" in text
    assert "以下空白" in text
    assert "19" in text and "南北胜" in text and "已确认" in text


def test_score_sheet_has_a_qr_code_that_encodes_the_entry_link() -> None:
    modules = pdf.qr_modules(URL)
    assert len(modules) in range(21, 60, 4)  # a QR version's size
    # The three finder patterns: a 7×7 dark ring in three corners.
    for r, c in ((0, 0), (0, len(modules) - 7), (len(modules) - 7, 0)):
        assert all(modules[r][c + k] for k in range(7))


def test_progress_is_reported_per_sheet() -> None:
    seen: list[tuple[int, int]] = []
    pdf.render_scoresheets(
        [sheet(t) for t in range(1, 5)], progress=lambda d, t: seen.append((d, t)), total=4
    )
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_pairing_list_by_table_and_by_pair_shows_the_bye() -> None:
    bye = PairInfo(5, "", ("赵强", "黄敏"))
    doc = PairingList("秋季赛", 2, (PairingLine(1, NS, EW), PairingLine(2, bye, None)))
    pages = text_of(pdf.render_pairings(doc))
    assert len(pages) == 2
    assert "按桌号" in pages[0] and "按对号" in pages[1]
    assert "轮空：第 5 对" in pages[0]
    assert "张建国/李秀英" in pages[0] and "王伟/陈静" in pages[0]
    # By pair number: 5 (bye) before 12 before 27.
    by_pair = pages[1]
    assert by_pair.index("赵强") < by_pair.index("张建国") < by_pair.index("王伟")
    assert "轮空" in by_pair


def test_long_lists_paginate_with_repeated_headers() -> None:
    lines = tuple(
        PairingLine(i, PairInfo(2 * i - 1, "单位", ("甲", "乙")), PairInfo(2 * i, "", ("丙", "丁")))
        for i in range(1, 121)
    )
    pages = text_of(pdf.render_pairings(PairingList("大赛", 1, lines)))
    assert len(pages) > 4
    assert all("桌号" in p for p in pages)
    assert "第 1 页  共" in pages[0]


def standings_doc(final: bool = False) -> Standings:
    columns = (
        StandingsColumn("cf", "场分"),
        StandingsColumn("jcf", "级差分"),
        StandingsColumn("wins", "胜场数"),
        StandingsColumn("draws", "平场数"),
        StandingsColumn("level_difference", "总级差"),
        StandingsColumn("opponents_cf", "对手分"),
        StandingsColumn("previous_rank", "上轮名次"),
    )
    lines = (
        StandingLine(
            1,
            NS,
            {
                "cf": 6,
                "jcf": 61.0,
                "wins": 3,
                "draws": 0,
                "level_difference": 22,
                "opponents_cf": 8,
                "previous_rank": 2,
            },
            3,
            0,
            0,
            0.0,
            "",
        ),
        StandingLine(
            2,
            EW,
            {
                "cf": 6,
                "jcf": 55.5,
                "wins": 3,
                "draws": 0,
                "level_difference": 18,
                "opponents_cf": 7,
                "previous_rank": 1,
            },
            3,
            0,
            0,
            1.0,
            "级差分",
        ),
    )
    return Standings("秋季赛", 3, final, columns, lines, "竞赛规程")


def test_standings_show_every_criterion_and_what_decided() -> None:
    text = "".join(text_of(pdf.render_standings(standings_doc())))
    assert "第 3 轮后排名" in text
    for label in ("场分", "级差分", "胜场数", "平场数", "总级差", "对手分", "上轮名次", "名次依据"):
        assert label in text
    assert "55.5" in text and "3/0/0" in text
    assert "排名依据（依次）：场分、级差分" in text


def test_final_ranking_is_titled_as_such() -> None:
    assert "最终排名" in text_of(pdf.render_standings(standings_doc(final=True)))[0]


def test_penalty_report_lists_every_record_or_says_there_are_none() -> None:
    line = PenaltyLine(
        2, 7, NS, "张建国", "级差分扣分", 4, 1.0, "越序抓牌", "王裁判", "2026-11-29 14:05"
    )
    text = text_of(pdf.render_penalties(PenaltyReport("秋季赛", 2, (line,))))[0]
    assert "判罚记录（第 2 轮）" in text
    assert "越序抓牌" in text and "级差分扣分" in text and "王裁判" in text
    empty = text_of(pdf.render_penalties(PenaltyReport("秋季赛", None, ())))[0]
    assert "全部轮次" in empty and "没有判罚记录" in empty


def test_long_names_are_cut_not_overflowing() -> None:
    long = PairInfo(1, "很长的单位名称" * 10, ("名" * 60, "姓" * 60))
    text = text_of(pdf.render_scoresheets([ScoreSheet("赛" * 80, 1, 1, long, EW)]))[0]
    assert "…" in text


@pytest.mark.skipif(
    shutil.which("pdftoppm") is None,
    reason="pdftoppm not installed (Debian: apt-get install poppler-utils poppler-data)",
)
@pytest.mark.parametrize("filled", [True, False], ids=["filled", "blank"])
def test_score_sheet_renders_to_png_for_the_readme(tmp_path: Path, filled: bool) -> None:
    data = pdf.render_scoresheets([sheet(filled=filled)], printed_at="2026-11-29 13:30")
    source = tmp_path / "sheet.pdf"
    source.write_bytes(data)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "110", "-singlefile", str(source), str(tmp_path / "sheet")],
        check=True,
        capture_output=True,
    )
    png = tmp_path / "sheet.png"
    assert png.read_bytes().startswith(b"\x89PNG")
    from PIL import Image

    with Image.open(png) as image:
        assert image.size[1] > image.size[0]  # A4 portrait
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = "scoresheet.png" if filled else "scoresheet-blank.png"
    shutil.copyfile(png, SCREENSHOTS / name)


@pytest.mark.skipif(
    shutil.which("pdftoppm") is None or shutil.which("zbarimg") is None,
    reason="pdftoppm or zbarimg not installed (Debian: poppler-utils, zbar-tools)",
)
def test_printed_qr_codes_scan_back_to_the_entry_links(tmp_path: Path) -> None:
    urls = [f"https://gd.example.org/table/{'Tk' * 10}{i:03d}/" for i in range(0, 400, 97)]
    sheets = [ScoreSheet("赛", 1, i + 1, NS, EW, entry_url=url) for i, url in enumerate(urls)]
    source = tmp_path / "sheets.pdf"
    source.write_bytes(pdf.render_scoresheets(sheets))
    subprocess.run(
        ["pdftoppm", "-png", "-r", "120", str(source), str(tmp_path / "p")],
        check=True,
        capture_output=True,
    )
    decoded = []
    for png in sorted(tmp_path.glob("p-*.png")):
        out = subprocess.run(
            ["zbarimg", "-q", "--raw", str(png)], capture_output=True, text=True, check=False
        )
        decoded.append(out.stdout.strip())
    assert decoded == urls


def test_progress_bar_draws_in_place_on_a_terminal_and_stays_quiet_in_logs() -> None:
    from reports.management.commands._progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    bar = ProgressBar("记分表", terminal)
    for done in range(1, 1001):
        bar(done, 1000)
    bar.finish(1000, 1000)
    out = terminal.getvalue()
    assert out.startswith("\r记分表 [") and out.endswith("\n")
    assert " 1000/1000  100%" in out
    assert out.count("\r") < 100  # redrawn at most ten times a second, not per sheet
    log = io.StringIO()
    quiet = ProgressBar("记分表", log)
    quiet(1, 2)
    assert log.getvalue() == ""


def test_standings_print_the_settings_block_and_the_upgrades_footnote() -> None:
    # Issue 12: the scoring settings actually used and what 升级数 counts, under the table.
    base = standings_doc()
    doc = Standings(
        base.tournament,
        base.after_round,
        base.final,
        base.columns,
        base.lines,
        "江苏2017",
        settings=(("规则", "江苏2017（26分制）"), ("弃权", "出席方 2 场分 + 18 级差分")),
        notes=("升级数 = 每场最终级数 − 2",),
    )
    text = "".join(text_of(pdf.render_standings(doc)))
    assert "升级数 = 每场最终级数 − 2" in text
    assert "赛事设置：规则 江苏2017（26分制）；弃权 出席方 2 场分 + 18 级差分" in text
    assert "赛事设置" not in "".join(text_of(pdf.render_standings(base)))
