"""URLs of the pairing app: public pairings and round control."""

from django.urls import path

from pairing import views

app_name = "pairing"
urlpatterns = [
    path("t/<slug:slug>/rounds/", views.rounds, name="rounds"),
    path("t/<slug:slug>/rounds/<int:number>/", views.round_public, name="round"),
    path("t/<slug:slug>/manage/rounds/", views.control, name="control"),
    path("t/<slug:slug>/manage/rounds/generate/", views.generate, name="generate"),
    path("t/<slug:slug>/manage/rounds/<int:number>/", views.round_control, name="round_control"),
    path("t/<slug:slug>/manage/rounds/<int:number>/swap/", views.swap, name="swap"),
    path("t/<slug:slug>/manage/rounds/<int:number>/publish/", views.publish, name="publish"),
    path("t/<slug:slug>/manage/rounds/<int:number>/finish/", views.finish, name="finish"),
    path("t/<slug:slug>/manage/rounds/<int:number>/delete/", views.delete, name="delete"),
]
