"""The stages' public pages (RULES.md §8): the live bracket, the group tables, a pair's path
through the stages and the final placings, read from the hand-computed stage files."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reports.fileio import import_tournament
from tests.support.stages import load, page
from tournaments.models import Round

pytestmark = pytest.mark.django_db


def test_bracket_page_shows_rounds_games_and_winners(client):
    import_tournament(load("knockout.json"), slug="ko")
    html = page(client, "bracket", "ko")
    # best of three; the final, the semi-finals and the third-place match by name
    assert "3 局 2 胜" in html
    for label in ("决赛", "半决赛", "三四名决赛"):
        assert f"<h2>{label}" in html
    assert html.count('data-testid="bracket-match"') == 8  # 4 first-round (3 byes) + 2 + 1 + 1
    assert "轮空" in html
    # 4 beat 5 2–1; the winners are bold (class won)
    assert 'class="bracket-side won"' in html
    assert 'href="/t/ko/placings/"' in html  # the knockout is over


def test_bracket_page_hides_draft_rounds_and_shows_rounds_to_come(client):
    tournament = import_tournament(load("knockout.json"), slug="ko")
    last = Round.objects.filter(tournament=tournament).order_by("-number").first()
    Round.objects.filter(pk=last.pk).update(status=Round.Status.DRAFT)
    html = page(client, "bracket", "ko")
    assert "三四名决赛" not in html  # the final's round is a draft
    assert "待定" in html  # the final is still to come


def test_placings_page_lists_the_final_placings(client):
    import_tournament(load("knockout.json"), slug="ko")
    html = page(client, "placings", "ko")
    table = html.split('data-testid="placings"')[1].split("</table>")[0]
    rows = re.findall(r'<td class="num">(\d+)</td><td><a href="/t/ko/pairs/(\d+)/">', table)
    assert rows == [(str(n), str(n)) for n in range(1, 6)]  # hand-computed: 1 2 3 4 5


def test_placings_page_before_the_end_says_so(client):
    tournament = import_tournament(load("knockout.json"), slug="ko")
    Round.objects.filter(tournament=tournament).update(status=Round.Status.PUBLISHED)
    assert "比赛尚未结束" in page(client, "placings", "ko")


def test_group_page_shows_each_group_and_its_qualifiers(client):
    import_tournament(load("group-stage.json"), slug="groups")
    html = page(client, "groups", "groups")
    assert 'data-testid="group-A"' in html and 'data-testid="group-B"' in html
    # group B decided down to previous_rank: 6 above 3
    b = html.split('data-testid="group-B"')[1]
    assert b.index("/pairs/6/") < b.index("/pairs/3/")


def test_stage_pages_are_404_without_stages(client, tournament):
    for name in ("bracket", "groups", "placings"):
        response = client.get(reverse(f"public:{name}", args=[tournament.slug]))
        assert response.status_code == 404


def test_pair_page_shows_the_path_through_the_stages(client):
    import_tournament(load("knockout.json"), slug="ko")
    html = page(client, "pair", "ko", number=4)
    path = html.split('data-testid="pair-path"')[1].split("</section>")[0]
    assert "淘汰赛" in path
    assert path.count('data-testid="bracket-match"') == 3  # 4–5, the semi-final, 3rd place


def test_nav_links_the_stage_pages(client):
    import_tournament(load("knockout.json"), slug="ko")
    html = page(client, "detail", "ko")
    assert reverse("public:bracket", args=["ko"]) in html
    assert reverse("public:placings", args=["ko"]) in html
    assert reverse("public:groups", args=["ko"]) not in html
