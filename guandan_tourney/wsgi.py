"""WSGI entry point (gunicorn guandan_tourney.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

from guandan_tourney.checks import require_serving_settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_tourney.settings")
require_serving_settings()  # no SECRET_KEY or ALLOWED_HOSTS in production: no server
application = get_wsgi_application()
