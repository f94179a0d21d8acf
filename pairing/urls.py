"""URLs of the pairing app."""

from django.urls import path  # noqa: F401

app_name = "pairing"
urlpatterns: list = []
