"""The score sheet (记分表, RULES.md §7): one fixed A4 form a table, its static frame drawn once
per run and reused, the table's own values (pairs, QR code, and on a filled sheet the deals and
the result) drawn on top."""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

from reportlab.lib.colors import HexColor
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from reports.pdf.common import (
    FILL_INK,
    INK,
    MARGIN,
    MUTED,
    RULE,
    SHADE,
    Progress,
    batched_text,
    binary_streams,
    cell_text,
    draw_box,
    draw_grid,
    draw_qr,
    draw_text,
    fit,
    format_number,
    new_canvas,
    print_time,
    shade,
    text_width,
)
from reports.rows import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    ScoreSheet,
)
from tournaments.wording import printed_side

# --- score sheets -------------------------------------------------------------------------


DEAL_COLUMNS = (
    ("副数", 34.0),
    ("所打级数", 56.0),
    ("上游方", 82.0),
    ("对家名次", 100.0),
    ("升级", 40.0),
    ("南北级数", 58.0),
    ("东西级数", 58.0),
)  # the rest of the width is 备注 (remarks)
RESULT_COLUMNS = (("", 66.0), ("终局级数", 92.0), ("级差", 70.0), ("级差分", 92.0), ("场分", 70.0))
QR_SIZE = 78.0
# RULES.md §7, as the phones do it (issue 15: the paper said "西家填写，北家核对").
SHEET_FOOTER = (
    "南家逐副录入（扫右上角二维码），西家用东西方对号密码确认；东家留存纸表核对。"
    "每副牌结束后立即记录，成绩有误应在离座前提出。"
)
PAIR_LABEL_W = 54.0
PAIR_ROW_H = 21.0
GRID_HEADER_H = 22.0
RESULT_ROW_H = 26.0


@dataclass(frozen=True, slots=True)
class SheetLayout:
    """Where everything goes on a score sheet with ``rows`` deal lines. The static parts (rules,
    labels, boxes) depend only on this and the shared texts, so they are drawn once per run as a
    PDF form and stamped on every page; each sheet then adds only its own values."""

    rows: int
    left: float
    right: float
    top: float
    pair_top: float
    hint_y: float
    grid_top: float
    line_h: float
    deal_widths: tuple[float, ...]
    result_top: float
    result_widths: tuple[float, ...]
    sig_bottom: float
    sig_h: float

    @classmethod
    def for_rows(cls, rows: int) -> SheetLayout:
        page_w, page_h = A4
        left, right = MARGIN, page_w - MARGIN
        width = right - left
        top = page_h - MARGIN
        pair_top = top - QR_SIZE - 22
        hint_y = pair_top - 4 * PAIR_ROW_H - 16
        grid_top = hint_y - 10
        # Bottom up: signatures, the result boxes (title + 3 rows); the grid takes the rest, rows
        # no taller than 12 mm (handwriting), no shorter than 5 mm (long 计局制 matches).
        available = grid_top - GRID_HEADER_H - (MARGIN + 14 + 58 + 22 + 22 + 3 * RESULT_ROW_H + 8)
        line_h = max(14.0, min(34.0, available / max(rows, 1)))
        deal_widths = [w for _, w in DEAL_COLUMNS]
        deal_widths.append(width - sum(deal_widths))
        result_top = grid_top - GRID_HEADER_H - rows * line_h - 22 - 4
        result_widths = [w for _, w in RESULT_COLUMNS]
        result_widths.append(width - sum(result_widths))
        sig_bottom = MARGIN + 14
        below_results = result_top - 3 * RESULT_ROW_H - 14
        sig_h = max(46.0, min(72.0, below_results - sig_bottom))
        return cls(
            rows,
            left,
            right,
            top,
            pair_top,
            hint_y,
            grid_top,
            line_h,
            tuple(deal_widths),
            result_top,
            tuple(result_widths),
            sig_bottom,
            sig_h,
        )

    @property
    def width(self) -> float:
        return self.right - self.left


def _draw_frame(c: Canvas, lay: SheetLayout, sheet: ScoreSheet, printed_at: str) -> None:
    """The static part of a score sheet: everything but the table's own values."""
    page_w = A4[0]
    left, top, width = lay.left, lay.top, lay.width
    half = width / 2
    if sheet.entry_url:
        draw_text(c, lay.right - QR_SIZE / 2, top - QR_SIZE - 9, "南家扫码录入", 7, "center", MUTED)
    draw_text(c, left, top - 46, f"第 {sheet.round_number} 轮", 13)
    if sheet.round_format:
        draw_text(c, left, top - 62, sheet.round_format, 9, color=MUTED)
    title_w = width - 2 * (QR_SIZE + 12)
    draw_text(c, page_w / 2, top - 22, fit(sheet.tournament, title_w, 15), 15, "center", bold=True)
    draw_text(c, page_w / 2, top - 50, "记  分  表", 22, "center", bold=True)
    if sheet.filled:
        draw_text(c, page_w / 2, top - 68, "（成绩确认后打印，即录入记录）", 9, "center", MUTED)

    # The two pairs, players by direction.
    row_h, label_w, pair_top = PAIR_ROW_H, PAIR_LABEL_W, lay.pair_top
    shade(c, left, pair_top - row_h, width, row_h)
    for i, seats in enumerate(((NORTH, SOUTH), (EAST, WEST))):
        x0 = left + i * half
        cell_text(c, x0, pair_top - 2 * row_h, label_w, row_h, "单位", 9.5, color=MUTED)
        for j, seat in enumerate(seats):
            cell_text(c, x0, pair_top - (3 + j) * row_h, label_w, row_h, seat, 10, color=MUTED)
    draw_grid(c, left, pair_top, (label_w, half - label_w, label_w, half - label_w), (row_h,) * 4)
    # The header row spans each half: white-out the inner label divider there.
    c.setStrokeColor(SHADE)
    c.setLineWidth(1.2)
    for x0 in (left + label_w, left + half + label_w):
        c.line(x0, pair_top - 0.6, x0, pair_top - row_h + 0.6)
    draw_box(c, left, pair_top - 4 * row_h, width, 4 * row_h, 1.0)
    c.setLineWidth(1.0)
    c.setStrokeColor(RULE)
    c.line(left + half, pair_top, left + half, pair_top - 4 * row_h)

    draw_text(c, left + 130, lay.hint_y, sheet.hint, 8.5, color=MUTED)

    # The deal grid.
    widths, line_h, grid_top = lay.deal_widths, lay.line_h, lay.grid_top
    labels = [label for label, _ in DEAL_COLUMNS] + ["备注"]
    shade(c, left, grid_top - GRID_HEADER_H, width, GRID_HEADER_H)
    xx = left
    for label, w in zip(labels, widths, strict=True):
        cell_text(c, xx, grid_top - GRID_HEADER_H, w, GRID_HEADER_H, label, 10)
        xx += w
    if not sheet.filled:
        size = 10.5 if line_h >= 18 else 9
        for i in range(lay.rows):
            yy = grid_top - GRID_HEADER_H - (i + 1) * line_h
            cells = (str(i + 1), "", "□南北  □东西", "□二游 □三游 □末游", "+")
            xx = left
            for k, (text, w) in enumerate(zip(cells, widths, strict=False)):
                color = INK if k == 0 else MUTED
                cell_text(c, xx, yy, w, line_h, text, size if k == 0 else size - 1.5, color=color)
                xx += w
    grid_h = GRID_HEADER_H + lay.rows * line_h
    draw_grid(c, left, grid_top, widths, [GRID_HEADER_H] + [line_h] * lay.rows, 0.4)
    draw_box(c, left, grid_top - grid_h, width, grid_h, 1.0)

    # Result boxes: final levels, 级差, 级差分, 场分 for both sides, and a remark.
    res_h, res_top, res_widths = RESULT_ROW_H, lay.result_top, lay.result_widths
    draw_text(c, left, res_top + 8, "比赛结果", 11, bold=True)
    shade(c, left, res_top - res_h, width, res_h)
    xx = left
    for label, w in zip([label for label, _ in RESULT_COLUMNS] + ["说明"], res_widths, strict=True):
        cell_text(c, xx, res_top - res_h, w, res_h, label, 10)
        xx += w
    for i, side in enumerate((printed_side("NS"), printed_side("EW"))):
        cell_text(c, left, res_top - (i + 2) * res_h, res_widths[0], res_h, f"{side}方", 10.5)
    draw_grid(c, left, res_top, res_widths, (res_h, res_h, res_h), 0.4)
    # 级差 is one number for the match and the remark one note: cells spanning both rows.
    c.setFillColor(HexColor("#ffffff"))
    for k in (2, 5):
        x0 = left + sum(res_widths[:k])
        c.rect(x0 + 0.3, res_top - 3 * res_h + 0.3, res_widths[k] - 0.6, 2 * res_h - 0.6, 0, 1)
    draw_box(c, left, res_top - 3 * res_h, width, 3 * res_h, 1.0)

    # Signatures at the foot of the page: both pairs and the referee.
    sig_w = (width - 2 * 10) / 3
    for i, label in enumerate(("南北方签名", "东西方签名", "裁判签名")):
        x0 = left + i * (sig_w + 10)
        draw_box(c, x0, lay.sig_bottom, sig_w, lay.sig_h, 0.6)
        draw_text(c, x0 + 6, lay.sig_bottom + lay.sig_h - 14, label, 9, color=MUTED)
    draw_text(
        c,
        left,
        MARGIN,
        SHEET_FOOTER,
        8,
        color=MUTED,
    )
    if printed_at:
        draw_text(c, lay.right, MARGIN - 14, f"打印时间 {printed_at}", 8, "right", MUTED)


def _draw_values(c: Canvas, lay: SheetLayout, sheet: ScoreSheet) -> None:
    """The table's own values on top of the frame."""
    left, top, width = lay.left, lay.top, lay.width
    half = width / 2
    value_ink = FILL_INK if sheet.filled else INK
    if sheet.entry_url:
        draw_qr(c, sheet.entry_url, lay.right - QR_SIZE, top - QR_SIZE, QR_SIZE)
    draw_text(c, left, top - 26, f"第 {sheet.table_number} 桌", 24, bold=True)
    if sheet.match_label:  # a team match: which match, which of its two tables
        draw_text(c, left, top - 80, fit(sheet.match_label, width / 2, 9.5), 9.5, bold=True)
    row_h, label_w, pair_top = PAIR_ROW_H, PAIR_LABEL_W, lay.pair_top
    sides = ((sheet.ns, "南北方", sheet.ns_team), (sheet.ew, "东西方", sheet.ew_team))
    for i, (pair, side, team) in enumerate(sides):
        x0 = left + i * half
        head = f"{side}  第 {pair.number} 对" + (f"  {team}" if team else "")
        cell_text(c, x0, pair_top - row_h, half, row_h, fit(head, half - 8, 11), 11)
        if sheet.codes and pair.code:
            # The pair's code on its own half (issue 15), for the side that proves itself.
            draw_text(
                c, x0 + half - 6, pair_top - row_h + 7, f"密码 {pair.code}", 9, "right", MUTED
            )
        value_w = half - label_w
        cell_text(c, x0 + label_w, pair_top - 2 * row_h, value_w, row_h, pair.unit, 10.5, "left")
        for j in range(2):
            yy = pair_top - (3 + j) * row_h
            cell_text(c, x0 + label_w, yy, value_w, row_h, pair.player(j), 11, "left")
    draw_text(
        c,
        left,
        lay.hint_y,
        f"起始级数：南北 {sheet.start_ns}　东西 {sheet.start_ew}",
        8.5,
        color=MUTED,
    )
    if sheet.filled:
        widths, line_h = lay.deal_widths, lay.line_h
        size = 10.5 if line_h >= 18 else 9
        for i in range(min(lay.rows, len(sheet.lines) + 1)):
            yy = lay.grid_top - GRID_HEADER_H - (i + 1) * line_h
            if i == len(sheet.lines):
                # An official record: nothing may be added below the last entered line.
                x0 = left + sum(widths[:3])
                cell_text(c, x0, yy, widths[3], line_h, "（以下空白）", size - 1.5, color=MUTED)
                continue
            d = sheet.lines[i]
            cells = (
                str(d.deal_number) if d.deal_number else "—",
                d.level_played,
                d.first_side,
                d.partner_place,
                f"+{d.upgrade}" if d.upgrade else "",
                d.ns_level,
                d.ew_level,
                d.note,
            )
            xx = left
            for k, (text, w) in enumerate(zip(cells, widths, strict=True)):
                cell_text(c, xx, yy, w, line_h, text, size, color=INK if k == 0 else value_ink)
                xx += w
    r = sheet.result
    if r is not None:
        res_h, res_top, res_widths = RESULT_ROW_H, lay.result_top, lay.result_widths
        for i, values in enumerate(
            (
                (r.ns_level, format_number(r.ns_jcf), format_number(r.ns_cf)),
                (r.ew_level, format_number(r.ew_jcf), format_number(r.ew_cf)),
            )
        ):
            yy = res_top - (i + 2) * res_h
            for k, text in zip((1, 3, 4), values, strict=True):
                x0 = left + sum(res_widths[:k])
                cell_text(c, x0, yy, res_widths[k], res_h, text, 12.5, color=value_ink)
        bottom = res_top - 3 * res_h
        jc_x = left + sum(res_widths[:2])
        cell_text(c, jc_x, bottom, res_widths[2], 2 * res_h, str(r.jc), 14, color=value_ink)
        if r.note:
            note_x, note_w = left + sum(res_widths[:5]), res_widths[5]
            lines = _note_lines(r.note, note_w - 6, 11)
            if len(lines) == 1:
                cell_text(c, note_x, bottom, note_w, 2 * res_h, r.note, 11, color=value_ink)
            else:
                # A long remark ("南北迟交记分表（按弃权记分）") takes both rows of its cell.
                for k, line in enumerate(lines):
                    yy = bottom + (1 - k) * res_h
                    cell_text(c, note_x, yy, note_w, res_h, line, 11, color=value_ink)
    if sheet.filled and sheet.confirmed:
        draw_text(c, left, MARGIN - 14, fit(sheet.confirmed, width * 0.7, 8), 8, color=MUTED)


def _note_lines(note: str, width: float, size: float) -> tuple[str, ...]:
    """The result remark on one line, or on two split before its bracket when too wide."""
    if text_width(note, size) <= width or "（" not in note:
        return (note,)
    head, _, tail = note.partition("（")
    return head, "（" + tail


def _frame_key(sheet: ScoreSheet, rows: int, printed_at: str) -> tuple:
    return (
        sheet.tournament,
        sheet.round_number,
        sheet.round_format,
        sheet.hint,
        rows,
        sheet.filled,
        bool(sheet.entry_url),
        printed_at,
    )


def draw_scoresheet(
    c: Canvas, sheet: ScoreSheet, printed_at: str = "", frames: dict[tuple, str] | None = None
) -> None:
    """One A4 score sheet on the current page (the caller calls ``showPage``).

    ``frames`` caches the static part as PDF forms across the sheets of one canvas.
    """
    rows = max(sheet.rows, len(sheet.lines))
    lay = SheetLayout.for_rows(rows)
    if frames is None:
        _draw_frame(c, lay, sheet, printed_at)
    else:
        key = _frame_key(sheet, rows, printed_at)
        name = frames.get(key)
        if name is None:
            name = f"sheetframe{len(frames)}"
            frames[key] = name
            c.beginForm(name)
            _draw_frame(c, lay, sheet, printed_at)
            c.endForm()
        c.doForm(name)
    with batched_text(c):
        _draw_values(c, lay, sheet)


def render_scoresheets(
    sheets: Iterable[ScoreSheet],
    target: BinaryIO | None = None,
    progress: Progress | None = None,
    total: int = 0,
    printed_at: str | None = None,
) -> bytes:
    """All sheets in one PDF, one page each. Returns the bytes (also written to ``target``)."""
    buffer = target if target is not None else io.BytesIO()
    stamp = print_time() if printed_at is None else printed_at
    frames: dict[tuple, str] = {}
    with binary_streams():
        c = new_canvas(buffer, "记分表")
        count = 0
        for sheet in sheets:
            draw_scoresheet(c, sheet, stamp, frames)
            c.showPage()
            count += 1
            if progress:
                progress(count, total)
        if count == 0:
            draw_text(c, MARGIN, A4[1] - MARGIN - 20, "没有可打印的记分表", 14)
            c.showPage()
        c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""
