"""Settings for guandan-tourney, read from the environment only.

Every value comes from an environment variable with a safe default for a laptop; a bad value
fails loudly at start-up rather than half-working at the tournament. ``docs/deploy.md`` and
``deploy/env.example`` describe a production setup; ``python manage.py check --deploy`` is clean
with ``DEBUG=0``, a long ``SECRET_KEY`` and ``ALLOWED_HOSTS`` set (tests/db/test_deploy.py).

- ``DEBUG`` (default ``0``; ``make run`` and the tests set ``1``)
- ``SECRET_KEY`` (required, at least 50 characters, when ``DEBUG=0``)
- ``ALLOWED_HOSTS`` (comma separated; required when ``DEBUG=0``), ``CSRF_TRUSTED_ORIGINS``
- ``DATABASE_URL`` (default: a SQLite file ``db.sqlite3`` beside ``manage.py``),
  ``CONN_MAX_AGE`` (seconds a connection is kept; default 0 in debug, 60 otherwise),
  ``DB_CONNECT_TIMEOUT`` (seconds, PostgreSQL; default 5, so an unreachable database gives a
  quick "database unavailable" page instead of a hung worker)
- ``REDIS_URL`` (optional shared cache: standings, public pages; and the throttle counters,
  which otherwise live in the database: ``THROTTLE_STORE`` = ``redis``/``database``)
- ``HTTPS`` (default ``1`` when ``DEBUG=0``: secure cookies, HSTS, redirect to https; set ``0``
  only for a closed LAN without TLS), and the finer ``SECURE_SSL_REDIRECT``,
  ``SESSION_COOKIE_SECURE``, ``CSRF_COOKIE_SECURE``, ``SECURE_HSTS_SECONDS``,
  ``SECURE_HSTS_INCLUDE_SUBDOMAINS``, ``SECURE_HSTS_PRELOAD``
- ``NUM_PROXIES`` (reverse proxies in front that append to ``X-Forwarded-For``; default 0),
  ``LOGIN_FAILURES_*`` / ``PAIR_CODE_FAILURES_*`` (throttling, tournaments/throttle.py)
- ``PUBLIC_BASE_URL`` (the address players' phones reach the site at, e.g.
  ``https://score.example.org`` or ``http://192.168.1.10:8000`` on a venue LAN: every QR code and
  printed link is built on it; unset, they use the host the organizer printed from, and the
  print page warns). ``SITE_URL`` is its older name.
- ``STATIC_ROOT``, ``TIME_ZONE``, ``LOG_LEVEL``
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    """``1/0``, ``true/false``, ``yes/no``, ``on/off``; anything else is a start-up error."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_int(name: str, default: int, minimum: int = 0) -> int:
    """A whole number >= ``minimum``; anything else is a start-up error."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)

# What production must have before it serves: missing, these stop the server (``wsgi.py``,
# ``asgi.py``) and ``check --deploy`` (guandan.E003), not the commands that serve nothing
# (``makemigrations --check`` on a fresh clone). A value that is set but wrong fails here.
SERVING_PROBLEMS: list[str] = []

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        SERVING_PROBLEMS.append("SECRET_KEY must be set when DEBUG is off")
    else:
        SECRET_KEY = "insecure-development-key-only-for-debug"  # noqa: S105 - debug only
elif not DEBUG and (len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5):
    # Sessions and the CSRF token are signed with it; Django's own check wants >= 50 characters.
    raise ImproperlyConfigured(
        "SECRET_KEY must be at least 50 random characters when DEBUG is off "
        '(python -c "import secrets; print(secrets.token_urlsafe(50))")'
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
if not DEBUG and not ALLOWED_HOSTS:
    SERVING_PROBLEMS.append("ALLOWED_HOSTS must be set when DEBUG is off (e.g. score.example.org)")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# Where players' phones reach the site (QR codes, printed links): ``reports.collect.public_base``.
PUBLIC_BASE_URL = (
    (os.environ.get("PUBLIC_BASE_URL", "") or os.environ.get("SITE_URL", "")).strip().rstrip("/")
)
if PUBLIC_BASE_URL and not PUBLIC_BASE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(
        "PUBLIC_BASE_URL must start with http:// or https:// (e.g. https://score.example.org)"
    )

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_tables2",
    "tournaments",
    "pairing",
    "scoring",
    "reports",
    "guandan_tourney.apps.SiteConfig",  # deployment checks (guandan_tourney/checks.py)
]

MIDDLEWARE = [
    # /healthz answers before anything else touches the session or the database.
    "guandan_tourney.middleware.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every page; no-store on pages with pair codes or table links.
    "guandan_tourney.middleware.SecurityHeadersMiddleware",
    # NUL/control characters in the path or query → 400; URL numbers beyond a column → 404.
    "guandan_tourney.middleware.InputGuardMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Turns "the database is unreachable" into a clear 503 page (see its docstring).
    "guandan_tourney.middleware.DatabaseUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Refuses a login POST after too many failures (tournaments/throttle.py); after auth so
    # the session exists, before the view so a throttled attempt never checks the password.
    "guandan_tourney.middleware.LoginThrottleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Stored results the engine refuses → a 409 page saying so, not a 500.
    "guandan_tourney.middleware.ResultsProblemMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "guandan_tourney.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "guandan_tourney.wsgi.application"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("CONN_MAX_AGE", 0 if DEBUG else 60),
        # A kept connection is pinged before reuse, so a restarted database costs one retry,
        # not a worker full of dead connections.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers proceed while one writer commits; a busy timeout waits for the lock
    # instead of failing at once when two referees save at the same moment.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env_int("DB_CONNECT_TIMEOUT", 5, minimum=1)
    )

if os.environ.get("REDIS_URL"):
    # Shared by every gunicorn worker: the standings cache, cached public pages and the login
    # throttle counters then hold across processes. Needs the ``redis`` package. Nothing in it
    # is the only copy: with Redis unreachable the pages compute what they need and say so in
    # the log (tournaments/resilient_cache.py), and /healthz names the cache.
    CACHES = {
        "default": {
            "BACKEND": "tournaments.resilient_cache.ResilientRedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "gt"),
            "TIMEOUT": env_int("CACHE_TIMEOUT", 300),
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Throttling (tournaments/throttle.py; limits and why: docs/deploy.md). The counters live in a
# store every worker shares: Redis when REDIS_URL is set, the database otherwise.
THROTTLE_STORE = os.environ.get(
    "THROTTLE_STORE", "redis" if os.environ.get("REDIS_URL") else "database"
)
if THROTTLE_STORE not in {"redis", "database"}:
    raise ImproperlyConfigured(f"THROTTLE_STORE must be redis or database, got {THROTTLE_STORE!r}")
THROTTLE_REDIS_URL = os.environ.get("THROTTLE_REDIS_URL", os.environ.get("REDIS_URL", ""))
if THROTTLE_STORE == "redis" and not THROTTLE_REDIS_URL:
    raise ImproperlyConfigured("THROTTLE_STORE=redis needs REDIS_URL (or THROTTLE_REDIS_URL)")
THROTTLE_KEY_PREFIX = os.environ.get("CACHE_KEY_PREFIX", "gt") + ":"
# Wrong passwords per (account, address), per account from anywhere, per address overall.
LOGIN_FAILURES_LIMIT = env_int("LOGIN_FAILURES_LIMIT", 5, minimum=1)
LOGIN_FAILURES_PER_ACCOUNT_LIMIT = env_int("LOGIN_FAILURES_PER_ACCOUNT_LIMIT", 20, minimum=1)
LOGIN_FAILURES_PER_CLIENT_LIMIT = env_int("LOGIN_FAILURES_PER_CLIENT_LIMIT", 100, minimum=1)
LOGIN_FAILURES_WINDOW = env_int("LOGIN_FAILURES_WINDOW", 15 * 60, minimum=1)
# Wrong pair codes per (table, device: a cookie and the address) and per table from anywhere.
PAIR_CODE_FAILURES_LIMIT = env_int("PAIR_CODE_FAILURES_LIMIT", 10, minimum=1)
PAIR_CODE_FAILURES_PER_TABLE_LIMIT = env_int("PAIR_CODE_FAILURES_PER_TABLE_LIMIT", 50, minimum=1)
PAIR_CODE_FAILURES_WINDOW = env_int("PAIR_CODE_FAILURES_WINDOW", 10 * 60, minimum=1)
# How many reverse proxies append to X-Forwarded-For (0: use REMOTE_ADDR as is).
NUM_PROXIES = env_int("NUM_PROXIES", 0)

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("简体中文")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed, pre-compressed files that whitenoise serves with far-future cache headers;
        # needs `collectstatic` before the server starts (docs/deploy.md).
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

DJANGO_TABLES2_TEMPLATE = "django_tables2/bootstrap4.html"

# Headers that cost nothing in debug either.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"  # table-side entry links carry a secret in the path
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 14 * 24 * 3600, minimum=60)

if not DEBUG:
    HTTPS = env_bool("HTTPS", True)
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", HTTPS)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", HTTPS)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if HTTPS else 0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", HTTPS)
    # The header alone enrols nobody: a domain is preloaded only when its owner submits it
    # (hstspreload.org). Set 0 if other sites under the same domain still serve plain http.
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", HTTPS)
    # The reverse proxy terminates TLS and says so in this header (deploy/nginx.conf sets it);
    # never set it without a proxy that overwrites the header from clients.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        # Our own operational messages (database unavailable, throttled logins) at INFO.
        "guandan_tourney": {"level": os.environ.get("APP_LOG_LEVEL", "INFO")},
        "tournaments.throttle": {"level": os.environ.get("APP_LOG_LEVEL", "INFO")},
    },
}
