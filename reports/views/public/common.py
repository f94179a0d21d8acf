"""What every public page shares: the page cache (``public_page``), the rounds that count, which
standings the pages show by default, and the mark of a page showing provisional standings.

Public pages never show anything private: no pair codes, no table entry links, no draft rounds.
For anonymous visitors (no session cookie) they are cached for ``PUBLIC_CACHE_SECONDS`` under a
key that includes the tournament's ``results_version``, so a confirmed result or a published
round shows at once; responses carry ``Cache-Control: public``."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.conf import settings as django_settings
from django.core.cache import cache
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_cache_control
from django.utils.translation import get_language

from reports.pagecache import normalise_query
from scoring.cache import CompactStandings
from tournaments.models import Round, Table, Tournament

PUBLIC_CACHE_SECONDS = 30
PUBLIC_MAX_AGE = 15


def _is_anonymous_request(request: HttpRequest) -> bool:
    """No session and no pending messages: the page is the same for every such visitor."""
    cookies = request.COOKIES
    return django_settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies


def public_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A public tournament page: loads ``tournament`` from ``slug``, caches anonymous GETs.

    The cache key holds the path with its query — reduced to the page's known parameters,
    normalised (``reports.pagecache``) — the language and the tournament's ``results_version``
    (bumped by every result, publication and registration).
    """

    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        normalise_query(request)
        tournament = get_object_or_404(Tournament, slug=slug)
        cacheable = request.method in ("GET", "HEAD") and _is_anonymous_request(request)
        if not cacheable:
            response = view(request, tournament=tournament, **kwargs)
            patch_cache_control(response, private=True, max_age=0)
            return response
        raw = "|".join(
            (
                str(tournament.pk),
                str(tournament.results_version),
                tournament.created_at.isoformat(),
                get_language() or "",
                request.get_full_path(),
            )
        )
        key = "public-page:" + hashlib.sha256(raw.encode()).hexdigest()
        hit = cache.get(key)
        if hit is not None:
            content, content_type = hit
            response = HttpResponse(content, content_type=content_type)
        else:
            response = view(request, tournament=tournament, **kwargs)
            if getattr(response, "provisional_standings", False):
                patch_cache_control(response, private=True, max_age=0)
                return response
            if response.status_code == 200 and not response.cookies and not response.streaming:
                if hasattr(response, "render") and not response.is_rendered:
                    response.render()
                cache.set(key, (response.content, response["Content-Type"]), PUBLIC_CACHE_SECONDS)
        if response.status_code == 200:
            patch_cache_control(response, public=True, max_age=PUBLIC_MAX_AGE)
        return response

    return wrapper


def counted_rounds(tournament: Tournament) -> list[Round]:
    return list(Round.objects.counted().filter(tournament=tournament).order_by("number"))


@dataclass(frozen=True, slots=True)
class StandingsRound:
    """Which standings the public pages show by default: after ``after``, the latest round
    whose tables are all confirmed (and every round before it); ``pending`` the round being
    played after it — its number and how many of its tables are confirmed — if any. Every page
    asks for the same ``after`` so they share one cache entry (one computation a result)."""

    after: int
    pending: dict[str, int] | None


def standings_round(tournament: Tournament) -> StandingsRound:
    """The latest complete round and the one in play after it (one query)."""
    counts = (
        Round.objects.counted()
        .filter(tournament=tournament)
        .annotate(
            total=Count("tables", filter=Q(tables__is_bye=False)),
            confirmed=Count(
                "tables",
                filter=Q(tables__is_bye=False, tables__entry_status=Table.EntryStatus.CONFIRMED),
            ),
        )
        .order_by("number")
        .values_list("number", "total", "confirmed")
    )
    after = 0
    for number, total, confirmed in counts:
        if confirmed < total:
            return StandingsRound(after, {"number": number, "confirmed": confirmed, "total": total})
        after = number
    return StandingsRound(after, None)


def mark_provisional(response: HttpResponse, rows: CompactStandings | None) -> HttpResponse:
    """A page showing the previous standings while newer ones are computed (they say so, with
    their time: ``standings.current``/``as_of`` in the template) is never kept by the page
    cache, nor by browsers or proxies."""
    if rows is not None and not rows.current:
        response.provisional_standings = True  # type: ignore[attr-defined]
    return response
