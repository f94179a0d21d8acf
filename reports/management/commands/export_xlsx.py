"""``python manage.py export_xlsx SLUG -o FILE.xlsx``: the whole tournament as one workbook
(standings with every criterion, each round's results, every deal, penalties, registrations)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from reports import collect, xlsx
from tournaments.models import Tournament


class Command(BaseCommand):
    help = _("导出赛事成绩到 Excel")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help=_("赛事的网址标识"))
        parser.add_argument("-o", "--output", required=True, help=_("输出的 .xlsx 文件"))

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = Tournament.objects.filter(slug=options["slug"]).first()
        if tournament is None:
            raise CommandError(_("找不到赛事“%(slug)s”") % {"slug": options["slug"]})
        data = xlsx.render_workbook(collect.workbook(tournament))
        output = Path(options["output"])
        output.write_bytes(data)
        self.stdout.write(
            _("已写入 %(path)s（%(kb)s KB）") % {"path": output, "kb": max(1, len(data) // 1024)}
        )
