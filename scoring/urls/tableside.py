"""Table-side entry: ``table/<entry_token>/``, the QR code on the score sheet (RULES.md §7)."""

from django.urls import path

from scoring.views import tableside as views

app_name = "tableside"

urlpatterns = [
    path("table/<str:token>/", views.tableside, name="tableside"),
    path("table/<str:token>/event/", views.tableside_event, name="tableside_event"),
    path("table/<str:token>/undo/", views.tableside_undo, name="tableside_undo"),
    path("table/<str:token>/submit/", views.tableside_submit, name="tableside_submit"),
    path("table/<str:token>/confirm/", views.tableside_confirm, name="tableside_confirm"),
]
