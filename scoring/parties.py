"""Two parties behind every result (RULES.md §7): at the table link the entering pair proves
itself with its own code and the other pair confirms with its own; a logged-in user acting
through the link is an enterer; once a referee has submitted the sheet the link is read-only.
Every submission and confirmation is signed (``Signoff``: step, how, user or pair).

Staff never act as a pair (issue 29 point 1): an organizer or referee of the tournament, logged
in, is refused when proving itself or confirming with a pair's code at the link
(``refuse_staff_as_pair``) — a referee enters and confirms at the desk, as themselves. Pair
codes never reach staff pages (the check-in QR carries the pair's check-in token)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.facts import snapshot
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Pair, Table, Tournament
from tournaments.permissions import CHECKIN_ROLES, has_role
from tournaments.services import account, audit

from .models import Signoff, TableEvent, Via

# --------------------------------------------------------------------------------------------
# Two parties behind every result (RULES.md §7)


def pair_of_code(locked: Table, code: str) -> Pair:
    """The table's pair whose code this is (compared in constant time), else ``bad_pair_code``."""
    given = (code or "").strip().upper().encode()
    found = None
    for pair in (locked.ns, locked.ew):
        if pair is not None and secrets.compare_digest(given, pair.code.upper().encode()):
            found = pair
    if found is None or not given:
        raise ServiceError("bad_pair_code")
    return found


def refuse_staff_as_pair(tournament: Tournament, user: Any) -> None:
    """``staff_not_a_pair`` for a logged-in organizer, chief referee or referee of
    ``tournament`` (everyone who staffs its desk, ``CHECKIN_ROLES``): they enter and confirm at
    the referee desk as themselves, never with a pair's code at the table link."""
    if account(user) is not None and has_role(user, tournament, *CHECKIN_ROLES):
        raise ServiceError("staff_not_a_pair")


def pair_for_code(table: Table, code: str, user: Any = None) -> Pair:
    """Which of the table's pairs is entering at the table link: the one whose code this is.

    The link's page asks for it once (the first code typed when the page is opened); the
    views keep the answer in the session and pass it as ``pair`` to every table-side write.
    Refused for the tournament's staff (``refuse_staff_as_pair``)."""
    if table.is_bye:
        raise ServiceError("table_is_bye")
    refuse_staff_as_pair(table.round.tournament, user)
    return pair_of_code(table, code)


def referee_submitted(locked: Table) -> bool:
    return Signoff.objects.filter(table=locked, step=Signoff.Step.SUBMIT, via=Via.REFEREE).exists()


def own_pair(locked: Table, pair: Pair | int | None) -> Pair | None:
    """The table's own pair for ``pair`` (an instance or an id, as the link's session keeps
    it), or None when it is neither of the table's pairs."""
    pk = pair.pk if isinstance(pair, Pair) else pair
    if pk is not None and pk == locked.ns_id:
        return locked.ns
    if pk is not None and pk == locked.ew_id:
        return locked.ew
    return None


def check_table_party(locked: Table, via: str, pair: Pair | None) -> None:
    """A write through the table link needs the pair that proved itself with its code, and the
    link is read-only once a referee has submitted the sheet."""
    if via != Via.TABLE:
        return
    if pair is None or pair.pk not in (locked.ns_id, locked.ew_id):
        raise ServiceError("pair_code_required")
    if referee_submitted(locked):
        raise ServiceError("table_link_read_only")


@dataclass(frozen=True, slots=True)
class TableEntries:
    """A table's events read once for a confirmation (``read_entries``): the tokens in order,
    the account that entered each, and the pair that entered each one entered at the link."""

    tokens: tuple[str, ...]
    users: tuple[int | None, ...]
    link_pairs: frozenset[int | None]


def read_entries(locked: Table) -> TableEntries:
    """The table's events with who entered them: one query."""
    rows = (
        TableEvent.objects.filter(table=locked)
        .order_by("position")
        .values_list("token", "entered_by_id", "entered_via", "entered_pair_id")
    )
    tokens: list[str] = []
    users: list[int | None] = []
    link_pairs: set[int | None] = set()
    for token, user, via, pair in rows:
        tokens.append(token)
        users.append(user)
        if via == Via.TABLE:
            link_pairs.add(pair)
    return TableEntries(tuple(tokens), tuple(users), frozenset(link_pairs))


def enterer_ids(table: Table, event_users: Iterable[int | None]) -> set[int]:
    """Every account that entered one of the table's events (``event_users``: their
    ``entered_by_id``), submitted the sheet or changed its facts: the two-person rule refuses
    each of them as the confirmer (RULES.md §7). The page asks the same to hide the button."""
    ids = {pk for pk in event_users if pk is not None}
    if table.entered_by_id is not None:
        ids.add(table.entered_by_id)
    return ids | set(table.enterers)


def entering_pairs(locked: Table, entries: TableEntries) -> set[int | None]:
    """The pairs that entered the table's events at the link or submitted its sheet there
    (``None`` when an event came through the link without a proven pair: nobody can then
    confirm at the table)."""
    pairs = set(entries.link_pairs)
    last = (
        Signoff.objects.filter(table=locked, step=Signoff.Step.SUBMIT)
        .order_by("-created_at", "-pk")
        .first()
    )
    if last is not None and last.via == Via.TABLE:
        pairs.add(last.pair_id)
    if None in pairs:
        pairs.update((locked.ns_id, locked.ew_id))
    return pairs


def _party(user: Any, pair: Pair | None, locked: Table) -> dict[str, Any] | None:
    if pair is None:
        return None
    side = "NS" if pair.pk == locked.ns_id else "EW"
    return {"pair": pair.number, "side": side}


def sign_step(
    locked: Table,
    step: str,
    via: str,
    user: Any,
    pair: Pair | None,
    before: dict[str, Any],
    tokens: Sequence[str],
) -> None:
    """Record who submitted or confirmed (an account or a pair) and how, and audit it."""
    Signoff.objects.create(
        table=locked, step=step, via=via, user=account(user), pair=pair,
        version=locked.version,
    )  # fmt: skip
    after = snapshot(locked, tokens)
    party = _party(user, pair, locked)
    if party is not None:
        after["by_pair"] = party
    action = (
        AuditEntry.Action.CONFIRM
        if step == Signoff.Step.CONFIRM
        else AuditEntry.Action.MARK_ENTERED
    )
    audit(
        locked.round.tournament_id,
        action,
        user,
        table=locked,
        before=before,
        after=after,
        via=via if party is None else f"{via}:{party['side']}",
    )
