"""Public pages (no login): a tournament, find my table, standings, a pair, the projector and
the published rounds, the teams of a team event; plus the site-wide language switch."""

from django.urls import path

from reports.views import public as views

app_name = "public"

urlpatterns = [
    path("lang/<str:code>/", views.language, name="language"),
    path("t/<slug:slug>/", views.detail, name="detail"),
    path("t/<slug:slug>/find/", views.find, name="find"),
    path("t/<slug:slug>/standings/", views.standings, name="standings"),
    path("t/<slug:slug>/pairs/<int:number>/", views.pair_detail, name="pair"),
    path("t/<slug:slug>/projector/", views.projector, name="projector"),
    path("t/<slug:slug>/teams/", views.teams, name="teams"),
    path("t/<slug:slug>/teams/<str:code>/", views.team_detail, name="team"),
    path("t/<slug:slug>/bracket/", views.bracket, name="bracket"),
    path("t/<slug:slug>/groups/", views.groups, name="groups"),
    path("t/<slug:slug>/placings/", views.placings, name="placings"),
    path("t/<slug:slug>/rounds/", views.rounds, name="rounds"),
    path("t/<slug:slug>/rounds/<int:number>/", views.round_public, name="round"),
]
