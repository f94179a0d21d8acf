"""Public pages (issue 5 "Players"): they render, show the right things, and nothing private."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db.models import Q
from django.urls import reverse

from scoring.standings import CRITERIA
from tournaments.models import Pair, Round, Table, Tournament
from tournaments.templatetags.tourney import criterion_label, num


def public_urls(tournament: Tournament, rnd: Round) -> list[str]:
    slug = tournament.slug
    pair = Pair.objects.filter(tournament=tournament).order_by("number").first()
    return [
        reverse("home"),
        reverse("public:detail", args=[slug]),
        reverse("public:find", args=[slug]) + "?q=张",
        reverse("public:find", args=[slug]) + f"?q={pair.number}",
        reverse("public:standings", args=[slug]),
        reverse("public:standings", args=[slug]) + "?q=李娜",
        reverse("public:pair", args=[slug, pair.number]),
        reverse("public:projector", args=[slug]),
        reverse("public:projector", args=[slug]) + "?show=standings",
        reverse("public:rounds", args=[slug]),
        reverse("public:round", args=[slug, rnd.number]),
        reverse("public:round", args=[slug, 1]) + "?q=1",
    ]


@pytest.mark.django_db
def test_every_public_page_renders_for_anonymous(played: Round, client_as: Any) -> None:
    client = client_as("anonymous")
    for url in public_urls(played.tournament, played):
        response = client.get(url)
        assert response.status_code == 200, url


def secrets_of(tournament: Tournament) -> list[str]:
    codes = list(Pair.objects.filter(tournament=tournament).values_list("code", flat=True))
    tokens = list(
        Table.objects.filter(round__tournament=tournament).values_list("entry_token", flat=True)
    )
    return codes + tokens


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["anonymous", "outsider", "referee", "organizer"])
def test_public_pages_never_show_pair_codes_or_entry_links(
    played: Round, client_as: Any, role: str
) -> None:
    client = client_as(role)
    secrets = secrets_of(played.tournament)
    assert len(secrets) > 8
    for url in public_urls(played.tournament, played):
        html = client.get(url).content.decode()
        for secret in secrets:
            assert secret not in html, (url, role)
        assert "/table/" not in html, url  # no table-side entry link


@pytest.mark.django_db
def test_registration_page_shows_codes_to_the_organizer(played: Round, client_as: Any) -> None:
    url = reverse("tournaments:pairs", args=[played.tournament.slug])
    html = client_as("organizer").get(url).content.decode()
    pair = Pair.objects.filter(tournament=played.tournament).first()
    assert pair.code in html


@pytest.mark.django_db
def test_find_my_table_by_part_of_a_name(round1: Round, client_as: Any) -> None:
    tournament = round1.tournament
    pair = Pair.objects.get(tournament=tournament, number=2)  # 李娜/刘洋
    table = Table.objects.get(Q(ns=pair) | Q(ew=pair), round=round1)
    url = reverse("public:find", args=[tournament.slug])
    html = client_as("anonymous").get(url, {"q": "娜"}).content.decode()
    assert "李娜/刘洋" in html
    assert f"第 {table.number} 桌" in html
    seat = "北" if table.ns_id == pair.pk else "东"  # 李娜 is the pair's first player
    opponent = table.ew if table.ns_id == pair.pk else table.ns
    assert f'my-seat">{seat}</span>' in html
    assert opponent.player_names in html


@pytest.mark.django_db
def test_find_before_publication_says_not_yet(tournament: Tournament, client_as: Any) -> None:
    url = reverse("public:find", args=[tournament.slug])
    html = client_as("anonymous").get(url, {"q": "张伟"}).content.decode()
    assert "张伟" in html
    assert "对阵尚未公布" in html


@pytest.mark.django_db
def test_find_with_no_match(round1: Round, client_as: Any) -> None:
    url = reverse("public:find", args=[round1.tournament.slug])
    html = client_as("anonymous").get(url, {"q": "不存在的人"}).content.decode()
    assert "没有找到" in html


@pytest.mark.django_db
def test_standings_show_tiebreak_columns_and_decided_by(played: Round, client_as: Any) -> None:
    url = reverse("public:standings", args=[played.tournament.slug])
    html = client_as("anonymous").get(url, {"after": 1}).content.decode()
    for header in ("场分", "级差分", "胜场数", "总级差", "对手分", "区分依据"):
        assert header in html
    assert 'id="pair-1"' in html


@pytest.mark.django_db
def test_standings_find_my_row_jumps_to_its_page(played: Round, client_as: Any) -> None:
    url = reverse("public:standings", args=[played.tournament.slug])
    html = client_as("anonymous").get(url, {"q": "李娜"}).content.decode()
    assert 'id="pair-2" class="mine' in html or 'class="mine' in html
    assert 'aria-current="true"' in html


@pytest.mark.django_db
def test_pair_page_shows_every_round_with_levels(played: Round, client_as: Any) -> None:
    tournament = played.tournament
    url = reverse("public:pair", args=[tournament.slug, 1])
    html = client_as("anonymous").get(url).content.decode()
    assert "第1轮" in html and "第2轮" in html
    assert "本方级数" in html  # round 1 is confirmed: levels, 级差, 级差分, 场分
    assert "上游" in html  # the deals
    assert "成绩尚未确认" in html  # round 2 is still being played


@pytest.mark.django_db
def test_public_pages_are_cacheable_for_anonymous(played: Round, client_as: Any) -> None:
    url = reverse("public:standings", args=[played.tournament.slug])
    response = client_as("anonymous").get(url)
    assert "public" in response["Cache-Control"]
    assert "max-age=" in response["Cache-Control"]
    logged_in = client_as("organizer").get(url)
    assert "private" in logged_in["Cache-Control"]


@pytest.mark.django_db
def test_public_cache_follows_results_version(
    round1: Round, client_as: Any, cast: dict[str, Any]
) -> None:
    """A confirmed result shows at once: the cache key holds the results version."""
    from tests.support.tournament import NS_WINS, play_table

    tournament = round1.tournament
    url = reverse("public:detail", args=[tournament.slug])
    client = client_as("anonymous")
    assert "已确认 0/4 桌" in client.get(url).content.decode()
    table = Table.objects.filter(round=round1, is_bye=False).first()
    play_table(table, NS_WINS, cast["referee"], cast["chief"])
    assert "已确认 1/4 桌" in client.get(url).content.decode()


@pytest.mark.django_db
def test_language_switch_by_link(round1: Round, client: Any) -> None:
    url = reverse("public:detail", args=[round1.tournament.slug])
    response = client.get(reverse("public:language", args=["en"]), {"next": url})
    assert response.status_code == 302 and response["Location"] == url
    evil = client.get(reverse("public:language", args=["en"]), {"next": "https://evil.example"})
    assert evil["Location"] == "/"
    assert client.get(reverse("public:language", args=["xx"])).status_code == 404


@pytest.mark.django_db
def test_projector_pages_and_next_link(played: Round, client_as: Any) -> None:
    url = reverse("public:projector", args=[played.tournament.slug])
    html = client_as("anonymous").get(url).content.decode()
    assert 'class="proj-page"' in html
    assert "js/projector.js" in html
    assert "data-next=" in html


# --------------------------------------------------------------------------------------------
# The standings pages' fast paths give what the slow ones gave


def _tags(html: str) -> str:
    """Markup with the whitespace between tags dropped (the loops indent differently)."""
    return re.sub(r">\s+<", "><", html).strip()


@pytest.mark.django_db
def test_cached_standings_are_a_fresh_computation(played: Round) -> None:
    from scoring.cache import cached_standings
    from scoring.results import standings_from_db

    tournament = played.tournament
    for after in (1, 2, None):
        expected = list(standings_from_db(tournament.pk, tournament.rules, after or 2))
        assert list(cached_standings(tournament, after_round=after)) == expected  # miss
        hit = cached_standings(tournament, after_round=after, provisional=True)  # from the cache
        assert list(hit) == expected and hit[1:3] == expected[1:3] and len(hit) == len(expected)


@pytest.mark.django_db
def test_standings_table_markup(played: Round, cast: dict[str, Any], rf: Any) -> None:
    """The standings table's markup, row by row: ids, even/odd, mine, the status badge, every
    column's cell with its class, the header, the pager and the empty table."""
    from django.template.loader import render_to_string

    from reports.tables import StandingsData, StandingsTable
    from scoring.cache import cached_standings
    from tournaments.services import withdraw_pair

    tournament = played.tournament
    withdraw_pair(Pair.objects.get(tournament=tournament, number=3), cast["organizer"], "ill")
    tournament.refresh_from_db()
    rows = cached_standings(tournament, after_round=1)
    criteria = ("cf", *tournament.rules.tiebreaks)

    def render(page: Any, mine: set[int], data_rows: Any = rows) -> str:
        table = StandingsTable(StandingsData(tournament, data_rows, mine), criteria, 5, page)
        request = rf.get("/t/x/standings/", {"q": "a&b", "page": page})
        return _tags(
            render_to_string("tournaments/_standings_table.html", {"table": table}, request)
        )

    first, second = render(1, {rows[1].pair}), render(2, set())
    assert render("x", {rows[1].pair}) == first and render(99, set()) == second
    headers = re.findall(r"<th[^>]*>[^<]*</th>", first)
    assert headers[:4] == [
        "<th>名次</th>",
        "<th>编号</th>",
        "<th>选手</th>",
        '<th class="num">场分</th>',
    ]
    assert headers[-3:] == ['<th class="num">扣分</th>', "<th>单位</th>", "<th>区分依据</th>"]
    assert len(headers) == 4 + sum(1 for k in criteria[1:] if CRITERIA[k].attribute) + 3
    body = first + second
    trs = re.findall(r'<tr id="pair-(\d+)" class="([^"]*)"( aria-current="true")?>(.*?)</tr>', body)
    assert [int(pair) for pair, *_ in trs] == [row.pair for row in rows]
    assert [css for _, css, *_ in trs] == [
        "even",
        "mine odd",
        "even",
        "odd",
        "even",
        "even",
        "odd",
        "even",
    ]
    assert [bool(current) for _, _, current, _ in trs] == [False, True] + [False] * 6
    for (pair, _, _, cells), row in zip(trs, rows, strict=True):
        tds = re.findall(r"<td([^>]*)>(.*?)</td>", cells)
        assert len(tds) == len(headers)
        link = f'<a href="{reverse("public:pair", args=[tournament.slug, row.pair])}">'
        assert tds[0] == (' class="num"', str(row.rank))
        assert tds[1] == (' class="num"', f"{link}{row.pair}</a>")
        assert tds[2][0] == "" and tds[2][1].startswith(link)
        assert tds[3] == (' class="num"', num(row.cf))
        assert tds[-3] == (' class="num"', num(row.deductions))
        assert tds[-1] == (' class="decided"', criterion_label(row.decided_by))
        withdrawn = tds[2][1].endswith('</a><span class="badge">退赛</span>')
        assert withdrawn == (int(pair) == 3)
    assert (
        '<nav class="pager" aria-label="分页"><span aria-current="page" class="current">1</span>'
        in first
    )
    assert '<a href="?q=a%26b&amp;page=2">2</a>' in first and 'rel="prev"' in second
    empty = render(1, set(), ())
    assert f'<tbody><tr><td colspan="{len(headers)}">暂无名次</td></tr></tbody>' in empty
    assert "pager" not in empty


@pytest.mark.django_db
def test_standings_pages_share_one_computation(
    played: Round, cast: dict[str, Any], client_as: Any, monkeypatch: Any
) -> None:
    """The standings page, a pair's page and the projector ask for the same standings (after
    the latest complete round): computed once per results version, whatever page comes first."""
    from scoring import cache as standings_cache
    from tests.support.tournament import play_round

    play_round(played, cast["referee"], cast["chief"])

    calls: list[int] = []
    compute = standings_cache.compute

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return compute(*args, **kwargs)

    monkeypatch.setattr(standings_cache, "compute", counting)
    slug = played.tournament.slug
    client = client_as("anonymous")
    for url in (
        reverse("public:pair", args=[slug, 1]),
        reverse("public:standings", args=[slug]),
        reverse("public:standings", args=[slug]) + "?page=1",
        reverse("public:projector", args=[slug]) + "?show=standings",
    ):
        assert client.get(url).status_code == 200
    assert len(calls) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("sort", ["rank", "-cf", "zzz"])
def test_standings_ignore_a_sort_parameter(played: Round, client_as: Any, sort: str) -> None:
    url = reverse("public:standings", args=[played.tournament.slug])
    plain = client_as("anonymous").get(url).content.decode()
    sorted_ = client_as("anonymous").get(url, {"sort": sort})
    assert sorted_.status_code == 200
    assert _tags(plain).count('id="pair-') == _tags(sorted_.content.decode()).count('id="pair-')


@pytest.mark.django_db
def test_standings_table_rendered_once_per_standings(
    round1: Round, cast: dict[str, Any], client_as: Any, monkeypatch: Any
) -> None:
    """Issue 18: a confirmation changes the results version (the page around the table is
    rendered again) but not the standings after the round before, whose table — names queried,
    rows formatted — is kept; standings that did change, or a page marking the visitor's own
    pair, are rendered afresh."""
    from reports.tables import StandingsData
    from tests.support.tournament import NS_WINS, play_table

    built: list[int] = []
    enrich = StandingsData._enrich

    def counting(self: StandingsData, rows: Any) -> Any:
        built.append(len(rows))
        return enrich(self, rows)

    monkeypatch.setattr(StandingsData, "_enrich", counting)
    slug = round1.tournament.slug
    url = reverse("public:standings", args=[slug])
    client = client_as("anonymous")
    tables = list(Table.objects.filter(round=round1, is_bye=False).order_by("number"))

    def table_html(path: str) -> str:
        html = client.get(path).content.decode()
        return html[html.index('<table class="standings') : html.index("</table>")]

    first = table_html(url)  # after round 0: round 1 is in play
    assert len(built) == 1
    play_table(tables[0], NS_WINS, cast["referee"], cast["chief"])
    assert table_html(url) == first and len(built) == 1  # same standings, table kept
    after1 = table_html(url + "?after=1")
    assert len(built) == 2 and after1 != first
    play_table(tables[1], NS_WINS, cast["referee"], cast["chief"])
    assert table_html(url + "?after=1") != after1 and len(built) == 3  # standings changed
    table_html(url + "?pair=1")
    assert len(built) == 4
    play_table(tables[2], NS_WINS, cast["referee"], cast["chief"])
    table_html(url + "?pair=1")  # the visitor's own pair marked: never kept
    assert len(built) == 5
    assert table_html(url) == first and len(built) == 5
