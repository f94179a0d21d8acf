"""Issue 29 finding M (point 10): names are NFKC-normalised; invisible, control and bidi-control
characters are refused; two names that look the same but differ (``Zhang Wei`` and
``Zh\\u0430ng Wei``, a Cyrillic а) are warned about at registration and at the Excel import;
search finds either by typing the other."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from reports.views.public import search_pairs
from rules.text import confusable, normalise_name, skeleton, text_problem
from scoring.once import new_once_key
from tournaments import services as tournament_services
from tournaments.errors import ServiceError
from tournaments.models import Pair, Player, Tournament

CYRILLIC = "Zh\u0430ng Wei"  # а is U+0430
BAD_NAMES = [
    "\u200b",
    "\u200b\u200c\ufeff",
    "甲\u202e乙",
    "\u202eiew gnahZ",
    "甲\x07乙",
    "甲\x1b[31m",
]


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    client.raise_request_exception = False
    return client


def _add_pair(client: Client, tournament: Tournament, first: str, second: str) -> Any:
    url = reverse("tournaments:pairs", args=[tournament.slug])
    return client.post(url, {"pair-player1": first, "pair-player2": second}, follow=True)


def test_the_text_helpers() -> None:
    assert skeleton(CYRILLIC) == skeleton("Zhang Wei") == skeleton("ＺＨＡＮＧ　ＷＥＩ")
    assert confusable("Zhang Wei", CYRILLIC) and not confusable("张伟", "张伟")
    assert normalise_name("  Ｚｈａｎｇ\u3000 Wei ") == "Zhang Wei"
    for bad in BAD_NAMES:
        assert text_problem(bad) is not None, repr(bad)
    assert text_problem("欧阳 修·Ann-Marie O'Neil") is None


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_NAMES, ids=range(len(BAD_NAMES)))
def test_invisible_bidi_and_control_names_are_refused(
    tournament: Tournament, cast: dict[str, Any], bad: str
) -> None:
    before = Player.objects.count()
    with pytest.raises(ServiceError):
        tournament_services.register_pair(tournament, [bad, "乙"], cast["organizer"])
    response = _add_pair(_client(cast["organizer"]), tournament, bad, "乙")
    assert response.status_code == 200
    assert Player.objects.count() == before
    assert "字符" in response.content.decode()


@pytest.mark.django_db
def test_names_are_stored_nfkc_normalised(tournament: Tournament, cast: dict[str, Any]) -> None:
    pair = tournament_services.register_pair(
        tournament, ["Ｌｉ  Ｌｅｉ", "\uf9f4田"], cast["organizer"]
    )
    assert [p.name for p in pair.players.order_by("position")] == ["Li Lei", "林田"]


@pytest.mark.django_db
def test_a_look_alike_of_a_registered_name_is_warned_about(
    tournament: Tournament, cast: dict[str, Any]
) -> None:
    client = _client(cast["organizer"])
    _add_pair(client, tournament, "Zhang Wei", "Li Na")
    page = _add_pair(client, tournament, CYRILLIC, "Wang Fang").content.decode()
    assert "看起来相同" in page, page
    assert Pair.objects.filter(tournament=tournament).count() == 10  # warned, not refused


@pytest.mark.django_db
def test_search_finds_both_look_alikes(tournament: Tournament, cast: dict[str, Any]) -> None:
    latin = tournament_services.register_pair(tournament, ["Zhang Wei", "A"], cast["organizer"])
    cyrillic = tournament_services.register_pair(tournament, [CYRILLIC, "B"], cast["organizer"])
    tournament.refresh_from_db()
    for query in ("Zhang Wei", CYRILLIC, "zhangwei", "ZHANG"):
        found = {p.pk for p in search_pairs(tournament, query)}
        assert {latin.pk, cyrillic.pk} <= found, query


def _sheet(rows: list[list[Any]]) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["序号", "单位", "牌手1", "牌手2"])
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_excel_import_refuses_invisible_names_and_warns_about_look_alikes(
    tournament: Tournament, cast: dict[str, Any]
) -> None:
    client = _client(cast["organizer"])
    url = reverse("reports:import", args=[tournament.slug])

    def upload(rows: list[list[Any]]) -> Any:
        data = {
            "once": new_once_key(),
            "file": SimpleUploadedFile("a.xlsx", _sheet(rows)),
            "append": "1",
        }
        return client.post(url, {**data, "once": new_once_key()}, follow=True)

    before = Player.objects.count()
    refused = upload([[30, "", "\u200b", "乙"], [31, "", "甲\u202e乙", "丙"]])
    assert Player.objects.count() == before
    page = refused.content.decode()
    assert "第2行" in page and "第3行" in page
    done = upload([[40, "", "Zhang Wei", "丁"], [41, "", CYRILLIC, "戊"]])
    assert Pair.objects.filter(tournament=tournament, number__in=[40, 41]).count() == 2
    assert "看起来相同" in done.content.decode()
