"""The entrants' sections of a tournament file (TOURNAMENT_FILE.md "Shape", "Team events"):
``units``, ``pairs`` and ``teams``, each read into its specs with every problem collected.

Pure: the standard library and the file's own modules.
"""

from __future__ import annotations

from typing import Any

from rules.text import normalise_name

from .problems import Problems
from .specs import (
    MAX_PLAYER_NAME,
    MAX_UNIT_ID,
    MAX_UNIT_NAME,
    PAIR_STATUSES,
    TEAM_SIZES,
    TEAM_STATUSES,
    PairSpec,
    TeamSpec,
    UnitSpec,
)

UNIT_KEYS = ("id", "name")
PAIR_KEYS = ("id", "players", "unit", "status", "seeding")
TEAM_KEYS = ("id", "name", "unit", "pairs", "status")


def read_units(problems: Problems, data: dict[str, Any]) -> tuple[UnitSpec, ...]:
    units: list[UnitSpec] = []
    seen: set[str] = set()
    for index, raw in problems.list_of_objects(data, "units"):
        path = f"units[{index}]"
        problems.keys(raw, UNIT_KEYS, path)
        unit_id = problems.text(raw.get("id"), f"{path}.id", MAX_UNIT_ID)
        where = {"unit": unit_id} if unit_id else {}
        name = problems.text(raw.get("name", ""), f"{path}.name", MAX_UNIT_NAME, **where)
        if unit_id in seen:
            problems.add("duplicate_unit", f"{path}.id", {"id": unit_id}, unit=unit_id)
        elif unit_id:
            seen.add(unit_id)
            units.append(UnitSpec(unit_id, name))
    return tuple(units)


def read_pairs(
    problems: Problems, data: dict[str, Any], unit_ids: set[str]
) -> tuple[PairSpec, ...]:
    pairs: list[PairSpec] = []
    seen: set[int] = set()
    for index, raw in problems.list_of_objects(data, "pairs"):
        path = f"pairs[{index}]"
        pair_id = problems.positive(raw.get("id"), f"{path}.id")
        where = {"pair": pair_id} if pair_id is not None else {}
        problems.keys(raw, PAIR_KEYS, path, **where)
        players: tuple[str, str] = ("", "")
        raw_players = raw.get("players")
        if problems.expect(raw_players, "list", f"{path}.players", **where):
            if len(raw_players) != 2:
                problems.add(
                    "players_not_two", f"{path}.players", {"count": len(raw_players)}, **where
                )
            else:
                # A player's name as the registration pages keep it (NFKC, one space between
                # words: ``rules.text.normalise_name``); what cannot be stored is refused.
                names = [
                    normalise_name(
                        problems.text(name, f"{path}.players[{k}]", MAX_PLAYER_NAME, **where)
                    )
                    for k, name in enumerate(raw_players)
                ]
                players = (names[0], names[1])
        unit = raw.get("unit")
        if unit is not None:
            if problems.expect(unit, "string", f"{path}.unit", **where) and unit not in unit_ids:
                problems.add("unknown_unit", f"{path}.unit", {"id": unit}, **where)
        status = raw.get("status", "active")
        if status not in PAIR_STATUSES:
            problems.add(
                "not_one_of",
                f"{path}.status",
                {"value": status, "options": PAIR_STATUSES},
                **where,
            )
        seeding = raw.get("seeding")
        if seeding is not None:
            seeding = problems.positive(seeding, f"{path}.seeding", **where)
        if pair_id is None:
            continue
        if pair_id in seen:
            problems.add("duplicate_pair", f"{path}.id", {"id": pair_id}, pair=pair_id)
            continue
        seen.add(pair_id)
        pairs.append(PairSpec(pair_id, players, unit, status, seeding))
    return tuple(pairs)


def read_teams(
    problems: Problems, data: dict[str, Any], pair_ids: set[int], unit_ids: set[str]
) -> tuple[TeamSpec, ...]:
    teams: list[TeamSpec] = []
    seen: set[str] = set()
    team_of: dict[int, str] = {}
    for index, raw in problems.list_of_objects(data, "teams"):
        path = f"teams[{index}]"
        team_id = problems.text(raw.get("id"), f"{path}.id", MAX_UNIT_ID)
        where = {"team": team_id} if team_id else {}
        problems.keys(raw, TEAM_KEYS, path, **where)
        name = problems.text(raw.get("name", ""), f"{path}.name", MAX_UNIT_NAME, **where)
        unit = raw.get("unit")
        if unit is not None and problems.expect(unit, "string", f"{path}.unit", **where):
            if unit not in unit_ids:
                problems.add("unknown_unit", f"{path}.unit", {"id": unit}, **where)
        status = raw.get("status", "active")
        if status not in TEAM_STATUSES:
            problems.add(
                "not_one_of",
                f"{path}.status",
                {"value": status, "options": TEAM_STATUSES},
                **where,
            )
        members: list[int] = []
        raw_pairs = raw.get("pairs", [])
        if problems.expect(raw_pairs, "list", f"{path}.pairs", **where):
            for k, pair in enumerate(raw_pairs):
                at = f"{path}.pairs[{k}]"
                if not problems.expect(pair, "integer", at, **where):
                    continue
                if pair not in pair_ids:
                    problems.add("unknown_pair", at, {"id": pair}, **where)
                elif pair in team_of:
                    problems.add(
                        "pair_in_two_teams", at, {"id": pair, "other": team_of[pair]}, **where
                    )
                else:
                    team_of[pair] = team_id
                    members.append(pair)
            if len(raw_pairs) not in TEAM_SIZES:
                problems.add("team_size", f"{path}.pairs", {"count": len(raw_pairs)}, **where)
        if team_id in seen:
            problems.add("duplicate_team", f"{path}.id", {"id": team_id}, team=team_id)
        elif team_id:
            seen.add(team_id)
            teams.append(TeamSpec(team_id, name, tuple(members), unit, status))
    return tuple(teams)
