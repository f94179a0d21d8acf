"""The printed and exported results of a staged event (reports.collect): a knockout match is
scored game by game (game 2 from 2 : 2) and a stage's own round format is used — the filled
score sheets and the Excel results once printed a confirmed knockout match blank."""

from __future__ import annotations

import pytest

from reports import collect
from reports.fileio import import_tournament
from reports.stages import bracket
from tests.support.stages import load

pytestmark = pytest.mark.django_db


def _levels(pair: list[int]) -> str:
    return ":".join("A" if level == 14 else str(level) for level in pair)


def test_a_best_of_three_knockout_prints_every_game():
    tournament = import_tournament(load("knockout.json"), slug="ko")
    drawn = {
        (r["round"], m["a"], m["b"]): m
        for r in bracket(tournament, 1)["rounds"]
        for m in r["matches"]
    }
    rounds, _deals = collect._results_and_deals(tournament, collect.pair_infos(tournament))
    checked = 0
    for number, lines in rounds:
        for line in lines:
            if line.ew is None:
                assert line.summary is None  # a bye
                continue
            key = (number, line.ns.number, line.ew.number)
            match = drawn.get(key) or drawn[(number, line.ew.number, line.ns.number)]
            games = match["games"] if key in drawn else [g[::-1] for g in match["games"]]
            assert line.summary is not None, key
            assert "（" + "，".join(_levels(g) for g in games) + "）" in line.summary.note, key
            winner = "南北" if match["winner"] == line.ns.number else "东西"
            assert line.summary.note.startswith(winner), key
            checked += 1
    assert checked == 5
    final = collect.score_sheets(tournament, 3, filled=True)[0]
    # EW3 EW3 | NS2 EW1 | NS3 NS1: six lines, games 2 and 3 marked, game 2 from 2 : 2.
    assert [line.note for line in final.lines] == ["", "", "第2局", "", "第3局", ""]
    assert (final.lines[2].level_played, final.lines[2].ns_level) == ("2", "4")


def test_a_stage_prints_by_its_own_round_format():
    data = load("group-stage.json")
    data["settings"]["deals_per_round"] = 8  # the event's format; the group stage plays 2 deals
    data["settings"]["stages"][0]["deals_per_round"] = 2
    tournament = import_tournament(data, slug="groups")
    assert tournament.rules.max_deals == 8
    sheets = collect.score_sheets(tournament, 1, filled=True)
    assert sheets and all(sheet.result is not None for sheet in sheets)
    assert {sheet.rows for sheet in sheets} == {2}
