"""Errors of the pure core: a stable code for programs, parameters for the message.

The core never builds user-facing sentences; the Django layer (or a command) turns ``code`` and
``params`` into a translated sentence. ``position`` is the 0-based index of the offending event
in a table's sequence, when there is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class RuleError(ValueError):
    """Something in the input breaks a rule. ``code`` is stable; ``params`` explain it."""

    def __init__(self, code: str, position: int | None = None, **params: Any) -> None:
        self.code = code
        self.position = position
        self.params = params
        detail = ", ".join(f"{key}={value!r}" for key, value in params.items())
        where = f" at event {position + 1}" if position is not None else ""
        super().__init__(f"{code}{where}" + (f" ({detail})" if detail else ""))


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

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("invalid_settings", problems="; ".join(str(p) for p in problems))
