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
- pair codes: counted per (table, device) and per table (50 from anywhere in 10 minutes). A
  venue's Wi-Fi puts every phone behind one address, so the address alone is no device (issue 29:
  ten wrong codes from one phone locked every phone at the venue out of that table). A device is
  the signed ``gt_device`` cookie this site gives the phone (``remember_device``) with its
  address; a client without a valid one (it refuses cookies, or forged one) is the cookie-less
  client of that address and browser (User-Agent), one bucket for all such guesses. A device's
  first 3 wrong codes are free (typos); after that it waits 2, 4, 8 … up to 60 seconds before
  its next code is even checked (``retry_after``: a backoff, no CAPTCHA), and after 10 it is
  refused for the window. Another phone at the same address is never slowed by it. A guesser
  who keeps taking fresh cookies meets the per-table ceiling (31⁶ ≈ 887 million codes: 50
  guesses every 10 minutes for 12 hours is ~1 chance in 250,000).

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
import secrets
import threading
import time
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, Protocol

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.http import HttpRequest
from django.utils.translation import gettext as _

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

    def hold(self, key: str, seconds: int) -> None:
        """Set ``key`` for ``seconds`` from now (a backoff's wait)."""

    def remaining(self, key: str) -> int:
        """Seconds left on ``key`` (0: not set, or over)."""


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

    def hold(self, key: str, seconds: int) -> None:
        self._call(lambda: self.client.set(self.prefix + key, 1, ex=max(1, seconds)))

    def remaining(self, key: str) -> int:
        left = int(self._call(lambda: self.client.ttl(self.prefix + key)))
        return max(0, left)


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

    def hold(self, key: str, seconds: int) -> None:
        from tournaments.models import ThrottleCounter

        q = connection.ops.quote_name
        table = q(ThrottleCounter._meta.db_table)
        sql = (
            f"INSERT INTO {table} ({q('key')}, {q('count')}, {q('expires_at')}) "  # noqa: S608
            f"VALUES (%s, 1, %s) ON CONFLICT ({q('key')}) DO UPDATE SET "
            f"{q('count')} = 1, {q('expires_at')} = excluded.{q('expires_at')}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [key, int(time.time()) + max(1, seconds)])

    def remaining(self, key: str) -> int:
        from tournaments.models import ThrottleCounter

        now = int(time.time())
        ends = ThrottleCounter.objects.filter(key=key, count__gt=0, expires_at__gt=now)
        found = ends.values_list("expires_at", flat=True).first()
        return 0 if found is None else found - now


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
    retry_after: int = 0  # blocked by a backoff: seconds until the next attempt is checked
    counts: dict[str, int] = field(default_factory=dict)
    backoff: Any = None  # called with this attempt when a wrong guess is kept
    _counted: list[str] = field(default_factory=list)
    _kept: bool = False

    def keep(self) -> None:
        """It was a wrong guess: leave it counted."""
        if not self._kept and self.backoff is not None and self.backend is not None:
            try:
                self.backoff(self)
            except Exception as error:
                logger.warning("throttle store unavailable; no backoff set: %s", error)
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
        result.counts[key] = count
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
DEVICE_COOKIE = "gt_device"
DEVICE_SALT = "tournaments.throttle.device"
DEVICE_COOKIE_AGE = 365 * 24 * 3600
# A device's wrong codes at a table: this many are free, then it waits 2, 4, 8 … seconds.
PAIR_CODE_FREE = 3
PAIR_CODE_MAX_WAIT = 60


def device(request: HttpRequest) -> str:
    """Who is guessing, as finely as the request tells: the signed device cookie and the
    address; without a valid cookie, the address and the browser (module docstring)."""
    client = client_ip(request)
    token = request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_SALT)
    if token:
        return f"device:{token}:{client}"
    return f"cookieless:{client}:{request.META.get('HTTP_USER_AGENT', '')[:300]}"


def remember_device(request: HttpRequest, response: Any) -> Any:
    """Give the phone its device cookie (pages where a pair or captain code is typed)."""
    if request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_SALT) is None:
        response.set_signed_cookie(
            DEVICE_COOKIE,
            secrets.token_urlsafe(16),
            salt=DEVICE_SALT,
            max_age=DEVICE_COOKIE_AGE,
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )
    return response


def remembers_device(view: Any) -> Any:
    """A view whose pages take a pair or captain code: its answers give the device cookie."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        return remember_device(request, view(request, *args, **kwargs))

    return wrapper


def pair_code_wait(wrong: int) -> int:
    """Seconds a device waits after its ``wrong``-th wrong code at a table (0: none)."""
    if wrong < PAIR_CODE_FREE:
        return 0
    return int(min(PAIR_CODE_MAX_WAIT, 2 ** (wrong - PAIR_CODE_FREE + 1)))


def _remaining(key: str) -> int:
    """Seconds left on ``key`` in the first store that answers (0 if none does)."""
    for backend in stores():
        try:
            return backend.remaining(key)
        except Exception as error:  # Redis: its breaker has logged it; the database next
            logger.debug("throttle store unavailable for a wait: %s", error)
    return 0


def pair_code_attempt(request: HttpRequest, table_id: Any) -> Attempt:
    """Reserve a pair-code guess at table ``table_id`` by this device (and the table). A
    device still waiting after its last wrong code is refused at once (``retry_after``)."""
    table = str(table_id)
    who = device(request)
    per_device = _key(PAIR_CODE_SCOPE + ":device", table, who)
    wait = _key(PAIR_CODE_SCOPE + ":wait", table, who)
    window = settings.PAIR_CODE_FAILURES_WINDOW
    left = _remaining(wait)
    if left > 0:
        return Attempt([], window, blocked=True, retry_after=left, _kept=True)

    def backoff(reservation: Attempt) -> None:
        seconds = pair_code_wait(reservation.counts.get(per_device, 0))
        if seconds and reservation.backend is not None:
            reservation.backend.hold(wait, seconds)

    result = attempt(
        [
            (per_device, settings.PAIR_CODE_FAILURES_LIMIT),
            (_key(PAIR_CODE_SCOPE + ":table", table), settings.PAIR_CODE_FAILURES_PER_TABLE_LIMIT),
        ],
        window,
    )
    result.backoff = backoff
    return result


def refusal(reservation: Attempt) -> str:
    """What a refused pair- or captain-code attempt tells the player."""
    if reservation.retry_after:
        return _("密码错误次数过多，请 %(seconds)s 秒后再试。") % {
            "seconds": reservation.retry_after
        }
    return _("密码错误次数过多，请稍后再试或联系裁判。")
