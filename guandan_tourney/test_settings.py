"""Settings for the test run (pyproject's ``DJANGO_SETTINGS_MODULE``): the real settings with
``DEBUG`` on unless the environment says otherwise, because ``DEBUG`` is off by default and a
test run has no ``SECRET_KEY``. Child processes the tests start inherit ``DEBUG=1``."""

import os

os.environ.setdefault("DEBUG", "1")

from guandan_tourney.settings import *  # noqa: F403
