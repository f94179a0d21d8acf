"""Penalties (RULES.md §3): the record, disqualification, and escalation suggestions."""

from __future__ import annotations

import pytest

from pairing import services as pairing_services
from pairing.models import Seat, Table
from scoring import services
from scoring.models import AuditEntry, Penalty
from scoring.penalties import apply_escalation, escalation_from_counts, suggest_escalation
from tests.db.conftest import next_round, play_round
from tournaments.models import Pair
from tournaments.services import ServiceError


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


def test_record_penalty_is_audited_and_validated(round1, referee, outsider) -> None:
    table = round1.tables.select_related("ns", "ew").get(number=1)
    t = round1.tournament
    p = services.record_penalty(
        t, table.ns, "foul", referee, reason="越序出牌", table=table, deal=4
    )
    assert (p.round, p.referee, p.referee_name) == (round1, referee, "referee")
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
            services.record_penalty(t, user=referee, **kwargs)
        assert err.value.code == code
    with pytest.raises(ServiceError) as err:
        services.record_penalty(t, table.ns, "warning", outsider)
    assert err.value.code == "forbidden"


def test_a_disqualification_penalty_stops_the_pair_being_paired(
    tournament, organizer, chief, referee, referee2
) -> None:
    rnd = next_round(tournament, organizer)
    play_round(rnd, referee, referee2)
    pairing_services.finish_round(rnd, organizer)
    pair = tournament.pairs.get(number=4)
    services.record_penalty(tournament, pair, "disqualification", chief, reason="严重违规")
    assert Pair.objects.get(pk=pair.pk).status == Pair.Status.DISQUALIFIED
    rnd2 = pairing_services.generate_round(tournament, organizer)
    assert not Seat.objects.filter(round=rnd2, pair=pair, direction__in=["NS", "EW"]).exists()
    # Its results so far stand.
    rows = {r.pair: r for r in services.standings(tournament, after_round=1)}
    assert rows[4].wins + rows[4].losses + rows[4].draws == 1


def test_two_warnings_suggest_a_violation_applied_only_on_confirmation(round1, referee) -> None:
    table = round1.tables.select_related("ns", "ew").get(number=1)
    pair = table.ns
    services.record_penalty(round1.tournament, pair, "warning", referee, table=table)
    assert suggest_escalation(pair, round1) is None
    services.record_penalty(round1.tournament, pair, "warning", referee, table=table)
    suggestion = suggest_escalation(pair, round1)
    assert (suggestion.kind, suggestion.because_of, suggestion.count) == ("violation", "warning", 2)
    assert not Penalty.objects.filter(kind="violation").exists()  # only suggested
    penalty = apply_escalation(pair, round1, referee, table=table)
    assert (penalty.kind, penalty.escalation) == ("violation", True)
    assert suggest_escalation(pair, round1) is None
    with pytest.raises(ServiceError) as err:
        apply_escalation(pair, round1, referee)
    assert err.value.code == "no_escalation"


def test_an_escalated_foul_scores_at_the_table(round1, referee) -> None:
    table = round1.tables.select_related("ns", "ew").get(number=1)
    pair = table.ew
    for _ in range(2):
        services.record_penalty(round1.tournament, pair, "violation", referee, table=table)
    apply_escalation(pair, round1, referee, table=table, expected_version=table.version)
    table = Table.objects.get(pk=table.pk)
    assert list(table.events.values_list("token", flat=True)) == ["foul:EW"]
    assert services.table_result(table).ns_level == 5
    services.record_penalty(round1.tournament, pair, "foul", referee, table=table)
    apply_escalation(pair, round1, referee, table=table, expected_version=table.version)
    table = Table.objects.get(pk=table.pk)
    assert (table.end_kind, table.end_side) == ("penalty_loss", "EW")
