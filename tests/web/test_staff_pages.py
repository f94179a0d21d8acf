"""Issue 15 part A, pages: the staff page (accounts in bulk, login slips, table ranges, removing
access), check-in (list, QR, scan), unpublishing, withdrawing a seated pair, the import's
append mode, appeals, and the referee desk's "我的桌" and withdrawal flag."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from reports.views.documents import qr_svg
from scoring.models import Appeal
from scoring.once import new_once_key
from tests.support.tournament import play_round
from tests.support.workbooks import template_with
from tournaments.models import CheckIn, Pair, Round, Table, TableAssignment
from tournaments.staff import SESSION_KEY

pytestmark = pytest.mark.django_db


def test_organizer_creates_three_referees_and_prints_their_slips(
    tournament: Any, client_as: Any
) -> None:
    client = client_as("organizer")
    url = reverse("tournaments:staff_accounts", args=[tournament.slug])
    response = client.post(
        url, {"accounts-role": "referee", "accounts-count": "3", "accounts-tables_each": "5"}
    )
    assert response.status_code == 302
    page = client.get(reverse("tournaments:staff", args=[tournament.slug])).content.decode()
    for n in ("01", "02", "03"):
        assert f"autumn-open-r{n}" in page
    kept = client.session[SESSION_KEY][str(tournament.pk)]
    assert [k["password"] in page for k in kept] == [True, True, True]
    pdf = client.get(reverse("reports:logins", args=[tournament.slug]))
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF")
    assert "no-store" in pdf["Cache-Control"]
    # Done: the passwords leave the session and the page.
    client.post(reverse("tournaments:staff_done", args=[tournament.slug]))
    page = client.get(reverse("tournaments:staff", args=[tournament.slug])).content.decode()
    assert not any(k["password"] in page for k in kept)
    assert client.get(reverse("reports:logins", args=[tournament.slug])).status_code == 302
    # The slips' accounts log in and land on the referee desk.
    login = client_as("anonymous")
    assert login.login(username="autumn-open-r02", password=kept[1]["password"])
    desk = login.get(reverse("referee:dashboard", args=[tournament.slug]))
    assert desk.status_code == 200


@pytest.mark.parametrize(
    "data",
    [
        {"accounts-role": "referee", "accounts-count": "0"},
        {"accounts-role": "referee", "accounts-count": "9" * 30},
        {"accounts-role": "admin", "accounts-count": "1"},
        {"accounts-role": "referee", "accounts-count": "1", "accounts-prefix": "a\x00b"},
    ],
)
def test_bad_account_requests_make_nothing(
    tournament: Any, client_as: Any, data: dict[str, str]
) -> None:
    before = get_user_model().objects.count()
    response = client_as("organizer").post(
        reverse("tournaments:staff_accounts", args=[tournament.slug]), data
    )
    assert response.status_code == 302
    assert get_user_model().objects.count() == before


def test_assign_and_remove_through_the_page(
    tournament: Any, client_as: Any, cast: dict[str, Any]
) -> None:
    client = client_as("organizer")
    referee = cast["referee"]
    client.post(
        reverse("tournaments:staff_assign", args=[tournament.slug]),
        {"user_id": referee.pk, "first": "3", "last": "4"},
    )
    assert TableAssignment.objects.get(user=referee).first == 3
    # Someone without a role here is a 404, not a silent change.
    response = client.post(
        reverse("tournaments:staff_assign", args=[tournament.slug]),
        {"user_id": cast["outsider"].pk, "first": "1", "last": "2"},
    )
    assert response.status_code == 404
    client.post(
        reverse("tournaments:staff_remove", args=[tournament.slug]), {"user_id": referee.pk}
    )
    assert not tournament.referees.filter(pk=referee.pk).exists()
    assert not TableAssignment.objects.filter(user=referee).exists()


def test_reset_password_through_the_page_shows_a_new_slip_once(
    tournament: Any, client_as: Any, cast: dict[str, Any]
) -> None:
    referee = cast["referee"]
    phone = client_as("referee")
    assert phone.get(reverse("referee:dashboard", args=[tournament.slug])).status_code == 200
    client = client_as("organizer")
    page = client.get(reverse("tournaments:staff", args=[tournament.slug])).content.decode()
    assert reverse("tournaments:staff_password", args=[tournament.slug]) in page
    response = client.post(
        reverse("tournaments:staff_password", args=[tournament.slug]), {"user_id": referee.pk}
    )
    assert response.status_code == 302
    slip = client.session[SESSION_KEY][str(tournament.pk)][-1]
    assert slip["username"] == referee.get_username()
    page = client.get(reverse("tournaments:staff", args=[tournament.slug])).content.decode()
    assert slip["password"] in page
    # The referee's logged-in phone is logged out; the new password works.
    assert phone.get(reverse("referee:dashboard", args=[tournament.slug])).status_code == 302
    fresh = client_as("anonymous")
    assert fresh.login(username=referee.get_username(), password=slip["password"])
    # Someone without a role here is a 404.
    response = client.post(
        reverse("tournaments:staff_password", args=[tournament.slug]),
        {"user_id": cast["outsider"].pk},
    )
    assert response.status_code == 404


def test_my_tables_on_the_desk_are_the_assigned_ones(
    tournament: Any, round1: Round, client_as: Any, cast: dict[str, Any]
) -> None:
    from tournaments.staff import assign_tables

    assign_tables(tournament, cast["referee"], 2, 3, cast["organizer"])
    url = reverse("referee:round_dashboard", args=[tournament.slug, round1.number])
    page = client_as("referee").get(url + "?show=mine").content.decode()
    assert 'data-testid="table-2"' in page and 'data-testid="table-3"' in page
    assert 'data-testid="table-1"' not in page and 'data-testid="table-4"' not in page


def test_new_page_is_open_to_the_organizer_account(client_as: Any, tournament: Any) -> None:
    response = client_as("organizer").post(
        reverse("tournaments:create"),
        {"name": "第二场", "slug": "second", **_create_form_defaults(client_as)},
    )
    assert response.status_code in (200, 302)
    assert client_as("organizer").get(reverse("tournaments:create")).status_code == 200


def _create_form_defaults(client_as: Any) -> dict[str, Any]:
    """The create form's initial values as the page renders them."""
    from tournaments.forms import TournamentCreateForm, preset_initial

    form = TournamentCreateForm(initial=preset_initial("regulation"))
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is None or name in ("name", "slug"):
            continue
        data[name] = value
    return data


# --- check-in ------------------------------------------------------------------------------


def test_check_in_by_tapping_and_by_the_qr_address(tournament: Any, client_as: Any) -> None:
    referee = client_as("referee")
    url = reverse("tournaments:checkin", args=[tournament.slug])
    assert "已签到 0 / 8 对" in referee.get(url).content.decode()
    referee.post(url, {"pair": "1"})
    pair = Pair.objects.get(tournament=tournament, number=2)
    scan = f"/t/{tournament.slug}/checkin/{pair.checkin_token}/"
    assert reverse("tournaments:checkin_scan", args=[tournament.slug, pair.checkin_token]) == scan
    assert "确认签到" in referee.get(scan).content.decode()
    referee.post(scan)
    assert "第1轮已签到" in referee.get(scan).content.decode()
    assert CheckIn.objects.get(pair=pair).via == "qr"
    assert "已签到 2 / 8 对" in referee.get(url).content.decode()
    # Lower case typed (the token is case-sensitive), an unknown token, NUL: never a 500.
    assert referee.get(scan.lower().replace(tournament.slug.lower(), tournament.slug)).status_code
    assert referee.get(f"/t/{tournament.slug}/checkin/NOSUCH/").status_code == 404
    assert referee.get(f"/t/{tournament.slug}/checkin/A%00B/").status_code in (400, 404)
    assert referee.post(url, {"pair": "9" * 30}).status_code == 404
    # A player scanning their own slip meets the login page.
    anonymous = client_as("anonymous").get(scan)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_checkin_qr_encodes_the_checkin_address(tournament: Any, client_as: Any) -> None:
    pair = Pair.objects.get(tournament=tournament, number=3)
    response = client_as("organizer").get(
        reverse("reports:checkin_qr", args=[tournament.slug, pair.number])
    )
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response.content.decode() == qr_svg(
        f"http://testserver/t/{tournament.slug}/checkin/{pair.checkin_token}/"
    )
    assert (
        client_as("outsider")
        .get(reverse("reports:checkin_qr", args=[tournament.slug, pair.number]))
        .status_code
        == 403
    )


def test_withdraw_absent_button(tournament: Any, client_as: Any) -> None:
    client = client_as("organizer")
    for number in range(1, 7):
        client.post(reverse("tournaments:checkin", args=[tournament.slug]), {"pair": number})
    client.post(reverse("tournaments:checkin_withdraw", args=[tournament.slug]))
    withdrawn = Pair.objects.filter(tournament=tournament, status="withdrawn")
    assert sorted(withdrawn.values_list("number", flat=True)) == [7, 8]


# --- rounds --------------------------------------------------------------------------------


def test_unpublish_button_returns_the_round_to_draft(round1: Round, client_as: Any) -> None:
    slug = round1.tournament.slug
    page = client_as("chief").get(reverse("pairing:round_control", args=[slug, 1]))
    assert 'id="unpublish"' in page.content.decode()
    client_as("chief").post(reverse("pairing:unpublish", args=[slug, 1]))
    assert Round.objects.get(pk=round1.pk).status == "draft"


def test_withdrawing_a_seated_pair_asks_about_its_table(
    round1: Round, client_as: Any, cast: dict[str, Any]
) -> None:
    slug = round1.tournament.slug
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    pair = table.ns
    client = client_as("organizer")
    response = client.post(
        reverse("tournaments:pair_status", args=[slug, pair.number]),
        {"action": "withdraw", "reason": ""},
    )
    ask = reverse("pairing:withdraw_seated", args=[slug, pair.number])
    assert response["Location"] == ask + "?action=withdraw"
    pair.refresh_from_db()
    assert pair.status == "active"  # nothing changed before the answer
    page = client.get(response["Location"]).content.decode()
    assert f"第{table.number}桌" in page and "判第" in page
    client.post(ask, {"action": "withdraw", "table_action": "forfeit", "reason": "生病"})
    pair.refresh_from_db()
    table.refresh_from_db()
    assert pair.status == "withdrawn" and table.end_kind == "forfeit" and table.end_side == "NS"
    desk = client_as("referee").get(reverse("referee:round_dashboard", args=[slug, 1]))
    assert f"第{pair.number}对已退赛" in desk.content.decode()


def test_withdraw_seated_refuses_a_bad_choice(round1: Round, client_as: Any) -> None:
    slug = round1.tournament.slug
    table = Table.objects.filter(round=round1, is_bye=False).first()
    client_as("organizer").post(
        reverse("pairing:withdraw_seated", args=[slug, table.ew.number]),
        {"table_action": "\x00"},
    )
    assert Pair.objects.get(pk=table.ew_id).status == "active"


# --- registrations -------------------------------------------------------------------------


def test_append_mode_adds_only_the_late_entries(
    tournament: Any, played: Round, client_as: Any
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    registered = [
        [p.number, "", *p.player_names.split("/")]
        for p in Pair.objects.filter(tournament=tournament).order_by("number")
    ]
    data = template_with([*registered, [None, "常州", "迟到甲", "迟到乙"]])
    url = reverse("reports:import", args=[tournament.slug])
    client = client_as("organizer")
    refused = client.post(url, {"once": new_once_key(), "file": SimpleUploadedFile("a.xlsx", data)})
    assert refused.status_code == 400  # without append: "already used"
    response = client.post(
        url, {"once": new_once_key(), "file": SimpleUploadedFile("a.xlsx", data), "append": "1"}
    )
    assert response.status_code == 302
    late = Pair.objects.get(tournament=tournament, number=9)
    assert late.player_names == "迟到甲/迟到乙"
    page = client.get(url).content.decode()
    assert "从第3轮起参加编排" in page


def test_a_player_in_two_pairs_is_refused(tournament: Any, client_as: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = template_with([[20, "", "新人", "张伟"]])  # 张伟 is pair 1's player
    response = client_as("organizer").post(
        reverse("reports:import", args=[tournament.slug]),
        {"once": new_once_key(), "file": SimpleUploadedFile("a.xlsx", data), "append": "1"},
    )
    assert "已报名的第1对" in response.content.decode()
    assert not Pair.objects.filter(tournament=tournament, number=20).exists()


# --- appeals -------------------------------------------------------------------------------


def test_appeal_pages_lodge_and_decide(
    tournament: Any, round1: Round, client_as: Any, cast: dict[str, Any]
) -> None:
    play_round(round1, cast["referee"], cast["chief"])
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    client = client_as("chief")
    url = reverse("appeals:appeals", args=[tournament.slug])
    response = client.post(
        url,
        {
            "pair": table.ew.number,
            "round": 1,
            "table": table.number,
            "text": "第5副",
            "fee": "100",
            "once": new_once_key(),
        },
    )
    appeal = Appeal.objects.get()
    assert response["Location"] == reverse("appeals:appeal", args=[tournament.slug, appeal.pk])
    page = client.get(response["Location"]).content.decode()
    assert "在记分表上更正本桌成绩" in page
    client.post(
        response["Location"],
        {"status": "upheld", "decision": "更正第5副", "committee": "王、李、赵"},
    )
    appeal.refresh_from_db()
    assert appeal.status == "upheld" and appeal.decided_by == cast["chief"]
    assert "退还申诉费" in client.get(response["Location"]).content.decode()
    # Nonsense never 500s.
    for data in (
        {"pair": "9" * 30, "round": 1, "table": 1, "text": "x"},
        {"pair": 1, "round": 1, "text": "x"},
        {"pair": 1, "round": 1, "table": 999, "text": "x"},
        {"pair": 1, "round": 1, "penalty": 999, "text": "x"},
    ):
        assert client.post(url, data).status_code == 200
    assert Appeal.objects.count() == 1


def test_the_new_pages_in_english_have_no_full_width_punctuation(
    tournament: Any, round1: Round, client_as: Any, cast: dict[str, Any]
) -> None:
    from scoring.appeals import lodge_appeal
    from tests.support.punctuation import offending
    from tournaments.staff import create_staff_accounts

    slug = tournament.slug
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    appeal = lodge_appeal(tournament, table.ns, "x", cast["chief"], table=table, fee=10)
    client = client_as("organizer")
    client.cookies["django_language"] = "en"
    client.post(
        reverse("tournaments:staff_accounts", args=[slug]),
        {"accounts-role": "referee", "accounts-count": "2", "accounts-tables_each": "2"},
    )
    create_staff_accounts(tournament, "chief_referee", 1, cast["organizer"])
    tournament.chief_referees.add(cast["organizer"])  # the appeal page's correction link
    pair = Pair.objects.get(pk=table.ew_id)
    urls = [
        reverse("tournaments:staff", args=[slug]),
        reverse("tournaments:checkin", args=[slug]),
        reverse("tournaments:checkin_scan", args=[slug, pair.checkin_token]),
        reverse("appeals:appeals", args=[slug]),
        reverse("appeals:appeal", args=[slug, appeal.pk]),
        reverse("pairing:withdraw_seated", args=[slug, pair.number]),
        reverse("pairing:round_control", args=[slug, round1.number]),
        reverse("reports:import", args=[slug]),
    ]
    names = {tournament.name, *(p.player_names for p in Pair.objects.filter(tournament=tournament))}
    failures = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        bad = offending(response.content.decode(), names)
        if bad:
            failures[url] = bad
    assert not failures, failures


def test_pages_with_passwords_codes_or_appeals_are_never_cached(
    tournament: Any, round1: Round, client_as: Any, cast: dict[str, Any]
) -> None:
    slug = tournament.slug
    pair = Pair.objects.get(tournament=tournament, number=1)
    client = client_as("organizer")
    tournament.chief_referees.add(cast["organizer"])
    for url in (
        reverse("tournaments:staff", args=[slug]),
        reverse("tournaments:checkin", args=[slug]),
        reverse("tournaments:checkin_scan", args=[slug, pair.checkin_token]),
        reverse("appeals:appeals", args=[slug]),
    ):
        assert "no-store" in client.get(url)["Cache-Control"], url
