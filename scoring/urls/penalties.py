"""Penalties (判罚): the list, a new penalty and the suggested escalations."""

from django.urls import path

from scoring.views import penalties as views

app_name = "penalties"

urlpatterns = [
    path("t/<slug:slug>/referee/penalties/", views.penalties, name="penalties"),
    path("t/<slug:slug>/referee/penalties/new/", views.penalty_new, name="penalty_new"),
    path(
        "t/<slug:slug>/referee/penalties/escalate/",
        views.penalty_escalate,
        name="penalty_escalate",
    ),
]
