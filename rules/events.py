"""The events at a table, as written in the tournament file (TOURNAMENT_FILE.md "Deals").

- ``NS3`` … ``EW1``: a deal; the side whose player went out first (上游) and its upgrade
  (3: partner 2nd, 2: partner 3rd, 1: partner last — RULES.md §1).
- ``foul:NS``: that side committed 犯规; the deal ends, scored as the other side ``…3`` (§3).
- ``lose:NS``: 本副判负 of that side (seed 003: wrong card count, wrong tribute after play,
  unreported cards — "本副牌违规方直接判负，按双下记分"); scored exactly like a foul, but it is
  not a 犯规, so it does not count towards "two fouls → 判负" (RULES.md §3).
- ``adjust:NS+2``: a referee's level award to that side; not a deal (RULES.md §3 升级调整).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from .errors import RuleError


class Side(StrEnum):
    NS = "NS"
    EW = "EW"

    @property
    def other(self) -> Side:
        return Side.EW if self is Side.NS else Side.NS


class EventKind(StrEnum):
    DEAL = "deal"
    FOUL = "foul"
    LOSE = "lose"  # 本副判负 (RULES.md §3)
    ADJUST = "adjust"


# RULES.md §1: partner 2nd → +3, partner 3rd → +2, partner last → +1.
PARTNER_PLACE_UPGRADE = {2: 3, 3: 2, 4: 1}
MAX_ADJUST = 13

_DEAL = re.compile(r"^(NS|EW)([123])$")
_FOUL = re.compile(r"^foul:(NS|EW)$")
_LOSE = re.compile(r"^lose:(NS|EW)$")
_ADJUST = re.compile(r"^adjust:(NS|EW)\+([0-9]{1,2})$")


@dataclass(frozen=True, slots=True)
class Event:
    """One event at a table. ``side`` is who went out first (deal), who fouled (foul), who lost
    the deal by penalty (lose), or who receives the award (adjust); ``upgrade`` is the levels the
    beneficiary climbs."""

    kind: EventKind
    side: Side
    upgrade: int

    def __post_init__(self) -> None:
        if self.kind is EventKind.DEAL and self.upgrade not in (1, 2, 3):
            raise RuleError("bad_token", token=f"{self.side}{self.upgrade}")
        if self.kind in (EventKind.FOUL, EventKind.LOSE) and self.upgrade != 3:
            raise RuleError("bad_token", token=f"{self.kind}:{self.side}")
        if self.kind is EventKind.ADJUST and not 1 <= self.upgrade <= MAX_ADJUST:
            raise RuleError("bad_token", token=f"adjust:{self.side}+{self.upgrade}")

    @classmethod
    def deal(cls, side: Side | str, upgrade: int) -> Event:
        return cls(EventKind.DEAL, Side(side), upgrade)

    @classmethod
    def foul(cls, offender: Side | str) -> Event:
        return cls(EventKind.FOUL, Side(offender), 3)

    @classmethod
    def lose(cls, offender: Side | str) -> Event:
        """本副判负 of ``offender``: scored as the other side's 双下 (+3), not a foul."""
        return cls(EventKind.LOSE, Side(offender), 3)

    @classmethod
    def adjust(cls, side: Side | str, levels: int) -> Event:
        return cls(EventKind.ADJUST, Side(side), levels)

    @property
    def token(self) -> str:
        if self.kind is EventKind.DEAL:
            return f"{self.side}{self.upgrade}"
        if self.kind is EventKind.FOUL:
            return f"foul:{self.side}"
        if self.kind is EventKind.LOSE:
            return f"lose:{self.side}"
        return f"adjust:{self.side}+{self.upgrade}"

    @property
    def is_deal(self) -> bool:
        """A deal, a foul or a deal loss ends a deal and counts toward the round's deals; an award
        does not."""
        return self.kind is not EventKind.ADJUST

    @property
    def beneficiary(self) -> Side:
        """The side that climbs: RULES.md §3, a foul or a deal loss is scored as the innocent
        side's +3 (双下 for the offender)."""
        if self.kind is EventKind.FOUL or self.kind is EventKind.LOSE:
            return self.side.other
        return self.side

    def __str__(self) -> str:
        return self.token


def parse_event(token: str, position: int | None = None) -> Event:
    """Parse one token of a table's ``deals`` list; the error names the bad token."""
    if not isinstance(token, str):
        raise RuleError("bad_token", position=position, token=token)
    text = token.strip()
    if match := _DEAL.match(text):
        return Event(EventKind.DEAL, Side(match[1]), int(match[2]))
    if match := _FOUL.match(text):
        return Event(EventKind.FOUL, Side(match[1]), 3)
    if match := _LOSE.match(text):
        return Event(EventKind.LOSE, Side(match[1]), 3)
    if match := _ADJUST.match(text):
        levels = int(match[2])
        if 1 <= levels <= MAX_ADJUST:
            return Event(EventKind.ADJUST, Side(match[1]), levels)
    raise RuleError("bad_token", position=position, token=token)


def deal_from_places(first: Side | str, partner_place: int) -> Event:
    """The deal in which ``first``'s player went out first and the partner finished
    ``partner_place`` (2, 3 or 4) — the way a referee reads a score sheet."""
    if partner_place not in PARTNER_PLACE_UPGRADE:
        raise RuleError("bad_partner_place", place=partner_place)
    return Event.deal(first, PARTNER_PLACE_UPGRADE[partner_place])
