"""A chief referee's correction of a knockout match played best of n (RULES.md §8, issue 14):
game by game through the same correction service as any table (``scoring.corrections.Edit``,
``scoring.services.correct_table`` / ``correct_result``) — the series recomputed, games after
the deciding one voided, the match decided, and the bracket protected: a correction that would
change who goes on is refused once the next round is drawn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from reports.fileio import export_tournament, import_tournament
from rules.events import Side
from scoring import services
from scoring.corrections import Edit
from scoring.engine import End
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Table
from tournaments.services import grant_role

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parent / "data" / "stages"


@pytest.fixture
def ko():
    tournament = import_tournament(
        json.loads((DATA / "knockout.json").read_text(encoding="utf-8")), slug="ko-fix"
    )
    chief = get_user_model().objects.create_user(username="chief", password="pw")
    grant_role(tournament, chief, "chief_referee")
    return tournament, chief


def table(tournament, round_number):
    return Table.objects.select_related("round__tournament", "ns", "ew").get(
        round__tournament=tournament, round__number=round_number, number=1
    )


def games_of(tournament, round_number):
    data = export_tournament(tournament)
    return [g["deals"] for g in data["rounds"][round_number - 1]["tables"][0]["games"]]


def refused(code, write):
    with pytest.raises(ServiceError) as caught:
        write()
    assert caught.value.code == code
    return caught.value


def test_a_deal_of_an_earlier_game_is_corrected_within_its_game(ko):
    tournament, chief = ko
    final = table(tournament, 3)  # games: EW3 EW3 | NS2 EW1 | NS3 NS1 — North–South 2 : 1
    # Game 1, a level award inserted before its first deal: later games' starts move with it.
    final = services.correct_table(
        final, Edit.insert(0, "adjust:NS+1"), chief, "漏记升级", final.version, game=1
    )
    assert games_of(tournament, 3) == [
        ["adjust:NS+1", "EW3", "EW3"],
        ["NS2", "EW1"],
        ["NS3", "NS1"],
    ]
    assert list(final.games.values_list("number", "first_position")) == [(2, 3), (3, 5)]
    # Game 2's second deal East–West +1 → +2 leaves it level at 4 : 4: the 计副制 stage then
    # needs the extra deal, which was not played — refused, nothing changed.
    refused(
        "game_not_decided",
        lambda: services.correct_table(
            final, Edit.replace(1, "EW2"), chief, "记错", final.version, game=2
        ),
    )
    # The last game (the sheet's, game None): NS1 → NS2, same winner.
    final = services.correct_table(final, Edit.replace(1, "NS2"), chief, "记错", final.version)
    assert games_of(tournament, 3)[2] == ["NS3", "NS2"]
    assert AuditEntry.objects.filter(table=final, action=AuditEntry.Action.CORRECT).count() == 2


def test_a_correction_deciding_the_match_earlier_voids_the_games_after_it(ko):
    tournament, chief = ko
    final = table(tournament, 3)
    # Game 2 was East–West's (EW2 EW1 instead of NS2 EW1): 2 : 0 after two games; game 3
    # should not have been played and goes with the correction.
    final = services.correct_table(
        final, Edit.replace(0, "EW2"), chief, "第2局第1副记反", final.version, game=2
    )
    assert games_of(tournament, 3) == [["EW3", "EW3"], ["EW2", "EW1"]]
    assert not final.games.filter(number=3).exists()
    bracket = export_tournament(tournament)["rounds"][2]
    assert bracket["tables"][0]["games"][1] == {"deals": ["EW2", "EW1"]}
    entry = AuditEntry.objects.filter(table=final, action=AuditEntry.Action.CORRECT).get()
    assert entry.before["deals"][-2:] == ["NS3", "NS1"]  # the voided game's deals, kept


def test_a_whole_match_is_corrected_game_by_game(ko):
    tournament, chief = ko
    final = table(tournament, 3)
    games = [{"deals": ["NS3", "NS3"]}, {"deals": ["NS1", "NS1"]}]
    final = services.correct_result(
        final, [], None, None, chief, "整场记错", final.version, games=games
    )
    assert games_of(tournament, 3) == [["NS3", "NS3"], ["NS1", "NS1"]]
    # A whole result that leaves the match undecided, or a game after its decision, is refused.
    refused(
        "match_not_decided",
        lambda: services.correct_result(
            final, [], None, None, chief, "x", final.version, games=games[:1]
        ),
    )
    refused(
        "game_after_match",
        lambda: services.correct_result(
            final, [], None, None, chief, "x", final.version, games=[*games, games[0]]
        ),
    )
    # The whole table's events split where its games begin (a 判负 ends the last game).
    final = services.correct_result(
        final, ["NS3", "NS3", "NS1", "NS2"], None, End("penalty_loss", Side.EW), chief, "判负",
        final.version,
    )  # fmt: skip
    assert export_tournament(tournament)["rounds"][2]["tables"][0]["games"][1]["end"] == {
        "penalty_loss": "ew"
    }
    refused(
        "correct_games_split",
        lambda: services.correct_result(final, ["NS3"], None, None, chief, "x", final.version),
    )


def test_a_correction_changing_who_goes_on_is_refused_once_the_next_round_is_drawn(ko):
    tournament, chief = ko
    semi = table(tournament, 2)  # NS3 NS3 | NS1 NS1: pair 1 beats pair 4 2 : 0, in the final
    swapped = [{"deals": ["EW3", "EW3"]}, {"deals": ["EW1", "EW1"]}]  # pair 4 would go on
    error = refused(
        "correct_bracket_drawn",
        lambda: services.correct_result(
            semi, [], None, None, chief, "记反", semi.version, games=swapped
        ),
    )
    assert error.params == {"round": 3}
    assert games_of(tournament, 2) == [["NS3", "NS3"], ["NS1", "NS1"]]  # nothing changed
    # A correction keeping the winner is made: the bracket stands.
    semi = services.correct_table(semi, Edit.replace(1, "NS2"), chief, "记错", semi.version, game=2)
    assert games_of(tournament, 2)[1] == ["NS1", "NS2"]
    refused(
        "bad_game",
        lambda: services.correct_table(semi, Edit.delete(0), chief, "x", semi.version, game=3),
    )


def test_a_correction_keeps_a_timed_games_extra_deal():
    # The final of a timed best of three; game 2 was level at A when time was called and its
    # extra deal left it level (RULES.md §2: the extra deal decides). Correcting game 1 keeps
    # game 2's time call; a correction of the deals before it re-reads it.
    data = json.loads((DATA / "knockout.json").read_text(encoding="utf-8"))
    data["settings"]["stages"][0]["round_format"] = "timed"
    both_at_a = ["NS3"] * 4 + ["EW3"] * 4
    data["rounds"][2]["tables"][0]["games"] = [
        {"deals": ["EW3", "EW3"]},
        {"deals": [*both_at_a, "EW1"]},
    ]
    tournament = import_tournament(data, slug="ko-timed-fix")
    chief = get_user_model().objects.create_user(username="chief", password="pw")
    grant_role(tournament, chief, "chief_referee")
    final = table(tournament, 3)
    final = services.correct_table(
        final, Edit.replace(1, "EW2"), chief, "记错", final.version, game=1
    )
    assert list(final.games.values_list("number", "time_deals")) == [(2, 8)]
    # East–West +2 instead of +3 before time: K : A when time is called, so no extra deal;
    # its last deal then only levels the game at A — undecided, refused.
    refused(
        "match_not_decided",
        lambda: services.correct_table(
            final, Edit.replace(7, "EW2"), chief, "x", final.version, game=2
        ),
    )
    assert games_of(tournament, 3)[1] == [*both_at_a, "EW1"]
