"""Results integrity (issue 11, findings 1–7), through the services: two parties behind every
table-side result, one-time keys, penalties withdrawn (never deleted), an accepted 判负 that
applies the result, and who may impose what (RULES.md §3 and §7).

The same findings replayed through the pages: ``tests/web/test_two_parties.py``; the
concurrent duplicates on PostgreSQL: ``tests/db/test_idempotency_pg.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from scoring import once as once_keys
from scoring import penalties, penalty_records, services
from scoring.cache import cached_standings
from scoring.models import Penalty, Signoff, TableEvent, UsedKey, Via
from scoring.penalties import apply_escalation, suggest_escalation
from tests.support.tournament import NS_WINS, enter_tokens
from tests.support.tournament import play_table as play
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Pair, Round, Table


def _t1(rnd: Round) -> Table:
    return rnd.tables.select_related("round__tournament", "ns", "ew").get(number=1)


def _fresh(table: Table) -> Table:
    return Table.objects.select_related("round__tournament", "ns", "ew").get(pk=table.pk)


def _enter_at_the_table(table: Table, pair: Pair, user: Any = None) -> Table:
    for token in NS_WINS:
        table = services.enter_event(table, token, user, table.version, Via.TABLE, pair=pair)
    return services.mark_entered(table, user, table.version, Via.TABLE, pair=pair)


def _code(exc: pytest.ExceptionInfo[ServiceError]) -> str:
    return exc.value.code


# --- finding 1: one East–West player cannot confirm their own table alone --------------------


def test_finding1_the_pair_that_entered_cannot_confirm(round1: Round) -> None:
    table = _enter_at_the_table(_t1(round1), _t1(round1).ew)  # an East–West-only session
    with pytest.raises(ServiceError) as err:
        services.confirm_table_by_pair_code(table, table.ew.code, table.version)
    assert _code(err) == "confirmer_entered"
    assert _fresh(table).entry_status == Table.EntryStatus.ENTERED
    table = services.confirm_table_by_pair_code(table, table.ns.code, table.version)
    assert table.entry_status == Table.EntryStatus.CONFIRMED
    steps = list(Signoff.objects.filter(table=table).values_list("step", "via", "pair_id"))
    assert steps == [("submit", "table", table.ew_id), ("confirm", "table", table.ns_id)]
    events = TableEvent.objects.filter(table=table)
    assert set(events.values_list("entered_pair_id", "entered_via")) == {(table.ew_id, "table")}
    confirm = AuditEntry.objects.get(table=table, action="confirm")
    assert confirm.actor == "table:NS" and confirm.after["by_pair"]["pair"] == table.ns.number
    assert AuditEntry.objects.get(table=table, action="mark_entered").actor == "table:EW"


def test_finding1_a_table_side_write_needs_a_proven_pair(round1: Round, round2_pair: Any) -> None:
    table = _t1(round1)
    for pair in (None, round2_pair):  # no code typed, or a pair of another table
        with pytest.raises(ServiceError) as err:
            services.enter_event(table, "NS3", None, table.version, Via.TABLE, pair=pair)
        assert _code(err) == "pair_code_required"
    assert not TableEvent.objects.exists()
    # Each event names its pair: if both pairs entered, neither can confirm at the table.
    table = services.enter_event(table, "NS3", None, 0, Via.TABLE, pair=table.ns)
    for token in NS_WINS[1:]:
        table = services.enter_event(table, token, None, table.version, Via.TABLE, pair=table.ew)
    table = services.mark_entered(table, None, table.version, Via.TABLE, pair=table.ew)
    for code in (table.ns.code, table.ew.code):
        with pytest.raises(ServiceError) as err:
            services.confirm_table_by_pair_code(table, code, table.version)
        assert _code(err) == "confirmer_entered"


@pytest.fixture
def round2_pair(round1: Round) -> Pair:
    """A pair of the same round seated at another table."""
    other = round1.tables.filter(is_bye=False).exclude(number=1).order_by("number").first()
    return other.ns


# --- finding 2: a referee through the link is an enterer ----------------------------------


def test_finding2_a_logged_in_user_at_the_link_is_an_enterer(round1: Round, referee: Any) -> None:
    table = _enter_at_the_table(_t1(round1), _t1(round1).ns, user=referee)
    assert set(TableEvent.objects.filter(table=table).values_list("entered_by", flat=True)) == {
        referee.pk
    }
    with pytest.raises(ServiceError) as err:  # the referee desk: the two-person rule
        services.confirm_table(table, referee, table.version)
    assert _code(err) == "same_person"
    with pytest.raises(ServiceError) as err:  # nor at the table with the other pair's code
        services.confirm_table_by_pair_code(table, table.ew.code, table.version, user=referee)
    assert _code(err) == "same_person"
    assert _fresh(table).entry_status == Table.EntryStatus.ENTERED


# --- finding 3: a referee's submitted sheet is read-only at the link ------------------------


def test_finding3_the_link_is_read_only_after_a_referee_submitted(
    round1: Round, referee: Any, referee2: Any
) -> None:
    table = play(_t1(round1), NS_WINS, referee, None, confirm=False)
    for call in (
        lambda t: services.undo_last_event(t, None, t.version, Via.TABLE, pair=t.ns),
        lambda t: services.enter_event(t, "NS1", None, t.version, Via.TABLE, pair=t.ns),
        lambda t: services.mark_entered(t, None, t.version, Via.TABLE, pair=t.ns),
        lambda t: services.confirm_table_by_pair_code(t, t.ew.code, t.version),
    ):
        with pytest.raises(ServiceError) as err:
            call(_fresh(table))
        assert _code(err) in ("table_link_read_only", "table_not_open")
    assert [e.token for e in TableEvent.objects.filter(table=table)] == NS_WINS
    assert _fresh(table).entry_status == Table.EntryStatus.ENTERED


def test_finding3_the_audit_shows_the_replacing_deal(round1: Round, referee: Any) -> None:
    table = _enter_at_the_table(_t1(round1), _t1(round1).ns)
    table = services.undo_last_event(table, None, table.version, Via.TABLE, pair=table.ns)
    table = services.enter_event(table, "NS3", None, table.version, Via.TABLE, pair=table.ns)
    actions = list(
        AuditEntry.objects.filter(table=table).order_by("pk").values_list("action", flat=True)
    )
    assert actions == ["mark_entered", "undo_event", "enter_event"]
    replacing = AuditEntry.objects.get(table=table, action="enter_event")
    assert replacing.after["deals"][-1] == "NS3" and replacing.actor == "table"


# --- finding 4: one-time keys -------------------------------------------------------------


def test_finding4_a_repeated_key_gets_the_first_result(round1: Round, chief: Any) -> None:
    table = _t1(round1)
    key = once_keys.new_once_key()

    def post() -> Penalty:
        return once_keys.once(
            key,
            "penalty",
            lambda: penalties.record_penalty(
                round1.tournament, table.ns, "deduction", chief, jcf=1.5, round=round1
            ),
            once_keys.remember_penalty,
            once_keys.recall_penalty,
            scope=f"pair={table.ns_id}",
        )

    first, second = post(), post()
    assert first.pk == second.pk and Penalty.objects.count() == 1
    assert UsedKey.objects.count() == 1
    # A refused write leaves its key unused: the corrected form can be posted again.
    bad = once_keys.new_once_key()
    with pytest.raises(ServiceError):
        once_keys.once(
            bad,
            "penalty",
            lambda: penalties.record_penalty(round1.tournament, table.ns, "deduction", chief),
            once_keys.remember_penalty,
            once_keys.recall_penalty,
            scope=f"pair={table.ns_id}",
        )
    assert UsedKey.objects.count() == 1
    with pytest.raises(ServiceError) as err:
        once_keys.once("short", "penalty", post, once_keys.remember_penalty, lambda r: r, scope="x")
    assert _code(err) == "bad_once_key"
    # No key at all: refused, nothing written (issue 29).
    with pytest.raises(ServiceError) as err:
        once_keys.once(None, "penalty", post, once_keys.remember_penalty, lambda r: r, scope="x")
    assert _code(err) == "once_key_missing" and Penalty.objects.count() == 1


def test_finding4_a_repeated_tap_is_answered_not_a_conflict(round1: Round, referee: Any) -> None:
    table = _t1(round1)
    key = once_keys.new_once_key()
    results = [
        once_keys.once(
            key,
            "table_event",
            lambda: services.enter_event(table, "NS3", referee, 0),
            once_keys.remember_table,
            once_keys.recall_table,
            scope=once_keys.table_scope(table),
        )
        for _ in range(2)
    ]
    assert [t.version for t in results] == [1, 1]
    assert [e.token for e in TableEvent.objects.filter(table=table)] == ["NS3"]


# --- finding 5: penalties are withdrawn, never deleted --------------------------------------


def test_finding5_undoing_a_foul_withdraws_its_penalty(round1: Round, chief: Any) -> None:
    table = _t1(round1)
    table, first = penalties.record_foul(table, "NS", chief, table.version, reason="看牌")
    table = services.undo_last_event(table, chief, table.version)
    first.refresh_from_db()
    assert first.is_withdrawn and first.withdraw_reason == "撤销犯规记录"
    table, _ = penalties.record_foul(table, "NS", chief, table.version, reason="看牌")
    assert Penalty.objects.filter(pair=table.ns, kind="foul").count() == 2  # kept, not deleted
    assert suggest_escalation(table.ns, round1) is None  # one live foul: no 判负 suggested
    audit = AuditEntry.objects.filter(action="penalty", table=table).order_by("pk")
    assert [e.after.get("withdrawn") for e in audit] == [None, True, None]


def test_finding5_the_chief_withdraws_a_penalty_with_a_reason(
    round1: Round, chief: Any, referee: Any, referee2: Any
) -> None:
    table = play(_t1(round1), NS_WINS, referee, referee2)
    t = round1.tournament
    deduction = penalties.record_penalty(t, table.ns, "deduction", chief, jcf=1, round=round1)
    before = {r.pair: r.jcf for r in cached_standings(t)}[table.ns.number]
    for user, reason, code in ((referee, "误判", "forbidden"), (chief, " ", "reason_required")):
        with pytest.raises(ServiceError) as err:
            penalty_records.withdraw_penalty(deduction, user, reason)
        assert _code(err) == code
    penalty_records.withdraw_penalty(deduction, chief, "误判")
    deduction.refresh_from_db()
    assert deduction.is_withdrawn and deduction.withdrawn_by == chief
    assert {r.pair: r.jcf for r in cached_standings(t)}[table.ns.number] == before + 1
    entry = AuditEntry.objects.filter(action="penalty").latest("pk")
    assert entry.reason == "误判" and entry.after["withdrawn"] is True
    with pytest.raises(ServiceError) as err:
        penalty_records.withdraw_penalty(deduction, chief, "again")
    assert _code(err) == "penalty_withdrawn"
    for _ in range(2):
        penalties.record_penalty(t, table.ew, "warning", referee, round=round1)
    warning = Penalty.objects.filter(kind="warning").first()
    penalty_records.withdraw_penalty(warning, chief, "不成立")
    assert suggest_escalation(table.ew, round1) is None  # only live records count


# --- finding 6: an accepted 判负 applies the result -----------------------------------------


def test_finding6_an_accepted_penalty_loss_moves_the_standings(
    round1: Round, chief: Any, referee: Any, referee2: Any
) -> None:
    table = play(_t1(round1), NS_WINS, referee, referee2)  # North–South won
    t = round1.tournament
    for deal in (2, 5):
        penalties.record_penalty(t, table.ns, "foul", chief, table=table, deal=deal)
    rows = {r.pair: r for r in cached_standings(t)}
    assert rows[table.ns.number].cf > rows[table.ew.number].cf
    penalty = apply_escalation(table.ns, round1, chief)  # from the round page: no table given
    assert (penalty.kind, penalty.table_id) == ("penalty_loss", None)
    table = _fresh(table)
    assert (table.end_kind, table.end_side) == ("penalty_loss", "NS")
    rows = {r.pair: r for r in cached_standings(t)}
    assert rows[table.ew.number].cf > rows[table.ns.number].cf  # the standings moved
    assert AuditEntry.objects.filter(table=table, action="correct").exists()


def test_finding6_on_an_open_table_the_end_is_set_and_audited(round1: Round, chief: Any) -> None:
    table = enter_tokens(_t1(round1), ["NS3"], chief)
    for deal in (1, 2):
        penalties.record_penalty(round1.tournament, table.ew, "foul", chief, table=table, deal=deal)
    apply_escalation(table.ew, round1, chief, table=table, expected_version=table.version)
    table = _fresh(table)
    assert (table.end_kind, table.end_side) == ("penalty_loss", "EW")
    assert AuditEntry.objects.filter(table=table, action="set_end").exists()


# --- finding 7: who may impose what -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "allowed"),
    [
        ("warning", {"referee", "chief"}),
        ("violation", {"referee", "chief"}),
        ("foul", {"chief"}),
        ("penalty_loss", {"chief"}),
        ("deduction", {"chief"}),
        ("level_award", {"chief"}),
        ("disqualification", {"organizer"}),
    ],
)
def test_finding7_who_may_impose_what(
    round1: Round, organizer: Any, chief: Any, referee: Any, kind: str, allowed: set[str]
) -> None:
    table = _t1(round1)
    users = {"organizer": organizer, "chief": chief, "referee": referee}
    for name, user in users.items():
        jcf = 1 if kind == "deduction" else None
        try:
            penalties.record_penalty(round1.tournament, table.ns, kind, user, jcf=jcf, table=table)
        except ServiceError as error:
            assert error.code == "forbidden" and name not in allowed, (name, kind)
        else:
            assert name in allowed, (name, kind)
    assert Penalty.objects.count() == len(allowed)
    status = Pair.objects.get(pk=table.ns_id).status
    assert (status == Pair.Status.DISQUALIFIED) == (kind == "disqualification")


def test_finding7_the_table_page_paths_are_checked_too(
    round1: Round, chief: Any, referee: Any
) -> None:
    table = _t1(round1)
    for call in (
        lambda t: services.enter_event(t, "foul:NS", referee, t.version),
        lambda t: services.enter_event(t, "lose:NS", referee, t.version),
        lambda t: services.enter_event(t, "adjust:NS+2", referee, t.version),
        lambda t: penalties.record_foul(t, "NS", referee, t.version),
        lambda t: services.set_end(t, "penalty_loss", "NS", referee, t.version),
    ):
        with pytest.raises(ServiceError) as err:
            call(_fresh(table))
        assert _code(err) == "forbidden"
    assert not TableEvent.objects.exists() and not Penalty.objects.exists()
    table = services.enter_event(table, "foul:NS", chief, 0)
    with pytest.raises(ServiceError) as err:  # nor may a referee undo the chief's foul
        services.undo_last_event(table, referee, table.version)
    assert _code(err) == "forbidden"
    services.set_end(_fresh(table), "forfeit", "EW", referee, table.version)  # not a penalty


def test_finding7_the_authority_is_a_tournament_setting(round1: Round, referee: Any) -> None:
    t = round1.tournament
    t.settings = {**t.settings, "penalty_authority": {"foul": "referee"}}
    t.save(update_fields=["settings"])
    t = type(t).objects.get(pk=t.pk)
    table = _t1(round1)
    penalties.record_penalty(t, table.ns, "foul", referee, table=table)
    with pytest.raises(ServiceError):
        penalties.record_penalty(t, table.ns, "deduction", referee, jcf=1)
    # The system (an import, a command) is never refused.
    penalties.record_penalty(t, table.ns, "disqualification", None)
