"""Every model of the project: tournaments, registrations, rounds and tables, the audit log.

These modules hold facts only. Every write goes through ``tournaments/services.py`` (and the
pairing/scoring services); the models may touch the database through Django only and import the
pure core (``rules``) lazily, to validate a tournament's settings into a ``RuleSet``.

- ``tournament``: the event (``Tournament``) and the referees' table ranges;
- ``registration``: units, pairs and players, teams, line-ups, check-ins;
- ``rounds``: rounds, tables, games and seats; ``Round.objects.counted()`` (and
  ``Table.objects.counted()``) are the rounds that count, published or finished;
- ``audit``: the append-only audit log, and who made each staff login (``StaffAccount``);
- ``throttle``: the attempt counters of ``tournaments.throttle``.

Import the models from here (``from tournaments.models import Pair``): the migrations name
``tournaments.models.new_pair_code``, ``new_checkin_token`` and ``new_entry_token``, which stay
importable from here.
"""

from .audit import AuditEntry, AuditQuerySet, StaffAccount
from .registration import (
    PAIR_CODE_ALPHABET,
    PAIR_CODE_LENGTH,
    CheckIn,
    LineUp,
    Pair,
    Player,
    Team,
    Unit,
    new_checkin_token,
    new_pair_code,
)
from .rounds import Game, Round, RoundQuerySet, Seat, Table, TableQuerySet, new_entry_token
from .throttle import ThrottleCounter
from .tournament import TableAssignment, Tournament

__all__ = [
    "PAIR_CODE_ALPHABET",
    "PAIR_CODE_LENGTH",
    "AuditEntry",
    "AuditQuerySet",
    "CheckIn",
    "Game",
    "LineUp",
    "Pair",
    "Player",
    "Round",
    "RoundQuerySet",
    "Seat",
    "StaffAccount",
    "Table",
    "TableAssignment",
    "TableQuerySet",
    "Team",
    "ThrottleCounter",
    "Tournament",
    "Unit",
    "new_checkin_token",
    "new_entry_token",
    "new_pair_code",
]
