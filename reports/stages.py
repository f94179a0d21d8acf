"""What ``standings --stage K`` and ``bracket`` print (TOURNAMENT_FILE.md "Stages"), as plain
dicts: a group stage's group tables and a knockout's bracket with its placings. The pages, PDFs
and Excel of the stages read the same functions (STYLE.md: one function yields plain rows).

Reads only: ``scoring.stage_results`` (group standings, knockout matches decided game by game)
and ``pairing.stages`` (placings, the final placings).
"""

from __future__ import annotations

from typing import Any

from pairing.knockout import placings
from pairing.stages import decided, final_placings, knockout_seeds
from reports.fileformat import standings_payload
from rules.events import Side
from scoring.stage_results import KnockoutMatch, group_standings, knockout_matches
from tournaments.models import Tournament


def group_tables(tournament: Tournament, stage: int) -> dict[str, Any]:
    """``{"stage", "groups": [{"group", "rows": [...]}]}``: each group's standings rows as
    ``standings --json`` prints them."""
    groups = []
    for name, rows in group_standings(tournament, stage):
        payload = standings_payload(tournament.slug, 0, rows)
        groups.append({"group": name, "rows": payload["rows"]})
    return {"stage": stage, "groups": groups}


def _match(match: KnockoutMatch) -> dict[str, Any]:
    games: list[list[int]] = []
    if match.series is not None:
        for result in match.series.games:
            games.append([result.level(Side.NS), result.level(Side.EW)])
    item: dict[str, Any] = {"a": match.a, "b": match.b, "winner": match.winner, "games": games}
    if match.slot == 0:
        item["third_place"] = True
    return item


def knockout_stage(tournament: Tournament) -> int | None:
    """The number of the event's knockout stage (the last stage when there is one)."""
    stages = tournament.rules.stage_list
    return len(stages) if stages[-1].kind == "knockout" else None


def bracket(tournament: Tournament, stage: int) -> dict[str, Any]:
    """``{"stage", "rounds": [{"round", "matches": [{"a", "b", "winner", "games"}]}],
    "placings": [{"place", "entrant"}]}`` — ``b`` null for a bye, ``games`` each game's
    final levels [a, b], ``winner`` once the table is confirmed; the third-place match is
    marked ``"third_place": true``. ``placings``: the bracket's places known so far, and once
    the knockout is over every entrant of the event (RULES.md §8 "Final placings")."""
    matches = knockout_matches(tournament, stage)
    rounds = [
        {"round": played[0].round, "matches": [_match(m) for m in played]}
        for played in matches
        if played
    ]
    final = final_placings(tournament)
    if not final:
        seeds = knockout_seeds(tournament, stage)
        final = list(placings([decided(r) for r in matches], seeds))
    return {
        "stage": stage,
        "rounds": rounds,
        "placings": [{"place": place, "entrant": entrant} for place, entrant in final],
    }
