"""Concurrent duplicate submissions on PostgreSQL (issue 11, finding 4): the same form posted
three times at once — a penalty, a deal tap, a confirmation, a registration import — leaves
exactly one row (one import), every post answered with the first result. The negative controls
switch the one-time keys off (``settings.IDEMPOTENCY_KEYS = False``) and see the duplicate rows
(or the conflicts and refusals) come back, so the tests above them mean something.

Real threads, each with its own connection, through the real pages (as
``tests/db/test_concurrency.py``); skipped on SQLite, which serialises every writer.
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.models import Penalty, TableEvent, UsedKey
from tests.support.concurrency import race
from tests.support.pages import first_table
from tests.support.tournament import NS_WINS, enter_tokens
from tournaments.models import AuditEntry, Round, Table

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="concurrency tests need PostgreSQL (SQLite serialises all writers); "
        "run with DATABASE_URL=postgres://…",
    ),
    pytest.mark.django_db(transaction=True),
]

COPIES = 3


def _once(client: Client, url: str) -> str:
    match = re.search(r'name="once" value="([^"]+)"', client.get(url).content.decode())
    assert match, "the form carries no one-time key"
    return match.group(1)


def _chiefs(chief: Any) -> list[Client]:
    clients = [Client() for _ in range(COPIES)]
    for client in clients:
        client.force_login(chief)
    return clients


def _post_penalty_at_once(round1: Round, chief: Any) -> list[tuple[str, Any]]:
    table = first_table(round1)
    slug = round1.tournament.slug
    clients = _chiefs(chief)
    page = reverse("referee:table", args=[slug, 1, table.number])
    data = {
        "round": 1,
        "table": table.number,
        "pair": table.ns_id,
        "kind": "deduction",
        "jcf": "1.5",
        "reason": "越序抓牌",
        "once": _once(clients[0], page),  # one rendered form, posted three times at once
    }
    url = reverse("penalties:penalty_new", args=[slug])
    return race(*(lambda c=c: c.post(url, data) for c in clients))


def test_a_penalty_posted_three_times_at_once_is_one_row(round1: Round, chief: Any) -> None:
    results = _post_penalty_at_once(round1, chief)
    assert all(kind == "ok" and r.status_code == 302 for kind, r in results), results
    assert Penalty.objects.count() == 1
    assert AuditEntry.objects.filter(action="penalty").count() == 1
    assert UsedKey.objects.count() == 1


def test_control_without_keys_the_penalty_doubles(round1: Round, chief: Any, settings: Any) -> None:
    settings.IDEMPOTENCY_KEYS = False
    results = _post_penalty_at_once(round1, chief)
    assert all(kind == "ok" for kind, _ in results), results
    assert Penalty.objects.count() == COPIES  # the finding: 4.5 points instead of 1.5


def _tap_at_once(round1: Round, referee: Any) -> tuple[Table, list[tuple[str, Any]]]:
    table = first_table(round1)
    slug = round1.tournament.slug
    clients = _chiefs(referee)
    page = reverse("referee:table", args=[slug, 1, table.number])
    data = {"version": 0, "token": NS_WINS[0], "once": _once(clients[0], page)}
    url = reverse("referee:table_event", args=[slug, 1, table.number])
    return table, race(*(lambda c=c: c.post(url, data, follow=True) for c in clients))


def _messages(response: Any) -> list[str]:
    """The page's messages, read from the HTML (the test client's captured context is not
    reliable across threads)."""
    html = response.content.decode()
    listed = re.search(r'<ul class="messages"[^>]*>(.*?)</ul>', html, re.S)
    return re.findall(r"<li[^>]*>(.*?)</li>", listed.group(1), re.S) if listed else []


def test_a_tap_posted_three_times_at_once_is_one_deal_and_no_conflict(
    round1: Round, referee: Any
) -> None:
    table, results = _tap_at_once(round1, referee)
    assert all(kind == "ok" and r.status_code == 200 for kind, r in results), results
    assert [e.token for e in TableEvent.objects.filter(table=table)] == NS_WINS[:1]
    assert not any(_messages(r) for _, r in results)  # every copy got the first answer


def test_control_without_keys_the_copies_of_a_tap_meet_conflicts(
    round1: Round, referee: Any, settings: Any
) -> None:
    settings.IDEMPOTENCY_KEYS = False
    table, results = _tap_at_once(round1, referee)
    assert [e.token for e in TableEvent.objects.filter(table=table)] == NS_WINS[:1]  # the CAS
    assert sum(1 for _, r in results if any("已被他人修改" in m for m in _messages(r))) == 2


def _confirm_at_once(round1: Round, referee: Any, referee2: Any) -> tuple[Table, list[Any]]:
    table = enter_tokens(first_table(round1), NS_WINS, referee)
    table = services.mark_entered(table, referee, table.version)
    slug = round1.tournament.slug
    clients = _chiefs(referee2)
    page = reverse("referee:table", args=[slug, 1, table.number])
    data = {"version": table.version, "once": _once(clients[0], page)}
    url = reverse("referee:table_confirm", args=[slug, 1, table.number])
    return table, race(*(lambda c=c: c.post(url, data, follow=True) for c in clients))


def test_a_confirmation_posted_three_times_at_once_is_confirmed_once(
    round1: Round, referee: Any, referee2: Any
) -> None:
    table, results = _confirm_at_once(round1, referee, referee2)
    assert all(kind == "ok" for kind, _ in results), results
    assert Table.objects.get(pk=table.pk).entry_status == "confirmed"
    assert AuditEntry.objects.filter(table=table, action="confirm").count() == 1
    assert all(any("成绩已确认" in m for m in _messages(r)) for _, r in results)


def test_control_without_keys_copies_of_a_confirmation_are_refused(
    round1: Round, referee: Any, referee2: Any, settings: Any
) -> None:
    settings.IDEMPOTENCY_KEYS = False
    table, results = _confirm_at_once(round1, referee, referee2)
    assert AuditEntry.objects.filter(table=table, action="confirm").count() == 1
    assert sum(1 for _, r in results if any("成绩已确认" in m for m in _messages(r))) == 1


def _import_at_once(organizer: Any) -> tuple[Any, list[tuple[str, Any]]]:
    """The same registration upload posted three times at once (a phone's retries)."""
    from tests.support.workbooks import template_with
    from tournaments import services as tournament_services

    t = tournament_services.create_tournament("春季赛", "spring-import", organizer)
    sheet = template_with([[1, "", "张三", "李四"], [2, "", "王五", "赵六"]])
    url = reverse("reports:import", args=[t.slug])
    clients = _chiefs(organizer)
    key = _once(clients[0], url)

    def post(client: Client) -> Any:
        upload = io.BytesIO(sheet)
        upload.name = "报名.xlsx"
        return client.post(url, {"file": upload, "once": key})

    return t, race(*(lambda c=c: post(c) for c in clients))


def test_an_import_posted_three_times_at_once_imports_once(organizer: Any) -> None:
    t, results = _import_at_once(organizer)
    assert all(kind == "ok" and r.status_code == 302 for kind, r in results), results
    assert t.pairs.count() == 2


def test_control_without_keys_the_import_copies_are_refused(organizer: Any, settings: Any) -> None:
    settings.IDEMPOTENCY_KEYS = False
    t, results = _import_at_once(organizer)
    assert t.pairs.count() == 2  # the numbers are unique: the copies fail instead of doubling
    refused = [r for kind, r in results if kind == "error" or r.status_code != 302]
    assert len(refused) == COPIES - 1, results
