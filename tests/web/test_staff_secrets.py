"""Issue 29 finding A (point 1): secrets never reach staff. A plain referee opening the check-in
list saw every pair's code (in the QR links ``/reports/checkin/<code>.svg``, which the access
logs keep too); with two cookie-less browsers the referee then proved itself as North–South at
the table link, entered, submitted and confirmed as East–West — a "two-party" result made by
one person.

Now the check-in QR carries the pair's own check-in token (``Pair.checkin_token``), the QR image
is named by the pair's number, no page a referee or chief referee opens shows a pair or captain
code, and a logged-in member of the staff is refused at the link (they enter and confirm at the
desk, as themselves)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from reports import collect
from reports.views.documents import qr_svg
from scoring.models import Signoff
from scoring.once import new_once_key
from tests.support.pages import (
    EIGHT,
    first_table,
    fresh,
    identified,
    link,
    make_cast,
    make_tournament,
    page_messages,
    tap,
)
from tests.support.tournament import next_round
from tournaments.checkin import checkin_path
from tournaments.models import Pair, Round, Table, Team, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def round1(cast: dict[str, Any]) -> Round:
    return next_round(make_tournament(cast), cast["organizer"])


def _client(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    client.raise_request_exception = False
    return client


def _secrets(tournament: Tournament) -> list[str]:
    codes = list(Pair.objects.filter(tournament=tournament).values_list("code", flat=True))
    return codes + list(
        Team.objects.filter(tournament=tournament).values_list("captain_code", flat=True)
    )


def _staff_pages(table: Table) -> list[str]:
    t = table.round.tournament
    number = table.round.number
    pair = Pair.objects.filter(tournament=t).first()
    assert pair is not None
    return [
        reverse("referee:dashboard", args=[t.slug]),
        reverse("referee:round_dashboard", args=[t.slug, number]),
        reverse("referee:round_state", args=[t.slug, number]),
        reverse("referee:table", args=[t.slug, number, table.number]),
        reverse("penalties:penalties", args=[t.slug]),
        reverse("tournaments:checkin", args=[t.slug]),
        reverse("tournaments:checkin_scan", args=[t.slug, pair.checkin_token]),
        reverse("reports:checkin_qr", args=[t.slug, pair.number]),
        reverse("pairing:control", args=[t.slug]),
        reverse("pairing:round_control", args=[t.slug, number]),
        reverse("tournaments:audit", args=[t.slug]),
        reverse("appeals:appeals", args=[t.slug]),
        link(table),
    ]


@pytest.mark.parametrize("role", ["referee", "chief"])
def test_no_page_a_referee_opens_shows_a_pair_code(
    cast: dict[str, Any], round1: Round, role: str
) -> None:
    table = first_table(round1)
    client = _client(cast[role])
    secrets = _secrets(round1.tournament)
    for url in _staff_pages(table):
        response = client.get(url)
        assert response.status_code in (200, 302, 403), (url, response.status_code)
        body = response.content.decode()
        for secret in secrets:
            assert secret not in body, (url, role)
            assert secret not in url


def test_the_checkin_qr_is_named_by_number_and_encodes_the_checkin_token(
    cast: dict[str, Any], round1: Round
) -> None:
    """The replay's first step: the referee reads the QR links of the check-in list."""
    tournament = round1.tournament
    referee = _client(cast["referee"])
    html = referee.get(reverse("tournaments:checkin", args=[tournament.slug])).content.decode()
    named = re.findall(r"/reports/checkin/([^/\"]+)\.svg", html)
    assert named and all(name.isdigit() for name in named), named
    pair = Pair.objects.get(tournament=tournament, number=int(named[0]))
    image = referee.get(reverse("reports:checkin_qr", args=[tournament.slug, pair.number]))
    assert image.status_code == 200 and "no-store" in image["Cache-Control"]
    base = "http://testserver"
    assert image.content.decode() == qr_svg(base + checkin_path(tournament, pair.checkin_token))
    assert image.content.decode() != qr_svg(base + checkin_path(tournament, pair.code))
    # The slips carry the same address, never the code.
    slip = next(s for s in collect.pair_slips(tournament, base) if s.pair.number == pair.number)
    assert slip.checkin_url == base + checkin_path(tournament, pair.checkin_token)
    assert pair.code not in slip.checkin_url and pair.code not in slip.find_url
    # The old address (the code) finds nothing; the token checks the pair in.
    assert referee.get(f"/t/{tournament.slug}/checkin/{pair.code}/").status_code == 404
    scan = reverse("tournaments:checkin_scan", args=[tournament.slug, pair.checkin_token])
    assert referee.post(scan).status_code == 302
    assert "第2轮已签到" in referee.get(scan).content.decode()
    assert referee.get(reverse("reports:checkin_qr", args=[tournament.slug, 99])).status_code == (
        404
    )


def test_what_the_referee_reads_does_not_open_the_table_link(
    cast: dict[str, Any], round1: Round
) -> None:
    """The replay: what the check-in list gives a referee, typed as a pair's code in two
    cookie-less browsers, proves nothing — the table stays open, no sign-off names a pair."""
    table = first_table(round1)
    tournament = round1.tournament
    html = _client(cast["referee"]).get(reverse("tournaments:checkin", args=[tournament.slug]))
    found = set(re.findall(r"/reports/checkin/([^/\"]+)\.svg", html.content.decode()))
    tokens = set(Pair.objects.filter(tournament=tournament).values_list("checkin_token", flat=True))
    for guess in sorted(found | tokens):
        browser = _client()
        browser.post(link(table, "identify"), {"version": fresh(table).version, "code": guess})
        response = tap(browser, table, "NS3")
        assert any("对号密码" in m for m in page_messages(response)), guess
    assert fresh(table).entry_status == "open" and not Signoff.objects.filter(table=table)


def test_a_logged_in_referee_is_sent_to_the_desk_at_the_link(
    cast: dict[str, Any], round1: Round
) -> None:
    """Even with the real codes, a logged-in member of the staff never acts as a pair: the
    link's page offers no code form and says where to go; identify and confirm are refused."""
    table = first_table(round1)
    referee = _client(cast["referee"])
    page = referee.get(link(table)).content.decode()
    assert 'data-testid="staff-at-link"' in page and 'data-testid="identify"' not in page
    response = referee.post(
        link(table, "identify"),
        {"version": fresh(table).version, "code": table.ns.code},
        follow=True,
    )
    assert any("裁判台" in m for m in page_messages(response))
    refused = tap(referee, table, "NS3")
    assert any("对号密码" in m for m in page_messages(refused))
    # East–West enters at the link; the referee cannot confirm it with North–South's code.
    ew = identified(table, "EW")
    for token in EIGHT:
        tap(ew, table, token)
    ew.post(link(table, "submit"), {"once": new_once_key(), "version": fresh(table).version})
    assert fresh(table).entry_status == "entered"
    response = referee.post(
        link(table, "confirm"),
        {"once": new_once_key(), "version": fresh(table).version, "code": table.ns.code},
        follow=True,
    )
    assert any("裁判台" in m for m in page_messages(response))
    assert fresh(table).entry_status == "entered"
    assert not Signoff.objects.filter(table=table, step=Signoff.Step.CONFIRM).exists()
