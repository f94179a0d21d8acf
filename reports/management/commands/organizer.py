"""``manage.py organizer USERNAME [--password PW]``: an account that may create tournaments —
how a fresh site gets its first organizer without the Django admin (docs/deploy.md). The
account is created when missing (with a generated password, printed once) and given the
site-level permission ``tournaments.add_tournament``; from then on the organizer creates
tournaments at ``/new/`` and their staff's accounts on each tournament's staff page."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext as _

from tournaments.errors import ServiceError
from tournaments.staff import make_site_organizer

from ._base import PlainCommand, refusal


class Command(PlainCommand):
    help = _("创建可以新建赛事的组委会账号（或给已有账号这一权限）")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help=_("用户名"))
        parser.add_argument("--password", default=None, help=_("密码（不填则自动生成）"))

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            login, created = make_site_organizer(options["username"], options["password"])
        except ServiceError as error:
            raise refusal(error) from None
        if created:
            self.stdout.write(_("已创建组委会账号 %(user)s") % {"user": login.username})
        else:
            self.stdout.write(_("%(user)s 现在可以新建赛事") % {"user": login.username})
        if login.password and not options["password"]:
            self.stdout.write(_("密码：%(password)s") % {"password": login.password})
