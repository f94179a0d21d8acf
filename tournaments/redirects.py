"""Where a page may send the user back to after a POST: a ``next`` parameter is only followed
when it stays on this site and is a well-formed URL (no control characters, which would make
the ``Location`` header itself invalid and the response a 500)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def safe_next(request: HttpRequest, target: str | None, fallback: str) -> str:
    if (
        target
        # A path on this site: "NS9" would be read by ``redirect()`` as a view name (a 500).
        and target.startswith("/")
        and target.isprintable()
        and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        return target
    return fallback
