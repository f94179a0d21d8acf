"""Shared fixtures for the whole suite."""

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts in the site's default language (zh-hans): a request served in English
    leaves English active in the thread (LocaleMiddleware does not reset it), which made tests
    that render without a request depend on the order they run in (pytest-xdist reorders)."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_known_outage():
    """Every test starts with no cache or throttle store known to be down (the breakers of
    ``tournaments.resilient_cache`` are per process)."""
    from tournaments.resilient_cache import reset_breakers

    reset_breakers()
    yield
    reset_breakers()
