"""Django for the benchmarks: set up on demand, and a throw-away test database to fill."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_tourney.settings")
    import django
    from django.apps import apps

    if not apps.ready:
        django.setup()


def in_test_database(work: Callable[[], Any]) -> Any:
    """Run ``work`` in a fresh test database that is dropped afterwards (the configured
    database is never touched)."""
    setup_django()
    from django.db import connection
    from django.test.utils import setup_test_environment, teardown_test_environment

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        return work()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()
