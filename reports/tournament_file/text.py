"""The tournament file's text: JSON decoded strictly (``load_json``) and written canonically
(``dumps``, as the golden files are).

Pure: the standard library and ``rules``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rules.limits import BadNumber, loads_bounded

from .problems import FileProblem, TournamentFileError


def load_json(text: str | bytes) -> Any:
    """Decode a file's text; malformed JSON becomes a ``TournamentFileError`` with the place.

    Stricter than ``json.loads``: every number goes through the one bounded reader
    (``rules.limits.loads_bounded``): ``NaN``/``Infinity``, numbers too large for a float and
    integers of absurdly many digits are refused (they could not be written back as JSON, or
    would hold a worker converting them), and so is absurdly deep nesting.
    """
    try:
        return loads_bounded(text)
    except UnicodeDecodeError as error:
        problem = FileProblem("not_utf8", {"position": error.start + 1})
        raise TournamentFileError([problem]) from None
    except json.JSONDecodeError as error:
        params = {"line": error.lineno, "column": error.colno, "detail": error.msg}
        raise TournamentFileError([FileProblem("malformed_json", params)]) from None
    except BadNumber as error:
        raise TournamentFileError([FileProblem(error.code, {"value": error.text})]) from None
    except RecursionError:
        raise TournamentFileError([FileProblem("too_deep")]) from None


def dumps(data: Mapping[str, Any]) -> str:
    """The canonical text of a tournament file (the golden files are written this way)."""
    return json.dumps(data, ensure_ascii=False, indent=1)
