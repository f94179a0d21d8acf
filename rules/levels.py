"""Levels 级数 (RULES.md §1): 2 3 4 5 6 7 8 9 10 J Q K A, then 过A (passed A).

Encoded as integers 2…14, and 15 for 过A.
"""

from __future__ import annotations

from .errors import RuleError

LOWEST = 2
ACE = 14
PAST_ACE = 15

_LABELS = {11: "J", 12: "Q", 13: "K", 14: "A", 15: "过A"}


def level_label(level: int) -> str:
    """The level as players write it: ``"10"``, ``"J"``, ``"A"``, ``"过A"``."""
    if not LOWEST <= level <= PAST_ACE:
        raise RuleError("bad_level", level=level)
    return _LABELS.get(level, str(level))
