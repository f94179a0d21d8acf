"""A knockout table's match in a tournament file (RULES.md §8, TOURNAMENT_FILE.md "Stages"):
a best-of-n table's ``games``, each read like a table's facts, and the match decided — by the
scoring the services use (``scoring.series``: each game by ``score_game``, the match by
``decide_games``), never a second way. A closed match (its round finished or its table
entered) must have a winner; no game may follow the deciding one; every game but the last must
be decided (the problems ``match_not_decided``, ``game_after_match``, ``game_not_decided``).

Pure: the standard library, ``rules`` and the pure scoring engine.
"""

from __future__ import annotations

from typing import Any

from rules.errors import ScoringError
from rules.ruleset import RuleSet
from scoring.engine import MatchResult
from scoring.series import Series, decide_games

from .deals import read_facts, score
from .problems import Problems
from .specs import GameSpec

GAME_KEYS = ("start", "deals", "end")  # one game of a best-of-n knockout match (RULES.md §8)


def read_games(
    problems: Problems,
    raw: dict[str, Any],
    at: str,
    where: dict[str, Any],
    rules: RuleSet,
    best_of: int,
    closed: bool,
) -> tuple[tuple[GameSpec, ...], Series | None]:
    """A best-of-n table's ``games`` and the match so far (None when a game is wrong). Every
    game but the last is scored complete (a game was over when another followed it), the last
    when the match is ``closed``."""
    value = raw.get("games", [])
    path = f"{at}.games"
    if not problems.expect(value, "list", path, **where):
        return (), None
    games: list[GameSpec] = []
    results: list[MatchResult] = []
    ok = True
    for index, item in enumerate(value):
        game_at = f"{path}[{index}]"
        if not problems.expect(item, "object", game_at, **where):
            ok = False
            continue
        problems.keys(item, GAME_KEYS, game_at, **where)
        facts = read_facts(problems, item, game_at, where)
        if facts is None:
            ok = False
            continue
        complete = closed or index < len(value) - 1
        result, time_deals = score(problems, facts, rules, complete, game_at, where, knockout=True)
        events, start, end = facts
        games.append(GameSpec(tuple(events), start, end, time_deals))
        if result is None:
            ok = False
        else:
            results.append(result)
    if not ok:
        return tuple(games), None
    try:
        series = decide_games(results, rules, best_of, closed)
    except ScoringError as error:
        problems.add(error.code, path, dict(error.params), **where)
        return tuple(games), None
    if closed and series.winner is None:
        params = {"games": len(games), "best_of": best_of}
        problems.add("match_not_decided", path, params, **where)
    return tuple(games), series


def check_decided(
    problems: Problems, result: MatchResult, rules: RuleSet, at: str, where: dict[str, Any]
) -> None:
    """A closed one-game knockout match (a table's own ``deals``) must have a winner."""
    if decide_games([result], rules, 1, closed=True).winner is None:
        problems.add("match_not_decided", at, {"games": 1, "best_of": 1}, **where)
