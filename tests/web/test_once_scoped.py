"""Issue 29 findings I/J (point 8): one-time keys are scoped to what the form is about and to
its action, every creating form (appeals included) carries one, and a post without a key is
refused with a clear message.

The replays: a repeated appeal post made two appeals; keys were global, so a key used at table
A and replayed at table B answered with A's sheet (and entered nothing at B); a stale penalty
form re-posted for pair 14 answered "pair 11" (the first post's penalty) and recorded nothing
for 14; a penalty post without a key still doubled."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from scoring.models import Appeal, Penalty, TableEvent
from scoring.once import new_once_key
from tests.support.pages import (
    client_for,
    first_table,
    fresh,
    make_cast,
    make_tournament,
    once_of,
    page_messages,
    table_url,
)
from tests.support.tournament import next_round, play_round
from tournaments.models import Pair, Round, Table

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def round1(cast: dict[str, Any]) -> Round:
    return next_round(make_tournament(cast), cast["organizer"])


def _tables(rnd: Round) -> list[Table]:
    return list(Table.objects.filter(round=rnd, is_bye=False).order_by("number"))


def test_a_repeated_appeal_post_lodges_one_appeal(cast: dict[str, Any], round1: Round) -> None:
    play_round(round1, cast["referee"], cast["chief"])
    table = _tables(round1)[0]
    chief = client_for(cast["chief"])
    url = reverse("appeals:appeals", args=[round1.tournament.slug])
    key = once_of(chief.get(url).content.decode())
    data = {"pair": table.ew.number, "round": 1, "table": table.number, "text": "第5副"}
    for _ in range(3):
        response = chief.post(url, {**data, "fee": "100", "once": key})
        assert response.status_code == 302
    assert Appeal.objects.count() == 1
    # Without a key: refused with a sentence, nothing lodged.
    response = chief.post(url, {**data, "fee": "100"})
    assert response.status_code == 200 and "一次性校验码" in response.content.decode()
    assert Appeal.objects.count() == 1


def test_a_key_used_at_table_a_is_a_new_request_at_table_b(
    cast: dict[str, Any], round1: Round
) -> None:
    a, b = _tables(round1)[:2]
    referee = client_for(cast["referee"])
    key = once_of(referee.get(table_url(a)).content.decode())
    json_headers = {"HTTP_ACCEPT": "application/json"}
    first = referee.post(
        table_url(a, "event"), {"version": 0, "token": "NS3", "once": key}, **json_headers
    )
    assert first.status_code == 200
    replay = referee.post(
        table_url(b, "event"), {"version": 0, "token": "EW2", "once": key}, **json_headers
    )
    assert replay.status_code == 200
    body = json.loads(replay.content)
    assert [r["token"] for r in TableEvent.objects.filter(table=b).values("token")] == ["EW2"]
    assert [e.token for e in TableEvent.objects.filter(table=a)] == ["NS3"]
    assert body["state"]["version"] == fresh(b).version  # B's sheet, never A's


def test_a_stale_penalty_form_re_posted_for_another_pair_records_that_pair(
    cast: dict[str, Any], round1: Round
) -> None:
    table = _tables(round1)[0]
    chief = client_for(cast["chief"])
    key = once_of(chief.get(table_url(table)).content.decode())
    url = reverse("penalties:penalty_new", args=[round1.tournament.slug])
    data = {"round": 1, "table": table.number, "kind": "warning", "once": key}
    chief.post(url, {**data, "pair": table.ns_id})
    response = chief.post(url, {**data, "pair": table.ew_id}, follow=True)
    ew = Pair.objects.get(pk=table.ew_id)
    said = page_messages(response)
    assert any(f"第{ew.number}对" in m for m in said), said
    assert sorted(Penalty.objects.values_list("pair_id", flat=True)) == sorted(
        [table.ns_id, table.ew_id]
    )
    # The same form again for North–South is the first post's repeat: still one each.
    chief.post(url, {**data, "pair": table.ns_id})
    assert Penalty.objects.count() == 2


def test_a_penalty_post_without_a_key_is_refused(cast: dict[str, Any], round1: Round) -> None:
    table = _tables(round1)[0]
    chief = client_for(cast["chief"])
    url = reverse("penalties:penalty_new", args=[round1.tournament.slug])
    data = {"round": 1, "table": table.number, "kind": "warning", "pair": table.ns_id}
    for _ in range(2):
        response = chief.post(url, data, follow=True)
        assert any("一次性校验码" in m for m in page_messages(response))
    assert Penalty.objects.count() == 0
    chief.post(url, {**data, "once": new_once_key()})
    assert Penalty.objects.count() == 1


@pytest.mark.parametrize("action", ["event", "award", "confirm", "foul"])
def test_desk_writes_without_a_key_are_refused(
    cast: dict[str, Any], round1: Round, action: str
) -> None:
    table = first_table(round1)
    referee = client_for(cast["referee"])
    data: dict[str, Any] = {"version": 0}
    if action == "event":
        data["token"] = "NS3"
    elif action == "award":
        data.update(side="NS", levels=1, reason="x")
    elif action == "foul":
        data.update(side="NS", reason="看牌")
    response = referee.post(table_url(table, action), data, follow=True)
    assert any("一次性校验码" in m for m in page_messages(response)), page_messages(response)
    assert fresh(table).version == 0 and not TableEvent.objects.filter(table=table).exists()


CREATING = ("/event/", "/award/", "/foul/", "/confirm/", "/penalties/new/", "/escalate/")


def test_every_creating_form_on_the_pages_carries_a_key(
    cast: dict[str, Any], round1: Round
) -> None:
    table = first_table(round1)
    chief = client_for(cast["chief"])
    slug = round1.tournament.slug
    seen = 0
    for url in (
        table_url(table),
        reverse("referee:round_dashboard", args=[slug, 1]),
        reverse("appeals:appeals", args=[slug]),
    ):
        html = chief.get(url).content.decode()
        for form in html.split("<form")[1:]:
            head, body = form.split(">", 1)
            creating = any(path in head for path in CREATING) or 'id="appeal-form"' in head
            if creating and 'method="post"' in head:
                seen += 1
                assert 'name="once" value="' in body.split("</form>")[0], (url, head)
    assert seen >= 5
