"""The one error type of the project, and the errors of the pure core.

Every error raised on purpose derives from ``GuandanError``: a stable ``code`` for programs and
tests, ``params`` that explain it. Nobody builds a user-facing sentence at the raise: the catalogue
``tournaments.messages`` words every code once, in Chinese and (through ``locale/``) English, and
the view or command shows that sentence. This module is the bottom layer, so it imports nothing but
the standard library.

STYLE.md "Errors" separates "the user must fix something" from "this should never happen": a
``GuandanError`` is always the first kind (a refusal the user can read and act on: a wrong token,
a stale page, a missing role, a bad file). The second kind is *not* a ``GuandanError``: a broken
invariant raises a plain ``AssertionError``/``RuntimeError``/``TypeError``, no view catches it,
and it ends as a server error with a traceback in the log, never as a polite message.

``position`` (core errors only) is the 0-based index of the offending event in a table's
sequence, when there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


class GuandanError(Exception):
    """Base of every refusal: a stable ``code`` and the ``params`` the sentence needs."""

    code: str
    params: dict[str, Any]

    def __init__(self, code: str, /, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(self.summary())

    def summary(self) -> str:
        """A plain, untranslated one-liner for logs and tracebacks (not for users)."""
        detail = ", ".join(f"{key}={value!r}" for key, value in self.params.items())
        return self.code + (f" ({detail})" if detail else "")


class RuleError(GuandanError, ValueError):
    """Something in the input breaks a rule. ``code`` is stable; ``params`` explain it."""

    def __init__(self, code: str, position: int | None = None, **params: Any) -> None:
        self.position = position
        super().__init__(code, **params)

    def summary(self) -> str:
        detail = ", ".join(f"{key}={value!r}" for key, value in self.params.items())
        where = f" at event {self.position + 1}" if self.position is not None else ""
        return f"{self.code}{where}" + (f" ({detail})" if detail else "")


class ScoringError(RuleError):
    """A table's event sequence cannot have happened (RULES.md §1–§2)."""


@dataclass(frozen=True)
class Problem:
    """One wrong tournament setting: which one, a stable code, and the details."""

    setting: str
    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        detail = ", ".join(f"{key}={value!r}" for key, value in self.params.items())
        return f"{self.setting}: {self.code}" + (f" ({detail})" if detail else "")


class RuleSetError(RuleError):
    """The tournament settings are invalid; ``problems`` lists every wrong setting."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("invalid_settings", problems="; ".join(str(p) for p in problems))
