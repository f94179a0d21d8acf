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
    path("t/<slug:slug>/manage/new-team/", team_views.team_add, name="team_add"),
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
    path("t/<slug:slug>/manage/staff/accounts/", views.staff_accounts, name="staff_accounts"),
    path("t/<slug:slug>/manage/staff/accounts/done/", views.staff_logins_done, name="staff_done"),
    path("t/<slug:slug>/manage/staff/assign/", views.staff_assign, name="staff_assign"),
    path("t/<slug:slug>/manage/staff/remove/", views.staff_remove, name="staff_remove"),
    path(
        "t/<slug:slug>/manage/staff/password/",
        views.staff_reset_password,
        name="staff_password",
    ),
    path("t/<slug:slug>/manage/audit/", views.audit, name="audit"),
    path("t/<slug:slug>/manage/checkin/", views.checkin, name="checkin"),
    path("t/<slug:slug>/manage/checkin/withdraw/", views.checkin_withdraw, name="checkin_withdraw"),
    # What a pair's QR slip encodes (tournaments.checkin.checkin_path, docs/event-desk.md).
    path("t/<slug:slug>/checkin/<str:token>/", views.checkin_scan, name="checkin_scan"),
]
