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
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import BinaryIO

from reportlab import rl_config
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


@lru_cache(maxsize=8192)
def text_width(text: str, size: float) -> float:
    """Width in points (cached: a thousand sheets repeat the same few hundred strings)."""
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
    batch: _TextBatch | None = getattr(c, "_text_batch", None)
    if batch is not None and not bold:
        if align == "center":
            x -= text_width(text, size) / 2
        elif align == "right":
            x -= text_width(text, size)
        batch.add(x, y, text, size, color)
        return
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
        # The render mode is graphics state, not text-object state: reset it, or every later
        # line on the page would be stroked too.
        t.setTextRenderMode(0)
        c.drawText(t)
        return
    if align == "center":
        x -= text_width(text, size) / 2
    elif align == "right":
        x -= text_width(text, size)
    c.drawString(x, y, text)


class _TextBatch:
    """Plain lines collected into one text object: one BT…ET per page instead of one per line,
    font and colour set only when they change (a filled sheet has about seventy values)."""

    def __init__(self, c: Canvas) -> None:
        self.text = c.beginText()
        self.size: float | None = None
        self.color: Color | None = None

    def add(self, x: float, y: float, line: str, size: float, color: Color) -> None:
        if size != self.size:
            self.text.setFont(FONT, size)
            self.size = size
        if color is not self.color:
            self.text.setFillColor(color)
            self.color = color
        self.text.setTextOrigin(x, y)
        self.text.textOut(line)


@contextmanager
def _batched_text(c: Canvas) -> Iterator[None]:
    """Within the block, ``_text`` (not bold) goes into one text object drawn at the end."""
    batch = _TextBatch(c)
    c._text_batch = batch  # type: ignore[attr-defined]
    try:
        yield
    finally:
        c._text_batch = None  # type: ignore[attr-defined]
        c.drawText(batch.text)


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
    """The QR code's module matrix (error correction M: a pencil mark may cross it).

    reportlab's ``QRCode.make()`` encodes the symbol nine times to score all eight mask patterns,
    which is most of the cost of a score sheet. Any mask is valid for a decoder (ISO/IEC 18004
    §7.8: the penalty score is the encoder's choice); we take the first mask whose dark-module
    share is balanced (45–55 %, the penalty rule that matters for camera exposure), which is
    usually the first one tried.
    """
    code = qrencoder.QRCode(None, qrencoder.QRErrorCorrectLevel.M)
    code.addData(data)
    code.version = code.calculate_version()
    best: tuple[float, int] | None = None
    for mask in range(8):
        code.makeImpl(False, mask)
        count = code.moduleCount
        dark = sum(sum(1 for m in row if m) for row in code.modules) / (count * count)
        imbalance = abs(dark - 0.5)
        if imbalance <= 0.05:
            best = None
            break
        if best is None or imbalance < best[0]:
            best = (imbalance, mask)
    if best is not None:
        code.makeImpl(False, best[1])
    return [[bool(m) for m in row] for row in code.modules]


def qr_runs(modules: Sequence[Sequence[bool]]) -> list[tuple[int, int, int]]:
    """(row, first column, length) of every horizontal run of dark modules."""
    runs = []
    count = len(modules)
    for r, row in enumerate(modules):
        col = 0
        while col < count:
            if row[col]:
                start = col
                while col < count and row[col]:
                    col += 1
                runs.append((r, start, col - start))
            else:
                col += 1
    return runs


def draw_qr(c: Canvas, data: str, x: float, y: float, size: float) -> None:
    """Draw the QR code for ``data`` in the square (x, y, size), with a two-module quiet zone.

    The symbol is drawn in module units under one transformation, each dark run one ``re``
    operator with small integers, and all of them filled at once. reportlab's path API would
    format four floats per rectangle in pure Python; a thousand-sheet run would spend most of
    its time there, so the operators are written directly (``Canvas._code`` is the page's
    content stream, stable since reportlab 1.x).
    """
    modules = qr_modules(data)
    count = len(modules)
    quiet = 2
    box = size / (count + 2 * quiet)
    c.saveState()
    c.setFillColor(INK)
    # Module (col, row) → page: x + (quiet + col) * box, top − (quiet + row) * box.
    c.transform(box, 0, 0, -box, x + quiet * box, y + size - quiet * box)
    # A hair of overlap between rows so that viewers draw no white seams.
    ops = " ".join(f"{col} {row} {length} 1.04 re" for row, col, length in qr_runs(modules))
    c._code.append(ops + " f")
    c.restoreState()


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
RESULT_COLUMNS = (("", 66.0), ("终局级数", 92.0), ("级差", 70.0), ("级差分", 92.0), ("场分", 70.0))
QR_SIZE = 78.0
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
        _text(c, lay.right - QR_SIZE / 2, top - QR_SIZE - 9, "扫码录入本桌成绩", 7, "center", MUTED)
    _text(c, left, top - 46, f"第 {sheet.round_number} 轮", 13)
    if sheet.round_format:
        _text(c, left, top - 62, sheet.round_format, 9, color=MUTED)
    title_w = width - 2 * (QR_SIZE + 12)
    _text(c, page_w / 2, top - 22, fit(sheet.tournament, title_w, 15), 15, "center", bold=True)
    _text(c, page_w / 2, top - 50, "记  分  表", 22, "center", bold=True)
    if sheet.filled:
        _text(c, page_w / 2, top - 68, "（成绩确认后打印，即录入记录）", 9, "center", MUTED)

    # The two pairs, players by direction.
    row_h, label_w, pair_top = PAIR_ROW_H, PAIR_LABEL_W, lay.pair_top
    _shade(c, left, pair_top - row_h, width, row_h)
    for i, seats in enumerate(((NORTH, SOUTH), (EAST, WEST))):
        x0 = left + i * half
        _cell_text(c, x0, pair_top - 2 * row_h, label_w, row_h, "单位", 9.5, color=MUTED)
        for j, seat in enumerate(seats):
            _cell_text(c, x0, pair_top - (3 + j) * row_h, label_w, row_h, seat, 10, color=MUTED)
    _grid(c, left, pair_top, (label_w, half - label_w, label_w, half - label_w), (row_h,) * 4)
    # The header row spans each half: white-out the inner label divider there.
    c.setStrokeColor(SHADE)
    c.setLineWidth(1.2)
    for x0 in (left + label_w, left + half + label_w):
        c.line(x0, pair_top - 0.6, x0, pair_top - row_h + 0.6)
    _box(c, left, pair_top - 4 * row_h, width, 4 * row_h, 1.0)
    c.setLineWidth(1.0)
    c.setStrokeColor(RULE)
    c.line(left + half, pair_top, left + half, pair_top - 4 * row_h)

    _text(
        c,
        left + 130,
        lay.hint_y,
        "上游方升级：对家二游 +3，三游 +2，末游 +1；A 必打，打 A 时对家二游或三游方可过 A",
        8.5,
        color=MUTED,
    )

    # The deal grid.
    widths, line_h, grid_top = lay.deal_widths, lay.line_h, lay.grid_top
    labels = [label for label, _ in DEAL_COLUMNS] + ["备注"]
    _shade(c, left, grid_top - GRID_HEADER_H, width, GRID_HEADER_H)
    xx = left
    for label, w in zip(labels, widths, strict=True):
        _cell_text(c, xx, grid_top - GRID_HEADER_H, w, GRID_HEADER_H, label, 10)
        xx += w
    if not sheet.filled:
        size = 10.5 if line_h >= 18 else 9
        for i in range(lay.rows):
            yy = grid_top - GRID_HEADER_H - (i + 1) * line_h
            cells = (str(i + 1), "", "□南北  □东西", "□二游 □三游 □末游", "+")
            xx = left
            for k, (text, w) in enumerate(zip(cells, widths, strict=False)):
                color = INK if k == 0 else MUTED
                _cell_text(c, xx, yy, w, line_h, text, size if k == 0 else size - 1.5, color=color)
                xx += w
    grid_h = GRID_HEADER_H + lay.rows * line_h
    _grid(c, left, grid_top, widths, [GRID_HEADER_H] + [line_h] * lay.rows, 0.4)
    _box(c, left, grid_top - grid_h, width, grid_h, 1.0)

    # Result boxes: final levels, 级差, 级差分, 场分 for both sides, and a remark.
    res_h, res_top, res_widths = RESULT_ROW_H, lay.result_top, lay.result_widths
    _text(c, left, res_top + 8, "比赛结果", 11, bold=True)
    _shade(c, left, res_top - res_h, width, res_h)
    xx = left
    for label, w in zip([label for label, _ in RESULT_COLUMNS] + ["说明"], res_widths, strict=True):
        _cell_text(c, xx, res_top - res_h, w, res_h, label, 10)
        xx += w
    for i, side in enumerate(("南北", "东西")):
        _cell_text(c, left, res_top - (i + 2) * res_h, res_widths[0], res_h, f"{side}方", 10.5)
    _grid(c, left, res_top, res_widths, (res_h, res_h, res_h), 0.4)
    # 级差 is one number for the match and the remark one note: cells spanning both rows.
    c.setFillColor(HexColor("#ffffff"))
    for k in (2, 5):
        x0 = left + sum(res_widths[:k])
        c.rect(x0 + 0.3, res_top - 3 * res_h + 0.3, res_widths[k] - 0.6, 2 * res_h - 0.6, 0, 1)
    _box(c, left, res_top - 3 * res_h, width, 3 * res_h, 1.0)

    # Signatures at the foot of the page: both pairs and the referee.
    sig_w = (width - 2 * 10) / 3
    for i, label in enumerate(("南北方签名", "东西方签名", "裁判签名")):
        x0 = left + i * (sig_w + 10)
        _box(c, x0, lay.sig_bottom, sig_w, lay.sig_h, 0.6)
        _text(c, x0 + 6, lay.sig_bottom + lay.sig_h - 14, label, 9, color=MUTED)
    _text(
        c,
        left,
        MARGIN,
        "西家填写，北家核对，东家留存副本核对；每副牌结束后立即记录。成绩有误应在离座前提出。",
        8,
        color=MUTED,
    )
    if printed_at:
        _text(c, lay.right, MARGIN - 14, f"打印时间 {printed_at}", 8, "right", MUTED)


def _draw_values(c: Canvas, lay: SheetLayout, sheet: ScoreSheet) -> None:
    """The table's own values on top of the frame."""
    left, top, width = lay.left, lay.top, lay.width
    half = width / 2
    value_ink = FILL_INK if sheet.filled else INK
    if sheet.entry_url:
        draw_qr(c, sheet.entry_url, lay.right - QR_SIZE, top - QR_SIZE, QR_SIZE)
    _text(c, left, top - 26, f"第 {sheet.table_number} 桌", 24, bold=True)
    row_h, label_w, pair_top = PAIR_ROW_H, PAIR_LABEL_W, lay.pair_top
    for i, (pair, side) in enumerate(((sheet.ns, "南北方"), (sheet.ew, "东西方"))):
        x0 = left + i * half
        _cell_text(c, x0, pair_top - row_h, half, row_h, f"{side}  第 {pair.number} 对", 11)
        value_w = half - label_w
        _cell_text(c, x0 + label_w, pair_top - 2 * row_h, value_w, row_h, pair.unit, 10.5, "left")
        for j in range(2):
            yy = pair_top - (3 + j) * row_h
            _cell_text(c, x0 + label_w, yy, value_w, row_h, pair.player(j), 11, "left")
    _text(
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
                _cell_text(c, x0, yy, widths[3], line_h, "（以下空白）", size - 1.5, color=MUTED)
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
                _cell_text(c, xx, yy, w, line_h, text, size, color=INK if k == 0 else value_ink)
                xx += w
    r = sheet.result
    if r is not None:
        res_h, res_top, res_widths = RESULT_ROW_H, lay.result_top, lay.result_widths
        for i, values in enumerate(
            (
                (r.ns_level, _number(r.ns_jcf), _number(r.ns_cf)),
                (r.ew_level, _number(r.ew_jcf), _number(r.ew_cf)),
            )
        ):
            yy = res_top - (i + 2) * res_h
            for k, text in zip((1, 3, 4), values, strict=True):
                x0 = left + sum(res_widths[:k])
                _cell_text(c, x0, yy, res_widths[k], res_h, text, 12.5, color=value_ink)
        bottom = res_top - 3 * res_h
        jc_x = left + sum(res_widths[:2])
        _cell_text(c, jc_x, bottom, res_widths[2], 2 * res_h, str(r.jc), 14, color=value_ink)
        if r.note:
            note_x = left + sum(res_widths[:5])
            _cell_text(c, note_x, bottom, res_widths[5], 2 * res_h, r.note, 11, color=value_ink)
    if sheet.filled and sheet.confirmed:
        _text(c, left, MARGIN - 14, fit(sheet.confirmed, width * 0.7, 8), 8, color=MUTED)


def _frame_key(sheet: ScoreSheet, rows: int, printed_at: str) -> tuple:
    return (
        sheet.tournament,
        sheet.round_number,
        sheet.round_format,
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
    with _batched_text(c):
        _draw_values(c, lay, sheet)


def _canvas(target: BinaryIO, title: str, pagesize: tuple[float, float] = A4) -> Canvas:
    c = Canvas(target, pagesize=pagesize, pageCompression=1)
    c.setTitle(title)
    c.setAuthor("guandan-tourney")
    c.setCreator("guandan-tourney")
    return c


@contextmanager
def _binary_streams() -> Iterator[None]:
    """Compressed streams without the ASCII85 layer: smaller files, and reportlab's pure-Python
    ASCII85 encoder costs several milliseconds a page. Restored afterwards."""
    saved = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = saved


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
    stamp = _now() if printed_at is None else printed_at
    frames: dict[tuple, str] = {}
    with _binary_streams():
        c = _canvas(buffer, "记分表")
        count = 0
        for sheet in sheets:
            draw_scoresheet(c, sheet, stamp, frames)
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
    stamp = _now() if printed_at is None else printed_at
    with _binary_streams():
        c = _canvas(buffer, first.title, pagesize)
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
        columns.append(Column(col.label, max(6.0, 2.2 * len(col.label))))
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
    order = doc.criteria or tuple(col.label for col in doc.columns)
    notes = [f"排名依据（依次）：{'、'.join(order)}"] if order else []
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
