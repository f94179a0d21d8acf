"""``manage.py export_tournament SLUG [-o FILE.json]`` — TOURNAMENT_FILE.md "Command line".

Writes the tournament file (UTF-8, ``json.dumps(ensure_ascii=False, indent=1)``, the form of the
golden files) to FILE or standard output; importing it and exporting again gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from reports.fileformat import dumps
from reports.fileio import export_tournament
from tournaments.messages import sentence

from ._base import PlainCommand, get_tournament


class Command(PlainCommand):
    help = "Export a tournament as a tournament file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("-o", "--output", default=None, help="write to this file")

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = get_tournament(options["slug"])
        text = dumps(export_tournament(tournament))
        if options["output"]:
            path = Path(options["output"])
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as error:
                detail = error.strerror or str(error)
                raise CommandError(
                    sentence("cannot_write", {"path": path, "detail": detail})
                ) from None
        else:
            self.stdout.write(text)
