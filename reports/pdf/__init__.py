"""PDF renderers: score sheets (记分表), pairing lists, standings and penalty reports.

Input: the plain rows of ``reports.rows``; output: PDF bytes (or a file object). Only reportlab,
the standard library and the printed words of ``tournaments.wording``; no database, so rendering
happens outside any transaction (STYLE.md: slow work outside the transaction) and can be
benchmarked on its own.

Chinese prints with reportlab's built-in CJK font ``STSong-Light`` (``UnicodeCIDFont``): no font
file ships with the project and the PDF reader supplies the glyphs. Pages are drawn straight on a
canvas rather than with platypus: a thousand score sheets must render in well under 20 seconds,
and a fixed A4 form is easier to keep tidy with explicit coordinates.

The QR code on a score sheet is encoded with reportlab's own encoder
(``reportlab.graphics.barcode.qrencoder``, the engine of its QR widget) and drawn as one path of
dark runs, which is an order of magnitude faster than building a widget drawing per sheet.

The package: ``common`` (font, colours, text, QR code, canvas), ``scoresheets`` (the A4 form),
``lists`` (paginated tables: pairings, standings, penalties) and ``slips`` (the pairs' code
slips). Callers use the names below.
"""

from reports.pdf.common import Progress, draw_qr, fit, qr_modules, qr_runs, text_width
from reports.pdf.lists import (
    Column,
    Section,
    pairings_by_pair,
    pairings_by_table,
    render_pairings,
    render_penalties,
    render_sections,
    render_standings,
    render_table,
    standings_title,
)
from reports.pdf.scoresheets import SheetLayout, draw_scoresheet, render_scoresheets
from reports.pdf.slips import draw_slip, render_slips
from reports.pdf.stages import (
    KnockoutSheet,
    PrintedMatch,
    PrintedRound,
    render_bracket,
    render_knockout_sheets,
)

__all__ = [
    "Column",
    "KnockoutSheet",
    "PrintedMatch",
    "PrintedRound",
    "Progress",
    "Section",
    "SheetLayout",
    "draw_qr",
    "draw_scoresheet",
    "draw_slip",
    "fit",
    "pairings_by_pair",
    "pairings_by_table",
    "qr_modules",
    "qr_runs",
    "render_bracket",
    "render_knockout_sheets",
    "render_pairings",
    "render_penalties",
    "render_scoresheets",
    "render_sections",
    "render_slips",
    "render_standings",
    "render_table",
    "standings_title",
    "text_width",
]
