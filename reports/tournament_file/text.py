"""The tournament file's text: JSON decoded strictly (``load_json``) and written canonically
(``dumps``, as the golden files are).

Pure: the standard library.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from .problems import FileProblem, TournamentFileError


class _NotFinite(ValueError):
    """A number JSON cannot hold (``NaN``, ``Infinity``, beyond a float): ``load_json`` refuses
    it."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 overflows to infinity
        raise _NotFinite(text)
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite(text)  # NaN, Infinity, -Infinity: not JSON (RFC 8259), json accepts them


def load_json(text: str | bytes) -> Any:
    """Decode a file's text; malformed JSON becomes a ``TournamentFileError`` with the place.

    Stricter than ``json.loads``: ``NaN``/``Infinity`` and numbers too large for a float are
    refused (they could not be written back as JSON), and so is absurdly deep nesting.
    """
    try:
        return json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except UnicodeDecodeError as error:
        problem = FileProblem("not_utf8", {"position": error.start + 1})
        raise TournamentFileError([problem]) from None
    except json.JSONDecodeError as error:
        params = {"line": error.lineno, "column": error.colno, "detail": error.msg}
        raise TournamentFileError([FileProblem("malformed_json", params)]) from None
    except _NotFinite as error:
        raise TournamentFileError([FileProblem("not_finite", {"value": error.text})]) from None
    except RecursionError:
        raise TournamentFileError([FileProblem("too_deep")]) from None


def dumps(data: Mapping[str, Any]) -> str:
    """The canonical text of a tournament file (the golden files are written this way)."""
    return json.dumps(data, ensure_ascii=False, indent=1)
