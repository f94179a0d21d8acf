"""What the PDF documents share: the CJK font, the colours, text drawing (batched into one text
object a page), the QR code, grid lines and the canvas set-up.

Only reportlab and the standard library."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import lru_cache
from typing import BinaryIO

from reportlab import rl_config
from reportlab.graphics.barcode import qrencoder
from reportlab.lib.colors import Color, HexColor
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen.canvas import Canvas

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


def draw_text(
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
def batched_text(c: Canvas) -> Iterator[None]:
    """Within the block, ``draw_text`` (not bold) goes into one text object drawn at the end."""
    batch = _TextBatch(c)
    c._text_batch = batch  # type: ignore[attr-defined]
    try:
        yield
    finally:
        c._text_batch = None  # type: ignore[attr-defined]
        c.drawText(batch.text)


def cell_text(
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
        draw_text(c, x + 4, baseline, text, size, "left", color)
    elif align == "right":
        draw_text(c, x + w - 4, baseline, text, size, "right", color)
    else:
        draw_text(c, x + w / 2, baseline, text, size, "center", color)


def format_number(value: float | int | None) -> str:
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


# --- drawing helpers ---------------------------------------------------------------------


def draw_grid(
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


def shade(c: Canvas, x: float, y: float, w: float, h: float, color: Color = SHADE) -> None:
    c.setFillColor(color)
    c.rect(x, y, w, h, stroke=0, fill=1)


def draw_box(c: Canvas, x: float, y: float, w: float, h: float, line: float = 1.0) -> None:
    c.setStrokeColor(RULE)
    c.setLineWidth(line)
    c.rect(x, y, w, h, stroke=1, fill=0)


def new_canvas(target: BinaryIO, title: str, pagesize: tuple[float, float] = A4) -> Canvas:
    c = Canvas(target, pagesize=pagesize, pageCompression=1)
    c.setTitle(title)
    c.setAuthor("guandan-tourney")
    c.setCreator("guandan-tourney")
    return c


@contextmanager
def binary_streams() -> Iterator[None]:
    """Compressed streams without the ASCII85 layer: smaller files, and reportlab's pure-Python
    ASCII85 encoder costs several milliseconds a page. Restored afterwards."""
    saved = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = saved


def print_time() -> str:
    return datetime.now().strftime("%Y-%m-%d %H:%M")
