"""STYLE.md: the pure core imports no Django (proved in a fresh interpreter)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_pure_core_loads_no_django():
    code = (
        "import sys\n"
        "import rules.ruleset, rules.progression, rules.limits\n"
        "import scoring.engine, scoring.standings, scoring.criteria, scoring.ranking\n"
        "import scoring.standings_input, scoring.standings_state\n"
        "import scoring.rules_data\n"
        "import scoring.teams, scoring.corrections\n"
        "import pairing.swiss, pairing.swiss_problem, pairing.swiss_fast, pairing.swiss_exact\n"
        "import pairing.matching, pairing.matching_lp, pairing.groups, pairing.knockout\n"
        "import scoring.series, rules.stages\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(','.join(loaded))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""
