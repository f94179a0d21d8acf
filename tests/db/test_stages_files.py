"""Hand-computed stage files give the contract's output (TOURNAMENT_FILE.md "Stages").

``group-stage.json``: 7 pairs by seeding in two groups by snake (A: 1 4 5, B: 2 3 6 7), three
rounds of the circle schedule, two deals a round. Worked by hand (26:0 scale, regulation
tiebreaks): in group B pairs 6 and 3 are level on CF 3 and JCF 42, drew their meeting
(head-to-head does not separate them), have one win and one draw each, level difference +3 and
对手分 9 each; after round 2 pair 6 (CF 1, JCF 24) stood above pair 3 (CF 1, JCF 23), so
``previous_rank`` puts 6 second. Group A's bye is worth 2 CF + 17 JCF a round.

``knockout.json``: 5 pairs by seeding, best of three, two deals a game, third-place match:
seeds 1, 2 and 3 have byes, 4 beats 5 2–1 (game 2 level at 4 : 4 after its two deals, decided
by the extra deal EW1), the semi-finals 1–4 and 3–2, the final 1–2 (2–1) and the third-place
match 4–3 (3 wins 2–1 after losing game 1 on an extra deal). Placings 1 2 3 4 5.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from reports.fileio import export_tournament, import_tournament
from tests.support.stages import load

pytestmark = pytest.mark.django_db


def run(*args: Any) -> Any:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def test_group_stage_standings_are_the_hand_computed_ones():
    import_tournament(load("group-stage.json"), slug="groups")
    assert run("standings", "groups", "--json", "--stage", "1") == load(
        "group-stage.standings.json"
    )


def test_knockout_bracket_is_the_hand_computed_one():
    import_tournament(load("knockout.json"), slug="ko")
    assert run("bracket", "ko", "--json") == load("knockout.bracket.json")


@pytest.mark.parametrize("name", ["group-stage.json", "knockout.json"])
def test_stage_files_round_trip(name):
    data = load(name)
    assert export_tournament(import_tournament(data, slug="trip")) == data


def test_pair_round_draws_the_files_first_rounds():
    for name, slug in (("group-stage.json", "g0"), ("knockout.json", "k0")):
        data = load(name)
        first = data["rounds"][0]
        import_tournament({**data, "rounds": []}, slug=slug)
        paired = run("pair_round", slug, "--json")
        tables = [
            {k: v for k, v in t.items() if k in ("table", "ns", "ew", "group", "slot")}
            for t in first["tables"]
            if "bye" not in t
        ]
        byes = [t["bye"] for t in first["tables"] if "bye" in t]
        expected = {"round": 1, "stage": 1, "tables": tables, "bye": byes[0]}
        if len(byes) > 1:
            expected["byes"] = byes
        assert paired == expected


def test_each_later_round_is_drawn_from_the_results_so_far():
    # Import the knockout up to round 2 and let pair_round draw the final and third place.
    data = load("knockout.json")
    import_tournament({**data, "rounds": data["rounds"][:2]}, slug="k2")
    paired = run("pair_round", "k2", "--json")
    assert paired == {
        "round": 3,
        "stage": 1,
        "tables": [
            {"table": 1, "ns": 1, "ew": 2, "slot": 1},
            {"table": 2, "ns": 4, "ew": 3, "slot": 0},
        ],
        "bye": None,
    }
    data = load("group-stage.json")
    import_tournament({**data, "rounds": data["rounds"][:1]}, slug="g1")
    paired = run("pair_round", "g1", "--json")
    second = data["rounds"][1]["tables"]
    assert [(t["ns"], t["ew"], t["group"]) for t in paired["tables"]] == [
        (t["ns"], t["ew"], t["group"]) for t in second if "bye" not in t
    ]
    assert paired["bye"] == 4


def test_a_stage_is_editable_until_it_starts():
    from tournaments.errors import ServiceError
    from tournaments.services import update_settings

    data = load("group-stage.json")
    settings = data["settings"]
    tournament = import_tournament(
        {**data, "rounds": data["rounds"][:1], "settings": settings}, slug="edit"
    )
    later = {**settings, "stages": [*settings["stages"], {"kind": "knockout", "best_of": 3}]}
    update_settings(tournament, later, None)  # a knockout added after the running group stage
    tournament.refresh_from_db()
    assert tournament.rules.stage(2).best_of == 3
    for changed in (
        {
            **later,
            "stages": [{"kind": "round_robin", "groups": 3, "qualify": 1}, later["stages"][1]],
        },
        {**later, "deals_per_round": 3},
    ):
        with pytest.raises(ServiceError) as caught:
            update_settings(tournament, changed, None)
        assert caught.value.code == "settings_locked"


def _timed_knockout(games: list[list[str]]) -> dict[str, Any]:
    """The knockout file as a timed best of three whose final holds ``games``."""
    data = load("knockout.json")
    data["settings"]["stages"][0]["round_format"] = "timed"
    data["rounds"][2]["tables"][0]["games"] = [{"deals": deals} for deals in games]
    return data


def test_a_timed_game_tied_at_time_and_its_extra_deal_in_the_file():
    # RULES.md §2: the final's game 2 is level at A when time is called; its extra deal (EW at
    # A, partner last) leaves the levels equal and decides the game. The file marks no time
    # call (TOURNAMENT_FILE.md): the import reads it from the levels before the last deal.
    both_at_a = ["NS3"] * 4 + ["EW3"] * 4
    data = _timed_knockout([["EW3", "EW3"], [*both_at_a, "EW1"]])
    tournament = import_tournament(data, slug="timed-ko")
    final = tournament.rounds.get(number=3).tables.get(number=1)
    assert list(final.games.values_list("number", "time_deals")) == [(2, 8)]
    assert final.time_deals is None
    bracket = run("bracket", "timed-ko", "--json")
    match = bracket["rounds"][-1]["matches"][0]
    assert match["winner"] == 2 and match["games"] == [[2, 8], [14, 14]]
    assert export_tournament(tournament) == data  # the file as given: no mark for the call


def test_a_closed_timed_game_left_level_without_an_extra_deal_is_refused():
    from reports.fileformat import check_tournament

    # 5 : 2, then East–West level at 5 : 5: no extra deal was played from equal levels.
    _spec, problems = check_tournament(_timed_knockout([["EW3", "EW3"], ["NS3", "EW3"]]))
    assert [p.code for p in problems] == ["match_not_decided"]
