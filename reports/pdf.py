"""PDF renderers: score sheets (记分表), pairing lists, standings and penalty reports.

Input: the plain rows of ``reports.rows``; output: PDF bytes (or a file object). Only reportlab
and the standard library; no Django, no database, so rendering happens outside any transaction
(STYLE.md: slow work outside the transaction) and can be benchmarked on its own.

Chinese prints with reportlab's built-in CJK font ``STSong-Light`` (``UnicodeCIDFont``): no font
file ships with the project and the PDF reader supplies the glyphs. Pages are drawn straight on a
canvas rather than with platypus: a thousand score sheets must render in well under 20 seconds,
and a fixed A4 form is easier to keep tidy with explicit coordinates.

The QR code on a score sheet is encoded with reportlab's own encoder
(``reportlab.graphics.barcode.qrencoder``, the engine of its QR widget) and drawn as one path of
dark runs, which is an order of magnitude faster than building a widget drawing per sheet.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from reportlab.graphics.barcode import qrencoder
from reportlab.lib.colors import Color, HexColor
from reportlab.lib.pagesizes import A4, landscape
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen.canvas import Canvas

from .rows import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    PairingList,
    PenaltyReport,
    ScoreSheet,
    Standings,
)

FONT = "STSong-Light"
pdfmetrics.registerFont(UnicodeCIDFont(FONT))

Progress = Callable[[int, int], None]

INK = HexColor("#111111")
MUTED = HexColor("#555555")
RULE = HexColor("#444444")
HAIR = HexColor("#9a9a9a")
SHADE = HexColor("#ececec")
ZEBRA = HexColor("#f6f6f6")
FILL_INK = HexColor("#1a3a8f")  # entered values on a filled sheet read as "written in"

MARGIN = 36.0  # half an inch


# --- text helpers -------------------------------------------------------------------------


def text_width(text: str, size: float) -> float:
    return pdfmetrics.stringWidth(text, FONT, size)


def fit(text: str, width: float, size: float) -> str:
    """``text`` shortened with "…" so that it fits ``width`` at ``size``."""
    if text_width(text, size) <= width:
        return text
    while text and text_width(text + "…", size) > width:
        text = text[:-1]
    return text + "…"


def _text(
    c: Canvas,
    x: float,
    y: float,
    text: str,
    size: float,
    align: str = "left",
    color: Color = INK,
    bold: bool = False,
) -> None:
    """Draw one line. ``bold`` strokes the glyph outlines: the CID font has no bold face."""
    c.setFillColor(color)
    c.setFont(FONT, size)
    if bold:
        c.setStrokeColor(color)
        c.setLineWidth(size * 0.03)
        t = c.beginText()
        t.setTextRenderMode(2)
        t.setFont(FONT, size)
        w = text_width(text, size)
        start = x - w / 2 if align == "center" else x - w if align == "right" else x
        t.setTextOrigin(start, y)
        t.textOut(text)
        c.drawText(t)
        return
    if align == "center":
        c.drawCentredString(x, y, text)
    elif align == "right":
        c.drawRightString(x, y, text)
    else:
        c.drawString(x, y, text)


def _cell_text(
    c: Canvas,
    x: float,
    y: float,
    w: float,
    h: float,
    text: str,
    size: float,
    align: str = "center",
    color: Color = INK,
) -> None:
    """Text vertically centred in the cell (x, y is the bottom-left corner)."""
    if not text:
        return
    text = fit(text, w - 6, size)
    baseline = y + (h - size * 0.72) / 2
    if align == "left":
        _text(c, x + 4, baseline, text, size, "left", color)
    elif align == "right":
        _text(c, x + w - 4, baseline, text, size, "right", color)
    else:
        _text(c, x + w / 2, baseline, text, size, "center", color)


def _number(value: float | int | None) -> str:
    """13 → "13", 12.5 → "12.5", None → ""."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# --- QR code ------------------------------------------------------------------------------


def qr_modules(data: str) -> list[list[bool]]:
    """The QR code's module matrix (error correction M: a pencil mark may cross it)."""
    code = qrencoder.QRCode(None, qrencoder.QRErrorCorrectLevel.M)
    code.addData(data)
    code.make()
    return [[bool(m) for m in row] for row in code.modules]


def draw_qr(c: Canvas, data: str, x: float, y: float, size: float) -> None:
    """Draw the QR code for ``data`` in the square (x, y, size), with a two-module quiet zone.

    Each horizontal run of dark modules is one rectangle of a single filled path: a few dozen
    path operators instead of one widget shape per module.
    """
    modules = qr_modules(data)
    count = len(modules)
    quiet = 2
    box = size / (count + 2 * quiet)
    path = c.beginPath()
    for r, row in enumerate(modules):
        top = y + size - (r + quiet) * box
        col = 0
        while col < count:
            if row[col]:
                start = col
                while col < count and row[col]:
                    col += 1
                # A hair of overlap so that viewers draw no white seams between rows.
                path.rect(
                    x + (start + quiet) * box, top - box * 1.04, (col - start) * box, box * 1.04
                )
            else:
                col += 1
    c.setFillColor(INK)
    c.drawPath(path, stroke=0, fill=1)


# --- score sheets -------------------------------------------------------------------------


def _grid(
    c: Canvas,
    x: float,
    top: float,
    widths: Sequence[float],
    heights: Sequence[float],
    line: float = 0.5,
) -> None:
    """Lines of a grid whose top-left corner is (x, top)."""
    total_w = sum(widths)
    total_h = sum(heights)
    c.setStrokeColor(RULE)
    c.setLineWidth(line)
    path = c.beginPath()
    yy = top
    for h in (0, *heights):
        yy -= h
        path.moveTo(x, yy)
        path.lineTo(x + total_w, yy)
    xx = x
    for w in (0, *widths):
        xx += w
        path.moveTo(xx, top)
        path.lineTo(xx, top - total_h)
    c.drawPath(path, stroke=1, fill=0)


def _shade(c: Canvas, x: float, y: float, w: float, h: float, color: Color = SHADE) -> None:
    c.setFillColor(color)
    c.rect(x, y, w, h, stroke=0, fill=1)


def _box(c: Canvas, x: float, y: float, w: float, h: float, line: float = 1.0) -> None:
    c.setStrokeColor(RULE)
    c.setLineWidth(line)
    c.rect(x, y, w, h, stroke=1, fill=0)


DEAL_COLUMNS = (
    ("副数", 34.0),
    ("所打级数", 56.0),
    ("上游方", 82.0),
    ("对家名次", 100.0),
    ("升级", 40.0),
    ("南北级数", 58.0),
    ("东西级数", 58.0),
)  # the rest of the width is 备注 (remarks)


def draw_scoresheet(c: Canvas, sheet: ScoreSheet, printed_at: str = "") -> None:
    """One A4 score sheet on the current page (the caller calls ``showPage``)."""
    page_w, page_h = A4
    left, right = MARGIN, page_w - MARGIN
    width = right - left
    top = page_h - MARGIN
    value_ink = FILL_INK if sheet.filled else INK

    # Header: table and round on the left, the title in the middle, the QR code on the right.
    qr_size = 78.0
    if sheet.entry_url:
        draw_qr(c, sheet.entry_url, right - qr_size, top - qr_size, qr_size)
        _text(c, right - qr_size / 2, top - qr_size - 9, "扫码录入本桌成绩", 7, "center", MUTED)
    _text(c, left, top - 26, f"第 {sheet.table_number} 桌", 24, bold=True)
    _text(c, left, top - 46, f"第 {sheet.round_number} 轮", 13)
    if sheet.round_format:
        _text(c, left, top - 62, sheet.round_format, 9, color=MUTED)
    title_w = width - 2 * (qr_size + 12)
    _text(c, page_w / 2, top - 22, fit(sheet.tournament, title_w, 15), 15, "center", bold=True)
    _text(c, page_w / 2, top - 50, "记  分  表", 22, "center", bold=True)
    if sheet.filled:
        _text(c, page_w / 2, top - 68, "（成绩确认后打印，即录入记录）", 9, "center", MUTED)
    y = top - qr_size - 22

    # The two pairs, players by direction.
    half = width / 2
    label_w = 54.0
    row_h = 21.0
    heights = (row_h, row_h, row_h, row_h)
    pair_top = y
    _shade(c, left, pair_top - row_h, width, row_h)
    for i, (pair, side, seats) in enumerate(
        (
            (sheet.ns, "南北方", ((NORTH, 0), (SOUTH, 1))),
            (sheet.ew, "东西方", ((EAST, 0), (WEST, 1))),
        )
    ):
        x0 = left + i * half
        _cell_text(c, x0, pair_top - row_h, half, row_h, f"{side}  第 {pair.number} 对", 11)
        _cell_text(c, x0, pair_top - 2 * row_h, label_w, row_h, "单位", 9.5, color=MUTED)
        _cell_text(
            c, x0 + label_w, pair_top - 2 * row_h, half - label_w, row_h, pair.unit, 10.5, "left"
        )
        for j, (seat, index) in enumerate(seats):
            yy = pair_top - (3 + j) * row_h
            _cell_text(c, x0, yy, label_w, row_h, f"{seat}", 10, color=MUTED)
            _cell_text(c, x0 + label_w, yy, half - label_w, row_h, pair.player(index), 11, "left")
    _grid(c, left, pair_top, (label_w, half - label_w, label_w, half - label_w), heights)
    # The header row spans each half: white-out the inner label divider there.
    c.setStrokeColor(SHADE)
    c.setLineWidth(1.2)
    for x0 in (left + label_w, left + half + label_w):
        c.line(x0, pair_top - 0.6, x0, pair_top - row_h + 0.6)
    _box(c, left, pair_top - 4 * row_h, width, 4 * row_h, 1.0)
    c.setLineWidth(1.0)
    c.setStrokeColor(RULE)
    c.line(left + half, pair_top, left + half, pair_top - 4 * row_h)
    y = pair_top - 4 * row_h - 16

    _text(
        c,
        left,
        y,
        f"起始级数：南北 {sheet.start_ns}　东西 {sheet.start_ew}"
        "　　上游方升级：对家二游 +3，三游 +2，末游 +1；A 必打，打 A 时对家二游或三游方可过 A",
        8.5,
        color=MUTED,
    )
    y -= 10

    # The deal grid.
    widths = [w for _, w in DEAL_COLUMNS]
    widths.append(width - sum(widths))
    labels = [label for label, _ in DEAL_COLUMNS] + ["备注"]
    header_h = 22.0
    rows = max(sheet.rows, len(sheet.lines))
    # Bottom up: signatures, result boxes (title + 3 rows); the grid takes the rest, with rows
    # no taller than 12 mm (handwriting) and no shorter than 5 mm (long 计局制 matches).
    available = y - header_h - (MARGIN + 14 + 58 + 22 + 22 + 3 * 26 + 8)
    line_h = max(14.0, min(34.0, available / max(rows, 1)))
    grid_top = y
    _shade(c, left, grid_top - header_h, width, header_h)
    xx = left
    for label, w in zip(labels, widths, strict=True):
        _cell_text(c, xx, grid_top - header_h, w, header_h, label, 10)
        xx += w
    for i in range(rows):
        yy = grid_top - header_h - (i + 1) * line_h
        cells: list[str]
        if i < len(sheet.lines):
            d = sheet.lines[i]
            cells = [
                str(d.deal_number) if d.deal_number else "—",
                d.level_played,
                d.first_side,
                d.partner_place,
                f"+{d.upgrade}" if d.upgrade else "",
                d.ns_level,
                d.ew_level,
                d.note,
            ]
            colors = [INK] + [value_ink] * 7
        elif sheet.filled:
            # An official record: nothing may be added below the last entered line.
            blank = "（以下空白）" if i == len(sheet.lines) else ""
            cells = ["", "", "", blank, "", "", "", ""]
            colors = [INK, INK, INK, MUTED, INK, INK, INK, INK]
        else:
            cells = [str(i + 1), "", "□南北  □东西", "□二游 □三游 □末游", "+", "", "", ""]
            colors = [INK, INK, MUTED, MUTED, MUTED, INK, INK, INK]
        xx = left
        size = 10.5 if line_h >= 18 else 9
        for text, w, color in zip(cells, widths, colors, strict=True):
            _cell_text(
                c, xx, yy, w, line_h, text, size if color is not MUTED else size - 1.5, color=color
            )
            xx += w
    grid_h = header_h + rows * line_h
    heights = [header_h] + [line_h] * rows
    _grid(c, left, grid_top, widths, heights, 0.4)
    _box(c, left, grid_top - grid_h, width, grid_h, 1.0)
    y = grid_top - grid_h - 22

    # Result boxes: final levels, 级差, 级差分, 场分 for both sides, and a remark.
    res_labels = ("", "终局级数", "级差", "级差分", "场分", "说明")
    res_widths = [66.0, 92.0, 70.0, 92.0, 70.0]
    res_widths.append(width - sum(res_widths))
    res_h = 26.0
    _text(c, left, y + 4, "比赛结果", 11, bold=True)
    res_top = y - 4
    _shade(c, left, res_top - res_h, width, res_h)
    xx = left
    for label, w in zip(res_labels, res_widths, strict=True):
        _cell_text(c, xx, res_top - res_h, w, res_h, label, 10)
        xx += w
    r = sheet.result
    for i, side in enumerate(("南北", "东西")):
        yy = res_top - (i + 2) * res_h
        values = ["", "", "", ""]
        if r is not None:
            values = (
                [r.ns_level, "", _number(r.ns_jcf), _number(r.ns_cf)]
                if i == 0
                else [r.ew_level, "", _number(r.ew_jcf), _number(r.ew_cf)]
            )
        _cell_text(c, left, yy, res_widths[0], res_h, f"{side}方", 10.5)
        xx = left + res_widths[0]
        for text, w in zip(values, res_widths[1:5], strict=True):
            _cell_text(c, xx, yy, w, res_h, text, 12.5, color=value_ink)
            xx += w
    _grid(c, left, res_top, res_widths, (res_h, res_h, res_h), 0.4)
    # 级差 is one number for the match and the remark one note: cells spanning both rows.
    c.setFillColor(HexColor("#ffffff"))
    for k in (2, 5):
        x0 = left + sum(res_widths[:k])
        c.rect(x0 + 0.3, res_top - 3 * res_h + 0.3, res_widths[k] - 0.6, 2 * res_h - 0.6, 0, 1)
    if r is not None:
        jc_x = left + sum(res_widths[:2])
        _cell_text(
            c, jc_x, res_top - 3 * res_h, res_widths[2], 2 * res_h, str(r.jc), 14, color=value_ink
        )
        if r.note:
            note_x = left + sum(res_widths[:5])
            _cell_text(
                c,
                note_x,
                res_top - 3 * res_h,
                res_widths[5],
                2 * res_h,
                r.note,
                11,
                color=value_ink,
            )
    _box(c, left, res_top - 3 * res_h, width, 3 * res_h, 1.0)
    y = res_top - 3 * res_h - 14

    # Signatures at the foot of the page: both pairs and the referee.
    sig_bottom = MARGIN + 14
    sig_h = max(46.0, min(72.0, y - sig_bottom))
    sig_w = (width - 2 * 10) / 3
    for i, label in enumerate(("南北方签名", "东西方签名", "裁判签名")):
        x0 = left + i * (sig_w + 10)
        _box(c, x0, sig_bottom, sig_w, sig_h, 0.6)
        _text(c, x0 + 6, sig_bottom + sig_h - 14, label, 9, color=MUTED)

    _text(
        c,
        left,
        MARGIN,
        "西家填写，北家核对，东家留存副本核对；每副牌结束后立即记录。成绩有误应在离座前提出。",
        8,
        color=MUTED,
    )
    footer = sheet.confirmed if sheet.filled else ""
    if footer:
        _text(c, left, MARGIN - 14, fit(footer, width * 0.7, 8), 8, color=MUTED)
    if printed_at:
        _text(c, right, MARGIN - 14, f"打印时间 {printed_at}", 8, "right", MUTED)


def _canvas(target: BinaryIO, title: str, pagesize: tuple[float, float] = A4) -> Canvas:
    c = Canvas(target, pagesize=pagesize, pageCompression=1)
    c.setTitle(title)
    c.setAuthor("guandan-tourney")
    c.setCreator("guandan-tourney")
    return c


def _now() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M")


def render_scoresheets(
    sheets: Iterable[ScoreSheet],
    target: BinaryIO | None = None,
    progress: Progress | None = None,
    total: int = 0,
    printed_at: str | None = None,
) -> bytes:
    """All sheets in one PDF, one page each. Returns the bytes (also written to ``target``)."""
    buffer = target if target is not None else io.BytesIO()
    c = _canvas(buffer, "记分表")
    stamp = _now() if printed_at is None else printed_at
    count = 0
    for sheet in sheets:
        draw_scoresheet(c, sheet, stamp)
        c.showPage()
        count += 1
        if progress:
            progress(count, total)
    if count == 0:
        _text(c, MARGIN, A4[1] - MARGIN - 20, "没有可打印的记分表", 14)
        c.showPage()
    c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


# --- tabular documents --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Column:
    label: str
    width: float  # relative; scaled to the page width
    align: str = "center"


@dataclass(frozen=True, slots=True)
class Section:
    """One titled table of a tabular document; a document is one or more sections, each
    starting on a new page with its own page numbers."""

    title: str
    subtitle: str
    columns: Sequence[Column]
    rows: Sequence[Sequence[str]]
    notes: Sequence[str] = ()
    orientation: str = "portrait"
    empty: str = "（无）"


def render_table(
    title: str,
    subtitle: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    target: BinaryIO | None = None,
    orientation: str = "portrait",
    notes: Sequence[str] = (),
    progress: Progress | None = None,
    printed_at: str | None = None,
    empty: str = "（无）",
) -> bytes:
    """A titled, paginated table (see ``render_sections``)."""
    section = Section(title, subtitle, columns, rows, notes, orientation, empty)
    return render_sections([section], target, progress, printed_at)


def render_sections(
    sections: Sequence[Section],
    target: BinaryIO | None = None,
    progress: Progress | None = None,
    printed_at: str | None = None,
) -> bytes:
    """Sections one after another in one PDF."""
    buffer = target if target is not None else io.BytesIO()
    first = sections[0] if sections else Section("", "", (), ())
    pagesize = landscape(A4) if first.orientation == "landscape" else A4
    c = _canvas(buffer, first.title, pagesize)
    stamp = _now() if printed_at is None else printed_at
    for section in sections:
        _draw_section(c, section, stamp, progress)
    c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


def _draw_section(c: Canvas, s: Section, stamp: str, progress: Progress | None) -> None:
    """Draw one section: the header repeats on every page, "第 x 页 共 y 页" below.

    Rows have one fixed height, so the page count is known before drawing. Long cells are cut
    with "…" rather than wrapped, so a row never breaks the rhythm of the list.
    """
    pagesize = landscape(A4) if s.orientation == "landscape" else A4
    c.setPageSize(pagesize)
    page_w, page_h = pagesize
    columns, rows, notes, title = s.columns, s.rows, s.notes, s.title
    width = page_w - 2 * MARGIN
    scale = width / sum(col.width for col in columns)
    widths = [col.width * scale for col in columns]
    row_h = 17.0
    header_h = 22.0
    first_top = page_h - MARGIN - 52
    other_top = page_h - MARGIN - 24
    notes_h = 14.0 * len(notes)
    bottom = MARGIN + 12
    first_rows = max(1, int((first_top - header_h - bottom) // row_h))
    other_rows = max(1, int((other_top - header_h - bottom) // row_h))
    n = len(rows)
    pages = 1 if n <= first_rows else 1 + math.ceil((n - first_rows) / other_rows)
    # Notes go after the last row; give them a page of their own if they do not fit.
    last_rows = n if pages == 1 else n - first_rows - (pages - 2) * other_rows
    last_capacity = first_rows if pages == 1 else other_rows
    if notes and (last_capacity - last_rows) * row_h < notes_h + 24:
        pages += 1
    index = 0
    for page in range(1, pages + 1):
        if page == 1:
            _text(
                c, page_w / 2, page_h - MARGIN - 16, fit(title, width, 16), 16, "center", bold=True
            )
            _text(c, page_w / 2, page_h - MARGIN - 36, s.subtitle, 11, "center", MUTED)
            table_top = first_top
            capacity = first_rows
        else:
            _text(
                c,
                MARGIN,
                page_h - MARGIN - 10,
                fit(f"{title}　{s.subtitle}", width, 9),
                9,
                color=MUTED,
            )
            table_top = other_top
            capacity = other_rows
        chunk = rows[index : index + capacity]
        index += len(chunk)
        if chunk or page == 1:
            _shade(c, MARGIN, table_top - header_h, width, header_h)
            xx = MARGIN
            for col, w in zip(columns, widths, strict=True):
                _cell_text(c, xx, table_top - header_h, w, header_h, col.label, 9.5)
                xx += w
            for i, row in enumerate(chunk):
                yy = table_top - header_h - (i + 1) * row_h
                if i % 2 == 1:
                    _shade(c, MARGIN, yy, width, row_h, ZEBRA)
                xx = MARGIN
                for col, w, text in zip(columns, widths, row, strict=True):
                    _cell_text(c, xx, yy, w, row_h, text, 9.5, col.align)
                    xx += w
            body = header_h + len(chunk) * row_h
            _grid(c, MARGIN, table_top, widths, [header_h] + [row_h] * len(chunk), 0.3)
            _box(c, MARGIN, table_top - body, width, body, 0.9)
            if not rows:
                _text(c, MARGIN + 4, table_top - header_h - 16, s.empty, 10, color=MUTED)
            after = table_top - body - (18 if rows else 36)
        else:
            after = table_top - 10
        if page == pages and notes:
            for k, note in enumerate(notes):
                _text(c, MARGIN, after - k * 14, fit(note, width, 9.5), 9.5)
        _text(c, page_w / 2, MARGIN - 6, f"第 {page} 页  共 {pages} 页", 8.5, "center", MUTED)
        _text(c, page_w - MARGIN, MARGIN - 6, f"打印时间 {stamp}", 8, "right", MUTED)
        c.showPage()
        if progress:
            progress(page, pages)


# --- pairing lists ------------------------------------------------------------------------


def render_pairings(doc: PairingList, target: BinaryIO | None = None) -> bytes:
    """The round's pairing list twice: by table, then by pair number (players look themselves
    up); a bye is listed as 轮空. One PDF, the second list starting on a new page."""
    return render_sections([pairings_by_table(doc), pairings_by_pair(doc)], target)


def pairings_by_table(doc: PairingList) -> Section:
    columns = (
        Column("桌号", 7),
        Column("南北对号", 9),
        Column("南北牌手", 24, "left"),
        Column("单位", 16, "left"),
        Column("东西对号", 9),
        Column("东西牌手", 24, "left"),
        Column("单位", 16, "left"),
    )
    rows = []
    byes = []
    for line in doc.lines:
        if line.ew is None:
            byes.append(line.ns)
            continue
        rows.append(
            (
                str(line.table_number),
                str(line.ns.number),
                line.ns.names,
                line.ns.unit,
                str(line.ew.number),
                line.ew.names,
                line.ew.unit,
            )
        )
    notes = [
        f"轮空：第 {p.number} 对　{p.names}{'（' + p.unit + '）' if p.unit else ''}" for p in byes
    ]
    return Section(
        doc.tournament,
        f"第 {doc.round_number} 轮 对阵表（按桌号）",
        columns,
        rows,
        notes=notes,
    )


def pairings_by_pair(doc: PairingList) -> Section:
    columns = (
        Column("对号", 8),
        Column("牌手", 26, "left"),
        Column("单位", 18, "left"),
        Column("桌号", 8),
        Column("方向", 8),
        Column("对手", 8),
        Column("对手牌手", 24, "left"),
    )
    entries: list[tuple[int, tuple[str, ...]]] = []
    for line in doc.lines:
        if line.ew is None:
            entries.append(
                (
                    line.ns.number,
                    (str(line.ns.number), line.ns.names, line.ns.unit, "轮空", "", "", ""),
                )
            )
            continue
        for me, other, side in ((line.ns, line.ew, "南北"), (line.ew, line.ns, "东西")):
            entries.append(
                (
                    me.number,
                    (
                        str(me.number),
                        me.names,
                        me.unit,
                        str(line.table_number),
                        side,
                        str(other.number),
                        other.names,
                    ),
                )
            )
    entries.sort(key=lambda e: e[0])
    return Section(
        doc.tournament,
        f"第 {doc.round_number} 轮 对阵表（按对号）",
        columns,
        [row for _, row in entries],
    )


# --- standings ----------------------------------------------------------------------------


def standings_title(doc: Standings) -> str:
    if doc.final:
        return "最终排名"
    if doc.after_round == 0:
        return "排名（比赛开始前）"
    return f"第 {doc.after_round} 轮后排名"


def render_standings(doc: Standings, target: BinaryIO | None = None) -> bytes:
    """Every tiebreak column of the preset and the criterion that decided each row."""
    columns = [
        Column("名次", 6),
        Column("对号", 6),
        Column("牌手", 20, "left"),
        Column("单位", 14, "left"),
    ]
    for col in doc.columns:
        columns.append(Column(col.label, max(6.0, text_width(col.label, 9.5) / 6.5)))
    columns += [Column("胜/平/负", 9), Column("扣分", 5), Column("名次依据", 10)]
    rows = []
    for line in doc.lines:
        rows.append(
            [str(line.rank), str(line.pair.number), line.pair.names, line.pair.unit]
            + [_number(line.values.get(col.key)) for col in doc.columns]
            + [
                f"{line.wins}/{line.draws}/{line.losses}",
                _number(line.deductions) if line.deductions else "",
                line.decided_by,
            ]
        )
    order = "、".join(["场分"] + [col.label for col in doc.columns if col.key != "cf"])
    notes = [f"排名依据（依次）：{order}"] if doc.columns else []
    if doc.preset:
        notes.append(f"破同分规则：{doc.preset}")
    notes.append("“名次依据”为将该对与上一名分开的项目；级差分已扣除判罚扣分。")
    return render_table(
        doc.tournament,
        standings_title(doc),
        columns,
        rows,
        target,
        orientation="landscape" if len(columns) > 10 else "portrait",
        notes=notes,
    )


# --- penalties ----------------------------------------------------------------------------


def render_penalties(doc: PenaltyReport, target: BinaryIO | None = None) -> bytes:
    columns = (
        Column("轮次", 5),
        Column("桌号", 5),
        Column("对号", 5),
        Column("受罚选手", 10, "left"),
        Column("类别", 9),
        Column("副数", 5),
        Column("扣分", 5),
        Column("原因", 28, "left"),
        Column("裁判", 8, "left"),
        Column("时间", 13),
    )
    rows = [
        (
            _number(p.round_number),
            _number(p.table_number),
            str(p.pair.number),
            p.player or p.pair.names,
            p.kind,
            _number(p.deal),
            _number(p.jcf),
            p.reason,
            p.referee,
            p.time,
        )
        for p in doc.lines
    ]
    scope = f"第 {doc.round_number} 轮" if doc.round_number else "全部轮次"
    return render_table(
        doc.tournament,
        f"判罚记录（{scope}）",
        columns,
        rows,
        target,
        orientation="landscape",
        empty="（本范围内没有判罚记录）",
    )
