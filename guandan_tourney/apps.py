"""The site's own configuration app: registers the deployment checks (``checks.py``)."""

from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "guandan_tourney"
    label = "site_config"
    verbose_name = "guandan-tourney site"

    def ready(self) -> None:
        from guandan_tourney import checks  # noqa: F401 - registers the checks
