"""The Django admin: every model listed and searchable in Chinese; the audit log read-only."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.models import Penalty, TableEvent
from tournaments.models import AuditEntry, Pair, Player, Round, Seat, Table, Team, Tournament, Unit

MODELS = [Tournament, Unit, Pair, Player, Team, Round, Table, Seat, TableEvent, Penalty, AuditEntry]


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw")


def test_every_model_is_registered() -> None:
    for model in MODELS:
        assert admin.site.is_registered(model), model


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelists_render_and_search_in_chinese(client, superuser, round1, model) -> None:
    client.force_login(superuser)
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    response = client.get(url, {"q": "张"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    assert str(model._meta.verbose_name_plural) in response.content.decode()


def test_audit_log_is_read_only_even_for_superusers(client, superuser, round1) -> None:
    client.force_login(superuser)
    entry = AuditEntry.objects.first()
    model_admin = admin.site._registry[AuditEntry]

    class Request:
        user = superuser

    assert not model_admin.has_add_permission(Request())
    assert not model_admin.has_change_permission(Request(), entry)
    assert not model_admin.has_delete_permission(Request(), entry)
    base = "admin:tournaments_auditentry"
    assert client.get(reverse(f"{base}_add")).status_code == 403
    assert client.get(reverse(f"{base}_delete", args=[entry.pk])).status_code == 403
    change = client.get(reverse(f"{base}_change", args=[entry.pk]))
    assert change.status_code == 200 and 'name="_save"' not in change.content.decode()
    response = client.post(reverse(f"{base}_change", args=[entry.pk]), {"reason": "改"})
    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.reason == ""


def test_table_entry_token_is_not_shown(client, superuser, round1) -> None:
    client.force_login(superuser)
    table = round1.tables.first()
    page = client.get(reverse("admin:tournaments_table_change", args=[table.pk]))
    assert table.entry_token not in page.content.decode()


def test_a_tournament_cannot_be_deleted_from_the_admin(client, superuser, tournament) -> None:
    # Its audit log would go with it (cascade).
    client.force_login(superuser)
    url = reverse("admin:tournaments_tournament_delete", args=[tournament.pk])
    assert client.post(url, {"post": "yes"}).status_code == 403
    assert Tournament.objects.filter(pk=tournament.pk).exists()
