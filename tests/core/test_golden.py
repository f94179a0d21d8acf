"""Golden tournament files (../shared/examples-next): engine + standings against figures computed
independently from RULES.md.

The loader here is deliberately minimal and test-only (finished rounds, tables, byes, deduction
penalties); the real tournament-file parser lives with the database import.
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from rules.events import Side
from rules.ruleset import RuleSet
from scoring.engine import End, Start, bye_outcome, match_outcomes, score_match
from scoring.standings import Deduction, Outcome, StandingRow, compute_standings
from tests.support.golden import EXAMPLES, expected_standings, golden_params

REPO = Path(__file__).resolve().parents[2]

NAMES = sorted(p.name.removesuffix(".standings.json") for p in EXAMPLES.glob("*.standings.json"))

FIGURES = (
    "cf",
    "jcf",
    "wins",
    "draws",
    "losses",
    "level_difference",
    "upgrades",
    "opponents_cf",
    "progressive",
    "deductions",
)


def _load(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    tournament = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    expected = expected_standings(name)
    return tournament, expected


def _standings(tournament: dict[str, Any], after_round: int) -> tuple[StandingRow, ...]:
    rules = RuleSet.from_dict(tournament["settings"])
    outcomes: list[Outcome] = []
    for round_ in tournament["rounds"]:
        if round_["status"] != "finished":
            continue
        number = round_["number"]
        for table in round_["tables"]:
            if "bye" in table:
                outcomes.append(bye_outcome(number, table["bye"], rules))
                continue
            start = Start(**table["start"]) if "start" in table else None
            end = None
            for kind, side in table.get("end", {}).items():
                end = End(kind, Side(side.upper()))
            result = score_match(table["deals"], rules, start=start, end=end)
            outcomes.extend(match_outcomes(number, table["ns"], table["ew"], result))
    deductions = [
        Deduction(p.get("round"), p["pair"], p["jcf"])
        for p in tournament.get("penalties", [])
        if p["kind"] == "deduction"
    ]
    pairs = [p["id"] for p in tournament["pairs"]]
    return compute_standings(pairs, outcomes, deductions, rules.tiebreaks, rules.seed, after_round)


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"golden examples not found at {EXAMPLES}")
@pytest.mark.parametrize("name", golden_params(NAMES) or ["(none)"])
def test_golden_file_standings_match_expected(name: str) -> None:
    # RULES.md §4 as a whole, on tournaments computed independently of this code.
    if name == "(none)":
        pytest.skip(f"no *.standings.json in {EXAMPLES}")
    tournament, expected = _load(name)
    rows = _standings(tournament, expected["after_round"])
    want = expected["rows"]

    assert [row.pair for row in rows if row.pair not in {w["pair"] for w in want}] == []
    assert len(rows) == len(want)
    got_by_pair = {row.pair: row for row in rows}
    for w in want:
        row = got_by_pair[w["pair"]]
        assert {f: getattr(row, f) for f in FIGURES} == {f: w[f] for f in FIGURES}, w["pair"]

    # Positions: exact, except that pairs tied by lot may swap among themselves.
    lot_group = {w["pair"]: frozenset([w["pair"], *w["tied_by_lot_with"]]) for w in want}
    assert [lot_group[row.pair] for row in rows] == [lot_group[w["pair"]] for w in want]
    assert [row.rank for row in rows] == [w["rank"] for w in want]
    # A pair placed below a lot-mate was put there by the drawing of lots, and only then.
    for above, row in pairwise(rows):
        assert (row.decided_by == "lot") == (lot_group[row.pair] == lot_group[above.pair])
