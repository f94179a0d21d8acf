"""Deployment checks (``manage.py check --deploy``) for what Django's own checks cannot know.

- ``guandan.W001``: production (``DEBUG`` off) without a shared store — Django's cache is then a
  memory cache per gunicorn worker, so each worker keeps its own standings cache and cached
  pages. The throttle counters still hold across workers (they go to the database, one write per
  attempt), but Redis (``REDIS_URL``) is the intended production store (docs/deploy.md).
- ``guandan.E002``: the throttle store is Redis and Redis does not answer: the counters would
  then go to the database (one write per attempt) and every page would be computed without its
  cache — it works, but not as configured.
- ``guandan.E003``: production (``DEBUG`` off) without ``SECRET_KEY`` or ``ALLOWED_HOSTS``
  (``settings.SERVING_PROBLEMS``); the server refuses to start for the same reason
  (``require_serving_settings``, called by ``wsgi.py`` and ``asgi.py``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured

PER_PROCESS_CACHES = {
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
}


@register(Tags.security, Tags.caches, deploy=True)
def shared_store(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    problems: list[CheckMessage] = []
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    if not settings.DEBUG and backend in PER_PROCESS_CACHES:
        problems.append(
            Warning(
                "Production runs without a shared store: the cache is per worker process.",
                hint="Set REDIS_URL (docs/deploy.md, 'The shared store') so every worker shares "
                "the standings cache and the throttle counters.",
                id="guandan.W001",
            )
        )
    if getattr(settings, "THROTTLE_STORE", "database") == "redis":
        try:
            import redis

            redis.Redis.from_url(
                settings.THROTTLE_REDIS_URL, socket_timeout=2, socket_connect_timeout=2
            ).ping()
        except Exception as error:
            problems.append(
                Error(
                    f"The throttle store (Redis at THROTTLE_REDIS_URL/REDIS_URL) does not answer: "
                    f"{error}",
                    hint="Start Redis or unset REDIS_URL to keep the counters in the database.",
                    id="guandan.E002",
                )
            )
    return problems


def require_serving_settings() -> None:
    """Refuse to serve without production's secrets (``settings.SERVING_PROBLEMS``)."""
    problems = getattr(settings, "SERVING_PROBLEMS", [])
    if problems:
        raise ImproperlyConfigured("; ".join(problems))


@register(Tags.security, deploy=True)
def serving_settings(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    return [
        Error(problem, hint="docs/deploy.md, '3. The environment file'", id="guandan.E003")
        for problem in getattr(settings, "SERVING_PROBLEMS", [])
    ]
