"""docs/scoring.md: every worked example of the revised rules is computed here by the engine.

The examples are the page's ```json blocks with an ``"example"`` key; the test reads them from
the page itself, so the page and the engine cannot drift apart. The worked example of
TOURNAMENT_FILE.md on the same page is checked by the golden tests (``worked-example.json``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rules.errors import ScoringError
from rules.events import Side
from rules.ruleset import RuleSet
from scoring.engine import End, Start, match_outcomes, score_match

PAGE = Path(__file__).resolve().parents[2] / "docs" / "scoring.md"
BLOCKS = re.findall(r"```json\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
EXAMPLES = [data for data in map(json.loads, BLOCKS) if "example" in data]


def test_the_page_has_a_worked_example_for_every_revised_rule():
    names = {example["example"] for example in EXAMPLES}
    assert names >= {
        "upgrades",
        "a_fail_count stage",
        "a_pass double_only",
        "late scoresheet",
        "extra deal",
        "deal loss and a later foul",
        "forfeit on the 28 scale",
        "penalty loss after passing A",
        "nothing played",
    }


def _end(raw: dict[str, str] | None) -> End | None:
    if not raw:
        return None
    ((kind, side),) = raw.items()
    return End(kind, Side(side.upper()))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["example"] for e in EXAMPLES])
def test_worked_example(example: dict[str, Any]) -> None:
    rules = RuleSet.from_dict(example["settings"])
    start = Start(**example["start"]) if "start" in example else None
    end = _end(example.get("end"))
    expect = example["expect"]
    if "refused" in expect:
        with pytest.raises(ScoringError) as error:
            score_match(example["deals"], rules, start, end)
        assert error.value.code == expect["refused"]
        return
    result = score_match(example["deals"], rules, start, end)
    assert [result.ns_level, result.ew_level] == expect["levels"]
    ns, ew = match_outcomes(1, 1, 2, result)
    for outcome, want in ((ns, expect["ns"]), (ew, expect["ew"])):
        got = {key: getattr(outcome, key) for key in want}
        assert got == want
