"""Issue 11 finding 10: the registration reader stops after a row limit (rows read, blank ones
too — not unpacked bytes) and a time limit, so a small file that declares a million blank rows
cannot hold a web worker for a minute."""

from __future__ import annotations

import io
import re
import time
import zipfile

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


def _with_blank_rows(count: int) -> bytes:
    """A real registration workbook (a header and one pair) whose sheet then declares ``count``
    empty rows: tiny compressed, a long read for a reader that walks every row."""
    book = Workbook()
    sheet = book.active
    sheet.title = "报名表"
    sheet.append(["序号", "单位", "牌手1", "牌手2"])
    sheet.append([1, "江苏", "甲", "乙"])
    plain = io.BytesIO()
    book.save(plain)
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(plain.getvalue())) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target,
    ):
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                text = data.decode()
                text = re.sub(r"<dimension [^>]*/>", f'<dimension ref="A1:D{count + 2}"/>', text)
                blank = "<row/>" * count  # rows without r= are numbered in order
                data = text.replace("</sheetData>", blank + "</sheetData>").encode()
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
