"""URLs of the scoring app: the referees' pages and the table-side entry link.

Referee pages live under ``t/<slug>/referee/``; the table-side link is ``table/<entry_token>/``
(the QR code on the score sheet, ``reverse("scoring:tableside", args=[table.entry_token])``).
"""

from django.urls import path

from . import views

app_name = "scoring"

TABLE = "t/<slug:slug>/referee/round/<int:number>/table/<int:table>/"

urlpatterns = [
    path("t/<slug:slug>/referee/", views.dashboard, name="dashboard"),
    path(
        "t/<slug:slug>/referee/round/<int:number>/",
        views.round_dashboard,
        name="round_dashboard",
    ),
    path(TABLE, views.table_page, name="table"),
    path(TABLE + "event/", views.table_event, name="table_event"),
    path(TABLE + "foul/", views.table_foul, name="table_foul"),
    path(TABLE + "award/", views.table_award, name="table_award"),
    path(TABLE + "undo/", views.table_undo, name="table_undo"),
    path(TABLE + "start/", views.table_start, name="table_start"),
    path(TABLE + "end/", views.table_end, name="table_end"),
    path(TABLE + "submit/", views.table_submit, name="table_submit"),
    path(TABLE + "confirm/", views.table_confirm, name="table_confirm"),
    path(TABLE + "correct/", views.table_correct, name="table_correct"),
    path("t/<slug:slug>/referee/penalties/", views.penalties, name="penalties"),
    path("t/<slug:slug>/referee/penalties/new/", views.penalty_new, name="penalty_new"),
    path(
        "t/<slug:slug>/referee/penalties/escalate/",
        views.penalty_escalate,
        name="penalty_escalate",
    ),
    path("table/<str:token>/", views.tableside, name="tableside"),
    path("table/<str:token>/event/", views.tableside_event, name="tableside_event"),
    path("table/<str:token>/undo/", views.tableside_undo, name="tableside_undo"),
    path("table/<str:token>/submit/", views.tableside_submit, name="tableside_submit"),
    path("table/<str:token>/confirm/", views.tableside_confirm, name="tableside_confirm"),
]
