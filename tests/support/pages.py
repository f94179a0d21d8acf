"""The staff's and the players' pages as a test drives them: the cast, logged-in clients, the
desk's and the table link's URLs, a post that follows its redirect, a small HTML check.

The cast and the small tournament come from the services (``tests.support.tournament``), so
the tests see exactly what a referee at the event sees.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from pairing import services as pairing_services
from scoring.models import TableEvent
from scoring.once import new_once_key
from tests.support.tournament import build_tournament, make_user
from tournaments.models import Round, Table, Tournament

EIGHT = ["NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1"]  # NS 8 : EW 4 after 8 deals


def make_cast() -> dict[str, Any]:
    """Organizer, chief referee, two referees, an outsider, and a referee of another event
    (``other_tournament``, 4 pairs)."""
    users: dict[str, Any] = {
        name: make_user(name)
        for name in ("organizer", "chief", "referee", "referee2", "outsider", "other_ref")
    }
    users["other_tournament"] = build_tournament(
        users["organizer"], users["chief"], [users["other_ref"]], n_pairs=4, slug="other-open"
    )
    return users


def make_tournament(cast: dict[str, Any]) -> Tournament:
    """8 pairs, the regulation preset; the chief and both referees hold their roles."""
    return build_tournament(cast["organizer"], cast["chief"], [cast["referee"], cast["referee2"]])


def first_table(rnd: Round) -> Table:
    return rnd.tables.filter(is_bye=False).order_by("number").first()


def client_for(user: Any | None, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    return client


def table_url(table: Table, action: str = "") -> str:
    args = [table.round.tournament.slug, table.round.number, table.number]
    return reverse(f"referee:table_{action}" if action else "referee:table", args=args)


def fresh(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


def tokens_of(table: Table) -> list[str]:
    return list(
        TableEvent.objects.filter(table=table).order_by("position").values_list("token", flat=True)
    )


def page_messages(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def post(client: Client, url: str, data: dict[str, Any]) -> Any:
    """POST and follow the redirect back to the sheet (PRG), as a browser does — with a fresh
    one-time key, as every form of the page carries one (unless ``data`` gives its own)."""
    response = client.post(url, {"once": new_once_key(), **data}, follow=True)
    assert response.status_code == 200
    return response


class _Checker(HTMLParser):
    """Enough of an HTML validator for our pages: balanced tags and unique ids."""

    VOID = {"meta", "link", "input", "br", "img", "hr", "source", "area", "base", "col", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.ids: set[str] = set()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id":
                if value in self.ids:
                    self.problems.append(f"duplicate id {value}")
                self.ids.add(value or "")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()


def assert_valid_html(html: str) -> None:
    checker = _Checker()
    checker.feed(html)
    assert html.lstrip().startswith("<!DOCTYPE html>")
    assert not checker.problems, checker.problems
    assert not checker.stack, checker.stack


def make_draft_round(tournament: Tournament) -> Table:
    """A draft round 2 with one table (written the way the importer does)."""
    a, b = tournament.pairs.order_by("number")[:2]
    _, tables = pairing_services.create_round(tournament, 2, [pairing_services.TableSpec(1, a, b)])
    return tables[0]


# The table link (no login: the link is the key)


def link(table: Table, action: str = "") -> str:
    name = f"tableside:tableside_{action}" if action else "tableside:tableside"
    return reverse(name, args=[table.entry_token])


def identified(table: Table, side: str = "NS", client: Client | None = None) -> Client:
    """A browser at the table link that proved itself as ``side`` with that pair's code."""
    client = client or Client()
    code = (table.ns if side == "NS" else table.ew).code
    response = client.post(link(table, "identify"), {"version": fresh(table).version, "code": code})
    assert response.status_code == 302
    return client


def tap(client: Client, table: Table, token: str) -> Any:
    """One tap at the link, with the fresh one-time key a page's form carries."""
    version = fresh(table).version
    data = {"version": version, "token": token, "once": new_once_key()}
    response = client.post(link(table, "event"), data, follow=True)
    assert response.status_code == 200
    return response


def tables_read(captured: CaptureQueriesContext, locked: bool = False) -> int:
    reads = [q["sql"] for q in captured.captured_queries if 'FROM "pairing_table"' in q["sql"]]
    if locked and connection.vendor == "postgresql":  # SQLite has no row locks
        assert all("FOR UPDATE" in sql for sql in reads), reads
    return len(reads)


def once_of(html: str) -> str:
    match = re.search(r'name="once" value="([^"]+)"', html)
    assert match, "the form carries no one-time key"
    return match.group(1)


def form_data(initial: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    data = {key: ("" if value is None else value) for key, value in initial.items()}
    data.update(overrides)
    return data
