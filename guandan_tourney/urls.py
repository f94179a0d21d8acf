"""URL configuration: the admin, accounts, and one URL module per audience."""

from django.contrib import admin
from django.urls import include, path

from reports.views import public

urlpatterns = [
    path("", public.home, name="home"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    # One URL module per audience (docs/architecture.md).
    path("", include("reports.urls.public")),  # players, no login
    path("", include("tournaments.urls")),  # organizers: registrations, staff, audit
    path("", include("pairing.urls")),  # organizers and chief referees: rounds
    path("", include("reports.urls.documents")),  # organizers: printing, Excel
    path("", include("scoring.urls.referee")),  # referees: desk and score sheets
    path("", include("scoring.urls.penalties")),  # referees: penalties
    path("", include("scoring.urls.appeals")),  # chief referees and organizers: appeals
    path("", include("scoring.urls.tableside")),  # players at the table: the secret link
    path("", include("scoring.urls.offline")),  # the score sheet's offline shell (rules, sw.js)
]
