"""A team event for the web tests (issue 13): 12 teams registered from a team sheet through
``reports.registrations`` (the import the organizer uses), units shared by pairs of teams."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook

from reports.registrations import import_team_registrations, parse_team_registrations
from reports.xlsx import TEAM_REGISTRATION_HEADERS
from rules.ruleset import preset_settings
from tests.support.tournament import build_tournament
from tournaments.models import Tournament

SURNAMES = "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜"
UNITS = ("南京", "苏州", "无锡", "常州", "扬州", "镇江")


def team_rows(n: int = 12) -> list[list[Any]]:
    """``n`` teams: every third one has three pairs, two teams per unit."""
    rows: list[list[Any]] = []
    for i in range(n):
        size = 6 if i % 3 == 2 else 4
        players = [f"{SURNAMES[(i * 6 + k) % len(SURNAMES)]}{i + 1}-{k + 1}" for k in range(size)]
        rows.append([i + 1, f"第{i + 1}队", UNITS[i // 2 % len(UNITS)], *players])
    return rows


def team_sheet(
    rows: Sequence[Sequence[Any]], headers: Sequence[str] = TEAM_REGISTRATION_HEADERS
) -> bytes:
    book = Workbook()
    ws = book.active
    ws.title = "团体报名表"
    ws.append(list(headers))
    for row in rows:
        ws.append(list(row))
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def team_settings(**extra: Any) -> dict[str, Any]:
    return {
        **preset_settings("regulation"),
        "event": "teams",
        "rounds": 5,
        "deals_per_round": 2,
        "seed": 20261201,
        **extra,
    }


def build_team_event(
    organizer: Any, chief: Any, referees: Sequence[Any], n_teams: int = 12, slug: str = "team-open"
) -> Tournament:
    tournament = build_tournament(
        organizer, chief, referees, n_pairs=0, slug=slug, settings=team_settings()
    )
    lines = parse_team_registrations(team_sheet(team_rows(n_teams)))
    import_team_registrations(tournament, lines, organizer)
    return tournament
