"""Two (or more) calls raced in threads released together: the concurrency tests on
PostgreSQL (``tests/db/test_concurrency.py``, ``tests/db/test_idempotency_pg.py``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections

TIMEOUT = 30  # seconds; a deadlock fails the test instead of hanging CI


def race(*calls: Callable[[], Any]) -> list[tuple[str, Any]]:
    """Run ``calls`` in parallel threads released together by a barrier.

    Returns, per call in order, ``("ok", result)`` or ``("error", exception)``. Each thread gets
    its own connection (Django's connections are per thread) and closes it at the end, so the
    test database can be flushed and dropped afterwards.
    """
    barrier = threading.Barrier(len(calls), timeout=TIMEOUT)
    results: list[tuple[str, Any]] = [("error", RuntimeError("did not run"))] * len(calls)

    def worker(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = ("ok", call())
        except Exception as error:
            results[index] = ("error", error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "a racing thread hung (deadlock?)"
    return results
