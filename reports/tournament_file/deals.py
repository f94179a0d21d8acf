"""A match's facts in a tournament file (TOURNAMENT_FILE.md "Deals"): its ``start`` levels,
its ``deals`` (the event tokens, every bad one reported) and its ``end`` — for a table and for
each game of a best-of-n knockout match alike — and their score by the one engine, an engine
refusal becoming a problem at the offending event.

Pure: the standard library, ``rules`` and the pure scoring engine (``scoring.engine``,
``scoring.series``).
"""

from __future__ import annotations

from typing import Any

from rules.errors import RuleError, ScoringError
from rules.events import Event, Side, parse_event
from rules.levels import ACE, LOWEST
from rules.ruleset import RuleSet
from scoring.engine import End, MatchResult, Start, score_match
from scoring.series import score_game

from .problems import Problems, is_int
from .specs import END_KEYS

# A match's facts as read: the events, the start (None: both at 2) and the end (None: by its
# deals); None when any of them is wrong (the problems are collected).
Facts = tuple[list[Event], Start | None, End | None]


def read_facts(
    problems: Problems, raw: dict[str, Any], at: str, where: dict[str, Any]
) -> Facts | None:
    """The ``start``, ``end`` and ``deals`` of a table or a game, every problem collected."""
    start, end = read_start(problems, raw, at, where), read_end(problems, raw, at, where)
    events = read_events(problems, raw, at, where)
    if events is None or start is False or end is False:
        return None
    return (
        events,
        start if isinstance(start, Start) else None,
        end if isinstance(end, End) else None,
    )


def read_start(
    problems: Problems, raw: dict[str, Any], at: str, where: dict[str, Any]
) -> Start | bool | None:
    """``None`` for no start, ``False`` when the start is wrong (a problem was added)."""
    if "start" not in raw:
        return None
    value = raw["start"]
    path = f"{at}.start"
    if not problems.expect(value, "object", path, **where):
        return False
    problems.keys(value, ("ns", "ew"), path, **where)
    levels = []
    for key in ("ns", "ew"):
        level = value.get(key, LOWEST)
        if not is_int(level) or not LOWEST <= level <= ACE:
            problems.add("bad_start", f"{path}.{key}", {"level": level}, **where)
            return False
        levels.append(level)
    return Start(levels[0], levels[1])


def _side(value: Any) -> Side | None:
    if isinstance(value, str) and value.upper() in ("NS", "EW") and value == value.lower():
        return Side(value.upper())
    return None


def read_end(
    problems: Problems, raw: dict[str, Any], at: str, where: dict[str, Any]
) -> End | bool | None:
    """``None`` for no end, ``False`` when the end is wrong (a problem was added)."""
    if "end" not in raw:
        return None
    value = raw["end"]
    path = f"{at}.end"
    if not problems.expect(value, "object", path, **where):
        return False
    if len(value) != 1 or next(iter(value)) not in END_KEYS:
        problems.add("bad_end", path, {"value": value}, **where)
        return False
    kind, side_text = next(iter(value.items()))
    side = _side(side_text)
    if side is None:
        problems.add("bad_end_side", f"{path}.{kind}", {"value": side_text}, **where)
        return False
    return End(kind, side)


def read_events(
    problems: Problems, raw: dict[str, Any], at: str, where: dict[str, Any]
) -> list[Event] | None:
    """The ``deals`` tokens parsed (``rules.events.parse_event``); None if any is bad — every
    bad token is reported, not only the first."""
    value = raw.get("deals", [])
    path = f"{at}.deals"
    if not problems.expect(value, "list", path, **where):
        return None
    events: list[Event] = []
    ok = True
    deal = 0
    for position, token in enumerate(value):
        try:
            event = parse_event(token, position)
        except RuleError as error:
            problems.add(
                "bad_token",
                f"{path}[{position}]",
                dict(error.params),
                event=position + 1,
                deal=deal + 1,
                **where,
            )
            ok = False
            deal += 1
            continue
        if event.is_deal:
            deal += 1
        events.append(event)
    return events if ok else None


def score(
    problems: Problems,
    facts: Facts,
    rules: RuleSet,
    complete: bool,
    at: str,
    where: dict[str, Any],
    *,
    knockout: bool = False,
) -> tuple[MatchResult | None, int | None]:
    """The facts scored by the one engine: ``(result, time call)``. A knockout game is scored
    as ``scoring.series.score_game`` reads one (a closed game tied at its last deal may end
    with the extra deal after time was called); every other table by
    ``scoring.engine.score_match`` (no time call). A refusal is a problem at the offending
    event and gives ``(None, None)``."""
    events, start, end = facts
    try:
        if knockout:
            return score_game(events, rules, start, end, complete=complete)
        return score_match(events, rules, start, end, complete=complete), None
    except ScoringError as error:
        place: dict[str, Any] = {}
        path = f"{at}.deals"
        if error.position is not None:
            path = f"{path}[{error.position}]"
            deals_before = sum(1 for e in events[: error.position] if e.is_deal)
            event = events[error.position]
            place["event"] = error.position + 1
            place["deal"] = deals_before + 1 if event.is_deal else None
        problems.add(error.code, path, dict(error.params), **place, **where)
        return None, None
