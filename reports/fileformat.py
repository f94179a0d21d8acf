"""The tournament file (TOURNAMENT_FILE.md): parse, validate and serialize — pure, no Django.

``parse_tournament(data)`` turns the decoded JSON of a tournament file into frozen dataclasses
(``TournamentSpec``) or raises ``TournamentFileError`` listing **every** problem found, each with
a stable ``code``, its ``params`` and where it is (round, table, deal/event, pair, penalty, key
path). ``to_dict(spec)`` gives the file back, so that for a file we wrote
``dumps(to_dict(parse_tournament(data)))`` is byte-identical to ``dumps(data)``.

The Django side (``reports/fileio.py``) writes a validated ``TournamentSpec`` to the database
and reads it back; ``tournaments/messages.py`` turns problem codes into translated sentences.
``standings_from_file`` computes the standings straight from a file with the pure core (the
golden tests and the benchmark compare the database against it).

This module is the file's public face: the work is done in ``reports.tournament_file``, one
module per seam (the problem collector, the specs, the JSON text, each section's reader, the
serializer, the standings); every name the project imports from here is re-exported.

Extensions we accept and write beyond TOURNAMENT_FILE.md (only when they differ from the default,
so files without them round-trip unchanged): a pair's ``seeding`` (seeding number for round 1), a
round's ``seed`` (the seed its draw used) and a table's ``entry`` (``open``/``entered``/
``confirmed``; default ``confirmed`` in a finished round, ``open`` otherwise).
"""

from __future__ import annotations

from reports.tournament_file.entrants import PAIR_KEYS, TEAM_KEYS, UNIT_KEYS
from reports.tournament_file.knockout import GAME_KEYS
from reports.tournament_file.parse import TOP_KEYS, check_tournament, parse_tournament
from reports.tournament_file.penalties import PENALTY_KEYS
from reports.tournament_file.problems import FileProblem, TournamentFileError
from reports.tournament_file.rounds import BYE_TEAM_KEYS, ROUND_KEYS
from reports.tournament_file.serialize import plain_number, table_to_dict, team_to_dict, to_dict
from reports.tournament_file.specs import (
    END_KEYS,
    ENTRY_STATUSES,
    FORMAT,
    MAX_GROUP,
    MAX_JCF,
    MAX_NAME,
    MAX_PLAYER_NAME,
    MAX_REFEREE,
    MAX_UNIT_ID,
    MAX_UNIT_NAME,
    PAIR_STATUSES,
    PENALTY_KINDS,
    ROUND_STATUSES,
    TEAM_SIZES,
    TEAM_STATUSES,
    VERSION,
    GameSpec,
    PairSpec,
    PenaltySpec,
    RoundSpec,
    TableSpec,
    TeamSpec,
    TournamentSpec,
    UnitSpec,
)
from reports.tournament_file.standings import (
    STANDINGS_FIELDS,
    counts,
    file_outcomes,
    file_team_numbers,
    last_finished_round,
    standings_from_file,
    standings_payload,
)
from reports.tournament_file.tables import BYE_KEYS, TABLE_KEYS
from reports.tournament_file.text import dumps, load_json

__all__ = [
    "BYE_KEYS",
    "BYE_TEAM_KEYS",
    "END_KEYS",
    "ENTRY_STATUSES",
    "FORMAT",
    "GAME_KEYS",
    "MAX_GROUP",
    "MAX_JCF",
    "MAX_NAME",
    "MAX_PLAYER_NAME",
    "MAX_REFEREE",
    "MAX_UNIT_ID",
    "MAX_UNIT_NAME",
    "PAIR_KEYS",
    "PAIR_STATUSES",
    "PENALTY_KEYS",
    "PENALTY_KINDS",
    "ROUND_KEYS",
    "ROUND_STATUSES",
    "STANDINGS_FIELDS",
    "TABLE_KEYS",
    "TEAM_KEYS",
    "TEAM_SIZES",
    "TEAM_STATUSES",
    "TOP_KEYS",
    "UNIT_KEYS",
    "VERSION",
    "FileProblem",
    "GameSpec",
    "PairSpec",
    "PenaltySpec",
    "RoundSpec",
    "TableSpec",
    "TeamSpec",
    "TournamentFileError",
    "TournamentSpec",
    "UnitSpec",
    "check_tournament",
    "counts",
    "dumps",
    "file_outcomes",
    "file_team_numbers",
    "last_finished_round",
    "load_json",
    "parse_tournament",
    "plain_number",
    "standings_from_file",
    "standings_payload",
    "table_to_dict",
    "team_to_dict",
    "to_dict",
]
