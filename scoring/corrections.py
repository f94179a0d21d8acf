"""A chief referee's correction of a confirmed table, one change at a time (issue 15): replace
deal 5, insert or delete a deal, change the lateness start or the end. Pure: an ``Edit``
applied to a table's facts (start, end, event tokens) gives the corrected facts, which
``scoring.services.correct_table`` checks with the engine and writes (audited, with the
reason).

The correction deadlines (RULES.md §7, seed 004 "成绩更正时限") are here too, as arithmetic:
an entry error (录入错误) may be corrected until the round's minutes after the round finished,
a published-result error (公布成绩错误, or any error the referees find) until the stage's
minutes after the stage finished (``Deadline``); ``scoring.deadlines`` reads the times.

May touch: the pure ``rules`` core and ``scoring.engine``'s types. No Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from rules.errors import RuleError
from rules.events import parse_event
from scoring.engine import End, Start

Facts = tuple[Start, End | None, tuple[str, ...]]


class EditKind(StrEnum):
    REPLACE = "replace"  # the event at ``position`` becomes ``token``
    INSERT = "insert"  # ``token`` is inserted before ``position`` (at the end: ``position`` = len)
    DELETE = "delete"  # the event at ``position`` is removed
    START = "start"  # the lateness start levels become ``start``
    END = "end"  # the end (弃权 / 判负 / 迟交记分表) becomes ``end`` (None: none)


@dataclass(frozen=True, slots=True)
class Edit:
    """One change of a table's facts. ``position`` is the 0-based index of the event."""

    kind: EditKind
    position: int = 0
    token: str = ""
    start: Start | None = None
    end: End | None = None

    @classmethod
    def replace(cls, position: int, token: str) -> Edit:
        return cls(EditKind.REPLACE, position, token)

    @classmethod
    def insert(cls, position: int, token: str) -> Edit:
        return cls(EditKind.INSERT, position, token)

    @classmethod
    def delete(cls, position: int) -> Edit:
        return cls(EditKind.DELETE, position)

    @classmethod
    def new_start(cls, start: Start) -> Edit:
        return cls(EditKind.START, start=start)

    @classmethod
    def new_end(cls, end: End | None) -> Edit:
        return cls(EditKind.END, end=end)


def apply_edit(start: Start, end: End | None, tokens: Sequence[str], edit: Edit) -> Facts:
    """The facts (start, end, tokens) after ``edit``. Raises ``RuleError("bad_position")`` for a
    position outside the table's events and ``RuleError("bad_token")`` for a token the core
    does not read; whether the result is a valid match is the engine's to say
    (``score_match``)."""
    if edit.kind is EditKind.START:
        return edit.start or Start(), end, tuple(tokens)
    if edit.kind is EditKind.END:
        return start, edit.end, tuple(tokens)
    new = list(tokens)
    limit = len(new) if edit.kind is EditKind.INSERT else len(new) - 1
    if not 0 <= edit.position <= limit:
        raise RuleError("bad_position", position=edit.position)
    if edit.kind is EditKind.DELETE:
        del new[edit.position]
    else:
        token = parse_event(edit.token, edit.position).token
        if edit.kind is EditKind.REPLACE:
            new[edit.position] = token
        else:
            new.insert(edit.position, token)
    return start, end, tuple(new)


# -- correction deadlines (RULES.md §7) ---------------------------------------------------------


class ErrorKind(StrEnum):
    """What is being corrected, which decides the deadline (RULES.md §7)."""

    ENTRY = "entry"  # 录入错误: within the round's minutes after the round finished
    PUBLISHED = "published"  # 公布成绩错误 / found by a referee: the stage's minutes after it


@dataclass(frozen=True, slots=True)
class Deadline:
    """Until when an error of ``kind`` may be corrected: ``minutes`` after ``since`` (the
    round's or the stage's end); ``since`` None while the round or stage is still on (open)."""

    kind: ErrorKind
    minutes: int
    since: datetime | None = None

    @property
    def until(self) -> datetime | None:
        return None if self.since is None else self.since + timedelta(minutes=self.minutes)

    def passed(self, now: datetime) -> bool:
        until = self.until
        return until is not None and now > until


def correction_deadline(
    kind: ErrorKind,
    minutes: tuple[int, int],
    round_finished: datetime | None,
    stage_finished: datetime | None,
) -> Deadline:
    """The deadline of an error of ``kind`` at a table: ``minutes`` is (after the round, after
    the stage), as ``RuleSet.correction_deadline_minutes`` gives them."""
    if kind is ErrorKind.ENTRY:
        return Deadline(kind, minutes[0], round_finished)
    return Deadline(kind, minutes[1], stage_finished)
