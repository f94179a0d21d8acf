"""Round control for organizers and chief referees under ``t/<slug>/manage/rounds/``."""

from django.urls import path

from pairing import views

app_name = "pairing"
urlpatterns = [
    path("t/<slug:slug>/manage/rounds/", views.control, name="control"),
    path("t/<slug:slug>/manage/rounds/generate/", views.generate, name="generate"),
    path("t/<slug:slug>/manage/rounds/<int:number>/", views.round_control, name="round_control"),
    path("t/<slug:slug>/manage/rounds/<int:number>/swap/", views.swap, name="swap"),
    path("t/<slug:slug>/manage/rounds/<int:number>/publish/", views.publish, name="publish"),
    path("t/<slug:slug>/manage/rounds/<int:number>/finish/", views.finish, name="finish"),
    path("t/<slug:slug>/manage/rounds/<int:number>/delete/", views.delete, name="delete"),
    path("t/<slug:slug>/manage/rounds/<int:number>/unpublish/", views.unpublish, name="unpublish"),
    path(
        "t/<slug:slug>/manage/pairs/<int:number>/withdraw-seated/",
        views.withdraw_seated,
        name="withdraw_seated",
    ),
]
