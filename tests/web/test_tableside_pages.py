"""Table-side entry (issue 5 "At the table", RULES.md §7): South proves the North–South pair
with its code once and enters the deals through the table's secret link, West confirms with the
East–West pair's code, then only a referee can change the table. The link reaches its one table
only and dies when the round is finished. (Issue 11's two-party rule: test_two_parties.py.)
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from pairing import services as pairing_services
from scoring import services as scoring_services
from scoring.models import TableEvent
from scoring.once import new_once_key
from tests.support.pages import (
    EIGHT,
    assert_valid_html,
    client_for,
    first_table,
    fresh,
    identified,
    link,
    make_cast,
    make_draft_round,
    make_tournament,
    page_messages,
    table_url,
    tap,
    tokens_of,
)
from tests.support.tournament import enter_tokens, next_round
from tournaments.models import AuditEntry, Round, Table


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    cache.clear()


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def round1(cast: dict[str, Any]) -> Round:
    return next_round(make_tournament(cast), cast["organizer"])


@pytest.fixture
def table(round1: Round) -> Table:
    return first_table(round1)


def test_the_link_shows_the_tap_grid_without_login(table: Table) -> None:
    client = Client()
    html = client.get(link(table)).content.decode()
    assert 'data-testid="identify"' in html and 'data-testid="tap-NS3"' not in html
    assert_valid_html(html)
    response = identified(table, "NS", client).get(link(table))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="tap-NS3"' in html and "南北上游，对家二游 +3" in html
    assert 'name="robots" content="noindex' in html
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    assert table.ew.code not in html and table.ns.code not in html  # never show a pair code
    assert_valid_html(html)


def test_unknown_links_bye_and_draft_are_404(cast: dict[str, Any], round1: Round) -> None:
    client = Client()
    assert client.get(reverse("tableside:tableside", args=["nope"])).status_code == 404
    bye = round1.tables.filter(is_bye=True).first()
    if bye is not None:
        assert client.get(link(bye)).status_code == 404
    draft = make_draft_round(round1.tournament)
    assert client.get(link(draft)).status_code == 404
    assert (
        client.post(
            link(draft, "event"), {"once": new_once_key(), "version": 0, "token": "NS3"}
        ).status_code
        == 404
    )


def test_south_enters_west_confirms_with_the_pair_code(cast: dict[str, Any], table: Table) -> None:
    south = identified(table)
    for token in EIGHT:
        response = tap(south, table, token)
    assert tokens_of(table) == EIGHT
    assert set(TableEvent.objects.filter(table=table).values_list("entered_via", flat=True)) == {
        "table"
    }
    html = response.content.decode()
    assert "8副已打完" in html and 'data-testid="submit"' in html
    # South hands over; West confirms.
    response = south.post(
        link(table, "submit"),
        {"once": new_once_key(), "version": fresh(table).version},
        follow=True,
    )
    assert fresh(table).entry_status == "entered"
    assert 'data-testid="confirm"' in response.content.decode()
    wrong = "A" if table.ew.code != "AAAAAA" else "B"
    response = south.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": wrong * 6},
        follow=True,
    )
    assert any("密码不正确" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"
    # The NS pair's code is not West's code.
    south.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": table.ns.code},
    )
    assert fresh(table).entry_status == "entered"
    response = south.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": table.ew.code.lower()},
        follow=True,
    )
    table = fresh(table)
    assert table.entry_status == "confirmed" and table.confirmed_via == "table"
    html = response.content.decode()
    assert 'data-testid="locked"' in html and 'data-testid="tap-NS3"' not in html
    # Locked: nothing more from the table.
    response = tap(south, table, "NS3")
    assert page_messages(response) and tokens_of(table) == EIGHT
    south.post(link(table, "undo"), {"once": new_once_key(), "version": table.version})
    assert tokens_of(table) == EIGHT
    assert AuditEntry.objects.filter(table=table, action="confirm", actor="table:EW").exists()
    # Only a referee can change it now: the chief's correction works on the confirmed table.
    chief = client_for(cast["chief"])
    data = {"version": table.version, "tokens": " ".join([*EIGHT[:-1], "NS1"]), "reason": "核对"}
    chief.post(table_url(table, "correct"), {**data, "start_ns": 2, "start_ew": 2})
    assert tokens_of(table)[-1] == "NS1"


def test_south_may_undo_before_confirmation(table: Table) -> None:
    south = identified(table)
    tap(south, table, "NS3")
    tap(south, table, "EW1")
    south.post(link(table, "undo"), {"once": new_once_key(), "version": fresh(table).version})
    assert tokens_of(table) == ["NS3"]


def test_the_table_side_enters_deals_only(table: Table) -> None:
    south = identified(table)
    for token in ("foul:NS", "adjust:EW+2", "NS7", ""):
        response = tap(south, table, token)
        assert page_messages(response)
    assert tokens_of(table) == []
    # And no referee-only action exists on the link.
    for path in ("start/", "end/", "correct/", "award/"):
        assert south.post(link(table) + path, {"version": 0}).status_code == 404


def test_a_link_reaches_its_own_table_only(round1: Round) -> None:
    first, second = round1.tables.filter(is_bye=False).order_by("number")[:2]
    south = identified(first)
    tap(south, first, "NS3")
    assert tokens_of(first) == ["NS3"] and tokens_of(second) == []
    # The page shows its own table and nothing of another.
    html = south.get(link(first)).content.decode()
    assert f"第{first.number}桌" in html and second.ns.player_names not in html
    # Confirming with the other table's EW code does nothing.
    for token in EIGHT[1:]:
        tap(south, first, token)
    south.post(link(first, "submit"), {"once": new_once_key(), "version": fresh(first).version})
    south.post(
        link(first, "confirm"),
        {"once": new_once_key(), "version": fresh(first).version, "code": second.ew.code},
    )
    assert fresh(first).entry_status == "entered"


def test_the_link_is_dead_after_the_round(cast: dict[str, Any], round1: Round) -> None:
    for t in round1.tables.filter(is_bye=False):
        t = enter_tokens(t, EIGHT, cast["referee"])
        scoring_services.confirm_table(t, cast["referee2"], t.version)
    first = round1.tables.filter(is_bye=False).order_by("number").first()
    pairing_services.finish_round(round1, cast["organizer"])
    client = Client()
    response = client.get(link(first))
    assert response.status_code == 410
    assert "已失效" in response.content.decode()
    assert_valid_html(response.content.decode())
    for action in ("event", "undo", "submit", "confirm"):
        data = {
            "version": fresh(first).version,
            "token": "NS3",
            "code": first.ew.code,
            "once": new_once_key(),
        }
        assert client.post(link(first, action), data).status_code == 410
    assert tokens_of(first) == EIGHT


def test_stale_version_from_the_table_is_a_conflict(cast: dict[str, Any], table: Table) -> None:
    south = identified(table)
    stale = table.version
    scoring_services.enter_event(table, "NS3", cast["referee"], stale)  # a referee got there first
    response = south.post(
        link(table, "event"),
        {"once": new_once_key(), "version": stale, "token": "EW3"},
        follow=True,
    )
    assert any("已被他人修改" in m for m in page_messages(response))
    assert tokens_of(table) == ["NS3"]


def test_table_side_posts_need_csrf(table: Table) -> None:
    south = Client(enforce_csrf_checks=True)
    assert (
        south.post(
            link(table, "event"), {"once": new_once_key(), "version": 0, "token": "NS3"}
        ).status_code
        == 403
    )
    assert south.get(link(table, "event")).status_code == 405
    assert tokens_of(table) == []


def test_guessing_the_pair_code_is_throttled(table: Table) -> None:
    south = identified(table)
    for token in EIGHT:
        tap(south, table, token)
    south.post(link(table, "submit"), {"once": new_once_key(), "version": fresh(table).version})
    wrong = "A" if table.ew.code != "AAAAAA" else "B"
    for _ in range(10):
        south.post(
            link(table, "confirm"),
            {"once": new_once_key(), "version": fresh(table).version, "code": wrong * 6},
        )
    response = south.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": table.ew.code},
        follow=True,
    )
    assert any("次数过多" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"


@pytest.mark.parametrize("role", ["referee", "chief"])
def test_a_referee_can_confirm_a_table_side_entry(
    cast: dict[str, Any], table: Table, role: str
) -> None:
    south = identified(table)
    for token in EIGHT:
        tap(south, table, token)
    client_for(cast[role]).post(
        table_url(table, "confirm"), {"once": new_once_key(), "version": fresh(table).version}
    )
    assert fresh(table).entry_status == "confirmed"
