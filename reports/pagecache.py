"""What a public page's cache entry is keyed by: the page's own query parameters, normalised
(issue 29 finding K).

The public pages are cached for anonymous visitors (``reports.views.public.common.public_page``)
under a key holding the path and query. Keyed on the raw query string, every distinct ``?x=…`` made
the page render again and stored another copy (~108 KB for the standings) — a cheap way to fill
the cache and keep the workers busy. So before the page is rendered its query is reduced to the
parameters that page reads (``PARAMETERS``, by URL name), each normalised to the value the page
acts on (``?after=01`` is ``?after=1``; a value the page would ignore is dropped), in a fixed
order. The page renders from that query alone (its links — the pager, the language switch —
carry nothing else), so the cached copy is right for every request that normalises the same.

A page missing from ``PARAMETERS`` keeps its raw query (tests/web/test_public_cache_keys.py
makes sure every public page is listed).

May touch: the request's query only. No database, no cache.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.http import HttpRequest, QueryDict

from tournaments.bounds import INT_MAX, clamp_int, parse_int

# A normaliser: the raw value → the value the page acts on, or None when the page would act
# as if the parameter were absent.
Normaliser = Callable[[str], str | None]


def _text(value: str) -> str | None:
    """A search box (the forms strip it; a long one is refused by the form, so kept as is)."""
    value = value.strip()
    return value or None


def _at_least(minimum: int) -> Normaliser:
    """A number the page clamps (``clamp_int``: not a number → the page's default)."""

    def normalise(value: str) -> str | None:
        number = clamp_int(value, default=-1, minimum=minimum)
        return None if number == -1 else str(number)

    return normalise


def _number(value: str) -> str | None:
    """A number the page takes only when it is one (``parse_int`` from 1)."""
    number = parse_int(value, minimum=1)
    return None if number is None else str(number)


def _page(value: str) -> str | None:
    """A paginator's page (``Paginator.get_page``): not a number → the first page, below 1 →
    the last page (0 here), beyond the end → the last page."""
    value = value.strip()
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        return "1"
    return str(max(0, min(number, INT_MAX)))


def _one_of(*choices: str) -> Normaliser:
    return lambda value: value if value in choices else None


# The parameters each public page reads (``request.GET`` in reports/views/public/ and the forms
# they bind), by URL name.
PARAMETERS: Mapping[str, Mapping[str, Normaliser]] = {
    "detail": {},
    "find": {"q": _text},
    "standings": {
        "after": _at_least(0),
        "view": _one_of("pairs"),
        "q": _text,
        "pair": _number,
        "page": _page,
    },
    "pair": {},
    "projector": {"show": _one_of("pairings", "standings"), "offset": _at_least(0)},
    "teams": {"page": _page},
    "team": {},
    "bracket": {},
    "groups": {},
    "placings": {"page": _page},
    "rounds": {},
    "round": {"q": _text, "page": _page},
}


def normalise_query(request: HttpRequest) -> None:
    """Reduce the request's query to its page's known parameters, normalised (the module's
    docstring); a page not in ``PARAMETERS`` keeps its query."""
    match = getattr(request, "resolver_match", None)
    known = PARAMETERS.get(match.url_name or "") if match is not None else None
    if known is None:
        return
    query = QueryDict(mutable=True)
    for name, normalise in known.items():
        raw = request.GET.get(name)  # the last value, as the pages read it
        value = normalise(raw) if raw is not None else None
        if value is not None:
            query[name] = value
    encoded = query.urlencode()
    if encoded == request.META.get("QUERY_STRING", ""):
        return
    query._mutable = False
    request.GET = query
    request.META["QUERY_STRING"] = encoded
