"""Pair slips (对号卡, issue 15): one slip per pair, ten to an A4 page with cut lines — the pair's
number, players and unit, its code (对号密码, RULES.md §7: the pair proves itself with it at
the table) and a QR code of its "find my table" page; the check-in QR when the event has one.

The words say what the phones do (RULES.md §7): South enters each deal by the QR code on the
score sheet, West confirms with the East–West pair's code; a code is never told to the
opponents."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import BinaryIO

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from reports.pdf.common import (
    HAIR,
    MARGIN,
    MUTED,
    binary_streams,
    draw_qr,
    draw_text,
    fit,
    new_canvas,
)
from reports.rows import PairSlip

COLUMNS, ROWS = 2, 5
SLIP_QR = 92.0
SLIP_TEXTS = (
    "到桌后：南家扫记分表右上角的二维码逐副录入，",
    "西家用东西方的对号密码确认成绩。",
    "对号密码请勿告诉对手；遗失请找裁判。",
)


def _cut_lines(c: Canvas, slip_w: float, slip_h: float) -> None:
    page_w, page_h = A4
    c.setStrokeColor(HAIR)
    c.setLineWidth(0.4)
    c.setDash(3, 3)
    for col in range(1, COLUMNS):
        x = MARGIN + col * slip_w
        c.line(x, MARGIN, x, page_h - MARGIN)
    for row in range(0, ROWS + 1):
        y = page_h - MARGIN - row * slip_h
        c.line(MARGIN, y, page_w - MARGIN, y)
    c.setDash()


def draw_slip(c: Canvas, slip: PairSlip, x: float, top: float, w: float, h: float) -> None:
    """One slip with its top-left corner at (x, top)."""
    pad = 10.0
    text_w = w - SLIP_QR - 3 * pad
    draw_text(c, x + pad, top - pad - 9, fit(slip.tournament, text_w, 9), 9, color=MUTED)
    draw_text(c, x + pad, top - pad - 34, f"第 {slip.pair.number} 对", 22, bold=True)
    names = "、".join(p for p in slip.pair.players if p)
    draw_text(c, x + pad, top - pad - 52, fit(names, text_w, 11), 11)
    if slip.pair.unit:
        draw_text(c, x + pad, top - pad - 66, fit(slip.pair.unit, text_w, 9), 9, color=MUTED)
    draw_text(c, x + pad, top - pad - 86, "对号密码", 9, color=MUTED)
    draw_text(c, x + pad + 44, top - pad - 88, slip.pair.code, 16, bold=True)
    for i, line in enumerate(SLIP_TEXTS):  # under the QR code: the slip's whole width
        draw_text(
            c, x + pad, top - pad - 108 - i * 10, fit(line, w - 2 * pad, 7.5), 7.5, color=MUTED
        )
    qr_x = x + w - pad - SLIP_QR
    draw_qr(c, slip.find_url, qr_x, top - pad - SLIP_QR, SLIP_QR)
    draw_text(c, qr_x + SLIP_QR / 2, top - pad - SLIP_QR - 9, "扫码查找座位", 7.5, "center", MUTED)
    if slip.checkin_url:
        small = 44.0
        draw_qr(c, slip.checkin_url, qr_x + SLIP_QR - small, top - h + pad + 8, small)
        draw_text(c, qr_x + SLIP_QR - small - 4, top - h + pad + 12, "签到", 7.5, "right", MUTED)


def render_slips(slips: Iterable[PairSlip], target: BinaryIO | None = None) -> bytes:
    """Every slip, ten to a page. Returns the bytes (also written to ``target``)."""
    buffer = target if target is not None else io.BytesIO()
    page_w, page_h = A4
    slip_w = (page_w - 2 * MARGIN) / COLUMNS
    slip_h = (page_h - 2 * MARGIN) / ROWS
    with binary_streams():
        c = new_canvas(buffer, "对号卡")
        count = 0
        for slip in slips:
            k = count % (COLUMNS * ROWS)
            if k == 0 and count:
                c.showPage()
            if k == 0:
                _cut_lines(c, slip_w, slip_h)
            col, row = k % COLUMNS, k // COLUMNS
            draw_slip(
                c, slip, MARGIN + col * slip_w, page_h - MARGIN - row * slip_h, slip_w, slip_h
            )
            count += 1
        if count == 0:
            draw_text(c, MARGIN, page_h - MARGIN - 20, "还没有报名的参赛对", 14)
        c.showPage()
        c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""
