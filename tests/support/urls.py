"""Every named URL of the site, reversed with sample arguments (the security, header and fuzz
tests walk them all)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver, reverse

SAMPLE = {"int": 1, "slug": "autumn-open", "str": "x", "path": "1"}


def _walk(
    patterns: list[Any], namespace: str = "", converters: dict[str, str] | None = None
) -> Iterator[tuple[str, dict[str, str]]]:
    for entry in patterns:
        found = dict(converters or {})
        found.update(
            {
                name: type(conv).__name__.replace("Converter", "").lower()
                for name, conv in getattr(entry.pattern, "converters", {}).items()
            }
        )
        if isinstance(entry, URLResolver):
            ns = namespace
            if entry.namespace:
                ns = f"{namespace}{entry.namespace}:"
            yield from _walk(entry.url_patterns, ns, found)
        elif isinstance(entry, URLPattern) and entry.name:
            yield namespace + entry.name, found


def _kwargs(converters: dict[str, str], slug: str, token: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, kind in converters.items():
        if name == "slug":
            out[name] = slug
        elif name == "token":
            out[name] = token
        elif name == "code":
            out[name] = "en"
        elif name == "document":
            out[name] = "scoresheets"
        else:
            out[name] = SAMPLE.get(kind, "1")
    return out


def all_urls(slug: str, token: str) -> list[tuple[str, str]]:
    """(name, path) for every named URL that reverses with sample arguments."""
    urls = []
    seen = set()
    for name, converters in _walk(get_resolver().url_patterns):
        try:
            url = reverse(name, kwargs=_kwargs(converters, slug, token))
        except Exception:  # admin's regex patterns (app_label) and friends
            try:
                url = reverse(name)
            except Exception:  # noqa: S112 - needs arguments we cannot guess: not a page
                continue
        if url not in seen:
            seen.add(url)
            urls.append((name, url))
    return urls
