"""benchmarks.standings on a tiny field: the benchmark's tournaments are valid and it reports its
figures (issue 2 §6, issue 18). The full ``make bench`` sizes are not run here."""

from __future__ import annotations

import json

from benchmarks.standings import main, run_bench, standings_growth
from rules.ruleset import RuleSet
from scoring.standings import standings_by_round
from tests.support.standings_data import build_tournament


def test_bench_tournament_gives_every_pair_one_outcome_a_round():
    rules = RuleSet.from_dict({"rounds": 4, "seed": 3})
    tables, outcomes, _ = build_tournament(15, 4, 3, rules)
    assert len(tables) == 4 * 7
    for number in range(1, 5):
        assert sorted(o.pair for o in outcomes if o.round == number) == list(range(1, 16))
    # An odd field: one bye a round, never twice to the same pair (RULES.md §2).
    byes = [o.pair for o in outcomes if o.kind == "bye"]
    assert len(byes) == len(set(byes)) == 4


def test_bench_standings_run_on_its_tournament():
    rules = RuleSet.from_dict({"rounds": 3, "seed": 5})
    _, outcomes, deductions = build_tournament(40, 3, 5, rules)
    by_round = standings_by_round(range(1, 41), outcomes, deductions, "regulation", 5, 3)
    assert [len(rows) for rows in by_round.values()] == [40, 40, 40]


def test_bench_reports_its_figures(capsys):
    result = run_bench(pairs=20, rounds=3, seed=2, repeat=1, reference=True)
    assert result.matches == 30
    assert result.events > 0
    timed = (
        result.scoring_seconds,
        result.standings_seconds,
        result.by_round_seconds,
        result.floor_seconds,
        result.confirmation_seconds,
        result.cold_seconds,
    )
    assert min(timed) >= 0
    assert result.reference_seconds is not None
    assert result.frozen_state_bytes > 0

    assert main(["--pairs", "12", "--rounds", "2", "--repeat", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"] == 12
    assert data["matches"] == 12
    assert data["reference_seconds"] is None
    assert {"standings_seconds", "confirmation_seconds", "cold_seconds", "scoring_goal_met"} <= set(
        data
    )


def test_bench_rejects_a_field_too_small(capsys):
    assert main(["--pairs", "1"]) == 2
    assert "--pairs" in capsys.readouterr().err


def test_bench_growth_runs_both_sizes_in_turn():
    growth = standings_growth((12, 24), rounds=2, seed=4, repeat=3)
    assert len(growth.ratios) == 3
    assert 0 < growth.small_seconds and 0 < growth.large_seconds
    assert growth.ratio == growth.large_seconds / growth.small_seconds
    assert min(growth.ratios) <= growth.median_ratio <= max(growth.ratios)
