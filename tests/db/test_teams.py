"""Team events (issue 13, RULES.md §6, TOURNAMENT_FILE.md "Team events"): the hand-computed team
file through the database and the command line, the line-ups and their lock, team rounds.

The file ``tests/data/teams-hand.json``: teams A (pairs 1, 2), B (3, 4) and C (5, 6, 7), two
deals a round, a deduction of 1 JCF on pair 2 (team A). The arithmetic, worked once here and in
docs/scoring.md "Team events":

Round 1, match 1 = A against B (A first), C has the bye.
- Table 1: pair 1 (A) NS, pair 3 (B) EW, "NS2", "EW1": NS 2→4, EW 2→3. JC 1: A 14, B 12 JCF;
  upgrades 2 (A) and 1 (B).
- Table 2: pair 4 (B) NS, pair 2 (A) EW, "NS2", "NS1": NS 2→4→5, EW 2. JC 3: B 16, A 10 JCF;
  upgrades 3 (B) and 0 (A).
- ``sum_jcf``: A 14 + 10 = 24, B 12 + 16 = 28 → B wins (2 CF), A loses (0).
- ``sum_levels``: A's d = +1 − 3 = −2, B's +2 → the scale's 2-level result: B 15 and a win,
  A 11 and a loss.
- ``sum_cf``: each table's CF: A 2 + 0 = 2, B 0 + 2 = 2, equal → a draw each; JCF 24 and 28.
- level_difference: A −2, B +2; upgrades: A 2 + 0 = 2, B 1 + 3 = 4.
- C's bye: two forfeit wins: 2 CF (``sum_cf``: 2 × 2 = 4) and 2 × 17 = 34 JCF.

Round 2, match 1 = C against A (C first): C forfeits both tables (a team forfeit), B has the
bye. A: the two forfeit wins, 2 CF (``sum_cf``: 4) and 34 JCF, a win; C: 0 and 0, a loss.

After round 2 (``sum_jcf``): B 4 CF, 28 + 34 = 62 JCF; A 2 CF, 24 + 34 − 1 = 57; C 2 CF, 34.
B first; A below B by CF; C below A by JCF (57 > 34). 对手分: B met A (2) → 2; A met B (4) and
C (2) → 6; C met A (2) → 2.
``sum_levels``: B 4 CF 15 + 34 = 49; A 2 CF 11 + 34 − 1 = 44; C 2 CF 34.
``sum_cf``: B 2 + 4 = 6 CF, 62 JCF; A 2 + 4 = 6 CF, 57 JCF; C 4 + 0 = 4 CF — B above A by JCF,
C below by CF; wins/draws: A and B one win and one draw each.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from pairing import services as pairing_services
from pairing.swiss import SwissOptions, pair_round
from reports.fileformat import dumps, parse_tournament, standings_from_file
from reports.fileio import export_tournament, import_tournament
from scoring.cache import cached_standings
from scoring.results import standings_from_db
from tests.support.reference import check_draw
from tests.support.team_fields import team_event_file, team_swiss_pairs
from tournaments.errors import ForbiddenError, ServiceError
from tournaments.lineups import round_lineups, set_lineup
from tournaments.models import AuditEntry, LineUp, Pair, Round, Table, Team, Tournament

pytestmark = pytest.mark.django_db

FILE = Path(__file__).resolve().parents[1] / "data" / "teams-hand.json"

ROW_KEYS = (
    "rank",
    "team",
    "cf",
    "jcf",
    "wins",
    "draws",
    "losses",
    "level_difference",
    "opponents_cf",
    "upgrades",
    "progressive",
    "deductions",
    "decided_by",
)
# The hand-computed team standings after round 2 (module docstring), one tuple per row.
EXPECTED = {
    "sum_jcf": [
        (1, "B", 4, 62, 2, 0, 0, 2, 2, 4, 4, 0, None),
        (2, "A", 2, 57, 1, 0, 1, -2, 6, 2, 2, 1, "cf"),
        (3, "C", 2, 34, 1, 0, 1, 0, 2, 0, 2, 0, "jcf"),
    ],
    "sum_levels": [
        (1, "B", 4, 49, 2, 0, 0, 2, 2, 4, 4, 0, None),
        (2, "A", 2, 44, 1, 0, 1, -2, 6, 2, 2, 1, "cf"),
        (3, "C", 2, 34, 1, 0, 1, 0, 2, 0, 2, 0, "jcf"),
    ],
    "sum_cf": [
        (1, "B", 6, 62, 1, 1, 0, 2, 6, 4, 6, 0, None),
        (2, "A", 6, 57, 1, 1, 0, -2, 10, 2, 6, 1, "jcf"),
        (3, "C", 4, 34, 1, 0, 1, 0, 6, 0, 4, 0, "cf"),
    ],
}


def run(*args: Any) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def team_file(method: str | None = None) -> dict[str, Any]:
    data = json.loads(FILE.read_text(encoding="utf-8"))
    if method is not None and method != "sum_jcf":
        data["settings"]["team_scoring"] = method
    return data


def load(method: str | None = None) -> Tournament:
    return import_tournament(team_file(method))


def test_team_file_round_trips_teams_matches_and_byes():
    tournament = load()
    assert dumps(export_tournament(tournament)) + "\n" == FILE.read_text(encoding="utf-8")
    assert Round.objects.get(tournament=tournament, number=1).bye_team.code == "C"
    assert set(
        Table.objects.filter(round__tournament=tournament).values_list("match", flat=True)
    ) == {1}
    c = Team.objects.get(tournament=tournament, code="C")
    assert c.unit is None and c.status == "active" and len(c.captain_code) == 6


@pytest.mark.parametrize("method", list(EXPECTED))
def test_hand_computed_team_standings_by_each_method(method):
    tournament = load(method)
    payload = json.loads(run("standings", tournament.slug, "--json"))
    assert payload["after_round"] == 2
    rows = [tuple(row[key] for key in ROW_KEYS) for row in payload["rows"]]
    assert rows == EXPECTED[method]
    assert list(payload["rows"][0]) == list(ROW_KEYS)
    # The file's own computation, the database's full one and the cache agree.
    _after, from_file = standings_from_file(parse_tournament(team_file(method)), teams=True)
    rules = tournament.rules
    assert standings_from_db(tournament.pk, rules, 2, teams=True) == from_file
    assert cached_standings(tournament, after_round=2, teams=True) == from_file


def test_standings_pairs_prints_the_pair_rows_of_a_team_event():
    tournament = load()
    payload = json.loads(run("standings", tournament.slug, "--json", "--pairs"))
    rows = {row["pair"]: row for row in payload["rows"]}
    assert set(rows) == {1, 2, 3, 4, 5, 6, 7}
    # Pair 1: 14 JCF (table 1, round 1) + 17 (C's forfeit, round 2); pair 2: 10 + 17 − 1.
    assert (rows[1]["cf"], rows[1]["jcf"]) == (4, 31)
    assert (rows[2]["cf"], rows[2]["jcf"], rows[2]["deductions"]) == (2, 26, 1)
    assert "team" not in payload["rows"][0]


def test_team_standings_after_round_one_and_the_text_table():
    tournament = load()
    payload = json.loads(run("standings", tournament.slug, "--json", "--after-round", "1"))
    assert [(r["team"], r["cf"], r["jcf"]) for r in payload["rows"]] == [
        ("C", 2, 34),
        ("B", 2, 28),
        ("A", 0, 23),
    ]
    text = run("standings", tournament.slug)
    assert "苏州队" in text and "南京队" in text


def test_pair_round_json_of_a_team_event_seats_matches_crossed_from_default_lineups():
    tournament = load()
    payload = json.loads(run("pair_round", tournament.slug, "--json"))
    # After round 2: B (4 CF), A (2), C (2). The bye goes to the lowest team without one: C and
    # B had theirs, so A. B meets C; B sat second in round 1 and had the bye in round 2, C sat
    # first in round 2, so B is first: B's NS pair 3 at table 1 against C's EW pair 6, C's NS
    # pair 5 at table 2 against B's EW pair 4 (C's default line-up: its first two pairs).
    assert payload == {
        "round": 3,
        "matches": [
            {
                "match": 1,
                "teams": ["B", "C"],
                "tables": [{"table": 1, "ns": 3, "ew": 6}, {"table": 2, "ns": 5, "ew": 4}],
            }
        ],
        "bye_team": "A",
    }


def test_a_lineup_set_before_the_draw_seats_the_chosen_pairs():
    tournament = load()
    c = Team.objects.get(tournament=tournament, code="C")
    pairs = {p.number: p for p in Pair.objects.filter(tournament=tournament)}
    set_lineup(c, 3, pairs[7], pairs[5], captain_code=c.captain_code)
    payload = json.loads(run("pair_round", tournament.slug, "--json"))
    assert payload["matches"][0]["tables"] == [
        {"table": 1, "ns": 3, "ew": 5},
        {"table": 2, "ns": 7, "ew": 4},
    ]
    entry = AuditEntry.objects.filter(tournament=tournament, action="lineup").get()
    assert entry.actor == "captain" and entry.after["ns"] == 7


def test_a_lineup_changed_in_a_draft_reseats_the_team_and_is_locked_once_published():
    tournament = load()
    rnd = pairing_services.generate_round(tournament)
    c = Team.objects.get(tournament=tournament, code="C")
    pairs = {p.number: p for p in Pair.objects.filter(tournament=tournament)}
    set_lineup(c, 3, pairs[6], pairs[7])
    tables = list(
        Table.objects.filter(round=rnd).order_by("number").values_list("ns__number", "ew__number")
    )
    assert tables == [(3, 7), (6, 4)]
    assert set(rnd.seats.values_list("pair__number", flat=True)) == {3, 4, 6, 7}
    pairing_services.publish_round(rnd)
    with pytest.raises(ServiceError) as refused:
        set_lineup(c, 3, pairs[5], pairs[6])
    assert refused.value.code == "lineup_locked"
    assert LineUp.objects.get(team=c, round_number=3).ns.number == 6


@pytest.mark.parametrize(
    ("ns", "ew", "code"),
    [(5, 5, "lineup_same_pair"), (5, 1, "lineup_pair_not_in_team")],
)
def test_a_lineup_of_wrong_pairs_is_refused_and_changes_nothing(ns, ew, code):
    tournament = load()
    c = Team.objects.get(tournament=tournament, code="C")
    pairs = {p.number: p for p in Pair.objects.filter(tournament=tournament)}
    with pytest.raises(ServiceError) as refused:
        set_lineup(c, 3, pairs[ns], pairs[ew])
    assert refused.value.code == code
    assert not LineUp.objects.exists()


def test_a_wrong_captain_code_is_refused():
    tournament = load()
    c = Team.objects.get(tournament=tournament, code="C")
    pairs = {p.number: p for p in Pair.objects.filter(tournament=tournament)}
    with pytest.raises(ForbiddenError):
        set_lineup(c, 3, pairs[5], pairs[6], captain_code="WRONG1")
    assert not LineUp.objects.exists()


def test_an_inactive_pair_cannot_play_and_the_default_skips_it():
    tournament = load()
    pairs = {p.number: p for p in Pair.objects.filter(tournament=tournament)}
    Pair.objects.filter(pk=pairs[5].pk).update(status="withdrawn")
    c = Team.objects.get(tournament=tournament, code="C")
    with pytest.raises(ServiceError) as refused:
        set_lineup(c, 3, pairs[5], pairs[6])
    assert refused.value.code == "lineup_pair_inactive"
    fielded = round_lineups(tournament, 3)[c.pk]
    assert fielded is not None and (fielded.ns.number, fielded.ew.number) == (6, 7)


def test_a_team_that_cannot_field_two_pairs_stops_the_draw():
    tournament = load()
    Pair.objects.filter(tournament=tournament, number__in=[3]).update(status="withdrawn")
    with pytest.raises(ServiceError) as refused:
        pairing_services.generate_round(tournament)
    assert refused.value.code == "team_cannot_field"
    assert not Round.objects.filter(tournament=tournament, number=3).exists()


def test_swap_pairs_is_refused_in_a_team_event_and_swap_teams_moves_whole_teams():
    tournament = load()
    rnd = pairing_services.generate_round(tournament)
    pairs = {p.number: p for p in Pair.objects.filter(tournament=tournament)}
    with pytest.raises(ServiceError) as refused:
        pairing_services.swap_pairs(rnd, pairs[3], pairs[5])
    assert refused.value.code == "swap_whole_teams"
    teams = {t.code: t for t in Team.objects.filter(tournament=tournament)}
    # A (the bye) cannot trade places with C: C had its bye in round 1.
    with pytest.raises(ServiceError) as refused:
        pairing_services.swap_teams(rnd, teams["A"], teams["C"])
    assert refused.value.code == "team_had_bye"
    # B and C trade places in their match: each takes the other's NS and EW seats.
    warnings = pairing_services.swap_teams(rnd, teams["B"], teams["C"])
    payload = pairing_services.round_matches(rnd)
    assert payload["matches"][0]["teams"] == ["C", "B"]
    assert payload["matches"][0]["tables"] == [
        {"table": 1, "ns": 5, "ew": 4},
        {"table": 2, "ns": 3, "ew": 6},
    ]
    assert payload["bye_team"] == "A"
    assert [w.code for w in warnings] == []


@pytest.mark.parametrize(("seed", "teams", "rounds"), [(1, 13, 4), (2, 20, 5), (3, 7, 3)])
def test_team_swiss_input_from_the_database_is_the_files_and_the_round_is_the_engines(
    seed, teams, rounds
):
    """A random team event (tests/support/team_fields.py) imported: ``team_swiss_input`` builds
    from the database what the file gives independently (ranks, CF, opponents, byes,
    directions), and the generated round is the engine's optimal draw (checked against the
    exact reference), seated crossed."""
    data = team_event_file(seed, teams, rounds, units=3)
    tournament = import_tournament(data)
    field = team_swiss_pairs(parse_tournament(data), rounds + 1)
    assert pairing_services.team_swiss_input(tournament, rounds + 1) == field
    rnd = pairing_services.generate_round(tournament)
    draw = pair_round(field, rounds + 1, SwissOptions(), random.Random(seed * 1000 + rounds + 1))
    assert check_draw(field, draw, SwissOptions()) == []
    payload = pairing_services.round_matches(rnd)
    assert payload["bye_team"] == (f"T{draw.bye}" if draw.bye is not None else None)
    assert [
        (m["match"], m["teams"], [(t["table"], t["ns"], t["ew"]) for t in m["tables"]])
        for m in payload["matches"]
    ] == [
        (t.number, [f"T{t.ns}", f"T{t.ew}"], [
            (2 * t.number - 1, 2 * t.ns - 1, 2 * t.ew), (2 * t.number, 2 * t.ew - 1, 2 * t.ns)
        ])
        for t in draw.tables
    ]  # fmt: skip


def test_team_standings_through_the_cache_follow_each_confirmation():
    """The incremental cache (the kept state after the previous round, advanced with the round
    in play) gives the full computation's team standings after each confirmed table: a match
    counts once both its tables are confirmed."""
    from django.db.models import F

    from tournaments.services import bump_results_version

    data = team_event_file(9, 8, 3, units=2)
    last = data["rounds"][-1]
    last["status"] = "published"
    for table in last["tables"]:
        if "table" in table:
            table["entry"] = "entered"
    tournament = import_tournament(data)
    rules = tournament.rules
    assert cached_standings(tournament, after_round=3, teams=True) == standings_from_db(
        tournament.pk, rules, 3, teams=True
    )
    before = cached_standings(tournament, after_round=3, teams=True)
    tables = Table.objects.filter(round__tournament=tournament, round__number=3).order_by("number")
    for k, table in enumerate(tables, start=1):
        Table.objects.filter(pk=table.pk).update(entry_status="confirmed", version=F("version") + 1)
        bump_results_version(tournament.pk)
        tournament.refresh_from_db()
        fresh = standings_from_db(tournament.pk, rules, 3, teams=True)
        assert cached_standings(tournament, after_round=3, teams=True) == fresh, k
        if k == 1:  # one table of match 1: the match does not count yet
            assert fresh == before
    assert cached_standings(tournament, after_round=3) == standings_from_db(tournament.pk, rules, 3)


def test_a_withdrawn_team_is_not_paired_and_the_status_change_is_audited():
    from tournaments.lineups import set_team_status

    tournament = load()
    a = Team.objects.get(tournament=tournament, code="A")
    set_team_status(a, "withdrawn", reason="弃赛")
    with pytest.raises(ServiceError) as refused:
        set_team_status(a, "withdrawn")
    assert refused.value.code == "team_status_unchanged"
    payload = json.loads(run("pair_round", tournament.slug, "--json"))
    assert [m["teams"] for m in payload["matches"]] == [["B", "C"]]
    assert payload["bye_team"] is None
    assert AuditEntry.objects.filter(tournament=tournament, action="team_status").count() == 1
    assert (
        json.loads(run("export_tournament", tournament.slug))["teams"][0]["status"] == "withdrawn"
    )


@pytest.mark.django_db(transaction=True)
def test_the_team_migration_gives_existing_teams_their_own_captain_codes():
    """0006_teams adds ``captain_code`` (unique per tournament) to teams that already exist:
    each gets its own, not the one default the column was added with."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("tournaments", "0005_staff_checkin_assignments")]
    after = [("tournaments", "0006_teams")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        tournament = old.get_model("tournaments", "Tournament").objects.create(name="x", slug="x")
        old_team = old.get_model("tournaments", "Team")
        for code in ("A", "B", "C"):
            old_team.objects.create(tournament=tournament, code=code, name=code)
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        new = executor.loader.project_state(after).apps
        codes = list(
            new.get_model("tournaments", "Team").objects.values_list("captain_code", "status")
        )
        assert len({code for code, _ in codes}) == 3
        assert {status for _, status in codes} == {"active"}
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
