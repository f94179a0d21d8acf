"""The stages' paper (RULES.md §8): the knockout bracket (A4 landscape or A3 landscape) and the
knockout score sheet with a box for every game of the match. The group tables are a tabular
document (``reports.pdf.lists.render_sections``, one section a group).

Input: plain values (the caller turns ``reports.stages`` rows into them); only reportlab, the
standard library and the shared drawing helpers of ``reports.pdf.common``. Printed forms are
Chinese whatever the interface language (``tournaments.wording``).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from reportlab.lib.pagesizes import A3, A4, landscape
from reportlab.pdfgen.canvas import Canvas

from reports.pdf.common import (
    MARGIN,
    MUTED,
    RULE,
    binary_streams,
    cell_text,
    draw_box,
    draw_grid,
    draw_text,
    fit,
    new_canvas,
    print_time,
    shade,
)

PAPER = {"a4": landscape(A4), "a3": landscape(A3)}


@dataclass(frozen=True, slots=True)
class PrintedMatch:
    """One meeting of the bracket as printed: each side's line ("3 张三/李四" or "" for a place
    to be decided), the games ("8:2 5:4"), which side won (0 none, 1 the first, 2 the second)."""

    a: str
    b: str  # "轮空" for a bye
    games: str = ""
    won: int = 0


@dataclass(frozen=True, slots=True)
class PrintedRound:
    label: str  # 1/4 决赛, 半决赛, 决赛, 三四名决赛
    matches: Sequence[PrintedMatch]


def render_bracket(
    title: str,
    subtitle: str,
    rounds: Sequence[PrintedRound],
    paper: str = "a4",
    target: BinaryIO | None = None,
    printed_at: str | None = None,
) -> bytes:
    """The bracket on one landscape page: one column a round, each meeting a box of two lines
    placed between the two meetings it follows from, joined by lines; the third-place match
    below the final. A bracket of more than 32 meetings a column gets smaller type."""
    buffer = target if target is not None else io.BytesIO()
    pagesize = PAPER.get(paper, PAPER["a4"])
    page_w, page_h = pagesize
    main = [r for r in rounds if r.label != "三四名决赛"]
    third = [r for r in rounds if r.label == "三四名决赛"]
    with binary_streams():
        c = new_canvas(buffer, title, pagesize)
        draw_text(c, page_w / 2, page_h - MARGIN - 16, fit(title, page_w - 2 * MARGIN, 16), 16,
              "center", bold=True)  # fmt: skip
        draw_text(c, page_w / 2, page_h - MARGIN - 34, subtitle, 10.5, "center", MUTED)
        top, bottom = page_h - MARGIN - 70, MARGIN + 24
        columns = max(1, len(main))
        gap = 18.0
        col_w = (page_w - 2 * MARGIN - gap * (columns - 1)) / columns
        first = max(1, len(main[0].matches)) if main else 1
        slot_h = (top - bottom) / first
        size = 9.0 if first <= 8 else 7.5 if first <= 16 else 6.0
        box_h = min(slot_h * 0.8, size * 4.2)
        centres: list[float] = []
        for index, rnd in enumerate(main):
            x = MARGIN + index * (col_w + gap)
            draw_text(c, x + col_w / 2, top + 12, rnd.label, 10.5, "center", bold=True)
            span = (top - bottom) / max(1, len(rnd.matches))
            new = [top - span * (k + 0.5) for k in range(len(rnd.matches))]
            for k, match in enumerate(rnd.matches):
                _draw_match(c, x, new[k], col_w, box_h, match, size)
                if index and 2 * k + 1 < len(centres):
                    _join(c, x - gap, centres[2 * k], centres[2 * k + 1], new[k], gap)
            centres = new
        if third and main:
            x = MARGIN + (len(main) - 1) * (col_w + gap)
            y = bottom + box_h
            draw_text(c, x + col_w / 2, y + box_h / 2 + 8, third[0].label, 9.5, "center", bold=True)
            _draw_match(c, x, y, col_w, box_h, third[0].matches[0], size)
        stamp = print_time() if printed_at is None else printed_at
        draw_text(c, page_w - MARGIN, MARGIN - 6, f"打印时间 {stamp}", 8, "right", MUTED)
        c.showPage()
        c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


def _draw_match(
    c: Canvas, x: float, centre: float, w: float, h: float, match: PrintedMatch, size: float
) -> None:
    half = h / 2
    for line, (text, won) in enumerate(((match.a, match.won == 1), (match.b, match.won == 2))):
        y = centre if line == 0 else centre - half
        if won:
            shade(c, x, y, w, half)
        cell_text(c, x, y, w * 0.72, half, text or "", size, "left")
    if match.games:
        cell_text(c, x + w * 0.72, centre - half, w * 0.28, h, match.games, size - 1, "center",
                   MUTED)  # fmt: skip
    draw_box(c, x, centre - half, w, h, 0.7)
    c.setStrokeColor(RULE)
    c.setLineWidth(0.3)
    c.line(x, centre, x + w * 0.72, centre)


def _join(c: Canvas, x: float, y1: float, y2: float, target: float, gap: float) -> None:
    """The lines from two meetings to the meeting of their winners."""
    c.setStrokeColor(RULE)
    c.setLineWidth(0.6)
    middle = x + gap / 2
    path = c.beginPath()
    for y in (y1, y2):
        path.moveTo(x, y)
        path.lineTo(middle, y)
    path.moveTo(middle, y1)
    path.lineTo(middle, y2)
    path.moveTo(middle, target)
    path.lineTo(x + gap, target)
    c.drawPath(path, stroke=1, fill=0)


@dataclass(frozen=True, slots=True)
class KnockoutSheet:
    """One knockout table's score sheet: who plays, the round's label, best of how many games
    and the deals a game (the rows of each game's box, plus the extra deal's row)."""

    tournament: str
    round_label: str
    round: int
    table: int
    ns: str
    ew: str
    best_of: int
    deals: int


def render_knockout_sheets(
    sheets: Sequence[KnockoutSheet], target: BinaryIO | None = None
) -> bytes:
    """A4 portrait, one sheet a table: a box a game (副, 上游, 对家名次, 南北级, 东西级 for each
    deal, the extra deal's row marked 加打), the games won and the signatures."""
    buffer = target if target is not None else io.BytesIO()
    page_w, page_h = A4
    width = page_w - 2 * MARGIN
    with binary_streams():
        c = new_canvas(buffer, "淘汰赛记分表", A4)
        for sheet in sheets:
            _draw_knockout_sheet(c, sheet, page_w, page_h, width)
            c.showPage()
        c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


def _draw_knockout_sheet(
    c: Canvas, s: KnockoutSheet, page_w: float, page_h: float, width: float
) -> None:
    top = page_h - MARGIN
    draw_text(c, page_w / 2, top - 16, fit(s.tournament, width, 15), 15, "center", bold=True)
    heading = f"淘汰赛记分表　第{s.round}轮　{s.round_label}　第 {s.table} 桌　{s.best_of} 局 {s.best_of // 2 + 1} 胜"  # noqa: E501
    draw_text(c, page_w / 2, top - 36, heading, 11, "center")
    draw_text(c, MARGIN, top - 58, fit(f"南北：{s.ns}", width / 2 - 6, 10.5), 10.5)
    draw_text(c, MARGIN + width / 2, top - 58, fit(f"东西：{s.ew}", width / 2, 10.5), 10.5)
    labels = ("副", "上游方", "对家名次", "南北级", "东西级", "裁判")
    widths = [w * width for w in (0.1, 0.18, 0.18, 0.18, 0.18, 0.18)]
    signatures = 70.0
    available = top - 76 - MARGIN - signatures
    rows_per_game = s.deals + 2  # the header, the deals, the extra deal
    row_h = min(17.0, (available - s.best_of * 22) / max(1, s.best_of * rows_per_game))
    y = top - 76
    for game in range(1, s.best_of + 1):
        start = "（从 2 : 2 打起）" if game > 1 else "（从 2 : 2 或迟到调整后的级打起）"
        draw_text(c, MARGIN, y - 12, f"第{game}局{start}", 10, bold=True)
        draw_text(c, MARGIN + width, y - 12, "本局胜方：南北 □　东西 □", 9.5, "right")
        y -= 18
        heights = [row_h] * rows_per_game
        shade(c, MARGIN, y - row_h, width, row_h)
        draw_grid(c, MARGIN, y, widths, heights, 0.4)
        draw_box(c, MARGIN, y - sum(heights), width, sum(heights), 0.9)
        xx = MARGIN
        for label, w in zip(labels, widths, strict=True):
            cell_text(c, xx, y - row_h, w, row_h, label, 9)
            xx += w
        for deal in range(1, s.deals + 1):
            cell_text(c, MARGIN, y - (deal + 1) * row_h, widths[0], row_h, str(deal), 9)
        cell_text(c, MARGIN, y - rows_per_game * row_h, widths[0], row_h, "加打", 9)
        y -= sum(heights) + 4
    draw_text(c, MARGIN, y - 10, "加打一副：仅当最后一副后双方级数相同时进行（RULES §2）。", 8.5,
          color=MUTED)  # fmt: skip
    y -= 32
    draw_text(c, MARGIN, y, "局分　南北 ____ : ____ 东西　　胜方 ________", 10.5)
    y -= 24
    draw_text(c, MARGIN, y, "南北签名 __________　东西签名 __________　裁判 __________", 10.5)
