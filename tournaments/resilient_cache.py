"""The shared cache that degrades instead of failing (issue 29 finding B).

Production keeps the standings, rendered public pages, the referee desk's problems and the
player-name index in Redis (``REDIS_URL``). None of it is the only copy of anything: every
entry can be computed again from the database. So when Redis cannot be reached, a page must
compute what it needs and answer, not fail with a 500.

- ``ResilientRedisCache``: Django's Redis cache backend whose every operation, when Redis does
  not answer, does what an empty cache would: ``get`` gives the default, ``set`` and ``delete``
  keep nothing, ``add`` answers True (nothing is held: the caller goes ahead, so the standings'
  recomputation lock becomes per request instead of waiting for a lock nobody can take). The
  failure is logged once (a warning naming the cache) and the cache is not asked again for
  ``RETRY_SECONDS`` — a dead Redis costs one connection attempt per process every few seconds,
  not one per cache read (with a silently dropped connection each would wait for the socket
  timeout). When it answers again that is logged too.
- ``Breaker``: that pause, one per Redis address and shared by the threads of a process; the
  throttle's Redis store (``tournaments.throttle``) uses one too.
- ``cache_health()``: what ``/healthz`` says about the cache — ``ok`` or ``unavailable`` with
  the cache's name (its address without credentials) and the error, from a live ping.

May touch: the cache only. No domain logic here.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger("tournaments.cache")

RETRY_SECONDS = 5.0


def redis_errors() -> tuple[type[BaseException], ...]:
    """What a Redis that cannot be reached raises (the library's errors, and the socket's)."""
    import redis

    return (redis.exceptions.RedisError, OSError)


def describe(location: str) -> str:
    """``redis://:secret@10.0.0.2:6379/1`` → ``redis 10.0.0.2:6379/1``: the address, never the
    password (``/healthz`` and the logs show it)."""
    parts = urlsplit(location)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme or 'redis'} {host}{port}{parts.path or ''}"


class Breaker:
    """After a failure, say "down" for ``RETRY_SECONDS`` so callers skip the store at once."""

    def __init__(self, name: str, what: str) -> None:
        self.name = name
        self.what = what  # "cache", "throttle store": for the log
        self.down_until = 0.0
        self.failing = False
        self.lock = threading.Lock()

    def is_open(self) -> bool:
        return time.monotonic() < self.down_until

    def trip(self, error: BaseException, instead: str) -> None:
        with self.lock:
            first = not self.failing
            self.failing = True
            self.down_until = time.monotonic() + RETRY_SECONDS
        if first:  # one warning per outage; the retries that fail again stay quiet
            logger.warning(
                "%s unavailable (%s): %s; %s (retrying every %s s)",
                self.what,
                self.name,
                error,
                instead,
                int(RETRY_SECONDS),
            )

    def succeeded(self) -> None:
        if self.failing:
            with self.lock:
                was, self.failing, self.down_until = self.failing, False, 0.0
            if was:
                logger.warning("%s available again (%s)", self.what, self.name)


_breakers: dict[tuple[str, str], Breaker] = {}
_breakers_lock = threading.Lock()


def breaker(location: str, what: str) -> Breaker:
    """The process's breaker for the Redis at ``location`` used as ``what``."""
    with _breakers_lock:
        found = _breakers.get((what, location))
        if found is None:
            found = _breakers[(what, location)] = Breaker(describe(location), what)
        return found


def reset_breakers() -> None:
    """Forget every outage this process has seen (the tests start each from a clean slate)."""
    with _breakers_lock:
        _breakers.clear()


_MISSING = object()


class ResilientRedisCache(RedisCache):
    """Django's ``RedisCache``; when Redis does not answer, an empty cache (module docstring)."""

    INSTEAD = "pages are computed without it"

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self.location = self._servers[0]

    @property
    def breaker(self) -> Breaker:
        return breaker(self.location, "cache")

    def _guarded(self, fallback: Any, method: Any, *args: Any) -> Any:
        if self.breaker.is_open():
            return fallback
        try:
            result = method(*args)
        except redis_errors() as error:
            self.breaker.trip(error, self.INSTEAD)
            return fallback
        self.breaker.succeeded()
        return result

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._guarded(True, super().add, key, value, timeout, version)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._guarded(default, super().get, key, default, version)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._guarded(None, super().set, key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._guarded(False, super().touch, key, timeout, version)

    def delete(self, key: Any, version: Any = None) -> Any:
        return self._guarded(False, super().delete, key, version)

    def get_many(self, keys: Any, version: Any = None) -> Any:
        return self._guarded({}, super().get_many, keys, version)

    def has_key(self, key: Any, version: Any = None) -> Any:
        return self._guarded(False, super().has_key, key, version)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> Any:
        found = self._guarded(_MISSING, super().incr, key, delta, version)
        if found is _MISSING:
            raise ValueError(f"Key '{key}' not found")  # what an empty cache says
        return found

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> Any:
        return self._guarded(list(data), super().set_many, data, timeout, version)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._guarded(None, super().delete_many, keys, version)

    def clear(self) -> Any:
        return self._guarded(False, super().clear)

    def health(self) -> tuple[bool, str]:
        """A live ping, whatever the breaker says (``/healthz``): (answers, what it is)."""
        name = describe(self.location)
        try:
            self._cache.get_client(write=True).ping()
        except redis_errors() as error:
            self.breaker.trip(error, self.INSTEAD)
            return False, f"{name}: {error}"
        self.breaker.succeeded()
        return True, name


def cache_health() -> tuple[bool, str]:
    """The default cache: (usable, its name and, when not, why)."""
    from django.core.cache import caches

    backend = caches["default"]
    health = getattr(backend, "health", None)
    if callable(health):
        answer: tuple[bool, str] = health()
        return answer
    name = type(backend).__name__
    try:
        backend.set("healthz", 1, 5)
    except Exception as error:
        return False, f"{name}: {error}"
    return True, "local memory, per process" if "LocMem" in name else name
