"""The DEBUG=0 leg (issue 29 finding D): production's settings, tested as production runs them.

``scripts/test_production.sh`` (``make test-production``, part of ``make test`` and CI) runs
this folder and the offline sheet's browser flows (``tests/browser/test_offline_*.py``,
``test_shared_phone.py``) with ``DEBUG=0``, a real ``SECRET_KEY``, the
manifest storage (hashed static names) after ``collectstatic`` into a fresh ``STATIC_ROOT``, and
static files served by whitenoise through the app, as gunicorn serves them (the live server of
``tests/conftest.py`` does not put Django's debug static handler in front). ``/sw.js`` answered
500 there while every test passed with ``DEBUG=1``.

Run any other way (the ordinary suite, with ``DEBUG=1``), these tests are skipped with a reason
that names the leg.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from tests.web.conftest import cast, played, round1, tournament  # noqa: F401 - the leg's

HERE = Path(__file__).resolve().parent


def production_settings() -> bool:
    """Whether this run has production's settings: DEBUG off, the manifest storage."""
    storage = settings.STORAGES["staticfiles"]["BACKEND"]
    return not settings.DEBUG and "Manifest" in storage


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if production_settings():
        manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
        if not manifest.exists():
            raise pytest.UsageError(f"run collectstatic first: {manifest} is missing")
        return
    skip = pytest.mark.skip(reason="DEBUG=0 leg only: scripts/test_production.sh runs it")
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)
