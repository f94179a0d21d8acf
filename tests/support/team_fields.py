"""Random team events for the team Swiss tests and the benchmark: a tournament file of a team
event played round by round with the engine (RULES.md §6).

``team_event_file`` pairs each round with ``pairing.swiss.pair_round`` on the teams (the inputs
built here from the file so far, independently of ``pairing.services``), seats each match
crossed, and plays every table with random deals through the scoring engine (a few forfeits and
team forfeits). ``team_swiss_pairs`` is the engine's input for the next round, from a parsed
file: what ``pairing.services.team_swiss_input`` must build from the database.
"""

from __future__ import annotations

import random
from typing import Any

from pairing.swiss import SwissOptions, SwissPair, pair_round
from reports.fileformat import (
    TournamentSpec,
    file_team_numbers,
    parse_tournament,
    standings_from_file,
)

TOKENS = ("NS1", "NS2", "NS3", "EW1", "EW2", "EW3")


def team_swiss_pairs(spec: TournamentSpec, number: int) -> list[SwissPair]:
    """The engine's input for round ``number``: active teams by their numbers, ranked by the
    team standings after round ``number - 1``, with their opponents, byes and directions (the
    match's first team sits "NS")."""
    codes, team_of = file_team_numbers(spec)
    number_of = {code: k for k, code in codes.items()}
    _after, rows = standings_from_file(spec, number - 1, teams=True)
    order = {row.pair: k for k, row in enumerate(rows)}
    cf = {row.pair: row.cf for row in rows}
    opponents: dict[int, set[int]] = {k: set() for k in codes}
    ns: dict[int, int] = dict.fromkeys(codes, 0)
    ew: dict[int, int] = dict.fromkeys(codes, 0)
    last: dict[int, str] = {}
    byes: set[int] = set()
    for r in spec.rounds:
        if r.number >= number:
            break
        if r.bye_team is not None:
            byes.add(number_of[r.bye_team])
        for t in r.tables:
            if t.match is None or t.number != 2 * t.match - 1:
                continue
            x, y = team_of[t.ns], team_of[t.ew]  # type: ignore[index]
            opponents[x].add(y)
            opponents[y].add(x)
            ns[x] += 1
            ew[y] += 1
            last[x], last[y] = "NS", "EW"
    units = {k: team.unit for k, team in enumerate(spec.teams, start=1)}
    active = [k for k, team in enumerate(spec.teams, start=1) if team.status == "active"]
    active.sort(key=lambda k: (order.get(k, len(order)), k))
    return [
        SwissPair(
            id=k,
            rank=rank,
            match_points=cf.get(k, 0),
            unit=units[k],
            opponents=frozenset(opponents[k]),
            had_bye=k in byes,
            ns_count=ns[k],
            ew_count=ew[k],
            last_direction=last.get(k),
        )
        for rank, k in enumerate(active, start=1)
    ]


def team_event_file(
    seed: int,
    teams: int,
    rounds: int,
    *,
    units: int = 4,
    method: str = "sum_jcf",
    deals: int = 4,
    planned: int | None = None,
) -> dict[str, Any]:
    """A team event of ``teams`` teams (two pairs each, team ``T{k}``, pairs 2k − 1 and 2k)
    with ``rounds`` finished rounds, paired by the engine and played at random."""
    rng = random.Random(seed)
    unit_ids = [f"U{u}" for u in range(1, units + 1)]
    team_units = [rng.choice([*unit_ids, None]) if units else None for _ in range(teams)]
    data: dict[str, Any] = {
        "format": "guandan-tournament",
        "version": 1,
        "name": f"团体赛 {teams} 队",
        "settings": {
            "event": "teams",
            "deals_per_round": deals,
            "rounds": planned or rounds + 1,
            "seed": seed,
            "team_scoring": method,
        },
        "units": [{"id": u, "name": u} for u in unit_ids],
        "pairs": [
            {"id": p, "players": [f"P{p}a", f"P{p}b"], "unit": team_units[(p - 1) // 2]}
            for p in range(1, 2 * teams + 1)
        ],
        "teams": [
            {
                "id": f"T{k}",
                "name": f"队{k}",
                "unit": team_units[k - 1],
                "pairs": [2 * k - 1, 2 * k],
            }
            for k in range(1, teams + 1)
        ],
        "rounds": [],
        "penalties": [],
    }
    for number in range(1, rounds + 1):
        spec = parse_tournament(data)
        field = team_swiss_pairs(spec, number)
        draw = pair_round(field, number, SwissOptions(), random.Random(seed * 1000 + number))
        tables: list[dict[str, Any]] = []
        for table in draw.tables:
            m, x, y = table.number, table.ns, table.ew
            team_forfeit = rng.random() < 0.03
            for t, ns, ew in ((2 * m - 1, 2 * x - 1, 2 * y), (2 * m, 2 * y - 1, 2 * x)):
                row: dict[str, Any] = {"table": t, "match": m, "ns": ns, "ew": ew}
                if team_forfeit:
                    row["deals"] = []
                    row["end"] = {"forfeit": "ns" if t == 2 * m - 1 else "ew"}
                elif rng.random() < 0.03:
                    row["deals"] = []
                    row["end"] = {"forfeit": rng.choice(["ns", "ew"])}
                else:
                    row["deals"] = [rng.choice(TOKENS) for _ in range(deals)]
                tables.append(row)
        if draw.bye is not None:
            tables.append({"bye_team": f"T{draw.bye}"})
        data["rounds"].append({"number": number, "status": "finished", "tables": tables})
    return data
