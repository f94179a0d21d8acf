"""RULES.md §8 end to end through the command line: Swiss rounds, then groups of the top
entrants, then a knockout played best of three — ``simulate`` drives it, ``pair_round`` starts
each stage when the previous one is finished, ``standings --stage``, ``bracket`` and the file
round-trip read it back."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from pairing.stages import stage_entrants
from reports.fileio import export_tournament, import_tournament
from tests.support.stages import staged_file
from tournaments.models import Round, Table, Tournament

pytestmark = pytest.mark.django_db


def run(*args: Any) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


STAGES = [
    {"kind": "swiss", "rounds": 3},
    {"kind": "round_robin", "groups": 4, "qualify": 2, "entrants": 16},
    {"kind": "knockout", "best_of": 3, "third_place": True, "deals_per_round": 6},
]


def test_swiss_then_groups_then_a_best_of_three_knockout():
    tournament = import_tournament(staged_file(20, STAGES, units=5), slug="staged")
    run("simulate", "staged", "--rounds", "3", "--seed", "1")
    assert set(Round.objects.values_list("stage", flat=True)) == {1}
    # Stage 2 begins: the top 16 of the Swiss standings, snake-seeded into 4 groups of 4.
    paired = json.loads(run("pair_round", "staged", "--json"))
    assert paired["stage"] == 2 and paired["round"] == 4
    assert {t["group"] for t in paired["tables"]} == {"A", "B", "C", "D"}
    assert len(paired["tables"]) == 8 and paired["bye"] is None
    top16 = json.loads(run("standings", "staged", "--json", "--after-round", "3"))["rows"][:16]
    seated = {p for t in paired["tables"] for p in (t["ns"], t["ew"])}
    assert seated == {row["pair"] for row in top16}
    run("simulate", "staged", "--rounds", "3", "--seed", "2")
    groups = json.loads(run("standings", "staged", "--json", "--stage", "2"))
    assert groups["stage"] == 2 and [g["group"] for g in groups["groups"]] == list("ABCD")
    assert all(len(g["rows"]) == 4 for g in groups["groups"])
    assert all(
        sum(r["wins"] + r["draws"] + r["losses"] for r in g["rows"]) == 12 for g in groups["groups"]
    )
    # Stage 3: the top 2 of each group; group winners are seeds 1–4.
    paired = json.loads(run("pair_round", "staged", "--json"))
    assert paired["stage"] == 3 and len(paired["tables"]) == 4
    winners = {g["rows"][0]["pair"] for g in groups["groups"]}
    assert {t["ns"] for t in paired["tables"]} == winners
    # Groups apart (pairing.knockout): the entrants carry their group; no first-round rematch.
    group_of = {row["pair"]: g["group"] for g in groups["groups"] for row in g["rows"]}
    entrants = stage_entrants(tournament, 3)
    assert len(entrants) == 8 and all(e.group == group_of[e.id] for e in entrants)
    assert all(group_of[t["ns"]] != group_of[t["ew"]] for t in paired["tables"])
    run("simulate", "staged", "--rounds", "3", "--seed", "3")
    bracket = json.loads(run("bracket", "staged", "--json"))
    assert bracket["stage"] == 3 and len(bracket["rounds"]) == 3
    final = bracket["rounds"][-1]["matches"]
    assert len(final) == 2 and final[1]["third_place"] is True
    for played in bracket["rounds"]:
        for match in played["matches"]:
            assert match["winner"] in (match["a"], match["b"])
            first = match["winner"] == match["a"]
            lost = sum(1 for a, b in match["games"] if (a < b if first else a > b))
            assert len(match["games"]) in (2, 3) and lost <= 1  # won two of at most three
    places = [p["place"] for p in bracket["placings"]]
    assert places[:8] == [1, 2, 3, 4, 5, 5, 5, 5] and len(places) == 20
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    # The file round-trips stages, groups, slots and games.
    exported = export_tournament(tournament)
    again = export_tournament(import_tournament(exported, slug="again"))
    assert again == exported
    assert any("games" in t for r in exported["rounds"] for t in r["tables"])
    assert Table.objects.filter(round__tournament=tournament, games__isnull=False).exists()
