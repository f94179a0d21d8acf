"""WSGI entry point (gunicorn guandan_tourney.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_tourney.settings")
application = get_wsgi_application()
