"""Bounded whole numbers: the one helper every input path uses (forms, query strings, importers,
the CLI), so a number a column cannot hold is refused or clamped before it reaches the database.

May touch: nothing (pure; Django forms only for the form field).

Why: PostgreSQL's ``integer`` holds −2³¹ … 2³¹−1 and ``bigint`` −2⁶³ … 2⁶³−1; SQLite stores up to
2⁶³−1. A bigger number from a form or a URL used to reach the query and come back as a 500
("integer out of range", ``OverflowError``). Every column this project counts with (pair numbers,
seedings, rounds, tables, deals, versions, ids in a file) is an ``integer``, so ``INT_MAX`` is
the default ceiling; the tournament ``seed`` (a JSON number, fed to ``random.Random``) is kept
within ``SEED_MAX`` so it round-trips through the file and every database.

Numbers that are not whole (a scale's 级差分, a forfeit's award) and JSON texts are checked by the
pure helpers of ``rules.limits``, re-exported here so there is one place to look:
``number_problem`` (NaN, ±inf, 1e308, 5e-324 refused with a problem code), ``whole_problem``,
and ``loads_bounded`` (``json.loads`` refusing NaN/Infinity and integers of more than
``MAX_INT_DIGITS`` digits with ``BadNumber``, a ``RuleError`` with a code).
"""

from __future__ import annotations

import re
from typing import Any

from django import forms

from rules.limits import (
    BIGINT_MAX,
    INT_MAX,
    INT_MIN,
    MAX_INT_DIGITS,
    SCORE_MAX,
    SEED_MAX,
    BadNumber,
    loads_bounded,
    number_problem,
    whole_problem,
)

__all__ = [
    "BIGINT_MAX",
    "INT_MAX",
    "INT_MIN",
    "MAX_INT_DIGITS",
    "SCORE_MAX",
    "SEED_MAX",
    "BadNumber",
    "BoundedIntegerField",
    "OutOfRange",
    "loads_bounded",
    "number_problem",
    "whole_problem",
]

_WHOLE = re.compile(r"[+-]?[0-9]{1,30}")  # ASCII digits only ("²".isdigit() is True in Python)


class OutOfRange(ValueError):
    """Not a whole number in [minimum, maximum]; ``minimum``/``maximum`` say which range."""

    def __init__(self, value: Any, minimum: int, maximum: int) -> None:
        super().__init__(f"{value!r} is not a whole number from {minimum} to {maximum}")
        self.value, self.minimum, self.maximum = value, minimum, maximum


def bounded_int(value: Any, *, minimum: int = 0, maximum: int = INT_MAX) -> int:
    """``value`` (an int, or text of ASCII digits with an optional sign) as an int within
    [minimum, maximum]; ``OutOfRange`` otherwise. Booleans and floats are not whole numbers
    here (a file's ``1.0`` is for the caller to decide)."""
    if isinstance(value, bool):
        raise OutOfRange(value, minimum, maximum)
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        raise OutOfRange(value, minimum, maximum)
    if not minimum <= number <= maximum:
        raise OutOfRange(value, minimum, maximum)
    return number


def parse_int(value: Any, *, minimum: int = 0, maximum: int = INT_MAX) -> int | None:
    """``bounded_int`` or ``None`` (for a query string: a bad number means "not given")."""
    try:
        return bounded_int(value, minimum=minimum, maximum=maximum)
    except OutOfRange:
        return None


def clamp_int(value: Any, *, default: int, minimum: int = 0, maximum: int = INT_MAX) -> int:
    """A query-string number pulled into [minimum, maximum]; ``default`` if it is not a number.
    (``?offset=99999999999999999999`` is the last page, not an error.)"""
    if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        return max(minimum, min(maximum, int(value.strip())))
    if isinstance(value, int) and not isinstance(value, bool):
        return max(minimum, min(maximum, value))
    return default


class BoundedIntegerField(forms.IntegerField):
    """A form's whole number that its column can hold: ``max_value`` defaults to ``INT_MAX`` and
    ``min_value`` to ``INT_MIN``; a field that is not an integer column (the JSON ``seed``) gives
    its own bounds."""

    def __init__(
        self, *, min_value: int | None = None, max_value: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(
            min_value=INT_MIN if min_value is None else min_value,
            max_value=INT_MAX if max_value is None else max_value,
            **kwargs,
        )
