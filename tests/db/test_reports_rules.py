"""Printing and Excel under issue 12's rules (RULES.md §2–§3, TOURNAMENT_FILE.md): a deal loss
prints as "南北本副判负", the extra deal of a level tie as a line marked 加打, a late scoresheet
in the result box (before the winner) with the late side's 0 场分 and 0 级差分, the end in its
own Excel column, and the settings block (the preset by the seed it follows, the tie rule, how A
is passed and failures counted, the forfeit and bye awards actually used) with what 升级数
counts."""

from __future__ import annotations

import io
from typing import Any

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from reports import collect, pdf, xlsx
from rules.ruleset import RuleSet, preset_settings
from scoring import services as scoring_services
from tests.support.tournament import build_tournament, enter_tokens, next_round
from tournaments.models import Table, Tournament

TIED = ["NS1", "EW1"] * 4  # 6 : 6 after 8 deals
EIGHT = ["NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1"]  # NS 9 : EW 7
# Table number → (events, end).
PLAYED: dict[int, tuple[list[str], tuple[str, str] | None]] = {
    1: (["lose:NS", *EIGHT[1:]], None),
    2: ([*TIED, "EW2"], None),  # the extra deal (the ninth) decides: EW
    3: (EIGHT, ("late_sheet", "NS")),
    4: (EIGHT, None),
}


def pages(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


@pytest.fixture
def jiangsu(organizer: Any, chief: Any, referee: Any, referee2: Any) -> Tournament:
    """The Jiangsu 2017 preset (tie: extra_deal), round 1 played as ``PLAYED`` and confirmed."""
    settings = {**preset_settings("jiangsu2017"), "rounds": 7, "seed": 20261129}
    tournament = build_tournament(organizer, chief, [referee, referee2], settings=settings)
    rnd = next_round(tournament, organizer)
    for table in rnd.tables.filter(is_bye=False).order_by("number"):
        tokens, end = PLAYED[table.number]
        table = enter_tokens(table, tokens, chief)
        if end is not None:
            table = scoring_services.set_end(table, *end, chief, table.version)
        table = scoring_services.mark_entered(table, chief, table.version)
        scoring_services.confirm_table(table, referee, table.version)
    assert Table.objects.filter(round=rnd, entry_status="confirmed").count() == 4
    return tournament


def test_score_sheets_print_deal_losses_the_extra_deal_and_late_sheets(
    jiangsu: Tournament,
) -> None:
    sheets = {s.table_number: s for s in collect.score_sheets(jiangsu, 1, filled=True)}
    loss = sheets[1].lines[0]
    assert (loss.deal_number, loss.note, loss.first_side) == (1, "南北本副判负", "")
    assert "升级调整" not in loss.note
    extra = sheets[2].lines[-1]
    assert extra.deal_number == 9 and extra.note == "加打"
    assert all("加打" not in line.note for line in sheets[2].lines[:-1])
    assert sheets[2].result is not None and sheets[2].result.note == "东西胜"
    assert sheets[2].result.extra_deal
    late = sheets[3].result
    assert late is not None
    assert late.note == "南北迟交记分表（按弃权记分）"
    # NS won the deals 9:7 but is scored as a forfeit loss; EW keeps the result (a loss).
    assert (late.ns_cf, late.ns_jcf, late.ew_cf, late.ew_jcf) == (0, 0, 0, 11)
    assert late.end == "迟交记分表"
    assert sheets[4].result is not None and sheets[4].result.end == ""
    texts = pages(pdf.render_scoresheets([sheets[1], sheets[2], sheets[3]]))
    assert "南北本副判负" in texts[0]
    assert "加打" in texts[1]
    # The remark takes both rows of its cell, split before the bracket.
    assert "南北迟交记分表\n（按弃权记分）" in texts[2]


def test_excel_results_have_the_end_column_and_deals_the_new_notes(jiangsu: Tournament) -> None:
    book = load_workbook(io.BytesIO(xlsx.render_workbook(collect.workbook(jiangsu))))
    results = list(book["第1轮"].iter_rows(values_only=True))
    header = results[0]
    assert header[-2:] == ("结束方式", "说明")
    by_table = {row[0]: row for row in results[1:]}
    assert by_table[3][-2:] == ("迟交记分表", "南北迟交记分表（按弃权记分）")
    assert by_table[3][13] == 0 and by_table[3][11] == 0  # NS 场分, NS 级差分
    assert by_table[4][-2] is None or by_table[4][-2] == ""
    deals = list(book["牌局"].iter_rows(values_only=True))
    notes = {(row[1], row[4]): row[11] for row in deals[1:]}
    assert notes[(1, 1)] == "南北本副判负"
    assert notes[(2, 9)] == "加打"
    settings = dict(row[:2] for row in book["设置"].iter_rows(values_only=True))
    assert settings["规则"] == "江苏2017（26分制）"
    assert settings["级数相同"] == "加打一副决定胜负"
    assert settings["弃权"] == "出席方 2 场分 + 17 级差分，弃权方 0"
    assert settings["说明"].startswith("升级数 = 每场最终级数 − 2")


def test_standings_print_the_settings_block_and_what_upgrades_count(
    jiangsu: Tournament,
) -> None:
    doc = collect.standings(jiangsu, 1)
    assert "升级数" in doc.criteria
    text = "".join(pages(pdf.render_standings(doc)))
    assert "升级数 = 每场最终级数 − 2" in text
    assert "江苏2017（26分制）" in text
    assert "级数相同 加打一副决定胜负" in text
    assert "过A 头游且对家二游或三游" in text


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (
            {},
            {
                "规则": "规程",
                "打A": "A必打，打A不过不降级",
                "过A": "头游且对家二游或三游",
                "级数相同": "平局",
                "弃权": "出席方 2 场分 + 17 级差分，弃权方 0",
                "轮空": "2 场分 + 17 级差分",
            },
        ),
        (
            {"scale": "28", "a_rule": "reset_to_2", "a_fail_count": "stage"},
            {
                "规则": "自定义",
                "级差分": "28 级差分表",
                "打A": "打A3次未过降回2",
                "打A失败计数": "每次上台打A被推翻计一次",
                # RULES.md §2: the scale's 4-level win, 18 on the 28 scale.
                "弃权": "出席方 2 场分 + 18 级差分，弃权方 0",
                "轮空": "2 场分 + 18 级差分",
            },
        ),
        (
            {"a_pass": "double_only", "bye": {"cf": 1, "jcf": 13}},
            {"规则": "自定义", "过A": "只有对方双下才算过A", "轮空": "1 场分 + 13 级差分"},
        ),
        (
            {**preset_settings("jiangsu2017"), "deals_per_round": 6},
            {"规则": "江苏2017（26分制）", "赛制": "计副制 每轮 6 副"},
        ),
    ],
)
def test_the_settings_block_names_the_preset_and_the_values_used(
    given: dict[str, Any], expected: dict[str, str]
) -> None:
    block = dict(collect.settings_block(RuleSet.from_dict(given)))
    for label, value in expected.items():
        assert block[label] == value, label
    if "a_rule" not in given:
        assert "打A失败计数" not in block  # only meaningful with reset_to_2


def test_the_score_sheet_hint_follows_how_a_is_passed(
    organizer: Any, chief: Any, referee: Any
) -> None:
    settings = {**preset_settings("regulation"), "a_pass": "double_only", "seed": 1}
    tournament = build_tournament(organizer, chief, [referee], settings=settings)
    next_round(tournament, organizer)
    sheet = collect.score_sheets(tournament, 1)[0]
    assert sheet.hint.endswith("打 A 时须对方双下（对家二游）方可过 A")
    assert "须对方双下" in pages(pdf.render_scoresheets([sheet]))[0]
