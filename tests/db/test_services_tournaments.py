"""Registration services: tournaments from presets, pairs, units, roles, withdrawal."""

from __future__ import annotations

import pytest

from tournaments import services
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Pair, Tournament
from tournaments.permissions import Role, has_role, roles_of


@pytest.mark.django_db
def test_create_tournament_from_a_preset_records_a_seed_and_makes_the_creator_organizer(
    organizer,
) -> None:
    t = services.create_tournament("江苏杯", "jiangsu", organizer, preset="jiangsu2017")
    assert t.rules.tiebreak_preset == "jiangsu2017"
    # Issue 12: the Jiangsu 2017 preset plays the Jiangsu text (26:0, no reset, extra deal).
    assert (t.rules.scale.key, t.rules.a_rule, t.rules.tie) == ("26:0", "continue", "extra_deal")
    assert isinstance(t.settings["seed"], int)
    assert roles_of(organizer, t) == {Role.ORGANIZER}


@pytest.mark.django_db
def test_create_tournament_refuses_bad_settings_and_a_taken_slug(organizer) -> None:
    with pytest.raises(ServiceError) as err:
        services.create_tournament("x", "x", organizer, settings={"scale": "30"})
    assert err.value.code == "invalid_settings"
    assert "级差分表" in err.value.message  # the setting, named as organizers know it
    services.create_tournament("x", "x", organizer)
    with pytest.raises(ServiceError) as err:
        services.create_tournament("y", "x", organizer)
    assert err.value.code == "slug_taken"
    assert Tournament.objects.count() == 1


def test_register_pair_numbers_in_order_with_two_players_and_a_unit(tournament) -> None:
    pairs = list(tournament.pairs.order_by("number").prefetch_related("players"))
    assert [p.number for p in pairs] == list(range(1, 9))
    assert pairs[0].player_names == "张伟/王芳"
    assert pairs[0].unit.code == "NJ"
    assert tournament.units.count() == 3


def test_register_pair_refuses_one_player_unknown_unit_and_a_taken_number(
    tournament, organizer
) -> None:
    for kwargs, code in [
        ({"players": ["独行侠"]}, "bad_players"),
        ({"players": ["甲", " "]}, "bad_players"),
        ({"players": ["甲", "乙"], "unit": "XX"}, "unit_not_found"),
        ({"players": ["甲", "乙"], "number": 3}, "pair_number_taken"),
    ]:
        with pytest.raises(ServiceError) as err:
            services.register_pair(tournament, user=organizer, **kwargs)
        assert err.value.code == code
    assert tournament.pairs.count() == 8


def test_only_organizers_register_pairs(tournament, referee, outsider) -> None:
    for user in (referee, outsider):
        with pytest.raises(ServiceError) as err:
            services.register_pair(tournament, ["甲", "乙"], user)
        assert err.value.code == "forbidden"
        assert err.value.message == "您没有执行此操作的权限"


def test_edit_pair_changes_names_unit_and_seeding_keeps_number_and_code(
    tournament, organizer
) -> None:
    pair = tournament.pairs.get(number=1)
    code = pair.code
    services.edit_pair(pair, organizer, players=["张伟", "王小芳"], unit="WX", seeding=3)
    pair.refresh_from_db()
    assert pair.player_names == "张伟/王小芳"
    assert (pair.unit.code, pair.seeding, pair.number, pair.code) == ("WX", 3, 1, code)
    assert AuditEntry.objects.filter(tournament=tournament, action="edit_pair").count() == 1


def test_withdraw_and_disqualify_are_audited(tournament, organizer, chief, referee) -> None:
    p1, p2 = tournament.pairs.get(number=1), tournament.pairs.get(number=2)
    services.withdraw_pair(p1, organizer, reason="身体不适")
    for nobody in (referee, chief):  # RULES.md §3: a disqualification is the organizers'
        with pytest.raises(ServiceError):
            services.disqualify_pair(p2, nobody)
    services.disqualify_pair(p2, organizer, reason="严重违规")
    assert Pair.objects.get(pk=p1.pk).status == Pair.Status.WITHDRAWN
    assert Pair.objects.get(pk=p2.pk).status == Pair.Status.DISQUALIFIED
    entries = AuditEntry.objects.filter(tournament=tournament, action="pair_status")
    assert {e.reason for e in entries} == {"身体不适", "严重违规"}
    with pytest.raises(ServiceError) as err:
        services.withdraw_pair(p1, organizer)
    assert err.value.code == "pair_status_unchanged"


def test_roles_are_per_tournament(tournament, organizer, chief, referee, outsider) -> None:
    other = services.create_tournament("另一场", "other", outsider)
    assert roles_of(referee, tournament) == {Role.REFEREE}
    assert roles_of(chief, tournament) == {Role.CHIEF_REFEREE, Role.REFEREE}
    assert roles_of(referee, other) == set()
    assert not has_role(organizer, other, Role.ORGANIZER)
    with pytest.raises(ServiceError) as err:
        services.grant_role(tournament, outsider, Role.REFEREE, referee)
    assert err.value.code == "forbidden"
    with pytest.raises(ServiceError) as err:
        services.grant_role(tournament, outsider, "king", organizer)
    assert err.value.code == "bad_role"
    services.revoke_role(tournament, referee, Role.REFEREE, organizer)
    assert roles_of(referee, tournament) == set()


def test_update_settings_is_refused_once_a_round_is_published(tournament, organizer) -> None:
    from tests.support.tournament import next_round

    services.update_settings(tournament, {**tournament.settings, "deals_per_round": 6}, organizer)
    assert Tournament.objects.get(pk=tournament.pk).rules.deals_per_round == 6
    next_round(tournament, organizer)
    with pytest.raises(ServiceError) as err:
        services.update_settings(tournament, tournament.settings, organizer)
    assert err.value.code == "settings_locked"
