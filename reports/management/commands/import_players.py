"""``python manage.py import_players SLUG FILE.xlsx``: register the pairs of a filled
registration template. Every problem is listed by row and column; nothing is imported unless the
whole sheet is valid (one transaction)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from reports.registrations import (
    MAX_BYTES,
    RegistrationError,
    import_registrations,
    parse_appended,
    registered_pairs,
)
from tournaments.models import Tournament


class Command(BaseCommand):
    help = _("从 Excel 报名表导入参赛对")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help=_("赛事的网址标识"))
        parser.add_argument("file", help=_("报名表（.xlsx）"))
        parser.add_argument(
            "--append",
            action="store_true",
            help=_("追加（补报）：跳过已报名的行，只添加新的参赛对"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = Tournament.objects.filter(slug=options["slug"]).first()
        if tournament is None:
            raise CommandError(_("找不到赛事“%(slug)s”") % {"slug": options["slug"]})
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(_("找不到文件 %(path)s") % {"path": path})
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
        try:
            lines, _skipped = parse_appended(
                data, registered=registered_pairs(tournament), append=options["append"]
            )
            count = import_registrations(tournament, lines, user=None)
        except RegistrationError as error:
            for message in error.messages:
                self.stderr.write(message)
            raise CommandError(
                _("发现 %(n)s 个问题，未导入任何数据") % {"n": len(error.problems)}
            ) from None
        self.stdout.write(_("已导入 %(n)s 对") % {"n": count})
