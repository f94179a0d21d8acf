"""Penalty escalation (RULES.md §3): suggested by the software, applied when a referee confirms.

Two warnings to one side in a round → 违例; two violations → 犯规; two fouls → 判负. A penalty
recorded by confirming a suggestion carries ``escalation=True`` and "uses up" the two lesser
ones, so they are not suggested again. A lesser penalty recorded by hand does not use any up.

May touch: read ``scoring.models.Penalty``; ``apply_escalation`` writes through
``scoring.services`` (``record_penalty``, and for a table the foul event or the 判负 end).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from django.db import transaction
from django.db.models import Count

from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Table

from .models import Penalty

Kind = Penalty.Kind
LADDER: tuple[str, ...] = (Kind.WARNING, Kind.VIOLATION, Kind.FOUL, Kind.PENALTY_LOSS)


@dataclass(frozen=True)
class Escalation:
    """Suggest recording ``kind`` because the pair has ``count`` unescalated ``because_of``."""

    kind: str
    because_of: str
    count: int


def escalation_from_counts(
    counts: Mapping[tuple[str, bool], int],
) -> Escalation | None:
    """Pure rule: ``counts[(kind, escalation)]`` → the lowest escalation due, or None.

    pending(k) = all k − 2 × (escalated next(k)); two pending of k suggest next(k).
    """
    for lower, higher in pairwise(LADDER):
        total = counts.get((lower, False), 0) + counts.get((lower, True), 0)
        used = 2 * counts.get((higher, True), 0)
        pending = total - used
        if pending >= 2:
            return Escalation(kind=str(higher), because_of=str(lower), count=pending)
    return None


def _counts(pair: Pair, rnd: Round) -> dict[tuple[str, bool], int]:
    rows = (
        Penalty.objects.filter(pair=pair, round=rnd)
        .values("kind", "escalation")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {(row["kind"], row["escalation"]): row["n"] for row in rows}


def suggest_escalation(pair: Pair, rnd: Round) -> Escalation | None:
    """What the referee should consider for ``pair`` in ``rnd`` (one query)."""
    return escalation_from_counts(_counts(pair, rnd))


def apply_escalation(
    pair: Pair,
    rnd: Round,
    user: Any,
    *,
    table: Table | None = None,
    expected_version: int | None = None,
    reason: str = "",
) -> Penalty:
    """The referee confirms the current suggestion: record it (``escalation=True``).

    With ``table`` given the score effect is applied too: a foul adds ``foul:<side>`` to the
    table's events, a 判负 sets the table's end — both through the scoring services, with the
    table's compare-and-swap on ``expected_version``.
    """
    from .services import enter_event, record_penalty, set_end

    with transaction.atomic():
        # Lock the pair row so two referees confirming at once record one escalation.
        Pair.objects.select_for_update().get(pk=pair.pk)
        suggestion = suggest_escalation(pair, rnd)
        if suggestion is None:
            raise ServiceError("no_escalation")
        penalty = record_penalty(
            rnd.tournament,
            pair,
            suggestion.kind,
            user,
            reason=reason or f"{suggestion.count} × {suggestion.because_of}",
            round=rnd,
            table=table,
            escalation=True,
        )
        if table is not None:
            side = "NS" if table.ns_id == pair.pk else "EW"
            if suggestion.kind == Kind.FOUL:
                enter_event(table, f"foul:{side}", user, expected_version)
            elif suggestion.kind == Kind.PENALTY_LOSS:
                set_end(table, Table.EndKind.PENALTY_LOSS, side, user, expected_version)
    return penalty
