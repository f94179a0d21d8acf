"""A team event's rounds in a tournament file (TOURNAMENT_FILE.md "Team events", RULES.md §6),
checked once the rounds are read: every table carries ``match`` k and is table 2k − 1 or 2k;
the two tables of a match seat two teams crossed (team X's pairs ``ns`` at one table and ``ew``
at the other); a pair bye has no place; the team bye is a known team that does not play that
round and has had no bye before; two teams meet at most once.

Pure: the standard library and the file's own modules.
"""

from __future__ import annotations

from .problems import Problems
from .specs import RoundSpec, TableSpec, TeamSpec


def check_team_matches(
    problems: Problems, rounds: tuple[RoundSpec, ...], teams: tuple[TeamSpec, ...]
) -> None:
    team_of = {pair: team.id for team in teams for pair in team.pairs}
    known = {team.id for team in teams}
    met: dict[frozenset[str], int] = {}
    had_bye: dict[str, int] = {}
    for round_spec in rounds:
        number = round_spec.number
        by_match: dict[int, dict[int, TableSpec]] = {}
        playing: set[str] = set()
        for table in round_spec.tables:
            if table.is_bye:
                problems.add("pair_bye_in_team_event", "", {"id": table.bye}, round=number)
                continue
            where = {"round": number, "table": table.number}
            for pair in (table.ns, table.ew):
                if pair not in team_of:
                    problems.add("pair_without_team", "", {"pair": pair}, **where)
                else:
                    playing.add(team_of[pair])
            m = table.match
            if m is None:
                problems.add("missing_key", "", {"key": "match"}, **where)
            elif table.number not in (2 * m - 1, 2 * m):
                problems.add("bad_match_table", "", {"match": m}, **where)
            else:
                by_match.setdefault(m, {})[table.number] = table
        for m, pair_tables in sorted(by_match.items()):
            first, second = pair_tables.get(2 * m - 1), pair_tables.get(2 * m)
            if first is None or second is None:
                table = (first or second).number  # type: ignore[union-attr]
                problems.add("match_one_table", "", {"match": m}, round=number, table=table)
                continue
            x, y = team_of.get(first.ns or 0), team_of.get(first.ew or 0)
            if x is None or y is None:
                continue  # named above
            if x == y or team_of.get(second.ew or 0) != x or team_of.get(second.ns or 0) != y:
                problems.add(
                    "match_not_crossed", "", {"match": m}, round=number, table=first.number
                )
                continue
            key = frozenset((x, y))
            if key in met:
                a, b = sorted(key)
                params = {"a": a, "b": b, "first_round": met[key]}
                problems.add("team_rematch", "", params, round=number, table=first.number)
            met.setdefault(key, number)
        bye = round_spec.bye_team
        if bye is not None:
            if bye not in known:
                problems.add("unknown_team", "", {"id": bye}, round=number)
            elif bye in playing:
                problems.add("bye_team_plays", "", {"id": bye}, round=number)
            elif bye in had_bye:
                params = {"team": bye, "first_round": had_bye[bye]}
                problems.add("team_had_bye", "", params, round=number)
            had_bye.setdefault(bye, number)
