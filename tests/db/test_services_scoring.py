"""Results: entry, undo, lateness, forfeit/判负, two-person confirmation, correction, standings."""

from __future__ import annotations

import pytest

from pairing import services as pairing_services
from scoring import penalties, services
from scoring.cache import cached_standings
from scoring.models import TableEvent
from tests.support.tournament import (
    NS_WINS,
    build_tournament,
    enter_tokens,
    next_round,
    play_round,
    result_of,
)
from tests.support.tournament import play_table as play
from tournaments.errors import ConflictError, ServiceError
from tournaments.models import AuditEntry, Round, Table


def _t1(rnd: Round) -> Table:
    return rnd.tables.select_related("ns", "ew").get(number=1)


def _tokens(table: Table) -> list[str]:
    return list(table.events.order_by("position").values_list("token", flat=True))


# --- entry ----------------------------------------------------------------------------------


def test_enter_event_appends_in_order_and_bumps_the_version(round1, chief, referee) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = _t1(round1)
    assert table.version == 0
    table = services.enter_event(table, "NS3", referee, 0)
    table = services.enter_event(table, "foul:EW", referee, 1)
    table = services.enter_event(table, "adjust:NS+2", referee, 2)
    assert table.version == 3
    assert _tokens(table) == ["NS3", "foul:EW", "adjust:NS+2"]
    event = table.events.get(position=0)
    assert (event.entered_by, event.entered_via) == (referee, "referee")
    result = result_of(Table.objects.get(pk=table.pk))
    assert (result.ns_level, result.ew_level) == (10, 2)


def test_a_stale_version_is_a_conflict_and_nothing_is_stored(round1, referee, referee2) -> None:
    table = _t1(round1)
    services.enter_event(table, "NS3", referee, 0)
    with pytest.raises(ConflictError) as err:
        services.enter_event(table, "EW3", referee2, 0)  # loaded before the first entry
    assert err.value.code == "conflict"
    assert err.value.message == "该桌成绩已被他人修改，请刷新后重试"
    assert _tokens(table) == ["NS3"]
    assert Table.objects.get(pk=table.pk).version == 1


def test_no_event_after_a_side_passed_a(round1, referee) -> None:
    table = enter_tokens(_t1(round1), ["NS3"] * 4 + ["NS2"], referee)  # 2→5→8→J→A→过A
    assert result_of(table).passed_a == "NS"
    with pytest.raises(ServiceError) as err:
        services.enter_event(table, "EW1", referee, table.version)
    assert err.value.code == "event_after_past_a"
    assert err.value.params["position"] == 6
    assert err.value.message.startswith("第6条记录: ")
    assert table.events.count() == 5


def test_no_more_deals_than_the_round_allows(round1, chief, referee) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = enter_tokens(_t1(round1), ["NS1", "EW1"] * 4, referee)
    with pytest.raises(ServiceError) as err:
        services.enter_event(table, "NS1", referee, table.version)
    assert err.value.code == "too_many_deals"
    assert err.value.params["limit"] == 8
    # A level award is not a deal (TOURNAMENT_FILE.md "Deals").
    services.enter_event(table, "adjust:EW+2", referee, table.version)


def test_a_bad_token_is_refused(round1, referee) -> None:
    with pytest.raises(ServiceError) as err:
        services.enter_event(_t1(round1), "NS4", referee, 0)
    assert err.value.code == "bad_token"
    assert not TableEvent.objects.exists()


def test_entry_needs_a_published_round_and_a_referee(tournament, organizer, referee, outsider):
    draft = pairing_services.generate_round(tournament, organizer)
    with pytest.raises(ServiceError) as err:
        services.enter_event(_t1(draft), "NS3", referee, 0)
    assert err.value.code == "round_not_published"
    pairing_services.publish_round(draft, organizer)
    for user in (outsider, organizer):
        with pytest.raises(ServiceError) as err:
            services.enter_event(_t1(draft), "NS3", user, 0)
        assert err.value.code == "forbidden"
    # Table-side entry (South, no account, proved by its pair code): the view checked the link.
    services.enter_event(_t1(draft), "NS3", None, 0, via="table", pair=_t1(draft).ns)
    assert TableEvent.objects.get().entered_via == "table"


def test_undo_before_entered_is_silent_after_entered_is_audited(round1, referee) -> None:
    table = enter_tokens(_t1(round1), ["NS3"], referee)
    table = services.undo_last_event(table, referee, table.version)
    assert _tokens(table) == []
    with pytest.raises(ServiceError) as err:
        services.undo_last_event(table, referee, table.version)
    assert err.value.code == "no_events"
    assert not AuditEntry.objects.filter(table=table).exists()
    table = enter_tokens(table, NS_WINS, referee)
    table = services.mark_entered(table, referee, table.version)
    table = services.undo_last_event(table, referee, table.version)
    assert table.entry_status == Table.EntryStatus.OPEN  # back to entry
    entry = AuditEntry.objects.get(table=table, action="undo_event")
    assert entry.before["deals"] == NS_WINS and entry.after["deals"] == NS_WINS[:-1]
    assert entry.user == referee


def test_mark_entered_needs_a_complete_match(round1, referee) -> None:
    table = enter_tokens(_t1(round1), NS_WINS[:5], referee)
    with pytest.raises(ServiceError) as err:
        services.mark_entered(table, referee, table.version)
    assert err.value.code == "too_few_deals"
    assert err.value.params == {"deals": 5, "required": 8}


def test_lateness_start_levels_and_a_forfeit(round1, referee, referee2) -> None:
    tables = list(round1.tables.order_by("number"))
    late = services.set_start_levels(tables[0], 2, 4, referee, 0)  # NS 5–10 min late
    late = enter_tokens(late, ["EW1"], referee)
    assert result_of(late).ew_level == 5
    with pytest.raises(ServiceError) as err:
        services.set_start_levels(late, 1, 2, referee, late.version)
    assert err.value.code == "bad_start"
    forfeit = services.set_end(tables[1], "forfeit", "ew", referee, 0)
    with pytest.raises(ServiceError) as err:
        services.enter_event(forfeit, "NS3", referee, forfeit.version)
    assert err.value.code == "table_ended"
    forfeit = services.mark_entered(forfeit, referee, forfeit.version)
    forfeit = services.confirm_table(forfeit, referee2, forfeit.version)
    result = result_of(forfeit)
    assert (result.ns_cf, result.ns_jcf, result.ew_cf, result.ew_jcf) == (2, 17, 0, 0)


def test_penalty_loss_end_after_the_listed_deals(round1, chief, referee) -> None:
    referee = chief  # RULES.md §3: fouls, 判负, deductions and level awards are the chief referee's
    table = enter_tokens(_t1(round1), ["EW3", "EW3"], referee)  # EW at 8
    table = services.set_end(table, "penalty_loss", "EW", referee, table.version)
    result = result_of(table)
    assert result.penalty_loss == "EW" and result.winner == "NS"
    assert (result.ns_level, result.ew_level) == (12, 8)  # RULES.md §2: offender's level + 4
    with pytest.raises(ServiceError) as err:
        services.set_end(table, "surrender", "EW", referee, table.version)
    assert err.value.code == "bad_end"


# --- confirmation ---------------------------------------------------------------------------


def test_two_person_rule_the_enterer_cannot_confirm(round1, referee, referee2, chief) -> None:
    table = play(_t1(round1), NS_WINS, referee, None, confirm=False)
    with pytest.raises(ServiceError) as err:
        services.confirm_table(table, referee, table.version)
    assert err.value.code == "same_person"
    table = services.confirm_table(table, referee2, table.version)
    assert table.entry_status == Table.EntryStatus.CONFIRMED
    assert (table.confirmed_by, table.confirmed_via) == (referee2, "referee")
    assert AuditEntry.objects.filter(table=table, action="confirm", user=referee2).exists()
    with pytest.raises(ServiceError) as err:
        services.enter_event(table, "NS1", referee, table.version)
    assert err.value.code == "table_confirmed"
    with pytest.raises(ServiceError) as err:
        services.undo_last_event(table, chief, table.version)
    assert err.value.code == "table_confirmed"


def test_whoever_set_the_start_or_end_counts_as_an_enterer(round1, referee, referee2) -> None:
    table = services.set_end(_t1(round1), "forfeit", "NS", referee2, 0)
    table = services.mark_entered(table, referee, table.version)
    for user in (referee, referee2):
        with pytest.raises(ServiceError) as err:
            services.confirm_table(table, user, table.version)
        assert err.value.code == "same_person"


def test_confirm_needs_a_complete_match(round1, referee, referee2) -> None:
    table = enter_tokens(_t1(round1), ["NS3"], referee)
    with pytest.raises(ServiceError) as err:
        services.confirm_table(table, referee2, table.version)
    assert err.value.code == "too_few_deals"


def test_table_side_entry_by_south_and_confirmation_by_west_with_the_pair_code(round1) -> None:
    table = _t1(round1)
    for token in NS_WINS:
        table = services.enter_event(table, token, None, table.version, via="table", pair=table.ns)
    with pytest.raises(ServiceError) as err:
        services.confirm_table_by_pair_code(table, table.ew.code)
    assert err.value.code == "table_not_entered"
    table = services.mark_entered(table, None, table.version, via="table", pair=table.ns)
    for wrong in ("", "ABCDEF"):
        with pytest.raises(ServiceError) as err:
            services.confirm_table_by_pair_code(table, wrong)
        assert err.value.code == "bad_pair_code"
    with pytest.raises(ServiceError) as err:  # North–South cannot confirm its own entry
        services.confirm_table_by_pair_code(table, table.ns.code)
    assert err.value.code == "confirmer_entered"
    table = services.confirm_table_by_pair_code(table, table.ew.code.lower(), table.version)
    assert table.entry_status == Table.EntryStatus.CONFIRMED
    assert (table.confirmed_by, table.confirmed_via) == (None, "table")
    assert AuditEntry.objects.get(table=table, action="confirm").actor == "table:EW"


# --- correction ------------------------------------------------------------------------------


def test_correction_is_for_the_chief_with_a_reason_and_is_audited(
    round1, referee, referee2, chief, organizer
) -> None:
    table = play(_t1(round1), NS_WINS, referee, referee2)
    before = cached_standings(round1.tournament)
    ns_row = next(r for r in before if r.pair == table.ns.number)
    assert ns_row.cf == 2
    corrected = ["EW3", "EW3", "EW3", "EW3", "EW2"]  # EW passes A
    for user in (referee, referee2, organizer):
        with pytest.raises(ServiceError) as err:
            services.correct_result(table, corrected, None, None, user, "抄错")
        assert err.value.code == "forbidden"
    with pytest.raises(ServiceError) as err:
        services.correct_result(table, corrected, None, None, chief, "  ")
    assert err.value.code == "reason_required"
    with pytest.raises(ServiceError) as err:
        services.correct_result(table, [*corrected, "NS1"], None, None, chief, "抄错")
    assert err.value.code == "event_after_past_a"
    table = services.correct_result(table, corrected, None, None, chief, "记分表抄错")
    assert _tokens(table) == corrected
    assert table.entry_status == Table.EntryStatus.CONFIRMED
    entry = AuditEntry.objects.get(table=table, action="correct")
    assert (entry.user, entry.reason) == (chief, "记分表抄错")
    assert entry.before["deals"] == NS_WINS and entry.after["deals"] == corrected
    after = cached_standings(round1.tournament)
    assert next(r for r in after if r.pair == table.ns.number).cf == 0
    assert next(r for r in after if r.pair == table.ew.number).cf == 2


def test_correction_needs_a_confirmed_table(round1, chief) -> None:
    with pytest.raises(ServiceError) as err:
        services.correct_result(_t1(round1), NS_WINS, None, None, chief, "x")
    assert err.value.code == "table_not_confirmed"


def test_correction_after_the_next_round_is_published_leaves_that_pairing(
    tournament, organizer, referee, referee2, chief
) -> None:
    rnd1 = next_round(tournament, organizer)
    play_round(rnd1, referee, referee2)
    pairing_services.finish_round(rnd1, organizer)
    rnd2 = next_round(tournament, organizer)
    pairing = list(rnd2.tables.order_by("number").values_list("number", "ns_id", "ew_id"))
    versions = list(rnd2.tables.order_by("number").values_list("version", flat=True))
    table = _t1(rnd1)
    services.correct_result(table, ["EW3"] * 4 + ["EW2"], {"ns": 2, "ew": 2}, None, chief, "更正")
    # RULES.md §5: 成绩更正不改变已公布的编排.
    assert list(rnd2.tables.order_by("number").values_list("number", "ns_id", "ew_id")) == pairing
    assert list(rnd2.tables.order_by("number").values_list("version", flat=True)) == versions
    assert Round.objects.get(pk=rnd2.pk).status == Round.Status.PUBLISHED


def test_correction_can_set_a_start_and_an_end(round1, referee, referee2, chief) -> None:
    table = play(_t1(round1), NS_WINS, referee, referee2)
    table = services.correct_result(
        table, ["NS3"], (2, 3), {"penalty_loss": "ns"}, chief, "判负漏记"
    )
    assert (table.start_ns, table.start_ew, table.end_kind, table.end_side) == (
        2,
        3,
        "penalty_loss",
        "NS",
    )
    assert result_of(table).winner == "EW"


# --- standings --------------------------------------------------------------------------------


def test_standings_count_confirmed_tables_only(round1, referee, referee2) -> None:
    tables = list(round1.tables.order_by("number"))
    play(tables[0], NS_WINS, referee, referee2)
    play(tables[1], NS_WINS, referee, referee2, confirm=False)  # entered, not confirmed
    rows = cached_standings(round1.tournament)
    by_pair = {r.pair: r for r in rows}
    assert by_pair[tables[0].ns.number].cf == 2
    assert by_pair[tables[1].ns.number].cf == 0
    assert len(rows) == 8


def test_standings_cache_is_invalidated_by_a_confirmation(
    round1, referee, referee2, django_assert_max_num_queries
) -> None:
    tables = list(round1.tables.order_by("number"))
    play(tables[0], NS_WINS, referee, referee2)
    first = cached_standings(round1.tournament)
    with django_assert_max_num_queries(1):  # a hit reads the version only
        assert cached_standings(round1.tournament) == first
    play(tables[1], NS_WINS, referee, referee2)
    assert cached_standings(round1.tournament) != first


def test_byes_and_deductions_count(organizer, chief, referee, referee2) -> None:
    t = build_tournament(organizer, chief, [referee, referee2], n_pairs=7, slug="odd")
    rnd = next_round(t, organizer)
    bye = rnd.tables.get(is_bye=True)
    rows = {r.pair: r for r in cached_standings(t)}
    assert (rows[bye.ns.number].cf, rows[bye.ns.number].jcf) == (2, 17)
    penalties.record_penalty(t, bye.ns, "deduction", chief, jcf=1, reason="越序抓牌", round=rnd)
    rows = {r.pair: r for r in cached_standings(t)}
    assert (rows[bye.ns.number].jcf, rows[bye.ns.number].deductions) == (16, 1)


def _tournament_with_results(organizer, chief, referee, referee2, n_pairs, slug):
    t = build_tournament(organizer, chief, [referee, referee2], n_pairs=n_pairs, slug=slug)
    for _ in range(2):
        rnd = next_round(t, organizer)
        play_round(rnd, referee, referee2)
        pairing_services.finish_round(rnd, organizer)
    return t


@pytest.mark.parametrize("n_pairs", [8, 40])
def test_standings_take_a_bounded_number_of_queries(
    organizer, chief, referee, referee2, n_pairs, django_assert_max_num_queries
) -> None:
    t = _tournament_with_results(organizer, chief, referee, referee2, n_pairs, f"q{n_pairs}")
    penalties.record_penalty(t, t.pairs.first(), "deduction", chief, jcf=1)
    from django.core.cache import cache

    cache.clear()
    # The results version, the latest round, the inputs' versions (3), the computation (4).
    with django_assert_max_num_queries(9):
        rows = cached_standings(t)
    assert len(rows) == n_pairs
    assert sum(r.wins for r in rows) == n_pairs  # 2 rounds, one winner per table
    cache.clear()
    with django_assert_max_num_queries(8):
        cached_standings(t, after_round=1)


def test_standings_match_the_pure_engine_on_the_same_data(
    tournament, organizer, referee, referee2
) -> None:
    from scoring.engine import match_outcomes, score_match
    from scoring.standings import compute_standings

    rnd = next_round(tournament, organizer)
    play_round(rnd, referee, referee2, lambda t: ["EW2", "NS1"] * 4 if t.number % 2 else NS_WINS)
    rules = tournament.rules
    outcomes = []
    for table in rnd.tables.select_related("ns", "ew"):
        result = score_match(_tokens(table), rules)
        outcomes.extend(match_outcomes(1, table.ns.number, table.ew.number, result))
    pure = compute_standings(list(range(1, 9)), outcomes, [], "regulation", rules.seed, 1)
    assert cached_standings(tournament) == pure
