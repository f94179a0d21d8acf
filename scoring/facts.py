"""A table's stored facts turned into the scoring engine's input, in one place.

A table stores facts only (STYLE.md "Models"): its start levels (``start_ns``/``start_ew``), how it
ended other than by its deals (``end_kind``/``end_side``) and its events (``TableEvent.token`` in
``position`` order). Every reader — the services, the score sheet, the referee desk's problem
scan, the standings, the printed and exported documents, the tournament file, the public pair
page — turns those columns into ``MatchFacts`` here and scores them with ``score_table``; this is
the only place that builds ``Start``/``End`` from stored columns.

May touch: read-only queries on ``scoring.TableEvent`` (``tokens_by_table``, ``table_tokens``)
and ``tournaments.Game`` (``games_by_table``, ``table_games``: the games 2, 3 … of a knockout
match played best of n, RULES.md §8); the pure engine. Never writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from django.core.exceptions import EmptyResultSet
from django.db import connections

from rules.events import Side
from rules.levels import LOWEST
from rules.ruleset import RuleSet
from scoring.engine import End, MatchResult, Start, score_match
from scoring.series import Series, decide_games

if TYPE_CHECKING:  # pragma: no cover - typing only
    from django.db.models import QuerySet

    from scoring.models import TableEvent
    from tournaments.models import Game, Table

# The table columns a reader selects to build ``MatchFacts`` (with ``values_list``).
FACT_COLUMNS = ("start_ns", "start_ew", "end_kind", "end_side", "time_deals")


# ``Start`` and ``End`` are frozen, and a tournament's tables share a handful of them (most
# start at 2–2 and end by their deals): one object per distinct value, rather than a frozen
# dataclass built per table (45,000 tables of a cold start: 0.08–0.12 s CPU instead of 0.12–0.13 s).
@lru_cache(maxsize=512)
def start_of(start_ns: int, start_ew: int) -> Start:
    """The stored start levels as the engine's ``Start``."""
    return Start(start_ns, start_ew)


@lru_cache(maxsize=512)
def end_of(end_kind: str, end_side: str) -> End | None:
    """The stored end (弃权 / 判负 of ``end_side``) as the engine's ``End``; None when the match
    ended by its deals. A kind without a side (never written by the services) counts as none."""
    return End(end_kind, Side(end_side)) if end_kind and end_side else None


@dataclass(frozen=True, slots=True)
class MatchFacts:
    """What the engine needs to score one match table: start, end and the events in order;
    ``time_deals``: in a timed knockout game, the referee called time on equal levels after
    that many deals (RULES.md §2 "Level tie": the extra deal follows; ``RuleSet.at_time``)."""

    start: Start
    end: End | None
    tokens: tuple[str, ...]
    time_deals: int | None = None

    @classmethod
    def from_columns(
        cls,
        start_ns: int = LOWEST,
        start_ew: int = LOWEST,
        end_kind: str = "",
        end_side: str = "",
        time_deals: int | None = None,
        *,
        tokens: Iterable[str] = (),
    ) -> MatchFacts:
        """From the stored columns (``FACT_COLUMNS``) and the table's tokens."""
        start, end = start_of(start_ns, start_ew), end_of(end_kind, end_side)
        return cls(start, end, tuple(tokens), time_deals)

    def with_tokens(self, tokens: Iterable[str]) -> MatchFacts:
        """The same table with another event list (an entry being checked before it is saved)."""
        return MatchFacts(self.start, self.end, tuple(tokens), self.time_deals)

    def rules(self, rules: RuleSet) -> RuleSet:
        """The rules this game is scored by: ``rules``, or after the referee called time on
        equal levels, those of a game of the deals played then (``RuleSet.at_time``)."""
        return rules if self.time_deals is None else rules.at_time(self.time_deals)

    @property
    def has_facts(self) -> bool:
        """Anything recorded yet: an event or an end."""
        return bool(self.tokens) or self.end is not None


def score_table(facts: MatchFacts, rules: RuleSet, *, complete: bool = False) -> MatchResult:
    """Score one table's facts (``complete=False``: a table still being played; the result is
    provisional and no minimum number of deals is required). Raises the engine's ``RuleError``."""
    rules = facts.rules(rules)
    return score_match(facts.tokens, rules, start=facts.start, end=facts.end, complete=complete)


def table_tokens(table: Table) -> list[str]:
    """The table's event tokens in order (the prefetched ``events`` when present, else a query)."""
    prefetched = getattr(table, "_prefetched_objects_cache", {})
    if "events" in prefetched:
        return [e.token for e in sorted(prefetched["events"], key=lambda e: e.position)]
    return list(table.events.order_by("position").values_list("token", flat=True))


def table_facts(table: Table, tokens: Sequence[str] | None = None) -> MatchFacts:
    """The facts of a loaded ``Table`` (its events via ``table_tokens`` unless given)."""
    return MatchFacts.from_columns(
        table.start_ns,
        table.start_ew,
        table.end_kind,
        table.end_side,
        table.time_deals,
        tokens=table_tokens(table) if tokens is None else tokens,
    )


def tokens_by_table(events: QuerySet[TableEvent]) -> dict[int, list[str]]:
    """Every event of many tables in one query, as ``{table id: [token, …]}`` in order.

    The rows come straight from the database cursor: two columns no backend converts (an
    integer and a string), so Django's row-by-row iterator would only add its own cost (~15 %
    of reading the 360,000 events of a 10,000-pair event), and they are grouped by table with
    ``groupby`` (the query orders them by table)."""
    query = events.order_by("table_id", "position").values_list("table_id", "token").query
    try:
        sql, params = query.sql_with_params()
    except EmptyResultSet:  # e.g. the events of no table
        return {}
    with connections[events.db].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return {table_id: list(map(_token, group)) for table_id, group in groupby(rows, _table_id)}


_table_id, _token = itemgetter(0), itemgetter(1)


def snapshot(table: Table, tokens: Sequence[str]) -> dict[str, Any]:
    """A table's facts as the audit log keeps them (``before`` / ``after``)."""
    end = None
    if table.end_kind:
        end = {table.end_kind: table.end_side.lower()}
    return {
        "start": {"ns": table.start_ns, "ew": table.start_ew},
        "deals": list(tokens),
        "end": end,
        "status": table.entry_status,
        "version": table.version,
    }


# -- games of a knockout match (RULES.md §8; ``tournaments.models.Game``) -----------------------

# The game columns a reader selects (with ``values_list``) for ``split_games``.
GAME_COLUMNS = ("first_position", "start_ns", "start_ew", "end_kind", "end_side", "time_deals")
GameRow = tuple[int, int, int, str, str, int | None]  # the GAME_COLUMNS of one game


def split_games(facts: MatchFacts, games: Sequence[GameRow]) -> tuple[MatchFacts, ...]:
    """A best-of-n table's facts as one ``MatchFacts`` per game: game 1 is the table's start,
    end and events up to game 2's first position; ``games`` are the ``GAME_COLUMNS`` of games
    2, 3 … in order (each from its first position to the next game's)."""
    ordered = sorted(games)
    bounds = [first for first, *_ in ordered]
    tokens = facts.tokens
    first_game = tokens[: bounds[0] if bounds else len(tokens)]
    out = [MatchFacts(facts.start, facts.end, first_game, facts.time_deals)]
    for index, (first, *columns) in enumerate(ordered):
        last = bounds[index + 1] if index + 1 < len(bounds) else len(tokens)
        out.append(MatchFacts.from_columns(*columns, tokens=tokens[first:last]))
    return tuple(out)


def games_by_table(games: QuerySet[Game]) -> dict[int, list[GameRow]]:
    """The games 2, 3 … of many tables in one query: ``{table id: [GAME_COLUMNS, …]}``."""
    rows = games.order_by("table_id", "number")
    out: dict[int, list[GameRow]] = {}
    for table_id, *columns in rows.values_list("table_id", *GAME_COLUMNS):
        out.setdefault(table_id, []).append(tuple(columns))  # type: ignore[arg-type]
    return out


def table_games(table: Table, tokens: Sequence[str] | None = None) -> tuple[MatchFacts, ...]:
    """The games of a loaded knockout ``Table`` (``split_games`` of its facts and game rows)."""
    prefetched = getattr(table, "_prefetched_objects_cache", {})
    if "games" in prefetched:
        rows = [tuple(getattr(g, c) for c in GAME_COLUMNS) for g in prefetched["games"]]
    else:
        rows = list(table.games.order_by("number").values_list(*GAME_COLUMNS))
    return split_games(table_facts(table, tokens), rows)  # type: ignore[arg-type]


def score_games(games: Sequence[MatchFacts], rules: RuleSet, best_of: int, closed: bool) -> Series:
    """Score a knockout match game by game with the one engine and decide it
    (``scoring.series.decide_games``). Every game but the last is scored complete (raising the
    engine's ``RuleError`` if it is not); the last is complete when ``closed`` (the sheet was
    submitted: then it must be), else provisional and over only by its own facts
    (``scoring.series.game_over``)."""
    results = [score_table(game, rules, complete=True) for game in games[:-1]]
    if games:
        results.append(score_table(games[-1], rules, complete=closed))
    return decide_games(results, games[-1].rules(rules) if games else rules, best_of, closed)
