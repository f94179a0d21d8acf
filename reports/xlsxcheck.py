"""An uploaded workbook checked from its XML stream before openpyxl opens it (issue 29, point 11).

openpyxl's ``load_workbook`` (even ``read_only``) looks for each worksheet's ``<dimension>``
by parsing the sheet until it finds one — and a sheet without it is parsed to its end. A 181 KB
registration file declaring 1.5 million blank rows held a web worker for 19.5 s inside
``load_workbook``, before the row limit of ``reports.registrations`` could apply. So the archive
is read here first, in a bounded time, and refused with a sentence when it is more than a
registration sheet can be:

- the archive: a zip (not an old .xls), not empty, at most ``max_bytes``, at most
  ``max_unpacked`` bytes once expanded (as its directory declares them: the reader never
  expands a part beyond its declared size, so a "zip bomb" cannot lie its way past), with a
  workbook part;
- the sheet that will be read (``sheet_name``, else the first): its declared ``<dimension>``,
  its rows (``<row>`` elements and their ``r`` numbers) within ``max_rows``, its columns within
  ``max_columns``, its cells within ``max_cells``;
- every other worksheet: read only up to its ``<dimension>`` when that comes first (all
  openpyxl reads of it); without one it is counted like the sheet that will be read;
- every XML part: no ``DOCTYPE`` (Excel never writes one; it is how entity bombs start), well
  formed, and all of them together at most ``max_elements`` elements (openpyxl reads the shared
  strings and styles whole);
- all of it within ``seconds``.

Each part is fed to expat (C, no tree is built) in 64 KB pieces as it is decompressed, so a
refusal comes as soon as a limit is passed: the 1.5-million-row sheet is refused after 20,001
rows, in ~20 ms. ``check_workbook`` raises ``WorkbookRefused`` with the sentence.

May touch: nothing (bytes in, a refusal out).
"""

from __future__ import annotations

import io
import posixpath
import re
import time
import xml.parsers.expat
import zipfile
from dataclasses import dataclass

from django.utils.translation import gettext as _

CHUNK = 64 * 1024
_CELL = re.compile(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})")
_RELS = "xl/_rels/workbook.xml.rels"


class WorkbookRefused(Exception):
    """The upload is not a workbook this site will open; ``message`` says why (translated)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Limits:
    max_bytes: int
    max_unpacked: int
    max_rows: int  # rows read, the header and blank ones included
    max_columns: int
    max_cells: int
    max_elements: int
    seconds: float


def _column(letters: str) -> int:
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - 64
    return number


def _cell(reference: str) -> tuple[int, int] | None:
    """``"XFD1048576"`` → (column 16384, row 1048576); None when it is no cell reference."""
    match = _CELL.fullmatch(reference.strip())
    if match is None:
        return None
    return _column(match.group(1)), int(match.group(2))


def _local(name: str) -> str:
    return name.rpartition(":")[2]


class _Stop(Exception):
    """A part has been read far enough (not an error)."""


class _Part:
    """The expat handlers for one part: counts, and the refusals as limits are passed."""

    def __init__(self, check: _Check, *, counted: bool, sized_is_enough: bool) -> None:
        self.check = check
        self.counted = counted  # a worksheet whose rows, cells and columns count
        self.sized_is_enough = sized_is_enough  # a worksheet nobody reads past its dimension
        self.rows = 0
        self.cells = 0
        self.sheet_data = False

    def start(self, name: str, attributes: dict[str, str]) -> None:
        check = self.check
        check.elements += 1
        if check.elements > check.limits.max_elements:
            raise WorkbookRefused(check.too_much())
        if not self.counted:
            return
        tag = _local(name)
        if tag == "row":
            self.rows += 1
            number = attributes.get("r", "")
            row = int(number) if number.isascii() and number.isdigit() else self.rows
            if max(self.rows, row) > check.limits.max_rows:
                raise WorkbookRefused(check.too_many_rows())
        elif tag == "c":
            self.cells += 1
            if self.cells > check.limits.max_cells:
                raise WorkbookRefused(check.too_much())
            found = _cell(attributes.get("r", "A1"))
            if found is not None and found[0] > check.limits.max_columns:
                raise WorkbookRefused(check.too_many_columns())
        elif tag == "dimension" and not self.sheet_data:
            self.dimension(attributes.get("ref", ""))
        elif tag == "sheetData":
            self.sheet_data = True

    def dimension(self, ref: str) -> None:
        check = self.check
        corners = [_cell(part) for part in ref.split(":")]
        if self.sized_is_enough:
            raise _Stop  # openpyxl stops here too: it never reads this sheet's rows
        for corner in corners:
            if corner is None:
                continue
            if corner[1] > check.limits.max_rows:
                raise WorkbookRefused(check.too_many_rows())
            if corner[0] > check.limits.max_columns:
                raise WorkbookRefused(check.too_many_columns())


class _Check:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.elements = 0
        self.deadline = time.monotonic() + limits.seconds

    # The sentences (the registration import's wording: rows read include blank ones).
    def too_many_rows(self) -> str:
        return _("表格行数过多：最多读取 %(max)s 行（含空行），请删除多余的行后再试") % {
            "max": self.limits.max_rows - 1
        }

    def too_many_columns(self) -> str:
        return _("表格列数过多：最多 %(max)s 列，请删除多余的列后再试") % {
            "max": self.limits.max_columns
        }

    def too_much(self) -> str:
        return _("表格内容过多，无法导入：请只保留报名表，删除多余的行、列和工作表后再试")

    def too_slow(self) -> str:
        return _("表格读取超时（超过 %(seconds)s 秒），请删除多余的行或列后再试") % {
            "seconds": max(1, round(self.limits.seconds))
        }

    def read(self, archive: zipfile.ZipFile, name: str, part: _Part) -> None:
        parser = xml.parsers.expat.ParserCreate()
        parser.StartElementHandler = part.start

        def doctype(*args: object) -> None:
            raise WorkbookRefused(damaged())

        parser.StartDoctypeDeclHandler = doctype
        parser.EntityDeclHandler = doctype
        try:
            with archive.open(name) as stream:
                while chunk := stream.read(CHUNK):
                    parser.Parse(chunk, False)
                    if time.monotonic() > self.deadline:
                        raise WorkbookRefused(self.too_slow())
                parser.Parse(b"", True)
        except _Stop:
            return
        except (xml.parsers.expat.ExpatError, zipfile.BadZipFile, OSError, EOFError):
            raise WorkbookRefused(damaged()) from None
        except (RuntimeError, NotImplementedError):  # encrypted or an unknown compression
            raise WorkbookRefused(damaged()) from None


def damaged() -> str:
    return _("文件已损坏，无法读取，请用 Excel 重新保存后再试")


def _worksheets(archive: zipfile.ZipFile, names: set[str]) -> list[tuple[str, str]]:
    """(sheet name, part) in workbook order, from ``xl/workbook.xml`` and its relations (both
    small; bounded like every part); [] when they cannot be followed."""
    sheets: list[tuple[str, str]] = []
    targets: dict[str, str] = {}

    def on_sheet(name: str, attributes: dict[str, str]) -> None:
        if _local(name) == "sheet":
            rid = next((v for k, v in attributes.items() if _local(k) == "id"), "")
            sheets.append((attributes.get("name", ""), rid))
        if _local(name) == "Relationship":
            target = attributes.get("Target", "")
            part = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
            targets[attributes.get("Id", "")] = posixpath.normpath(part)

    for part in ("xl/workbook.xml", _RELS):
        if part not in names or archive.getinfo(part).file_size > 4 * 1024 * 1024:
            return []
        parser = xml.parsers.expat.ParserCreate()
        parser.StartElementHandler = on_sheet
        try:
            parser.Parse(archive.read(part), True)
        except (xml.parsers.expat.ExpatError, zipfile.BadZipFile, OSError, RuntimeError):
            raise WorkbookRefused(damaged()) from None
    return [(name, targets[rid]) for name, rid in sheets if targets.get(rid) in names]


def check_workbook(data: bytes, limits: Limits, sheet_name: str = "") -> None:
    """Refuse (``WorkbookRefused``) an upload that is no workbook, or more than ``limits``
    allow, before anything expands it (the module's docstring)."""
    if len(data) > limits.max_bytes:
        raise WorkbookRefused(
            _("文件过大（%(size)s MB），报名表不能超过 %(max)s MB")
            % {"size": f"{len(data) / 1024 / 1024:.1f}", "max": limits.max_bytes // 1024 // 1024}
        )
    if not data:
        raise WorkbookRefused(_("文件是空的"))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise WorkbookRefused(
            _("无法读取该文件：请上传 Excel 工作簿（.xlsx），旧版 .xls 请先另存为 .xlsx")
        ) from None
    with archive:
        infos = archive.infolist()
        if sum(info.file_size for info in infos) > limits.max_unpacked:
            raise WorkbookRefused(_("文件内容过大，无法导入"))
        names = {info.filename for info in infos}
        if "xl/workbook.xml" not in names:
            raise WorkbookRefused(_("无法读取该文件：不是 Excel 工作簿（.xlsx）"))
        check = _Check(limits)
        sheets = _worksheets(archive, names)
        read = next((part for name, part in sheets if name == sheet_name), None)
        if read is None and sheets:
            read = sheets[0][1]
        worksheets = {part for _name, part in sheets}
        for info in infos:
            name = info.filename
            if not name.endswith(".xml") and not name.endswith(".rels"):
                continue  # pictures, printer settings: openpyxl does not parse them
            is_sheet = name in worksheets or (not sheets and name.startswith("xl/worksheets/"))
            part = _Part(check, counted=is_sheet, sized_is_enough=is_sheet and name != read)
            check.read(archive, name, part)
