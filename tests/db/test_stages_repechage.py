"""A knockout in three stages with a repechage (seed 001: 初赛、复赛、决赛, 附加赛; RULES.md §8,
docs/stages.md "Knockout stages and the repechage"): the hand-computed file gives the contract's
output and round-trips, ``pair_round`` draws each of its rounds, the bracket is protected across
stages, and the whole event runs through the services (``simulate``).

``knockout-stages.json``, worked by hand: 11 pairs seeded by number, one deal a game.
- 初赛 (``until`` 8, ``repechage`` 1, re-seeded bracket): round 1 halves the field, seed 1 has
  the odd field's bye; 2–11, 3–10, 4–9, 5–8, 6–7 — the better seed wins but 7 beats 6. Round 2
  is the repechage: the 5 losers and the bye (6 = pool) play 3 meetings (drawn: 1–6, 8–11,
  9–10) so that 5 + 3 = 8; 1, 8 and 10 win. 8 are left: the stage stops. Its losers 6, 9, 11
  share 9th (3 meetings + 5 waiting + 1). Qualifiers: the 5 who did not need the repechage by
  the best seed of the bracket part they won (2, 3, 4, 5, then 7 from 6's meeting), then 1, 8,
  10 — [2, 3, 4, 5, 7, 1, 8, 10], the next stage's seeds 1–8.
- 复赛 (``until`` 4, bracket of 8: 1–8, 4–5, 3–6, 2–7 by seed): 2–10, 5–7, 4–1, 3–8; 7 and 1
  win as the lower seeds. Its losers 4, 5, 8, 10 share 5th. Qualifiers by the best seed of
  each quarter: 2 (seed 1's), 3 (seed 2's), 1 (seed 3's), 7 (seed 4's).
- 决赛 (best of 3, third place): semi-finals 2–7 (2 wins 2–1) and 3–1 (1 wins 2–0); final
  2–1 (2 wins 2–0), third place 7–3 (3 wins 2–1).
Final placings: 1 pair 2, 2 pair 1, 3 pair 3, 4 pair 7, 5= 4 5 8 10, 9= 6 9 11.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from pairing.services import generate_round
from reports.fileformat import check_tournament
from reports.fileio import export_tournament, import_tournament
from scoring import services
from scoring.corrections import Edit
from tests.support.stages import load
from tournaments.errors import ServiceError
from tournaments.models import Round, Table, Tournament
from tournaments.services import grant_role

pytestmark = pytest.mark.django_db


def run(*args: Any) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def run_json(*args: Any) -> Any:
    return json.loads(run(*args, "--json"))


def test_the_hand_computed_brackets_of_the_first_and_last_stage():
    import_tournament(load("knockout-stages.json"), slug="ks")
    assert run_json("bracket", "ks", "--stage", "1") == load("knockout-stages.bracket-1.json")
    assert run_json("bracket", "ks") == load("knockout-stages.bracket.json")
    second = run_json("bracket", "ks", "--stage", "2")
    assert second["qualifiers"] == [2, 3, 1, 7]
    with pytest.raises(CommandError):
        run("bracket", "ks", "--stage", "4")


def test_the_file_round_trips_with_its_repechage_round():
    data = load("knockout-stages.json")
    assert export_tournament(import_tournament(data, slug="trip")) == data
    # Without the mark the settings still say which round is the repechage: written back.
    unmarked = json.loads(json.dumps(data))
    del unmarked["rounds"][1]["repechage"]
    assert export_tournament(import_tournament(unmarked, slug="trip2")) == data


def test_a_repechage_mark_on_another_round_is_refused():
    data = load("knockout-stages.json")
    data["rounds"][0]["repechage"] = True
    _spec, problems = check_tournament(data)
    assert [p.code for p in problems] == ["not_repechage_round"]


def test_mid_event_the_first_stage_places_its_repechage_losers():
    data = load("knockout-stages.json")
    import_tournament({**data, "rounds": data["rounds"][:2]}, slug="mid")
    bracket = run_json("bracket", "mid", "--stage", "1")
    assert bracket["placings"] == [{"place": 9, "entrant": p} for p in (6, 9, 11)]
    assert bracket["qualifiers"] == [2, 3, 4, 5, 7, 1, 8, 10]


def _tables(round_data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in t.items() if k in ("table", "ns", "ew", "slot")}
        for t in round_data["tables"]
        if "bye" not in t
    ]


@pytest.mark.parametrize("played", [0, 2, 3, 4])
def test_pair_round_draws_the_files_next_round(played):
    data = load("knockout-stages.json")
    import_tournament({**data, "rounds": data["rounds"][:played]}, slug=f"p{played}")
    paired = run_json("pair_round", f"p{played}")
    expected = data["rounds"][played]
    assert paired["stage"] == expected.get("stage", 1)
    assert paired["tables"] == _tables(expected)
    assert "repechage" not in paired


def test_pair_round_draws_the_repechage_by_lot_and_marks_it():
    data = load("knockout-stages.json")
    import_tournament({**data, "rounds": data["rounds"][:1]}, slug="rep")
    paired = run_json("pair_round", "rep")
    assert paired["repechage"] is True and paired["round"] == 2 and paired["bye"] is None
    assert all(t["repechage"] is True for t in paired["tables"])
    seated = {p for t in paired["tables"] for p in (t["ns"], t["ew"])}
    assert len(paired["tables"]) == 3 and seated == {1, 6, 8, 9, 10, 11}
    assert Round.objects.get(tournament__slug="rep", number=2).draw_info["repechage"] is True


def test_a_correction_changing_a_first_stage_winner_is_refused_once_the_next_stage_is_drawn():
    data = load("knockout-stages.json")
    tournament = import_tournament({**data, "rounds": data["rounds"][:3]}, slug="fix")
    chief = get_user_model().objects.create_user(username="chief", password="pw")
    grant_role(tournament, chief, "chief_referee")
    # Round 2, table 3: the repechage 9–10, won by 10 (EW2); round 3 is stage 2's first.
    rep = Table.objects.select_related("round__tournament", "ns", "ew").get(
        round__tournament=tournament, round__number=2, number=3
    )
    with pytest.raises(ServiceError) as caught:
        services.correct_table(rep, Edit.replace(0, "NS2"), chief, "记反", rep.version)
    assert caught.value.code == "correct_bracket_drawn" and caught.value.params == {"round": 3}
    # Keeping the winner is a correction like any other.
    rep = services.correct_table(rep, Edit.replace(0, "EW3"), chief, "记错", rep.version)
    assert export_tournament(tournament)["rounds"][1]["tables"][2]["deals"] == ["EW3"]


def test_a_field_the_repechage_cannot_fit_is_refused_when_the_stage_starts():
    data = load("knockout-stages.json")
    # 12: 6 winners, 6 into the repechage; one round of it leaves 9 to 11, never 8 or 16.
    data["pairs"].append({**data["pairs"][-1], "id": 12, "seeding": 12})
    tournament = import_tournament({**data, "rounds": []}, slug="ten")
    with pytest.raises(ServiceError) as caught:
        generate_round(tournament)
    assert caught.value.code == "stage_repechage_impossible"
    assert caught.value.params["low"] == 9 and caught.value.params["high"] == 11
    assert "附加赛无法编排" in caught.value.message


SEED_001 = [
    {"kind": "knockout", "seeding": "lot", "until": 8, "repechage": 3},
    {"kind": "knockout", "seeding": "lot", "until": 4},
    {
        "kind": "knockout",
        "seeding": "lot",
        "best_of": 3,
        "third_place": True,
        "round_format": "game",
    },
]


def test_seed_001_44_pairs_through_three_knockout_stages_and_a_repechage():
    """精方药业: 44 → 22 → 11 (one bye) → 5 + 3 of the repechage's 6 = 8 → 4 → the semi-finals
    best of three, the final and the third-place match — every round drawn, entered,
    confirmed and finished through the services."""
    data = load("knockout-stages.json")
    data["settings"] = {**data["settings"], "deals_per_round": 2, "stages": SEED_001}
    data["pairs"] = [
        {"id": i, "players": [f"甲{i}", f"乙{i}"], "unit": None, "status": "active"}
        for i in range(1, 45)
    ]
    tournament = import_tournament({**data, "rounds": []}, slug="seed001")
    run("simulate", "seed001", "--rounds", "7", "--seed", "1")
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert [r.stage for r in rounds] == [1, 1, 1, 1, 2, 3, 3]
    shape = [
        (
            Table.objects.filter(round=r, is_bye=False).count(),
            Table.objects.filter(round=r, is_bye=True).count(),
        )
        for r in rounds
    ]
    assert shape == [(22, 0), (11, 0), (5, 1), (3, 0), (4, 0), (2, 0), (2, 0)]
    first = run_json("bracket", "seed001", "--stage", "1")
    assert [r.get("repechage", False) for r in first["rounds"]] == [False, False, False, True]
    assert len(first["qualifiers"]) == 8
    final = run_json("bracket", "seed001")
    places = [p["place"] for p in final["placings"]]
    assert places == [1, 2, 3, 4] + [5] * 4 + [9] * 3 + [12] * 11 + [23] * 22
    assert sorted(p["entrant"] for p in final["placings"]) == list(range(1, 45))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    exported = export_tournament(tournament)
    assert [r.get("repechage", False) for r in exported["rounds"]][3] is True
    assert export_tournament(import_tournament(exported, slug="again")) == exported
