"""``manage.py backup``: every tournament to a timestamped tournament file; restoring one with
``import_tournament`` gives the same standings (docs/deploy.md "Backups and restoring")."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from pairing import services as pairing_services
from reports.fileformat import load_json
from reports.fileio import import_tournament
from scoring import penalties
from scoring.cache import cached_standings
from tests.support.golden import EXAMPLES
from tests.support.tournament import build_tournament, next_round, play_round
from tournaments.models import Tournament

NAME = re.compile(r"^(?P<slug>.+)-\d{8}-\d{6}(\d{2})?\.json$")


def _backup(directory: Path, *args: str) -> list[Path]:
    out = io.StringIO()
    call_command("backup", "--dir", str(directory), *args, stdout=out)
    # One line per file written; "unchanged" lines start with the slug.
    return [Path(line) for line in out.getvalue().splitlines() if line.startswith(str(directory))]


def _standings(tournament: Tournament, after_round: int | None = None) -> list[tuple[Any, ...]]:
    return [(r.rank, r.pair, r.cf, r.jcf) for r in cached_standings(tournament, after_round)]


@pytest.fixture
def played(organizer: Any, chief: Any, referee: Any, referee2: Any) -> Tournament:
    """Two rounds played and finished, a third published and half entered, a deduction."""
    tournament = build_tournament(organizer, chief, [referee, referee2], n_pairs=9, slug="spring")
    for _ in range(2):
        rnd = next_round(tournament, organizer)
        play_round(rnd, referee, referee2)
        pairing_services.finish_round(rnd, organizer)
    next_round(tournament, organizer)
    pair = tournament.pairs.order_by("number").first()
    round2 = tournament.rounds.get(number=2)
    penalties.record_penalty(
        tournament, pair, "deduction", chief, jcf=2, reason="迟到超过十分钟", round=round2
    )
    return tournament


def test_backup_writes_every_tournament_to_a_timestamped_file(
    tournament: Tournament, played: Tournament, tmp_path: Path
) -> None:
    files = _backup(tmp_path)
    slugs = sorted(NAME.match(f.name).group("slug") for f in files)
    assert slugs == sorted([tournament.slug, played.slug])
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["format"] == "guandan-tournament"
    assert not list(tmp_path.glob(".tmp-*"))  # written atomically, no leftovers


def test_restoring_a_backup_gives_the_same_standings(played: Tournament, tmp_path: Path) -> None:
    (path,) = _backup(tmp_path, "--slug", played.slug)
    out = io.StringIO()
    call_command("import_tournament", str(path), "--slug", "spring-restored", stdout=out)
    restored = Tournament.objects.get(slug="spring-restored")
    assert out.getvalue().strip() == "spring-restored"
    for after in (1, 2, 3):
        assert _standings(restored, after) == _standings(played, after)
    # …and the restored tournament backs up to the same file (nothing lost on the way).
    (again,) = _backup(tmp_path, "--slug", "spring-restored")
    assert again.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("example", ["worked-example.json", "eleven-pairs.json", "jiangsu-28.json"])
def test_the_shared_examples_survive_backup_and_restore(
    db: Any, tmp_path: Path, example: str
) -> None:
    original = import_tournament(load_json((EXAMPLES / example).read_bytes()), slug="original")
    (path,) = _backup(tmp_path, "--slug", "original")
    restored = import_tournament(load_json(path.read_bytes()), slug="restored")
    assert _standings(restored) == _standings(original)
    assert path.read_text(encoding="utf-8") == (EXAMPLES / example).read_text(encoding="utf-8")


def test_an_unchanged_tournament_is_not_written_again_and_keep_prunes(
    tournament: Tournament, organizer: Any, tmp_path: Path
) -> None:
    (first,) = _backup(tmp_path)
    assert _backup(tmp_path) == []  # unchanged: skipped
    next_round(tournament, organizer)
    (second,) = _backup(tmp_path)
    assert second != first
    assert len(_backup(tmp_path, "--always")) == 1
    assert len(list(tmp_path.glob("*.json"))) == 3
    _backup(tmp_path, "--always", "--keep", "2")
    kept = sorted(tmp_path.glob("*.json"))
    assert len(kept) == 2 and first not in kept


def test_keep_never_touches_another_tournaments_files(
    organizer: Any, chief: Any, referee: Any, tmp_path: Path
) -> None:
    build_tournament(organizer, chief, [referee], n_pairs=4, slug="open")
    build_tournament(organizer, chief, [referee], n_pairs=4, slug="open-2025")
    _backup(tmp_path)
    _backup(tmp_path, "--always", "--slug", "open", "--keep", "1")
    assert len(list(tmp_path.glob("open-2025-*.json"))) == 1


def test_an_unknown_slug_is_one_clear_sentence(db: Any, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="没有这个赛事"):
        _backup(tmp_path, "--slug", "nope")


@pytest.mark.django_db(transaction=True)
def test_backup_outside_a_transaction_reads_one_snapshot(
    tournament: Tournament, organizer: Any, tmp_path: Path
) -> None:
    """As run from cron/systemd: its own transaction (REPEATABLE READ READ ONLY on PostgreSQL)."""
    next_round(tournament, organizer)
    (path,) = _backup(tmp_path)
    restored = import_tournament(load_json(path.read_bytes()), slug="snapshot-restored")
    assert _standings(restored) == _standings(tournament)
