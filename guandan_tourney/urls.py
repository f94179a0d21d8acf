"""URL configuration: the admin, accounts, language switching and each app's pages."""

from django.contrib import admin
from django.urls import include, path

from tournaments import views as tournament_views

urlpatterns = [
    path("", tournament_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("tournaments.urls")),
    path("", include("pairing.urls")),
    path("", include("scoring.urls")),
    path("", include("reports.urls")),
]
