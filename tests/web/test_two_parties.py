"""Issue 11, findings 1–7 replayed through the pages as the attacker and the clumsy user did:
the table link, the referee desk and the penalty forms (RULES.md §3, §7).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from scoring.models import Penalty, TableEvent
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
    make_tournament,
    once_of,
    page_messages,
    table_url,
    tap,
    tokens_of,
)
from tests.support.tournament import next_round
from tournaments.models import AuditEntry, Pair, Round, Table


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


def test_finding1_an_east_west_session_cannot_confirm_alone(table: Table) -> None:
    anonymous = Client()
    response = tap(anonymous, table, "NS3")  # no pair code typed: nothing entered
    assert any("对号密码" in m for m in page_messages(response)) and tokens_of(table) == []
    ew = identified(table, "EW")
    for token in EIGHT:
        tap(ew, table, token)
    ew.post(link(table, "submit"), {"once": new_once_key(), "version": fresh(table).version})
    assert fresh(table).entry_status == "entered"
    response = ew.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": table.ew.code},
        follow=True,
    )
    assert any("另一方" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"  # North–South never took part
    # North–South, on the same phone, confirms with its own code.
    ew.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": table.ns.code},
    )
    table = fresh(table)
    assert table.entry_status == "confirmed" and table.confirmed_via == "table"


def test_finding2_a_referee_through_the_link_cannot_confirm_on_the_desk(
    cast: dict[str, Any], table: Table
) -> None:
    referee = client_for(cast["referee"])
    # Since issue 29 a logged-in referee is not let through the link as a pair at all: staff
    # enter and confirm at the desk, as themselves.
    referee.post(link(table, "identify"), {"version": fresh(table).version, "code": table.ns.code})
    tap(referee, table, "NS3")
    assert tokens_of(table) == []
    for token in EIGHT:
        referee.post(
            table_url(table, "event"),
            {"version": fresh(table).version, "token": token, "once": new_once_key()},
        )
    referee.post(
        table_url(table, "submit"), {"once": new_once_key(), "version": fresh(table).version}
    )
    events = TableEvent.objects.filter(table=table)
    assert set(events.values_list("entered_by", flat=True)) == {cast["referee"].pk}
    response = referee.post(
        table_url(table, "confirm"),
        {"version": fresh(table).version, "once": new_once_key()},
        follow=True,
    )
    assert any("确认人不能是录入人" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"
    client_for(cast["referee2"]).post(
        table_url(table, "confirm"),
        {"version": fresh(table).version, "once": new_once_key()},
    )
    assert fresh(table).entry_status == "confirmed"


def test_finding3_the_link_cannot_rewrite_a_referee_sheet(
    cast: dict[str, Any], table: Table
) -> None:
    referee = client_for(cast["referee"])
    for token in EIGHT:
        referee.post(
            table_url(table, "event"),
            {"once": new_once_key(), "version": fresh(table).version, "token": token},
        )
    referee.post(
        table_url(table, "submit"), {"once": new_once_key(), "version": fresh(table).version}
    )
    assert fresh(table).entry_status == "entered"
    stranger = identified(table, "NS")
    html = stranger.get(link(table)).content.decode()
    assert 'data-testid="read-only"' in html and 'data-testid="tap-NS3"' not in html
    assert 'data-testid="confirm"' not in html
    assert_valid_html(html)
    stranger.post(link(table, "undo"), {"once": new_once_key(), "version": fresh(table).version})
    tap(stranger, table, "NS1")
    stranger.post(link(table, "submit"), {"once": new_once_key(), "version": fresh(table).version})
    stranger.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": table.ew.code},
    )
    table = fresh(table)
    assert tokens_of(table) == EIGHT and table.entry_status == "entered"
    # A referee's own undo and replacing deal after submission: both in the audit.
    referee.post(table_url(table, "undo"), {"once": new_once_key(), "version": table.version})
    referee.post(
        table_url(table, "event"),
        {"once": new_once_key(), "version": fresh(table).version, "token": "EW3"},
    )
    actions = list(AuditEntry.objects.filter(table=table).values_list("action", flat=True))
    assert "undo_event" in actions and "enter_event" in actions


def test_finding4_a_doubled_penalty_post_records_one(cast: dict[str, Any], table: Table) -> None:
    chief = client_for(cast["chief"])
    html = chief.get(table_url(table)).content.decode()
    key = once_of(html)
    url = reverse("penalties:penalty_new", args=[table.round.tournament.slug])
    data = {
        "round": 1,
        "table": table.number,
        "pair": table.ns_id,
        "kind": "deduction",
        "jcf": "1.5",
        "once": key,
    }
    for _ in range(3):
        response = chief.post(url, data, follow=True)
        assert any("已记录判罚" in m for m in page_messages(response))
    assert Penalty.objects.count() == 1
    # A new render is a new key: a second, deliberate deduction is recorded.
    data["once"] = once_of(chief.get(table_url(table)).content.decode())
    chief.post(url, data)
    assert Penalty.objects.count() == 2


def test_finding4_a_doubled_tap_and_confirm_are_answered_once(
    cast: dict[str, Any], table: Table
) -> None:
    south = identified(table)
    key = once_of(south.get(link(table)).content.decode())
    for _ in range(2):
        response = south.post(
            link(table, "event"),
            {"version": 0, "token": "NS3", "once": key},
            follow=True,
        )
        assert not page_messages(response)  # the retry is answered, not a conflict
    assert tokens_of(table) == ["NS3"]
    for token in EIGHT[1:]:
        tap(south, table, token)
    south.post(link(table, "submit"), {"once": new_once_key(), "version": fresh(table).version})
    key = once_of(south.get(link(table)).content.decode())
    data = {"version": fresh(table).version, "code": table.ew.code, "once": key}
    for _ in range(2):
        response = south.post(link(table, "confirm"), data, follow=True)
        assert any("成绩已确认" in m for m in page_messages(response))
    assert AuditEntry.objects.filter(table=table, action="confirm").count() == 1


def test_finding5_withdrawn_penalties_are_struck_through(
    cast: dict[str, Any], table: Table
) -> None:
    chief = client_for(cast["chief"])
    chief.post(
        table_url(table, "foul"),
        {"once": new_once_key(), "version": 0, "side": "EW", "reason": "看牌"},
    )
    chief.post(table_url(table, "undo"), {"once": new_once_key(), "version": fresh(table).version})
    penalty = Penalty.objects.get()
    assert penalty.is_withdrawn
    html = chief.get(table_url(table)).content.decode()
    assert 'data-testid="withdrawn"' in html and "<del>" in html
    assert_valid_html(html)
    t = table.round.tournament
    chief.post(
        reverse("penalties:penalty_new", args=[t.slug]),
        {
            "round": 1,
            "table": table.number,
            "pair": table.ns_id,
            "kind": "warning",
            "once": new_once_key(),
        },
    )
    warning = Penalty.objects.get(kind="warning")
    url = reverse("penalties:penalty_withdraw", args=[t.slug])
    referee = client_for(cast["referee"])
    assert referee.post(url, {"penalty": warning.pk, "reason": "x"}).status_code == 403
    response = chief.post(url, {"penalty": warning.pk, "reason": ""}, follow=True)
    assert any("原因" in m for m in page_messages(response))
    chief.post(url, {"penalty": warning.pk, "reason": "不成立"})
    warning.refresh_from_db()
    assert warning.is_withdrawn and warning.withdraw_reason == "不成立"
    html = chief.get(reverse("penalties:penalties", args=[t.slug])).content.decode()
    assert html.count('data-testid="withdrawn"') == 2 and "不成立" in html
    assert Penalty.objects.count() == 2  # never deleted


def test_finding6_accepting_a_suggested_penalty_loss_on_the_round_page(
    cast: dict[str, Any], table: Table
) -> None:
    chief = client_for(cast["chief"])
    t = table.round.tournament
    for deal in (1, 2):
        chief.post(
            reverse("penalties:penalty_new", args=[t.slug]),
            {
                "round": 1,
                "pair_number": table.ew.number,
                "kind": "foul",
                "deal": deal,
                "once": new_once_key(),
            },
        )
    html = chief.get(reverse("referee:round_dashboard", args=[t.slug, 1])).content.decode()
    data = {"pair": table.ew.number, "round": 1, "once": once_of(html)}
    chief.post(reverse("penalties:penalty_escalate", args=[t.slug]), data)
    table = fresh(table)
    assert (table.end_kind, table.end_side) == ("penalty_loss", "EW")
    assert Penalty.objects.filter(kind="penalty_loss", escalation=True).count() == 1


def test_finding7_a_plain_referee_cannot_disqualify(cast: dict[str, Any], table: Table) -> None:
    referee = client_for(cast["referee"])
    t = table.round.tournament
    url = reverse("penalties:penalty_new", args=[t.slug])
    for kind in ("disqualification", "foul", "penalty_loss"):
        data = {"round": 1, "table": table.number, "pair": table.ns_id, "kind": kind}
        response = referee.post(url, {**data, "once": new_once_key()}, follow=True)
        assert any("权限" in m for m in page_messages(response))
    assert not Penalty.objects.exists()
    assert Pair.objects.get(pk=table.ns_id).status == Pair.Status.ACTIVE
    data = {"round": 1, "table": table.number, "pair": table.ns_id, "kind": "warning"}
    referee.post(url, {**data, "once": new_once_key()})
    assert Penalty.objects.get().kind == "warning"
    response = referee.post(
        table_url(table, "event"),
        {"once": new_once_key(), "version": fresh(table).version, "token": "foul:NS"},
        follow=True,
    )
    assert any("权限" in m for m in page_messages(response)) and tokens_of(table) == []
