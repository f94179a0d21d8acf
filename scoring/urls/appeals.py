"""Appeals (申诉): the list with a new appeal, and one appeal with the committee's decision."""

from django.urls import path

from scoring.views import appeals as views

app_name = "appeals"

urlpatterns = [
    path("t/<slug:slug>/referee/appeals/", views.appeals, name="appeals"),
    path("t/<slug:slug>/referee/appeals/<int:pk>/", views.appeal, name="appeal"),
]
