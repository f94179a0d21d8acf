"""No English page shows Chinese (full-width) punctuation (issue 15): every "：（），。" of the
interface belongs inside a translated string, so the English pages read as English."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from scoring import penalties
from tests.support.punctuation import offending
from tests.support.tournament import enter_tokens
from tournaments.models import Pair, Round, Table


@pytest.mark.django_db
def test_no_english_page_has_full_width_punctuation(
    played: Round, cast: dict[str, Any], client_as: Any
) -> None:
    tournament = played.tournament
    slug = tournament.slug
    tables = list(Table.objects.filter(round=played, is_bye=False).order_by("number"))
    enter_tokens(tables[0], ["NS3"] * 5, cast["referee"])  # 2 → 5 → 8 → J → A → 过A
    pair = Pair.objects.filter(tournament=tournament).order_by("number").first()
    allowed = {tournament.name}
    public = [
        reverse("public:detail", args=[slug]),
        reverse("public:find", args=[slug]) + "?q=张伟",
        reverse("public:find", args=[slug]) + "?q=zw",
        reverse("public:standings", args=[slug]),
        reverse("public:pair", args=[slug, pair.number]),
        reverse("public:projector", args=[slug]),
        reverse("public:projector", args=[slug]) + "?show=standings",
        reverse("public:rounds", args=[slug]),
        reverse("public:round", args=[slug, played.number]),
    ]
    staff = [
        reverse("pairing:control", args=[slug]),
        reverse("pairing:round_control", args=[slug, played.number]),
        reverse("referee:round_dashboard", args=[slug, played.number]),
        reverse("referee:table", args=[slug, played.number, tables[0].number]),
    ]
    failures = {}
    for role, urls in (("anonymous", public), ("organizer", staff)):
        client = client_as(role)
        client.cookies["django_language"] = "en"
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, url
            html = response.content.decode()
            bad = offending(html, allowed)
            if "过A" in html:
                bad.append("过A")
            if bad:
                failures[url] = bad
    assert not failures, failures


@pytest.mark.django_db
def test_english_words_for_one_sheet_and_the_draw(
    played: Round, cast: dict[str, Any], client_as: Any
) -> None:
    """One table's page says "Score sheet" (not "Score sheets"); the organizer's "编排" link
    is "Draw", not "Pairing" beside the public "Pairings"."""
    slug = played.tournament.slug
    table = Table.objects.filter(round=played, is_bye=False).order_by("number").first()
    client = client_as("organizer")
    client.cookies["django_language"] = "en"
    html = client.get(reverse("referee:table", args=[slug, played.number, table.number]))
    text = html.content.decode()
    assert "Score sheet" in text and "Score sheets" not in text
    nav = client.get(reverse("public:detail", args=[slug])).content.decode()
    assert ">Draw<" in nav and ">Pairing<" not in nav


def test_round_1_reasons_do_not_speak_of_rank() -> None:
    """In round 1 everyone is on 0: the direction's reason names the lot or the seeding."""
    import random

    from pairing.swiss import SwissOptions, SwissPair, pair_round

    pairs = [SwissPair(id=n, rank=n, match_points=0, seeding=n) for n in range(1, 9)]
    for round1, expected in (("lot", "drawn_first"), ("seeding", "higher_seeded")):
        draw = pair_round(pairs, 1, SwissOptions(round1=round1), random.Random(1))
        whys = {
            dict(reason.params)["why"]
            for table in draw.tables
            for reason in table.reasons
            if reason.code == "direction"
        }
        assert whys == {expected}, round1


@pytest.mark.django_db
def test_escalation_button_reads_confirm_penalty_loss(
    round1: Round, cast: dict[str, Any], client_as: Any
) -> None:
    """Two fouls suggest 判负: the button says 确认判负 (not 确认判判负)."""

    tournament = round1.tournament
    table = Table.objects.filter(round=round1, is_bye=False).order_by("number").first()
    for _ in range(2):
        penalties.record_penalty(
            tournament, table.ns, "foul", cast["chief"], round=round1, table=table
        )
    url = reverse("referee:round_dashboard", args=[tournament.slug, round1.number])
    html = client_as("chief").get(url).content.decode()
    assert "确认判负" in html and "判判" not in html
