"""Every screen tells the truth (issue 15): one table state everywhere, no unconfirmed result
shown as a result, standings after the last complete round, draft checks after a swap."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from reports.collect import workbook
from reports.xlsx import result_rows
from scoring import services as scoring_services
from tests.support.tournament import NS_WINS, enter_tokens, play_table
from tournaments.models import Round, Table
from tournaments.wording import TABLE_STATES, table_state


def _states(html: str) -> dict[int, str]:
    """Table number → the state badge of the public round page."""
    rows = re.findall(r'<tr id="table-(\d+)">(.*?)</tr>', html, re.S)
    states = {}
    for number, row in rows:
        badge = re.search(r'class="badge state-[a-z_]+">([^<]+)<', row)
        states[int(number)] = badge.group(1) if badge else "—"
    return states


def test_table_state_is_one_definition() -> None:
    assert table_state("open", is_bye=False, has_facts=False) == "not_started"
    assert table_state("open", is_bye=False, has_facts=True) == "in_progress"
    assert table_state("entered", is_bye=False, has_facts=True) == "entered"
    assert table_state("confirmed", is_bye=False, has_facts=True) == "confirmed"
    assert table_state("confirmed", is_bye=False, has_facts=True, corrected=True) == "corrected"
    assert table_state("open", is_bye=True, has_facts=False) == "bye"
    assert TABLE_STATES["corrected"] == "已更正"


@pytest.mark.django_db
def test_public_round_page_states(round1: Round, cast: dict[str, Any], client_as: Any) -> None:
    tables = list(Table.objects.filter(round=round1, is_bye=False).order_by("number"))
    referee, chief = cast["referee"], cast["chief"]
    enter_tokens(tables[1], ["NS3"], referee)
    play_table(tables[2], NS_WINS, referee, chief, confirm=False)
    confirmed = play_table(tables[3], NS_WINS, referee, chief)
    scoring_services.correct_result(
        confirmed, ["EW3", *NS_WINS[1:]], None, None, chief, "记分表抄错", confirmed.version
    )
    html = client_as("anonymous").get(reverse("public:round", args=[round1.tournament.slug, 1]))
    states = _states(html.content.decode())
    assert states[tables[0].number] == "未开始"
    assert states[tables[1].number] == "录入中"
    assert states[tables[2].number] == "待确认"
    assert states[tables[3].number] == "已更正"
    desk = client_as("chief").get(
        reverse("referee:table", args=[round1.tournament.slug, 1, tables[3].number])
    )
    assert desk.context["status"] == "corrected" and desk.context["status_label"] == "已更正"


@pytest.mark.django_db
def test_excel_round_sheet_shows_no_unconfirmed_result(round1: Round, cast: dict[str, Any]) -> None:
    tables = list(Table.objects.filter(round=round1, is_bye=False).order_by("number"))
    referee, chief = cast["referee"], cast["chief"]
    enter_tokens(tables[1], ["NS3"], referee)
    play_table(tables[2], NS_WINS, referee, chief)
    book = workbook(round1.tournament)
    ((_number, lines),) = book.rounds
    rows = {row[0]: row for row in result_rows(lines)}
    untouched, one_deal, done = (rows[t.number] for t in tables[:3])
    assert (
        untouched[7] == "未开始" and untouched[8:] == [""] * 9
    )  # the result columns and the end (结束方式) stay empty
    assert one_deal[7] == "录入中" and one_deal[8:] == [""] * 9
    assert done[7] == "已确认" and done[10] > 0  # North–South ahead
    # The deals sheet lists the confirmed table's deals only.
    assert {d.table_number for d in book.deals} == {tables[2].number}


@pytest.mark.django_db
def test_standings_default_to_the_last_complete_round(
    played: Round, cast: dict[str, Any], client_as: Any
) -> None:
    """Round 1 confirmed, round 2 published with nothing confirmed: every page shows the
    standings after round 1 and says how far round 2 is; the tiebreak wording stays."""
    tournament = played.tournament
    slug = tournament.slug
    client = client_as("anonymous")
    total = Table.objects.filter(round=played, is_bye=False).count()
    first = Table.objects.filter(round=played, is_bye=False).order_by("number").first()
    play_table(first, NS_WINS, cast["referee"], cast["chief"])
    pending = f"第1轮后（第2轮 1/{total} 已确认）"
    page = client.get(reverse("public:standings", args=[slug]))
    assert page.context["after"] == 1
    assert pending in page.content.decode()
    after1 = client.get(reverse("public:standings", args=[slug]) + "?after=1")
    assert page.context["standings"] == after1.context["standings"]
    # Round 1's ties are decided by lot, not by a "previous rank" round 2 has not made yet.
    assert "previous_rank" not in {row.decided_by for row in page.context["standings"]}
    projector = client.get(reverse("public:projector", args=[slug]) + "?show=standings")
    assert projector.context["standings"] == page.context["standings"]
    assert f"（第2轮 1/{total} 已确认）" in projector.content.decode()
    pair = client.get(reverse("public:pair", args=[slug, first.ns.number]))
    assert pair.context["standings"] == page.context["standings"]
    assert f"（第2轮 1/{total} 已确认）" in pair.content.decode()


@pytest.mark.django_db
def test_draft_checks_follow_a_swap(tournament: Any, cast: dict[str, Any], client_as: Any) -> None:
    """A swap that seats two pairs of one unit together: the review's "同单位相遇" says 1 桌."""
    from pairing import services as pairing_services

    draft = pairing_services.generate_round(tournament, cast["organizer"])
    client = client_as("organizer")
    url = reverse("pairing:round_control", args=[tournament.slug, draft.number])
    assert "同单位相遇：0 桌" in client.get(url).content.decode()
    tables = list(Table.objects.filter(round=draft, is_bye=False).select_related("ns", "ew"))
    first = tables[0]
    mate = next(
        pair for t in tables[1:] for pair in (t.ns, t.ew) if pair.unit_id == first.ns.unit_id
    )
    client.post(
        reverse("pairing:swap", args=[tournament.slug, draft.number]),
        {"pair_a": first.ew.number, "pair_b": mate.number},
    )
    html = client.get(url).content.decode()
    assert "同单位相遇：1 桌" in html
    draft.refresh_from_db()
    assert draft.draw_info["same_unit_meetings"] == 1


@pytest.mark.django_db
def test_pair_page_shows_the_state_not_a_result(
    round1: Round, cast: dict[str, Any], client_as: Any
) -> None:
    """A table with one deal entered: the pair's page says 录入中 and shows no levels/场分;
    an untouched table says 未开始."""
    tables = list(Table.objects.filter(round=round1, is_bye=False).order_by("number"))
    enter_tokens(tables[0], ["NS3"], cast["referee"])
    client = client_as("anonymous")
    slug = round1.tournament.slug
    played = client.get(reverse("public:pair", args=[slug, tables[0].ns.number]))
    html = played.content.decode()
    assert '<span class="badge">录入中</span>' in html
    assert 'class="result"' not in html
    untouched = client.get(reverse("public:pair", args=[slug, tables[1].ns.number]))
    assert '<span class="badge">未开始</span>' in untouched.content.decode()
