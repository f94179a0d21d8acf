"""The problems of a tournament file and the collector every section reader shares.

A reader never stops at the first problem: each one it finds goes into one ``Problems``
collector as a ``FileProblem`` with a stable ``code``, its ``params``, the JSON key ``path``
(``rounds[2].tables[0].deals[4]``, 0-based indexes) and its place (``where``: the round and
table numbers, the deal and event, the pair, unit, team, penalty or setting), and the file is
refused with all of them (``TournamentFileError``). The collector's checks (an object's keys, a
value's type, a text, a positive integer) are the path bookkeeping the sections have in common.

Pure: the standard library and ``rules``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from rules.errors import GuandanError
from rules.limits import INT_MAX
from rules.text import text_problem


@dataclass(frozen=True)
class FileProblem:
    """One thing wrong with a tournament file: a stable ``code``, its ``params`` and where it is.

    ``round``/``table`` are the file's numbers, ``deal`` the 1-based deal number at the table,
    ``event`` the 1-based position in the table's ``deals`` list, ``penalty`` the 1-based index in
    ``penalties``, ``path`` the JSON key path (``rounds[2].tables[0].deals[4]``, 0-based indexes).
    """

    code: str
    params: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    round: int | None = None
    table: int | None = None
    deal: int | None = None
    event: int | None = None
    pair: int | None = None
    unit: str | None = None
    team: str | None = None
    penalty: int | None = None
    setting: str | None = None

    def __str__(self) -> str:
        where = [
            f"{name}={value}"
            for name in ("round", "table", "deal", "event", "pair", "unit", "team", "penalty")
            if (value := getattr(self, name)) is not None
        ]
        detail = ", ".join(f"{key}={value!r}" for key, value in self.params.items())
        head = " ".join(where) or self.path or "file"
        return f"{head}: {self.code}" + (f" ({detail})" if detail else "")


class TournamentFileError(GuandanError, ValueError):
    """The file cannot be imported; ``problems`` lists every problem (never just the first)."""

    def __init__(self, problems: Sequence[FileProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("invalid_file", count=len(self.problems))

    def summary(self) -> str:
        return "; ".join(str(p) for p in self.problems[:20])


def is_int(value: Any) -> bool:
    """An integer of the file (JSON ``true``/``false`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def type_name(value: Any) -> str:
    """A decoded JSON value's type as the file's reader names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class Problems:
    """Every problem of one file, in the order found (``found``); ``len`` counts them."""

    def __init__(self) -> None:
        self.found: list[FileProblem] = []

    def __len__(self) -> int:
        return len(self.found)

    def add(
        self, code: str, path: str = "", params: dict[str, Any] | None = None, **where: Any
    ) -> None:
        self.found.append(FileProblem(code, dict(params or {}), path, **where))

    def keys(self, obj: dict[str, Any], allowed: Iterable[str], path: str, **where: Any) -> None:
        """Every key of ``obj`` not in ``allowed`` is an ``unknown_key``."""
        allowed = set(allowed)
        for key in obj:
            if key not in allowed:
                self.add(
                    "unknown_key", f"{path}.{key}" if path else str(key), {"key": key}, **where
                )

    def expect(self, value: Any, kind: str, path: str, **where: Any) -> bool:
        """Type check: ``kind`` is object/list/string/integer/number."""
        ok = {
            "object": isinstance(value, dict),
            "list": isinstance(value, list),
            "string": isinstance(value, str),
            "integer": is_int(value),
            "number": is_number(value),
        }[kind]
        if not ok:
            self.add("wrong_type", path, {"expected": kind, "found": type_name(value)}, **where)
        return ok

    def text(
        self,
        value: Any,
        path: str,
        limit: int,
        required: bool = True,
        multiline: bool = False,
        **where: Any,
    ) -> str:
        """A string of at most ``limit`` characters (not blank when ``required``) that can be
        stored and shown as typed (``rules.text.text_problem``: no NUL, lone surrogate, control,
        invisible or bidi-control character; line breaks only where ``multiline``); "" if not a
        string."""
        if not self.expect(value, "string", path, **where):
            return ""
        if (code := text_problem(value, multiline=multiline)) is not None:
            self.add(code, path, **where)
        elif required and not value.strip():
            self.add("empty_text", path, **where)
        elif len(value) > limit:
            self.add("text_too_long", path, {"limit": limit, "length": len(value)}, **where)
        return str(value)

    def positive(self, value: Any, path: str, **where: Any) -> int | None:
        """An integer from 1 to what the integer columns hold (``rules.limits``), else None."""
        if not self.expect(value, "integer", path, **where):
            return None
        if value < 1:
            self.add("not_positive", path, {"value": value}, **where)
            return None
        if value > INT_MAX:
            self.add("out_of_range", path, {"value": value, "min": 1, "max": INT_MAX}, **where)
            return None
        return int(value)

    def list_of_objects(self, data: dict[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
        """The objects of the top-level list ``data[key]`` with their indexes (default [])."""
        value = data.get(key, [])
        if not self.expect(value, "list", key):
            return []
        items = []
        for index, item in enumerate(value):
            if self.expect(item, "object", f"{key}[{index}]"):
                items.append((index, item))
        return items
