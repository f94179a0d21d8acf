"""Registration import from Excel: parse and check the whole sheet, then register every pair.

Two steps, so that nothing is imported unless the whole sheet is valid:

1. ``parse_registrations(data, taken)`` reads the uploaded bytes (no database) and returns the
   lines, or raises ``RegistrationError`` listing *every* problem by row and column
   ("第7行 牌手2 为空"). Oversized, corrupt or non-Excel files are refused with one message;
   the archive is inspected before openpyxl expands it, so a "zip bomb" is refused too.
2. ``import_registrations(tournament, lines, user)`` registers the pairs through
   ``tournaments.services`` (``add_unit``, ``register_pair``) inside one transaction: a refusal
   of any line rolls every line back.

May touch: the database only through ``tournaments.services``.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from rules.errors import GuandanError
from tournaments.bounds import INT_MAX, parse_int

from .rows import RegistrationLine

MAX_BYTES = 5 * 1024 * 1024  # an upload; a registration sheet of 5,000 pairs is ~300 KB
MAX_UNPACKED = 60 * 1024 * 1024  # the xlsx archive expanded
MAX_ROWS = 5000  # pairs (non-blank lines) in one import
# The reader stops after this many rows *read* (blank ones too: a 181 KB file can declare 1.5
# million blank rows) or this many seconds, whichever comes first, so an upload never holds a
# web worker for long (issue 11 finding 10).
MAX_ROWS_READ = 20_000
MAX_SECONDS = 3.0
MAX_NAME = 100  # Player.name / Unit.name max_length
MAX_CONTACT = 100
UNIT_CODE_LENGTH = 32

NUMBER, UNIT, PLAYER1, PLAYER2, CONTACT1, CONTACT2 = (
    "序号",
    "单位",
    "牌手1",
    "牌手2",
    "牌手1联系方式",
    "牌手2联系方式",
)
REQUIRED = (NUMBER, UNIT, PLAYER1, PLAYER2)
OPTIONAL = (CONTACT1, CONTACT2)
# Header spellings organizers use, normalised to the template's names.
ALIASES = {
    "编号": NUMBER,
    "对号": NUMBER,
    "牌手一": PLAYER1,
    "牌手二": PLAYER2,
    "选手1": PLAYER1,
    "选手2": PLAYER2,
    "联系方式1": CONTACT1,
    "联系方式2": CONTACT2,
    "牌手1电话": CONTACT1,
    "牌手2电话": CONTACT2,
}
SHEET_NAME = "报名表"


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of the sheet; ``row`` is the spreadsheet's row number (1 = header)."""

    row: int | None
    column: str
    message: str

    def __str__(self) -> str:
        if self.row is None:
            return self.message
        return _("第%(row)s行 %(column)s %(message)s") % {
            "row": self.row,
            "column": self.column,
            "message": self.message,
        }


class RegistrationError(GuandanError):
    """The sheet was refused; ``problems`` says why (every problem, in sheet order, each already
    a sentence: the sheet's own wording names the row and the column)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("registration_refused", count=len(self.problems))

    def summary(self) -> str:
        return "; ".join(str(p) for p in self.problems)

    @property
    def messages(self) -> list[str]:
        return [str(p) for p in self.problems]


def _refuse(message: str) -> RegistrationError:
    return RegistrationError([Problem(None, "", message)])


def _open(data: bytes) -> Any:
    """The workbook, or a ``RegistrationError`` for a file that is no usable xlsx."""
    from openpyxl import load_workbook

    if len(data) > MAX_BYTES:
        raise _refuse(
            _("文件过大（%(size)s MB），报名表不能超过 %(max)s MB")
            % {"size": f"{len(data) / 1024 / 1024:.1f}", "max": MAX_BYTES // 1024 // 1024}
        )
    if not data:
        raise _refuse(_("文件是空的"))
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
            names = set(archive.namelist())
    except zipfile.BadZipFile:
        raise _refuse(
            _("无法读取该文件：请上传 Excel 工作簿（.xlsx），旧版 .xls 请先另存为 .xlsx")
        ) from None
    if unpacked > MAX_UNPACKED:
        raise _refuse(_("文件内容过大，无法导入"))
    if "xl/workbook.xml" not in names:
        raise _refuse(_("无法读取该文件：不是 Excel 工作簿（.xlsx）"))
    try:
        return load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # openpyxl raises many kinds of error on a damaged file
        raise _refuse(_("文件已损坏，无法读取，请用 Excel 重新保存后再试")) from None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _number(value: Any) -> int | None:
    """A pair number from a cell (3, 3.0, "3"): a whole number from 1 to ``INT_MAX`` (what the
    column holds), else None."""
    if isinstance(value, float):
        if not value.is_integer():
            return None
        value = int(value)
    if not isinstance(value, int):
        value = _text(value)
    return parse_int(value, minimum=1, maximum=INT_MAX)


def _too_big(value: Any) -> bool:
    """A whole number (cell or text) above what a pair number can be."""
    text = _text(value)
    return text.isascii() and text.isdigit() and len(text) < 4000 and int(text) > INT_MAX


def _header_map(header: Sequence[Any]) -> tuple[dict[str, int], list[Problem]]:
    columns: dict[str, int] = {}
    problems: list[Problem] = []
    for index, value in enumerate(header):
        name = _text(value).replace(" ", "").replace("　", "")
        name = ALIASES.get(name, name)
        if name in REQUIRED or name in OPTIONAL:
            if name in columns:
                problems.append(Problem(1, name, _("列重复")))
            else:
                columns[name] = index
    missing = [name for name in REQUIRED if name not in columns]
    if missing:
        problems.append(
            Problem(
                None,
                "",
                _("第1行须为列名，缺少：%(missing)s（应为 序号、单位、牌手1、牌手2）")
                % {"missing": pgettext("list separator", "、").join(missing)},
            )
        )
    return columns, problems


def parse_registrations(data: bytes, taken: Iterable[int] = ()) -> list[RegistrationLine]:
    """Check the whole sheet and return its lines; raise ``RegistrationError`` with every
    problem otherwise. ``taken``: pair numbers already used in the tournament."""
    book = _open(data)
    try:
        return _parse(book, taken)
    except RegistrationError:
        raise
    except Exception:  # a damaged sheet part surfaces only while reading rows
        raise _refuse(_("文件已损坏，无法读取，请用 Excel 重新保存后再试")) from None
    finally:
        book.close()


def _parse(book: Any, taken: Iterable[int]) -> list[RegistrationLine]:
    sheet = book[SHEET_NAME] if SHEET_NAME in book.sheetnames else book.worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    header = next(rows, None)
    if header is None:
        raise _refuse(_("表格是空的：第1行须为列名 序号、单位、牌手1、牌手2"))
    columns, problems = _header_map(header)
    if any(p.row is None for p in problems):
        raise RegistrationError(problems)
    taken = set(taken)
    seen: dict[int, int] = {}
    lines: list[RegistrationLine] = []
    count = 0
    deadline = time.monotonic() + MAX_SECONDS
    for row_number, row in enumerate(rows, start=2):
        if row_number > MAX_ROWS_READ + 1:
            raise _refuse(
                _("表格行数过多：最多读取 %(max)s 行（含空行），请删除多余的行后再试")
                % {"max": MAX_ROWS_READ}
            )
        if row_number % 500 == 0 and time.monotonic() > deadline:
            raise _refuse(
                _("表格读取超时（超过 %(seconds)s 秒），请删除多余的行或列后再试")
                % {"seconds": int(MAX_SECONDS)}
            )

        def cell(name: str, row: tuple = row) -> Any:
            index = columns.get(name)
            return row[index] if index is not None and index < len(row) else None

        values = {name: cell(name) for name in columns}
        if all(_text(v) == "" for v in values.values()):
            continue  # blank lines are ignored
        count += 1
        if count > MAX_ROWS:
            raise _refuse(_("行数过多：一次最多导入 %(max)s 对") % {"max": MAX_ROWS})
        raw_number = values[NUMBER]
        number = _number(raw_number)
        if _text(raw_number) == "":
            problems.append(Problem(row_number, NUMBER, _("为空")))
        elif number is None:
            problems.append(
                Problem(
                    row_number,
                    NUMBER,
                    _("须为正整数（现为“%(value)s”）") % {"value": _text(raw_number)[:20]}
                    if not _too_big(raw_number)
                    else _("过大（最大 %(max)s）") % {"max": INT_MAX},
                )
            )
        elif number in seen:
            problems.append(
                Problem(
                    row_number,
                    NUMBER,
                    _("%(number)s 与第%(other)s行重复") % {"number": number, "other": seen[number]},
                )
            )
        elif number in taken:
            problems.append(
                Problem(
                    row_number,
                    NUMBER,
                    _("%(number)s 已被已报名的参赛对使用") % {"number": number},
                )
            )
        if number is not None and number not in seen:
            seen[number] = row_number
        texts = {}
        for name, limit in (
            (UNIT, MAX_NAME),
            (PLAYER1, MAX_NAME),
            (PLAYER2, MAX_NAME),
            (CONTACT1, MAX_CONTACT),
            (CONTACT2, MAX_CONTACT),
        ):
            text = _text(values.get(name))
            texts[name] = text
            if name in (PLAYER1, PLAYER2) and not text:
                problems.append(Problem(row_number, name, _("为空")))
            elif len(text) > limit:
                problems.append(
                    Problem(row_number, name, _("过长（最多 %(max)s 个字符）") % {"max": limit})
                )
        if number is not None:
            lines.append(
                RegistrationLine(
                    number=number,
                    unit=texts[UNIT],
                    player1=texts[PLAYER1],
                    player2=texts[PLAYER2],
                    contact1=texts[CONTACT1],
                    contact2=texts[CONTACT2],
                )
            )
    if problems:
        raise RegistrationError(problems)
    if not lines:
        raise _refuse(_("表中没有报名数据（第2行起每行一对）"))
    return lines


def _unit_codes(tournament: Any) -> tuple[dict[str, Any], set[str]]:
    from tournaments.models import Unit

    by_name: dict[str, Any] = {}
    codes: set[str] = set()
    for unit in Unit.objects.filter(tournament=tournament):
        by_name.setdefault(unit.name, unit)
        by_name.setdefault(unit.code, unit)
        codes.add(unit.code)
    return by_name, codes


def _new_unit_code(name: str, codes: set[str]) -> str:
    code = name[:UNIT_CODE_LENGTH]
    suffix = 2
    while code in codes:
        tail = f"-{suffix}"
        code = name[: UNIT_CODE_LENGTH - len(tail)] + tail
        suffix += 1
    codes.add(code)
    return code


def import_registrations(
    tournament: Any, lines: Sequence[RegistrationLine], user: Any = None
) -> int:
    """Register every line's pair (creating units by name) in one transaction; all or nothing.

    A refusal by the services (a number taken meanwhile, no permission …) rolls back every
    line and is raised as ``RegistrationError`` naming the line.
    """
    from tournaments.errors import ServiceError
    from tournaments.services import add_unit, register_pair

    with transaction.atomic():
        units, codes = _unit_codes(tournament)
        for index, line in enumerate(lines):
            unit = None
            if line.unit:
                unit = units.get(line.unit)
                if unit is None:
                    try:
                        unit = add_unit(
                            tournament, _new_unit_code(line.unit, codes), line.unit, user
                        )
                    except ServiceError as error:
                        raise RegistrationError(
                            [
                                Problem(
                                    None,
                                    "",
                                    _("单位“%(unit)s”：") % {"unit": line.unit} + error.message,
                                )
                            ]
                        ) from error
                    units[line.unit] = unit
            try:
                register_pair(
                    tournament,
                    [
                        {"name": line.player1, "contact": line.contact1},
                        {"name": line.player2, "contact": line.contact2},
                    ],
                    user,
                    unit=unit,
                    number=line.number,
                )
            except ServiceError as error:
                raise RegistrationError(
                    [
                        Problem(
                            None,
                            "",
                            _("序号 %(number)s（第%(n)s对）：")
                            % {"number": line.number, "n": index + 1}
                            + error.message,
                        )
                    ]
                ) from error
    return len(lines)
