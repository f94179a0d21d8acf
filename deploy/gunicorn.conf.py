"""gunicorn settings: ``gunicorn -c deploy/gunicorn.conf.py guandan_tourney.wsgi``.

Everything can be overridden from the environment (the systemd unit reads /etc/guandan-tourney/env):
``GUNICORN_BIND`` (default 127.0.0.1:8000, behind the reverse proxy), ``WEB_CONCURRENCY`` (worker
processes; default 2 × CPU cores + 1, at most 8), ``GUNICORN_TIMEOUT`` (seconds, default 120),
``FORWARDED_ALLOW_IPS`` (the proxy's address whose X-Forwarded-Proto is trusted).

Sync workers on purpose: every request is short (one service call in one transaction), and a
worker that dies (SIGKILL, out of memory) takes only its own request with it — its transaction is
rolled back by PostgreSQL when the connection drops — and the master starts a fresh one.
"""

from __future__ import annotations

import multiprocessing
import os


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = _int("WEB_CONCURRENCY", min(2 * multiprocessing.cpu_count() + 1, 8))
worker_class = "sync"
# A request that takes longer than this is killed (and its transaction rolled back). Generous:
# printing a thousand score sheets takes seconds, and on an overloaded machine a killed worker
# is a 500 for whoever was waiting (the load test saw it at 30 s); the proxy waits a bit longer.
timeout = _int("GUNICORN_TIMEOUT", 120)
graceful_timeout = 30
# Recycle workers now and then so slow leaks never build up over a tournament weekend.
max_requests = _int("GUNICORN_MAX_REQUESTS", 5000)
max_requests_jitter = 500
# Django connects lazily per worker; nothing is shared across the fork, so no preload needed.
preload_app = False
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# "-" = standard output (the journal); "off" for none (the load test measures itself).
accesslog = (
    None
    if os.environ.get("GUNICORN_ACCESSLOG") == "off"
    else os.environ.get("GUNICORN_ACCESSLOG", "-")
)
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "info")
proc_name = "guandan-tourney"
