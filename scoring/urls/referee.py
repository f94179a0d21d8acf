"""The referee desk: rounds, tables and a table's score sheet under ``t/<slug>/referee/``."""

from django.urls import path

from scoring.views import referee as views

app_name = "referee"

TABLE = "t/<slug:slug>/referee/round/<int:number>/table/<int:table>/"

urlpatterns = [
    path("t/<slug:slug>/referee/", views.dashboard, name="dashboard"),
    path(
        "t/<slug:slug>/referee/round/<int:number>/",
        views.round_dashboard,
        name="round_dashboard",
    ),
    path(
        "t/<slug:slug>/referee/round/<int:number>/state/",
        views.round_state,
        name="round_state",
    ),
    path("t/<slug:slug>/referee/round/<int:number>/jump/", views.jump_to_table, name="jump"),
    path("t/<slug:slug>/referee/round/<int:number>/start/", views.round_start, name="round_start"),
    path(TABLE, views.table_page, name="table"),
    path(TABLE + "event/", views.table_event, name="table_event"),
    path(TABLE + "foul/", views.table_foul, name="table_foul"),
    path(TABLE + "award/", views.table_award, name="table_award"),
    path(TABLE + "undo/", views.table_undo, name="table_undo"),
    path(TABLE + "start/", views.table_start, name="table_start"),
    path(TABLE + "end/", views.table_end, name="table_end"),
    path(TABLE + "submit/", views.table_submit, name="table_submit"),
    path(TABLE + "next-game/", views.table_next_game, name="table_next_game"),
    path(TABLE + "call-time/", views.table_call_time, name="table_call_time"),
    path(TABLE + "confirm/", views.table_confirm, name="table_confirm"),
    path(TABLE + "correct/", views.table_correct, name="table_correct"),
]
