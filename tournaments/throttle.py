"""Throttling of guessable secrets: logins (and, for whoever wants it, pair codes at the table).

May touch: the cache only (never the database), so a throttled request costs one cache round
trip and nothing else. With ``REDIS_URL`` set the counters are shared by every gunicorn worker;
with the default per-process memory cache each worker counts on its own (still a hard ceiling
of workers × limit guesses per window).

Counters are fixed windows: the first failure starts a window of ``LOGIN_FAILURES_WINDOW``
seconds, and once ``limit`` failures are counted in it every further attempt is refused until it
expires. A success resets the (account, client) counter, not the per-client one, so a client
spraying many accounts stays blocked. If the cache itself fails we let the attempt through (fail
open) and log it: a broken cache must not lock every referee out on tournament day.

Wiring: ``guandan_tourney.middleware.LoginThrottleMiddleware`` applies ``login_blocked`` /
``login_failed`` / ``login_succeeded`` to POSTs to the login pages (ours and the admin's).
"""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.cache import cache
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
    return f"throttle:{scope}:{digest[:32]}"


def _count(key: str) -> int:
    try:
        return int(cache.get(key, 0) or 0)
    except Exception:  # cache down: fail open (see module docstring)
        logger.warning("throttle cache unavailable; not throttling", exc_info=True)
        return 0


def _bump(key: str, window: int) -> None:
    try:
        # add() only creates the counter (starting the window); incr() is atomic in Redis and
        # in the memory cache, so two workers failing at once both count.
        cache.add(key, 0, timeout=window)
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=window)
    except Exception:
        logger.warning("throttle cache unavailable; failure not counted", exc_info=True)


def _clear(key: str) -> None:
    try:
        cache.delete(key)
    except Exception:
        logger.warning("throttle cache unavailable; counter not reset", exc_info=True)


def is_blocked(scope: str, subject: str, client: str, *, limit: int | None = None) -> bool:
    """True when ``subject`` (an account, a table) from ``client`` has used up its failures, or
    ``client`` has used up its failures across all subjects."""
    per_subject = limit or settings.LOGIN_FAILURES_LIMIT
    per_client = max(per_subject, settings.LOGIN_FAILURES_PER_CLIENT_LIMIT)
    return (
        _count(_key(scope, subject.casefold(), client)) >= per_subject
        or _count(_key(scope + ":client", client)) >= per_client
    )


def register_failure(scope: str, subject: str, client: str) -> None:
    window = settings.LOGIN_FAILURES_WINDOW
    _bump(_key(scope, subject.casefold(), client), window)
    _bump(_key(scope + ":client", client), window)


def reset(scope: str, subject: str, client: str) -> None:
    _clear(_key(scope, subject.casefold(), client))


# The login flavour, used by the middleware.
LOGIN_SCOPE = "login"


def login_blocked(request: HttpRequest, username: str) -> bool:
    return is_blocked(LOGIN_SCOPE, username, client_ip(request))


def login_failed(request: HttpRequest, username: str) -> None:
    client = client_ip(request)
    register_failure(LOGIN_SCOPE, username, client)
    logger.info("login failed for %r from %s", username[:150], client)


def login_succeeded(request: HttpRequest, username: str) -> None:
    reset(LOGIN_SCOPE, username, client_ip(request))
