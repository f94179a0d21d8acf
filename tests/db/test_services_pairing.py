"""Round life cycle: draft → published → finished, the Swiss engine behind it, manual swaps."""

from __future__ import annotations

import pytest

from pairing import services
from tests.support.tournament import build_tournament, next_round, play_round, play_table
from tournaments import services as tournament_services
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Round, Seat, Table


def _draw(rnd: Round) -> list[tuple[int, int, int | None]]:
    return [
        (t.number, t.ns.number, t.ew.number if t.ew_id else None)
        for t in rnd.tables.select_related("ns", "ew").order_by("number")
    ]


def _met(tournament) -> set[frozenset[int]]:
    return {
        frozenset((ns, ew))
        for ns, ew in Table.objects.filter(round__tournament=tournament, is_bye=False).values_list(
            "ns__number", "ew__number"
        )
    }


def test_round_one_is_a_draft_by_lot_with_every_pair_seated_once(tournament, organizer) -> None:
    rnd = services.generate_round(tournament, organizer)
    assert (rnd.number, rnd.status, rnd.seed) == (1, Round.Status.DRAFT, 20261129)
    draw = _draw(rnd)
    assert len(draw) == 4
    seated = [p for _, ns, ew in draw for p in (ns, ew)]
    assert sorted(seated) == list(range(1, 9))
    assert Seat.objects.filter(round=rnd).count() == 8
    assert all(t.reasons for t in rnd.tables.all())
    assert AuditEntry.objects.filter(action="generate_round", round=rnd).exists()


def test_round_one_draw_is_reproducible_from_the_seed(organizer, chief, referee) -> None:
    a = build_tournament(organizer, chief, [referee], slug="a")
    b = build_tournament(organizer, chief, [referee], slug="b")
    assert _draw(services.generate_round(a, organizer)) == _draw(
        services.generate_round(b, organizer)
    )


def test_same_unit_pairs_avoid_each_other_in_round_one(tournament, organizer) -> None:
    rnd = services.generate_round(tournament, organizer)
    for table in rnd.tables.select_related("ns", "ew"):
        assert table.ns.unit_id != table.ew.unit_id
    assert rnd.draw_info["same_unit_meetings"] == 0


def test_no_second_round_while_a_draft_or_unfinished_round_exists(
    tournament, organizer, referee, referee2
) -> None:
    rnd = services.generate_round(tournament, organizer)
    with pytest.raises(ServiceError) as err:
        services.generate_round(tournament, organizer)
    assert err.value.code == "round_in_progress"
    services.publish_round(rnd, organizer)
    with pytest.raises(ServiceError) as err:
        services.generate_round(tournament, organizer)
    assert err.value.code == "round_in_progress"
    assert Round.objects.filter(tournament=tournament).count() == 1


def test_finish_needs_every_table_confirmed(round1, organizer, referee, referee2) -> None:
    tables = list(round1.tables.order_by("number"))
    play_table(tables[0], ["NS3"] * 4 + ["NS1"] * 4, referee, referee2)
    with pytest.raises(ServiceError) as err:
        services.finish_round(round1, organizer)
    assert err.value.code == "round_not_finishable"
    assert err.value.params == {"count": 3}
    for table in tables[1:]:
        play_table(table, ["EW2"] * 7, referee, referee2)  # EW passes A in the 7th deal
    done = services.finish_round(round1, organizer)
    assert done.status == Round.Status.FINISHED and done.finished_at is not None
    with pytest.raises(ServiceError) as err:
        services.finish_round(round1, organizer)
    assert err.value.code == "round_not_published"


def test_publish_only_a_draft_and_only_by_organizers_or_chief(
    tournament, organizer, referee
) -> None:
    rnd = services.generate_round(tournament, organizer)
    with pytest.raises(ServiceError) as err:
        services.publish_round(rnd, referee)
    assert err.value.code == "forbidden"
    services.publish_round(rnd, organizer)
    tournament.refresh_from_db()
    assert tournament.status == tournament.Status.RUNNING
    with pytest.raises(ServiceError) as err:
        services.publish_round(rnd, organizer)
    assert err.value.code == "round_not_draft"


def test_later_rounds_are_swiss_from_confirmed_results_without_rematches(
    tournament, organizer, referee, referee2
) -> None:
    for number in range(1, 5):
        rnd = next_round(tournament, organizer)
        assert rnd.number == number
        play_round(rnd, referee, referee2)
        services.finish_round(rnd, organizer)
    # 4 rounds × 4 tables, every meeting different.
    assert len(_met(tournament)) == 16
    rnd5 = services.generate_round(tournament, organizer)
    top = rnd5.tables.select_related("ns", "ew").get(number=1)
    from scoring.cache import cached_standings as standings

    leader = standings(tournament, after_round=4)[0].pair
    assert leader in (top.ns.number, top.ew.number)  # table 1 is the top table
    assert len(_met(tournament)) == 20  # round 5's four meetings are all new
    assert rnd5.tables.count() == 4 and all(t.reasons for t in rnd5.tables.all())


def test_withdrawn_and_disqualified_pairs_are_not_paired_and_an_odd_field_gets_a_bye(
    tournament, organizer, chief, referee, referee2
) -> None:
    rnd = next_round(tournament, organizer)
    play_round(rnd, referee, referee2)
    services.finish_round(rnd, organizer)
    tournament_services.withdraw_pair(tournament.pairs.get(number=1), organizer)
    tournament_services.disqualify_pair(tournament.pairs.get(number=2), organizer)
    tournament_services.withdraw_pair(tournament.pairs.get(number=3), organizer)
    rnd2 = services.generate_round(tournament, organizer)
    draw = _draw(rnd2)
    seated = {p for _, ns, ew in draw for p in (ns, ew) if p is not None}
    assert seated == {4, 5, 6, 7, 8}
    bye = rnd2.tables.get(is_bye=True)
    assert bye.ew_id is None and bye.entry_status == Table.EntryStatus.CONFIRMED
    assert bye.number == 3
    assert Seat.objects.get(round=rnd2, pair=bye.ns).direction == Seat.Direction.BYE
    assert rnd2.draw_info["bye"] == bye.ns.number


def test_swap_pairs_in_a_draft_is_audited_and_warns_of_a_rematch(
    tournament, organizer, referee, referee2
) -> None:
    rnd = next_round(tournament, organizer)
    play_round(rnd, referee, referee2)
    services.finish_round(rnd, organizer)
    first = rnd.tables.select_related("ns", "ew").get(number=1)
    rnd2 = services.generate_round(tournament, organizer)
    # Put round 1's table-1 opponents together again.
    a, b = first.ns, first.ew
    seat_b = Seat.objects.select_related("table__ns", "table__ew").get(round=rnd2, pair=b)
    partner_of_a = Seat.objects.select_related("table").get(round=rnd2, pair=a).table
    victim = partner_of_a.ew if partner_of_a.ns_id == a.pk else partner_of_a.ns
    # The engine never pairs a rematch, so round 1's opponents sit at different tables.
    assert seat_b.table_id != partner_of_a.pk
    warnings = services.swap_pairs(rnd2, victim, b, organizer)
    assert "rematch" in [w.code for w in warnings]
    assert "已经交手过" in warnings[0].message or any("交手" in w.message for w in warnings)
    table = Table.objects.get(pk=partner_of_a.pk)
    assert {table.ns_id, table.ew_id} == {a.pk, b.pk}
    assert table.reasons == [{"code": "manual_swap", "params": {}}]
    assert Seat.objects.filter(round=rnd2).count() == 8
    entry = AuditEntry.objects.get(action="swap_pairs", round=rnd2)
    assert entry.after["warnings"] == [w.code for w in warnings]
    services.publish_round(rnd2, organizer)
    with pytest.raises(ServiceError) as err:
        services.swap_pairs(rnd2, a, b, organizer)
    assert err.value.code == "round_not_draft"


def test_swap_within_one_table_turns_directions(tournament, organizer) -> None:
    rnd = services.generate_round(tournament, organizer)
    table = rnd.tables.get(number=1)
    ns, ew = table.ns, table.ew
    assert services.swap_pairs(rnd, ns, ew, organizer) == []
    table.refresh_from_db()
    assert (table.ns_id, table.ew_id) == (ew.pk, ns.pk)
    assert Seat.objects.get(round=rnd, pair=ns).direction == "EW"


def test_delete_draft_keeps_the_audit_trail(tournament, organizer) -> None:
    rnd = services.generate_round(tournament, organizer)
    t1 = rnd.tables.get(number=1)
    services.swap_pairs(rnd, t1.ns, t1.ew, organizer)
    services.delete_draft(rnd, organizer)
    assert not Round.objects.filter(tournament=tournament).exists()
    entries = AuditEntry.objects.filter(tournament=tournament, round_number=1)
    assert {e.action for e in entries} >= {"generate_round", "swap_pairs", "delete_draft"}
    assert all(e.round_id is None for e in entries)
    again = services.generate_round(tournament, organizer)
    assert again.number == 1


def test_planned_rounds_limit_generation(organizer, chief, referee) -> None:
    from rules.ruleset import preset_settings

    settings = {**preset_settings("regulation"), "rounds": 1, "seed": 7}
    t = build_tournament(organizer, chief, [referee], slug="short", settings=settings)
    rnd = next_round(t, organizer)
    play_round(rnd, referee, chief)
    services.finish_round(rnd, organizer)
    t.refresh_from_db()
    assert t.status == t.Status.FINISHED
    with pytest.raises(ServiceError) as err:
        services.generate_round(t, organizer)
    assert err.value.code == "rounds_complete"


def test_a_pairing_error_becomes_a_service_error(organizer, chief, referee) -> None:
    t = build_tournament(organizer, chief, [referee], n_pairs=1, slug="lonely")
    with pytest.raises(ServiceError) as err:
        services.generate_round(t, organizer)
    assert err.value.code == "not_enough_pairs"
    assert not Round.objects.filter(tournament=t).exists()
