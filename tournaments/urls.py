"""URLs of the tournaments app."""

from django.urls import path  # noqa: F401

app_name = "tournaments"
urlpatterns: list = []
