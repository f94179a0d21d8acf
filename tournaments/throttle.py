"""Throttling of guessable secrets: logins and the pair codes that confirm a table-side entry.

May touch: its own counters only — Redis (``THROTTLE_STORE = "redis"``, the default when
``REDIS_URL`` is set) or the ``ThrottleCounter`` table (``"database"``, the default otherwise).
Both are shared by every gunicorn worker, so a limit is a limit for the whole site, not per
process. (Django's default cache is a per-process memory cache, which is why it is not used.)

Counting is **reserve first, then check the secret**: an attempt atomically increments every
counter that applies (Redis ``INCR`` in a Lua script; one ``INSERT … ON CONFLICT DO UPDATE …
RETURNING`` statement in the database) and is let through only if every new count is within its
limit. Two attempts at the same instant get different counts, so no race lets more than
``limit`` guesses through. An attempt that turns out not to be a wrong guess (a success, a
malformed form, a blocked attempt) gives its reservation back (``Attempt.settle``), so only wrong
guesses use up the window. Windows are fixed: the first counted attempt starts one.

The limits (settings, env) and why:

- logins: 5 wrong passwords per account from one address, 20 per account from anywhere (a
  guesser spreading over addresses), 100 per address over all accounts — a venue's Wi-Fi puts
  every referee's phone behind one address (NAT), and 100 typos in 15 minutes from one venue is
  an attack, not a crowd. One address guessing one account locks only itself out of that
  account, and a blocked attempt is not counted, so the per-account lock needs 20 real guesses.
- pair codes: 10 wrong codes per table from one address, 50 per table from anywhere, in 10
  minutes. A stranger who found the link and guesses locks out *their own* address; the real
  West, on the venue's network, still has the table's remaining attempts. (31⁶ ≈ 887 million
  codes: 50 guesses every 10 minutes for 12 hours is ~1 chance in 250,000.)

If Redis fails, the attempt is counted in the database instead (logged once per outage; the
Redis store then rests for a few seconds, ``tournaments.resilient_cache.Breaker``): a broken
Redis must neither lock every referee out on tournament day nor let every guess through. If the
database fails too, the attempt is refused as ``unavailable`` (nothing could be checked anyway:
the login and the code check need the database) and logged as an error — never silently open.

Wiring: ``guandan_tourney.middleware.LoginThrottleMiddleware`` (login POSTs, ours and the
admin's) and ``scoring.views.tableside.tableside_confirm`` (pair codes).
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.http import HttpRequest

logger = logging.getLogger(__name__)


def client_ip(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or the entry ``NUM_PROXIES`` from the right of
    X-Forwarded-For when that many trusted proxies append to it (a client can forge the
    left-hand entries, never the ones our own proxies appended)."""
    remote = request.META.get("REMOTE_ADDR", "") or "unknown"
    proxies = getattr(settings, "NUM_PROXIES", 0)
    if proxies <= 0:
        return remote
    chain = [p.strip() for p in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    chain = [p for p in chain if p]
    if len(chain) >= proxies:
        return chain[-proxies]
    return remote


def _key(scope: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"throttle:{scope}:{digest[:40]}"


# --------------------------------------------------------------------------------------------
# Stores


class Store(Protocol):
    def hit(self, key: str, window: int) -> int:
        """Add one to ``key`` (starting a window of ``window`` seconds if none is running) and
        return the new count, atomically."""

    def refund(self, key: str) -> None:
        """Take one back (never below zero; nothing if the window has ended)."""

    def clear(self, key: str) -> None: ...


_HIT_LUA = """
local n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""
_REFUND_LUA = """
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then return redis.call('DECR', KEYS[1]) end
return 0
"""


class RedisStore:
    """Counters in Redis (``REDIS_URL``); a Lua script makes increment-and-expire one step.
    After a failure it rests (raises at once) for a few seconds: the database counts then."""

    def __init__(self, url: str, prefix: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.url = url
        self.prefix = prefix
        self._hit = self.client.register_script(_HIT_LUA)
        self._refund = self.client.register_script(_REFUND_LUA)

    def _call(self, run: Any) -> Any:
        from tournaments.resilient_cache import breaker

        rest = breaker(self.url, "throttle store")
        if rest.is_open():
            raise StoreUnavailable(rest.name)
        try:
            result = run()
        except Exception as error:
            rest.trip(error, "counting in the database instead")
            raise
        rest.succeeded()
        return result

    def hit(self, key: str, window: int) -> int:
        return int(self._call(lambda: self._hit(keys=[self.prefix + key], args=[window])))

    def refund(self, key: str) -> None:
        self._call(lambda: self._refund(keys=[self.prefix + key]))

    def clear(self, key: str) -> None:
        self._call(lambda: self.client.delete(self.prefix + key))


class StoreUnavailable(Exception):
    """The Redis store is resting after a failure."""


class DatabaseStore:
    """Counters in the ``ThrottleCounter`` table: one upsert statement per hit (PostgreSQL and
    SQLite ≥ 3.35 both speak ``ON CONFLICT … DO UPDATE … RETURNING``), run in autocommit so a
    count survives whatever the request does afterwards."""

    SWEEP_EVERY = 200  # on average, one hit in this many deletes the expired rows

    def hit(self, key: str, window: int) -> int:
        from tournaments.models import ThrottleCounter

        q = connection.ops.quote_name
        table = q(ThrottleCounter._meta.db_table)
        count, expires = q("count"), q("expires_at")
        now = int(time.time())
        # Only identifiers of our own model are formatted in; every value is a parameter.
        sql = (
            f"INSERT INTO {table} ({q('key')}, {count}, {expires}) VALUES (%s, 1, %s) "  # noqa: S608
            f"ON CONFLICT ({q('key')}) DO UPDATE SET "
            f"{count} = CASE WHEN {table}.{expires} <= %s THEN 1 ELSE {table}.{count} + 1 END, "
            f"{expires} = CASE WHEN {table}.{expires} <= %s THEN excluded.{expires} "
            f"ELSE {table}.{expires} END "
            f"RETURNING {count}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [key, now + window, now, now])
            value = int(cursor.fetchone()[0])
        if random.randrange(self.SWEEP_EVERY) == 0:
            ThrottleCounter.objects.filter(expires_at__lte=now).delete()
        return value

    def refund(self, key: str) -> None:
        from tournaments.models import ThrottleCounter

        ThrottleCounter.objects.filter(
            key=key, count__gt=0, expires_at__gt=int(time.time())
        ).update(count=F("count") - 1)

    def clear(self, key: str) -> None:
        from tournaments.models import ThrottleCounter

        ThrottleCounter.objects.filter(key=key).delete()


_stores: dict[tuple[str, str], Store] = {}
_stores_lock = threading.Lock()


def store() -> Store:
    """The configured store (one Redis client per process and URL)."""
    kind = getattr(settings, "THROTTLE_STORE", "database")
    if kind != "redis":
        return DatabaseStore()
    url = settings.THROTTLE_REDIS_URL
    with _stores_lock:
        if ("redis", url) not in _stores:
            _stores[("redis", url)] = RedisStore(url, getattr(settings, "THROTTLE_KEY_PREFIX", ""))
        return _stores[("redis", url)]


def stores() -> list[Store]:
    """The configured store, then the database when that is Redis (the fallback)."""
    first = store()
    return [first] if isinstance(first, DatabaseStore) else [first, DatabaseStore()]


# --------------------------------------------------------------------------------------------
# Attempts


@dataclass
class Attempt:
    """One guess, counted in ``counters`` (key, limit) before the secret is checked, in
    ``backend`` (None: not counted). ``unavailable``: no store could count it (refused)."""

    counters: list[tuple[str, int]]
    window: int
    blocked: bool = False
    unavailable: bool = False
    backend: Store | None = None
    _counted: list[str] = field(default_factory=list)
    _kept: bool = False

    def keep(self) -> None:
        """It was a wrong guess: leave it counted."""
        self._kept = True

    def settle(self) -> None:
        """Give the reservation back unless ``keep`` was called (a success, a malformed form)."""
        if self._kept:
            return
        _refund(self.backend, self._counted)
        self._counted = []


def _refund(backend: Store | None, keys: list[str]) -> None:
    if backend is None or not keys:
        return
    try:
        for key in keys:
            backend.refund(key)
    except Exception as error:  # one line, no traceback: the store may simply be down
        logger.warning("throttle store unavailable; reservation not returned: %s", error)


def _count(backend: Store, counters: list[tuple[str, int]], window: int) -> Attempt:
    result = Attempt(counters, window, backend=backend)
    for key, limit in counters:
        count = backend.hit(key, window)
        result._counted.append(key)
        if count > limit:
            result.blocked = True
    return result


def attempt(counters: list[tuple[str, int]], window: int) -> Attempt:
    """Reserve one attempt in every counter; blocked (and nothing reserved) if any is full.
    Redis failing, the database counts (module docstring); both failing, refused."""
    for backend in stores():
        try:
            result = _count(backend, counters, window)
        except Exception as error:
            if isinstance(backend, DatabaseStore):
                logger.error(
                    "throttle store unavailable (database): refusing the attempt: %s", error
                )
                return Attempt(counters, window, blocked=True, unavailable=True, _kept=True)
            continue  # Redis: logged by its breaker; the database counts instead
        if result.blocked:
            _refund(backend, result._counted)
            result._counted = []
            result._kept = True
        return result
    raise AssertionError("stores() always ends with the database")  # pragma: no cover


def clear(key: str, backend: Store | None = None) -> None:
    """Reset ``key`` in ``backend`` (default: every store it may be counted in)."""
    for one in [backend] if backend is not None else stores():
        try:
            one.clear(key)
        except Exception as error:
            logger.warning("throttle store unavailable; counter not reset: %s", error)


# --------------------------------------------------------------------------------------------
# Logins


LOGIN_SCOPE = "login"


def _login_counters(username: str, client: str) -> list[tuple[str, int]]:
    account = username.casefold()
    return [
        (_key(LOGIN_SCOPE, account, client), settings.LOGIN_FAILURES_LIMIT),
        (_key(LOGIN_SCOPE + ":account", account), settings.LOGIN_FAILURES_PER_ACCOUNT_LIMIT),
        (_key(LOGIN_SCOPE + ":client", client), settings.LOGIN_FAILURES_PER_CLIENT_LIMIT),
    ]


def login_attempt(request: HttpRequest, username: str) -> Attempt:
    """Reserve a login attempt for ``username`` from the request's address."""
    return attempt(_login_counters(username, client_ip(request)), settings.LOGIN_FAILURES_WINDOW)


def login_failed(request: HttpRequest, username: str, reservation: Attempt) -> None:
    reservation.keep()
    logger.info("login failed for %r from %s", username[:150], client_ip(request))


def login_succeeded(request: HttpRequest, username: str, reservation: Attempt) -> None:
    """The right password: the attempt is returned and the (account, address) count reset."""
    reservation.settle()
    clear(_key(LOGIN_SCOPE, username.casefold(), client_ip(request)), reservation.backend)


# --------------------------------------------------------------------------------------------
# Pair codes at the table


PAIR_CODE_SCOPE = "pair-code"


def pair_code_attempt(request: HttpRequest, table_id: Any) -> Attempt:
    """Reserve a pair-code guess at table ``table_id`` from the request's address."""
    client = client_ip(request)
    table = str(table_id)
    return attempt(
        [
            (_key(PAIR_CODE_SCOPE, table, client), settings.PAIR_CODE_FAILURES_LIMIT),
            (_key(PAIR_CODE_SCOPE + ":table", table), settings.PAIR_CODE_FAILURES_PER_TABLE_LIMIT),
        ],
        settings.PAIR_CODE_FAILURES_WINDOW,
    )
