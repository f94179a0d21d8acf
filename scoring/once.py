"""One-time keys: every form that creates something carries a key drawn when the page was
rendered; a repeat or a concurrent duplicate gets the first result back, never a second row
(``UsedKey``, unique, written in the same transaction as the row it guards).

A key is scoped (issue 29 point 8): it is stored with its action and with what the form is
about — the table (``table_scope``), the penalised pair and kind, the appeal's subject — so a
key used at table A and replayed at table B is a new request at B (not A's sheet), and a stale
penalty form re-posted for pair 14 records pair 14 (not "pair 11", the first answer). A post
without a key is refused (``once_key_missing``): the pages always send one (the page's hidden
``once`` field, the script's outbox a key per tap)."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction

from tournaments.errors import ServiceError
from tournaments.models import Table

from .models import Penalty, UsedKey

# --------------------------------------------------------------------------------------------
# One-time keys (idempotent writes)

T = TypeVar("T")
ONCE_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def new_once_key() -> str:
    """A fresh one-time key for a form (a hidden field, generated when the form is rendered)."""
    return secrets.token_urlsafe(18)


def table_scope(table: Table | Any) -> str:
    """The scope of a table's one-time keys: the table as the request names it (a ``Table``,
    or a ``scoring.services.TableAt``: the desk's round and number, or the link's token)."""
    lookup = getattr(table, "lookup", None)
    if lookup is not None:
        return "&".join(f"{name}={value}" for name, value in lookup)
    return f"table={table.pk}"


def _stored(action: str, scope: str, key: str) -> str:
    """What ``UsedKey.key`` holds: the action, and a digest of the scope and the key (the
    column's 100 characters hold any scope)."""
    digest = hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()[:48]
    return f"{action}:{digest}"


def once(
    key: str | None,
    action: str,
    write: Callable[[], T],
    remember: Callable[[T], dict[str, Any]],
    recall: Callable[[dict[str, Any]], T],
    *,
    scope: str,
) -> T:
    """Run ``write`` at most once per ``key`` for this ``action`` and ``scope`` (what the form is
    about: ``table_scope``, the pair and kind of a penalty …); a repeat (a phone's retry, a
    double tap, a concurrent duplicate) gets the first result back (``recall``) and writes
    nothing. The same key with another scope is another request.

    The key is inserted in the same transaction as what ``write`` creates: a concurrent
    duplicate's insert waits on the unique index until the first commits (then it reads the
    first result) or rolls back (then it writes). A refused ``write`` rolls its key back, so
    the form can be posted again. No key: refused (``once_key_missing``), nothing written.
    ``settings.IDEMPOTENCY_KEYS = False`` (the tests' negative control): no protection."""
    if not getattr(django_settings, "IDEMPOTENCY_KEYS", True):
        return write()
    if not key:
        raise ServiceError("once_key_missing")
    if not ONCE_KEY.match(key):
        raise ServiceError("bad_once_key")
    # One key per rendered page serves each of its forms once, for what each form is about.
    stored = _stored(action, scope, key)
    with transaction.atomic():
        try:
            with transaction.atomic():
                used = UsedKey.objects.create(key=stored, action=action)
        except IntegrityError:
            first = UsedKey.objects.filter(key=stored).first()
            if first is None or not first.result:
                raise ServiceError("bad_once_key") from None
            return recall(first.result)
        result = write()
        UsedKey.objects.filter(pk=used.pk).update(result=remember(result))
    return result


def remember_table(table: Table) -> dict[str, Any]:
    return {"table": table.pk}


def recall_table(result: dict[str, Any]) -> Table:
    return Table.objects.select_related("round__tournament", "ns", "ew").get(pk=result["table"])


def remember_penalty(penalty: Penalty) -> dict[str, Any]:
    return {"penalty": penalty.pk}


def recall_penalty(result: dict[str, Any]) -> Penalty:
    return Penalty.objects.select_related("pair").get(pk=result["penalty"])
