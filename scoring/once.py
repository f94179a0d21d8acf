"""One-time keys: every form that creates something carries a key drawn when the page was
rendered; a repeat or a concurrent duplicate gets the first result back, never a second row
(``UsedKey``, unique, written in the same transaction as the row it guards)."""

from __future__ import annotations

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


def once(
    key: str | None,
    action: str,
    write: Callable[[], T],
    remember: Callable[[T], dict[str, Any]],
    recall: Callable[[dict[str, Any]], T],
) -> T:
    """Run ``write`` at most once per ``key``; a repeat (a phone's retry, a double tap, a
    concurrent duplicate) gets the first result back (``recall``) and writes nothing.

    The key is inserted in the same transaction as what ``write`` creates: a concurrent
    duplicate's insert waits on the unique index until the first commits (then it reads the
    first result) or rolls back (then it writes). A refused ``write`` rolls its key back, so
    the form can be posted again. No key (or ``settings.IDEMPOTENCY_KEYS = False``, the tests'
    negative control): no protection."""
    if not key or not getattr(django_settings, "IDEMPOTENCY_KEYS", True):
        return write()
    if not ONCE_KEY.match(key):
        raise ServiceError("bad_once_key")
    stored = f"{action}:{key}"  # one key per rendered page serves each of its forms once
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
