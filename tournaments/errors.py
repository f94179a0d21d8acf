"""The errors of the services: refusals a user sees, worded by the one catalogue.

``ServiceError`` is the ``GuandanError`` (``rules.errors``) of every write in ``tournaments``,
``scoring`` and ``pairing`` and of the reports built on them: a stable ``code``, ``params``, and
``message``, the sentence of ``tournaments.messages`` in the active language. ``ConflictError``
(somebody else changed the row first) and ``ForbiddenError`` (the user lacks the role, raised by
``tournaments.permissions.require_role``) are the two refusals views treat specially.

May import the pure core and ``tournaments.messages``; no models, no database.
"""

from __future__ import annotations

from typing import Any

from rules.errors import GuandanError, RuleError

from .messages import describe_error


class ServiceError(GuandanError):
    """A refusal the user can act on. ``code`` is stable; ``message`` is translated.

    ``params["position"]``, when set, is the 1-based number of the offending record at a table.
    """

    @property
    def message(self) -> str:
        return describe_error(self)

    def __str__(self) -> str:
        return self.message


class ConflictError(ServiceError):
    """Somebody else changed the row since the user loaded it (compare-and-swap failed)."""

    def __init__(self, code: str = "conflict", /, **params: Any) -> None:
        super().__init__(code, **params)


class ForbiddenError(ServiceError):
    """The user holds none of the roles the action needs at this tournament."""

    def __init__(self, code: str = "forbidden", /, **params: Any) -> None:
        super().__init__(code, **params)


def from_rule_error(error: RuleError) -> ServiceError:
    """Wrap a core error, keeping its code; ``position`` becomes 1-based."""
    params = dict(error.params)
    if error.position is not None:
        params["position"] = error.position + 1
    wrapped = ServiceError(error.code, **params)
    problems = getattr(error, "problems", None)
    if problems:
        wrapped.problems = list(problems)  # type: ignore[attr-defined]
    return wrapped
