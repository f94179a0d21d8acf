"""``manage.py import_tournament FILE.json [--slug SLUG]`` — TOURNAMENT_FILE.md "Command line".

All or nothing: the whole file is checked first; on any problem nothing is written and every
problem is printed to standard error, one sentence a line, each naming where it is.
Prints the new tournament's slug.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from reports.fileformat import TournamentFileError, load_json
from reports.fileio import import_tournament
from tournaments.messages import describe_problems, sentence

from ._base import PlainCommand


class Command(PlainCommand):
    help = "Import a tournament file (all or nothing) and print its slug."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the tournament file (UTF-8 JSON)")
        parser.add_argument("--slug", default=None, help="the new tournament's slug")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        try:
            raw = path.read_bytes()
        except OSError as error:
            detail = error.strerror or str(error)
            raise CommandError(sentence("cannot_read", {"path": path, "detail": detail})) from None
        try:
            tournament = import_tournament(load_json(raw), slug=options["slug"])
        except TournamentFileError as error:
            problems = error.problems
            head = sentence("import_refused", {"count": len(problems)})
            raise CommandError(f"{head}\n{describe_problems(problems)}") from None
        self.stdout.write(tournament.slug)
