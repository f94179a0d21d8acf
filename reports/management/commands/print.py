"""``python manage.py print SLUG {scoresheets,pairings,standings,penalties} [--round N]
[--filled] [--final] -o FILE.pdf``: the organizer's documents from the command line.

Score sheets point their QR codes at ``SITE_URL`` (setting or environment variable), since a
command has no request to learn the host from. A progress bar goes to stderr for long runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from reports.collect import ReportError
from reports.views.documents import DOCUMENTS, render_document
from tournaments.models import Tournament

from ._base import whole_number
from ._progress import ProgressBar


class Command(BaseCommand):
    help = _("打印记分表、对阵表、名次表、判罚记录或对号卡（PDF）")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help=_("赛事的网址标识"))
        parser.add_argument("document", choices=DOCUMENTS)
        parser.add_argument(
            "--round", type=whole_number(), default=None, help=_("轮次（默认最新一轮）")
        )
        parser.add_argument(
            "--filled", action="store_true", help=_("记分表：打印已确认桌的已填记分表")
        )
        parser.add_argument("--final", action="store_true", help=_("名次表：最终排名"))
        parser.add_argument("-o", "--output", required=True, help=_("输出的 PDF 文件"))

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = Tournament.objects.filter(slug=options["slug"]).first()
        if tournament is None:
            raise CommandError(_("找不到赛事“%(slug)s”") % {"slug": options["slug"]})
        if options["round"] is not None and options["round"] < 1:
            raise CommandError(_("轮次须为正整数"))
        document = options["document"]
        bar = ProgressBar(_("记分表"), self.stderr._out) if document == "scoresheets" else None
        final = options["final"] or (
            document == "standings"
            and options["round"] is None
            and tournament.status == Tournament.Status.FINISHED
        )
        try:
            data = render_document(
                tournament,
                document,
                options["round"],
                filled=options["filled"],
                final=final,
                progress=bar,
            )
        except ReportError as error:
            raise CommandError(error.message) from None
        output = Path(options["output"])
        output.write_bytes(data)
        if bar is not None and bar.tty:
            bar.finish(1, 1)
        self.stdout.write(
            _("已写入 %(path)s（%(kb)s KB）") % {"path": output, "kb": max(1, len(data) // 1024)}
        )
