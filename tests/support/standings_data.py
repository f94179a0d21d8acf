"""A random tournament for the standings benchmark and tests (test support; moved from
``scoring/bench.py`` by issue 18 so that the apps hold no test data).

``build_tournament(pairs, rounds, seed, rules)`` gives the tables of every round (tokens as the
engine receives them), their outcomes and some deductions. Round 1 is paired at random, later
rounds neighbours in the current match points (a Swiss-like field with realistic ties;
rematches are not avoided, which the standings do not mind); with an odd number of pairs the
last pair that has not had a bye sits out. Every match has 8 deals of realistic events — the
side that went out first and 3/2/1 in plausible proportions, an occasional foul or level award —
cut where a side passes A; about one table in 200 is a forfeit, one in 500 a loss by penalty,
one in 100 starts with lateness, and about one pair in 100 gets a deduction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from rules.errors import ScoringError
from rules.events import Side
from rules.ruleset import RuleSet
from scoring.engine import End, Start, bye_outcome, match_outcomes, score_match
from scoring.standings import Deduction, Outcome

__all__ = ["DEALS_PER_ROUND", "Table", "build_tournament"]

DEALS_PER_ROUND = 8

# Deal tokens with plausible weights: partner 2nd (+3) rarer than 3rd (+2) or last (+1).
_TOKENS = ("NS3", "NS2", "NS1", "EW3", "EW2", "EW1", "foul:NS", "foul:EW", "adjust:NS+2")
_WEIGHTS = (22, 30, 46, 22, 30, 46, 1, 1, 0.3)


@dataclass(frozen=True, slots=True)
class Table:
    """One match as the engine receives it."""

    round: int
    ns: int
    ew: int
    tokens: tuple[str, ...]
    start: Start | None
    end: End | None


def _table_events(rng: random.Random) -> tuple[tuple[str, ...], Start | None, End | None]:
    """A realistic table: 8 events, sometimes lateness, a forfeit or a loss by penalty."""
    roll = rng.random()
    if roll < 0.005:  # 弃权: no deals
        return (), None, End("forfeit", rng.choice((Side.NS, Side.EW)))
    start = None
    if rng.random() < 0.01:  # 迟到: the punctual side starts at 3 or 4
        level = rng.choice((3, 4))
        start = Start(ns=level) if rng.random() < 0.5 else Start(ew=level)
    tokens: list[str] = []
    deals = 0
    while deals < DEALS_PER_ROUND:  # a level award is an event but not a deal
        token = rng.choices(_TOKENS, _WEIGHTS)[0]
        tokens.append(token)
        deals += not token.startswith("adjust")
    end = End("penalty_loss", rng.choice((Side.NS, Side.EW))) if roll > 0.998 else None
    return tuple(tokens), start, end


def build_tournament(
    pairs: int, rounds: int, seed: int, rules: RuleSet
) -> tuple[list[Table], list[Outcome], list[Deduction]]:
    """The tables of every round, their outcomes, and some deductions (not timed)."""
    rng = random.Random(seed)
    ids = list(range(1, pairs + 1))
    cf = dict.fromkeys(ids, 0.0)
    had_bye: set[int] = set()
    tables: list[Table] = []
    outcomes: list[Outcome] = []
    for number in range(1, rounds + 1):
        if number == 1:
            order = ids[:]
            rng.shuffle(order)
        else:  # neighbours in the current match points, random within a score group
            noise = {p: rng.random() for p in ids}
            order = sorted(ids, key=lambda p: (-cf[p], noise[p]))
        if len(order) % 2:
            bye = next((p for p in reversed(order) if p not in had_bye), order[-1])
            had_bye.add(bye)
            order.remove(bye)
            outcomes.append(bye_outcome(number, bye, rules))
            cf[bye] += outcomes[-1].cf
        for ns, ew in zip(order[::2], order[1::2], strict=True):
            tokens, start, end = _table_events(rng)
            try:
                result = score_match(tokens, rules, start=start, end=end)
            except ScoringError as error:
                if error.code == "event_after_past_a" and error.position is not None:
                    tokens = tokens[: error.position]  # the match ended when a side passed A
                elif error.code != "penalty_loss_after_past_a":
                    raise
                end = None  # RULES.md §2: no 判负 after 过A
                result = score_match(tokens, rules, start=start, end=end)
            tables.append(Table(number, ns, ew, tokens, start, end))
            pair_outcomes = match_outcomes(number, ns, ew, result)
            outcomes.extend(pair_outcomes)
            cf[ns] += pair_outcomes[0].cf
            cf[ew] += pair_outcomes[1].cf
    deductions = [Deduction(rng.randint(1, rounds), pair, 1) for pair in ids if rng.random() < 0.01]
    return tables, outcomes, deductions
