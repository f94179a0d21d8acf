"""``manage.py backup [--dir DIR] [--slug SLUG …] [--keep N] [--always]``: every tournament to a
timestamped tournament file (TOURNAMENT_FILE.md), for a portable, human-readable backup.

Each tournament is exported inside one read-only transaction; on PostgreSQL it runs at
REPEATABLE READ, so the file is one consistent snapshot even while referees keep entering (a
table's events and its status come from the same instant). The file is parsed back before it is
kept (a backup that cannot be restored is worse than none), written to a temporary name and
renamed into place, so a crash never leaves half a file under a real name.

Restoring: ``python manage.py import_tournament DIR/SLUG-YYYYmmdd-HHMMSS.json --slug NEW_SLUG``
(docs/deploy.md). The file carries everything the standings are computed from; it does not carry
the audit log, the accounts and roles, the pair codes or the table links (new ones are drawn on
import) — for those, back up the database itself with ``pg_dump`` as well.

May touch: reads every model through ``reports.fileio.export_tournament``; writes files only.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from reports.fileformat import dumps, parse_tournament
from reports.fileio import export_tournament
from tournaments.models import Tournament

SUFFIX = ".json"


def default_dir() -> Path:
    return Path(os.environ.get("BACKUP_DIR") or Path(settings.BASE_DIR) / "backups")


def snapshot_text(tournament: Tournament) -> str:
    """The tournament file text of one consistent snapshot of ``tournament``."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and outermost:
            # Must be the first statement of the transaction (hence only when we opened it):
            # every query of the export then sees the same committed state.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        fresh = Tournament.objects.get(pk=tournament.pk)
        return dumps(export_tournament(fresh))


def _existing(directory: Path, slug: str) -> list[Path]:
    """This tournament's backups, oldest first (the timestamp in the name sorts). The pattern
    is exact, so tournament ``open`` never claims ``open-2025``'s files (``--keep`` deletes)."""
    pattern = re.compile(rf"^{re.escape(slug)}-\d{{8}}-\d{{6}}(\d{{2}})?{re.escape(SUFFIX)}$")
    return sorted(p for p in directory.iterdir() if pattern.match(p.name))


def write_atomically(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=SUFFIX)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Command(BaseCommand):
    help = _("把每个赛事备份为带时间戳的赛事文件（可用 import_tournament 恢复）。")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dir", default=None, help=_("备份目录（默认 BACKUP_DIR 或 ./backups）")
        )
        parser.add_argument(
            "--slug", action="append", default=None, help=_("只备份这个赛事（可重复）")
        )
        parser.add_argument(
            "--keep", type=int, default=0, help=_("每个赛事只保留最新的 N 个备份（0 = 全部保留）")
        )
        parser.add_argument(
            "--always", action="store_true", help=_("即使与上一个备份相同也写新文件")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        directory = Path(options["dir"]) if options["dir"] else default_dir()
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise CommandError(
                _("无法创建备份目录 %(dir)s：%(detail)s")
                % {"dir": directory, "detail": error.strerror or error}
            ) from None
        tournaments = Tournament.objects.order_by("slug")
        if options["slug"]:
            tournaments = tournaments.filter(slug__in=options["slug"])
            missing = set(options["slug"]) - set(tournaments.values_list("slug", flat=True))
            if missing:
                raise CommandError(
                    _("没有这个赛事：%(slugs)s") % {"slugs": ", ".join(sorted(missing))}
                )
        stamp = timezone.localtime().strftime("%Y%m%d-%H%M%S")
        failures = 0
        for tournament in tournaments:
            try:
                self.backup_one(tournament, directory, stamp, options)
            except Exception as error:  # one broken tournament must not stop the others
                failures += 1
                self.stderr.write(
                    _("赛事 %(slug)s 备份失败：%(error)s")
                    % {"slug": tournament.slug, "error": error}
                )
        if failures:
            raise CommandError(_("%(n)s 个赛事备份失败。") % {"n": failures})

    def backup_one(
        self, tournament: Tournament, directory: Path, stamp: str, options: dict[str, Any]
    ) -> None:
        text = snapshot_text(tournament)
        parse_tournament(json.loads(text))  # refuse to keep an unrestorable file
        existing = _existing(directory, tournament.slug)
        if existing and not options["always"]:
            if existing[-1].read_text(encoding="utf-8") == text:
                self.stdout.write(
                    _("%(slug)s：未变化，沿用 %(file)s")
                    % {"slug": tournament.slug, "file": existing[-1]}
                )
                return
        path = directory / f"{tournament.slug}-{stamp}{SUFFIX}"
        counter = 1
        while path.exists():  # two runs in the same second
            path = directory / f"{tournament.slug}-{stamp}{counter:02d}{SUFFIX}"
            counter += 1
        write_atomically(path, text)
        self.stdout.write(str(path))
        keep = options["keep"]
        if keep > 0:
            for old in _existing(directory, tournament.slug)[:-keep]:
                old.unlink(missing_ok=True)
