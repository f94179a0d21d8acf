"""Smoke test of the issue 4 benchmark (benchmarks/tournament_db.py) on a tiny tournament."""

from __future__ import annotations

import pytest

from benchmarks.tournament_db import report, run

pytestmark = pytest.mark.django_db


def test_tournament_db_bench_runs_on_a_tiny_tournament():
    imports, standings, pairing, incremental = run(import_pairs=12, sizes=(12,), rounds=3, repeat=1)
    assert (imports.pairs, imports.rounds) == (12, 3)
    assert imports.events > 0
    assert [s.pairs for s in standings] == [12]
    assert standings[0].queries <= 8
    assert pairing.round == 4
    assert (incremental.pairs, incremental.round, incremental.confirmations) == (12, 3, 1)
    text = report(imports, standings, pairing, incremental, "sqlite")
    assert text.startswith("## Tournaments in the database")
    assert "| import of the 12-pair file under 60 s |" in text
    assert "| standings page after one confirmation (12 × 3) ≤ 100 ms |" in text
