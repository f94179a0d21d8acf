"""The parsed tournament file: frozen dataclasses, one per kind of entry of TOURNAMENT_FILE.md,
with the values each field may take and what the database can hold.

The readers (``reports.tournament_file.parse``) build a ``TournamentSpec`` from a valid file,
the serializer (``reports.tournament_file.serialize``) writes it back, and ``reports.fileio``
stores and reads it.

Pure: the standard library, ``rules`` and the pure scoring engine's values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.events import Event
from rules.ruleset import RuleSet
from scoring.engine import End, MatchResult, Start
from scoring.series import Series

FORMAT = "guandan-tournament"
VERSION = 1

PAIR_STATUSES = ("active", "withdrawn", "disqualified")
TEAM_STATUSES = ("active", "withdrawn")
TEAM_SIZES = (2, 3)  # RULES.md §6: 4–6 players, two or three pairs
ROUND_STATUSES = ("draft", "published", "finished")
ENTRY_STATUSES = ("open", "entered", "confirmed")
# TOURNAMENT_FILE.md "Penalties"; ``level_award`` (RULES.md §3 升级调整) is our extension: the
# award itself is an ``adjust:`` event in the table's deals, the penalty is the referee's record.
PENALTY_KINDS = (
    "warning",
    "violation",
    "foul",
    "penalty_loss",
    "disqualification",
    "deduction",
    "level_award",
)
END_KEYS = ("forfeit", "penalty_loss", "late_sheet")  # TOURNAMENT_FILE.md `end`

# What the database can hold (tournaments/models.py field lengths).
MAX_NAME = 200
MAX_UNIT_ID = 32
MAX_UNIT_NAME = 100
MAX_PLAYER_NAME = 100
MAX_REFEREE = 100
MAX_JCF = 9999.99
MAX_GROUP = 8  # tournaments.models.Table.group


@dataclass(frozen=True, slots=True)
class UnitSpec:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class PairSpec:
    id: int
    players: tuple[str, str]
    unit: str | None
    status: str = "active"
    seeding: int | None = None


@dataclass(frozen=True, slots=True)
class TeamSpec:
    """A team (TOURNAMENT_FILE.md "Team events"); ``status`` is our extension, written only
    when not ``active`` (a withdrawn team is not paired from then on)."""

    id: str
    name: str
    pairs: tuple[int, ...]
    unit: str | None = None
    status: str = "active"


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game of a best-of-n knockout match (TOURNAMENT_FILE.md "Stages": ``games``)."""

    events: tuple[Event, ...] = ()
    start: Start | None = None
    end: End | None = None
    # Read, never written: time called on equal levels before the last deal, the extra deal
    # (``scoring.series.score_game``); the file has no mark for it.
    time_deals: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A match (``ns`` against ``ew``) or a bye (``bye`` set, ``number``/``ns``/``ew`` None).

    ``start`` is None when the file gives none (both sides at 2); ``entry`` None means the
    default for the round (see ``RoundSpec.entry_of``). ``result`` is the engine's score of the
    events (None for a bye or if the table could not be scored).
    """

    number: int | None
    ns: int | None
    ew: int | None
    events: tuple[Event, ...] = ()
    start: Start | None = None
    end: End | None = None
    bye: int | None = None
    match: int | None = None
    entry: str | None = None
    result: MatchResult | None = field(default=None, compare=False, repr=False)
    group: str = ""  # a round-robin table's group (RULES.md §8)
    slot: int | None = None  # a knockout table's bracket slot (0: the third-place match)
    # A best-of-n knockout table's games (``events``/``start``/``end`` are game 1's); None for
    # every other table.
    games: tuple[GameSpec, ...] | None = None
    series: Series | None = field(default=None, compare=False, repr=False)
    time_deals: int | None = field(default=None, compare=False)  # game 1's, as ``GameSpec``

    @property
    def is_bye(self) -> bool:
        return self.bye is not None

    @property
    def pairs(self) -> tuple[int, ...]:
        if self.bye is not None:
            return (self.bye,)
        return (self.ns, self.ew)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """A round; ``bye_team`` the team id of a team event's bye (``{"bye_team": id}`` among
    the tables)."""

    number: int
    status: str
    tables: tuple[TableSpec, ...]
    seed: int | None = None
    bye_team: str | None = None
    stage: int = 1  # RULES.md §8: the stage the round belongs to (1-based)

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def entry_of(self, table: TableSpec) -> str:
        """The table's entry status: as given, else confirmed in a finished round, else open."""
        if table.entry is not None:
            return table.entry
        return "confirmed" if self.finished else "open"


@dataclass(frozen=True, slots=True)
class PenaltySpec:
    pair: int
    kind: str
    round: int | None = None
    table: int | None = None
    deal: int | None = None
    jcf: float | None = None
    reason: str = ""
    referee: str = ""


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    name: str
    rules: RuleSet
    units: tuple[UnitSpec, ...] = ()
    pairs: tuple[PairSpec, ...] = ()
    teams: tuple[TeamSpec, ...] = ()
    rounds: tuple[RoundSpec, ...] = ()
    penalties: tuple[PenaltySpec, ...] = ()
