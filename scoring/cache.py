"""The standings cache: the one way every reader gets standings (``cached_standings``) — the
public pages, the projector, a pair's page, the organizer's round review, the Swiss input of
the next round, the PDF/Excel reports and the ``standings`` command.

What is kept: ``CompactStandings``, the rows as one column per ``StandingRow`` field, which
load in ~1.5 ms at 10,000 pairs where a tuple of frozen dataclasses takes ~60 ms to unpickle.

Keys. The standings after round r are stored under the version of their inputs: the results
of rounds 1…r (per counted round: its id and its tables' count, summed versions and last id —
every write of a table bumps its version), the deductions of those rounds (and those without a
round), the registered pairs and the settings. A confirmation in round 9 changes round 9's
version only, so the standings after rounds 1–8 keep their entries. In front of that sits a
pointer keyed by ``Tournament.results_version`` (bumped by every result-changing service), so
a request whose version has been seen reads one small key and the entry, with no query.
Every key starts with ``SCHEMA``, the shape of what the entries hold: entries an older deploy
wrote are never read.

Recomputation. After a change, one process recomputes (a cache lock: ``cache.add`` of a key
per tournament and round, with a timeout; the configured cache — Redis when ``REDIS_URL`` is
set — makes it hold across workers). Pages (``provisional=True``) meanwhile get the previous
standings with ``current`` False and their ``as_of`` time; every other reader waits for the
new ones (or computes them itself if the lock's holder dies: the lock expires).

The computation itself is ``compute``, incremental (issue 18): the frozen ``StandingsState``
after round r − 1 is kept under the version of what it depends on (``versions[r - 1]``: the
settings, the pairs, rounds 1…r − 1 and their deductions), and the standings after round r are
that state advanced with round r's outcomes and deductions (``scoring.standings.advance``).
Round r's tables are kept scored by table id and version, so a confirmation reads and scores
one table. A correction or deduction in an earlier round, a new pair or other settings change
the kept state's version: the state is then built from everything (``state_after``, the cold
start) and kept again. The state after round r itself is kept once round r is complete (for
round r + 1). Each process also keeps what it last kept or loaded, used only while the shared
cache still names it. It equals ``scoring.results.standings_from_db`` (the full computation;
tests/db/test_standings_cache.py compares them). At 10,000 pairs × 9 rounds the public page's
first request after a confirmation takes 84–90 ms of CPU (98 before the second pass of issue
18, in the same alternating runs; load 3–4 on 2 cores): ~45 in ``compute`` (~25 of them
``advance``, ~12 reading and scoring the round), ~13 in ``standings_source`` (its per-round
version query reads the ``table_round_progress`` index alone), the rest the page itself; the
cold start ~0.9–1.0 s (docs/core-api.md, docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import secrets
import time
from array import array
from collections.abc import Collection, Iterator, Sequence
from datetime import datetime
from itertools import chain, repeat
from operator import attrgetter
from typing import Any, overload

from django.core.cache import cache
from django.db.models import Count, Max, Sum
from django.utils import timezone

from rules.ruleset import RuleSet
from scoring.models import Penalty
from scoring.ranking import Ranking
from scoring.results import (
    ScoredTable,
    TeamField,
    confirmed_table_versions,
    deductions_from_db,
    pair_numbers,
    scored_tables,
    standings_criteria,
    team_byes,
    team_field,
)
from scoring.standings import (
    Deduction,
    Outcome,
    RoundFigures,
    StandingRow,
    StandingsSetup,
    StandingsState,
    advance,
    collector_paused,
    standings_setup,
    state_after,
)
from scoring.teams import team_deductions, team_outcomes, team_round_outcomes
from tournaments.models import Pair, Round, Table, Team, Tournament

STANDINGS_CACHE_SECONDS = 24 * 3600
# A recomputation holding the lock longer than this is presumed dead (50,000 pairs take ~6 s).
STANDINGS_LOCK_SECONDS = 60
# How often a reader waiting for another process's recomputation looks for its result.
STANDINGS_POLL_SECONDS = 0.05


def layout_schema(layout: int, *kinds: type) -> str:
    """A short name for what the entries hold: ``layout`` and, for each of ``kinds`` (the
    dataclasses and named tuples that are stored), where it lives (a pickle names the class's
    module: a class moved to another module would not load) and its fields (names and annotated
    types)."""
    shapes = [
        [f"{kind.__module__}.{kind.__qualname__}"]
        + [(f.name, str(f.type)) for f in dataclasses.fields(kind)]
        if dataclasses.is_dataclass(kind)
        else [f"{kind.__module__}.{kind.__qualname__}", *getattr(kind, "_fields", ())]
        for kind in kinds
    ]
    digest = hashlib.sha256(repr((layout, shapes)).encode()).hexdigest()[:8]
    return f"{layout}.{digest}"


# The schema of every entry this cache keeps, part of its every key (``SCHEMA``): a deploy that
# changes what an entry holds — a field of ``StandingRow`` (the compact columns), of
# ``Outcome`` (the kept scored tables) or of the frozen state and its parts — reads none of the
# entries an older deploy wrote (they would not load, or would load wrong); they are missed and
# expire. ``LAYOUT`` counts the changes the fields do not show (how the columns, the kept
# tables or the pointers are laid out): bump it with such a change.
LAYOUT = 3
SCHEMA = layout_schema(
    LAYOUT, StandingRow, Outcome, StandingsState, StandingsSetup, RoundFigures, Ranking
)

# --------------------------------------------------------------------------------------------
# The standings rows, compactly cached

_FIELDS = tuple(field.name for field in dataclasses.fields(StandingRow))
_PAIR = _FIELDS.index("pair")
# A field annotated as a plain int or float is stored as an array of machine numbers (pickled
# as raw bytes: 32-bit ints, doubles so no total changes); any other (``int | None``,
# ``str | None``) as a tuple. A value the array cannot hold keeps its column a tuple.
_TYPECODES: dict[Any, str] = {int: "i", "int": "i", float: "d", "float": "d"}
_TYPES = tuple(_TYPECODES.get(field.type) for field in dataclasses.fields(StandingRow))


class CompactStandings(Sequence[StandingRow]):
    """Standings as one column per ``StandingRow`` field; a row or a slice is rebuilt as
    ``StandingRow`` only when asked for. At 10,000 pairs the columns pickle in ~1 ms and load in
    ~1.5 ms (the tuple of slotted frozen dataclasses: ~70 ms and ~60 ms CPU).

    ``as_of``: when they were computed; ``current``: False for the previous standings served
    while newer ones are being computed; ``key``: the cache entry they were read from or stored
    under (None if not cached), which names these exact rows — a page may cache what it renders
    from them under it. Equal to any sequence of the same rows.
    """

    __slots__ = ("as_of", "columns", "current", "key")

    def __init__(
        self,
        columns: Sequence[Sequence[Any]],
        as_of: datetime | None = None,
        current: bool = True,
        key: str | None = None,
    ) -> None:
        if len(columns) != len(_FIELDS):
            raise ValueError("one column per StandingRow field")
        self.columns = tuple(columns)
        self.as_of = as_of
        self.current = current
        self.key = key

    @classmethod
    def from_rows(
        cls, rows: Sequence[StandingRow], as_of: datetime | None = None
    ) -> CompactStandings:
        return cls.from_columns([list(map(attrgetter(name), rows)) for name in _FIELDS], as_of)

    @classmethod
    def from_columns(
        cls, columns: Sequence[Sequence[Any]], as_of: datetime | None = None
    ) -> CompactStandings:
        """From one column per ``StandingRow`` field in standings order
        (``StandingsState.columns()``), stored as ``from_rows`` stores them."""
        stored: list[Sequence[Any]] = []
        for values, typecode in zip(columns, _TYPES, strict=True):
            column: Sequence[Any] = tuple(values)
            if typecode is not None:
                try:
                    column = array(typecode, values)
                except (TypeError, OverflowError):  # not the numbers the annotation promised
                    pass
            stored.append(column)
        return cls(stored, as_of)

    def __len__(self) -> int:
        return len(self.columns[_PAIR])

    @overload
    def __getitem__(self, index: int) -> StandingRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[StandingRow]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [
                StandingRow(*values)
                for values in zip(*(c[index] for c in self.columns), strict=True)
            ]
        return StandingRow(*(c[index] for c in self.columns))

    def __iter__(self) -> Iterator[StandingRow]:
        for values in zip(*self.columns, strict=True):
            yield StandingRow(*values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (CompactStandings, tuple, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<CompactStandings: {len(self)} rows as of {self.as_of}>"

    def first_index(self, pairs: Collection[int]) -> int | None:
        """Position of the highest-placed row of any of ``pairs`` (None if none has a row)."""
        column = self.columns[_PAIR]
        found = [i for i, pair in enumerate(column) if pair in pairs] if pairs else []
        return found[0] if found else None

    def rows_of(self, pairs: Collection[int]) -> dict[int, StandingRow]:
        """The rows of ``pairs`` by pair number (one pass over the pair column)."""
        wanted = set(pairs)
        column = self.columns[_PAIR]
        return {pair: self[i] for i, pair in enumerate(column) if pair in wanted}


# --------------------------------------------------------------------------------------------
# What the standings after a round are computed from, and its version


@dataclasses.dataclass(frozen=True, slots=True)
class StandingsSource:
    """The standings after ``after_round`` of one tournament: where they come from
    (``tournament_id``, ``rules``) and ``version``, a digest of everything they depend on.
    ``home`` names the tournament (its id and creation time: an id can be reused), ``scope``
    adds the round and ``key`` the version. ``versions[r]`` is the digest of what the
    standings after round r (r = 0…``after_round``) depend on, ``versions[-1]`` being
    ``version``; ``base`` the digest of the settings and registered pairs alone (what a kept
    scored table depends on besides its own version). ``teams``: the team standings of a team
    event (RULES.md §6, ``scoring.teams``) rather than its pairs' (their scope and kept states
    are their own; the scored tables are shared)."""

    tournament_id: int
    home: str
    after_round: int
    rules: RuleSet
    versions: tuple[str, ...]
    base: str
    tables: tuple[tuple[int, int], ...] = ()  # (round number, its table count) per counted round
    teams: bool = False

    @property
    def version(self) -> str:
        return self.versions[-1]

    @property
    def view(self) -> str:
        """Where this view's entries live: the tournament, and ``:teams`` for team standings."""
        return f"{self.home}:teams" if self.teams else self.home

    @property
    def scope(self) -> str:
        return f"{self.view}:{self.after_round}"

    @property
    def key(self) -> str:
        return f"standings:{SCHEMA}:{self.scope}:{self.version}"


def round_versions(tournament_id: int, up_to: int) -> list[tuple[int, int, int, int, int]]:
    """Per counted (published or finished) round up to round ``up_to``, in order: number, id,
    and over its tables count, summed versions and last id — any write of a table of the round
    changes them (one query over those tables, ~4 ms per 10,000 on SQLite)."""
    rows = (
        Table.objects.counted()
        .filter(round__tournament_id=tournament_id, round__number__lte=up_to)
        .order_by()
        .values_list("round__number", "round_id")
        .annotate(Count("pk"), Sum("version"), Max("pk"))
    )
    return sorted(rows)


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:32]


def standings_source(
    tournament_id: int,
    created: datetime,
    settings: dict[str, Any],
    after_round: int | None,
    *,
    teams: bool = False,
) -> StandingsSource:
    """The source of the standings after ``after_round`` (None: the latest counted round) with
    its versions as the database has it now (three queries, four for the latest round; one more
    for ``teams``: the teams and their pairs)."""
    after = after_round
    if after is None:  # the latest counted round
        counted = Round.objects.counted().filter(tournament_id=tournament_id)
        after = counted.aggregate(latest=Max("number"))["latest"] or 0
    deductions = sorted(
        (number or 0, count, last, str(total))
        for number, count, last, total in Penalty.objects.filter(
            tournament_id=tournament_id, kind=Penalty.Kind.DEDUCTION, withdrawn_at=None
        )
        .order_by()
        .values_list("round__number")
        .annotate(Count("pk"), Max("pk"), Sum("jcf"))
        if number is None or number <= after
    )
    pairs = Pair.objects.filter(tournament_id=tournament_id).aggregate(
        count=Count("pk"), last=Max("pk")
    )
    rounds = round_versions(tournament_id, after)
    base: tuple[Any, ...] = (
        json.dumps(settings, sort_keys=True, default=str),
        (pairs["count"], pairs["last"]),
    )
    if teams:  # which pair plays for which team, and the teams' order (their numbers)
        members = Team.pairs.through.objects.filter(team__tournament_id=tournament_id)
        figures = members.aggregate(Count("pk"), Max("pk"), Sum("team_id"), Sum("pair_id"))
        base = (*base, "teams", tuple(figures.values()))
    # The standings after round r depend on the rounds 1…r and their deductions (and those
    # without a round, number 0): a change in round r leaves the versions before r alone.
    versions = tuple(
        _digest(
            (
                *base,
                [d for d in deductions if d[0] <= r],
                [v for v in rounds if v[0] <= r],
            )
        )
        for r in range(after + 1)
    )
    return StandingsSource(
        tournament_id,
        f"{tournament_id}:{created.timestamp():.6f}",
        after,
        RuleSet.from_dict(settings),
        versions,
        _digest(base[:2]),
        tuple((number, count) for number, _, count, _, _ in rounds),
        teams,
    )


# --------------------------------------------------------------------------------------------
# The computation: incremental from the frozen state after the round before


# What this process last kept or loaded, so that its next computation does not unpickle it
# again (~6 ms for a state, ~4 ms for a round's scored tables at 10,000 pairs, and the garbage
# collections that many new objects bring). The shared cache stays the authority: a copy here
# is used only while the shared cache's pointer still names it (one small read), so another
# process's newer entry, or a cleared cache, is always seen.
_LOCAL: dict[str, tuple[str, Any]] = {}  # pointer → (the entry's key, its value)
_LOCAL_SIZE = 32


def _remember(pointer: str, key: str, value: Any) -> None:
    _LOCAL.pop(pointer, None)
    _LOCAL[pointer] = (key, value)
    while len(_LOCAL) > _LOCAL_SIZE:
        _LOCAL.pop(next(iter(_LOCAL)), None)


def _kept(pointer: str, key: str | None = None) -> Any:
    """The entry the shared cache's ``pointer`` names (only if it is ``key``, when given)."""
    named = cache.get(pointer)
    if named is None or (key is not None and named != key):
        return None
    local = _LOCAL.get(pointer)
    if local is not None and local[0] == named:
        return local[1]
    value = cache.get(named)
    if value is not None:
        _remember(pointer, named, value)
    return value


def _keep(pointer: str, key: str, value: Any) -> None:
    """Keep ``value`` under ``key`` and name it by ``pointer``, dropping the entry it replaces
    (one entry per pointer stays, besides the ones being replaced)."""
    cache.set(key, value, STANDINGS_CACHE_SECONDS)
    replaced = cache.get(pointer)
    cache.set(pointer, key, STANDINGS_CACHE_SECONDS)
    if replaced is not None and replaced != key:
        cache.delete(replaced)
    _remember(pointer, key, value)


def _state_pointer(source: StandingsSource, number: int) -> str:
    return f"standings-state:{SCHEMA}:{source.view}:{number}"


def _state_key(source: StandingsSource, number: int) -> str:
    return f"{_state_pointer(source, number)}:{source.versions[number]}"


def kept_state(source: StandingsSource, number: int) -> StandingsState | None:
    """The frozen state after round ``number`` (≤ ``source.after_round``) if one is kept for
    the inputs it depends on as they are now (``source.versions[number]``), else None."""
    state: StandingsState | None = _kept(_state_pointer(source, number), _state_key(source, number))
    return state


def _keep_state(source: StandingsSource, state: StandingsState) -> None:
    """Keep ``state`` under its version (one kept state per tournament and round)."""
    number = state.after_round
    _keep(_state_pointer(source, number), _state_key(source, number), state)


# A kept scored table: its version and its outcomes as plain tuples (a namedtuple pickles
# through its class, ~8× slower: 25 ms for a round of 5,000 tables against 3 ms).
_KeptTable = tuple[int, tuple[tuple[Any, ...], ...]]


def round_outcomes(
    source: StandingsSource, number: int, scored: Sequence[ScoredTable] | None = None
) -> tuple[list[Outcome], int]:
    """The outcomes of the CONFIRMED tables of round ``number``, each table scored once per
    version: the scored tables of the round are kept (by table id and version, one entry per
    tournament and round), so after a confirmation only the tables whose version changed are
    read and scored. ``scored``: the round's tables just scored (the cold start), kept as
    they are. Also returns how many confirmed tables (byes included) the round has."""
    pointer = f"standings-tables:{SCHEMA}:{source.home}:{number}"
    tables: dict[int, _KeptTable]
    if scored is None:
        versions = confirmed_table_versions(source.tournament_id, number)
        stored = _kept(pointer)
        kept: dict[int, _KeptTable] = {}
        if stored is not None and stored[0] == source.base:
            kept = stored[1]
        tables = {pk: kept[pk] for pk, v in versions.items() if pk in kept and kept[pk][0] == v}
        missing = [pk for pk in versions if pk not in tables]
        if missing:
            for table in scored_tables(source.tournament_id, source.rules, number, pks=missing):
                tables[table.pk] = (table.version, tuple(map(tuple, table.outcomes)))
        changed = bool(missing) or len(tables) != len(kept)
    else:
        tables = {table.pk: (table.version, tuple(map(tuple, table.outcomes))) for table in scored}
        changed = True
    if changed:
        _keep(pointer, f"{pointer}:{secrets.token_hex(8)}", (source.base, tables))
    # Outcomes made from the kept tuples by ``tuple.__new__`` in C (``Outcome._make`` is a
    # Python call per outcome: ~3 ms a round at 10,000 pairs).
    kept_outcomes = chain.from_iterable(kept for _, kept in tables.values())
    return list(map(tuple.__new__, repeat(Outcome), kept_outcomes)), len(tables)


class _Entrants:
    """Who the standings of ``source`` rank: the registered pairs, or for team standings the
    teams (``scoring.results.TeamField``), with what turns pair outcomes and deductions into
    theirs (``scoring.teams``: the two tables of a match combined, the team byes)."""

    def __init__(self, source: StandingsSource) -> None:
        self.source = source
        self.field: TeamField | None = None
        self.byes: dict[int, int] = {}
        if source.teams:
            self.field = team_field(source.tournament_id)
            self.byes = team_byes(source.tournament_id, self.field, source.after_round)

    def setup(self) -> StandingsSetup:
        rules = self.source.rules
        ids = self.field.numbers if self.field else pair_numbers(self.source.tournament_id)
        return standings_setup(ids, standings_criteria(rules), rules.seed or 0)

    def outcomes(self, pair_outcomes: list[Outcome], before: int) -> list[Outcome]:
        """Every round's outcomes before round ``before`` (the cold start)."""
        if self.field is None:
            return pair_outcomes
        byes = {number: team for number, team in self.byes.items() if number < before}
        return team_outcomes(pair_outcomes, self.field.team_of, self.source.rules, byes)

    def round_outcomes(self, number: int, pair_outcomes: list[Outcome]) -> list[Outcome]:
        if self.field is None:
            return pair_outcomes
        return team_round_outcomes(
            number, pair_outcomes, self.field.team_of, self.source.rules, self.byes.get(number)
        )

    def deductions(self, deductions: list[Deduction]) -> list[Deduction]:
        return deductions if self.field is None else team_deductions(deductions, self.field.team_of)


def _cold_state(
    source: StandingsSource, entrants: _Entrants | None = None
) -> tuple[StandingsState, list[ScoredTable], list[Deduction]]:
    """The state after round ``after_round - 1`` from every confirmed table and deduction (the
    full computation), with the scored tables and the deductions of round ``after_round``."""
    entrants = entrants or _Entrants(source)
    after = source.after_round
    rules = source.rules
    setup = entrants.setup()
    earlier: list[Outcome] = []
    last: list[ScoredTable] = []
    for table in scored_tables(source.tournament_id, rules, after):
        if table.round == after:
            last.append(table)
        else:
            earlier.extend(table.outcomes)
    deductions = entrants.deductions(deductions_from_db(source.tournament_id))
    state = state_after(setup, entrants.outcomes(earlier, after), deductions, after - 1)
    return state, last, [d for d in deductions if d.round == after]


def standings_state(source: StandingsSource) -> StandingsState:
    """The frozen standings state of ``source``. Incremental: the state after round r − 1 is
    kept under the version of what it depends on (rounds before the one in progress stay
    frozen), and the standings after round r are that state advanced with round r's outcomes
    (its tables scored once per version, see ``round_outcomes``) and deductions. With no
    usable kept state (a cold start, a correction or deduction in an earlier round, a new
    pair, other settings) the state after r − 1 is computed from everything and kept. Team
    standings (``source.teams``) take the same path, the pair outcomes of each round combined
    into the teams' (``_Entrants``)."""
    after = source.after_round
    found = kept_state(source, after)
    if found is not None:
        return found
    entrants = _Entrants(source)
    if after == 0:
        deductions = entrants.deductions(deductions_from_db(source.tournament_id))
        state = state_after(entrants.setup(), (), deductions, 0)
        _keep_state(source, state)
        return state
    before = kept_state(source, after - 1)
    scored: list[ScoredTable] | None = None
    if before is None:
        before, scored, deductions = _cold_state(source)
        _keep_state(source, before)
    else:
        deductions = entrants.deductions(deductions_from_db(source.tournament_id, after))
    outcomes, confirmed = round_outcomes(source, after, scored)
    state = advance(before, entrants.round_outcomes(after, outcomes), deductions)
    if confirmed == dict(source.tables).get(after, 0):
        # Round r complete (every table confirmed): its state serves round r + 1. Not kept
        # at each confirmation before that (~6 ms to store at 10,000 pairs, never read).
        _keep_state(source, state)
    return state


def compute(source: StandingsSource) -> CompactStandings:
    """The standings of ``source``: the one computation behind the cache (``standings_state``,
    incremental when it can be), with the garbage collector paused throughout (the reading
    and scoring of a cold start make a million short-lived objects: ``collector_paused``)."""
    with collector_paused():
        # CompactStandings stores the CF/JCF figures as doubles: ints need no float() first.
        columns = standings_state(source).columns(floats=False)
    return CompactStandings.from_columns(columns, as_of=timezone.now())


# --------------------------------------------------------------------------------------------
# Reading through the cache


def _entry(key: str, current: bool = True) -> CompactStandings | None:
    stored = cache.get(key)
    if stored is None:
        return None
    columns, as_of = stored
    return CompactStandings(columns, as_of, current, key)


def _store(source: StandingsSource, standings: CompactStandings) -> None:
    """Keep ``standings`` under their key and as the scope's latest, dropping the entry they
    replace (one entry per tournament and round stays, besides the ones being replaced)."""
    cache.set(source.key, (standings.columns, standings.as_of), STANDINGS_CACHE_SECONDS)
    standings.key = source.key
    latest = f"standings-latest:{SCHEMA}:{source.scope}"
    replaced = cache.get(latest)
    cache.set(latest, source.key, STANDINGS_CACHE_SECONDS)
    if replaced is not None and replaced != source.key:
        cache.delete(replaced)


def _acquire(lock: str, token: str) -> bool:
    """Take the recomputation lock of a scope (atomic in every cache backend: Redis ``SET
    NX``, a process lock in the local-memory cache); it expires by itself."""
    return bool(cache.add(lock, token, STANDINGS_LOCK_SECONDS))


def _release(lock: str, token: str) -> None:
    if cache.get(lock) == token:  # not a lock that expired and was taken by another
        cache.delete(lock)


def recompute(source: StandingsSource, provisional: bool = False) -> CompactStandings:
    """The standings of ``source``, computed by at most one process at a time per tournament
    and round. Without the lock: the previous standings (not current) when ``provisional``
    and there are any, else wait for the holder's result."""
    lock = f"standings-lock:{SCHEMA}:{source.scope}"
    give_up = time.monotonic() + 2 * STANDINGS_LOCK_SECONDS
    while True:
        token = secrets.token_hex(8)
        if _acquire(lock, token):
            try:
                found = _entry(source.key)  # finished by another between our miss and now
                if found is None:
                    found = compute(source)
                    _store(source, found)
                return found
            finally:
                _release(lock, token)
        if provisional:
            latest = cache.get(f"standings-latest:{SCHEMA}:{source.scope}")
            previous = _entry(latest, current=False) if latest is not None else None
            if previous is not None:
                return previous
        time.sleep(STANDINGS_POLL_SECONDS)
        found = _entry(source.key)
        if found is not None:
            return found
        if time.monotonic() > give_up:  # the cache keeps refusing the lock: compute anyway
            return compute(source)


def cached_standings(
    tournament: Any,
    after_round: int | None = None,
    *,
    provisional: bool = False,
    teams: bool = False,
) -> CompactStandings:
    """The standings after ``after_round`` (default: the latest published or finished round),
    from CONFIRMED tables only plus byes and deductions.

    ``teams``: the team standings of a team event (RULES.md §6): the rows' ``pair`` is then the
    team's number (``scoring.results.TeamField``: 1…T in registration order). Without it, the
    pairs' standings — in a team event, the pair ranking inside it (the second view).

    By default exact as the database is now (one query when cached: the results version).
    Pages pass ``provisional=True``: they go by the ``results_version`` of ``tournament`` as
    the request loaded it (no query when cached), and while another process recomputes they
    get the previous standings (``current`` False, ``as_of`` their time).
    """
    if provisional:
        version, created, settings = (
            tournament.results_version,
            tournament.created_at,
            tournament.settings,
        )
    else:
        version, created, settings = Tournament.objects.values_list(
            "results_version", "created_at", "settings"
        ).get(pk=tournament.pk)
    after = "latest" if after_round is None else after_round
    view = ":teams" if teams else ""
    pointer = (
        f"standings-at:{SCHEMA}:{tournament.pk}:{created.timestamp():.6f}{view}:{version}:{after}"
    )
    key = cache.get(pointer)
    found = _entry(key) if key is not None else None
    if found is not None:
        return found
    source = standings_source(tournament.pk, created, settings, after_round, teams=teams)
    found = _entry(source.key)
    if found is None:
        found = recompute(source, provisional)
        if not found.current:
            return found
    # What the source read is never older than ``version``: a result confirmed in between only
    # makes it newer.
    cache.set(pointer, source.key, STANDINGS_CACHE_SECONDS)
    return found
