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

May import: the standard library, ``rules`` and the pure ``scoring.engine``/``scoring.standings``.

Extensions we accept and write beyond TOURNAMENT_FILE.md (only when they differ from the default,
so files without them round-trip unchanged): a pair's ``seeding`` (seeding number for round 1), a
round's ``seed`` (the seed its draw used) and a table's ``entry`` (``open``/``entered``/
``confirmed``; default ``confirmed`` in a finished round, ``open`` otherwise).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Any

from rules.errors import GuandanError, RuleError, RuleSetError, ScoringError
from rules.events import Event, Side, parse_event
from rules.levels import ACE, LOWEST
from rules.limits import BIGINT_MAX, INT_MAX
from rules.ruleset import RuleSet
from scoring.engine import End, MatchResult, Start, bye_outcome, match_outcomes, score_match
from scoring.series import Series, decide_series, game_winner, time_call_of_closed_game
from scoring.standings import Deduction, Outcome, StandingRow, compute_standings
from scoring.teams import team_deductions, team_outcomes

FORMAT = "guandan-tournament"
VERSION = 1

TOP_KEYS = (
    "format",
    "version",
    "name",
    "settings",
    "units",
    "pairs",
    "teams",
    "rounds",
    "penalties",
)
UNIT_KEYS = ("id", "name")
PAIR_KEYS = ("id", "players", "unit", "status", "seeding")
TEAM_KEYS = ("id", "name", "unit", "pairs", "status")
ROUND_KEYS = ("number", "stage", "repechage", "status", "seed", "tables")
TABLE_KEYS = (
    "table",
    "match",
    "group",
    "slot",
    "ns",
    "ew",
    "start",
    "deals",
    "end",
    "games",
    "entry",
)
BYE_KEYS = ("bye", "group", "slot")
BYE_TEAM_KEYS = ("bye_team",)
GAME_KEYS = ("start", "deals", "end")  # one game of a best-of-n knockout match (RULES.md §8)
MAX_GROUP = 8  # tournaments.models.Table.group
PENALTY_KEYS = ("round", "table", "pair", "kind", "deal", "jcf", "reason", "referee")

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


# --------------------------------------------------------------------------------------------
# Problems


@dataclass(frozen=True)
class FileProblem:
    """One thing wrong with a tournament file: a stable ``code``, its ``params`` and where it is.

    ``round``/``table`` are the file's numbers, ``deal`` the 1-based deal number at the table,
    ``event`` the 1-based position in the table's ``deals`` list, ``penalty`` the 1-based index in
    ``penalties``, ``path`` the JSON key path (``rounds[2].tables[0].deals[4]``, 0-based indexes).
    """

    code: str
    params: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    round: int | None = None
    table: int | None = None
    deal: int | None = None
    event: int | None = None
    pair: int | None = None
    unit: str | None = None
    team: str | None = None
    penalty: int | None = None
    setting: str | None = None

    def __str__(self) -> str:
        where = [
            f"{name}={value}"
            for name in ("round", "table", "deal", "event", "pair", "unit", "team", "penalty")
            if (value := getattr(self, name)) is not None
        ]
        detail = ", ".join(f"{key}={value!r}" for key, value in self.params.items())
        head = " ".join(where) or self.path or "file"
        return f"{head}: {self.code}" + (f" ({detail})" if detail else "")


class TournamentFileError(GuandanError, ValueError):
    """The file cannot be imported; ``problems`` lists every problem (never just the first)."""

    def __init__(self, problems: Sequence[FileProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("invalid_file", count=len(self.problems))

    def summary(self) -> str:
        return "; ".join(str(p) for p in self.problems[:20])


# --------------------------------------------------------------------------------------------
# The parsed file


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
    # (``scoring.series.time_call_of_closed_game``); the file has no mark for it.
    time_deals: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A match (``ns`` against ``ew``) or a bye (``bye`` set, ``number``/``ns``/``ew`` None).

    ``start`` is None when the file gives none (both sides at 2); ``entry`` None means the
    default for the round (see the module docstring). ``result`` is the engine's score of the
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


# --------------------------------------------------------------------------------------------
# Small helpers


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def plain_number(number: float) -> float | int:
    """Whole numbers as ints, so files and JSON read naturally (2, not 2.0)."""
    number = float(number)
    return int(number) if number.is_integer() else number


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _side(value: Any) -> Side | None:
    if isinstance(value, str) and value.upper() in ("NS", "EW") and value == value.lower():
        return Side(value.upper())
    return None


class _NotFinite(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 overflows to infinity
        raise _NotFinite(text)
    return value


def _no_constant(text: str) -> float:
    raise _NotFinite(text)  # NaN, Infinity, -Infinity: not JSON (RFC 8259), json accepts them


def load_json(text: str | bytes) -> Any:
    """Decode a file's text; malformed JSON becomes a ``TournamentFileError`` with the place.

    Stricter than ``json.loads``: ``NaN``/``Infinity`` and numbers too large for a float are
    refused (they could not be written back as JSON), and so is absurdly deep nesting.
    """
    try:
        return json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except UnicodeDecodeError as error:
        problem = FileProblem("not_utf8", {"position": error.start + 1})
        raise TournamentFileError([problem]) from None
    except json.JSONDecodeError as error:
        params = {"line": error.lineno, "column": error.colno, "detail": error.msg}
        raise TournamentFileError([FileProblem("malformed_json", params)]) from None
    except _NotFinite as error:
        raise TournamentFileError([FileProblem("not_finite", {"value": error.text})]) from None
    except RecursionError:
        raise TournamentFileError([FileProblem("too_deep")]) from None


def dumps(data: Mapping[str, Any]) -> str:
    """The canonical text of a tournament file (the golden files are written this way)."""
    return json.dumps(data, ensure_ascii=False, indent=1)


# --------------------------------------------------------------------------------------------
# Parsing and validation


class _Parser:
    """Walks the decoded JSON once, collecting every problem with its location."""

    def __init__(self) -> None:
        self.problems: list[FileProblem] = []
        self.stage = 1  # the stage of the round being read (RULES.md §8)
        self.rules_seen: RuleSet | None = None  # the settings, once read

    def add(
        self, code: str, path: str = "", params: dict[str, Any] | None = None, **where: Any
    ) -> None:
        self.problems.append(FileProblem(code, dict(params or {}), path, **where))

    def keys(self, obj: dict[str, Any], allowed: Iterable[str], path: str, **where: Any) -> None:
        allowed = set(allowed)
        for key in obj:
            if key not in allowed:
                self.add(
                    "unknown_key", f"{path}.{key}" if path else str(key), {"key": key}, **where
                )

    def expect(self, value: Any, kind: str, path: str, **where: Any) -> bool:
        """Type check: ``kind`` is object/list/string/integer/number."""
        ok = {
            "object": isinstance(value, dict),
            "list": isinstance(value, list),
            "string": isinstance(value, str),
            "integer": _is_int(value),
            "number": _is_number(value),
        }[kind]
        if not ok:
            self.add("wrong_type", path, {"expected": kind, "found": _type_name(value)}, **where)
        return ok

    def text(self, value: Any, path: str, limit: int, required: bool = True, **where: Any) -> str:
        if not self.expect(value, "string", path, **where):
            return ""
        if required and not value.strip():
            self.add("empty_text", path, **where)
        elif len(value) > limit:
            self.add("text_too_long", path, {"limit": limit, "length": len(value)}, **where)
        return value

    def positive(self, value: Any, path: str, **where: Any) -> int | None:
        if not self.expect(value, "integer", path, **where):
            return None
        if value < 1:
            self.add("not_positive", path, {"value": value}, **where)
            return None
        if value > INT_MAX:  # what the integer columns hold (rules.limits)
            self.add("out_of_range", path, {"value": value, "min": 1, "max": INT_MAX}, **where)
            return None
        return value

    def list_of_objects(self, data: dict[str, Any], key: str) -> list[tuple[int, dict]]:
        value = data.get(key, [])
        if not self.expect(value, "list", key):
            return []
        items = []
        for index, item in enumerate(value):
            if self.expect(item, "object", f"{key}[{index}]"):
                items.append((index, item))
        return items

    # -- top level ---------------------------------------------------------------------------

    def parse(self, data: Any) -> TournamentSpec | None:
        if not isinstance(data, dict):
            self.add("not_an_object", "", {"found": _type_name(data)})
            return None
        self.keys(data, TOP_KEYS, "")
        if "format" not in data:
            self.add("missing_key", "format", {"key": "format"})
        elif data["format"] != FORMAT:
            self.add("wrong_format", "format", {"value": data["format"], "expected": FORMAT})
        if "version" not in data:
            self.add("missing_key", "version", {"key": "version"})
        elif not _is_int(data["version"]) or data["version"] != VERSION:
            self.add("wrong_version", "version", {"value": data["version"], "expected": VERSION})
        name = ""
        if "name" not in data:
            self.add("missing_key", "name", {"key": "name"})
        else:
            name = self.text(data["name"], "name", MAX_NAME)

        rules = self.settings(data.get("settings", {}))
        self.rules_seen = rules
        units = self.units(data)
        unit_ids = {unit.id for unit in units}
        pairs = self.pairs(data, unit_ids)
        pair_ids = {pair.id for pair in pairs}
        teams = self.teams(data, pair_ids, unit_ids)
        rounds = self.rounds(data, pair_ids, rules)
        if rules is not None and rules.event == "teams":
            self.team_matches(rounds, teams)
        penalties = self.penalties(data, pair_ids, rounds)
        if self.problems or rules is None:
            return None
        return TournamentSpec(name, rules, units, pairs, teams, rounds, penalties)

    def settings(self, raw: Any) -> RuleSet | None:
        if not self.expect(raw, "object", "settings"):
            return None
        try:
            return RuleSet.from_dict(raw)
        except RuleSetError as error:
            for problem in error.problems:
                code = "unknown_key" if problem.code == "unknown_setting" else problem.code
                params = dict(problem.params)
                if code == "unknown_key":
                    params.setdefault("key", problem.setting)
                self.add(code, f"settings.{problem.setting}", params, setting=problem.setting)
            return None

    def units(self, data: dict[str, Any]) -> tuple[UnitSpec, ...]:
        units: list[UnitSpec] = []
        seen: set[str] = set()
        for index, raw in self.list_of_objects(data, "units"):
            path = f"units[{index}]"
            self.keys(raw, UNIT_KEYS, path)
            unit_id = self.text(raw.get("id"), f"{path}.id", MAX_UNIT_ID)
            where = {"unit": unit_id} if unit_id else {}
            name = self.text(raw.get("name", ""), f"{path}.name", MAX_UNIT_NAME, **where)
            if unit_id in seen:
                self.add("duplicate_unit", f"{path}.id", {"id": unit_id}, unit=unit_id)
            elif unit_id:
                seen.add(unit_id)
                units.append(UnitSpec(unit_id, name))
        return tuple(units)

    def pairs(self, data: dict[str, Any], unit_ids: set[str]) -> tuple[PairSpec, ...]:
        pairs: list[PairSpec] = []
        seen: set[int] = set()
        for index, raw in self.list_of_objects(data, "pairs"):
            path = f"pairs[{index}]"
            pair_id = self.positive(raw.get("id"), f"{path}.id")
            where = {"pair": pair_id} if pair_id is not None else {}
            self.keys(raw, PAIR_KEYS, path, **where)
            players: tuple[str, str] = ("", "")
            raw_players = raw.get("players")
            if self.expect(raw_players, "list", f"{path}.players", **where):
                if len(raw_players) != 2:
                    self.add(
                        "players_not_two", f"{path}.players", {"count": len(raw_players)}, **where
                    )
                else:
                    names = [
                        self.text(name, f"{path}.players[{k}]", MAX_PLAYER_NAME, **where)
                        for k, name in enumerate(raw_players)
                    ]
                    players = (names[0], names[1])
            unit = raw.get("unit")
            if unit is not None:
                if self.expect(unit, "string", f"{path}.unit", **where) and unit not in unit_ids:
                    self.add("unknown_unit", f"{path}.unit", {"id": unit}, **where)
            status = raw.get("status", "active")
            if status not in PAIR_STATUSES:
                self.add(
                    "not_one_of",
                    f"{path}.status",
                    {"value": status, "options": PAIR_STATUSES},
                    **where,
                )
            seeding = raw.get("seeding")
            if seeding is not None:
                seeding = self.positive(seeding, f"{path}.seeding", **where)
            if pair_id is None:
                continue
            if pair_id in seen:
                self.add("duplicate_pair", f"{path}.id", {"id": pair_id}, pair=pair_id)
                continue
            seen.add(pair_id)
            pairs.append(PairSpec(pair_id, players, unit, status, seeding))
        return tuple(pairs)

    def teams(
        self, data: dict[str, Any], pair_ids: set[int], unit_ids: set[str]
    ) -> tuple[TeamSpec, ...]:
        teams: list[TeamSpec] = []
        seen: set[str] = set()
        team_of: dict[int, str] = {}
        for index, raw in self.list_of_objects(data, "teams"):
            path = f"teams[{index}]"
            team_id = self.text(raw.get("id"), f"{path}.id", MAX_UNIT_ID)
            where = {"team": team_id} if team_id else {}
            self.keys(raw, TEAM_KEYS, path, **where)
            name = self.text(raw.get("name", ""), f"{path}.name", MAX_UNIT_NAME, **where)
            unit = raw.get("unit")
            if unit is not None and self.expect(unit, "string", f"{path}.unit", **where):
                if unit not in unit_ids:
                    self.add("unknown_unit", f"{path}.unit", {"id": unit}, **where)
            status = raw.get("status", "active")
            if status not in TEAM_STATUSES:
                self.add(
                    "not_one_of",
                    f"{path}.status",
                    {"value": status, "options": TEAM_STATUSES},
                    **where,
                )
            members: list[int] = []
            raw_pairs = raw.get("pairs", [])
            if self.expect(raw_pairs, "list", f"{path}.pairs", **where):
                for k, pair in enumerate(raw_pairs):
                    at = f"{path}.pairs[{k}]"
                    if not self.expect(pair, "integer", at, **where):
                        continue
                    if pair not in pair_ids:
                        self.add("unknown_pair", at, {"id": pair}, **where)
                    elif pair in team_of:
                        self.add(
                            "pair_in_two_teams", at, {"id": pair, "other": team_of[pair]}, **where
                        )
                    else:
                        team_of[pair] = team_id
                        members.append(pair)
                if len(raw_pairs) not in TEAM_SIZES:
                    self.add("team_size", f"{path}.pairs", {"count": len(raw_pairs)}, **where)
            if team_id in seen:
                self.add("duplicate_team", f"{path}.id", {"id": team_id}, team=team_id)
            elif team_id:
                seen.add(team_id)
                teams.append(TeamSpec(team_id, name, tuple(members), unit, status))
        return tuple(teams)

    # -- rounds ------------------------------------------------------------------------------

    def rounds(
        self, data: dict[str, Any], pair_ids: set[int], rules: RuleSet | None
    ) -> tuple[RoundSpec, ...]:
        rounds: list[RoundSpec] = []
        met: dict[frozenset[int], int] = {}  # pairs who met → the round they met in
        unfinished: int | None = None
        last_stage = 1
        within: dict[int, int] = {}  # stage → rounds of it read so far
        for index, raw in self.list_of_objects(data, "rounds"):
            path = f"rounds[{index}]"
            number = raw.get("number")
            if not _is_int(number):
                self.expect(number, "integer", f"{path}.number")
                continue
            where = {"round": number}
            self.keys(raw, ROUND_KEYS, path, **where)
            if number != index + 1:
                self.add(
                    "round_out_of_order",
                    f"{path}.number",
                    {"value": number, "expected": index + 1},
                    **where,
                )
            status = raw.get("status")
            if status not in ROUND_STATUSES:
                self.add(
                    "not_one_of",
                    f"{path}.status",
                    {"value": status, "options": ROUND_STATUSES},
                    **where,
                )
                status = "finished"
            if unfinished is not None:
                # Rounds are played one after another: only the last may still be open.
                self.add(
                    "round_after_unfinished", f"{path}.number", {"unfinished": unfinished}, **where
                )
            if status != "finished":
                unfinished = number
            seed = raw.get("seed")
            if seed is not None and not self.expect(seed, "integer", f"{path}.seed", **where):
                seed = None
            elif seed is not None and not -BIGINT_MAX <= seed <= BIGINT_MAX:
                bounds = {"value": seed, "min": -BIGINT_MAX, "max": BIGINT_MAX}
                self.add("out_of_range", f"{path}.seed", bounds, **where)
                seed = None
            stage = self.round_stage(raw, path, last_stage, rules, where)
            if stage != last_stage:
                met = {}  # RULES.md §8: pairs may meet again in a later stage, once in each
                last_stage = stage
            within[stage] = within.get(stage, 0) + 1
            self.round_repechage(raw, path, stage, within[stage], rules, where)
            self.stage = stage
            tables = self.tables(raw, path, number, status, pair_ids, rules, met)
            raw_tables = raw.get("tables")  # a wrong type is named by ``self.tables``
            bye_teams = [
                (k, t["bye_team"])
                for k, t in enumerate(raw_tables if isinstance(raw_tables, list) else ())
                if isinstance(t, dict) and "bye_team" in t
            ]
            bye_team = None
            for k, (position, value) in enumerate(bye_teams):
                at = f"{path}.tables[{position}]"
                self.keys(raw["tables"][position], BYE_TEAM_KEYS, at, **where)
                if k:
                    self.add("two_team_byes", f"{at}.bye_team", **where)
                elif self.expect(value, "string", f"{at}.bye_team", **where):
                    bye_team = value
            rounds.append(RoundSpec(number, status, tables, seed, bye_team=bye_team, stage=stage))
        return tuple(rounds)

    def round_repechage(
        self,
        raw: dict[str, Any],
        path: str,
        stage: int,
        index: int,
        rules: RuleSet | None,
        where: dict[str, Any],
    ) -> None:
        """A round's ``repechage`` mark (our extension): written on a knockout stage's
        repechage round (its round ``repechage`` + 1); the settings decide which round that is,
        so a missing mark is read as given, a wrong one refused."""
        if "repechage" not in raw:
            return
        expected = rules is not None and rules.stage(stage).is_repechage_round(index)
        if raw["repechage"] is not True or not expected:
            self.add("not_repechage_round", f"{path}.repechage", {"round": index}, **where)

    def round_stage(
        self,
        raw: dict[str, Any],
        path: str,
        last: int,
        rules: RuleSet | None,
        where: dict[str, Any],
    ) -> int:
        """A round's ``stage`` (default 1): a stage of the settings, never before the last."""
        stage = raw.get("stage", 1)
        count = len(rules.stage_list) if rules is not None else INT_MAX
        if not _is_int(stage) or not 1 <= stage <= count:
            bounds = {"value": stage, "min": 1, "max": count}
            self.add("out_of_range", f"{path}.stage", bounds, **where)
            return last
        if stage < last:
            self.add("stage_out_of_order", f"{path}.stage", {"value": stage, "last": last}, **where)
            return last
        return int(stage)

    def tables(
        self,
        raw_round: dict[str, Any],
        path: str,
        number: int,
        status: str,
        pair_ids: set[int],
        rules: RuleSet | None,
        met: dict[frozenset[int], int],
    ) -> tuple[TableSpec, ...]:
        raw_tables = raw_round.get("tables")
        if raw_tables is None:
            self.add("missing_key", f"{path}.tables", {"key": "tables"}, round=number)
            return ()
        if not self.expect(raw_tables, "list", f"{path}.tables", round=number):
            return ()
        tables: list[TableSpec] = []
        seated: dict[int, int | None] = {}  # pair → table number (None: the bye)
        numbers: set[int] = set()
        meetings: list[tuple[frozenset[int], int, int]] = []
        for index, raw in enumerate(raw_tables):
            at = f"{path}.tables[{index}]"
            if not self.expect(raw, "object", at, round=number):
                continue
            if "bye_team" in raw:
                continue  # the round's team bye (``rounds``)
            if "bye" in raw:
                table = self.bye(raw, at, number, pair_ids, seated)
            else:
                table = self.match(raw, at, number, status, pair_ids, rules, seated, numbers)
                if table is not None and table.ns is not None and table.ew is not None:
                    meetings.append((frozenset((table.ns, table.ew)), table.number or 0, index))
            if table is not None:
                tables.append(table)
        # TOURNAMENT_FILE.md: two pairs meet at most once (a forfeit counts as the meeting).
        for key, table_number, index in meetings:
            if len(key) != 2:
                continue
            if key in met:
                a, b = sorted(key)
                self.add(
                    "rematch",
                    f"{path}.tables[{index}]",
                    {"a": a, "b": b, "first_round": met[key]},
                    round=number,
                    table=table_number,
                )
        for key, _table, _index in meetings:
            met.setdefault(key, number)
        return tuple(tables)

    def seat(
        self,
        pair: Any,
        at: str,
        number: int,
        table: int | None,
        pair_ids: set[int],
        seated: dict[int, int | None],
    ) -> int | None:
        where = {"round": number, "table": table}
        if not self.expect(pair, "integer", at, **where):
            return None
        if pair not in pair_ids:
            self.add("unknown_pair", at, {"id": pair}, **where)
            return None
        if pair in seated:
            self.add("pair_seated_twice", at, {"id": pair, "first_table": seated[pair]}, **where)
            return pair
        seated[pair] = table
        return pair

    def bye(
        self,
        raw: dict[str, Any],
        at: str,
        number: int,
        pair_ids: set[int],
        seated: dict[int, int | None],
    ) -> TableSpec | None:
        self.keys(raw, BYE_KEYS, at, round=number)
        pair = self.seat(raw["bye"], f"{at}.bye", number, None, pair_ids, seated)
        group, slot = self.placing(raw, at, {"round": number})
        if pair is None:
            return None
        return TableSpec(None, None, None, bye=pair, group=group, slot=slot)

    def placing(
        self, raw: dict[str, Any], at: str, where: dict[str, Any]
    ) -> tuple[str, int | None]:
        """A table's (or bye's) ``group`` (a round-robin stage: required) and ``slot`` (a
        knockout: optional, the table's place in the bracket; 0 is the third-place match)."""
        kind = self.stage_kind()
        group = raw.get("group")
        if group is not None or kind == "round_robin":
            if kind != "round_robin":
                self.add("not_in_stage", f"{at}.group", {"key": "group"}, **where)
                group = ""
            elif group is None:
                self.add("missing_key", f"{at}.group", {"key": "group"}, **where)
                group = ""
            else:
                group = self.text(group, f"{at}.group", MAX_GROUP, **where)
        slot = raw.get("slot")
        if slot is not None:
            if kind != "knockout":
                self.add("not_in_stage", f"{at}.slot", {"key": "slot"}, **where)
                slot = None
            elif not _is_int(slot) or not 0 <= slot <= INT_MAX:
                self.add(
                    "out_of_range", f"{at}.slot", {"value": slot, "min": 0, "max": INT_MAX}, **where
                )
                slot = None
        return group or "", slot

    def stage_kind(self) -> str | None:
        rules = self.rules_seen
        if rules is None:
            return None
        return rules.stage(self.stage).kind

    def match(
        self,
        raw: dict[str, Any],
        at: str,
        number: int,
        status: str,
        pair_ids: set[int],
        rules: RuleSet | None,
        seated: dict[int, int | None],
        numbers: set[int],
    ) -> TableSpec | None:
        table = raw.get("table")
        if "table" not in raw:
            self.add("missing_key", f"{at}.table", {"key": "table"}, round=number)
            table = None
        else:
            table = self.positive(table, f"{at}.table", round=number)
        where = {"round": number, "table": table}
        self.keys(raw, TABLE_KEYS, at, **where)
        if table is not None:
            if table in numbers:
                self.add("duplicate_table", f"{at}.table", {"table": table}, **where)
            numbers.add(table)
        sides: dict[str, int | None] = {}
        for key in ("ns", "ew"):
            if key not in raw:
                self.add("missing_key", f"{at}.{key}", {"key": key}, **where)
                sides[key] = None
            else:
                sides[key] = self.seat(raw[key], f"{at}.{key}", number, table, pair_ids, seated)
        ns, ew = sides["ns"], sides["ew"]
        if ns is not None and ns == ew:
            self.add("same_pair_both_sides", at, {"id": ns}, **where)
        match = raw.get("match")
        if match is not None:
            match = self.positive(match, f"{at}.match", **where)
        entry = raw.get("entry")
        if entry is not None:
            if entry not in ENTRY_STATUSES:
                self.add(
                    "not_one_of",
                    f"{at}.entry",
                    {"value": entry, "options": ENTRY_STATUSES},
                    **where,
                )
                entry = None
            elif status == "finished" and entry != "confirmed":
                self.add("unconfirmed_in_finished_round", f"{at}.entry", {"value": entry}, **where)
        group, slot = self.placing(raw, at, where)
        complete = status == "finished" or entry in ("entered", "confirmed")
        stage_rules = rules.for_stage(self.stage) if rules is not None else None
        best_of = rules.stage(self.stage).games if rules is not None else 1
        if stage_rules is not None and self.stage_kind() == "knockout" and best_of > 1:
            for key in ("start", "deals", "end"):
                if key in raw:
                    self.add("games_instead", f"{at}.{key}", {"key": key}, **where)
            games, series = self.games(raw, at, where, stage_rules, best_of, complete)
            first = games[0] if games else GameSpec()
            if table is None or ns is None or ew is None or ns == ew:
                return None
            return TableSpec(
                table, ns, ew, first.events, first.start, first.end, None, match, entry,
                None, group, slot, games, series, first.time_deals,
            )  # fmt: skip
        if "games" in raw:
            self.add("not_in_stage", f"{at}.games", {"key": "games"}, **where)
        start = self.start(raw, at, where)
        end = self.end(raw, at, where)
        events = self.events(raw, at, where)
        result = None
        time_deals = None
        if (
            events is not None
            and stage_rules is not None
            and start is not False
            and end is not False
        ):
            result = self.score(events, stage_rules, start, end, complete, at, where)
            if result is not None and complete and self.stage_kind() == "knockout":
                start_ = start if isinstance(start, Start) else None
                end_ = end if isinstance(end, End) else None
                result, time_deals = self.time_call(
                    result, events, stage_rules, start_, end_, at, where
                )
                series = decide_series([result] if result is not None else [], 1, True)
                if result is not None and series.winner is None:
                    self.add("match_not_decided", at, {"games": 1, "best_of": 1}, **where)
        if table is None or ns is None or ew is None or ns == ew:
            return None
        return TableSpec(
            table,
            ns,
            ew,
            tuple(events or ()),
            start if isinstance(start, Start) else None,
            end if isinstance(end, End) else None,
            None,
            match,
            entry,
            result,
            group,
            slot,
            time_deals=time_deals,
        )

    def time_call(
        self,
        result: MatchResult,
        events: list[Event],
        rules: RuleSet,
        start: Start | None,
        end: End | None,
        at: str,
        where: dict[str, Any],
    ) -> tuple[MatchResult | None, int | None]:
        """A closed knockout game left undecided by its levels: in a timed format its last deal
        may be the extra deal played when time was called on equal levels (RULES.md §2,
        ``scoring.series.time_call_of_closed_game``); then the game is scored so."""
        if game_winner(result) is not None:
            return result, None
        try:
            time_deals = time_call_of_closed_game(events, rules, start, end)
        except ScoringError:
            return result, None
        if time_deals is None:
            return result, None
        return self.score(events, rules.at_time(time_deals), start, end, True, at, where), (
            time_deals
        )

    def games(
        self,
        raw: dict[str, Any],
        at: str,
        where: dict[str, Any],
        rules: RuleSet,
        best_of: int,
        complete: bool,
    ) -> tuple[tuple[GameSpec, ...], Series | None]:
        """A best-of-n table's ``games``: each game read like a table's deals/start/end and
        scored by the one engine; the match decided (``scoring.series``) — complete, it must
        have a winner, and no game may follow the deciding one."""
        value = raw.get("games", [])
        path = f"{at}.games"
        if not self.expect(value, "list", path, **where):
            return (), None
        games: list[GameSpec] = []
        results: list[MatchResult] = []
        ok = True
        for index, item in enumerate(value):
            game_at = f"{path}[{index}]"
            if not self.expect(item, "object", game_at, **where):
                ok = False
                continue
            self.keys(item, GAME_KEYS, game_at, **where)
            start, end = self.start(item, game_at, where), self.end(item, game_at, where)
            events = self.events(item, game_at, where)
            if events is None or start is False or end is False:
                ok = False
                continue
            game = GameSpec(
                tuple(events),
                start if isinstance(start, Start) else None,
                end if isinstance(end, End) else None,
            )
            last = index == len(value) - 1
            result = self.score(
                events, rules, game.start, game.end, complete or not last, game_at, where
            )
            if result is not None and (complete or not last):
                result, time_deals = self.time_call(
                    result, events, rules, game.start, game.end, game_at, where
                )
                game = replace(game, time_deals=time_deals)
            games.append(game)
            if result is None:
                ok = False
            else:
                results.append(result)
        if not ok:
            return tuple(games), None
        try:
            over = complete or (bool(results) and _game_over(results[-1], rules))
            series = decide_series(results, best_of, over)
        except ScoringError as error:
            self.add(error.code, path, dict(error.params), **where)
            return tuple(games), None
        if complete and series.winner is None:
            params = {"games": len(games), "best_of": best_of}
            self.add("match_not_decided", path, params, **where)
        return tuple(games), series

    def start(self, raw: dict[str, Any], at: str, where: dict[str, Any]) -> Start | bool | None:
        """``None`` for no start, ``False`` when the start is wrong (a problem was added)."""
        if "start" not in raw:
            return None
        value = raw["start"]
        path = f"{at}.start"
        if not self.expect(value, "object", path, **where):
            return False
        self.keys(value, ("ns", "ew"), path, **where)
        levels = []
        for key in ("ns", "ew"):
            level = value.get(key, LOWEST)
            if not _is_int(level) or not LOWEST <= level <= ACE:
                self.add("bad_start", f"{path}.{key}", {"level": level}, **where)
                return False
            levels.append(level)
        return Start(levels[0], levels[1])

    def end(self, raw: dict[str, Any], at: str, where: dict[str, Any]) -> End | bool | None:
        if "end" not in raw:
            return None
        value = raw["end"]
        path = f"{at}.end"
        if not self.expect(value, "object", path, **where):
            return False
        if len(value) != 1 or next(iter(value)) not in END_KEYS:
            self.add("bad_end", path, {"value": value}, **where)
            return False
        kind, side_text = next(iter(value.items()))
        side = _side(side_text)
        if side is None:
            self.add("bad_end_side", f"{path}.{kind}", {"value": side_text}, **where)
            return False
        return End(kind, side)

    def events(self, raw: dict[str, Any], at: str, where: dict[str, Any]) -> list[Event] | None:
        value = raw.get("deals", [])
        path = f"{at}.deals"
        if not self.expect(value, "list", path, **where):
            return None
        events: list[Event] = []
        ok = True
        deal = 0
        for position, token in enumerate(value):
            try:
                event = parse_event(token, position)
            except RuleError as error:
                # Every bad token is reported, not only the first.
                self.add(
                    "bad_token",
                    f"{path}[{position}]",
                    dict(error.params),
                    event=position + 1,
                    deal=deal + 1,
                    **where,
                )
                ok = False
                deal += 1
                continue
            if event.is_deal:
                deal += 1
            events.append(event)
        return events if ok else None

    def score(
        self,
        events: list[Event],
        rules: RuleSet,
        start: Start | None,
        end: End | None,
        complete: bool,
        at: str,
        where: dict[str, Any],
    ) -> MatchResult | None:
        try:
            return score_match(events, rules, start, end, complete=complete)
        except ScoringError as error:
            place: dict[str, Any] = {}
            path = f"{at}.deals"
            if error.position is not None:
                path = f"{path}[{error.position}]"
                deals_before = sum(1 for e in events[: error.position] if e.is_deal)
                event = events[error.position]
                place["event"] = error.position + 1
                place["deal"] = deals_before + 1 if event.is_deal else None
            self.add(error.code, path, dict(error.params), **place, **where)
            return None

    # -- team events -------------------------------------------------------------------------

    def team_matches(self, rounds: tuple[RoundSpec, ...], teams: tuple[TeamSpec, ...]) -> None:
        """TOURNAMENT_FILE.md "Team events": every table carries ``match`` k and is table 2k − 1
        or 2k; the two tables of a match seat two teams crossed (team X's pairs ``ns`` at one
        table and ``ew`` at the other); a pair bye has no place; the team bye is a known team
        that does not play that round; two teams meet at most once."""
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
                    self.add("pair_bye_in_team_event", "", {"id": table.bye}, round=number)
                    continue
                where = {"round": number, "table": table.number}
                for pair in (table.ns, table.ew):
                    if pair not in team_of:
                        self.add("pair_without_team", "", {"pair": pair}, **where)
                    else:
                        playing.add(team_of[pair])
                m = table.match
                if m is None:
                    self.add("missing_key", "", {"key": "match"}, **where)
                elif table.number not in (2 * m - 1, 2 * m):
                    self.add("bad_match_table", "", {"match": m}, **where)
                else:
                    by_match.setdefault(m, {})[table.number] = table
            for m, pair_tables in sorted(by_match.items()):
                first, second = pair_tables.get(2 * m - 1), pair_tables.get(2 * m)
                if first is None or second is None:
                    table = (first or second).number  # type: ignore[union-attr]
                    self.add("match_one_table", "", {"match": m}, round=number, table=table)
                    continue
                x, y = team_of.get(first.ns or 0), team_of.get(first.ew or 0)
                if x is None or y is None:
                    continue  # named above
                if x == y or team_of.get(second.ew or 0) != x or team_of.get(second.ns or 0) != y:
                    self.add(
                        "match_not_crossed", "", {"match": m}, round=number, table=first.number
                    )
                    continue
                key = frozenset((x, y))
                if key in met:
                    a, b = sorted(key)
                    params = {"a": a, "b": b, "first_round": met[key]}
                    self.add("team_rematch", "", params, round=number, table=first.number)
                met.setdefault(key, number)
            bye = round_spec.bye_team
            if bye is not None:
                if bye not in known:
                    self.add("unknown_team", "", {"id": bye}, round=number)
                elif bye in playing:
                    self.add("bye_team_plays", "", {"id": bye}, round=number)
                elif bye in had_bye:
                    params = {"team": bye, "first_round": had_bye[bye]}
                    self.add("team_had_bye", "", params, round=number)
                had_bye.setdefault(bye, number)

    # -- penalties ---------------------------------------------------------------------------

    def penalties(
        self, data: dict[str, Any], pair_ids: set[int], rounds: tuple[RoundSpec, ...]
    ) -> tuple[PenaltySpec, ...]:
        by_number = {r.number: r for r in rounds}
        tables_of = {r.number: {t.number: t for t in r.tables if not t.is_bye} for r in rounds}
        penalties: list[PenaltySpec] = []
        for index, raw in self.list_of_objects(data, "penalties"):
            path = f"penalties[{index}]"
            where: dict[str, Any] = {"penalty": index + 1}
            before = len(self.problems)
            self.keys(raw, PENALTY_KEYS, path, **where)
            pair = raw.get("pair")
            if "pair" not in raw:
                self.add("missing_key", f"{path}.pair", {"key": "pair"}, **where)
            elif self.expect(pair, "integer", f"{path}.pair", **where):
                if pair not in pair_ids:
                    self.add("unknown_pair", f"{path}.pair", {"id": pair}, **where)
            kind = raw.get("kind")
            if kind not in PENALTY_KINDS:
                self.add(
                    "not_one_of", f"{path}.kind", {"value": kind, "options": PENALTY_KINDS}, **where
                )
            number = raw.get("round")
            round_spec = None
            if number is not None and self.positive(number, f"{path}.round", **where):
                round_spec = by_number.get(number)
                if round_spec is None:
                    self.add("unknown_round", f"{path}.round", {"round": number}, **where)
            table = raw.get("table")
            if table is not None and self.positive(table, f"{path}.table", **where):
                if number is None:
                    self.add("table_without_round", f"{path}.table", **where)
                elif round_spec is not None:
                    seats = tables_of[number]
                    if table not in seats:
                        self.add(
                            "unknown_table",
                            f"{path}.table",
                            {"round": number, "table": table},
                            **where,
                        )
                    elif _is_int(pair) and pair not in seats[table].pairs:
                        self.add(
                            "pair_not_at_table",
                            f"{path}.pair",
                            {"id": pair, "round": number, "table": table},
                            **where,
                        )
            deal = raw.get("deal")
            if deal is not None:
                self.positive(deal, f"{path}.deal", **where)
            jcf = raw.get("jcf")
            if kind == "deduction":
                if "jcf" not in raw:
                    self.add("missing_key", f"{path}.jcf", {"key": "jcf"}, **where)
                elif self.expect(jcf, "number", f"{path}.jcf", **where) and not (
                    0 < jcf <= MAX_JCF and round(jcf, 2) == jcf
                ):
                    self.add("bad_deduction", f"{path}.jcf", {"value": jcf}, **where)
            elif jcf is not None:
                self.add("jcf_not_deduction", f"{path}.jcf", {"kind": kind}, **where)
            reason = raw.get("reason", "")
            reason = self.text(reason, f"{path}.reason", 10_000, required=False, **where)
            referee = raw.get("referee", "")
            referee = self.text(referee, f"{path}.referee", MAX_REFEREE, required=False, **where)
            if len(self.problems) == before:
                penalties.append(PenaltySpec(pair, kind, number, table, deal, jcf, reason, referee))
        return tuple(penalties)


def check_tournament(data: Any) -> tuple[TournamentSpec | None, tuple[FileProblem, ...]]:
    """Parse and validate; ``(spec, ())`` or ``(None, problems)`` — every problem found."""
    parser = _Parser()
    spec = parser.parse(data)
    if parser.problems:
        return None, tuple(parser.problems)
    return spec, ()


def parse_tournament(data: Any) -> TournamentSpec:
    """The validated file, or ``TournamentFileError`` with every problem."""
    spec, problems = check_tournament(data)
    if problems or spec is None:
        raise TournamentFileError(problems or [FileProblem("not_an_object")])
    return spec


# --------------------------------------------------------------------------------------------
# Serialization


def _game_over(result: MatchResult, rules: RuleSet) -> bool:
    """As ``scoring.facts.game_over``: 过A, an end, the extra deal, or all its deals."""
    return result.finished or (
        rules.max_deals is not None and result.deals_played >= rules.max_deals
    )


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


# --------------------------------------------------------------------------------------------
# Standings straight from a file (the pure engine; the database must agree with it)


def last_finished_round(spec: TournamentSpec) -> int:
    """The number of the last finished round (0 if none): the default ``--after-round``."""
    return max((r.number for r in spec.rounds if r.finished), default=0)


def counts(round_spec: RoundSpec, table: TableSpec) -> bool:
    """Only confirmed results count (STYLE.md "Standings"); a bye counts once published."""
    if table.is_bye:
        return round_spec.status != "draft"
    return round_spec.entry_of(table) == "confirmed"


def file_outcomes(
    spec: TournamentSpec, after_round: int | None = None
) -> tuple[list[int], list[Outcome], list[Deduction]]:
    """The standings' inputs: every pair id, one ``Outcome`` per pair per counted table, and
    the deductions (TOURNAMENT_FILE.md "Penalties": only ``deduction`` changes scores)."""
    outcomes: list[Outcome] = []
    for round_spec in spec.rounds:
        if after_round is not None and round_spec.number > after_round:
            break
        # Each stage's tables by its rules; a knockout places, it gives no standings points.
        rules = spec.rules.for_stage(round_spec.stage)
        if spec.rules.stage(round_spec.stage).kind == "knockout":
            continue
        for table in round_spec.tables:
            if not counts(round_spec, table):
                continue
            if table.is_bye:
                outcomes.append(bye_outcome(round_spec.number, table.bye, rules))  # type: ignore[arg-type]
                continue
            result = table.result or score_match(
                table.events, rules, table.start, table.end, complete=True
            )
            outcomes.extend(match_outcomes(round_spec.number, table.ns, table.ew, result))  # type: ignore[arg-type]
    deductions = [
        Deduction(p.round, p.pair, float(p.jcf))
        for p in spec.penalties
        if p.kind == "deduction" and p.jcf is not None
    ]
    return [pair.id for pair in spec.pairs], outcomes, deductions


def file_team_numbers(spec: TournamentSpec) -> tuple[dict[int, str], dict[int, int]]:
    """The teams' numbers as the standings see them (``scoring.results.TeamField``: 1…T in the
    file's order): ``(code by number, team number by pair id)``."""
    codes = {k: team.id for k, team in enumerate(spec.teams, start=1)}
    team_of = {pair: k for k, team in enumerate(spec.teams, start=1) for pair in team.pairs}
    return codes, team_of


def standings_from_file(
    spec: TournamentSpec, after_round: int | None = None, *, teams: bool = False
) -> tuple[int, tuple[StandingRow, ...]]:
    """``(after_round, rows)``; by default after the last finished round. ``teams``: the team
    standings of a team event (rows' ``pair`` = the team's number, ``file_team_numbers``)."""
    if after_round is None:
        after_round = last_finished_round(spec)
    entrants, outcomes, deductions = file_outcomes(spec, after_round)
    rules = spec.rules
    if teams:
        codes, team_of = file_team_numbers(spec)
        number_of = {code: k for k, code in codes.items()}
        byes = {
            r.number: number_of[r.bye_team]
            for r in spec.rounds
            if r.bye_team is not None and r.status != "draft" and r.number <= after_round
        }
        entrants = list(codes)
        outcomes = team_outcomes(outcomes, team_of, rules, byes)
        deductions = team_deductions(deductions, team_of)
    rows = compute_standings(
        entrants, outcomes, deductions, rules.tiebreaks, rules.seed or 0, after_round
    )
    return after_round, rows


STANDINGS_FIELDS = (
    "rank",
    "pair",
    "cf",
    "jcf",
    "wins",
    "draws",
    "losses",
    "level_difference",
    "opponents_cf",
    "upgrades",
    "progressive",
    "deductions",
    "decided_by",
)


def standings_payload(
    tournament: str,
    after_round: int,
    rows: Iterable[StandingRow],
    team_codes: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """What ``standings --json`` prints (TOURNAMENT_FILE.md "Command line"). With
    ``team_codes`` (team number → the file's team id) the rows are a team event's team rows:
    ``"team"`` (the team id) in place of ``"pair"`` (TOURNAMENT_FILE.md "Team events")."""
    out = []
    for row in rows:
        item: dict[str, Any] = {}
        for name in STANDINGS_FIELDS:
            value = getattr(row, name)
            if name == "pair" and team_codes is not None:
                item["team"] = team_codes[value]
                continue
            item[name] = plain_number(value) if isinstance(value, float) else value
        out.append(item)
    return {"tournament": tournament, "after_round": after_round, "rows": out}
