"""One deal tap (issue 10): the table is read once (locked), the role checked once, the token
parsed once and the match scored once — for the referee desk and the table-side link — and the
page the tap redirects to (PRG) does not load, parse or score anything twice. A tap at a
best-of-n knockout table scores its series once (each game once; issue 27), and a confirmation
reads the table's events once.

The counts are written down in docs/architecture.md ("One deal tap"). In these tests the
service's ``transaction.atomic()`` runs inside the test's own transaction, so it shows up as a
SAVEPOINT and a RELEASE SAVEPOINT (two of the counted statements); in production it is one
transaction and those two are not sent.

The table's one read is locked: on PostgreSQL its SQL says ``FOR UPDATE``; on SQLite, which has
no row locks, the query still carries the ``select_for_update`` the service asked for, and it
runs after the SAVEPOINT and before the first write (``assert_locked_first``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.models.sql.compiler import (
    SQLAggregateCompiler,
    SQLCompiler,
    SQLDeleteCompiler,
    SQLInsertCompiler,
    SQLUpdateCompiler,
)
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import scoring.facts
import scoring.forms
import scoring.services
from reports.fileio import import_tournament
from scoring.models import UsedKey
from scoring.once import new_once_key
from tests.support.pages import (
    client_for,
    first_table,
    fresh,
    identified,
    make_cast,
    make_tournament,
    table_url,
    tables_read,
    tokens_of,
)
from tests.support.stages import load
from tests.support.tournament import enter_tokens, next_round
from tournaments.models import Table
from tournaments.services import grant_role

# The counts (see the module docstring and docs/architecture.md).
REFEREE_TAP = 16  # session, user, tournament, roles; the one-time key: SAVEPOINT, SAVEPOINT,
#                   INSERT key, RELEASE; SAVEPOINT, table (locked), events, INSERT event,
#                   UPDATE version (compare-and-swap), RELEASE; UPDATE key's result, RELEASE
REFEREE_PAGE = 11  # tournament, session, user, roles; table with round and pairs, players ×2,
#                    events; audit history, penalties, escalation counts
TABLESIDE_TAP = 14  # session (the proven pair); the key's four statements; SAVEPOINT, table
# (locked, by the link), referee sign-off (is the link read-only?), events, INSERT, UPDATE,
# RELEASE; the key's result, RELEASE
TABLESIDE_PAGE = 6  # table with round, tournament and pairs; players ×2; events; referee
# sign-off (read-only?); session (the proven pair)
KNOCKOUT_TAP = 17  # the referee tap's 16 and the table's game rows (game 2 of a best of three)
REFEREE_CONFIRM = 18  # tournament, session, user, roles; the key's six statements;
# SAVEPOINT, table (locked), events (the tokens and who entered them, once), UPDATE version,
# INSERT sign-off, INSERT audit, UPDATE results version, RELEASE
TABLESIDE_CONFIRM = 25  # the key's six statements; the link's table with players ×2 and events
# (the view's); this phone's wait after a wrong code (issue 29: the backoff), wrong-code counters
# ×2; SAVEPOINT, table (locked, by the link), referee sign-off
# (read-only?), events (once), the last submission (who submitted), UPDATE version, INSERT
# sign-off, INSERT audit, UPDATE results version, RELEASE; the counters given back ×2


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    cache.clear()


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def table(cast: dict[str, Any]) -> Table:
    """A table with two deals already entered (a tap in the middle of a match)."""
    table = first_table(next_round(make_tournament(cast), cast["organizer"]))
    return enter_tokens(table, ["NS3", "EW2"], cast["referee"])


class Calls:
    def __init__(self) -> None:
        self.parsed = 0
        self.scored = 0


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    """Count the token parses of the form and the service, and every scoring of a match."""
    seen = Calls()

    def counting(module: Any, name: str, field: str) -> None:
        original: Callable[..., Any] = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            setattr(seen, field, getattr(seen, field) + 1)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counting(scoring.forms, "parse_event", "parsed")
    counting(scoring.services, "parse_event", "parsed")
    counting(scoring.facts, "score_match", "scored")
    yield seen


# The compilers of everything but a SELECT (each backend's own subclass them).
WRITES = (SQLAggregateCompiler, SQLDeleteCompiler, SQLInsertCompiler, SQLUpdateCompiler)


@pytest.fixture
def selects(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """(table, locked) of every SELECT the ORM runs, in order. SQLite has no row locks and sends
    no ``FOR UPDATE``, but the query still carries the ``select_for_update`` the service asked
    for: the SQLite counterpart of the PostgreSQL assertion in ``tables_read``."""
    seen: list[tuple[str, bool]] = []
    original = SQLCompiler.execute_sql

    def execute_sql(self: SQLCompiler, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(self, WRITES) and self.query.model is not None:  # a SELECT
            seen.append((self.query.model._meta.db_table, bool(self.query.select_for_update)))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "execute_sql", execute_sql)
    return seen


def assert_locked_first(captured: CaptureQueriesContext, selects: list[tuple[str, bool]]) -> None:
    """The tap's one read of the table asks for the row lock, inside the service's transaction
    (after its SAVEPOINT) and before anything is written: a lock taken after the decision, or
    outside the transaction, would let two taps decide on the same version."""
    assert [locked for name, locked in selects if name == "pairing_table"] == [True]
    sql = [q["sql"] for q in captured.captured_queries]
    # The form's one-time key is stored in a transaction of its own around the service's.
    read = next(i for i, text in enumerate(sql) if 'FROM "pairing_table"' in text)
    opened = max((i for i in range(read) if sql[i].startswith("SAVEPOINT")), default=-1)
    written = next(
        (i for i in range(read + 1, len(sql)) if sql[i].startswith(("INSERT", "UPDATE"))), -1
    )
    closed = next((i for i in range(written + 1, len(sql)) if sql[i].startswith("RELEASE")), -1)
    assert -1 < opened < read < written < closed, sql
    # Nothing between the transaction's opening and the table's read writes anything.
    assert not any(text.startswith(("INSERT", "UPDATE")) for text in sql[opened:read]), sql


def role_checks(captured: CaptureQueriesContext) -> int:
    return sum("tournaments_tournament_referees" in q["sql"] for q in captured.captured_queries)


def test_a_referee_tap_reads_checks_parses_and_scores_once(
    cast: dict[str, Any],
    table: Table,
    calls: Calls,
    selects: list[tuple[str, bool]],
    django_assert_num_queries: Any,
) -> None:
    client = client_for(cast["referee"])
    data = {"version": table.version, "token": "NS2", "once": new_once_key()}
    selects.clear()
    with django_assert_num_queries(REFEREE_TAP) as captured:
        response = client.post(table_url(table, "event"), data)
    assert response.status_code == 302
    assert tokens_of(table) == ["NS3", "EW2", "NS2"]
    assert tables_read(captured, locked=True) == 1
    assert_locked_first(captured, selects)
    assert role_checks(captured) == 1  # the guard's; the service reuses it
    assert (calls.parsed, calls.scored) == (1, 1)

    calls.parsed = calls.scored = 0
    with django_assert_num_queries(REFEREE_PAGE) as captured:
        page = client.get(response["Location"])
    assert page.status_code == 200
    assert page.context["sheet"].deals == 3
    assert tables_read(captured) == 1
    assert (calls.parsed, calls.scored) == (0, 1)


def test_a_table_side_tap_reads_parses_and_scores_once(
    table: Table, calls: Calls, selects: list[tuple[str, bool]], django_assert_num_queries: Any
) -> None:
    south = identified(table)  # South proved itself with the North–South code (issue 11)
    url = reverse("tableside:tableside_event", args=[table.entry_token])
    selects.clear()
    with django_assert_num_queries(TABLESIDE_TAP) as captured:
        response = south.post(
            url, {"version": table.version, "token": "EW1", "once": new_once_key()}
        )
    assert response.status_code == 302
    assert tokens_of(table) == ["NS3", "EW2", "EW1"]
    assert tables_read(captured, locked=True) == 1
    assert_locked_first(captured, selects)
    assert (calls.parsed, calls.scored) == (1, 1)

    calls.parsed = calls.scored = 0
    with django_assert_num_queries(TABLESIDE_PAGE) as captured:
        page = south.get(response["Location"])
    assert page.status_code == 200
    assert page.context["sheet"].deals == 3
    assert tables_read(captured) == 1
    assert (calls.parsed, calls.scored) == (0, 1)


def test_the_counts_do_not_grow_with_the_match(
    cast: dict[str, Any], table: Table, django_assert_num_queries: Any
) -> None:
    """Seven deals in instead of two: the same statements."""
    table = enter_tokens(fresh(table), ["NS1", "EW1", "NS1", "EW1", "NS1"], cast["referee"])
    client = client_for(cast["referee"])
    with django_assert_num_queries(REFEREE_TAP):
        response = client.post(
            table_url(table, "event"),
            {"once": new_once_key(), "version": table.version, "token": "NS1"},
        )
    with django_assert_num_queries(REFEREE_PAGE):
        client.get(response["Location"])


def test_a_refused_tap_writes_nothing_and_still_reads_once(
    cast: dict[str, Any], table: Table, django_assert_num_queries: Any
) -> None:
    """A stale version: the conflict is found on the one locked read; nothing is written."""
    client = client_for(cast["referee"])
    data = {"version": table.version - 1, "token": "NS2", "once": new_once_key()}
    with CaptureQueriesContext(connection) as captured:
        response = client.post(table_url(table, "event"), data)
    assert response.status_code == 302
    assert tables_read(captured) == 1
    # The one-time key's row is rolled back with the refusal (the form can be sent again).
    written = [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].startswith(("INSERT", "UPDATE")) and "scoring_usedkey" not in q["sql"]
    ]
    assert written == [] and not UsedKey.objects.exists()
    assert tokens_of(table) == ["NS3", "EW2"]


# -- a best-of-three knockout match (RULES.md §8) -------------------------------------------------


@pytest.fixture
def knockout(cast: dict[str, Any]) -> Table:
    """The knockout file's final, published and not played yet (best of three, two deals a
    game), the cast's referees holding their role."""
    data = load("knockout.json")
    data["rounds"][2]["status"] = "published"
    for table in data["rounds"][2]["tables"]:
        table["games"] = []
    tournament = import_tournament(data, slug="ko-taps")
    for name in ("referee", "referee2"):
        grant_role(tournament, cast[name], "referee")
    return Table.objects.get(round__tournament=tournament, round__number=3, number=1)


@pytest.fixture
def scored_games(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """Every event list the engine scores, in order."""
    seen: list[tuple[str, ...]] = []
    original = scoring.facts.score_match

    def counting(events: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(tuple(events))
        return original(events, *args, **kwargs)

    monkeypatch.setattr(scoring.facts, "score_match", counting)
    return seen


def test_a_knockout_tap_scores_its_series_once(
    cast: dict[str, Any],
    knockout: Table,
    scored_games: list[tuple[str, ...]],
    django_assert_num_queries: Any,
) -> None:
    """Game 1 is over (East–West 8 : 2): the tap that opens game 2 and the next tap in game 2
    score every game once — the game the tap goes to once before it (is it over?) and once
    with it — and read the table's game rows once."""
    table = enter_tokens(knockout, ["EW3", "EW3"], cast["referee"])
    client = client_for(cast["referee"])
    scored_games.clear()
    response = client.post(
        table_url(table, "event"),
        {"version": table.version, "token": "NS2", "once": new_once_key()},
    )
    assert response.status_code == 302
    # Game 1 as it stands (over, so the tap opens game 2), then game 2 with the tap.
    assert scored_games == [("EW3", "EW3"), ("NS2",)]

    scored_games.clear()
    version = fresh(table).version
    with django_assert_num_queries(KNOCKOUT_TAP) as captured:
        response = client.post(
            table_url(table, "event"), {"version": version, "token": "EW1", "once": new_once_key()}
        )
    assert response.status_code == 302
    assert tokens_of(table) == ["EW3", "EW3", "NS2", "EW1"]
    assert tables_read(captured, locked=True) == 1
    assert sum('FROM "tournaments_game"' in q["sql"] for q in captured.captured_queries) == 1
    # Game 1 once (complete), game 2 before the tap (still going on) and with it.
    assert scored_games == [("EW3", "EW3"), ("NS2",), ("NS2", "EW1")]


# -- confirmation ----------------------------------------------------------------------------------


def events_read(captured: CaptureQueriesContext) -> int:
    """The statements on the events table inside the service's transaction: after its locked
    read of the table (the request's last read of the table) and before its RELEASE."""
    sqls = [q["sql"] for q in captured.captured_queries]
    start = max(i for i, sql in enumerate(sqls) if 'FROM "pairing_table"' in sql)
    end = next(i for i, sql in enumerate(sqls) if i > start and sql.startswith("RELEASE"))
    return sum('FROM "scoring_tableevent"' in sql for sql in sqls[start:end])


def test_a_referee_confirmation_reads_the_events_once(
    cast: dict[str, Any], table: Table, calls: Calls, django_assert_num_queries: Any
) -> None:
    table = enter_tokens(table, ["NS1"] * 6, cast["referee"])
    table = scoring.services.mark_entered(table, cast["referee"], table.version)
    client = client_for(cast["referee2"])
    calls.scored = 0
    with django_assert_num_queries(REFEREE_CONFIRM) as captured:
        response = client.post(
            table_url(table, "confirm"), {"version": table.version, "once": new_once_key()}
        )
    assert response.status_code == 302
    assert fresh(table).is_confirmed
    assert tables_read(captured, locked=True) == 1
    assert events_read(captured) == 1  # the tokens and who entered them, for the rule and score
    assert calls.scored == 1


def test_a_table_side_confirmation_reads_the_events_once(
    table: Table, calls: Calls, django_assert_num_queries: Any
) -> None:
    for token in ["NS1"] * 6:
        table = scoring.services.enter_event(
            fresh(table), token, None, fresh(table).version, "table", pair=table.ns
        )
    table = scoring.services.mark_entered(table, None, table.version, "table", pair=table.ns)
    url = reverse("tableside:tableside_confirm", args=[table.entry_token])
    calls.scored = 0
    east = Client()
    with django_assert_num_queries(TABLESIDE_CONFIRM) as captured:
        response = east.post(
            url, {"version": table.version, "code": table.ew.code, "once": new_once_key()}
        )
    assert response.status_code == 302
    assert fresh(table).is_confirmed
    # The view resolves the link (its page's read); the service reads the table once, locked.
    reads = [q["sql"] for q in captured.captured_queries if 'FROM "pairing_table"' in q["sql"]]
    assert len(reads) == 2
    assert events_read(captured) == 1
    assert calls.scored == 1
