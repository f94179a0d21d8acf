"""Database constraints behind the invariants, and the append-only audit log."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from scoring.models import Penalty, TableEvent
from tournaments.models import AuditEntry, Pair, Seat, Table, Tournament


@pytest.mark.django_db
def test_tournament_clean_validates_settings_through_the_ruleset() -> None:
    t = Tournament(name="x", slug="x", settings={"scale": "27"})
    with pytest.raises(ValidationError):
        t.full_clean()
    t.settings = {"scale": "28", "deals_per_round": 6}
    t.full_clean()
    assert t.rules.scale.key == "28"
    assert t.rules.deals_per_round == 6


@pytest.mark.django_db
def test_rules_cache_follows_a_settings_change() -> None:
    t = Tournament(name="x", slug="x", settings={"deals_per_round": 6})
    assert t.rules.deals_per_round == 6
    t.settings = {"deals_per_round": 4}
    assert t.rules.deals_per_round == 4


def test_pair_numbers_and_codes_are_unique_per_tournament(tournament) -> None:
    pair = tournament.pairs.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Pair.objects.create(tournament=tournament, number=pair.number, code="ZZZZZZ")
    with pytest.raises(IntegrityError), transaction.atomic():
        Pair.objects.create(tournament=tournament, number=99, code=pair.code)


def test_pair_codes_are_six_unambiguous_characters(tournament) -> None:
    codes = list(tournament.pairs.values_list("code", flat=True))
    assert len(set(codes)) == 8
    assert all(len(c) == 6 and not set(c) & set("01OIL") for c in codes)


def test_a_pair_cannot_be_seated_twice_in_a_round(round1) -> None:
    table = round1.tables.order_by("number").first()
    other = round1.tables.exclude(pk=table.pk).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(round=round1, table=other, pair=table.ns, direction="BYE")


def test_one_round_per_number(round1) -> None:
    from tournaments.models import Round

    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(tournament=round1.tournament, number=1)


def test_a_table_is_a_bye_or_two_different_pairs(round1) -> None:
    table = round1.tables.order_by("number").first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(ew=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(ew=table.ns)
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(end_kind="forfeit", end_side="")


def test_one_event_per_position(round1) -> None:
    table = round1.tables.first()
    TableEvent.objects.create(table=table, position=0, token="NS3")
    with pytest.raises(IntegrityError), transaction.atomic():
        TableEvent.objects.create(table=table, position=0, token="EW3")


def test_only_deductions_carry_jcf(tournament) -> None:
    pair = tournament.pairs.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Penalty.objects.create(tournament=tournament, pair=pair, kind="deduction")
    with pytest.raises(IntegrityError), transaction.atomic():
        Penalty.objects.create(tournament=tournament, pair=pair, kind="warning", jcf=1)


def test_audit_entries_refuse_update_and_delete(tournament) -> None:
    entry = AuditEntry.objects.filter(tournament=tournament).first()
    assert entry is not None  # role grants are audited
    entry.reason = "tampered"
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(pk=entry.pk).update(reason="tampered")
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    entry.refresh_from_db()
    assert entry.reason == ""
