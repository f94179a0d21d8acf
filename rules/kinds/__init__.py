"""The stage-kind registry (RULES.md §8; docs/architecture.md "Stage kinds").

``KINDS`` maps the file's ``kind`` to its ``StageKind`` (``rules.kinds.base``): one module a kind
(``swiss``, ``round_robin``, ``knockout``), each the single place for the kind's settings keys,
their validation, its defaults and its capabilities. ``Stage.type`` is a stage's kind. Adding a
kind: a module here with a ``StageKind`` subclass, one line in ``KINDS``, and its behaviour in
the one module of each layer above that maps a kind to it (docs/architecture.md lists them).

Pure: the standard library only.
"""

from __future__ import annotations

from .base import StageKind
from .knockout import KNOCKOUT
from .round_robin import ROUND_ROBIN
from .swiss import SWISS

# In the order the settings page offers them.
KINDS: dict[str, StageKind] = {kind.name: kind for kind in (SWISS, ROUND_ROBIN, KNOCKOUT)}
STAGE_KINDS = tuple(KINDS)


def stage_kind(name: str) -> StageKind:
    """The kind called ``name`` (``KeyError`` for an unknown one: the settings refuse it)."""
    return KINDS[name]


__all__ = ["KINDS", "STAGE_KINDS", "StageKind", "stage_kind"]
