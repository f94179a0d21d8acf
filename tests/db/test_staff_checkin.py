"""Issue 15 part A, services: staff accounts in bulk and their tables, removing access, the
site organizer, check-in (签到), unpublishing a round, withdrawing a seated pair, late entries
and appeals (申诉, RULES.md §3)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.utils import timezone

from pairing import services as pairing_services
from scoring import services as scoring_services
from scoring.appeals import decide_appeal, lodge_appeal
from scoring.models import Appeal
from tests.support.tournament import NS_WINS, next_round, play_round, play_table
from tournaments import services as tournament_services
from tournaments.checkin import check_in, checkin_round, undo_check_in, withdraw_absent
from tournaments.errors import ForbiddenError, ServiceError
from tournaments.models import AuditEntry, CheckIn, Pair, Round, Table, TableAssignment
from tournaments.permissions import can_create_tournaments, has_role
from tournaments.staff import (
    assign_tables,
    assigned_range,
    create_staff_accounts,
    make_site_organizer,
    remove_staff,
    reset_staff_password,
)

# --- staff ---------------------------------------------------------------------------------


def test_bulk_accounts_get_the_role_a_working_password_and_consecutive_tables(
    tournament: Any, organizer: Any
) -> None:
    logins = create_staff_accounts(tournament, "referee", 3, organizer, tables_each=7)
    assert [login.username for login in logins] == [
        "autumn-open-r01",
        "autumn-open-r02",
        "autumn-open-r03",
    ]
    assert [(login.first_table, login.last_table) for login in logins] == [
        (1, 7),
        (8, 14),
        (15, 21),
    ]
    assert len({login.password for login in logins}) == 3
    for login in logins:
        user = authenticate(username=login.username, password=login.password)
        assert user is not None
        assert has_role(user, tournament, "referee")
        assert assigned_range(tournament, user) == (login.first_table, login.last_table)
    # A second batch skips the names taken and continues the tables.
    more = create_staff_accounts(tournament, "referee", 1, organizer, tables_each=5)
    assert more[0].username == "autumn-open-r04"
    assert (more[0].first_table, more[0].last_table) == (22, 26)
    assert AuditEntry.objects.filter(action="create_accounts").count() == 2


@pytest.mark.parametrize(
    ("role", "count", "prefix", "code"),
    [
        ("organizer", 1, "", "bad_role"),
        ("referee", 0, "", "account_count"),
        ("referee", 101, "", "account_count"),
        ("referee", 1, "bad prefix!", "bad_username_prefix"),
        ("referee", 1, "x\x00", "bad_username_prefix"),
    ],
)
def test_bulk_accounts_refuse_bad_input_and_make_nothing(
    tournament: Any, organizer: Any, role: str, count: int, prefix: str, code: str
) -> None:
    before = get_user_model().objects.count()
    with pytest.raises(ServiceError) as info:
        create_staff_accounts(tournament, role, count, organizer, prefix=prefix)
    assert info.value.code == code
    assert get_user_model().objects.count() == before


def test_only_organizers_make_accounts(tournament: Any, chief: Any) -> None:
    with pytest.raises(ForbiddenError):
        create_staff_accounts(tournament, "referee", 1, chief)


def test_assign_tables_and_take_them_back(tournament: Any, organizer: Any, referee: Any) -> None:
    assign_tables(tournament, referee, 5, 9, organizer)
    assert assigned_range(tournament, referee) == (5, 9)
    with pytest.raises(ServiceError) as info:
        assign_tables(tournament, referee, 9, 5, organizer)
    assert info.value.code == "bad_table_range"
    assert assigned_range(tournament, referee) == (5, 9)
    with pytest.raises(ServiceError) as info:
        assign_tables(tournament, organizer, 1, 2, organizer)
    assert info.value.code == "not_a_referee"
    assign_tables(tournament, referee, None, None, organizer)
    assert assigned_range(tournament, referee) is None


def test_remove_staff_takes_every_role_and_deactivates_a_bulk_account(
    tournament: Any, organizer: Any, referee: Any
) -> None:
    login = create_staff_accounts(tournament, "chief_referee", 1, organizer, tables_each=4)[0]
    account = get_user_model().objects.get(username=login.username)
    assert remove_staff(tournament, account, organizer) is True
    account.refresh_from_db()
    assert not account.is_active
    assert authenticate(username=login.username, password=login.password) is None
    assert not TableAssignment.objects.filter(user=account).exists()
    # An account with a role elsewhere keeps working there.
    other = tournament_services.create_tournament("别的赛事", "other", organizer)
    tournament_services.grant_role(other, referee, "referee", organizer)
    assert remove_staff(tournament, referee, organizer) is False
    referee.refresh_from_db()
    assert referee.is_active and not has_role(referee, tournament, "referee")
    with pytest.raises(ServiceError):
        remove_staff(tournament, organizer, organizer)


def test_reset_password_gives_a_new_slip_and_the_old_password_stops_working(
    tournament: Any, organizer: Any
) -> None:
    old = create_staff_accounts(tournament, "referee", 1, organizer, tables_each=6)[0]
    new = reset_staff_password(
        tournament, get_user_model().objects.get(username=old.username), organizer
    )
    assert (new.username, new.role, new.first_table, new.last_table) == (
        old.username,
        "referee",
        1,
        6,
    )
    assert new.password != old.password and len(new.password) == 10
    assert authenticate(username=old.username, password=old.password) is None
    assert authenticate(username=old.username, password=new.password) is not None
    entry = AuditEntry.objects.get(action="reset_password")
    assert entry.after == {"user": old.username} and entry.user == organizer


def test_reset_password_refuses_what_would_give_more_access_than_the_organizers_own(
    tournament: Any, organizer: Any, chief: Any, referee: Any, outsider: Any
) -> None:
    def refused(member: Any, by: Any = organizer) -> str:
        password = member.password
        with pytest.raises((ServiceError, ForbiddenError)) as info:
            reset_staff_password(tournament, member, by)
        member.refresh_from_db()
        assert member.password == password
        return getattr(info.value, "code", "forbidden")

    # Not staff here; oneself; only organizers reset.
    assert refused(outsider) == "not_a_referee"
    assert refused(organizer) == "cannot_reset_own_password"
    assert refused(referee, by=chief) == "forbidden"
    # Staff of a tournament this organizer does not run: the other organizer's account to keep.
    stranger = get_user_model().objects.create_user("stranger")
    other = tournament_services.create_tournament("别人的赛事", "theirs", stranger)
    tournament_services.grant_role(other, referee, "referee", stranger)
    assert refused(referee) == "cannot_reset_password"
    # An organizer of anything, or a site administrator, is never reset from here.
    tournament_services.grant_role(tournament, outsider, "chief_referee", organizer)
    outsider.is_staff = True
    outsider.save()
    assert refused(outsider) == "cannot_reset_password"
    # Staff of two of this organizer's own events: allowed.
    mine = tournament_services.create_tournament("我的第二个赛事", "mine-2", organizer)
    tournament_services.grant_role(mine, chief, "chief_referee", organizer)
    assert reset_staff_password(tournament, chief, organizer).role == "chief_referee"


def test_site_organizer_may_create_tournaments(db: Any) -> None:
    login, created = make_site_organizer("boss")
    assert created and len(login.password) == 10
    user = authenticate(username="boss", password=login.password)
    assert user is not None and can_create_tournaments(user)
    plain = get_user_model().objects.create_user("plain", password="x")
    assert not can_create_tournaments(plain)
    # The demo's "organizer" account: an organizer of a tournament may create another.
    tournament_services.create_tournament("一", "one", plain)
    assert can_create_tournaments(plain)


# --- check-in ------------------------------------------------------------------------------


def test_check_in_counts_for_the_coming_round_and_twice_is_no_error(
    tournament: Any, referee: Any, outsider: Any
) -> None:
    pair = Pair.objects.get(tournament=tournament, number=1)
    assert checkin_round(tournament) == 1
    row, created = check_in(pair, referee, via="qr")
    assert created and row.round_number == 1 and row.via == "qr"
    again, created = check_in(pair, referee)
    assert not created and again.pk == row.pk
    with pytest.raises(ForbiddenError):
        check_in(pair, outsider)
    undo_check_in(pair, referee)
    assert not CheckIn.objects.exists()
    with pytest.raises(ServiceError) as info:
        undo_check_in(pair, referee)
    assert info.value.code == "not_checked_in"


def test_withdraw_absent_withdraws_exactly_the_pairs_not_checked_in(
    tournament: Any, organizer: Any, referee: Any
) -> None:
    with pytest.raises(ServiceError) as info:
        withdraw_absent(tournament, organizer)
    assert info.value.code == "nobody_checked_in"
    for number in (1, 2, 3, 4, 5, 6):
        check_in(Pair.objects.get(tournament=tournament, number=number), referee)
    with pytest.raises(ForbiddenError):
        withdraw_absent(tournament, referee)
    assert withdraw_absent(tournament, organizer, "未签到") == [7, 8]
    statuses = dict(Pair.objects.filter(tournament=tournament).values_list("number", "status"))
    assert [n for n, s in statuses.items() if s == "withdrawn"] == [7, 8]
    rnd = pairing_services.generate_round(tournament, organizer)
    seated = {t.ns.number for t in rnd.tables.all()} | {
        t.ew.number for t in rnd.tables.all() if t.ew
    }
    assert seated == {1, 2, 3, 4, 5, 6}
    # Once the draft exists, the one-step withdrawal is refused.
    with pytest.raises(ServiceError) as info:
        withdraw_absent(tournament, organizer)
    assert info.value.code == "draw_exists"


def test_check_in_after_round_one_is_for_round_two(
    tournament: Any, round1: Round, organizer: Any, referee: Any
) -> None:
    assert checkin_round(tournament) == 2
    row, _created = check_in(Pair.objects.get(tournament=tournament, number=3), referee)
    assert row.round_number == 2


# --- rounds --------------------------------------------------------------------------------


def test_unpublish_while_no_result_then_refused_after_a_deal(
    tournament: Any, round1: Round, organizer: Any, referee: Any
) -> None:
    tokens = set(Table.objects.filter(round=round1).values_list("entry_token", flat=True))
    rnd = pairing_services.unpublish_round(round1, organizer)
    assert rnd.status == Round.Status.DRAFT and rnd.published_at is None
    assert not tokens & set(Table.objects.filter(round=rnd).values_list("entry_token", flat=True))
    tournament.refresh_from_db()
    assert tournament.status == "setup"
    assert AuditEntry.objects.filter(action="unpublish_round").exists()
    rnd = pairing_services.publish_round(rnd, organizer)
    table = Table.objects.filter(round=rnd, is_bye=False).first()
    scoring_services.enter_event(table, "NS3", referee, table.version)
    with pytest.raises(ServiceError) as info:
        pairing_services.unpublish_round(rnd, organizer)
    assert info.value.code == "round_has_results"
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.PUBLISHED


def test_unpublish_refused_for_a_lateness_start_alone(
    tournament: Any, round1: Round, organizer: Any, referee: Any
) -> None:
    table = Table.objects.filter(round=round1, is_bye=False).first()
    scoring_services.set_start_levels(table, 3, 2, referee, table.version)
    with pytest.raises(ServiceError) as info:
        pairing_services.unpublish_round(round1, organizer)
    assert info.value.code == "round_has_results"


@pytest.mark.parametrize("choice", ["forfeit", "play"])
def test_withdrawing_a_seated_pair_decides_its_table(
    tournament: Any, round1: Round, organizer: Any, referee: Any, chief: Any, choice: str
) -> None:
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    pair = table.ew
    pairing_services.withdraw_seated_pair(pair, organizer, choice, "生病")
    pair.refresh_from_db()
    table.refresh_from_db()
    assert pair.status == "withdrawn"
    if choice == "forfeit":
        assert (table.end_kind, table.end_side) == ("forfeit", "EW")
    else:
        assert table.end_kind == ""
    entry = AuditEntry.objects.filter(action="pair_status", table=table).get()
    assert entry.after["table"] == choice
    with pytest.raises(ServiceError) as info:
        pairing_services.withdraw_seated_pair(pair, organizer, "bogus")
    assert info.value.code == "bad_table_choice"


def test_a_late_entry_is_paired_from_the_next_round_on_zero(
    tournament: Any, round1: Round, organizer: Any, referee: Any, chief: Any
) -> None:
    from scoring.cache import cached_standings

    play_round(round1, referee, chief)
    pairing_services.finish_round(round1, organizer)
    rnd2 = next_round(tournament, organizer)
    play_round(rnd2, referee, chief)
    pairing_services.finish_round(rnd2, organizer)
    late = tournament_services.register_pair(tournament, ["晚到甲", "晚到乙"], organizer)
    standings = cached_standings(tournament, after_round=2)
    row = standings.rows_of({late.number})[late.number]
    assert row.cf == 0
    rnd3 = next_round(tournament, organizer)
    seats = {p for t in rnd3.tables.all() for p in (t.ns_id, t.ew_id)}
    assert late.pk in seats


# --- appeals -------------------------------------------------------------------------------


def test_appeal_window_fee_decision_and_who_decided(
    tournament: Any, round1: Round, organizer: Any, referee: Any, chief: Any
) -> None:
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    play_table(table, NS_WINS, referee, chief)
    appeal = lodge_appeal(tournament, table.ew, "第5副牌数有误", chief, table=table, fee="200")
    assert appeal.status == "pending" and str(appeal.fee) == "200.00"
    with pytest.raises(ServiceError) as info:
        other = Pair.objects.exclude(pk__in=table.pair_ids).filter(tournament=tournament).first()
        lodge_appeal(tournament, other, "不相干", chief, table=table)
    assert info.value.code == "appeal_pair"
    with pytest.raises(ForbiddenError):
        lodge_appeal(tournament, table.ew, "x", referee, table=table)
    decided = decide_appeal(appeal, "upheld", "牌数确有误，更正", "甲、乙、丙", chief)
    assert decided.fee_refunded and decided.decided_by == chief and decided.decided_at
    with pytest.raises(ServiceError) as info:
        decide_appeal(decided, "rejected", "x", "y", chief)
    assert info.value.code == "appeal_decided"
    # The 30 minutes run from the round's end.
    play_round_rest = Table.objects.filter(round=round1, is_bye=False).exclude(pk=table.pk)
    for other_table in play_round_rest:
        play_table(other_table, NS_WINS, referee, chief)
    finished = pairing_services.finish_round(round1, organizer)
    late = finished.finished_at + timedelta(minutes=31)
    with pytest.raises(ServiceError) as info:
        lodge_appeal(tournament, table.ns, "太晚", chief, table=table, now=late)
    assert info.value.code == "appeal_too_late"
    on_time = lodge_appeal(tournament, table.ns, "准时", chief, table=table, now=timezone.now())
    assert Appeal.objects.filter(pk=on_time.pk).exists()


@pytest.mark.parametrize("fee", ["-1", "abc", "NaN", "1e9", "Infinity"])
def test_appeal_refuses_a_bad_fee(tournament: Any, round1: Round, chief: Any, fee: str) -> None:
    table = Table.objects.filter(round=round1, is_bye=False).first()
    with pytest.raises(ServiceError) as info:
        lodge_appeal(tournament, table.ns, "x", chief, table=table, fee=fee)
    assert info.value.code == "bad_fee"
    assert not Appeal.objects.exists()
