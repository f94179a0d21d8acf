"""The web tests' cast and tournaments, built through the services (``tests.support.tournament``).

Cast (``cast`` fixture): an organizer, a chief referee, a referee, an outsider with no role and
``other_ref`` — a referee of *another* tournament. ``tournament``: the regulation preset with 8
pairs in three units; ``round1``: round 1 generated and published; ``played``: round 1 with every
table entered and confirmed, round 2 published. ``client_as(role)`` returns a logged-in client
(``"anonymous"`` for none). The cache is cleared before every test (standings and public pages
are cached, and SQLite reuses ids after a rollback).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from pairing import services as pairing_services
from tests.support.tournament import build_tournament, make_user, play_round
from tournaments.models import Round, Tournament

ROLES = ("anonymous", "outsider", "other_ref", "referee", "chief", "organizer")


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    cache.clear()


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    users = {name: make_user(name) for name in ROLES if name != "anonymous"}
    other = build_tournament(
        users["organizer"], users["chief"], [users["other_ref"]], n_pairs=4, slug="other-open"
    )
    users["other_tournament"] = other
    return users


@pytest.fixture
def tournament(cast: dict[str, Any]) -> Tournament:
    return build_tournament(cast["organizer"], cast["chief"], [cast["referee"]])


@pytest.fixture
def round1(tournament: Tournament, cast: dict[str, Any]) -> Round:
    rnd = pairing_services.generate_round(tournament, cast["organizer"])
    return pairing_services.publish_round(rnd, cast["organizer"])


@pytest.fixture
def played(tournament: Tournament, round1: Round, cast: dict[str, Any]) -> Round:
    """Round 1 played and finished, round 2 published; returns round 2."""
    play_round(round1, cast["referee"], cast["chief"])
    pairing_services.finish_round(round1, cast["organizer"])
    rnd = pairing_services.generate_round(tournament, cast["organizer"])
    return pairing_services.publish_round(rnd, cast["organizer"])


@pytest.fixture
def client_as(cast: dict[str, Any]) -> Callable[[str], Client]:
    def make(role: str) -> Client:
        client = Client()
        if role != "anonymous":
            client.force_login(cast[role])
        return client

    return make
