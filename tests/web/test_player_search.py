"""Players find themselves as they would type on a phone (issue 15): pinyin (full, from a
syllable, initials), traditional characters; "find my table" names the player's own seat."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import Q
from django.urls import reverse

from reports.views.public import search_pairs
from tournaments.models import Pair, Round, Table
from tournaments.search import name_keys


def test_name_keys() -> None:
    assert {"zhangwei", "wei", "zw"} <= set(name_keys("张伟"))
    assert {"zhangwei", "zw"} <= set(name_keys("張偉"))  # traditional
    assert {"zengwei", "cengwei"} <= set(name_keys("曾伟"))  # both readings of the surname
    assert {"lvna", "luna"} <= set(name_keys("吕娜"))
    assert name_keys("Tom") == ("tom",)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ["zhangwei", "Zhang Wei", "zhangw", "zw", "ZW", "張偉", "张伟", "張"]
)
def test_search_finds_pair_1_by_pinyin_and_traditional(tournament: Any, query: str) -> None:
    """Pair 1 is 张伟/王芳 (``tests.support.tournament.NAMES``)."""
    numbers = [p.number for p in search_pairs(tournament, query)]
    assert 1 in numbers, query


@pytest.mark.django_db
def test_pinyin_is_not_a_substring_search(tournament: Any) -> None:
    assert search_pairs(tournament, "angwe") == []
    assert [p.number for p in search_pairs(tournament, "wangfang")] == [1]


@pytest.mark.django_db
def test_pinyin_index_follows_registrations(tournament: Any, cast: dict[str, Any]) -> None:
    from tournaments import services as tournament_services

    assert search_pairs(tournament, "ouyang") == []
    tournament_services.register_pair(tournament, ["欧阳修", "苏轼"], cast["organizer"])
    tournament.refresh_from_db()
    assert len(search_pairs(tournament, "ouyang")) == 1


@pytest.mark.django_db
def test_find_names_the_players_own_seat(round1: Round, client_as: Any) -> None:
    tournament = round1.tournament
    pair = Pair.objects.get(tournament=tournament, number=1)  # 张伟 (1st) / 王芳 (2nd)
    table = Table.objects.get(Q(ns=pair) | Q(ew=pair), round=round1)
    first, second = ("北", "南") if table.ns_id == pair.pk else ("东", "西")
    url = reverse("public:find", args=[tournament.slug])
    html = client_as("anonymous").get(url, {"q": "wangfang"}).content.decode()
    assert f'my-seat">{second}</span>' in html
    assert f'<b class="seat-dir">{first}</b> 张伟' in html
    assert f'<b class="seat-dir">{second}</b> 王芳' in html
    english = client_as("anonymous")
    english.cookies["django_language"] = "en"
    html = english.get(url, {"q": "王芳"}).content.decode()
    assert {"南": "South", "西": "West"}[second] in html
