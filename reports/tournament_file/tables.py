"""A round's ``tables`` in a tournament file: the matches (``ns`` against ``ew``, their facts
scored), the byes, where each pair sits (once a round), the placing a stage asks for (a group in
a round-robin stage, a bracket slot in a knockout) and the rematch rule (two pairs meet at most
once in a stage, TOURNAMENT_FILE.md "Deals").

Pure: the standard library, ``rules`` and the pure scoring engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.limits import INT_MAX
from rules.ruleset import RuleSet

from .deals import read_facts, score
from .knockout import check_decided, read_games
from .problems import Problems, is_int
from .specs import ENTRY_STATUSES, MAX_GROUP, GameSpec, TableSpec

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


@dataclass
class RoundContext:
    """The round whose tables are being read: its number, status and stage (RULES.md §8), the
    settings (None when they are wrong), the file's pair ids, and as the tables are read, where
    each pair sits (None: the bye) and the table numbers used."""

    number: int
    status: str
    stage: int
    rules: RuleSet | None
    pair_ids: set[int]
    seated: dict[int, int | None] = field(default_factory=dict)
    numbers: set[int] = field(default_factory=set)

    @property
    def knockout(self) -> bool:
        """A knockout stage: its matches are best-of-n series (``StageKind.series``), its
        tables and byes have bracket slots."""
        return self.rules is not None and self.rules.plays_series(self.stage)

    @property
    def in_groups(self) -> bool:
        """A group stage (``StageKind.has_groups``): every table and bye names its group."""
        return self.rules is not None and self.rules.stage(self.stage).type.has_groups


def read_tables(
    problems: Problems,
    raw_round: dict[str, Any],
    path: str,
    context: RoundContext,
    met: dict[frozenset[int], int],
) -> tuple[TableSpec, ...]:
    """The round's tables (the team bye, ``bye_team``, is the round's); ``met``: the pairs who
    met earlier in the stage → the round they met in (this round's meetings are added)."""
    number = context.number
    raw_tables = raw_round.get("tables")
    if raw_tables is None:
        problems.add("missing_key", f"{path}.tables", {"key": "tables"}, round=number)
        return ()
    if not problems.expect(raw_tables, "list", f"{path}.tables", round=number):
        return ()
    tables: list[TableSpec] = []
    meetings: list[tuple[frozenset[int], int, int]] = []
    for index, raw in enumerate(raw_tables):
        at = f"{path}.tables[{index}]"
        if not problems.expect(raw, "object", at, round=number):
            continue
        if "bye_team" in raw:
            continue  # the round's team bye (``reports.tournament_file.rounds``)
        if "bye" in raw:
            table = read_bye(problems, raw, at, context)
        else:
            table = read_match(problems, raw, at, context)
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
            problems.add(
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
    problems: Problems, pair: Any, at: str, context: RoundContext, table: int | None
) -> int | None:
    """Seat ``pair`` at ``table`` (None: the bye): a known pair, once in the round."""
    where = {"round": context.number, "table": table}
    if not problems.expect(pair, "integer", at, **where):
        return None
    if pair not in context.pair_ids:
        problems.add("unknown_pair", at, {"id": pair}, **where)
        return None
    if pair in context.seated:
        first = context.seated[pair]
        problems.add("pair_seated_twice", at, {"id": pair, "first_table": first}, **where)
        return int(pair)
    context.seated[pair] = table
    return int(pair)


def read_bye(
    problems: Problems, raw: dict[str, Any], at: str, context: RoundContext
) -> TableSpec | None:
    problems.keys(raw, BYE_KEYS, at, round=context.number)
    pair = seat(problems, raw["bye"], f"{at}.bye", context, None)
    group, slot = placing(problems, raw, at, context, {"round": context.number})
    if pair is None:
        return None
    return TableSpec(None, None, None, bye=pair, group=group, slot=slot)


def placing(
    problems: Problems,
    raw: dict[str, Any],
    at: str,
    context: RoundContext,
    where: dict[str, Any],
) -> tuple[str, int | None]:
    """A table's (or bye's) ``group`` (a round-robin stage: required) and ``slot`` (a
    knockout: optional, the table's place in the bracket; 0 is the third-place match)."""
    in_groups = context.in_groups
    group = raw.get("group")
    if group is not None or in_groups:
        if not in_groups:
            problems.add("not_in_stage", f"{at}.group", {"key": "group"}, **where)
            group = ""
        elif group is None:
            problems.add("missing_key", f"{at}.group", {"key": "group"}, **where)
            group = ""
        else:
            group = problems.text(group, f"{at}.group", MAX_GROUP, **where)
    slot = raw.get("slot")
    if slot is not None:
        if not context.knockout:
            problems.add("not_in_stage", f"{at}.slot", {"key": "slot"}, **where)
            slot = None
        elif not is_int(slot) or not 0 <= slot <= INT_MAX:
            bounds = {"value": slot, "min": 0, "max": INT_MAX}
            problems.add("out_of_range", f"{at}.slot", bounds, **where)
            slot = None
    return group or "", slot


def read_match(
    problems: Problems, raw: dict[str, Any], at: str, context: RoundContext
) -> TableSpec | None:
    """A match table: its number, sides, team ``match``, ``entry``, placing and facts — a
    best-of-n knockout table's ``games`` in place of its own facts — scored by the stage's
    rules (``RuleSet.for_stage``); complete when the round is finished or the table entered."""
    number, rules = context.number, context.rules
    table = raw.get("table")
    if "table" not in raw:
        problems.add("missing_key", f"{at}.table", {"key": "table"}, round=number)
        table = None
    else:
        table = problems.positive(table, f"{at}.table", round=number)
    where = {"round": number, "table": table}
    problems.keys(raw, TABLE_KEYS, at, **where)
    if table is not None:
        if table in context.numbers:
            problems.add("duplicate_table", f"{at}.table", {"table": table}, **where)
        context.numbers.add(table)
    sides: dict[str, int | None] = {}
    for key in ("ns", "ew"):
        if key not in raw:
            problems.add("missing_key", f"{at}.{key}", {"key": key}, **where)
            sides[key] = None
        else:
            sides[key] = seat(problems, raw[key], f"{at}.{key}", context, table)
    ns, ew = sides["ns"], sides["ew"]
    if ns is not None and ns == ew:
        problems.add("same_pair_both_sides", at, {"id": ns}, **where)
    match = raw.get("match")
    if match is not None:
        match = problems.positive(match, f"{at}.match", **where)
    entry = raw.get("entry")
    if entry is not None:
        if entry not in ENTRY_STATUSES:
            params = {"value": entry, "options": ENTRY_STATUSES}
            problems.add("not_one_of", f"{at}.entry", params, **where)
            entry = None
        elif context.status == "finished" and entry != "confirmed":
            params = {"value": entry}
            problems.add("unconfirmed_in_finished_round", f"{at}.entry", params, **where)
    group, slot = placing(problems, raw, at, context, where)
    complete = context.status == "finished" or entry in ("entered", "confirmed")
    stage_rules = rules.for_stage(context.stage) if rules is not None else None
    best_of = rules.stage(context.stage).games if rules is not None else 1
    if stage_rules is not None and context.knockout and best_of > 1:
        for key in ("start", "deals", "end"):
            if key in raw:
                problems.add("games_instead", f"{at}.{key}", {"key": key}, **where)
        games, series = read_games(problems, raw, at, where, stage_rules, best_of, complete)
        first = games[0] if games else GameSpec()
        if table is None or ns is None or ew is None or ns == ew:
            return None
        return TableSpec(
            table, ns, ew, first.events, first.start, first.end, None, match, entry,
            None, group, slot, games, series, first.time_deals,
        )  # fmt: skip
    if "games" in raw:
        problems.add("not_in_stage", f"{at}.games", {"key": "games"}, **where)
    facts = read_facts(problems, raw, at, where)
    result = None
    time_deals = None
    if facts is not None and stage_rules is not None:
        knockout = context.knockout
        result, time_deals = score(
            problems, facts, stage_rules, complete, at, where, knockout=knockout
        )
        if result is not None and complete and knockout:
            check_decided(problems, result, stage_rules, at, where)
    if table is None or ns is None or ew is None or ns == ew:
        return None
    events, start, end = facts if facts is not None else ([], None, None)
    return TableSpec(
        table, ns, ew, tuple(events), start, end, None, match, entry, result, group, slot,
        time_deals=time_deals,
    )  # fmt: skip
