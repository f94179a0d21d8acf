"""Operational middleware: a health check, a clear page when the database is down, login throttling.

May touch: the database only through ``SELECT 1`` in the health check; the cache through
its ping (``tournaments.resilient_cache``) and ``tournaments.throttle``. No domain logic here.

- ``HealthCheckMiddleware``: ``GET /healthz`` → ``200 ok``, ``200 degraded`` (the cache is
  down: pages are computed without it) or ``503 database unavailable``, then one line each for
  the database and the cache (naming it), for the reverse proxy, systemd and the load test. It
  runs first, so neither ALLOWED_HOSTS nor the https redirect nor the session gets in the way of
  a probe from localhost.
- ``DatabaseUnavailableMiddleware``: a view (or its template) that fails because the database
  cannot be reached or is overloaded gets a translated 503 page with ``Retry-After`` instead of
  a 500 and a stack trace. The worker stays up (no crash loop: Django connects per request, and
  ``CONN_HEALTH_CHECKS`` drops a dead kept connection), so the site recovers by itself as soon
  as the database is back. The page is rendered without the request context, because the
  context processors (the logged-in user, the session) would go to the database again.
- ``InputGuardMiddleware``: a path or query string with NUL or another control character is
  answered 400 with a plain page (PostgreSQL cannot even compare such text: it was a 500), and a
  URL's whole number beyond what a column holds (``/pairs/99999999999/``) is a 404, not an
  "integer out of range" 500 (``tournaments.bounds``).
- ``ResultsProblemMiddleware``: a page whose stored results the engine refuses (a ``RuleError``
  escaping a view: results entered under settings that were later changed outside the services)
  is a 409 page that says what the engine found, logged as an error, instead of a 500.
- ``SecurityHeadersMiddleware``: a Content-Security-Policy on every response (no inline script
  anywhere: every script is a file under static/js; the two self-contained error pages' inline
  ``<style>`` blocks are allowed by their hashes), and ``Cache-Control: no-store`` on every page
  that may show a pair code or a table link (organizer, referee, table-side, printing, admin).
- ``LoginThrottleMiddleware``: after too many failed logins for an account from one address, for
  an account from anywhere, or from one address overall, the login pages answer 429 without
  checking the password (limits and the shared store: ``tournaments/throttle.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import Http404, HttpRequest, HttpResponse
from django.template import loader
from django.urls import NoReverseMatch, reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from tournaments import throttle
from tournaments.bounds import INT_MAX

logger = logging.getLogger("guandan_tourney.db")

HEALTH_PATH = "/healthz"
RETRY_AFTER_SECONDS = 10


class HealthCheckMiddleware:
    """``/healthz``: the database (one ``SELECT 1``) and the cache, each on its own line.

    The first line is ``ok`` (200), ``degraded`` (200: the cache is down, the pages are computed
    without it) or ``database unavailable`` (503: nothing works without it); then
    ``database: ok|unavailable`` and ``cache: ok|unavailable (<which cache>…)``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path != HEALTH_PATH:
            return self.get_response(request)
        from tournaments.resilient_cache import cache_health

        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        except DatabaseError as error:
            logger.warning("health check: database unavailable: %s", error)
            database = "database: unavailable"
        else:
            database = "database: ok"
        cache_ok, cache_name = cache_health()
        cache_line = (
            f"cache: ok ({cache_name})" if cache_ok else f"cache: unavailable ({cache_name})"
        )
        if database != "database: ok":
            head, status = "database unavailable", 503
        else:
            head, status = ("ok" if cache_ok else "degraded"), 200
        body = f"{head}\n{database}\n{cache_line}\n"
        response = HttpResponse(body, status=status, content_type="text/plain")
        if status == 503:
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response["Cache-Control"] = "no-store"
        return response


def database_unavailable_response(reason: str = "unreachable") -> HttpResponse:
    """The 503 page (also used by the tests); ``reason`` is ``unreachable`` or ``busy``."""
    if reason == "busy":
        message = _("服务器正忙，您的操作没有保存。请稍后重试。")
    else:
        message = _("暂时无法连接数据库，您的操作没有保存。请稍后重试；已保存的成绩不受影响。")
    body = loader.render_to_string(
        "503.html", {"message": message, "retry_after": RETRY_AFTER_SECONDS}
    )
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """Database connection failures and overload → 503 with a clear page (see module docstring).

    Only ``OperationalError``/``InterfaceError`` count: they mean the server could not be reached,
    the connection broke, or a lock/statement timed out. ``IntegrityError`` and friends are
    programming or validation problems and stay 500s, to be seen and fixed.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        reachable = _connection_usable()
        logger.warning(
            "database %s during %s %s: %s",
            "busy" if reachable else "unavailable",
            request.method,
            request.path,
            exception,
        )
        return database_unavailable_response("busy" if reachable else "unreachable")


def _connection_usable() -> bool:
    """Whether the current connection still answers (a deadlock/lock timeout: yes)."""
    try:
        return connection.connection is not None and connection.is_usable()
    except Exception:
        return False


# C0 controls and DEL. In query values tab, line feed and carriage return are ordinary text
# (a pasted name, a textarea sent by GET); in a path nothing of the kind belongs.
_PATH_CONTROLS = frozenset(chr(c) for c in (*range(0x20), 0x7F))
_QUERY_CONTROLS = _PATH_CONTROLS - {"\t", "\n", "\r"}


def _has(text: str, controls: frozenset[str]) -> bool:
    return not controls.isdisjoint(text)


def bad_request_response(message: str) -> HttpResponse:
    """A plain 400 page (rendered without the request: nothing of the bad input is used)."""
    body = loader.render_to_string("403.html", {"title": _("请求无效"), "message": message})
    response = HttpResponse(body, status=400)
    response["Cache-Control"] = "no-store"
    return response


class InputGuardMiddleware:
    """Control characters in the path or the query string → 400; oversized URL numbers → 404."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _has(request.path, _PATH_CONTROLS) or any(
            _has(key, _QUERY_CONTROLS) or any(_has(value, _QUERY_CONTROLS) for value in values)
            for key, values in request.GET.lists()
        ):
            return bad_request_response(
                _("网址中含有控制字符（如 NUL），无法处理。请检查链接是否完整、正确。")
            )
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        for value in (*args, *kwargs.values()):
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT_MAX:
                raise Http404
        return None


# The namespaces whose pages show pair codes, table links or other people's data.
PRIVATE_NAMESPACES = frozenset(
    {"tournaments", "pairing", "referee", "penalties", "appeals", "tableside", "reports", "admin"}
)


def _inline_style_hashes() -> list[str]:
    """``'sha256-…'`` sources for the ``<style>`` blocks of the self-contained error pages
    (rendered without static files, so they carry their own few rules)."""
    import base64
    import hashlib
    import re

    from django.conf import settings

    sources = []
    for name in ("500.html", "503.html"):
        for directory in settings.TEMPLATES[0]["DIRS"]:
            path = Path(directory) / name
            if path.exists():
                text = path.read_text(encoding="utf-8")
                for block in re.findall(r"<style>(.*?)</style>", text, re.S):
                    digest = hashlib.sha256(block.encode("utf-8")).digest()
                    sources.append(f"'sha256-{base64.b64encode(digest).decode()}'")
    return sorted(set(sources))


def content_security_policy() -> str:
    styles = " ".join(["'self'", *_inline_style_hashes()])
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            f"style-src {styles}",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class SecurityHeadersMiddleware:
    """Content-Security-Policy everywhere; ``no-store`` on private pages (see docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = content_security_policy()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", self.policy)
        match = getattr(request, "resolver_match", None)
        namespaces = set(match.namespaces) if match is not None else set()
        if namespaces & PRIVATE_NAMESPACES or request.path.startswith("/admin/"):
            add_never_cache_headers(response)
        return response


class ResultsProblemMiddleware:
    """An uncaught ``rules.errors.RuleError`` → 409 with the engine's sentence (see docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from rules.errors import RuleError
        from tournaments.messages import describe_rule_error

        if not isinstance(exception, RuleError):
            return None
        logging.getLogger("guandan_tourney.results").error(
            "stored results refused by the engine on %s: %r", request.path, exception
        )
        try:
            detail = describe_rule_error(exception)
        except Exception:
            detail = str(exception)
        message = _(
            "本赛事已保存的成绩与当前设置不符，成绩无法计算：%(detail)s。"
            "请联系裁判长或技术负责人核对赛事设置；已保存的成绩没有改变。"
        ) % {"detail": detail.rstrip("。")}
        body = loader.render_to_string("403.html", {"title": _("成绩无法计算"), "message": message})
        response = HttpResponse(body, status=409)
        response["Cache-Control"] = "no-store"
        return response


def _login_paths() -> frozenset[str]:
    paths = set()
    for name in ("login", "admin:login"):
        try:
            paths.add(reverse(name))
        except NoReverseMatch:
            continue
    return frozenset(paths)


class LoginThrottleMiddleware:
    """Throttles POSTs to the login pages (``tournaments.throttle``): 429 when blocked.

    A failed attempt is a login POST answered with the form again (200); a success is the
    redirect (302) after which Django has logged the user in.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self._paths: frozenset[str] | None = None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return self.get_response(request)
        if self._paths is None:
            self._paths = _login_paths()
        if request.path not in self._paths:
            return self.get_response(request)
        username = str(request.POST.get("username", ""))[:150]
        reservation = throttle.login_attempt(request, username)
        if reservation.unavailable:  # no store could count it: the database is down too
            return database_unavailable_response()
        if reservation.blocked:
            logger.info("login throttled for %r", username)
            return _too_many_attempts(request)
        try:
            response = self.get_response(request)
        except BaseException:
            reservation.settle()
            raise
        if response.status_code == 200:
            throttle.login_failed(request, username, reservation)
        elif response.status_code in (301, 302, 303) and request.user.is_authenticated:
            throttle.login_succeeded(request, username, reservation)
        else:
            reservation.settle()
        return response


def _too_many_attempts(request: HttpRequest) -> HttpResponse:
    from django.conf import settings

    minutes = max(1, settings.LOGIN_FAILURES_WINDOW // 60)
    body = loader.render_to_string(
        "403.html",
        {
            "title": _("尝试次数过多"),
            "message": _("登录失败次数过多，请 %(minutes)s 分钟后再试。") % {"minutes": minutes},
        },
        request=request,
    )
    response = HttpResponse(body, status=429)
    response["Retry-After"] = str(settings.LOGIN_FAILURES_WINDOW)
    return response
