"""Penalties (RULES.md §3): the record, disqualification, and escalation suggestions."""

from __future__ import annotations

import pytest

from pairing import services as pairing_services
from scoring import penalties, services
from scoring.cache import cached_standings
from scoring.models import Penalty
from scoring.penalties import apply_escalation, escalation_from_counts, suggest_escalation
from tests.support.tournament import next_round, play_round, result_of
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Pair, Seat, Table


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ({}, None),
        ({("warning", False): 1}, None),
        ({("warning", False): 2}, ("violation", "warning")),
        # The two warnings were used up by an escalated violation.
        ({("warning", False): 2, ("violation", True): 1}, None),
        ({("warning", False): 3, ("violation", True): 1}, None),
        ({("warning", False): 4, ("violation", True): 1}, ("violation", "warning")),
        # A violation recorded by hand uses no warning up; two violations → foul.
        ({("warning", False): 2, ("violation", False): 1}, ("violation", "warning")),
        ({("violation", False): 1, ("violation", True): 1}, ("foul", "violation")),
        ({("foul", False): 2}, ("penalty_loss", "foul")),
        ({("foul", False): 2, ("penalty_loss", True): 1}, None),
    ],
)
def test_escalation_ladder(counts, expected) -> None:
    suggestion = escalation_from_counts(counts)
    assert (suggestion and (suggestion.kind, suggestion.because_of)) == expected


def test_record_penalty_is_audited_and_validated(round1, chief, referee, outsider) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = round1.tables.select_related("ns", "ew").get(number=1)
    t = round1.tournament
    p = penalties.record_penalty(
        t, table.ns, "foul", referee, reason="越序出牌", table=table, deal=4
    )
    assert (p.round, p.referee, p.referee_name) == (round1, referee, referee.username)
    assert AuditEntry.objects.filter(action="penalty", table=table).exists()
    other = Pair.objects.filter(tournament=t).exclude(pk__in=table.pair_ids).first()
    for kwargs, code in [
        ({"pair": other, "kind": "warning", "table": table}, "wrong_tournament"),
        ({"pair": table.ns, "kind": "deduction"}, "bad_penalty"),
        ({"pair": table.ns, "kind": "deduction", "jcf": -1}, "bad_penalty"),
        ({"pair": table.ns, "kind": "warning", "jcf": 1}, "bad_penalty"),
        ({"pair": table.ns, "kind": "scolding"}, "bad_penalty"),
    ]:
        with pytest.raises(ServiceError) as err:
            penalties.record_penalty(t, user=referee, **kwargs)
        assert err.value.code == code
    with pytest.raises(ServiceError) as err:
        penalties.record_penalty(t, table.ns, "warning", outsider)
    assert err.value.code == "forbidden"


def test_a_disqualification_penalty_stops_the_pair_being_paired(
    tournament, organizer, chief, referee, referee2
) -> None:
    rnd = next_round(tournament, organizer)
    play_round(rnd, referee, referee2)
    pairing_services.finish_round(rnd, organizer)
    pair = tournament.pairs.get(number=4)
    # RULES.md §3: a disqualification is the organizers' (not the chief referee's).
    with pytest.raises(ServiceError) as err:
        penalties.record_penalty(tournament, pair, "disqualification", chief, reason="严重违规")
    assert err.value.code == "forbidden"
    penalties.record_penalty(tournament, pair, "disqualification", organizer, reason="严重违规")
    assert Pair.objects.get(pk=pair.pk).status == Pair.Status.DISQUALIFIED
    rnd2 = pairing_services.generate_round(tournament, organizer)
    assert not Seat.objects.filter(round=rnd2, pair=pair, direction__in=["NS", "EW"]).exists()
    # Its results so far stand.
    rows = {r.pair: r for r in cached_standings(tournament, after_round=1)}
    assert rows[4].wins + rows[4].losses + rows[4].draws == 1


def test_two_warnings_suggest_a_violation_applied_only_on_confirmation(round1, referee) -> None:
    table = round1.tables.select_related("ns", "ew").get(number=1)
    pair = table.ns
    penalties.record_penalty(round1.tournament, pair, "warning", referee, table=table)
    assert suggest_escalation(pair, round1) is None
    penalties.record_penalty(round1.tournament, pair, "warning", referee, table=table)
    suggestion = suggest_escalation(pair, round1)
    assert (suggestion.kind, suggestion.because_of, suggestion.count) == ("violation", "warning", 2)
    assert not Penalty.objects.filter(kind="violation").exists()  # only suggested
    penalty = apply_escalation(pair, round1, referee, table=table)
    assert (penalty.kind, penalty.escalation) == ("violation", True)
    assert suggest_escalation(pair, round1) is None
    with pytest.raises(ServiceError) as err:
        apply_escalation(pair, round1, referee)
    assert err.value.code == "no_escalation"


def test_an_escalated_foul_scores_at_the_table(round1, chief, referee) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = round1.tables.select_related("ns", "ew").get(number=1)
    pair = table.ew
    for _ in range(2):
        penalties.record_penalty(round1.tournament, pair, "violation", referee, table=table)
    apply_escalation(pair, round1, referee, table=table, expected_version=table.version)
    table = Table.objects.get(pk=table.pk)
    assert list(table.events.values_list("token", flat=True)) == ["foul:EW"]
    assert result_of(table).ns_level == 5
    penalties.record_penalty(round1.tournament, pair, "foul", referee, table=table)
    apply_escalation(pair, round1, referee, table=table, expected_version=table.version)
    table = Table.objects.get(pk=table.pk)
    assert (table.end_kind, table.end_side) == ("penalty_loss", "EW")


# --------------------------------------------------------------------------------------------
# record_foul: the score effect and the penalty record in one step


def _tokens(table: Table) -> list[str]:
    return list(table.events.order_by("position").values_list("token", flat=True))


def test_record_foul_writes_the_event_and_the_penalty_together(round1, chief, referee) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = round1.tables.select_related("ns", "ew").get(number=1)
    table = services.enter_event(table, "NS2", referee, table.version)
    table, penalty = penalties.record_foul(table, "EW", referee, table.version, reason="看牌")
    # RULES.md §3: the deal ends, the offender's side is scored 双下 (the innocent NS +3).
    assert _tokens(table) == ["NS2", "foul:EW"]
    assert result_of(table).ns_level == 2 + 2 + 3
    assert (penalty.pair, penalty.kind, penalty.deal, penalty.reason) == (
        table.ew,
        "foul",
        2,
        "看牌",
    )
    assert (penalty.round, penalty.table, penalty.referee) == (round1, table, referee)
    assert AuditEntry.objects.filter(action="penalty", table=table).count() == 1
    assert Table.objects.get(pk=table.pk).version == table.version


def test_record_foul_with_a_stale_version_stores_nothing(round1, chief, referee, referee2) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = round1.tables.select_related("ns", "ew").get(number=1)
    stale = table.version
    services.enter_event(table, "EW3", referee2, stale)  # somebody tapped meanwhile
    with pytest.raises(ServiceError) as err:
        penalties.record_foul(table, "NS", referee, stale)
    assert err.value.code == "conflict"
    assert _tokens(table) == ["EW3"]
    assert not Penalty.objects.exists()
    assert not AuditEntry.objects.filter(action="penalty").exists()


def test_record_foul_is_all_or_nothing(round1, chief, referee, outsider, monkeypatch) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = round1.tables.select_related("ns", "ew").get(number=1)
    with pytest.raises(ServiceError) as err:  # no role: neither written
        penalties.record_foul(table, "NS", outsider, table.version)
    assert err.value.code == "forbidden"
    with pytest.raises(ServiceError):
        penalties.record_foul(table, "XX", referee, table.version)

    def broken(*args, **kwargs):
        raise ServiceError("bad_penalty")

    # The penalty fails after the event was written: the event is rolled back with it.
    monkeypatch.setattr(penalties, "record_penalty", broken)
    with pytest.raises(ServiceError):
        penalties.record_foul(table, "NS", referee, table.version)
    assert _tokens(table) == [] and not Penalty.objects.exists()
    assert Table.objects.get(pk=table.pk).version == table.version


def test_record_foul_refused_where_a_deal_is_refused(round1, chief, referee, referee2) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = round1.tables.select_related("ns", "ew").get(number=1)
    eight = ["NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1"]
    for token in eight:
        table = services.enter_event(table, token, referee, table.version)
    with pytest.raises(ServiceError):  # a ninth "deal" in an 8-deal round
        penalties.record_foul(table, "NS", referee, table.version)
    table = services.confirm_table(table, referee2, table.version)
    with pytest.raises(ServiceError) as err:
        penalties.record_foul(table, "NS", referee, table.version)
    assert err.value.code == "table_confirmed"
    assert _tokens(table) == eight and not Penalty.objects.exists()


def test_two_fouls_suggest_a_penalty_loss(round1, chief, referee) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = round1.tables.select_related("ns", "ew").get(number=1)
    table, _ = penalties.record_foul(table, "NS", referee, table.version)
    assert suggest_escalation(table.ns, round1) is None
    table, _ = penalties.record_foul(table, "NS", referee, table.version, deal=7)
    assert Penalty.objects.filter(pair=table.ns, kind="foul").count() == 2
    assert list(Penalty.objects.order_by("pk").values_list("deal", flat=True)) == [1, 7]
    suggestion = suggest_escalation(table.ns, round1)
    assert (suggestion.kind, suggestion.because_of, suggestion.count) == ("penalty_loss", "foul", 2)
    apply_escalation(table.ns, round1, referee, table=table, expected_version=table.version)
    table = Table.objects.get(pk=table.pk)
    assert (table.end_kind, table.end_side) == ("penalty_loss", "NS")
