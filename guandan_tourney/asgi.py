"""ASGI entry point."""

import os

from django.core.asgi import get_asgi_application

from guandan_tourney.checks import require_serving_settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_tourney.settings")
require_serving_settings()  # no SECRET_KEY or ALLOWED_HOSTS in production: no server
application = get_asgi_application()
