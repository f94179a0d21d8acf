"""Levels 级数 (RULES.md §1): 2 3 4 5 6 7 8 9 10 J Q K A, then 过A (passed A).

Encoded as integers 2…14, and 15 for 过A.
"""

from __future__ import annotations

from .errors import RuleError

LOWEST = 2
ACE = 14
PAST_ACE = 15

_LABELS = {11: "J", 12: "Q", 13: "K", 14: "A", 15: "过A"}
_PARSE = {label.upper(): level for level, label in _LABELS.items()}
_PARSE.update({"过A": 15, "PAST_A": 15, "PASTA": 15, "A+": 15})


def level_label(level: int) -> str:
    """The level as players write it: ``"10"``, ``"J"``, ``"A"``, ``"过A"``."""
    if not LOWEST <= level <= PAST_ACE:
        raise RuleError("bad_level", level=level)
    return _LABELS.get(level, str(level))


def parse_level(text: str | int) -> int:
    """Parse ``"2"``…``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``, ``"过A"`` (or an int)."""
    if isinstance(text, int) and not isinstance(text, bool):
        level = text
    else:
        raw = str(text).strip().upper()
        if raw in _PARSE:
            return _PARSE[raw]
        if not raw.isdigit():
            raise RuleError("bad_level", level=text)
        level = int(raw)
    if not LOWEST <= level <= PAST_ACE:
        raise RuleError("bad_level", level=text)
    return level
