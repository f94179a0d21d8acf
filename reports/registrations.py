"""Registration import from Excel: parse and check the whole sheet, then register every pair.

Two steps, so that nothing is imported unless the whole sheet is valid:

1. ``parse_registrations(data, taken)`` reads the uploaded bytes (no database) and returns the
   lines, or raises ``RegistrationError`` listing *every* problem by row and column
   ("第7行 牌手2 为空"). Oversized, corrupt or non-Excel files are refused with one message;
   the archive and its XML are checked as a stream before openpyxl opens it
   (``reports.xlsxcheck``: declared sizes, rows, columns, cells, no DOCTYPE), so a "zip bomb"
   or a sheet declaring a million blank rows is refused in well under a second.
2. ``import_registrations(tournament, lines, user)`` registers the pairs through
   ``tournaments.services`` (``add_unit``, ``register_pair``) inside one transaction: a refusal
   of any line rolls every line back.

Team events read a team sheet (``parse_team_registrations``, ``import_team_registrations``
through ``tournaments.teams.register_team``): one row per team, 序号, 队名, 单位, 牌手1…牌手6,
the pairs by column (docs/printing.md "Team events"), with the same unit creation. Both sheets
are read by one loop, ``_sheet_rows`` (one header map; the same limits on rows read, seconds
and rows imported), each described by its ``_Layout`` (``PAIRS``, ``TEAMS``). ``import_sheet``
picks the sheet by the event.

May touch: the database only through ``tournaments.services`` (and ``tournaments.teams``).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from rules.errors import GuandanError
from rules.text import normalise_name, text_problem
from tournaments.bounds import INT_MAX, parse_int
from tournaments.messages import sentence

from .rows import RegistrationLine, TeamRegistrationLine
from .xlsxcheck import Limits, WorkbookRefused, check_workbook

MAX_BYTES = 5 * 1024 * 1024  # an upload; a registration sheet of 5,000 pairs is ~300 KB
MAX_UNPACKED = 60 * 1024 * 1024  # the xlsx archive expanded
MAX_ROWS = 5000  # pairs (non-blank lines) in one import
# The reader stops after this many rows *read* (blank ones too: a 181 KB file can declare 1.5
# million blank rows) or this many seconds, whichever comes first, so an upload never holds a
# web worker for long (issue 11 finding 10).
MAX_ROWS_READ = 20_000
MAX_SECONDS = 3.0
# Before openpyxl opens the file, its XML is read with these limits (``reports.xlsxcheck``):
# the sizes above, rows read as above (plus the header), columns (a sheet's dimension or a cell
# beyond them makes openpyxl pad every row), cells, XML elements in all parts (~0.3 s of
# parsing), two seconds.
MAX_COLUMNS = 200
MAX_CELLS = 200_000
MAX_ELEMENTS = 500_000
CHECK_SECONDS = 2.0


def limits() -> Limits:
    """The limits as they are set now (read when used: the tests change them)."""
    return Limits(
        max_bytes=MAX_BYTES,
        max_unpacked=MAX_UNPACKED,
        max_rows=MAX_ROWS_READ + 1,
        max_columns=MAX_COLUMNS,
        max_cells=MAX_CELLS,
        max_elements=MAX_ELEMENTS,
        seconds=CHECK_SECONDS,
    )


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

# The team sheet (docs/printing.md "Team events"): one row per team; 牌手1+牌手2 are its first pair,
# 牌手3+牌手4 its second, 牌手5+牌手6 its optional third — the default line-up is the first two.
TEAM_NAME = "队名"
TEAM_PLAYERS = tuple(f"牌手{i}" for i in range(1, 7))
TEAM_REQUIRED = (NUMBER, TEAM_NAME, UNIT, *TEAM_PLAYERS[:4])
TEAM_OPTIONAL = TEAM_PLAYERS[4:]
TEAM_ALIASES = {
    "编号": NUMBER,
    "队号": NUMBER,
    "队伍名称": TEAM_NAME,
    "队伍": TEAM_NAME,
    **{f"选手{i}": f"牌手{i}" for i in range(1, 7)},
    **{f"牌手{c}": f"牌手{i}" for i, c in enumerate("一二三四五六", start=1)},
}
TEAM_SHEET_NAME = "团体报名表"
MAX_TEAM_ROWS = 2000  # teams in one import (6 players each)


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


def _open(data: bytes, sheet: str) -> Any:
    """The workbook, or a ``RegistrationError`` for a file that is no usable xlsx or more than a
    registration sheet can be — checked from its XML stream before openpyxl opens it
    (``reports.xlsxcheck``: ``load_workbook`` alone may parse a whole sheet)."""
    from openpyxl import load_workbook

    try:
        check_workbook(data, limits(), sheet)
    except WorkbookRefused as refused:
        raise _refuse(refused.message) from None
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


def _header_map(header: Sequence[Any], layout: _Layout) -> tuple[dict[str, int], list[Problem]]:
    """The columns of the header row by name (aliases normalised), and its problems: a column
    twice, required ones missing."""
    required, optional, aliases = layout.required, layout.optional, layout.aliases
    columns: dict[str, int] = {}
    problems: list[Problem] = []
    for index, value in enumerate(header):
        name = _text(value).replace(" ", "").replace("\u3000", "")
        name = aliases.get(name, name)
        if name in required or name in optional:
            if name in columns:
                problems.append(Problem(1, name, _("列重复")))
            else:
                columns[name] = index
    missing = [name for name in required if name not in columns]
    if missing:
        listed = pgettext("list separator", "、").join(missing)
        problems.append(Problem(None, "", layout.missing(listed)))
    return columns, problems


@dataclass(frozen=True, slots=True)
class RegisteredPair:
    """A pair already registered in the tournament: its number and its players as
    ``(name, contact)``, for the append mode and the player-in-two-pairs check."""

    number: int
    players: tuple[tuple[str, str], ...]


def registered_pairs(tournament: Any) -> list[RegisteredPair]:
    """The tournament's registered pairs (one query)."""
    from tournaments.models import Player

    players: dict[int, list[tuple[str, str]]] = {}
    rows = (
        Player.objects.filter(pair__tournament=tournament)
        .order_by("pair__number", "position")
        .values_list("pair__number", "name", "contact")
    )
    for number, name, contact in rows:
        players.setdefault(number, []).append((name, contact))
    return [RegisteredPair(number, tuple(listed)) for number, listed in players.items()]


def parse_registrations(
    data: bytes,
    taken: Iterable[int] = (),
    *,
    registered: Sequence[RegisteredPair] = (),
    append: bool = False,
) -> list[RegistrationLine]:
    """Check the whole sheet and return its lines; raise ``RegistrationError`` with every
    problem otherwise. ``taken``: pair numbers already used in the tournament (``registered``
    adds theirs).

    An empty 序号 is numbered after every number used (the sheet's and the tournament's), in
    sheet order. A player listed in two pairs (same name, and not two different contacts) is
    a problem, within the sheet and against ``registered``. With ``append`` (late entries), a
    line repeating a registered pair (same number, same players) is skipped, so the organizer
    can re-import the whole sheet with the new lines added; ``parse_appended`` says how many
    were skipped."""
    return parse_appended(data, taken, registered=registered, append=append)[0]


def parse_appended(
    data: bytes,
    taken: Iterable[int] = (),
    *,
    registered: Sequence[RegisteredPair] = (),
    append: bool = False,
) -> tuple[list[RegistrationLine], int]:
    """``parse_registrations`` and the number of lines skipped as already registered."""
    book = _open(data, SHEET_NAME)
    try:
        return _parse(book, taken, registered, append)
    except RegistrationError:
        raise
    except Exception:  # a damaged sheet part surfaces only while reading rows
        raise _refuse(_("文件已损坏，无法读取，请用 Excel 重新保存后再试")) from None
    finally:
        book.close()


def _same_person(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Same name, unless both contacts are given and differ (two people called 张伟)."""
    return a[0] == b[0] and not (a[1] and b[1] and a[1] != b[1])


def _players_in_two_pairs(
    lines: Sequence[tuple[int, RegistrationLine]], registered: Sequence[RegisteredPair]
) -> list[Problem]:
    seen: dict[str, list[tuple[tuple[str, str], str]]] = {}
    for pair in registered:
        for player in pair.players:
            where = _("已报名的第%(n)s对") % {"n": pair.number}
            seen.setdefault(player[0], []).append((player, where))
    problems = []
    for row_number, line in lines:
        for column, player in (
            (PLAYER1, (line.player1, line.contact1)),
            (PLAYER2, (line.player2, line.contact2)),
        ):
            if not player[0]:
                continue  # already reported as empty
            earlier = [w for other, w in seen.get(player[0], []) if _same_person(player, other)]
            if earlier:
                problems.append(
                    Problem(
                        row_number,
                        column,
                        _("“%(name)s”已在%(where)s中（同一人不能报两对）")
                        % {"name": player[0], "where": earlier[0]},
                    )
                )
            where = _("第%(row)s行") % {"row": row_number}
            seen.setdefault(player[0], []).append((player, where))
    return problems


def _parse(
    book: Any,
    taken: Iterable[int],
    registered: Sequence[RegisteredPair] = (),
    append: bool = False,
) -> tuple[list[RegistrationLine], int]:
    problems: list[Problem] = []
    by_number = {pair.number: pair for pair in registered}
    taken = set(taken) | set(by_number)
    seen: dict[int, int] = {}
    lines: list[tuple[int, RegistrationLine]] = []
    unnumbered: list[int] = []  # indexes into lines of the rows with an empty 序号
    skipped = 0
    for row_number, values in _sheet_rows(book, PAIRS, problems):
        raw_number = values[NUMBER]
        number = _number(raw_number)
        text_problems: list[Problem] = []  # listed after the 序号's, as the columns go
        texts = _row_texts(values, row_number, text_problems)
        names = {texts[PLAYER1], texts[PLAYER2]}
        if _text(raw_number) == "":
            number = 0  # numbered after the loop
        elif (
            append
            and number in by_number
            and {p[0] for p in by_number[number].players} == names
            and number not in seen
        ):
            seen[number] = row_number
            skipped += 1  # already registered: the re-imported sheet's old line
            continue
        elif (problem := _number_problem(raw_number, number, seen)) is not None:
            problems.append(Problem(row_number, NUMBER, problem))
        elif number in taken and number in by_number:
            problems.append(
                Problem(
                    row_number,
                    NUMBER,
                    _("%(number)s 已被已报名的第%(number)s对（%(names)s）使用")
                    % {
                        "number": number,
                        "names": "/".join(p[0] for p in by_number[number].players),
                    },
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
        if number and number not in seen:
            seen[number] = row_number
        problems.extend(text_problems)
        if number is not None:
            if number == 0:
                unnumbered.append(len(lines))
            lines.append(
                (
                    row_number,
                    RegistrationLine(
                        number=number,
                        unit=texts[UNIT],
                        player1=texts[PLAYER1],
                        player2=texts[PLAYER2],
                        contact1=texts[CONTACT1],
                        contact2=texts[CONTACT2],
                    ),
                )
            )
    problems.extend(_players_in_two_pairs(lines, registered))
    if problems:
        raise RegistrationError(sorted(problems, key=lambda p: p.row or 0))
    if not lines:
        if skipped:
            raise _refuse(_("表中的 %(n)s 对都已报名，没有新的参赛对") % {"n": skipped})
        raise _refuse(PAIRS.no_lines())
    # RULES: none on numbering; an empty 序号 takes the next free number, in sheet order.
    next_number = max(taken | set(seen), default=0)
    for index in unnumbered:
        next_number += 1
        row_number, line = lines[index]
        lines[index] = (row_number, replace(line, number=next_number))
    return [line for _row, line in lines], skipped


def _row_texts(values: dict[str, Any], row_number: int, problems: list[Problem]) -> dict[str, str]:
    """The row's text cells, checked (players required, lengths)."""
    return {
        name: _check_text(problems, row_number, name, values.get(name), limit, required)
        for name, limit, required in (
            (UNIT, MAX_NAME, False),
            (PLAYER1, MAX_NAME, True),
            (PLAYER2, MAX_NAME, True),
            (CONTACT1, MAX_CONTACT, False),
            (CONTACT2, MAX_CONTACT, False),
        )
    }


class _Units:
    """The tournament's units by name (and code), a new one added the first time a name is
    met (``tournaments.services.add_unit``, with a code made from the name)."""

    def __init__(self, tournament: Any, user: Any) -> None:
        from tournaments.models import Unit

        self.tournament = tournament
        self.user = user
        self.by_name: dict[str, Any] = {}
        self.codes: set[str] = set()
        for unit in Unit.objects.filter(tournament=tournament):
            self.by_name.setdefault(unit.name, unit)
            self.by_name.setdefault(unit.code, unit)
            self.codes.add(unit.code)

    def _new_code(self, name: str) -> str:
        code = name[:UNIT_CODE_LENGTH]
        suffix = 2
        while code in self.codes:
            tail = f"-{suffix}"
            code = name[: UNIT_CODE_LENGTH - len(tail)] + tail
            suffix += 1
        self.codes.add(code)
        return code

    def get(self, name: str) -> Any:
        """The unit called ``name`` (created if new), None for an empty name; a refusal is a
        ``RegistrationError`` naming the unit."""
        from tournaments.errors import ServiceError
        from tournaments.services import add_unit

        if not name:
            return None
        unit = self.by_name.get(name)
        if unit is None:
            try:
                unit = add_unit(self.tournament, self._new_code(name), name, self.user)
            except ServiceError as error:
                raise RegistrationError(
                    [Problem(None, "", _("单位“%(unit)s”：") % {"unit": name} + error.message)]
                ) from error
            self.by_name[name] = unit
        return unit


def import_registrations(
    tournament: Any, lines: Sequence[RegistrationLine], user: Any = None
) -> int:
    """Register every line's pair (creating units by name) in one transaction; all or nothing.

    A refusal by the services (a number taken meanwhile, no permission …) rolls back every
    line and is raised as ``RegistrationError`` naming the line.
    """
    from tournaments.errors import ServiceError
    from tournaments.services import register_pair

    with transaction.atomic():
        units = _Units(tournament, user)
        for index, line in enumerate(lines):
            unit = units.get(line.unit)
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


# --------------------------------------------------------------------------------------------
# The reader and the cell checks both sheets share (the pairs sheet also numbers an
# empty 序号 and skips re-imported lines in its loop above)


@dataclass(frozen=True, slots=True)
class _Layout:
    """What one kind of registration sheet looks like: its columns and its sheet-wide messages
    (callables, so they are worded in the request's language and read the limits when used)."""

    sheet: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    aliases: Mapping[str, str]
    missing: Callable[[str], str]  # the missing columns, listed → the sentence
    empty: Callable[[], str]
    too_many: Callable[[], str]
    no_lines: Callable[[], str]
    max_rows: Callable[[], int]


def _sheet_rows(
    book: Any, layout: _Layout, problems: list[Problem]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The sheet's non-blank rows as (row number, {column: cell}), header problems added to
    ``problems``; refuses a sheet without its columns, with too many rows or too slow to read."""
    sheet = book[layout.sheet] if layout.sheet in book.sheetnames else book.worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    header = next(rows, None)
    if header is None:
        raise _refuse(layout.empty())
    columns, header_problems = _header_map(header, layout)
    problems.extend(header_problems)
    if any(p.row is None for p in problems):
        raise RegistrationError(problems)
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
        values = {name: row[index] if index < len(row) else None for name, index in columns.items()}
        if all(_text(v) == "" for v in values.values()):
            continue  # blank lines are ignored
        count += 1
        if count > layout.max_rows():
            raise _refuse(layout.too_many())
        yield row_number, values


def _number_problem(raw: Any, number: int | None, seen: dict[int, int]) -> str | None:
    """What is wrong with a filled-in number cell of either sheet (``number`` is
    ``_number(raw)``): not a whole number, too big, or on an earlier row; None when nothing."""
    if number is None:
        if _too_big(raw):
            return _("过大（最大 %(max)s）") % {"max": INT_MAX}
        return _("须为正整数（现为“%(value)s”）") % {"value": _text(raw)[:20]}
    if number in seen:
        return _("%(number)s 与第%(other)s行重复") % {"number": number, "other": seen[number]}
    return None


def _check_number(
    problems: list[Problem],
    row_number: int,
    column: str,
    raw: Any,
    seen: dict[int, int],
    taken: set[int],
    taken_message: str,
) -> int | None:
    """The row's number (a whole number from 1), its problems added: empty, not a number,
    repeated in the sheet, or already ``taken`` (``taken_message`` with ``%(number)s``)."""
    number = _number(raw)
    if _text(raw) == "":
        problems.append(Problem(row_number, column, _("为空")))
    elif (problem := _number_problem(raw, number, seen)) is not None:
        problems.append(Problem(row_number, column, problem))
    elif number in taken:
        problems.append(Problem(row_number, column, taken_message % {"number": number}))
    if number is not None and number not in seen:
        seen[number] = row_number
    return number


def _check_text(
    problems: list[Problem], row_number: int, column: str, value: Any, limit: int, required: bool
) -> str:
    """The cell's text, its problems added: empty when ``required``, longer than ``limit``, a
    NUL, control, invisible or bidi-control character (``rules.text``); NFKC-normalised."""
    text = _text(value)
    if problem := text_problem(text):
        problems.append(Problem(row_number, column, sentence(problem)))
        return text
    text = normalise_name(text)
    if required and not text:
        problems.append(Problem(row_number, column, _("为空")))
    elif len(text) > limit:
        problems.append(
            Problem(row_number, column, _("过长（最多 %(max)s 个字符）") % {"max": limit})
        )
    return text


def _read(book: Any, parse: Callable[[Any], list[Any]]) -> list[Any]:
    """``parse(book)``, a damaged sheet part (which surfaces only while reading rows) refused
    with one message; the workbook closed."""
    try:
        return parse(book)
    except RegistrationError:
        raise
    except Exception:
        raise _refuse(_("文件已损坏，无法读取，请用 Excel 重新保存后再试")) from None
    finally:
        book.close()


PAIRS = _Layout(
    sheet=SHEET_NAME,
    required=REQUIRED,
    optional=OPTIONAL,
    aliases=ALIASES,
    missing=lambda missing: (
        _("第1行须为列名，缺少：%(missing)s（应为 序号、单位、牌手1、牌手2）")
        % {"missing": missing}
    ),
    empty=lambda: _("表格是空的：第1行须为列名 序号、单位、牌手1、牌手2"),
    too_many=lambda: _("行数过多：一次最多导入 %(max)s 对") % {"max": MAX_ROWS},
    no_lines=lambda: _("表中没有报名数据（第2行起每行一对）"),
    max_rows=lambda: MAX_ROWS,
)


# --------------------------------------------------------------------------------------------
# Teams (RULES.md §6): one row per team, its pairs by column (docs/registrations.md)

TEAMS = _Layout(
    sheet=TEAM_SHEET_NAME,
    required=TEAM_REQUIRED,
    optional=TEAM_OPTIONAL,
    aliases=TEAM_ALIASES,
    missing=lambda missing: (
        _("第1行须为列名，缺少：%(missing)s（应为 序号、队名、单位、牌手1…牌手4）")
        % {"missing": missing}
    ),
    empty=lambda: _("表格是空的：第1行须为列名 序号、队名、单位、牌手1…牌手6"),
    too_many=lambda: _("行数过多：一次最多导入 %(max)s 队") % {"max": MAX_TEAM_ROWS},
    no_lines=lambda: _("表中没有报名数据（第2行起每行一队）"),
    max_rows=lambda: MAX_TEAM_ROWS,
)


def parse_team_registrations(
    data: bytes, taken: Iterable[str] = (), names: Iterable[str] = ()
) -> list[TeamRegistrationLine]:
    """Check the whole team sheet and return its lines; raise ``RegistrationError`` with every
    problem otherwise. ``taken``: team codes already used in the tournament; ``names``: team
    names already registered."""
    return _read(_open(data, TEAM_SHEET_NAME), lambda book: _parse_teams(book, taken, names))


def _parse_teams(
    book: Any, taken: Iterable[str], names: Iterable[str]
) -> list[TeamRegistrationLine]:
    problems: list[Problem] = []
    taken_numbers = {int(c) for c in taken if c.isascii() and c.isdigit() and len(c) < 10}
    registered = set(names)
    seen: dict[int, int] = {}
    seen_names: dict[str, int] = {}
    lines: list[TeamRegistrationLine] = []
    taken_message = _("%(number)s 已被已报名的队使用")
    for row_number, values in _sheet_rows(book, TEAMS, problems):
        number = _check_number(
            problems, row_number, NUMBER, values[NUMBER], seen, taken_numbers, taken_message
        )
        name = _check_text(problems, row_number, TEAM_NAME, values[TEAM_NAME], MAX_NAME, True)
        if name in seen_names:
            problems.append(
                Problem(
                    row_number,
                    TEAM_NAME,
                    _("“%(name)s”与第%(other)s行重复") % {"name": name, "other": seen_names[name]},
                )
            )
        elif name in registered:
            problems.append(Problem(row_number, TEAM_NAME, _("“%(name)s”已报名") % {"name": name}))
        elif name:
            seen_names[name] = row_number
        unit = _check_text(problems, row_number, UNIT, values[UNIT], MAX_NAME, False)
        players = [
            _check_text(problems, row_number, column, values.get(column), MAX_NAME, index < 4)
            for index, column in enumerate(TEAM_PLAYERS)
        ]
        if bool(players[4]) != bool(players[5]):
            empty = TEAM_PLAYERS[5] if players[4] else TEAM_PLAYERS[4]
            problems.append(
                Problem(row_number, empty, _("为空（牌手5与牌手6组成第3对，须同时填写或同时留空）"))
            )
        first: dict[str, str] = {}
        for column, player in zip(TEAM_PLAYERS, players, strict=True):
            if player and player in first:
                problems.append(
                    Problem(
                        row_number,
                        column,
                        _("“%(name)s”与%(other)s重名") % {"name": player, "other": first[player]},
                    )
                )
            elif player:
                first[player] = column
        if number is not None:
            pairs = [(players[i], players[i + 1]) for i in (0, 2, 4) if players[i] or i < 4]
            lines.append(TeamRegistrationLine(number, name, unit, tuple(pairs)))
    if problems:
        raise RegistrationError(problems)
    if not lines:
        raise _refuse(TEAMS.no_lines())
    return lines


def import_team_registrations(
    tournament: Any, lines: Sequence[TeamRegistrationLine], user: Any = None
) -> int:
    """Register every line's team and its pairs (``tournaments.teams.register_team``, creating
    units by name) in one transaction; all or nothing. The pairs are numbered on from the
    largest pair number, in sheet order. A refusal by the services rolls back every line and is
    raised as ``RegistrationError`` naming the team."""
    from tournaments.errors import ServiceError
    from tournaments.models import Pair
    from tournaments.teams import register_team

    with transaction.atomic():
        units = _Units(tournament, user)
        number = (
            Pair.objects.filter(tournament=tournament).aggregate(m=Max("number"))["m"] or 0
        ) + 1
        for line in lines:
            unit = units.get(line.unit)
            try:
                register_team(
                    tournament,
                    line.name,
                    line.players,
                    user,
                    unit=unit,
                    code=str(line.number),
                    first_number=number,
                )
            except ServiceError as error:
                raise RegistrationError(
                    [
                        Problem(
                            None,
                            "",
                            _("序号 %(number)s（队“%(name)s”）：")
                            % {"number": line.number, "name": line.name}
                            + error.message,
                        )
                    ]
                ) from error
            number += len(line.players)
    return len(lines)


def import_sheet(tournament: Any, data: bytes, user: Any = None, append: bool = False) -> int:
    """Parse an uploaded sheet and register it, all or nothing: the team sheet in a team event,
    the pairs sheet otherwise (``append``: late entries, pairs only) — the import page and
    ``manage.py import_players``. Returns the number of teams or pairs; raises
    ``RegistrationError``."""
    from tournaments.models import Team

    if tournament.rules.event == "teams":
        teams = Team.objects.filter(tournament=tournament)
        lines = parse_team_registrations(
            data, teams.values_list("code", flat=True), teams.values_list("name", flat=True)
        )
        return import_team_registrations(tournament, lines, user)
    pairs, _skipped = parse_appended(data, registered=registered_pairs(tournament), append=append)
    return import_registrations(tournament, pairs, user)
