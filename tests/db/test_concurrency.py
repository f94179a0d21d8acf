"""Concurrency on PostgreSQL: real threads, each with its own database connection, racing
through the real services (and, once, the real pages) against the real database.

What each test proves (issue 7 "Concurrency"):
- two referees enter the same deal at once → exactly one is stored, the other gets a conflict;
- two organizers generate the next round at once → exactly one round;
- a confirmation racing a correction → one consistent end state, both in the audit log;
- table-side entry and a referee on the same table → no lost and no duplicated event;
- with the row lock and the compare-and-swap switched off (monkeypatch) the same races do go
  wrong, so the tests above mean something.

SQLite serialises every writer on one file lock, so these races cannot happen there; the tests
are skipped on SQLite (with that reason shown) and run in the PostgreSQL leg of ``.ci/run``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest
from django.db import IntegrityError, connection
from django.test import Client
from django.urls import reverse

from pairing import services as pairing_services
from scoring import parties as scoring_parties
from scoring import services as scoring_services
from scoring import writes as scoring_writes
from scoring.models import TableEvent, Via
from scoring.once import new_once_key
from tests.support.concurrency import TIMEOUT, race
from tests.support.pages import first_table, tokens_of
from tests.support.tournament import NS_WINS, enter_tokens, play_round
from tournaments.errors import ConflictError, ServiceError
from tournaments.models import AuditEntry, Round, Table

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="concurrency tests need PostgreSQL (SQLite serialises all writers); "
        "run with DATABASE_URL=postgres://… as .ci/run does",
    ),
    pytest.mark.django_db(transaction=True),
]


# --------------------------------------------------------------------------------------------
# Two referees, the same deal


def test_two_referees_entering_the_same_deal_store_exactly_one(
    round1: Round, referee: Any, referee2: Any
) -> None:
    table = first_table(round1)
    for deal, (mine, theirs) in enumerate(zip(NS_WINS, ["EW3", "NS1"] * 4, strict=True)):
        version = Table.objects.get(pk=table.pk).version
        results = race(
            lambda m=mine, v=version: scoring_services.enter_event(table, m, referee, v),
            lambda t=theirs, v=version: scoring_services.enter_event(table, t, referee2, v),
        )
        outcomes = sorted(kind for kind, _ in results)
        assert outcomes == ["error", "ok"], results
        loser = next(value for kind, value in results if kind == "error")
        assert isinstance(loser, ConflictError), loser  # a clear conflict, not a crash
        assert loser.code == "conflict"
        winner = mine if results[0][0] == "ok" else theirs
        assert tokens_of(table)[deal] == winner
        assert len(tokens_of(table)) == deal + 1  # exactly one stored
        assert Table.objects.get(pk=table.pk).version == version + 1


def test_two_referees_on_the_pages_get_one_deal_and_a_conflict_message(
    round1: Round, referee: Any, referee2: Any
) -> None:
    table = first_table(round1)
    url = reverse("referee:table_event", args=[round1.tournament.slug, round1.number, table.number])
    clients = []
    for user in (referee, referee2):
        client = Client()
        client.force_login(user)
        clients.append(client)
    results = race(
        *(
            lambda c=c, tok=tok: c.post(
                url, {"token": tok, "version": table.version, "once": new_once_key()}, follow=True
            )
            for c, tok in zip(clients, ["NS3", "EW2"], strict=True)
        )
    )
    pages = [value for kind, value in results]
    assert all(kind == "ok" for kind, _ in results), results
    assert all(page.status_code == 200 for page in pages)
    assert len(tokens_of(table)) == 1
    texts = [page.content.decode() for page in pages]
    conflicts = [t for t in texts if "没有保存" in t]
    assert len(conflicts) == 1, "the loser is told that nothing was saved"


# --------------------------------------------------------------------------------------------
# Two organizers, the next round


def test_two_organizers_generating_round_one_at_once_get_one_round(
    tournament: Any, organizer: Any, chief: Any
) -> None:
    results = race(
        lambda: pairing_services.generate_round(tournament, organizer),
        lambda: pairing_services.generate_round(tournament, chief),
    )
    assert sorted(kind for kind, _ in results) == ["error", "ok"], results
    error = next(value for kind, value in results if kind == "error")
    assert isinstance(error, ServiceError) and error.code == "round_in_progress"
    assert Round.objects.filter(tournament=tournament).count() == 1
    rnd = Round.objects.get(tournament=tournament)
    # Every pair seated once: the winner's draw is complete, nothing of the loser's is left.
    assert Table.objects.filter(round=rnd).count() == 4
    generated = AuditEntry.objects.filter(tournament=tournament, action="generate_round")
    assert generated.count() == 1


def test_two_organizers_generating_a_swiss_round_at_once_get_one_round(
    round1: Round, organizer: Any, chief: Any, referee: Any, referee2: Any
) -> None:
    tournament = round1.tournament
    play_round(round1, referee, referee2)
    pairing_services.finish_round(round1, organizer)
    results = race(
        lambda: pairing_services.generate_round(tournament, organizer),
        lambda: pairing_services.generate_round(tournament, chief),
        lambda: pairing_services.generate_round(tournament, organizer),  # a double click
    )
    assert sorted(kind for kind, _ in results) == ["error", "error", "ok"], results
    assert Round.objects.filter(tournament=tournament, number=2).count() == 1
    assert Round.objects.filter(tournament=tournament).count() == 2


# --------------------------------------------------------------------------------------------
# Confirmation racing a correction


CORRECTED = ["EW3", "EW2", "NS2", "EW1", "EW1", "NS1", "EW1", "EW1"]


def _entered_table(round1: Round, referee: Any) -> Table:
    table = enter_tokens(first_table(round1), NS_WINS, referee)
    return scoring_services.mark_entered(table, referee, table.version)


def test_a_correction_waits_for_the_confirmation_holding_the_lock(
    round1: Round, referee: Any, referee2: Any, chief: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Force the interleaving: the confirmation holds the table lock (paused just before its
    audit entry) while the chief referee's correction arrives. The correction must wait, then
    see the confirmed result and correct *that* — never a half-confirmed table."""
    table = _entered_table(round1, referee)
    confirming = threading.Event()
    release = threading.Event()
    real_audit = scoring_parties.audit  # the confirmation's sign-off writes its audit entry

    def paused_audit(*args: Any, **kwargs: Any) -> Any:
        if args[1] == AuditEntry.Action.CONFIRM:
            confirming.set()
            assert release.wait(TIMEOUT)
        return real_audit(*args, **kwargs)

    monkeypatch.setattr(scoring_parties, "audit", paused_audit)
    correction_done = threading.Event()

    def correct() -> Any:
        assert confirming.wait(TIMEOUT)  # the confirmation holds the lock now
        try:
            return scoring_services.correct_result(
                table, CORRECTED, None, None, chief, "记分员抄错第一副"
            )
        finally:
            correction_done.set()

    def confirm() -> Any:
        result = scoring_services.confirm_table(table, referee2, table.version)
        return result

    def releaser() -> None:
        assert confirming.wait(TIMEOUT)
        # The correction is blocked on the row lock: give it time to prove it waits.
        assert not correction_done.wait(1.0), "the correction did not wait for the lock"
        release.set()

    results = race(confirm, correct, releaser)
    assert [kind for kind, _ in results] == ["ok", "ok", "ok"], results
    final = Table.objects.get(pk=table.pk)
    assert final.entry_status == Table.EntryStatus.CONFIRMED
    assert tokens_of(final) == CORRECTED
    assert final.version == table.version + 2
    log = list(
        AuditEntry.objects.filter(table=final, action__in=["confirm", "correct"]).order_by("pk")
    )
    assert [e.action for e in log] == ["confirm", "correct"]
    assert log[1].before["deals"] == NS_WINS  # the correction saw the confirmed result
    assert log[1].before["status"] == "confirmed"
    assert log[1].after["deals"] == CORRECTED


@pytest.mark.parametrize("attempt", range(3))
def test_confirmation_racing_a_correction_ends_consistent(
    round1: Round, referee: Any, referee2: Any, chief: Any, attempt: int
) -> None:
    """Free-running race, three times: whichever order the database picks, the end state is
    confirmed, matches the last audit entry, and a refused correction says why (not a 500).
    The chief referee retries a refused correction once the table is confirmed (as on the page),
    so both the confirmation and the correction end up in the audit log."""
    table = _entered_table(round1, referee)
    results = race(
        lambda: scoring_services.confirm_table(table, referee2, table.version),
        lambda: scoring_services.correct_result(
            table, CORRECTED, None, None, chief, "记分员抄错第一副"
        ),
    )
    assert results[0][0] == "ok", results  # the confirmation never loses to a correction
    if results[1][0] == "error":
        assert isinstance(results[1][1], ServiceError)
        assert results[1][1].code == "table_not_confirmed"
        scoring_services.correct_result(table, CORRECTED, None, None, chief, "记分员抄错第一副")
    final = Table.objects.get(pk=table.pk)
    assert final.entry_status == Table.EntryStatus.CONFIRMED
    assert tokens_of(final) == CORRECTED
    assert list(range(8)) == list(
        TableEvent.objects.filter(table=final)
        .order_by("position")
        .values_list("position", flat=True)
    )
    log = list(AuditEntry.objects.filter(table=final).order_by("pk"))
    actions = [e.action for e in log]
    assert actions[-2:] == ["confirm", "correct"], actions
    assert log[-1].after["deals"] == tokens_of(final)
    assert log[-1].after["version"] == final.version


# --------------------------------------------------------------------------------------------
# Table-side entry and a referee on the same table


def _enter_sheet(table: Table, sheet: Sequence[str], user: Any, via: str, pair: Any = None) -> int:
    """Enter the paper sheet the way a person at a screen does: look at what is stored, enter
    the next deal with the version seen, and on a conflict reload and look again. Returns the
    number of conflicts met."""
    conflicts = 0
    while True:
        current = Table.objects.get(pk=table.pk)
        stored = tokens_of(current)
        assert stored == list(sheet[: len(stored)]), "a stored deal differs from the sheet"
        if len(stored) >= len(sheet):
            return conflicts
        try:
            scoring_services.enter_event(
                current, sheet[len(stored)], user, current.version, via, pair=pair
            )
        except ConflictError:
            conflicts += 1


def test_table_side_and_referee_entering_one_sheet_lose_and_double_nothing(
    round1: Round, referee: Any
) -> None:
    tables = list(Table.objects.filter(round=round1, is_bye=False).order_by("number"))
    total_conflicts = 0
    for table in tables:
        results = race(
            lambda t=table: _enter_sheet(t, NS_WINS, None, Via.TABLE, t.ns),  # South's phone
            lambda t=table: _enter_sheet(t, NS_WINS, referee, Via.REFEREE),
        )
        assert all(kind == "ok" for kind, _ in results), results
        total_conflicts += sum(value for _, value in results)
        events = list(TableEvent.objects.filter(table=table).order_by("position"))
        assert [e.token for e in events] == NS_WINS  # nothing lost, nothing doubled
        assert [e.position for e in events] == list(range(8))
        assert {e.entered_via for e in events} <= {Via.TABLE, Via.REFEREE}
        assert Table.objects.get(pk=table.pk).version == 8  # one version per stored deal
    # Sanity: the two really did collide somewhere, or this test proved nothing.
    assert total_conflicts > 0


def test_table_side_page_and_referee_page_racing_store_one_deal(
    round1: Round, referee: Any
) -> None:
    table = first_table(round1)
    side_url = reverse("tableside:tableside_event", args=[table.entry_token])
    ref_url = reverse(
        "referee:table_event", args=[round1.tournament.slug, round1.number, table.number]
    )
    south, ref = Client(), Client()
    identify = reverse("tableside:tableside_identify", args=[table.entry_token])
    assert south.post(identify, {"code": table.ns.code, "version": 0}).status_code == 302
    ref.force_login(referee)
    for deal, token in enumerate(NS_WINS):
        version = Table.objects.get(pk=table.pk).version
        results = race(
            lambda v=version, t=token: south.post(
                side_url, {"token": t, "version": v, "once": new_once_key()}
            ),
            lambda v=version, t=token: ref.post(
                ref_url, {"token": t, "version": v, "once": new_once_key()}
            ),
        )
        assert all(kind == "ok" and value.status_code == 302 for kind, value in results), results
        assert tokens_of(table) == NS_WINS[: deal + 1]


# --------------------------------------------------------------------------------------------
# Without the lock and the compare-and-swap the races are real


def _unlocked(monkeypatch: pytest.MonkeyPatch, barrier: threading.Barrier) -> None:
    """Switch off the row lock and the version check, and make both threads read the table
    before either writes (the window a busy server opens by itself now and then)."""

    def lock_without_lock(table: Table | int) -> Table:
        pk = table if isinstance(table, int) else table.pk
        return Table.objects.select_related("round__tournament", "ns", "ew").get(pk=pk)

    def no_version_check(locked: Table, expected_version: int | None) -> None:
        barrier.wait()  # both have read the same state
        return None

    def blind_cas(locked: Table, **fields: Any) -> None:
        Table.objects.filter(pk=locked.pk).update(version=locked.version + 1, **fields)
        locked.version += 1

    monkeypatch.setattr(scoring_writes, "lock_table", lock_without_lock)
    monkeypatch.setattr(scoring_writes, "check_version", no_version_check)
    monkeypatch.setattr(scoring_services, "cas", blind_cas)


def test_without_the_lock_two_lateness_entries_silently_lose_one(
    round1: Round, referee: Any, referee2: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The classic lost update: both referees are told "saved", one of the two is gone."""
    table = first_table(round1)
    _unlocked(monkeypatch, threading.Barrier(2, timeout=TIMEOUT))
    results = race(
        lambda: scoring_services.set_start_levels(table, 3, 2, referee, table.version),
        lambda: scoring_services.set_start_levels(table, 2, 4, referee2, table.version),
    )
    assert [kind for kind, _ in results] == ["ok", "ok"], results  # both told "saved"
    final = Table.objects.get(pk=table.pk)
    assert (final.start_ns, final.start_ew) in {(3, 2), (2, 4)}  # one of them is lost
    assert final.version == table.version + 1  # two writes, one version: the race happened


def test_without_the_lock_two_referees_both_pass_the_checks(
    round1: Round, referee: Any, referee2: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both entries pass every check; only the database's unique (table, position) constraint
    stops the second, as an IntegrityError — a 500 for the user instead of a clear conflict."""
    table = first_table(round1)
    _unlocked(monkeypatch, threading.Barrier(2, timeout=TIMEOUT))
    results = race(
        lambda: scoring_services.enter_event(table, "NS3", referee, table.version),
        lambda: scoring_services.enter_event(table, "EW2", referee2, table.version),
    )
    kinds = sorted(kind for kind, _ in results)
    assert kinds == ["error", "ok"], results
    error = next(value for kind, value in results if kind == "error")
    assert isinstance(error, IntegrityError)  # the race got through to the database
    assert len(tokens_of(table)) == 1  # the constraint (STYLE.md) is the last line


def test_with_the_lock_the_same_race_is_a_clean_conflict(
    round1: Round, referee: Any, referee2: Any
) -> None:
    """The control for the two tests above: the real services, same race, no monkeypatch."""
    table = first_table(round1)
    results = race(
        lambda: scoring_services.set_start_levels(table, 3, 2, referee, table.version),
        lambda: scoring_services.set_start_levels(table, 2, 4, referee2, table.version),
    )
    assert sorted(kind for kind, _ in results) == ["error", "ok"]
    error = next(value for kind, value in results if kind == "error")
    assert isinstance(error, ConflictError)
    winner = results[0][1] if results[0][0] == "ok" else results[1][1]
    final = Table.objects.get(pk=table.pk)
    assert (final.start_ns, final.start_ew) == (winner.start_ns, winner.start_ew)
