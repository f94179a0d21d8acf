"""RULES.md §8 at the referee's sheet: a best-of-three knockout match entered deal by deal
through the services — game 2 opens by itself from 2 : 2 once game 1 is over, the extra deal is
offered only when the levels are equal after the last regular deal, the sheet says who leads
the match, nothing may follow the deciding game, and the sheet can be submitted only when the
match is decided (then the two-person rule as for any table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reports.fileio import import_tournament
from scoring import services
from scoring.views.common import sheet_of
from tournaments.errors import ServiceError
from tournaments.models import Game, Table

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data" / "stages"


@pytest.fixture
def final_table():
    data = json.loads((DATA / "knockout.json").read_text(encoding="utf-8"))
    last = data["rounds"][2]
    last["status"] = "published"
    for table in last["tables"]:
        table["games"] = []
    tournament = import_tournament(data, slug="ko-live")
    return Table.objects.select_related("round__tournament", "ns", "ew").get(
        round__tournament=tournament, round__number=3, number=1
    )


def enter(table, *tokens):
    for token in tokens:
        table = services.enter_event(table, token, None, table.version)
    return table


def sheet(table):
    fresh = Table.objects.select_related("round__tournament", "ns", "ew").get(pk=table.pk)
    return sheet_of(fresh, fresh.round.tournament.rules)


def refused(code, write):
    with pytest.raises(ServiceError) as caught:
        write()
    assert caught.value.code == code


def test_a_best_of_three_final_entered_deal_by_deal(final_table):
    table = enter(final_table, "EW3", "EW3")  # game 1: East–West 8 : 2 after its two deals
    state = sheet(table).match
    assert (state.game, state.ns_games, state.ew_games, state.leader) == (1, 0, 1, "EW")
    assert not sheet(table).finished  # the match goes on: the next deal opens game 2
    refused("match_not_decided", lambda: services.mark_entered(table, None, table.version))

    table = enter(table, "NS2", "EW2")  # game 2 from 2 : 2, level at 4 : 4 after two deals
    current = sheet(table)
    assert current.match.game == 2 and (current.ns_level, current.ew_level) == ("4", "4")
    assert current.extra_deal_next  # offered: levels equal after the last regular deal
    table = enter(table, "NS1")  # the extra deal decides game 2
    state = sheet(table).match
    assert (state.ns_games, state.ew_games, state.leader) == (1, 1, "")
    assert [(g.ns_level, g.ew_level, g.winner) for g in state.games] == [
        ("2", "8", "EW"),
        ("5", "4", "NS"),
    ]

    table = enter(table, "NS3")
    assert not sheet(table).extra_deal_next  # 5 : 2 after one deal of game 3: no extra deal
    table = enter(table, "NS1")  # game 3: North–South 6 : 2, the match 2 : 1
    final = sheet(table)
    assert final.finished and final.match.winner == "NS"
    refused("match_decided", lambda: enter(table, "NS3"))
    assert list(
        Game.objects.filter(table=table).order_by("number").values_list("number", "first_position")
    ) == [(2, 2), (3, 5)]

    table = services.undo_last_event(table, None, table.version)
    assert not sheet(table).finished
    table = enter(table, "NS1")
    table = services.mark_entered(table, None, table.version)
    table = services.confirm_table(table, None, table.version)
    assert table.is_confirmed


def test_undo_reopens_the_previous_game(final_table):
    table = enter(final_table, "EW3", "EW3", "NS2")  # game 2 opened by its first deal
    assert Game.objects.filter(table=table).count() == 1
    table = services.undo_last_event(table, None, table.version)  # the deal of game 2
    table = services.undo_last_event(table, None, table.version)  # game 2 itself
    assert Game.objects.filter(table=table).count() == 0
    assert sheet(table).match.game == 1


def test_start_game_closes_a_decided_game_only(final_table):
    # Closing game 1 before its deals are played: the engine refuses the incomplete game.
    refused("too_few_deals", lambda: services.start_game(final_table, None, final_table.version))
    table = enter(final_table, "EW3", "EW3")
    table = services.start_game(table, None, table.version)
    assert Game.objects.filter(table=table).count() == 1
    refused("too_few_deals", lambda: services.start_game(table, None, table.version))


# -- a timed knockout game tied when time is called (RULES.md §2 "Level tie", issue 14) ---------


def _timed_final(best_of: int, round_format: str = "timed", deals: int = 2):
    data = json.loads((DATA / "knockout.json").read_text(encoding="utf-8"))
    stage = data["settings"]["stages"][0]
    stage.update({"round_format": round_format, "best_of": best_of, "deals_per_round": deals})
    if best_of == 1:
        for rnd in data["rounds"]:
            for table in rnd["tables"]:
                if "games" in table:
                    table["deals"] = table.pop("games")[-1]["deals"]
    last = data["rounds"][2]
    last["status"] = "published"
    for table in last["tables"]:
        table.pop("deals", None)
        if best_of > 1:
            table["games"] = []
    tournament = import_tournament(data, slug=f"timed-{best_of}-{round_format}")
    return Table.objects.select_related("round__tournament", "ns", "ew").get(
        round__tournament=tournament, round__number=3, number=1
    )


def test_time_called_on_equal_levels_plays_the_extra_deal(db):
    table = _timed_final(best_of=3)
    table = enter(table, "NS2", "EW2")  # 4 : 4 when time is called
    state = sheet(table)
    assert state.match.may_call_time and not state.match.may_close_game
    assert not state.closable and not state.extra_deal_next
    # Closing the game as if it were decided is refused: the levels are equal.
    refused("game_not_decided", lambda: services.start_game(table, None, table.version))
    table = services.call_time(table, None, table.version)
    assert Table.objects.get(pk=table.pk).time_deals == 2
    state = sheet(table)
    assert state.extra_deal_next and not state.match.may_call_time  # the extra deal, only it
    refused("time_already_called", lambda: services.call_time(table, None, table.version))
    table = enter(table, "EW1")  # the extra deal decides game 1 for East–West
    state = sheet(table)
    assert state.rows[-1].extra and state.match.ew_games == 1
    # The next deal opens game 2; its time call is the game row's.
    table = enter(table, "NS3", "EW3")  # game 2 level at 5 : 5
    table = services.call_time(table, None, table.version)
    assert list(Game.objects.filter(table=table).values_list("number", "time_deals")) == [(2, 2)]
    table = services.undo_last_event(table, None, table.version)  # takes the time call back
    assert list(Game.objects.filter(table=table).values_list("time_deals", flat=True)) == [None]
    assert len(sheet(table).rows) == 2 and sheet(table).match.may_call_time
    table = services.call_time(table, None, table.version)
    table = enter(table, "EW2")  # East–West take game 2 and the match 2 : 0
    final = sheet(table)
    assert final.match.winner == "EW" and final.closable
    table = services.mark_entered(table, None, table.version)
    services.confirm_table(table, None, table.version)


def test_a_timed_single_game_tied_at_time(db):
    table = _timed_final(best_of=1)
    refused("nothing_played", lambda: services.mark_entered(table, None, table.version))
    table = enter(table, "NS3")  # 5 : 2 when time is called: submitting decides the match
    state = sheet(table)
    assert state.closable and not state.match.may_call_time and not state.match.may_close_game
    refused("time_levels_differ", lambda: services.call_time(table, None, table.version))
    table = enter(table, "EW3")  # 5 : 5
    assert not sheet(table).closable and sheet(table).match.may_call_time
    refused("match_not_decided", lambda: services.mark_entered(table, None, table.version))
    table = services.call_time(table, None, table.version)
    table = enter(table, "NS1")
    assert sheet(table).closable and sheet(table).match.winner == "NS"
    table = services.mark_entered(table, None, table.version)
    assert table.entry_status == "entered"


def test_time_is_called_only_in_a_timed_format(final_table):
    table = enter(final_table, "NS2", "EW2")  # a 计副制 stage: the extra deal comes by itself
    refused("time_call_not_timed", lambda: services.call_time(table, None, table.version))
