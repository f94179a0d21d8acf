"""Excel renderers: the full export of a tournament and the registration template.

Input: the plain rows of ``reports.rows``; output: ``.xlsx`` bytes. The export streams through
``reports.sheetwriter`` (a million cells for 2,000 pairs × 9 rounds; openpyxl without lxml is
too slow for the 10 s goal), the template is built with openpyxl. No Django, no database.

Every sheet has a bold, shaded header row that stays frozen when scrolling and column widths
that fit Chinese text (a CJK character counts as two). Text cells that a spreadsheet would read
as a formula (starting with ``= + - @``, or a tab / carriage return) are escaped with a leading
apostrophe (OWASP "CSV injection"); numbers stay numbers.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO

from openpyxl import Workbook as XlsxWorkbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from .rows import (
    DealRecord,
    MatchSummary,
    PairInfo,
    PenaltyReport,
    RegistrationLine,
    ResultLine,
    Standings,
    Workbook,
)
from .sheetwriter import StreamingWorkbook, escape_formula

HEADER_FONT = Font(bold=True)
HEADER_FILL = PatternFill("solid", fgColor="E6E6E6")
HEADER_ALIGN = Alignment(horizontal="center", vertical="center", wrap_text=True)

# The registration template (RULES.md: 单位 = club, company or city).
REGISTRATION_HEADERS = ("序号", "单位", "牌手1", "牌手2", "牌手1联系方式", "牌手2联系方式")


def escape(value: Any) -> Any:
    """A text cell that would be read as a formula gets a leading apostrophe (the export's
    writer applies it to every text cell)."""
    return escape_formula(value) if isinstance(value, str) else value


def display_width(text: str) -> int:
    """Column width units: a CJK (wide) character counts two, others one."""
    return sum(2 if ord(ch) > 0x2E7F else 1 for ch in text)


def _width(header: str, least: int) -> int:
    return max(display_width(header) + 3, least)


def _hint(values: Iterable[str], cap: int = 40) -> int:
    """A column width from (a sample of) its values."""
    best = 0
    for i, value in enumerate(values):
        if i > 2000:
            break
        best = max(best, display_width(value or ""))
    return max(min(best + 2, cap), 8)


def _blank(value: float | int | None) -> Any:
    return value


def _pair_cells(pair: PairInfo | None) -> list[Any]:
    if pair is None:
        return ["", "", ""]
    return [pair.number, pair.names, pair.unit]


def standings_rows(doc: Standings) -> tuple[list[str], list[list[Any]]]:
    headers = ["名次", "队号", "队名", "单位"] if doc.teams else ["名次", "对号", "牌手", "单位"]
    headers += [col.label for col in doc.columns]
    headers += ["胜", "平", "负", "扣分", "名次依据"]
    rows = []
    for line in doc.lines:
        rows.append(
            [line.rank, line.pair.number, line.pair.names, line.pair.unit]
            + [_blank(line.values.get(col.key)) for col in doc.columns]
            + [line.wins, line.draws, line.losses, line.deductions, line.decided_by]
        )
    return headers, rows


RESULT_HEADERS = (
    "桌号",
    "南北对号",
    "南北牌手",
    "南北单位",
    "东西对号",
    "东西牌手",
    "东西单位",
    "状态",
    "南北终局级数",
    "东西终局级数",
    "级差",
    "南北级差分",
    "东西级差分",
    "南北场分",
    "东西场分",
    "结束方式",
    "说明",
)


def _result_cells(s: MatchSummary) -> list[Any]:
    return [s.ns_level, s.ew_level, s.jc, s.ns_jcf, s.ew_jcf, s.ns_cf, s.ew_cf]


def result_rows(lines: Iterable[ResultLine]) -> Iterable[list[Any]]:
    for line in lines:
        s = line.summary
        yield (
            [line.table_number]
            + _pair_cells(line.ns)
            + _pair_cells(line.ew)
            + [line.status]
            + (
                [*_result_cells(s), s.end, s.note]
                if s is not None
                else ["", "", "", "", "", "", "", "", ""]
            )
        )


DEAL_HEADERS = (
    "轮次",
    "桌号",
    "南北对号",
    "东西对号",
    "副数",
    "所打级数",
    "上游方",
    "对家名次",
    "升级",
    "南北级数",
    "东西级数",
    "备注",
    "记录",
)


def deal_rows(deals: Iterable[DealRecord]) -> Iterable[list[Any]]:
    for d in deals:
        line = d.line
        yield [
            d.round_number,
            d.table_number,
            d.ns_number,
            d.ew_number,
            _blank(line.deal_number),
            line.level_played,
            line.first_side,
            line.partner_place,
            line.upgrade,
            line.ns_level,
            line.ew_level,
            line.note,
            d.token,
        ]


PENALTY_HEADERS = (
    "轮次",
    "桌号",
    "对号",
    "牌手",
    "受罚选手",
    "类别",
    "副数",
    "扣级差分",
    "原因",
    "裁判",
    "时间",
)


def penalty_rows(doc: PenaltyReport) -> Iterable[list[Any]]:
    for p in doc.lines:
        yield [
            _blank(p.round_number),
            _blank(p.table_number),
            p.pair.number,
            p.pair.names,
            p.player,
            p.kind,
            _blank(p.deal),
            _blank(p.jcf),
            p.reason,
            p.referee,
            p.time,
        ]


SETTINGS_HEADERS = ("项目", "设置")


def settings_rows(doc: Standings) -> Iterable[list[Any]]:
    """The scoring settings (preset, scale, A rules, tie, forfeit and bye) and the standings'
    footnotes (what 升级数 counts)."""
    for label, value in doc.settings:
        yield [label, value]
    for note in doc.notes:
        yield ["说明", note]


REGISTRATION_EXPORT_HEADERS = (*REGISTRATION_HEADERS, "状态")


def registration_rows(lines: Iterable[RegistrationLine]) -> Iterable[list[Any]]:
    for r in lines:
        yield [r.number, r.unit, r.player1, r.player2, r.contact1, r.contact2, r.status]


def render_workbook(doc: Workbook, target: BinaryIO | None = None) -> bytes:
    """The full export: 排名 (every criterion), one sheet per round, 牌局, 判罚, 报名, 设置.

    Streamed with ``reports.sheetwriter`` (see there why not openpyxl for this one).
    """
    buffer = target if target is not None else io.BytesIO()
    with StreamingWorkbook(buffer) as book:
        headers, rows = standings_rows(doc.standings)
        names = [line.pair.names for line in doc.standings.lines]
        units = [line.pair.unit for line in doc.standings.lines]
        widths = [6, 6, _hint(names), _hint(units)]
        widths += [_width(col.label, 8) for col in doc.standings.columns] + [5, 5, 5, 6, 12]
        book.add_sheet("团体排名" if doc.standings.teams else "排名", headers, rows, widths)
        if doc.pair_standings is not None:  # a team event: the pairs ranked inside it
            pair_headers, pair_rows = standings_rows(doc.pair_standings)
            book.add_sheet("各对排名", pair_headers, pair_rows, widths)
        for number, lines in doc.rounds:
            w_names = _hint(line.ns.names for line in lines[:500])
            w_units = _hint(line.ns.unit for line in lines[:500])
            widths = [6, 8, w_names, w_units, 8, w_names, w_units, 8, 12, 12, 6, 10, 10, 8, 8]
            widths += [10, 16]
            book.add_sheet(f"第{number}轮", RESULT_HEADERS, result_rows(lines), widths)
        book.add_sheet(
            "牌局",
            DEAL_HEADERS,
            deal_rows(doc.deals),
            [6, 6, 8, 8, 6, 8, 8, 8, 6, 8, 8, 14, 12],
        )
        penalties = doc.penalties.lines
        book.add_sheet(
            "判罚",
            PENALTY_HEADERS,
            penalty_rows(doc.penalties),
            [6, 6, 6, 20, 10, 10, 6, 8, _hint(p.reason for p in penalties), 10, 17],
        )
        regs = doc.registrations
        book.add_sheet(
            "报名",
            REGISTRATION_EXPORT_HEADERS,
            registration_rows(regs),
            [6, _hint(r.unit for r in regs), 12, 12, 16, 16, 8],
        )
        for name, headers, rows in doc.stages:
            widths = [max(6, _width(h, 6)) for h in headers]
            book.add_sheet(name, headers, rows, widths)
        book.add_sheet(
            "设置",
            SETTINGS_HEADERS,
            settings_rows(doc.standings),
            [14, _hint((value for _, value in doc.standings.settings), 80)],
        )
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


def _template_sheet(
    book: XlsxWorkbook, title: str, headers: Sequence[str], widths: Sequence[int]
) -> Any:
    """The first sheet of a registration template: the header row (bold, shaded, frozen)."""
    ws = book.active
    ws.title = title
    ws.append(list(headers))
    for i, cell in enumerate(ws[1], start=1):
        cell.font = HEADER_FONT
        cell.fill = HEADER_FILL
        cell.alignment = HEADER_ALIGN
        ws.column_dimensions[get_column_letter(i)].width = widths[i - 1]
    ws.freeze_panes = "A2"
    numbers = DataValidation(
        type="whole", operator="greaterThan", formula1="0", allow_blank=True, showErrorMessage=True
    )
    numbers.error = "序号须为正整数"
    numbers.add("A2:A1000")
    ws.add_data_validation(numbers)
    return ws


def _template_notes(book: XlsxWorkbook, lines: Sequence[str]) -> None:
    notes = book.create_sheet("填写说明")
    notes.column_dimensions["A"].width = 100
    for line in lines:
        notes.append([line])
    notes["A1"].font = Font(bold=True, size=14)


def _saved(book: XlsxWorkbook, target: BinaryIO | None) -> bytes:
    buffer = target if target is not None else io.BytesIO()
    book.save(buffer)
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


def render_registration_template(
    tournament: str = "", example: bool = False, target: BinaryIO | None = None
) -> bytes:
    """The registration template: sheet 报名表 with the header row, sheet 填写说明 with the
    rules of the import. ``example`` adds two sample lines (for tests and demos only: an
    organizer who forgot to delete them would register them)."""
    book = XlsxWorkbook()
    ws = _template_sheet(book, "报名表", REGISTRATION_HEADERS, (10, 24, 14, 14, 18, 18))
    if example:
        ws.append([1, "南京市掼蛋协会", "张三", "李四", "", ""])
        ws.append([2, "苏州俱乐部", "王五", "赵六", "", ""])
    # Text format for the contact columns so phone numbers keep their leading zeros.
    for col in ("E", "F"):
        for row in range(2, 1001):
            ws[f"{col}{row}"].number_format = "@"
    _template_notes(
        book,
        [
            f"{tournament} 报名表填写说明" if tournament else "报名表填写说明",
            "",
            "1. 在“报名表”工作表中每行填写一对：序号、单位、牌手1、牌手2；联系方式可不填。",
            "2. 序号为正整数，不能重复，也不能与已报名的对号重复；序号即参赛对号。",
            "3. 单位可留空；同一单位请写完全相同的名称（编排时同单位尽量不相遇）。",
            "4. 牌手姓名不能为空，不超过 100 个字符。",
            "5. 请勿修改第一行的列名；空行会被忽略。",
            "6. 导入时整张表检查无误才会导入；有任何问题将逐行列出（如“第7行 牌手2 为空”），"
            "一条也不会导入。",
            "",
            "示例：",
            "序号　单位　　　　　牌手1　牌手2　牌手1联系方式　牌手2联系方式",
            "1　　　南京市掼蛋协会　张三　　李四　　13800000000",
        ],
    )
    return _saved(book, target)


# The team registration template (docs/registrations.md): one row per team, its pairs by column.
TEAM_REGISTRATION_HEADERS = ("序号", "队名", "单位", *(f"牌手{i}" for i in range(1, 7)))
TEAM_EXAMPLE = (
    (1, "南京一队", "南京市掼蛋协会", "张三", "李四", "王五", "赵六", "", ""),
    (2, "苏州队", "苏州俱乐部", "钱七", "孙八", "周九", "吴十", "郑一", "冯二"),
)


def render_team_registration_template(
    tournament: str = "", example: bool = False, target: BinaryIO | None = None
) -> bytes:
    """The team registration template: sheet 团体报名表 (序号, 队名, 单位, 牌手1…牌手6) and
    sheet 填写说明. ``example`` adds two sample teams (tests and demos only)."""
    book = XlsxWorkbook()
    ws = _template_sheet(
        book, "团体报名表", TEAM_REGISTRATION_HEADERS, (8, 18, 22, 12, 12, 12, 12, 12, 12)
    )
    if example:
        for line in TEAM_EXAMPLE:
            ws.append(list(line))
    _template_notes(
        book,
        [
            f"{tournament} 团体报名表填写说明" if tournament else "团体报名表填写说明",
            "",
            "1. 在“团体报名表”工作表中每行填写一队：序号、队名、单位、牌手1至牌手6。",
            "2. 每队4至6人，两人一对：牌手1与牌手2为第1对，牌手3与牌手4为第2对，"
            "牌手5与牌手6为第3对（可不填，须同时填写或同时留空）。",
            "3. 默认出场名单为前两对：第1对坐甲桌南北，第2对坐甲1桌东西；"
            "每轮公布前队长或组织者可另选。",
            "4. 序号为正整数，即队号，不能重复，也不能与已报名的队号重复；各对按表中顺序接续编号。",
            "5. 队名不能为空，不能重复；单位可留空，同一单位请写完全相同的名称"
            "（编排时同单位的队尽量不相遇）。",
            "6. 请勿修改第一行的列名；空行会被忽略。",
            "7. 导入时整张表检查无误才会导入；有任何问题将逐行列出（如“第7行 牌手4 为空”），"
            "一条也不会导入。",
            "",
            "示例：",
            "序号　队名　　　单位　　　　　牌手1　牌手2　牌手3　牌手4　牌手5　牌手6",
            "1　　　南京一队　南京市掼蛋协会　张三　　李四　　王五　　赵六",
        ],
    )
    return _saved(book, target)
