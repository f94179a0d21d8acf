"""Login slips (登录条) for staff accounts made in bulk: eight to an A4 page, cut along the
lines, one per referee — the tournament, the role, the username, the password, the assigned
tables, the login address and its QR code.

Input: ``LoginSlip`` rows with every word already translated (the caller words them); only
reportlab and ``reports.pdf.common``; no database.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from reports.pdf.common import (
    HAIR,
    MARGIN,
    MUTED,
    batched_text,
    binary_streams,
    draw_qr,
    draw_text,
    fit,
    new_canvas,
)

COLUMNS, ROWS = 2, 4


@dataclass(frozen=True, slots=True)
class LoginSlip:
    """One slip; ``lines`` are (label, value) pairs printed under the title."""

    title: str
    heading: str
    lines: tuple[tuple[str, str], ...]
    url: str
    note: str = ""


def render_login_slips(
    slips: Sequence[LoginSlip], document_title: str, target: BinaryIO | None = None
) -> bytes:
    buffer = target if target is not None else io.BytesIO()
    width, height = A4
    cell_w = (width - 2 * MARGIN) / COLUMNS
    cell_h = (height - 2 * MARGIN) / ROWS
    with binary_streams():
        c = new_canvas(buffer, document_title)
        per_page = COLUMNS * ROWS
        for start in range(0, max(len(slips), 1), per_page):
            page = slips[start : start + per_page]
            c.setStrokeColor(HAIR)
            c.setLineWidth(0.5)
            c.setDash(3, 3)
            for col in range(COLUMNS + 1):
                x = MARGIN + col * cell_w
                c.line(x, MARGIN, x, height - MARGIN)
            for row in range(ROWS + 1):
                y = MARGIN + row * cell_h
                c.line(MARGIN, y, width - MARGIN, y)
            c.setDash()
            for index, slip in enumerate(page):
                col, row = index % COLUMNS, index // COLUMNS
                x = MARGIN + col * cell_w
                top = height - MARGIN - row * cell_h
                _draw_slip(c, slip, x, top, cell_w, cell_h)
            c.showPage()
        c.save()
    return buffer.getvalue() if isinstance(buffer, io.BytesIO) else b""


def _draw_slip(c: Canvas, slip: LoginSlip, x: float, top: float, w: float, h: float) -> None:
    pad = 12.0
    qr = 78.0
    text_w = w - 2 * pad - qr - 6
    draw_qr(c, slip.url, x + w - pad - qr, top - pad - qr, qr)
    with batched_text(c):
        y = top - pad - 11
        draw_text(c, x + pad, y, fit(slip.title, text_w, 10), 10, color=MUTED)
        y -= 20
        draw_text(c, x + pad, y, fit(slip.heading, text_w, 15), 15)
        for label, value in slip.lines:
            y -= 22
            draw_text(c, x + pad, y, fit(label, 60, 9), 9, color=MUTED)
            draw_text(c, x + pad + 62, y, fit(value, w - 2 * pad - 62, 13), 13)
        y = top - h + pad + 14
        draw_text(c, x + pad, y, fit(slip.url, w - 2 * pad, 8), 8, color=MUTED)
        if slip.note:
            draw_text(c, x + pad, y - 11, fit(slip.note, w - 2 * pad, 8), 8, color=MUTED)
