"""A minimal streaming ``.xlsx`` writer for the big export (standard library only).

Why not openpyxl here: without lxml (not a dependency of this project) openpyxl's write-only mode
serialises every cell through the pure-Python ``et_xmlfile`` writer, about 50 µs a cell; the
export of 2,000 pairs × 9 rounds has about a million cells, far over the 10 s goal. This writer
emits SpreadsheetML (ECMA-376 part 1, §18) straight into the zip stream, about 1 µs a cell, and
supports only what the export needs: several sheets, numbers and inline strings, one bold shaded
header style, column widths and a frozen header row. Files are read back with openpyxl in the
tests, and open in Excel, WPS and LibreOffice.

openpyxl stays the tool for everything else (reading uploads, the registration template).
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO

from openpyxl.utils import get_column_letter

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
# XML 1.0 forbids most C0 control characters; a name pasted from elsewhere may carry one.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_SPECIAL = re.compile('[&<>"]')
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}

STYLES = (
    HEAD + f'<styleSheet xmlns="{MAIN_NS}">'
    '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font>'
    '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>'
    '<fills count="3"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill>'
    '<fill><patternFill patternType="solid"><fgColor rgb="FFE6E6E6"/><bgColor indexed="64"/>'
    "</patternFill></fill></fills>"
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
    '<xf numFmtId="0" fontId="1" fillId="2" borderId="0" xfId="0" applyFont="1" applyFill="1" '
    'applyAlignment="1"><alignment horizontal="center" vertical="center" wrapText="1"/></xf>'
    "</cellXfs>"
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    "</styleSheet>"
)


def xml_text(value: str) -> str:
    """Escape for XML text and attributes; drop characters XML cannot carry."""
    if _ILLEGAL.search(value):
        value = _ILLEGAL.sub("", value)
    if _SPECIAL.search(value):
        value = _SPECIAL.sub(lambda m: _ENTITIES[m.group()], value)
    return value


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_formula(value: str) -> str:
    """Text a spreadsheet would read as a formula gets a leading apostrophe (OWASP)."""
    return "'" + value if value.startswith(FORMULA_START) else value


def _inline(value: str) -> str:
    """The ``<is>`` part of an inline string cell (formula-escaped, XML-escaped)."""
    text = xml_text(escape_formula(value))
    space = ' xml:space="preserve"' if text[:1].isspace() or text[-1:].isspace() else ""
    return f"<is><t{space}>{text}</t></is>"


class StreamingWorkbook:
    """Sheets are written one after another straight into the zip; ``close()`` adds the
    workbook parts. Use as a context manager."""

    def __init__(self, target: BinaryIO) -> None:
        self._zip = zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
        self._titles: list[str] = []

    def __enter__(self) -> StreamingWorkbook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_sheet(
        self,
        title: str,
        headers: Sequence[str],
        rows: Iterable[Sequence[Any]],
        widths: Sequence[float] = (),
    ) -> int:
        """One sheet: a bold shaded header row, frozen; ``rows`` of numbers, strings or None.
        Text that would read as a formula is escaped (``escape_formula``). Returns the number of
        data rows written."""
        index = len(self._titles) + 1
        self._titles.append(title[:31])
        columns = max(len(headers), len(widths))
        letters = [get_column_letter(i + 1) for i in range(max(columns, 1) + 64)]
        written = 0
        with self._zip.open(f"xl/worksheets/sheet{index}.xml", "w") as raw:
            buffer: list[str] = [
                HEAD,
                f'<worksheet xmlns="{MAIN_NS}" xmlns:r="{REL_NS}">',
                '<sheetViews><sheetView workbookViewId="0">'
                '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>'
                '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/>'
                "</sheetView></sheetViews>",
                '<sheetFormatPr defaultRowHeight="15"/>',
            ]
            if widths:
                buffer.append("<cols>")
                for i, width in enumerate(widths, start=1):
                    buffer.append(f'<col min="{i}" max="{i}" width="{width:g}" customWidth="1"/>')
                buffer.append("</cols>")
            buffer.append("<sheetData>")
            head = "".join(
                f'<c r="{letters[i]}1" s="1" t="inlineStr">{_inline(str(h))}</c>'
                for i, h in enumerate(headers)
            )
            # A thousand tables repeat the same few hundred texts ("南北", "二游", names …).
            inline: dict[str, str] = {}
            buffer.append(f'<row r="1">{head}</row>')
            row_number = 1
            for row in rows:
                row_number += 1
                cells = []
                for i, value in enumerate(row):
                    if value is None or value == "":
                        continue
                    ref = f"{letters[i]}{row_number}"
                    if isinstance(value, bool):
                        cells.append(f'<c r="{ref}" t="b"><v>{int(value)}</v></c>')
                    elif isinstance(value, int | float):
                        cells.append(f'<c r="{ref}"><v>{value!r}</v></c>')
                    else:
                        text = value if isinstance(value, str) else str(value)
                        part = inline.get(text)
                        if part is None:
                            part = inline[text] = _inline(text)
                        cells.append(f'<c r="{ref}" t="inlineStr">{part}</c>')
                buffer.append(f'<row r="{row_number}">{"".join(cells)}</row>')
                if len(buffer) >= 2000:
                    raw.write("".join(buffer).encode())
                    buffer.clear()
            written = row_number - 1
            buffer.append("</sheetData></worksheet>")
            raw.write("".join(buffer).encode())
        return written

    def close(self) -> None:
        if self._zip.fp is None:
            return
        n = len(self._titles)
        sheets = "".join(
            f'<sheet name="{xml_text(title)}" sheetId="{i}" r:id="rId{i}"/>'
            for i, title in enumerate(self._titles, start=1)
        )
        self._zip.writestr(
            "xl/workbook.xml",
            HEAD + f'<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}">'
            f'<bookViews><workbookView activeTab="0"/></bookViews><sheets>{sheets}</sheets>'
            "</workbook>",
        )
        rels = "".join(
            f'<Relationship Id="rId{i}" Type="{REL_NS}/worksheet" '
            f'Target="worksheets/sheet{i}.xml"/>'
            for i in range(1, n + 1)
        )
        rels += f'<Relationship Id="rId{n + 1}" Type="{REL_NS}/styles" Target="styles.xml"/>'
        self._zip.writestr(
            "xl/_rels/workbook.xml.rels",
            HEAD + f'<Relationships xmlns="{PKG_REL_NS}">{rels}</Relationships>',
        )
        self._zip.writestr("xl/styles.xml", STYLES)
        self._zip.writestr(
            "_rels/.rels",
            HEAD + f'<Relationships xmlns="{PKG_REL_NS}">'
            f'<Relationship Id="rId1" Type="{REL_NS}/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>",
        )
        ct = "application/vnd.openxmlformats-officedocument.spreadsheetml"
        overrides = "".join(
            f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{ct}.worksheet+xml"/>'
            for i in range(1, n + 1)
        )
        self._zip.writestr(
            "[Content_Types].xml",
            HEAD + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{ct}.sheet.main+xml"/>'
            f'<Override PartName="/xl/styles.xml" ContentType="{ct}.styles+xml"/>'
            f"{overrides}</Types>",
        )
        self._zip.close()
