"""Round generation (issue 27): the next Swiss round loads its entrants and their history once —
the pairs (or the teams) in one query, every earlier table in one — for pairs and teams alike
(``pairing.entrants``), and the count does not grow with the rounds played.

The counts are written down in docs/architecture.md ("Round generation"). The standings after
the previous round come from the cache, warm as in play (the pages computed them when the last
table was confirmed); with the cache cold the cache's own computation adds its queries. As in
tests/web/test_tap_queries.py, the service's ``transaction.atomic()`` runs inside the test's own
transaction: a SAVEPOINT and a RELEASE SAVEPOINT that production does not send.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test.utils import CaptureQueriesContext

from pairing import services as pairing_services
from scoring.cache import cached_standings
from tests.support.team_event import build_team_event
from tests.support.tournament import play_round, play_table
from tournaments.models import Round, Table, Tournament

# The counts (see the module docstring and docs/architecture.md).
SWISS_ROUND = 11  # SAVEPOINT; tournament (locked); the last round; every pair with its unit;
#                   the results version (the standings, cached); every earlier table; INSERT
#                   round, tables, seats, audit entry; RELEASE
TEAM_ROUND = 18  # SAVEPOINT; tournament (locked); the last round; the teams' numbering (teams,
#                  their pairs); the results version; every team with its unit; the earlier
#                  matches' first tables, the byes; the line-ups (pairs, members, line-ups,
#                  teams); INSERT round, tables, seats, audit entry; RELEASE


def reads(captured: CaptureQueriesContext, table: str) -> int:
    """The row reads of ``table`` (not the aggregates a cache version is made of)."""
    return sum(
        q["sql"].startswith("SELECT") and f'FROM "{table}"' in q["sql"] and "COUNT(" not in q["sql"]
        for q in captured.captured_queries
    )


def played(tournament: Tournament, cast: dict[str, Any], rounds: int) -> None:
    """``rounds`` rounds generated, published, played and finished; the standings after the
    last one computed (as the pages do when its last table is confirmed)."""
    organizer = cast["organizer"]
    for _ in range(rounds):
        rnd = pairing_services.generate_round(tournament, organizer)
        rnd = pairing_services.publish_round(rnd, organizer)
        if tournament.rules.event == "teams":
            for table in Table.objects.filter(round=rnd, is_bye=False).order_by("number"):
                play_table(table, ["NS3", "EW1"], cast["referee"], cast["chief"])
        else:
            play_round(rnd, cast["referee"], cast["chief"])
        pairing_services.finish_round(rnd, organizer)
    teams = tournament.rules.event == "teams"
    cached_standings(tournament, after_round=rounds, teams=teams)


@pytest.mark.parametrize("rounds", [1, 3])
def test_a_swiss_round_loads_the_pairs_and_the_earlier_tables_once(
    tournament: Tournament, cast: dict[str, Any], rounds: int, django_assert_num_queries: Any
) -> None:
    played(tournament, cast, rounds)
    with django_assert_num_queries(SWISS_ROUND) as captured:
        rnd = pairing_services.generate_round(tournament, cast["organizer"])
    assert (rnd.number, rnd.status) == (rounds + 1, Round.Status.DRAFT)
    assert rnd.tables.count() == 4
    assert reads(captured, "tournaments_pair") == 1
    assert reads(captured, "pairing_table") == 1


def test_a_team_round_loads_the_teams_and_their_history_once(
    cast: dict[str, Any], django_assert_num_queries: Any
) -> None:
    event = build_team_event(cast["organizer"], cast["chief"], [cast["referee"]])
    played(event, cast, 1)
    with django_assert_num_queries(TEAM_ROUND) as captured:
        rnd = pairing_services.generate_round(event, cast["organizer"])
    assert (rnd.number, rnd.tables.count()) == (2, 12)  # 12 teams: 6 matches, 2 tables each
    team_rows = [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].startswith('SELECT "tournaments_team"."id", "tournaments_team"."tournament_id"')
    ]
    assert len(team_rows) == 1  # every team with its unit, once
    assert reads(captured, "pairing_table") == 1  # the earlier matches' first tables
