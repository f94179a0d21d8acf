"""Issue 11 finding 10: the registration reader stops after a row limit (rows read, blank ones
too — not unpacked bytes) and a time limit, so a small file that declares a million blank rows
cannot hold a web worker for a minute.

Issue 29 point 11: openpyxl's ``load_workbook`` parsed a sheet without ``<dimension>`` to its
end before those limits applied (19.5 s for 1.5 million blank rows in 181 KB), so the file is
now checked from its XML stream first (``reports.xlsxcheck``), and openpyxl never sees it."""

from __future__ import annotations

import io
import re
import time
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from openpyxl import Workbook

from reports import registrations
from reports.registrations import RegistrationError, parse_registrations
from scoring.once import new_once_key
from tests.support.pages import make_cast, make_tournament

BLANK_ROWS = 1_500_000


def _with_blank_rows(
    count: int,
    *,
    dimension: str | None = "A1:D{rows}",
    blank: str = "<row/>",
    sheet: str = "xl/worksheets/sheet1.xml",
    extra_sheet: bool = False,
) -> bytes:
    """A real registration workbook (a header and one pair) whose sheet ``sheet`` then declares
    ``count`` empty rows (``blank`` each): tiny compressed, a long read for a reader that walks
    every row. ``dimension``: the sheet's declared range (None: no ``<dimension>``, as the
    report's file). ``extra_sheet``: a second sheet (``sheet2.xml``) after the registrations."""
    book = Workbook()
    first = book.active
    first.title = "报名表"
    first.append(["序号", "单位", "牌手1", "牌手2"])
    first.append([1, "江苏", "甲", "乙"])
    if extra_sheet:
        book.create_sheet("备注").append(["备注"])
    plain = io.BytesIO()
    book.save(plain)
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(plain.getvalue())) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target,
    ):
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == sheet:
                text = data.decode()
                declared = "" if dimension is None else f'<dimension ref="{dimension}"/>'
                text = re.sub(r"<dimension [^>]*/>", declared.format(rows=count + 2), text)
                # rows without r= are numbered in order
                data = text.replace("</sheetData>", blank * count + "</sheetData>").encode()
            target.writestr(info, data)
    return out.getvalue()


@pytest.fixture(scope="module")
def million_blank_rows() -> bytes:
    return _with_blank_rows(BLANK_ROWS)


def test_the_generated_file_is_small(million_blank_rows: bytes) -> None:
    assert len(million_blank_rows) < 400 * 1024  # the report's was 181 KB


def test_a_million_blank_rows_are_refused_within_seconds(million_blank_rows: bytes) -> None:
    started = time.monotonic()
    with pytest.raises(RegistrationError) as refused:
        parse_registrations(million_blank_rows)
    assert time.monotonic() - started < 2.0
    assert "20000" in str(refused.value.messages) or "20,000" in str(refused.value.messages)


def test_the_time_limit_stops_a_slow_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registrations, "MAX_SECONDS", 0.0)
    with pytest.raises(RegistrationError) as refused:
        parse_registrations(_with_blank_rows(2_000))
    assert "超时" in " ".join(refused.value.messages)


def test_a_sheet_within_the_limits_still_imports() -> None:
    lines = parse_registrations(_with_blank_rows(5_000))
    assert [line.number for line in lines] == [1]


@pytest.mark.django_db
def test_the_upload_page_refuses_it_quickly(million_blank_rows: bytes) -> None:
    cast = make_cast()
    tournament = make_tournament(cast)
    client = Client()
    client.force_login(cast["organizer"])
    started = time.monotonic()
    response = client.post(
        reverse("reports:import", args=[tournament.slug]),
        {"once": new_once_key(), "file": SimpleUploadedFile("报名表.xlsx", million_blank_rows)},
    )
    assert time.monotonic() - started < 3.0
    assert 400 <= response.status_code < 500
    assert "行数过多" in response.content.decode()


# --------------------------------------------------------------------------------------------
# Issue 29: checked from the XML stream before openpyxl opens the file


@pytest.fixture
def openpyxl_opened(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times openpyxl's ``load_workbook`` was called."""
    import openpyxl

    calls: list[int] = []
    real = openpyxl.load_workbook

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(openpyxl, "load_workbook", counted)
    return calls


def _refused(data: bytes) -> tuple[str, float]:
    """The refusal's sentence and the CPU seconds it took (CPU time: the suite shares the
    machine with other work, and a worker's time is what the limit protects)."""
    started = time.process_time()
    with pytest.raises(RegistrationError) as refused:
        parse_registrations(data)
    return " ".join(refused.value.messages), time.process_time() - started


@pytest.fixture(scope="module")
def undeclared_blank_rows() -> bytes:
    """The report's file: no ``<dimension>``, 1.5 million blank rows."""
    return _with_blank_rows(BLANK_ROWS, dimension=None)


def test_a_sheet_without_dimension_is_refused_before_openpyxl_reads_it(
    undeclared_blank_rows: bytes, openpyxl_opened: list[int]
) -> None:
    assert len(undeclared_blank_rows) < 400 * 1024
    message, seconds = _refused(undeclared_blank_rows)
    assert "行数过多" in message and "20000" in message
    assert openpyxl_opened == []  # load_workbook alone parsed all 1.5 million rows
    assert seconds < 1.0


@pytest.mark.parametrize(
    "blank", ["<row><c/></row>", '<row><c t="s"/></row>', '<row r="{n}" spans="1:4"/>']
)
def test_other_blank_rows_without_dimension_are_refused_as_fast(
    blank: str, openpyxl_opened: list[int]
) -> None:
    if "{n}" in blank:  # numbered rows: one string per row
        rows = "".join(blank.format(n=n) for n in range(3, 300_003))
        data = _with_blank_rows(1, dimension=None, blank=rows)
    else:
        data = _with_blank_rows(BLANK_ROWS, dimension=None, blank=blank)
    message, seconds = _refused(data)
    assert "行数过多" in message and openpyxl_opened == [] and seconds < 1.0


def test_a_declared_dimension_beyond_the_limit_is_refused_from_the_dimension(
    openpyxl_opened: list[int],
) -> None:
    message, _ = _refused(_with_blank_rows(0, dimension="A1:D1500002"))
    assert "行数过多" in message and openpyxl_opened == []


def test_a_declared_width_that_would_pad_every_row_is_refused(openpyxl_opened: list[int]) -> None:
    """openpyxl pads every row to the dimension's width: XFD is 16,384 cells a row."""
    message, _ = _refused(_with_blank_rows(10, dimension="A1:XFD{rows}"))
    assert "列数过多" in message and openpyxl_opened == []
    far = '<row><c r="XFD5"><v>1</v></c></row>'
    message, _ = _refused(_with_blank_rows(1, blank=far))
    assert "列数过多" in message


def test_a_row_of_a_million_cells_is_refused(openpyxl_opened: list[int]) -> None:
    row = "<row>" + "<c/>" * 1_000_000 + "</row>"
    message, seconds = _refused(_with_blank_rows(1, blank=row))
    assert "内容过多" in message and openpyxl_opened == [] and seconds < 1.0


def test_an_entity_bomb_in_a_part_openpyxl_parses_is_refused(openpyxl_opened: list[int]) -> None:
    plain = _with_blank_rows(0)
    out = io.BytesIO()
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
        '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        "<numFmts><numFmt numFmtId='200' formatCode='&lol2;'/></numFmts></styleSheet>"
    )
    with (
        zipfile.ZipFile(io.BytesIO(plain)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/styles.xml":
                data = bomb.encode()
            target.writestr(info, data)
    message, _ = _refused(out.getvalue())
    assert "损坏" in message and openpyxl_opened == []


def test_another_sheet_without_dimension_is_counted_too(openpyxl_opened: list[int]) -> None:
    """openpyxl looks for every sheet's dimension when it opens the workbook."""
    data = _with_blank_rows(
        BLANK_ROWS, dimension=None, sheet="xl/worksheets/sheet2.xml", extra_sheet=True
    )
    message, _ = _refused(data)
    assert "行数过多" in message and openpyxl_opened == []


def test_another_sized_sheet_is_not_read_and_does_not_refuse(openpyxl_opened: list[int]) -> None:
    """A second sheet that declares its size first is never read past that (by openpyxl
    either): a workbook with a long list in another tab still imports its registrations."""
    data = _with_blank_rows(
        60_000, sheet="xl/worksheets/sheet2.xml", extra_sheet=True, dimension="A1:A{rows}"
    )
    started = time.process_time()
    assert [line.number for line in parse_registrations(data)] == [1]
    assert time.process_time() - started < 1.0 and openpyxl_opened == [1]


@pytest.mark.django_db
def test_the_upload_page_refuses_the_reported_file_at_once(undeclared_blank_rows: bytes) -> None:
    cast = make_cast()
    tournament = make_tournament(cast)
    client = Client()
    client.force_login(cast["organizer"])
    started = time.process_time()
    response = client.post(
        reverse("reports:import", args=[tournament.slug]),
        {"once": new_once_key(), "file": SimpleUploadedFile("报名表.xlsx", undeclared_blank_rows)},
    )
    assert time.process_time() - started < 1.0
    assert response.status_code == 400
    assert "行数过多" in response.content.decode()
