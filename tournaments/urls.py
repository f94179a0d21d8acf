"""URLs of the tournaments app: public pages under ``t/<slug>/``, the organizer's desk under
``t/<slug>/manage/``, and the language switch."""

from django.urls import path

from tournaments import views

app_name = "tournaments"
urlpatterns = [
    path("lang/<str:code>/", views.language, name="language"),
    path("new/", views.create, name="create"),
    path("t/<slug:slug>/", views.detail, name="detail"),
    path("t/<slug:slug>/find/", views.find, name="find"),
    path("t/<slug:slug>/standings/", views.standings, name="standings"),
    path("t/<slug:slug>/pairs/<int:number>/", views.pair_detail, name="pair"),
    path("t/<slug:slug>/projector/", views.projector, name="projector"),
    path("t/<slug:slug>/manage/", views.manage, name="manage"),
    path("t/<slug:slug>/manage/settings/", views.settings_edit, name="settings"),
    path("t/<slug:slug>/manage/pairs/", views.pairs, name="pairs"),
    path("t/<slug:slug>/manage/pairs/<int:number>/", views.pair_edit, name="pair_edit"),
    path(
        "t/<slug:slug>/manage/pairs/<int:number>/status/",
        views.pair_status,
        name="pair_status",
    ),
    path("t/<slug:slug>/manage/units/add/", views.unit_add, name="unit_add"),
    path("t/<slug:slug>/manage/staff/", views.staff, name="staff"),
    path("t/<slug:slug>/manage/staff/revoke/", views.staff_revoke, name="staff_revoke"),
    path("t/<slug:slug>/manage/audit/", views.audit, name="audit"),
]
