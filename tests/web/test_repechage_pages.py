"""A knockout in three stages with a repechage on the pages, the paper and Excel (RULES.md §8,
seed 001; ``knockout-stages.json``, worked by hand in tests/db/test_stages_repechage.py): the
live bracket shows every knockout stage and marks the repechage round, the bracket PDF prints a
chosen stage, Excel has a sheet a knockout stage, and the set-up form takes ``until`` and
``repechage`` in Chinese and English."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from reports.fileio import import_tournament
from tests.support.stages import doc, load, organizer_for, page, pdf_text, post_data, url

pytestmark = pytest.mark.django_db


def test_bracket_page_shows_every_knockout_stage_and_the_repechage(client):
    import_tournament(load("knockout-stages.json"), slug="ks")
    html = page(client, "bracket", "ks")
    for stage in (1, 2, 3):
        assert f'data-testid="bracket-stage-{stage}"' in html
    assert html.count('data-testid="repechage-round"') == 1
    assert "<h2>附加赛" in html and "<h2>11 进 5" in html  # 5 go on, the bye plays the repechage
    assert "剩 8 个时本阶段结束" in html and "剩 4 个时本阶段结束" in html
    assert "<h2>三四名决赛" in html
    # 6 + 3 (初赛), 4 (复赛), 2 + 1 + 1 (决赛)
    assert html.count('data-testid="bracket-match"') == 17


def test_bracket_page_shows_the_rounds_to_come_of_a_repechage_stage(client):
    data = load("knockout-stages.json")
    import_tournament({**data, "rounds": data["rounds"][:1]}, slug="early")
    html = page(client, "bracket", "early")
    assert 'data-testid="bracket-stage-2"' not in html  # not drawn yet
    # Round 1 played; the repechage to come: 3 empty meetings.
    assert html.count('data-testid="repechage-round"') == 1
    assert html.count('data-testid="bracket-match"') == 6 + 3


def test_bracket_pdf_of_a_chosen_stage_and_excel_a_sheet_a_stage():
    client = organizer_for("knockout-stages.json", "ks")
    _reader, first = pdf_text(client.get(doc("ks", "bracket") + "?stage=1"))
    assert "\n附加赛\n" in first and "第1阶段" in first and "三四名决赛" not in first
    _reader, last = pdf_text(client.get(doc("ks", "bracket")))
    assert "第3阶段" in last and "三四名决赛" in last and "\n附加赛\n" not in last
    assert client.get(doc("ks", "bracket") + "?stage=9").status_code == 404
    index = client.get(reverse("reports:index", args=["ks"])).content.decode()
    assert "?stage=1" in index and "?stage=3&amp;paper=a3" in index
    response = client.get(reverse("reports:export", args=["ks"]))
    book = load_workbook(io.BytesIO(response.content), read_only=True)
    names = [f"第{k}阶段淘汰赛" for k in (1, 2, 3)]
    assert all(name in book.sheetnames for name in names)
    first_rows = list(book[names[0]].iter_rows(values_only=True))[1:]
    assert [row[0] for row in first_rows].count("附加赛") == 3
    placings = list(book["最终名次"].iter_rows(values_only=True))[1:]
    assert [row[0] for row in placings] == [1, 2, 3, 4, 5, 5, 5, 5, 9, 9, 9]


STAGES = [
    {"kind": "knockout", "seeding": "lot", "until": 8, "repechage": 3},
    {"kind": "knockout", "until": 4},
    {"kind": "knockout", "best_of": 3, "third_place": True},
]


def test_the_set_up_form_takes_until_and_the_repechage_round(client_as, tournament):
    client = client_as("organizer")
    html = client.get(url(tournament)).content.decode()
    assert "剩几个参赛者时本阶段结束" in html and "附加赛（在第几轮之后）" in html
    english = client.get(url(tournament), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Stop the stage when this many entrants remain" in english
    assert "Repechage (after round)" in english
    response = client.post(url(tournament), post_data(STAGES))
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert tournament.settings["stages"] == STAGES
    rows = client.get(url(tournament)).content.decode().split('data-testid="stage-rows"')[1]
    rows = rows.split("</table>")[0]
    assert "剩 8 个时本阶段结束 · 第3轮后附加赛" in rows and "剩 4 个时本阶段结束" in rows
    # A repechage that cannot reach until × 2^j once the entrants are known: a clear refusal.
    wrong = [STAGES[0], {"kind": "knockout", "until": 4, "repechage": 1}, STAGES[2]]
    posted = {**post_data(wrong), "form-INITIAL_FORMS": "3"}  # the three saved stages
    response = client.post(url(tournament), posted)
    assert response.status_code == 200
    assert "附加赛无法编排" in response.content.decode()
    english = client.post(
        url(tournament),
        posted,
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "the repechage cannot be drawn" in english
