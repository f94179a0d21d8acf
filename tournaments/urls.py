"""The organizer's desk under ``t/<slug>/manage/``: settings, registrations (pairs, teams),
staff, the audit log; creating a tournament; and a team's line-up page (its captain's too)."""

from django.urls import path

from tournaments import team_views, views

app_name = "tournaments"
urlpatterns = [
    path("new/", views.create, name="create"),
    path("t/<slug:slug>/manage/", views.manage, name="manage"),
    path("t/<slug:slug>/manage/settings/", views.settings_edit, name="settings"),
    path("t/<slug:slug>/manage/pairs/", views.pairs, name="pairs"),
    path("t/<slug:slug>/manage/pairs/<int:number>/", views.pair_edit, name="pair_edit"),
    path(
        "t/<slug:slug>/manage/pairs/<int:number>/status/",
        views.pair_status,
        name="pair_status",
    ),
    path("t/<slug:slug>/manage/teams/", team_views.teams, name="teams"),
    path("t/<slug:slug>/manage/teams/<str:code>/", team_views.team_edit, name="team_edit"),
    path(
        "t/<slug:slug>/manage/teams/<str:code>/status/",
        team_views.team_status,
        name="team_status",
    ),
    # The captain's page (no account: the captain code) and the organizer's, one view.
    path("t/<slug:slug>/teams/<str:code>/lineup/", team_views.lineup, name="lineup"),
    path("t/<slug:slug>/manage/units/add/", views.unit_add, name="unit_add"),
    path("t/<slug:slug>/manage/staff/", views.staff, name="staff"),
    path("t/<slug:slug>/manage/staff/revoke/", views.staff_revoke, name="staff_revoke"),
    path("t/<slug:slug>/manage/audit/", views.audit, name="audit"),
]
