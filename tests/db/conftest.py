"""The database tests' cast and a small tournament, built through the services only.

Cast: an organizer, a chief referee, two referees and an outsider (no role). ``tournament``: the
regulation preset, 8 pairs in 3 units (南京 ×3, 苏州 ×3, 无锡 ×2), 7 rounds planned. The
helpers that build it and play rounds the way referees do are ``tests.support.tournament``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from tests.support.tournament import build_tournament, make_user, next_round
from tournaments.models import Round, Tournament


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    # Standings are cached; SQLite reuses ids after a rollback, so start every test clean.
    cache.clear()


@pytest.fixture
def organizer(db: Any) -> Any:
    return make_user("organizer")


@pytest.fixture
def chief(db: Any) -> Any:
    return make_user("chief")


@pytest.fixture
def referee(db: Any) -> Any:
    return make_user("referee")


@pytest.fixture
def referee2(db: Any) -> Any:
    return make_user("referee2")


@pytest.fixture
def outsider(db: Any) -> Any:
    return make_user("outsider")


@pytest.fixture
def tournament(organizer: Any, chief: Any, referee: Any, referee2: Any) -> Tournament:
    return build_tournament(organizer, chief, [referee, referee2])


@pytest.fixture
def round1(tournament: Tournament, organizer: Any) -> Round:
    return next_round(tournament, organizer)
