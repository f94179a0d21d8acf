"""Writing a tournament file back (``to_dict``): a ``TournamentSpec`` as the file's decoded JSON,
keys in the order of TOURNAMENT_FILE.md, defaults left out (a start of 2 : 2, a table's default
``entry``, round 1's stage), so that for a file we wrote
``dumps(to_dict(parse_tournament(data)))`` is byte-identical to ``dumps(data)``.

Pure: the standard library, ``rules`` and the pure scoring engine's values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.events import Event
from rules.levels import LOWEST
from scoring.engine import End, Start

from .specs import FORMAT, VERSION, RoundSpec, TableSpec, TeamSpec, TournamentSpec


def plain_number(number: float) -> float | int:
    """Whole numbers as ints, so files and JSON read naturally (2, not 2.0)."""
    number = float(number)
    return int(number) if number.is_integer() else number


def _facts_to_dict(
    data: dict[str, Any], start: Start | None, events: Sequence[Event], end: End | None
) -> dict[str, Any]:
    if start is not None and (start.ns, start.ew) != (LOWEST, LOWEST):
        data["start"] = {"ns": start.ns, "ew": start.ew}
    data["deals"] = [event.token for event in events]
    if end is not None:
        data["end"] = {end.kind: end.side.value.lower()}
    return data


def table_to_dict(table: TableSpec, round_spec: RoundSpec) -> dict[str, Any]:
    if table.is_bye:
        bye: dict[str, Any] = {"bye": table.bye}
        if table.group:
            bye["group"] = table.group
        if table.slot is not None:
            bye["slot"] = table.slot
        return bye
    data: dict[str, Any] = {"table": table.number}
    if table.match is not None:
        data["match"] = table.match
    if table.group:
        data["group"] = table.group
    if table.slot is not None:
        data["slot"] = table.slot
    data["ns"] = table.ns
    data["ew"] = table.ew
    if table.games is not None:
        data["games"] = [_facts_to_dict({}, g.start, g.events, g.end) for g in table.games]
    else:
        _facts_to_dict(data, table.start, table.events, table.end)
    default_entry = "confirmed" if round_spec.finished else "open"
    if table.entry is not None and table.entry != default_entry:
        data["entry"] = table.entry
    return data


def team_to_dict(team: TeamSpec) -> dict[str, Any]:
    item: dict[str, Any] = {"id": team.id, "name": team.name, "unit": team.unit}
    item["pairs"] = list(team.pairs)
    if team.status != "active":
        item["status"] = team.status
    return item


def to_dict(spec: TournamentSpec) -> dict[str, Any]:
    """The tournament file of ``spec`` (key order as in TOURNAMENT_FILE.md)."""
    pairs = []
    for pair in spec.pairs:
        item: dict[str, Any] = {
            "id": pair.id,
            "players": list(pair.players),
            "unit": pair.unit,
            "status": pair.status,
        }
        if pair.seeding is not None:
            item["seeding"] = pair.seeding
        pairs.append(item)
    rounds = []
    within: dict[int, int] = {}  # stage → its rounds so far (the repechage is one of them)
    for round_spec in spec.rounds:
        item = {"number": round_spec.number}
        if round_spec.stage != 1:
            item["stage"] = round_spec.stage
        within[round_spec.stage] = within.get(round_spec.stage, 0) + 1
        if spec.rules.stages and spec.rules.stage(round_spec.stage).is_repechage_round(
            within[round_spec.stage]
        ):
            item["repechage"] = True
        item["status"] = round_spec.status
        if round_spec.seed is not None:
            item["seed"] = round_spec.seed
        item["tables"] = [table_to_dict(t, round_spec) for t in round_spec.tables]
        if round_spec.bye_team is not None:
            item["tables"].append({"bye_team": round_spec.bye_team})
        rounds.append(item)
    penalties = []
    for penalty in spec.penalties:
        item = {}
        if penalty.round is not None:
            item["round"] = penalty.round
        if penalty.table is not None:
            item["table"] = penalty.table
        item["pair"] = penalty.pair
        item["kind"] = penalty.kind
        if penalty.deal is not None:
            item["deal"] = penalty.deal
        if penalty.jcf is not None:
            item["jcf"] = plain_number(penalty.jcf)
        if penalty.reason:
            item["reason"] = penalty.reason
        if penalty.referee:
            item["referee"] = penalty.referee
        penalties.append(item)
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": spec.name,
        "settings": spec.rules.to_dict(),
        "units": [{"id": unit.id, "name": unit.name} for unit in spec.units],
        "pairs": pairs,
        "teams": [team_to_dict(team) for team in spec.teams],
        "rounds": rounds,
        "penalties": penalties,
    }
