"""Issue 16: a tap answered in JSON (the page's script; a plain form post still redirects).

The answer is the new sheet (``scoring.sheet.sheet_state``) with the table's version; a repeated
one-time key (a double tap, a retry after a timeout, the outbox resending after a lost answer)
gets the first result and stores nothing; a stale version is a 409 that carries the table as it
is now, so the page can show both versions; the queries are pinned like the form's
(``tests/web/test_tap_queries.py``). Also the offline shell's two URLs: the rules as data and the
service worker.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from scoring.models import TableEvent
from tests.support.pages import (
    client_for,
    first_table,
    identified,
    make_cast,
    make_tournament,
    tables_read,
    tokens_of,
)
from tests.support.pages import table_url as desk_url
from tests.support.tournament import enter_tokens, next_round
from tournaments.models import Table

JSON = {"HTTP_ACCEPT": "application/json"}
KEY = "k" * 22
# A JSON tap: the form's statements (tests/web/test_tap_queries.py); the one-time key's (the
# used key inserted, then given the result, and here the SAVEPOINT/RELEASE pairs of the key's
# two nested transactions: 6 in this test, 4 in production); the events read again for the
# answer's sheet. No page follows: the form's tap is followed by the sheet's GET (11 / 6).
REFEREE_JSON_TAP = 10 + 6 + 1
TABLESIDE_JSON_TAP = 8 + 6 + 1


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def table(cast: dict[str, Any]) -> Table:
    table = first_table(next_round(make_tournament(cast), cast["organizer"]))
    return enter_tokens(table, ["NS3", "EW2"], cast["referee"])


def _tap(client: Any, url: str, version: int, token: str, key: str = KEY) -> Any:
    return client.post(url, {"version": version, "token": token, "once": key}, **JSON)


def test_a_referee_tap_answers_the_new_sheet(
    cast: dict[str, Any], table: Table, django_assert_num_queries: Any
) -> None:
    client = client_for(cast["referee"])
    with django_assert_num_queries(REFEREE_JSON_TAP) as captured:
        response = _tap(client, desk_url(table, "event"), table.version, "NS2")
    assert response.status_code == 200
    assert tables_read(captured, locked=True) == 1
    body = response.json()
    state = body["state"]
    assert body["ok"] and body["key"] == KEY and body["entry_status"] == "open"
    assert state["version"] == table.version + 1
    assert state["tokens"] == ["NS3", "EW2", "NS2"]
    assert [row["token"] for row in state["rows"]] == ["NS3", "EW2", "NS2"]
    # NS3 (NS 5), EW2 (EW 4, on stage), NS2: NS 5 → 7, on stage.
    assert (state["ns_level"], state["ew_level"], state["deals_label"]) == ("7", "4", "3/8")
    assert state["on_stage"] == "NS" and state["jc"] == 3 and state["leader"] == "NS"
    assert tokens_of(table) == ["NS3", "EW2", "NS2"]


def test_the_same_key_twice_stores_one_event(cast: dict[str, Any], table: Table) -> None:
    """A double tap or a retry after a timeout: the second answer is the first result."""
    client = client_for(cast["referee"])
    first = _tap(client, desk_url(table, "event"), table.version, "EW1")
    again = _tap(client, desk_url(table, "event"), table.version, "EW1")
    assert first.status_code == again.status_code == 200
    assert again.json()["state"] == first.json()["state"]
    assert tokens_of(table) == ["NS3", "EW2", "EW1"]
    assert TableEvent.objects.filter(table=table).count() == 3


def test_without_the_keys_a_repeat_would_be_a_conflict(
    cast: dict[str, Any], table: Table, settings: Any
) -> None:
    """Negative control: it is the one-time key that answers the repeat with the first result
    (without it the version check refuses the repeat, and the outbox would stop on it)."""
    settings.IDEMPOTENCY_KEYS = False
    client = client_for(cast["referee"])
    assert _tap(client, desk_url(table, "event"), table.version, "EW1").status_code == 200
    assert _tap(client, desk_url(table, "event"), table.version, "EW1").status_code == 409
    assert tokens_of(table) == ["NS3", "EW2", "EW1"]


def test_a_stale_version_is_a_conflict_with_both_versions(
    cast: dict[str, Any], table: Table
) -> None:
    """Somebody else tapped meanwhile: 409, nothing stored, and the table as it is now."""
    client = client_for(cast["referee"])
    _tap(client, desk_url(table, "event"), table.version, "EW1", key="b" * 22)  # phone B
    response = _tap(client, desk_url(table, "event"), table.version, "NS1")  # phone A, stale
    assert response.status_code == 409
    body = response.json()
    assert not body["ok"] and body["code"] == "conflict" and body["message"]
    assert body["state"]["tokens"] == ["NS3", "EW2", "EW1"]
    assert body["state"]["version"] == table.version + 1
    assert tokens_of(table) == ["NS3", "EW2", "EW1"]
    # The refused key was rolled back: resent on the new version (the referee's choice), it
    # is stored once.
    retry = _tap(client, desk_url(table, "event"), table.version + 1, "NS1")
    assert retry.status_code == 200 and tokens_of(table) == ["NS3", "EW2", "EW1", "NS1"]


def test_a_refused_tap_and_a_malformed_one(cast: dict[str, Any], table: Table) -> None:
    client = client_for(cast["referee"])
    bad = _tap(client, desk_url(table, "event"), table.version, "NS9")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    full = enter_tokens(table, ["NS1"] * 6, cast["referee"])  # 8 deals: the round is played
    refused = _tap(client, desk_url(full, "event"), full.version, "NS1")
    assert refused.status_code == 422
    assert refused.json()["code"] == "too_many_deals"
    assert refused.json()["state"]["deals"] == 8
    outsider = client_for(cast["outsider"])
    assert _tap(outsider, desk_url(full, "event"), full.version, "NS1").status_code == 403


def test_a_table_side_tap_answers_the_new_sheet(
    table: Table, django_assert_num_queries: Any
) -> None:
    south = identified(table)
    url = reverse("tableside:tableside_event", args=[table.entry_token])
    with django_assert_num_queries(TABLESIDE_JSON_TAP):
        response = _tap(south, url, table.version, "EW1")
    assert response.status_code == 200
    assert response.json()["state"]["tokens"] == ["NS3", "EW2", "EW1"]
    again = _tap(south, url, table.version, "EW1")
    assert again.status_code == 200 and tokens_of(table) == ["NS3", "EW2", "EW1"]


def test_a_table_side_tap_needs_the_proven_pair(table: Table) -> None:
    from django.test import Client

    url = reverse("tableside:tableside_event", args=[table.entry_token])
    response = _tap(Client(), url, table.version, "EW1")
    assert response.status_code in (403, 422)
    assert response.json()["state"]["tokens"] == ["NS3", "EW2"]
    assert tokens_of(table) == ["NS3", "EW2"]


def test_without_javascript_the_form_still_redirects(cast: dict[str, Any], table: Table) -> None:
    client = client_for(cast["referee"])
    response = client.post(desk_url(table, "event"), {"version": table.version, "token": "NS1"})
    assert response.status_code == 302


def test_the_sheet_page_names_the_rules_and_the_outbox(cast: dict[str, Any], table: Table) -> None:
    page = client_for(cast["referee"]).get(desk_url(table, ""))
    html = page.content.decode()
    assert 'id="live-sheet"' in html and 'id="sheet-state"' in html
    assert page.context["live"]["state"]["tokens"] == ["NS3", "EW2"]
    rules = client_for(cast["referee"]).get(page.context["live"]["rules_url"])
    assert rules.status_code == 200
    assert "immutable" in rules["Cache-Control"]
    data = json.loads(rules.content)
    assert data["rules"]["max_deals"] == 8 and data["words"]["describe"]["NS3"]
    stale = client_for(cast["referee"]).get(page.context["live"]["rules_url"].split("?")[0])
    assert "immutable" not in stale["Cache-Control"]


def test_the_outbox_is_named_by_table_and_user_never_by_the_link(
    cast: dict[str, Any], table: Table
) -> None:
    """Issue 29 D: the outbox's name in ``localStorage`` was the page's path — for the
    table-side link its secret token; and a referee's taps were found by the next user."""
    desk = client_for(cast["referee"]).get(desk_url(table, "")).context["live"]["store"]
    assert desk == f"u{cast['referee'].pk}:desk:t{table.pk}"
    chief = client_for(cast["chief"]).get(desk_url(table, "")).context["live"]["store"]
    assert chief != desk  # another user on the same phone: another outbox
    side = identified(table, "NS").get(reverse("tableside:tableside", args=[table.entry_token]))
    store = side.context["live"]["store"]
    assert store == f"link:t{table.pk}" and table.entry_token not in store
    assert table.entry_token not in side.content.decode().split('data-store="')[1].split('"')[0]


def test_the_rules_the_page_gets_are_its_stages_own(cast: dict[str, Any]) -> None:
    """A stage that plays 6 deals in an event of 8: the offline sheet must count to 6."""
    from tournaments.services import update_settings

    tournament = make_tournament(cast)
    settings = {
        **tournament.settings,
        "stages": [{"kind": "swiss", "rounds": 5, "deals_per_round": 6}],
    }
    update_settings(tournament, settings, cast["organizer"])
    tournament.refresh_from_db()
    assert tournament.rules.deals_per_round == 8
    table = first_table(next_round(tournament, cast["organizer"]))
    page = client_for(cast["referee"]).get(desk_url(table, ""))
    url = page.context["live"]["rules_url"]
    assert "stage=1" in url
    data = json.loads(client_for(cast["referee"]).get(url).content)
    assert data["rules"]["max_deals"] == 6
    # A stage that does not exist, or no stage, is the event's rules (not an error).
    base = url.split("?")[0]
    for query in ("?stage=9", "?stage=" + "9" * 30, "?stage=x", ""):
        answer = client_for(cast["referee"]).get(base + query)
        assert answer.status_code == 200
        assert json.loads(answer.content)["rules"]["max_deals"] == 8


def test_the_service_worker_is_served_for_the_whole_site(client: Any, db: Any) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    body = response.content.decode()
    assert "js/live-sheet.js" in body and "gt-sheet-shell-" in body
