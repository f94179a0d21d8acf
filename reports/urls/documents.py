"""The organizer's printing and export downloads under ``t/<slug>/reports/``."""

from django.urls import path

from reports.views import documents as views

app_name = "reports"

BASE = "t/<slug:slug>/reports/"

urlpatterns = [
    path(BASE, views.index, name="index"),
    path(BASE + "export.xlsx", views.export, name="export"),
    path(BASE + "registrations/template.xlsx", views.registration_template, name="template"),
    path(BASE + "registrations/import/", views.registration_import, name="import"),
    path(BASE + "staff/logins.pdf", views.login_slips, name="logins"),
    path(BASE + "checkin/<int:number>.svg", views.checkin_qr, name="checkin_qr"),
    # the stages' paper: bracket (?paper=a3), groups (?stage=K), knockout-sheets (?round=N)
    path(BASE + "stages/<str:document>.pdf", views.stage_document, name="stage_document"),
    # scoresheets, pairings, standings, penalties: ?round=N, &filled=1, &final=1
    path(BASE + "<str:document>.pdf", views.download, name="document"),
]
