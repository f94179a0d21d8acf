"""Shared fixtures for the whole suite."""

import os

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


@pytest.fixture(scope="session")
def live_server(request):
    """pytest-django's live server; with production's manifest storage (the DEBUG=0 leg,
    scripts/test_production.sh) its static files come from whitenoise in the app, from
    ``STATIC_ROOT`` as gunicorn serves them — Django's debug handler in front would look for
    the hashed names in the source folders and answer 404."""
    from django.conf import settings
    from pytest_django.live_server_helper import LiveServer

    addr = (
        request.config.getvalue("liveserver")
        or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS")
        or "localhost"
    )
    server = LiveServer(addr, start=False)
    if "Manifest" in settings.STORAGES["staticfiles"]["BACKEND"]:
        server.thread.static_handler = lambda application: application
    server.start()
    yield server
    server.stop()
