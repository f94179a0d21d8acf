"""URLs of the scoring app."""

from django.urls import path  # noqa: F401

app_name = "scoring"
urlpatterns: list = []
