"""The score sheet's offline shell (issue 16): the scoring rules as data for the page's script,
and the service worker that keeps the sheet's files on the phone.

- ``sheet_rules``: ``scoring.rules_data.rules_data`` of the rules a stage's tables are scored
  by (``?stage=K``: ``RuleSet.for_stage``, so a stage's own deals, format and tie rule) with the
  sheet's words in the active language (``scoring.sheet.sheet_words``), as JSON. The URL carries
  a hash of the body (``?v=``), so the phone may keep it as long as it likes: a settings change,
  another stage or another language is another URL.
- ``service_worker``: ``/sw.js`` (its scope must be the whole site to reach the table pages),
  from the template ``scoring/sw.js`` with the static files' (hashed) names.

Public: the rules are on the tournament's settings page anyway; no table, pair or code here.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.templatetags.static import static
from django.utils.cache import patch_cache_control
from django.utils.translation import get_language
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET

from rules.ruleset import RuleSet
from scoring.rules_data import rules_data
from scoring.sheet import sheet_words
from tournaments.bounds import parse_int
from tournaments.models import Tournament

_BODIES: dict[tuple[RuleSet, str], tuple[bytes, str]] = {}
YEAR = 365 * 24 * 3600
# The sheet's files the worker keeps (the pages themselves are kept as they are visited).
SHELL = (
    "css/site.css",
    "css/entry.css",
    "js/entry.js",
    "js/sheet-rules.js",
    "js/live-sheet.js",
    "manifest.webmanifest",
    "icons/icon-192.png",
)


def _body(rules: RuleSet) -> tuple[bytes, str]:
    """The JSON body and its hash, computed once per rules and language in this process (the
    walk over the rules takes a few milliseconds; every sheet page names the hash)."""
    key = (rules, get_language() or "")
    found = _BODIES.get(key)
    if found is None:
        payload: dict[str, Any] = {"rules": rules_data(rules), "words": sheet_words(rules)}
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        found = _BODIES.setdefault(key, (body, hashlib.sha256(body).hexdigest()[:16]))
    return found


def rules_version(rules: RuleSet) -> str:
    """The ``?v=`` of the rules URL for ``rules`` in the active language."""
    return _body(rules)[1]


@require_GET
@gzip_page
def sheet_rules(request: HttpRequest, slug: str) -> HttpResponse:
    """The rules of the tournament as data, with the sheet's words."""
    tournament = get_object_or_404(Tournament, slug=slug)
    rules = tournament.rules
    stage = parse_int(request.GET.get("stage"))
    if stage is not None and 1 <= stage <= len(rules.stage_list):
        rules = rules.for_stage(stage)
    body, version = _body(rules)
    response = HttpResponse(body, content_type="application/json")
    if request.GET.get("v") == version:
        patch_cache_control(response, public=True, max_age=YEAR, immutable=True)
    else:
        patch_cache_control(response, no_cache=True)
    return response


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker script; never cached by HTTP (the browser checks it for updates)."""
    assets = [static(name) for name in SHELL]
    version = hashlib.sha256("\n".join(assets).encode()).hexdigest()[:12]
    # The prefix itself (``/static/``), not ``static("")``: the manifest storage of production
    # (DEBUG=0) has no entry for "" and raised, so /sw.js answered 500 there (issue 29 D).
    prefix = str(settings.STATIC_URL)
    context = {"assets": json.dumps(assets), "version": version, "static_prefix": prefix}
    response = render(request, "scoring/sw.js", context, content_type="application/javascript")
    response["Service-Worker-Allowed"] = "/"
    patch_cache_control(response, no_cache=True, max_age=0)
    return response
