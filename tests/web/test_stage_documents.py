"""The stages' paper and Excel (RULES.md §8, issue 14 "Paper and files"): the bracket PDF (A4
landscape or A3), the group tables PDF, the knockout score sheets with a box a game, and the
Excel export's stage sheets."""

from __future__ import annotations

import io

import pytest
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from reports.pdf.stages import KnockoutSheet, render_knockout_sheets
from tests.support.stages import doc, organizer_for, pdf_text

pytestmark = pytest.mark.django_db


def test_bracket_pdf_a4_landscape_and_a3():
    client = organizer_for("knockout.json", "ko")
    reader, text = pdf_text(client.get(doc("ko", "bracket")))
    box = reader.pages[0].mediabox
    assert float(box.width) > float(box.height)  # landscape
    assert round(float(box.width)) == 842  # A4
    assert "决赛" in text and "三四名决赛" in text and "半决赛" in text
    reader, _text = pdf_text(client.get(doc("ko", "bracket") + "?paper=a3"))
    assert round(float(reader.pages[0].mediabox.width)) == 1191  # A3 landscape


def test_knockout_sheets_have_a_box_a_game():
    client = organizer_for("knockout.json", "ko")
    reader, text = pdf_text(client.get(doc("ko", "knockout-sheets")))
    assert len(reader.pages) == 2  # the final and the third-place match
    assert "第1局" in text and "第3局" in text and "加打" in text


def test_knockout_sheet_boxes_follow_best_of():
    sheet = KnockoutSheet("赛", "决赛", 3, 1, "1 甲/乙", "2 丙/丁", 5, 4)
    text = PdfReader(io.BytesIO(render_knockout_sheets([sheet]))).pages[0].extract_text()
    assert "第5局" in text and "第6局" not in text


def test_group_tables_pdf():
    client = organizer_for("group-stage.json", "groups")
    reader, text = pdf_text(client.get(doc("groups", "groups")))
    assert len(reader.pages) == 2  # groups A and B
    assert "A 组" in text and "B 组" in text and "出线" in text


def test_stage_documents_without_the_stage():
    client = organizer_for("group-stage.json", "groups")
    assert client.get(doc("groups", "bracket")).status_code == 404
    assert client.get(doc("groups", "knockout-sheets")).status_code == 302
    assert client.get(doc("groups", "nonsense")).status_code == 404
    assert Client().get(doc("groups", "groups")).status_code == 302  # login first


def test_excel_export_has_the_stage_sheets():
    client = organizer_for("knockout.json", "ko")
    response = client.get(reverse("reports:export", args=["ko"]))
    book = load_workbook(io.BytesIO(response.content), read_only=True)
    assert "淘汰赛" in book.sheetnames and "最终名次" in book.sheetnames
    placings = list(book["最终名次"].iter_rows(values_only=True))
    assert [row[:2] for row in placings[1:]] == [(n, n) for n in range(1, 6)]
    matches = list(book["淘汰赛"].iter_rows(values_only=True))
    assert len(matches) == 1 + 8
