"""The site's pages: the list of tournaments (the home page) and the language switch."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.translation import check_for_language

from tournaments.models import Tournament
from tournaments.permissions import Role, can_create_tournaments, roles_of
from tournaments.redirects import safe_next


def home(request: HttpRequest) -> HttpResponse:
    """Every tournament, newest first, with its state; "my tournaments" for staff."""
    tournaments = list(
        Tournament.objects.annotate(
            pair_count=Count("pairs", distinct=True),
        ).order_by("-created_at")[:100]
    )
    mine: list[tuple[Tournament, Role]] = []
    if request.user.is_authenticated:
        for tournament in tournaments:
            roles = roles_of(request.user, tournament)
            if roles:
                top = next(
                    r for r in (Role.ORGANIZER, Role.CHIEF_REFEREE, Role.REFEREE) if r in roles
                )
                mine.append((tournament, top))
    can_create = can_create_tournaments(request.user)
    return render(
        request,
        "tournaments/home.html",
        {"tournaments": tournaments, "mine": mine, "can_create": can_create},
    )


def language(request: HttpRequest, code: str) -> HttpResponse:
    """Switch the language by a plain link (no form, so public pages carry no CSRF token and
    stay cacheable); only the language cookie changes."""
    if not check_for_language(code) or code not in dict(django_settings.LANGUAGES):
        raise Http404
    response = HttpResponseRedirect(safe_next(request, request.GET.get("next"), "/"))
    response.set_cookie(
        django_settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=django_settings.LANGUAGE_COOKIE_AGE,
        path=django_settings.LANGUAGE_COOKIE_PATH,
        samesite="Lax",
    )
    return response
