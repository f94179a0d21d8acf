"""The score sheet's offline shell (issue 16): the rules as data and the service worker."""

from django.urls import path

from scoring.views import offline as views

app_name = "offline"

urlpatterns = [
    path("sheet-rules/<slug:slug>.json", views.sheet_rules, name="sheet_rules"),
    path("sw.js", views.service_worker, name="service_worker"),
]
