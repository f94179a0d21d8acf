"""The whole-number ranges the stored data can hold (pure: no Django). ``tournaments.bounds``
builds the input helpers on these; the tournament file and the settings check them too.

PostgreSQL's ``integer`` holds −2³¹ … 2³¹−1 and ``bigint`` −2⁶³ … 2⁶³−1 (SQLite: up to 2⁶³−1).
Pair numbers, seedings, rounds, tables, deals and versions are ``integer`` columns. The
tournament ``seed`` is a JSON number from which later rounds draw with ``seed × 1000 + round``
(a ``bigint`` column), so it stays below 2⁵³ — exact in every JSON reader, and × 1000 within
``bigint``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import RuleError

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
BIGINT_MAX = 2**63 - 1
SEED_MAX = 2**53 - 1

# --------------------------------------------------------------------------------------------
# The one bounded check of a number a user or a file gives (issue 29 point 7): forms, JSON
# bodies, the settings (``RuleSet``) and the tournament file all ask these, so NaN, ±inf, huge
# and tiny floats and huge integers are refused with a problem code, never stored (PostgreSQL's
# ``json`` refuses NaN: a 500) nor computed with.

# Points a setting may give (a scale's 级差分, 场分, a forfeit's or bye's award, a deduction):
# what the settings page's fields hold (five digits, two of them decimals).
SCORE_MAX = 1000
SCORE_PLACES = 2
# A JSON integer longer than this is refused before Python converts it (a 5,000-digit integer
# is a ValueError in ``int()``: a traceback, not a message). 2⁶³ has 19 digits.
MAX_INT_DIGITS = 30


def whole_problem(value: object, *, minimum: int = INT_MIN, maximum: int = INT_MAX) -> str | None:
    """None when ``value`` is a whole number (an ``int``, not a ``bool``) in [minimum, maximum];
    else the problem's code: ``not_integer`` or ``out_of_range``."""
    if not isinstance(value, int) or isinstance(value, bool):
        return "not_integer"
    return None if minimum <= value <= maximum else "out_of_range"


def number_problem(
    value: object,
    *,
    minimum: float = -SCORE_MAX,
    maximum: float = SCORE_MAX,
    places: int | None = SCORE_PLACES,
) -> str | None:
    """None when ``value`` is a finite real number (an ``int`` or ``float``, not a ``bool``) in
    [minimum, maximum] with at most ``places`` decimals (None: any); else the problem's code:
    ``not_a_number``, ``not_finite``, ``out_of_range`` or ``too_precise`` (5e-324 is no score)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "not_a_number"
    if isinstance(value, float) and not math.isfinite(value):
        return "not_finite"
    if not minimum <= value <= maximum:
        return "out_of_range"
    if places is not None and isinstance(value, float) and round(value, places) != value:
        return "too_precise"  # as the tournament file checks a deduction: round(jcf, 2) == jcf
    return None


class BadNumber(RuleError):
    """A number in a JSON text that is refused before it is read: ``code`` is
    ``number_too_long`` (more than ``MAX_INT_DIGITS`` digits) or ``not_finite`` (NaN,
    Infinity, or a float that overflows); ``text`` (and ``params["value"]``) is the start of
    the number as written."""

    def __init__(self, code: str, text: str) -> None:
        self.text = text[:40] + ("…" if len(text) > 40 else "")
        super().__init__(code, value=self.text)


def json_int(text: str) -> int:
    """``json.loads``'s ``parse_int``: refuse an integer too long to be one of ours."""
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise BadNumber("number_too_long", text)
    return int(text)


def json_float(text: str) -> float:
    """``json.loads``'s ``parse_float``: 1e400 overflows to infinity — refused."""
    if len(text) > 4 * MAX_INT_DIGITS:
        raise BadNumber("number_too_long", text)
    value = float(text)
    if not math.isfinite(value):
        raise BadNumber("not_finite", text)
    return value


def json_constant(text: str) -> float:
    """``json.loads``'s ``parse_constant``: NaN, Infinity and -Infinity are not JSON (RFC 8259)
    although Python's reader accepts them."""
    raise BadNumber("not_finite", text)


def json_number(text: str) -> int | float:
    """One JSON number as written (``"12"``, ``"1.5e2"``), through the same checks."""
    stripped = text.strip()
    if stripped.lstrip("-").isdigit():
        return json_int(stripped)
    return json_float(stripped)


def loads_bounded(text: str | bytes) -> Any:
    """``json.loads`` with every number through the checks above: ``BadNumber`` for a number
    refused (``json.JSONDecodeError`` and ``UnicodeDecodeError`` as ``json.loads`` raises them).
    The tournament file and any JSON body read with this."""
    return json.loads(
        text, parse_int=json_int, parse_float=json_float, parse_constant=json_constant
    )
