"""A database made by the code before the layered layout migrates forward with nothing lost.

``data/demo-before-layers.sqlite3.gz`` is ``manage.py demo`` run by commit 3d4587a (rounds, tables
and seats in ``pairing``, the audit log in ``scoring``). Issue 10 moved those models to
``tournaments`` with state-only migrations: the same database tables, every row kept.
"""

from __future__ import annotations

import gzip
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OLD_DB = Path(__file__).parent / "data" / "demo-before-layers.sqlite3.gz"
TABLES = [
    "tournaments_tournament",
    "tournaments_pair",
    "tournaments_player",
    "pairing_round",
    "pairing_table",
    "pairing_seat",
    "scoring_tableevent",
    "scoring_penalty",
    "scoring_auditentry",
]
# Every fact the results depend on, in a stable order.
FACTS = [
    "SELECT table_id, position, token FROM scoring_tableevent ORDER BY table_id, position",
    "SELECT id, pair_id, kind, deal, jcf, reason FROM scoring_penalty ORDER BY id",
    "SELECT id, action, actor, before, after FROM scoring_auditentry ORDER BY id",
    "SELECT id, ns_id, ew_id, start_ns, start_ew, end_kind, entry_status FROM pairing_table"
    " ORDER BY id",
]

ORM_COUNTS = (
    "from tournaments.models import AuditEntry, Round, Seat, Table;"
    "from scoring.models import Penalty, TableEvent;"
    "print(Round.objects.count(), Table.objects.count(), Seat.objects.count(),"
    " TableEvent.objects.count(), Penalty.objects.count(), AuditEntry.objects.count(),"
    " TableEvent.objects.filter(table__round__number=1).count())"
)


def _snapshot(path: Path) -> dict[str, object]:
    with sqlite3.connect(path) as db:
        counts = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}  # noqa: S608
        facts = [db.execute(q).fetchall() for q in FACTS]
    return {"counts": counts, "facts": facts}


def _manage(db: Path, *args: str) -> str:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "1"}
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_demo_database_from_before_the_layers_migrates_with_every_row(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    db.write_bytes(gzip.decompress(OLD_DB.read_bytes()))
    before = _snapshot(db)
    assert before["counts"]["scoring_tableevent"] > 1000  # the demo really has results
    assert before["counts"]["scoring_penalty"] > 0
    assert before["counts"]["scoring_auditentry"] > 0

    _manage(db, "migrate", "--noinput")

    assert _snapshot(db) == before
    # The moved models read the same rows through the ORM, and the standings still compute.
    counts = [int(n) for n in _manage(db, "shell", "-c", ORM_COUNTS).splitlines()[-1].split()]
    c = before["counts"]
    assert counts[:6] == [
        c["pairing_round"],
        c["pairing_table"],
        c["pairing_seat"],
        c["scoring_tableevent"],
        c["scoring_penalty"],
        c["scoring_auditentry"],
    ]
    assert counts[6] > 0
    assert "demo" in _manage(db, "standings", "demo", "--json")
