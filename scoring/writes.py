"""The opening and closing of every write to a table's result (STYLE.md "Concurrency"): the one
read of the table, locked; the checks every write makes first; the compare-and-swap on
``Table.version``; the audit entry.

``open_table`` is the opening of every write service (``scoring.services``, ``scoring.games``):
inside the service's ``transaction.atomic()`` it locks the table row (``select_for_update``,
with its round, tournament and pairs in the same query) and checks, in this order, the pair that
acts (the table link's), the actor (a referee's role, the system, or the link), the service's own
authority check, the version the page showed, the table's state (open for entry, or confirmed
for a correction) and the two-person rule at the link. ``cas`` finishes the write: the row count
other than 1 raises ``ConflictError`` and the transaction rolls back, so nothing half-written
stays. ``audit_table`` records a change with the table's facts before and after.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import F

from scoring.parties import check_table_party, own_pair
from scoring.results import COUNTED_ROUNDS
from tournaments.errors import ConflictError, ForbiddenError, ServiceError
from tournaments.models import Pair, Round, Table, Tournament
from tournaments.permissions import RESULT_ROLES, require_role
from tournaments.services import account, audit

from .models import Via

# What ``open_table`` requires of the table's state.
OPEN_FOR_ENTRY = "entry"  # a match table of a published round, not confirmed yet
CONFIRMED = "confirmed"  # a confirmed match table (a correction)


@dataclass(frozen=True, slots=True)
class TableAt:
    """A table as a page names it, for a write that reads the row itself, once and locked.

    ``TableAt.desk(tournament, round number, table number)``: a match table of a published or
    finished round (the referee desk's URL); ``TableAt.link(entry token)``: a match table of a
    published round (the table-side link). ``Table.DoesNotExist`` when there is none — a page
    answers 404 (a finished round's link: the table-side page decides 410).
    """

    lookup: tuple[tuple[str, Any], ...]

    @classmethod
    def desk(cls, tournament: Tournament, round_number: int, number: int) -> TableAt:
        return cls(
            (
                ("round__tournament_id", tournament.pk),
                ("round__number", round_number),
                ("round__status__in", COUNTED_ROUNDS),
                ("number", number),
                ("is_bye", False),
            )
        )

    @classmethod
    def link(cls, entry_token: str) -> TableAt:
        return cls(
            (
                ("entry_token", entry_token or ""),
                ("round__status", Round.Status.PUBLISHED),
                ("is_bye", False),
            )
        )


def lock_table(table: Table | TableAt | int) -> Table:
    """Lock the table row (only it: ``of=("self",)``) and load its round, tournament and pairs
    in the same query: the one read of the table a write makes."""
    rows = Table.objects.select_for_update(of=("self",)).select_related(
        "round__tournament", "ns", "ew"
    )
    if isinstance(table, TableAt):
        return rows.get(**dict(table.lookup))
    return rows.get(pk=table if isinstance(table, int) else table.pk)


def check_version(locked: Table, expected_version: int | None) -> None:
    if expected_version is not None and locked.version != expected_version:
        raise ConflictError(current=locked.version, expected=expected_version)


def check_actor(locked: Table, user: Any, via: str) -> None:
    # ``user`` None is the system (an import, a command). ``require_role`` reads the roles
    # ``tournaments.permissions`` remembers on the user for the request: the view's guard already
    # read them, so a tap checks the role with one query, not two.
    if via == Via.REFEREE:
        require_role(user, locked.round.tournament, *RESULT_ROLES)
    elif via not in (Via.TABLE, Via.IMPORT):
        raise ForbiddenError


def check_state(locked: Table, state: str) -> None:
    """``OPEN_FOR_ENTRY``: a match table of a published round not confirmed yet;
    ``CONFIRMED``: a confirmed match table."""
    if locked.is_bye:
        raise ServiceError("table_is_bye")
    if state == CONFIRMED:
        if locked.entry_status != Table.EntryStatus.CONFIRMED:
            raise ServiceError("table_not_confirmed")
        return
    if locked.round.status != Round.Status.PUBLISHED:
        raise ServiceError("round_not_published")
    if locked.entry_status == Table.EntryStatus.CONFIRMED:
        raise ServiceError("table_confirmed")


def open_table(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    *,
    via: str | None = Via.REFEREE,
    pair: Pair | int | None = None,
    roles: Sequence[str] | None = None,
    authorise: Callable[[Table], None] | None = None,
    state: str = OPEN_FOR_ENTRY,
) -> tuple[Table, Pair | None]:
    """The table locked for a write, with every check the write makes first (see the module):
    ``via`` how the actor acts (``check_actor``; None: no actor to check, a pair confirming
    with its code), or ``roles`` the roles it needs instead; ``authorise`` the service's own
    check; ``state`` what the table must be. A write through the table link (``via`` TABLE)
    needs ``pair``, the pair that proved itself, and the link not read-only (the two-person
    rule, ``scoring.parties``). Returns the table and the acting pair (the table's own, or
    None). Call inside the service's transaction."""
    locked = lock_table(table)
    own = own_pair(locked, pair)
    if roles is not None:
        require_role(user, locked.round.tournament, *roles)
    elif via is not None:
        check_actor(locked, user, via)
    if authorise is not None:
        authorise(locked)
    check_version(locked, expected_version)
    check_state(locked, state)
    if via is not None:
        check_table_party(locked, via, own)
    return locked, own


def cas(locked: Table, **fields: Any) -> None:
    """Compare-and-swap on ``Table.version``; ``fields`` are written with the new version."""
    count = Table.objects.filter(pk=locked.pk, version=locked.version).update(
        version=F("version") + 1, **fields
    )
    if count != 1:
        raise ConflictError(expected=locked.version)
    locked.version += 1
    for name, value in fields.items():
        setattr(locked, name, value)


def touched_by(locked: Table, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """Add ``user`` to the table's enterers (for the two-person rule) in the same CAS write."""
    if account(user) is not None and user.pk not in locked.enterers:
        fields["enterers"] = sorted({*locked.enterers, user.pk})
    return fields


def audit_table(
    locked: Table,
    action: str,
    user: Any,
    before: dict[str, Any],
    after: dict[str, Any],
    **extra: Any,
) -> None:
    """An ``AuditEntry`` of a change of the table's result (``before``/``after``: the facts,
    ``scoring.facts.snapshot``; ``extra``: ``via``, ``reason``)."""
    audit(
        locked.round.tournament_id, action, user, table=locked, before=before, after=after, **extra
    )
