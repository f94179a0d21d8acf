"""reports.fileformat (pure): the golden files parse, round-trip byte for byte and give the
golden standings; every refusal of issue 4 is found with its place and a stable code."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reports.demo import synthetic_file
from reports.fileformat import (
    FileProblem,
    TournamentFileError,
    check_tournament,
    dumps,
    load_json,
    parse_tournament,
    standings_from_file,
    standings_payload,
    to_dict,
)
from tests.support.golden import EXAMPLES, expected_standings, golden_params

ROOT = Path(__file__).resolve().parents[2]

GOLDEN = sorted(p.name.removesuffix(".standings.json") for p in EXAMPLES.glob("*.standings.json"))


def golden(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def problems_of(data: Any) -> tuple[FileProblem, ...]:
    spec, problems = check_tournament(data)
    assert spec is None
    assert problems
    return problems


def only(problems: tuple[FileProblem, ...], code: str) -> FileProblem:
    found = [p for p in problems if p.code == code]
    assert len(found) == 1, problems
    return found[0]


@pytest.fixture
def worked() -> dict[str, Any]:
    return golden("worked-example")


def test_goldens_exist():
    assert set(GOLDEN) == {
        "eleven-pairs",
        "jiangsu-2017",
        "jiangsu-28",
        "variants-28",
        "worked-example",
    }


@pytest.mark.parametrize("name", GOLDEN)
def test_golden_file_round_trips_byte_for_byte(name):
    text = (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")
    spec = parse_tournament(load_json(text))
    assert dumps(to_dict(spec)) == text


def _matches_golden(rows: list[dict[str, Any]], expected: dict[str, Any]) -> None:
    """Every figure equal; pairs tied by lot may swap among themselves."""
    assert len(rows) == len(expected["rows"])
    for row, want in zip(rows, expected["rows"], strict=True):
        allowed = {want["pair"], *want["tied_by_lot_with"]}
        assert row["pair"] in allowed, (row, want)
        assert row["rank"] == want["rank"]
        for key, value in want.items():
            if key in ("pair", "tied_by_lot_with"):
                continue
            if row["pair"] == want["pair"]:
                assert row[key] == value, (key, row, want)


@pytest.mark.parametrize("name", golden_params(GOLDEN))
def test_standings_from_file_equal_the_golden_standings(name):
    expected = expected_standings(name)
    after, rows = standings_from_file(parse_tournament(golden(name)))
    payload = standings_payload(name, after, rows)
    assert payload["after_round"] == expected["after_round"]
    assert payload["rows"][0]["decided_by"] is None
    _matches_golden(payload["rows"], expected)


def test_parser_is_pure():
    code = (
        "import sys\nimport reports.fileformat, reports.demo\n"
        "print(','.join(m for m in sys.modules if m.startswith('django')))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""


# ---------------------------------------------------------------------------------------------
# Refusals (issue 4): each with its code and its place


def test_malformed_json_names_line_and_column():
    with pytest.raises(TournamentFileError) as caught:
        load_json('{"format": "guandan-tournament",\n "version": 1,,}')
    problem = caught.value.problems[0]
    assert problem.code == "malformed_json"
    assert problem.params["line"] == 2


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"version": NaN}', "not_finite"),
        (b'{"version": 1e400}', "not_finite"),
        (b"[" * 100_000, "too_deep"),
        (b"\xff\xfe{", "not_utf8"),
    ],
)
def test_load_json_refuses_what_json_lets_through(raw, code):
    with pytest.raises(TournamentFileError) as caught:
        load_json(raw)
    assert caught.value.problems[0].code == code


def test_not_an_object():
    assert problems_of([1, 2])[0].code == "not_an_object"


def test_unknown_keys_everywhere_are_all_reported(worked):
    worked["colour"] = "red"
    worked["settings"]["speed"] = 3
    worked["pairs"][2]["nickname"] = "x"
    worked["rounds"][0]["tables"][1]["notes"] = "late"
    worked["penalties"][0]["severity"] = 2
    found = [p for p in problems_of(worked) if p.code == "unknown_key"]
    assert {p.params["key"] for p in found} == {"colour", "speed", "nickname", "notes", "severity"}
    by_key = {p.params["key"]: p for p in found}
    assert by_key["nickname"].pair == 3
    assert (by_key["notes"].round, by_key["notes"].table) == (1, 2)
    assert by_key["notes"].path == "rounds[0].tables[1].notes"
    assert by_key["severity"].penalty == 1
    assert by_key["speed"].setting == "speed"


def test_wrong_format_and_version(worked):
    worked["format"] = "bridge"
    worked["version"] = 2
    codes = {p.code for p in problems_of(worked)}
    assert {"wrong_format", "wrong_version"} <= codes


def test_unknown_pair_at_a_table(worked):
    worked["rounds"][0]["tables"][0]["ew"] = 99
    problem = only(problems_of(worked), "unknown_pair")
    assert (problem.round, problem.table, problem.params["id"]) == (1, 1, 99)


def test_unknown_unit(worked):
    worked["pairs"][0]["unit"] = "XX"
    problem = only(problems_of(worked), "unknown_unit")
    assert (problem.pair, problem.params["id"]) == (1, "XX")


def test_duplicate_pair_id(worked):
    worked["pairs"][1]["id"] = 1
    assert only(problems_of(worked), "duplicate_pair").params["id"] == 1


def test_pair_seated_twice_in_a_round(worked):
    worked["rounds"][0]["tables"][3] = {"bye": 1}
    problem = only(problems_of(worked), "pair_seated_twice")
    assert (problem.round, problem.table, problem.params) == (1, None, {"id": 1, "first_table": 1})


def test_pair_seated_twice_at_two_tables(worked):
    worked["rounds"][0]["tables"][1]["ns"] = 4
    problem = only(problems_of(worked), "pair_seated_twice")
    assert (problem.round, problem.table, problem.params["first_table"]) == (1, 2, 1)


def test_rematch_across_rounds(worked):
    worked["rounds"].append(
        {
            "number": 2,
            "status": "published",
            "tables": [{"table": 1, "ns": 4, "ew": 1, "deals": []}],
        }
    )
    problem = only(problems_of(worked), "rematch")
    assert (problem.round, problem.table) == (2, 1)
    assert problem.params == {"a": 1, "b": 4, "first_round": 1}


def test_bad_tokens_are_all_reported(worked):
    worked["rounds"][0]["tables"][0]["deals"][2] = "EW4"
    worked["rounds"][0]["tables"][0]["deals"][6] = "ns1"
    found = [p for p in problems_of(worked) if p.code == "bad_token"]
    assert [(p.round, p.table, p.event, p.params["token"]) for p in found] == [
        (1, 1, 3, "EW4"),
        (1, 1, 7, "ns1"),
    ]


def test_event_after_past_a(worked):
    worked["rounds"][0]["tables"][0]["deals"] = ["NS3"] * 5 + ["EW1"]
    problem = only(problems_of(worked), "event_after_past_a")
    assert (problem.round, problem.table, problem.deal, problem.event) == (1, 1, 6, 6)


def test_too_few_deals_in_a_finished_round(worked):
    worked["rounds"][0]["tables"][0]["deals"] = ["NS1"] * 7
    problem = only(problems_of(worked), "too_few_deals")
    assert (problem.round, problem.table) == (1, 1)
    assert problem.params == {"deals": 7, "required": 8}


def test_too_many_deals(worked):
    worked["rounds"][0]["tables"][0]["deals"] = ["NS1", "EW1"] * 4 + ["NS2"]
    problem = only(problems_of(worked), "too_many_deals")
    assert (problem.round, problem.table, problem.deal) == (1, 1, 9)


def test_unfinished_round_may_have_fewer_deals(worked):
    worked["rounds"][0]["status"] = "published"
    worked["rounds"][0]["tables"][0]["deals"] = ["NS1"] * 3
    spec, problems = check_tournament(worked)
    assert problems == ()
    assert spec is not None


def test_deduction_for_unknown_pair(worked):
    worked["penalties"][1]["pair"] = 42
    problem = only(problems_of(worked), "unknown_pair")
    assert (problem.penalty, problem.params["id"]) == (2, 42)


def test_deduction_needs_a_positive_jcf(worked):
    worked["penalties"][1]["jcf"] = -1
    assert only(problems_of(worked), "bad_deduction").penalty == 2


def test_penalty_at_a_table_the_pair_did_not_sit_at(worked):
    worked["penalties"][0]["pair"] = 3
    assert only(problems_of(worked), "pair_not_at_table").penalty == 1


@pytest.mark.parametrize(
    ("table", "code"),
    [
        ([], "scale_table_empty"),
        ([[0, 13, 13], [2, 15, 11]], "scale_not_consecutive"),
        ([[0, 13, 12]], "scale_draw_unequal"),
        ([[0, 13, 13], [1, "x", 12]], "scale_row_malformed"),
        ([[0, 13, 13], [1, 12, 14]], "scale_ahead_below_behind"),
    ],
)
def test_bad_scale_table(worked, table, code):
    worked["settings"]["scale"] = {"table": table}
    problem = only(problems_of(worked), code)
    assert problem.setting == "scale"
    assert problem.path == "settings.scale"


def test_custom_scale_round_trips(worked):
    worked["settings"]["scale"] = {"table": [[jc, 10 + jc, 10 - jc] for jc in range(11)]}
    spec = parse_tournament(worked)
    assert to_dict(spec)["settings"]["scale"] == worked["settings"]["scale"]


def test_wrong_types(worked):
    worked["pairs"][0]["players"] = "张三 李四"
    worked["rounds"][0]["tables"][0]["deals"] = "NS3"
    worked["units"] = {"NJ": "南京"}
    found = [p for p in problems_of(worked) if p.code == "wrong_type"]
    paths = {p.path for p in found}
    assert {"pairs[0].players", "rounds[0].tables[0].deals", "units"} <= paths


def test_bad_start_and_end(worked):
    worked["rounds"][0]["tables"][1]["start"] = {"ns": 2, "ew": 15}
    worked["rounds"][0]["tables"][2]["end"] = {"forfeit": "north"}
    problems = problems_of(worked)
    assert only(problems, "bad_start").table == 2
    assert only(problems, "bad_end_side").table == 3


def test_rounds_must_be_numbered_in_order(worked):
    worked["rounds"][0]["number"] = 2
    assert only(problems_of(worked), "round_out_of_order").params == {"value": 2, "expected": 1}


def test_every_problem_is_collected_not_only_the_first(worked):
    worked["colour"] = 1
    worked["rounds"][0]["tables"][0]["deals"][0] = "XX"
    worked["rounds"][0]["tables"][1]["ew"] = 77
    worked["penalties"][1]["pair"] = 42
    worked["settings"]["scale"] = "27"
    codes = [p.code for p in problems_of(worked)]
    assert {"unknown_key", "bad_token", "unknown_pair", "not_one_of"} <= set(codes)
    assert len(codes) >= 5


def test_extensions_round_trip(worked):
    worked["pairs"][0]["seeding"] = 3
    worked["rounds"][0]["seed"] = 99
    worked["rounds"].append(
        {
            "number": 2,
            "status": "published",
            "tables": [
                {"table": 1, "ns": 1, "ew": 3, "deals": ["NS1"] * 8, "entry": "confirmed"},
                {"table": 2, "ns": 4, "ew": 5, "deals": ["EW2"]},
            ],
        }
    )
    assert to_dict(parse_tournament(worked)) == worked


def test_unconfirmed_results_do_not_count(worked):
    worked["rounds"].append(
        {
            "number": 2,
            "status": "published",
            "tables": [
                {"table": 1, "ns": 1, "ew": 3, "deals": ["NS1"] * 8, "entry": "confirmed"},
                {"table": 2, "ns": 4, "ew": 5, "deals": ["EW1"] * 8, "entry": "entered"},
            ],
        }
    )
    _after, rows = standings_from_file(parse_tournament(worked), after_round=2)
    by_pair = {row.pair: row for row in rows}
    assert by_pair[1].wins == 2
    assert by_pair[5].wins == 1  # round 1 forfeit win only: table 2 is not confirmed


# ---------------------------------------------------------------------------------------------
# Synthetic files (reports.demo) are valid and round-trip


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pairs=st.integers(min_value=4, max_value=40),
    rounds=st.integers(min_value=1, max_value=5),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_synthetic_files_are_valid_and_round_trip(pairs, rounds, seed):
    rounds = max(1, min(rounds, pairs // 3))  # withdrawals shrink the field
    data = synthetic_file(pairs, rounds, seed=seed, finished=rounds - 1)
    spec, problems = check_tournament(data)
    assert problems == ()
    again = to_dict(spec)
    assert dumps(to_dict(parse_tournament(copy.deepcopy(again)))) == dumps(again)


# ---------------------------------------------------------------------------------------------
# Issue 12: the revised settings, `lose:`, `late_sheet` and the extra deal (TOURNAMENT_FILE.md)


def test_new_tokens_ends_and_settings_round_trip(worked):
    # TOURNAMENT_FILE.md: "`lose:NS` / `lose:EW` — 本副判负"; "`{"late_sheet": "ns"|"ew"}`";
    # "With "tie": "extra_deal" a table may hold one deal beyond deals_per_round".
    worked["settings"].update({"a_pass": "double_only", "a_fail_count": "stage"})
    worked["settings"]["tie"] = "extra_deal"
    del worked["settings"]["bye"]  # by the scale
    worked["rounds"].append(
        {
            "number": 2,
            "status": "finished",
            "tables": [
                {
                    "table": 1,
                    "ns": 1,
                    "ew": 3,
                    "deals": ["NS1", "lose:EW", "EW1", "foul:NS", "NS1", "EW1", "NS1", "EW1"],
                    "end": {"late_sheet": "ew"},
                },
                {"table": 2, "ns": 4, "ew": 5, "deals": ["NS1", "EW1"] * 4 + ["lose:NS"]},
            ],
        }
    )
    spec = parse_tournament(copy.deepcopy(worked))
    assert to_dict(spec) == worked
    assert dumps(to_dict(parse_tournament(to_dict(spec)))) == dumps(worked)
    table_1, table_2 = spec.rounds[1].tables
    assert table_1.end is not None and table_1.end.kind == "late_sheet"
    assert [e.token for e in table_1.events][1] == "lose:EW"
    assert table_2.result is not None and table_2.result.extra_deal
    assert table_2.result.winner is not None and table_2.result.winner.value == "EW"
    rules = spec.rules
    assert (rules.a_pass, rules.a_fail_count, rules.tie) == ("double_only", "stage", "extra_deal")
    assert (rules.bye.jcf, rules.forfeit.jcf) == (17, 17)


def test_old_files_keep_their_settings_exactly(worked):
    # Files written before the revised settings round-trip without gaining keys.
    settings_ = to_dict(parse_tournament(copy.deepcopy(worked)))["settings"]
    assert list(settings_) == list(worked["settings"])
    assert not {"a_pass", "a_fail_count", "tie"} & set(settings_)


@pytest.mark.parametrize(("key", "value"), [("tie", "coin"), ("a_pass", 3), ("a_fail_count", "")])
def test_bad_new_settings_are_named(worked, key, value):
    worked["settings"][key] = value
    problem = only(problems_of(worked), "not_one_of")
    assert (problem.setting, problem.path, problem.params["value"]) == (
        key,
        f"settings.{key}",
        value,
    )


def test_bad_end_names_the_three_ends(worked):
    worked["rounds"][0]["tables"][0]["end"] = {"late": "ns"}
    assert only(problems_of(worked), "bad_end").table == 1
    worked["rounds"][0]["tables"][0]["end"] = {"late_sheet": "north"}
    assert only(problems_of(worked), "bad_end_side").params == {"value": "north"}


def test_extra_deal_without_a_tie_is_refused_at_its_deal(worked):
    worked["settings"]["tie"] = "extra_deal"
    worked["rounds"][0]["tables"][0]["deals"] = ["NS1", "EW1"] * 3 + ["NS1", "NS1", "EW2"]
    problem = only(problems_of(worked), "extra_deal_without_tie")
    assert (problem.round, problem.table, problem.deal, problem.event) == (1, 1, 9, 9)
    assert problem.params == {"token": "EW2", "ns": 7, "ew": 5}


def test_penalty_loss_after_past_a_is_refused(worked):
    # RULES.md §2 "A 判负 after a side has passed A is refused (the match is over)."
    worked["rounds"][0]["tables"][1] = {
        "table": 2,
        "ns": 3,
        "ew": 6,
        "deals": ["EW3"] * 5,
        "end": {"penalty_loss": "ns"},
    }
    problem = only(problems_of(worked), "penalty_loss_after_past_a")
    assert (problem.round, problem.table, problem.params) == (1, 2, {"side": "NS", "passed": "EW"})


def test_a_finished_timed_table_with_nothing_played_is_refused(worked):
    # RULES.md §2 "A finished match with no deal and no `end` is refused (nothing was played)."
    worked["settings"]["round_format"] = "timed"
    worked["rounds"][0]["tables"][0]["deals"] = []
    problem = only(problems_of(worked), "nothing_played")
    assert (problem.round, problem.table) == (1, 1)
    worked["rounds"][0]["status"] = "published"  # still being played: fine
    assert check_tournament(worked)[1] == ()


def test_late_sheet_standings_from_the_file(worked):
    # TOURNAMENT_FILE.md: "A `late_sheet` side counts a loss with 0 CF, 0 JCF, 0
    # `level_difference` and 0 `upgrades`; its opponent keeps the real figures of the deals."
    worked["rounds"][0]["tables"][0]["end"] = {"late_sheet": "ns"}
    _after, before = standings_from_file(parse_tournament(golden("worked-example")), 1)
    _after, after = standings_from_file(parse_tournament(worked), 1)
    was, now = {r.pair: r for r in before}, {r.pair: r for r in after}
    assert (now[1].cf, now[1].jcf, now[1].losses, now[1].level_difference, now[1].upgrades) == (
        0,
        0,
        1,
        0,
        0,
    )
    assert (now[4].cf, now[4].jcf, now[4].losses) == (was[4].cf, was[4].jcf, was[4].losses)
    assert (now[4].level_difference, now[4].upgrades) == (
        was[4].level_difference,
        was[4].upgrades,
    )


@pytest.mark.parametrize("value", [5, "tables", {"table": 1}, True])
def test_a_round_whose_tables_are_not_a_list_is_named_not_a_crash(worked, value):
    # A fuzzed file once held "tables": 5 and the team-bye reader iterated it (TypeError).
    worked["rounds"][0]["tables"] = value
    found = [p for p in problems_of(worked) if p.code == "wrong_type"]
    assert "rounds[0].tables" in {p.path for p in found}
