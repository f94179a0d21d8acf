"""Issue 16: the page's offline sheet (static/js/sheet-rules.js over the table of
scoring/rules_data.py) equals the server's sheet (scoring.sheet.sheet_state) for random deal
sequences, under several rule sets and both languages — levels, who is on stage, the deal count,
级差, 级差分, 场分, every row and its note — and refuses exactly the taps the server refuses.

Runs the JavaScript under the machine's node (v20); skipped, visibly, without it.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from rules.errors import RuleError
from rules.ruleset import Lateness, RuleSet, Upgrades
from scoring.facts import MatchFacts, score_table
from scoring.rules_data import rules_data, tap_tokens
from scoring.sheet import build_sheet, sheet_state, sheet_words

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "static" / "js" / "sheet-rules.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is missing: the JS sheet is untested")

RULE_SETS = {
    "default": RuleSet(),
    "reset_to_2": RuleSet(a_rule="reset_to_2", a_attempts=2, deals_per_round=30),
    "stage": RuleSet(a_rule="reset_to_2", a_attempts=3, a_fail_count="stage", round_format="timed"),
    "double_only": RuleSet(a_pass="double_only", round_format="game"),
    "extra_deal": RuleSet(tie="extra_deal", deals_per_round=4),
    "timed_deals": RuleSet(round_format="timed_deals", deals_per_round=6),
    # Time is called on equal levels now and then (``call_time``): the extra deal follows.
    "timed_tie": RuleSet(round_format="timed", tie="extra_deal"),
    "timed_deals_tie": RuleSet(round_format="timed_deals", deals_per_round=6, tie="extra_deal"),
    # RULES.md §9 (issue 28): 5/3/1 upgrades, the extra deal at 2, the side first at the common
    # level in a timed game, lateness starts beyond 4.
    "upgrades_531": RuleSet(upgrades=Upgrades(5, 3, 1), tie="extra_deal", deals_per_round=5),
    "extra_from_two": RuleSet(tie="extra_deal", extra_deal_from=2, deals_per_round=4),
    "first_to_level": RuleSet(round_format="timed", tie="first_to_level"),
    "late_per_minutes": RuleSet(lateness=Lateness("per_minutes", 5, 1, 25)),
}
STARTS = ((2, 2), (3, 2), (2, 4))
# A start every rule set allows, and the later ones: a head start beyond 4 (``per_minutes``).
LATE_STARTS = {"late_per_minutes": ((2, 2), (7, 2), (2, 6))}
# What the page compares (the facts and the version are the server's own business).
SHOWN = ("version", "start", "ended", "tokens", "time_deals")

RUNNER = """
const rules = require(process.argv[process.argv.length - 1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.items.map(function (c) {
  try {
    return {sheet: rules.compute(cases.data[c.rules], cases.words[c.rules], c.start, c.tokens,
                                 c.time_deals)};
  } catch (e) {
    if (e instanceof rules.Refused) return {refused: e.code};
    throw e;
  }
});
process.stdout.write(JSON.stringify(out));
"""


def _facts(start: tuple[int, int], tokens: list[str], time_deals: int | None = None) -> MatchFacts:
    return MatchFacts.from_columns(start[0], start[1], "", "", tokens=tokens, time_deals=time_deals)


def _server(
    rules: RuleSet, start: tuple[int, int], tokens: list[str], time_deals: int | None = None
) -> dict[str, Any]:
    facts = _facts(start, tokens, time_deals)
    state = sheet_state(build_sheet(facts, rules), facts, 0)
    return {key: value for key, value in state.items() if key not in SHOWN}


def _accepted(
    rules: RuleSet, start: tuple[int, int], tokens: list[str], time_deals: int | None = None
) -> str | None:
    """None when the server would take this sequence, else the engine's refusal code."""
    try:
        score_table(_facts(start, tokens, time_deals), rules)
    except RuleError as error:
        return error.code
    return None


def _cases(seed: int, per_rules: int) -> list[dict[str, Any]]:
    """Random tap sequences, each ending either where the match is over or with one tap the
    server refuses."""
    rng = random.Random(seed)
    tokens_pool = tap_tokens()
    items = []
    for name, rules in RULE_SETS.items():
        for _ in range(per_rules):
            start = rng.choice(LATE_STARTS.get(name, STARTS))
            tokens: list[str] = []
            called: int | None = None
            while len(tokens) < 60:
                # Lean on one side now and then so A is reached, attempted, failed and passed.
                token = rng.choice(tokens_pool if rng.random() < 0.5 else tokens_pool[:3])
                refused = _accepted(rules, start, [*tokens, token], called)
                if refused:
                    items.append(
                        {
                            "rules": name,
                            "start": start,
                            "tokens": [*tokens, token],
                            "time_deals": called,
                            "refused": refused,
                        }
                    )
                    break
                tokens.append(token)
                sheet = build_sheet(_facts(start, tokens, called), rules)
                items.append(
                    {"rules": name, "start": start, "tokens": list(tokens), "time_deals": called}
                )
                if sheet.may_call_time and rng.random() < 0.5:
                    called = len(tokens)  # every token of the pool is a deal
                    items.append(
                        {
                            "rules": name,
                            "start": start,
                            "tokens": list(tokens),
                            "time_deals": called,
                        }
                    )
                    sheet = build_sheet(_facts(start, tokens, called), rules)
                if sheet.finished:
                    # One tap more: the server refuses it (过A, the deals), so must the page.
                    extra = [*tokens, rng.choice(tokens_pool)]
                    refused = _accepted(rules, start, extra, called)
                    assert refused, extra
                    items.append(
                        {
                            "rules": name,
                            "start": start,
                            "tokens": extra,
                            "time_deals": called,
                            "refused": refused,
                        }
                    )
                    break
    return items


def _run_js(
    items: list[dict[str, Any]], rule_sets: dict[str, RuleSet] | None = None
) -> list[dict[str, Any]]:
    """The page's sheets for ``items``, each rule set (``RULE_SETS`` unless given) with its own
    words (``sheet_words``: the events described by its upgrades) in the active language."""
    rule_sets = RULE_SETS if rule_sets is None else rule_sets
    data = {name: rules_data(rules) for name, rules in rule_sets.items()}
    words = {name: sheet_words(rules) for name, rules in rule_sets.items()}
    payload = json.dumps({"data": data, "words": words, "items": items})
    done = subprocess.run(
        [str(NODE), "-e", RUNNER, str(SCRIPT)],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_page_computes_the_servers_sheet_for_random_deal_sequences(language: str) -> None:
    items = _cases(seed=16, per_rules=40)
    with translation.override(language):
        results = _run_js(items)
        checked = refused = calls = called = 0
        for item, result in zip(items, results, strict=True):
            where = f"{item['rules']} from {item['start']}: {' '.join(item['tokens'])}"
            if "refused" in item:
                assert result == {"refused": item["refused"]}, where
                refused += 1
                continue
            rules = RULE_SETS[item["rules"]]
            server = _server(rules, tuple(item["start"]), item["tokens"], item["time_deals"])
            assert result["sheet"] == server, where
            checked += 1
            calls += server["may_call_time"]
            called += item["time_deals"] is not None
    assert checked > 1000 and refused > 20  # the sequences reach far enough to mean something
    assert calls > 20 and called > 20  # time is offered, and called


def test_the_sequences_reach_every_note_the_sheet_can_write() -> None:
    """The random sequences are not all short: they pass A, fail at A, reset to 2 and play the
    extra deal — so the comparison above covers the whole rule table."""
    notes = set()
    for item in _cases(seed=16, per_rules=40):
        if "refused" in item:
            continue
        rules = RULE_SETS[item["rules"]]
        sheet = _server(rules, tuple(item["start"]), item["tokens"], item["time_deals"])
        notes.update(row["note"] for row in sheet["rows"])
        notes.add(sheet["status_line"])
    text = " ".join(notes)
    for expected in ("过A", "打A", "回到2", "上台打A被推翻", "加打一副", "副已打完", "从2打"):
        assert expected in text, expected


def test_a_token_outside_the_table_is_not_guessed() -> None:
    """A referee's level award is not in the table: the page says it cannot compute rather than
    inventing levels."""
    out = _run_js([{"rules": "default", "start": [2, 2], "tokens": ["NS3", "adjust:NS+2"]}])
    assert out == [{"sheet": None}]


def test_a_deal_points_match_is_not_replayed_by_the_page() -> None:
    """RULES.md §9 deal points: the page queues its taps rather than guess the points."""
    points = {"points": RuleSet(round_format="deal_points", deals_per_round=6)}
    items = [{"rules": "points", "start": [2, 2], "tokens": ["NS3"]}]
    assert _run_js(items, points) == [{"sheet": None}]
