"""Public pages (issue 5 "Players"): they render, show the right things, and nothing private."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from pairing.models import Round
from tournaments.models import Pair, Tournament


def public_urls(tournament: Tournament, rnd: Round) -> list[str]:
    slug = tournament.slug
    pair = Pair.objects.filter(tournament=tournament).order_by("number").first()
    return [
        reverse("home"),
        reverse("tournaments:detail", args=[slug]),
        reverse("tournaments:find", args=[slug]) + "?q=张",
        reverse("tournaments:find", args=[slug]) + f"?q={pair.number}",
        reverse("tournaments:standings", args=[slug]),
        reverse("tournaments:standings", args=[slug]) + "?q=李娜",
        reverse("tournaments:pair", args=[slug, pair.number]),
        reverse("tournaments:projector", args=[slug]),
        reverse("tournaments:projector", args=[slug]) + "?show=standings",
        reverse("pairing:rounds", args=[slug]),
        reverse("pairing:round", args=[slug, rnd.number]),
        reverse("pairing:round", args=[slug, 1]) + "?q=1",
    ]


@pytest.mark.django_db
def test_every_public_page_renders_for_anonymous(played: Round, client_as: Any) -> None:
    client = client_as("anonymous")
    for url in public_urls(played.tournament, played):
        response = client.get(url)
        assert response.status_code == 200, url
