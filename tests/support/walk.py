"""The whole site, for the tests that walk it (issue 29): a tournament of each kind, and every
page of one — the URLconf walk (``tests.support.urls.all_urls``) with real numbers, the
documents and query strings the walk cannot guess.

Used by tests/web/test_cache_down.py (every page with the cache down) and
tests/web/test_production_static.py (every page and the static files it names, with DEBUG=0)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.urls import reverse

from pairing import services as pairing_services
from reports.fileio import import_tournament
from tests.support.team_event import build_team_event
from tests.support.tournament import play_table
from tests.support.urls import all_urls
from tournaments.models import Pair, Round, Table, Team, Tournament

STAGES = Path(__file__).parents[1] / "db" / "data" / "stages"


def first_table(tournament: Tournament) -> Table:
    """The first match table of the tournament's latest round."""
    table = (
        Table.objects.filter(round__tournament=tournament, is_bye=False)
        .order_by("-round__number", "number")
        .first()
    )
    assert table is not None
    return table


def events_of_every_kind(played: Round, cast: dict[str, Any]) -> list[tuple[Tournament, Table]]:
    """The Swiss event ``played`` (round 1 played, round 2 published), a team event with a
    round half played, a knockout-stage event: each with a table of its latest round."""
    teams = build_team_event(cast["organizer"], cast["chief"], [cast["referee"]])
    rnd = pairing_services.publish_round(
        pairing_services.generate_round(teams, cast["organizer"]), cast["organizer"]
    )
    for table in Table.objects.filter(round=rnd, is_bye=False).order_by("number")[:4]:
        play_table(table, ["NS2", "EW1"], cast["referee"], cast["chief"])
    stages = import_tournament(
        json.loads((STAGES / "knockout.json").read_text(encoding="utf-8")), slug="ko"
    )
    return [(t, first_table(t)) for t in (played.tournament, teams, stages)]


def site_pages(tournament: Tournament, table: Table) -> list[str]:
    """Every page of ``tournament`` (the admin's aside), with ``table`` for the table pages."""
    slug = tournament.slug
    urls = [url for name, url in all_urls(slug, table.entry_token) if not name.startswith("admin")]
    rnd = table.round
    urls += [
        reverse("public:standings", args=[slug]) + "?after=1",
        reverse("public:standings", args=[slug]) + "?page=2",
        reverse("public:round", args=[slug, rnd.number]),
        reverse("public:find", args=[slug]) + "?q=1",
        reverse("public:find", args=[slug]) + "?q=zhao",  # the pinyin index
        reverse("public:projector", args=[slug]) + "?show=standings",
        reverse("public:bracket", args=[slug]),
        reverse("public:placings", args=[slug]),
        reverse("referee:round_dashboard", args=[slug, rnd.number]),
        reverse("referee:table", args=[slug, rnd.number, table.number]),
        reverse("reports:document", args=[slug, "standings"]),
        reverse("reports:document", args=[slug, "pairings"]) + f"?round={rnd.number}",
        reverse("reports:document", args=[slug, "scoresheets"]) + f"?round={rnd.number}",
        reverse("reports:stage_document", args=[slug, "bracket"]),
        reverse("reports:export", args=[slug]),
        reverse("tableside:tableside", args=[table.entry_token]),
        "/sw.js",
        "/admin/",
    ]
    pair = Pair.objects.filter(tournament=tournament).order_by("number").first()
    if pair is not None:
        urls.append(reverse("public:pair", args=[slug, pair.number]))
        player = pair.players.first()
        if player is not None:
            urls.append(reverse("public:find", args=[slug]) + f"?q={player.name}")
    for team in Team.objects.filter(tournament=tournament)[:2]:
        urls += [
            reverse("public:team", args=[slug, team.code]),
            reverse("tournaments:lineup", args=[slug, team.code]),
        ]
    return urls
