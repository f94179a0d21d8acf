"""Organizer pages (issue 5 "Organizers") through the web: create from a preset, settings with
a custom scale validated into sentences, registrations, roles, round control with the swap
warning, publish, finish, the read-only audit log; and query-count bounds at two sizes.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import translation

from pairing import services as pairing_services
from tests.support.pages import form_data
from tournaments.forms import SettingsForm, preset_initial
from tournaments.models import AuditEntry, Pair, Round, Table, Tournament


@pytest.mark.django_db
def test_create_from_the_jiangsu_preset(cast: Any, client_as: Any) -> None:
    cast["organizer"].user_permissions.add(Permission.objects.get(codename="add_tournament"))
    client = client_as("organizer")
    page = client.get(reverse("tournaments:create"), {"preset": "jiangsu2017"})
    assert page.status_code == 200
    assert "28分制" in page.content.decode()
    data = form_data(preset_initial("jiangsu2017"), name="江苏杯", slug="jiangsu-cup")
    response = client.post(reverse("tournaments:create"), data)
    assert response.status_code == 302
    tournament = Tournament.objects.get(slug="jiangsu-cup")
    # Issue 12: the Jiangsu 2017 preset is 26:0 with A must be played and no reset.
    assert tournament.rules.scale.key == "26:0"
    assert tournament.rules.a_rule == "continue"
    assert tournament.rules.tiebreak_preset == "jiangsu2017"
    # The preset's extra deal on a level tie is kept (it was dropped by the form before).
    assert tournament.rules.tie == "extra_deal"
    assert "seed 001" in page.content.decode()  # the page says which seed the preset follows
    assert cast["organizer"] in tournament.organizers.all()


@pytest.mark.django_db
def test_revised_rule_settings_are_saved_from_the_page(
    tournament: Tournament, client_as: Any
) -> None:
    """RULES.md §1–§3 (issue 12): the A variants, the tie rule, forfeit and bye by the scale,
    who may impose which penalty — each set on the settings page and read back by the engine."""
    initial = SettingsForm.initial_from(tournament.settings)
    assert initial["forfeit_by_scale"] is True  # the regulation's forfeit is the scale's
    data = form_data(
        initial,
        scale="28",
        a_rule="reset_to_2",
        a_fail_count="stage",
        a_pass="double_only",
        tie="extra_deal",
        authority_foul="referee",
    )
    response = client_as("organizer").post(
        reverse("tournaments:settings", args=[tournament.slug]), data
    )
    assert response.status_code == 302
    tournament.refresh_from_db()
    rules = tournament.rules
    assert (rules.a_fail_count, rules.a_pass, rules.tie) == ("stage", "double_only", "extra_deal")
    # "forfeit and bye worth the scale's 4-level win by default (18 on the 28 scale)"
    assert rules.forfeit_award is None and rules.forfeit.jcf == 18 and rules.bye.jcf == 18
    assert "forfeit" not in tournament.settings
    assert rules.may_impose("foul") == "referee"
    assert tournament.settings["penalty_authority"] == {"foul": "referee"}
    # Unticked, the figures typed are written as they are.
    data = form_data(
        SettingsForm.initial_from(tournament.settings), forfeit_by_scale="", forfeit_jcf="16"
    )
    client_as("organizer").post(reverse("tournaments:settings", args=[tournament.slug]), data)
    tournament.refresh_from_db()
    assert tournament.settings["forfeit"] == {"cf": 2, "jcf": 16}


def test_the_form_offers_every_preset_of_the_rules() -> None:
    from rules.ruleset import PRESETS as RULE_PRESETS
    from tournaments.forms import PRESETS as FORM_PRESETS

    labels = dict(FORM_PRESETS)
    assert set(labels) == {*RULE_PRESETS, "custom"}
    with translation.override("zh-hans"):
        assert {key: str(labels[key]) for key in RULE_PRESETS} == {
            key: preset.label_zh for key, preset in RULE_PRESETS.items()
        }
    with translation.override("en"):
        assert {key: str(labels[key]) for key in RULE_PRESETS} == {
            key: preset.label_en for key, preset in RULE_PRESETS.items()
        }


@pytest.mark.django_db
def test_custom_scale_problems_come_back_as_sentences(tournament: Tournament, client_as: Any):
    initial = SettingsForm.initial_from(tournament.settings)
    bad = form_data(initial, scale="custom", scale_table="0 13 12\n1 14 12\n3 15 11")
    response = client_as("organizer").post(
        reverse("tournaments:settings", args=[tournament.slug]), bad
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "平局" in html  # scale_draw_unequal as a sentence, not a code
    assert "scale_draw_unequal" not in html
    tournament.refresh_from_db()
    assert tournament.rules.scale.key == "26:0"


@pytest.mark.django_db
def test_custom_scale_and_tiebreaks_are_saved(tournament: Tournament, client_as: Any) -> None:
    initial = SettingsForm.initial_from(tournament.settings)
    table = "\n".join(f"{jc} {10 + jc} {10 - jc}" for jc in range(11))
    data = form_data(
        initial,
        scale="custom",
        scale_table=table,
        tiebreak_preset="custom",
        tiebreak_1="wins",
        tiebreak_2="jcf",
        tiebreak_3="",
        tiebreak_4="",
        tiebreak_5="",
        tiebreak_6="",
        tiebreak_7="",
    )
    response = client_as("organizer").post(
        reverse("tournaments:settings", args=[tournament.slug]), data
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    tournament.refresh_from_db()
    assert tournament.rules.scale.points(3) == (13, 7)
    assert tournament.rules.tiebreaks == ("wins", "jcf")


@pytest.mark.django_db
def test_register_edit_withdraw_reinstate(tournament: Tournament, client_as: Any) -> None:
    client = client_as("organizer")
    url = reverse("tournaments:pairs", args=[tournament.slug])
    response = client.post(
        url, {"pair-player1": "甲一", "pair-player2": "乙二", "pair-unit": "", "pair-number": ""}
    )
    assert response.status_code == 302
    pair = Pair.objects.get(tournament=tournament, players__name="甲一")
    assert pair.number == 9
    edit = reverse("tournaments:pair_edit", args=[tournament.slug, pair.number])
    response = client.post(edit, {"player1": "甲一", "player2": "丙三", "seeding": "3"})
    assert response.status_code == 302
    assert Pair.objects.get(pk=pair.pk).player_names == "甲一/丙三"
    status = reverse("tournaments:pair_status", args=[tournament.slug, pair.number])
    client.post(status, {"action": "withdraw", "reason": "生病"})
    assert Pair.objects.get(pk=pair.pk).status == Pair.Status.WITHDRAWN
    client.post(status, {"action": "reinstate", "reason": "误操作"})
    assert Pair.objects.get(pk=pair.pk).status == Pair.Status.ACTIVE
    client.post(status, {"action": "disqualify", "reason": "违规"})
    assert Pair.objects.get(pk=pair.pk).status == Pair.Status.DISQUALIFIED
    assert AuditEntry.objects.filter(tournament=tournament, action="pair_status").count() == 3


@pytest.mark.django_db
def test_grant_and_revoke_a_referee(tournament: Tournament, cast: Any, client_as: Any) -> None:
    client = client_as("organizer")
    url = reverse("tournaments:staff", args=[tournament.slug])
    response = client.post(url, {"username": "outsider", "role": "referee"})
    assert response.status_code == 302
    assert cast["outsider"] in tournament.referees.all()
    assert (
        client_as("outsider").get(reverse("referee:dashboard", args=[tournament.slug])).status_code
        == 200
    )
    revoke = reverse("tournaments:staff_revoke", args=[tournament.slug])
    client.post(revoke, {"user_id": cast["outsider"].pk, "role": "referee"})
    assert cast["outsider"] not in tournament.referees.all()
    unknown = client.post(url, {"username": "nobody", "role": "referee"})
    assert "没有用户名" in unknown.content.decode()


@pytest.mark.django_db
def test_generate_review_swap_publish(tournament: Tournament, client_as: Any) -> None:
    client = client_as("organizer")
    slug = tournament.slug
    response = client.post(reverse("pairing:generate", args=[slug]))
    rnd = Round.objects.get(tournament=tournament, number=1)
    assert response["Location"] == reverse("pairing:round_control", args=[slug, 1])
    page = client.get(response["Location"]).content.decode()
    assert "第一轮：抽签编排" in page  # the engine's reason, translated
    assert "草稿检查" in page
    t1, t2 = Table.objects.filter(round=rnd).order_by("number")[:2]
    a, b = t1.ns.number, t2.ns.number
    response = client.post(
        reverse("pairing:swap", args=[slug, 1]), {"pair_a": a, "pair_b": b}, follow=True
    )
    assert "已交换" in response.content.decode()
    assert Table.objects.get(pk=t1.pk).ns.number == b
    assert AuditEntry.objects.filter(tournament=tournament, action="swap_pairs").exists()
    client.post(reverse("pairing:publish", args=[slug, 1]))
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.PUBLISHED
    # Finishing with open tables is refused with a message, never a 500.
    response = client.post(reverse("pairing:finish", args=[slug, 1]), follow=True)
    assert "未确认" in response.content.decode()


@pytest.mark.django_db
def test_swap_into_a_rematch_warns(played: Round, cast: Any, client_as: Any) -> None:
    tournament = played.tournament
    pairing_services.delete_draft  # noqa: B018 - the service exists
    round1 = Round.objects.get(tournament=tournament, number=1)
    from tests.support.tournament import play_round

    play_round(played, cast["referee"], cast["chief"])
    pairing_services.finish_round(played, cast["organizer"])
    draft = pairing_services.generate_round(tournament, cast["organizer"])
    first = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    a, b = first.ns, first.ew  # met in round 1
    seat_b = Table.objects.filter(round=draft).filter(ns=b).first() or Table.objects.get(
        round=draft, ew=b
    )
    table_a = Table.objects.filter(round=draft, ns=a).first() or Table.objects.get(
        round=draft, ew=a
    )
    # Put b opposite a: swap b with a's current opponent.
    opponent = table_a.ew if table_a.ns_id == a.pk else table_a.ns
    assert seat_b.pk != table_a.pk
    response = client_as("organizer").post(
        reverse("pairing:swap", args=[tournament.slug, draft.number]),
        {"pair_a": b.number, "pair_b": opponent.number},
        follow=True,
    )
    html = response.content.decode()
    assert "已经交手过" in html
    assert "重复交手！" in html


@pytest.mark.django_db
def test_audit_log_is_read_only_list(played: Round, client_as: Any) -> None:
    url = reverse("tournaments:audit", args=[played.tournament.slug])
    client = client_as("organizer")
    html = client.get(url).content.decode()
    assert "公布编排" in html and "确认成绩" in html
    assert client.post(url, {}).status_code == 405


# --------------------------------------------------------------------------------------------
# Query bounds: the same number of queries whatever the size of the tournament.


def bulk_round(tournament: Tournament, n_pairs: int, organizer: Any) -> Round:
    from tournaments import services as tournament_services

    for i in range(n_pairs - Pair.objects.filter(tournament=tournament).count()):
        tournament_services.register_pair(tournament, [f"甲{i}", f"乙{i}"], organizer)
    rnd = pairing_services.generate_round(tournament, organizer)
    return pairing_services.publish_round(rnd, organizer)


@pytest.mark.django_db
@pytest.mark.parametrize("n_pairs", [8, 40])
def test_query_bounds(
    n_pairs: int, tournament: Tournament, cast: Any, client_as: Any, django_assert_max_num_queries
) -> None:
    rnd = bulk_round(tournament, n_pairs, cast["organizer"])
    slug = tournament.slug
    anonymous, organizer = client_as("anonymous"), client_as("organizer")
    pages = [
        (anonymous, reverse("public:standings", args=[slug]), 12),
        (anonymous, reverse("public:round", args=[slug, rnd.number]), 10),
        (anonymous, reverse("public:find", args=[slug]) + "?q=甲", 10),
        (anonymous, reverse("public:pair", args=[slug, 1]), 14),
        (organizer, reverse("pairing:round_control", args=[slug, rnd.number]), 20),
        (organizer, reverse("tournaments:pairs", args=[slug]), 16),
    ]
    for client, url, bound in pages:
        with django_assert_max_num_queries(bound):
            assert client.get(url).status_code == 200
