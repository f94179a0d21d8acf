"""The scoring rules as data, for the score sheet's page when the phone is offline (issue 16).

The page keeps working from a local state while its taps wait in the outbox. That state must
come from the same rules as the server's, not from a second hand-written copy: so this module
walks ``rules.progression.apply_event`` itself over every table state a match can reach with
deals (from every legal start, RULES.md §1–§2) and writes the transitions down as a table.
``static/js/sheet-rules.js`` only looks them up; what it adds (counting deals, the round's
limit, the extra deal of a level tie, 级差 and the scale) is checked against the server's sheet
for random deal sequences by ``tests/web/test_sheet_rules_js.py``.

Pure: the standard library, ``rules`` and ``scoring.engine`` (for the match-level settings).
The layout (``FORMAT`` 1):

- ``moves``: the six deal results ``[beneficiary, upgrade]`` (0 = NS, 1 = EW); ``tokens`` maps
  every token a tap may post (``NS3``, ``foul:EW``, ``lose:NS`` …) to its move — a foul or a deal
  loss is scored as the other side's +3 (RULES.md §3), so it is that move;
- ``states``: ``[ns, ew, on_stage, ns_a_failures, ew_a_failures, level_in_play]`` (on_stage
  0 = nobody, 1 = NS, 2 = EW); ``starts`` maps ``"ns:ew"`` to the state before the first deal;
- ``next``: per state, per move, ``next_state * 27 + attempt_at_a * 9 + reset_to_2 * 3 +
  a_failure`` (each a side: 0 = none, 1 = NS, 2 = EW); a state past A has no moves (RULES.md §2:
  the match ends at once);
- the match settings: ``max_deals``, ``tie``, ``timed``, ``a_fail_count``, ``a_attempts``, the
  级差分 ``scale`` (``[ahead, behind]`` by 级差, capped), the match ``points`` (win, draw,
  loss), ``extra_from_two`` (RULES.md §9: the extra deal at 2 moves no level) and
  ``deal_points`` (RULES.md §9: not replayed — the page queues its taps, as for an award).

The upgrades (RULES.md §9: 3/2/1 or 5/3/1) are in the transitions; the starts are those the
event's lateness rule allows.

Only deals are in the table: a referee's level award (``adjust:…``) is not a tap and can reach
states the table does not hold; the page then queues its taps without local levels.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rules.events import Event, Side, deal_from_places, parse_event
from rules.levels import LOWEST, PAST_ACE
from rules.progression import TableState, apply_event, initial_state
from rules.ruleset import RuleSet

FORMAT = 1
_SIDE_CODE = {None: 0, Side.NS: 1, Side.EW: 2}
MOVES: tuple[Event, ...] = tuple(
    deal_from_places(side, place) for side in (Side.NS, Side.EW) for place in (2, 3, 4)
)


def tap_tokens() -> tuple[str, ...]:
    """Every token a tap may post: the six deals, and a foul or a deal loss of either side."""
    sides = ("NS", "EW")
    return (
        *(move.token for move in MOVES),
        *(f"foul:{side}" for side in sides),
        *(f"lose:{side}" for side in sides),
    )


def _move_of(token: str) -> int:
    event = parse_event(token)
    for index, move in enumerate(MOVES):
        if move.beneficiary is event.beneficiary and move.upgrade == event.upgrade:
            return index
    raise ValueError(token)  # every tap token is a deal-like event: a bug otherwise


def _starts(levels: tuple[int, ...]) -> list[tuple[int, int]]:
    """Every legal start (RULES.md §2 迟到: the punctual side at a level of ``levels`` — 2, 3
    or 4 by the regulation — the other at 2)."""
    return sorted({(a, LOWEST) for a in levels} | {(LOWEST, a) for a in levels})


def _row(state: TableState) -> list[int]:
    return [
        state.ns,
        state.ew,
        _SIDE_CODE[state.on_stage],
        state.ns_a_failures,
        state.ew_a_failures,
        state.level_in_play,
    ]


def rules_data(rules: RuleSet) -> dict[str, Any]:
    """The transition table of ``rules`` (see the module docstring), JSON-able and
    deterministic: states are numbered in breadth-first order from the starts."""
    args = (rules.a_rule, rules.a_attempts, rules.a_fail_count, rules.a_pass, rules.upgrades.values)
    levels = rules.lateness.start_levels
    ids: dict[TableState, int] = {}
    order: list[TableState] = []
    queue: deque[TableState] = deque()

    def intern(state: TableState) -> int:
        found = ids.get(state)
        if found is None:
            found = ids[state] = len(order)
            order.append(state)
            queue.append(state)
        return found

    starts = {f"{ns}:{ew}": intern(initial_state(ns, ew, levels)) for ns, ew in _starts(levels)}
    transitions: list[list[int]] = []
    while queue:
        state = queue.popleft()
        row: list[int] = []
        if state.passed_a is None:
            for move in MOVES:
                change = apply_event(state, move, *args)
                row.append(
                    intern(change.state) * 27
                    + _SIDE_CODE[change.attempt_at_a] * 9
                    + _SIDE_CODE[change.reset_to_2] * 3
                    + _SIDE_CODE[change.a_failure]
                )
        transitions.append(row)
    return {
        "format": FORMAT,
        "moves": [[_SIDE_CODE[m.beneficiary] - 1, m.upgrade] for m in MOVES],
        "tokens": {token: _move_of(token) for token in tap_tokens()},
        "states": [_row(state) for state in order],
        "starts": starts,
        "next": transitions,
        "past_ace": PAST_ACE,
        "max_deals": rules.max_deals,
        "tie": rules.tie,
        "timed": rules.timed,
        "extra_from_two": rules.extra_from_two,
        "deal_points": rules.deal_points,
        "a_fail_count": rules.a_fail_count,
        "a_attempts": rules.a_attempts,
        "scale": [[ahead, behind] for _, ahead, behind in rules.scale.rows],
        "points": [rules.match_points.win, rules.match_points.draw, rules.match_points.loss],
    }
