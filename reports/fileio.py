"""Import and export of the tournament file (TOURNAMENT_FILE.md) to and from the database.

``import_tournament`` validates the whole file with the pure ``reports.fileformat`` first
(every problem, with where it is) and only then writes, all inside one ``transaction.atomic()``
with ``bulk_create`` (a 2,000-pair, 9-round file is a few dozen statements): bad input never
leaves half a tournament behind (STYLE.md "Errors"). ``export_tournament`` reads a tournament in
a fixed, small number of queries and gives the file back, so export → import → export is
byte-identical.

May touch: the ``tournaments``, ``pairing`` and ``scoring`` models (creating a new tournament and
everything in it; it never changes an existing one) and the pure core.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from pairing.stages import stage_finished
from reports.fileformat import (
    FileProblem,
    GameSpec,
    PairSpec,
    PenaltySpec,
    RoundSpec,
    TableSpec,
    TeamSpec,
    TournamentFileError,
    TournamentSpec,
    UnitSpec,
    parse_tournament,
    to_dict,
)
from rules.events import parse_event
from rules.levels import LOWEST
from scoring.engine import Start
from scoring.facts import MatchFacts, games_by_table, split_games, tokens_by_table
from scoring.models import Penalty, TableEvent, Via
from tournaments.models import (
    PAIR_CODE_ALPHABET,
    PAIR_CODE_LENGTH,
    Game,
    Pair,
    Player,
    Round,
    Seat,
    Table,
    Team,
    Tournament,
    Unit,
)

SLUG_MAX = 80
_SLUG = re.compile(r"^[-a-zA-Z0-9_]+$")
BATCH = 2000


def _unique_codes(count: int) -> list[str]:
    """``count`` distinct pair or captain codes (the database keeps them unique per tournament)."""
    import secrets

    codes: set[str] = set()
    while len(codes) < count:
        codes.add("".join(secrets.choice(PAIR_CODE_ALPHABET) for _ in range(PAIR_CODE_LENGTH)))
    return list(codes)


def choose_slug(name: str, slug: str | None) -> str:
    """The requested slug (refused if taken or malformed), else one made from the name (the
    benchmark times ``write_tournament`` with it)."""
    if slug is not None:
        if not _SLUG.match(slug) or len(slug) > SLUG_MAX:
            raise TournamentFileError([FileProblem("bad_slug", {"slug": slug})])
        if Tournament.objects.filter(slug=slug).exists():
            raise TournamentFileError([FileProblem("slug_taken", {"slug": slug})])
        return slug
    # Chinese names slugify to nothing: fall back to "tournament", then -2, -3 …
    base = (slugify(name) or "tournament")[: SLUG_MAX - 8].strip("-") or "tournament"
    taken = set(Tournament.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _status(spec: TournamentSpec) -> str:
    if not spec.rounds:
        return Tournament.Status.SETUP
    planned = spec.rules.rounds
    done = all(r.finished for r in spec.rounds)
    if done and planned is not None and len(spec.rounds) >= planned:
        return Tournament.Status.FINISHED
    return Tournament.Status.RUNNING


def import_tournament(data: Any, slug: str | None = None, user: Any = None) -> Tournament:
    """Create a tournament from a decoded tournament file; all or nothing.

    Raises ``TournamentFileError`` (every problem, see ``tournaments.messages``) before anything
    is written. ``user`` (if given) becomes an organizer of the new tournament and the enterer of
    its imported results.
    """
    spec = parse_tournament(data)
    with transaction.atomic():
        return write_tournament(spec, choose_slug(spec.name, slug), user)


def write_tournament(spec: TournamentSpec, slug: str, user: Any) -> Tournament:
    """Write a validated file as a new tournament; inside the caller's transaction
    (``import_tournament``)."""
    now = timezone.now()
    actor = user if getattr(user, "is_authenticated", False) else None
    tournament = Tournament.objects.create(
        name=spec.name, slug=slug, settings=spec.rules.to_dict(), status=_status(spec)
    )
    if actor is not None:
        tournament.organizers.add(actor)

    units = Unit.objects.bulk_create(
        [Unit(tournament=tournament, code=u.id, name=u.name) for u in spec.units]
    )
    unit_pk = {u.code: u.pk for u in units}
    codes = _unique_codes(len(spec.pairs))
    pairs = Pair.objects.bulk_create(
        [
            Pair(
                tournament=tournament,
                number=p.id,
                unit_id=unit_pk[p.unit] if p.unit is not None else None,
                status=p.status,
                seeding=p.seeding,
                code=code,
            )
            for p, code in zip(spec.pairs, codes, strict=True)
        ],
        batch_size=BATCH,
    )
    pair_pk = {p.number: p.pk for p in pairs}
    Player.objects.bulk_create(
        [
            Player(pair_id=pair_pk[p.id], position=position, name=name)
            for p in spec.pairs
            for position, name in enumerate(p.players, start=1)
        ],
        batch_size=BATCH,
    )
    team_pk: dict[str, int] = {}
    if spec.teams:
        captain_codes = _unique_codes(len(spec.teams))
        teams = Team.objects.bulk_create(
            [
                Team(
                    tournament=tournament,
                    code=t.id,
                    name=t.name,
                    unit_id=unit_pk[t.unit] if t.unit is not None else None,
                    status=t.status,
                    captain_code=code,
                )
                for t, code in zip(spec.teams, captain_codes, strict=True)
            ]
        )
        team_pk = {team.code: team.pk for team in teams}
        through = Team.pairs.through
        through.objects.bulk_create(
            [
                through(team_id=team.pk, pair_id=pair_pk[number])
                for team, t in zip(teams, spec.teams, strict=True)
                for number in t.pairs
            ]
        )

    rounds = Round.objects.bulk_create(
        [
            Round(
                tournament=tournament,
                number=r.number,
                stage=r.stage,
                status=r.status,
                seed=r.seed,
                bye_team_id=team_pk[r.bye_team] if r.bye_team is not None else None,
                published_at=now if r.status != Round.Status.DRAFT else None,
                finished_at=now if r.finished else None,
            )
            for r in spec.rounds
        ]
    )
    round_pk = {r.number: r.pk for r in rounds}

    table_rows: list[Table] = []
    keys: list[tuple[int, int]] = []  # (round number, table number) per row
    sources: list[TableSpec] = []
    for r in spec.rounds:
        next_bye = max((t.number or 0 for t in r.tables), default=0)
        for t in r.tables:
            if t.is_bye:
                next_bye += 1
                number = next_bye
            else:
                number = t.number  # type: ignore[assignment]
            table_rows.append(_table_row(r, t, number, round_pk[r.number], pair_pk, actor, now))
            keys.append((r.number, number))
            sources.append(t)
    tables = Table.objects.bulk_create(table_rows, batch_size=BATCH)
    table_pk = {key: table.pk for key, table in zip(keys, tables, strict=True)}

    # Seats and events are most of the rows: plain multi-row INSERTs of validated values, without
    # building a model instance per row (which is most of bulk_create's time at this size).
    stamp = connection.ops.adapt_datetimefield_value(now)
    actor_id = actor.pk if actor is not None else None
    seats: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    games: list[Game] = []
    for table, t in zip(tables, sources, strict=True):
        if t.is_bye:
            seats.append((table.round_id, table.pk, table.ns_id, Seat.Direction.BYE.value))
            continue
        seats.append((table.round_id, table.pk, table.ns_id, Seat.Direction.NS.value))
        seats.append((table.round_id, table.pk, table.ew_id, Seat.Direction.EW.value))
        table_events = list(t.events)
        # A best-of-n match: one event list, games 2 … as rows marking where each begins.
        for number, game in enumerate((t.games or ())[1:], start=2):
            start = game.start or Start()
            games.append(
                Game(
                    table_id=table.pk,
                    number=number,
                    first_position=len(table_events),
                    start_ns=start.ns,
                    start_ew=start.ew,
                    end_kind=game.end.kind if game.end else "",
                    end_side=game.end.side.value if game.end else "",
                    time_deals=game.time_deals,
                )
            )
            table_events.extend(game.events)
        events.extend(
            (table.pk, position, event.token, actor_id, Via.IMPORT.value, stamp)
            for position, event in enumerate(table_events)
        )
    Game.objects.bulk_create(games, batch_size=BATCH)
    _insert(Seat, ("round", "table", "pair", "direction"), seats)
    _insert(
        TableEvent,
        ("table", "position", "token", "entered_by", "entered_via", "created_at"),
        events,
    )

    Penalty.objects.bulk_create(
        [_penalty_row(p, tournament, round_pk, table_pk, pair_pk) for p in spec.penalties],
        batch_size=BATCH,
    )
    _mark_stage_ends(tournament, spec)
    return tournament


def _mark_stage_ends(tournament: Tournament, spec: TournamentSpec) -> None:
    """A stage's last round, finished in the file, is marked as ending it when the stage is
    over (``Round.ends_stage``, as ``pairing.services.finish_round`` marks it during play): its
    published-result deadline counts from it (``scoring.deadlines``)."""
    last: dict[int, int] = {}
    for r in spec.rounds:
        last[r.stage] = max(last.get(r.stage, 0), r.number)
    for stage, number in last.items():
        ended = next(r for r in spec.rounds if r.number == number).finished
        if ended and stage_finished(tournament, stage):
            Round.objects.filter(tournament=tournament, number=number).update(ends_stage=True)


def _insert(model: Any, fields: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
    """``INSERT INTO model (fields) VALUES …`` for every row, in batches (same transaction)."""
    if not rows:
        return
    quote = connection.ops.quote_name
    columns = ", ".join(quote(model._meta.get_field(name).column) for name in fields)
    marks = ", ".join(["%s"] * len(fields))
    # Names come from the model's own metadata; every value is a query parameter.
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({marks})"  # noqa: S608
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH * 5):
            cursor.executemany(sql, rows[start : start + BATCH * 5])


def _table_row(
    r: RoundSpec,
    t: TableSpec,
    number: int,
    round_id: int,
    pair_pk: dict[int, int],
    actor: Any,
    now: Any,
) -> Table:
    if t.is_bye:
        # As pairing.services.create_round: a bye has nothing to enter, it is confirmed at once.
        return Table(
            round_id=round_id,
            number=number,
            is_bye=True,
            ns_id=pair_pk[t.bye],  # type: ignore[index]
            ew=None,
            entry_status=Table.EntryStatus.CONFIRMED,
            group=t.group,
            slot=t.slot,
        )
    entry = r.entry_of(t)
    entered = entry in (Table.EntryStatus.ENTERED, Table.EntryStatus.CONFIRMED)
    confirmed = entry == Table.EntryStatus.CONFIRMED
    start = t.start or Start()
    return Table(
        round_id=round_id,
        number=number,
        is_bye=False,
        ns_id=pair_pk[t.ns],  # type: ignore[index]
        ew_id=pair_pk[t.ew],  # type: ignore[index]
        start_ns=start.ns,
        start_ew=start.ew,
        end_kind=t.end.kind if t.end else "",
        end_side=t.end.side.value if t.end else "",
        time_deals=t.time_deals,
        entry_status=entry,
        entered_by=actor if entered else None,
        entered_at=now if entered else None,
        confirmed_by=actor if confirmed else None,
        confirmed_via=Table.Via.IMPORT if confirmed else "",
        confirmed_at=now if confirmed else None,
        match=t.match,
        group=t.group,
        slot=t.slot,
    )


def _penalty_row(
    p: PenaltySpec,
    tournament: Tournament,
    round_pk: dict[int, int],
    table_pk: dict[tuple[int, int], int],
    pair_pk: dict[int, int],
) -> Penalty:
    return Penalty(
        tournament=tournament,
        round_id=round_pk[p.round] if p.round is not None else None,
        table_id=table_pk[(p.round, p.table)] if p.table is not None else None,  # type: ignore[index]
        pair_id=pair_pk[p.pair],
        kind=p.kind,
        deal=p.deal,
        jcf=Decimal(str(p.jcf)) if p.jcf is not None else None,
        reason=p.reason,
        referee_name=p.referee,
    )


# --------------------------------------------------------------------------------------------
# Export


def tournament_spec(tournament: Tournament) -> TournamentSpec:
    """Read a tournament into the file's dataclasses (ten queries whatever its size)."""
    t_id = tournament.pk
    units = [
        UnitSpec(code, name)
        for code, name in Unit.objects.filter(tournament_id=t_id)
        .order_by("pk")
        .values_list("code", "name")
    ]
    unit_code = dict(Unit.objects.filter(tournament_id=t_id).values_list("pk", "code"))
    players: dict[int, dict[int, str]] = defaultdict(dict)
    for pair_id, position, name in Player.objects.filter(pair__tournament_id=t_id).values_list(
        "pair_id", "position", "name"
    ):
        players[pair_id][position] = name
    pair_rows = list(
        Pair.objects.filter(tournament_id=t_id)
        .order_by("number")
        .values_list("pk", "number", "unit_id", "status", "seeding")
    )
    number_of = {pk: number for pk, number, *_ in pair_rows}
    pairs = tuple(
        PairSpec(
            number,
            (players[pk].get(1, ""), players[pk].get(2, "")),
            unit_code[unit_id] if unit_id is not None else None,
            status,
            seeding,
        )
        for pk, number, unit_id, status, seeding in pair_rows
    )
    members: dict[int, list[int]] = defaultdict(list)
    through = Team.pairs.through
    for team_id, pair_id in (
        through.objects.filter(team__tournament_id=t_id)
        .order_by("pk")
        .values_list("team_id", "pair_id")
    ):
        members[team_id].append(number_of[pair_id])
    team_rows = list(
        Team.objects.filter(tournament_id=t_id)
        .order_by("pk")
        .values_list("pk", "code", "name", "unit_id", "status")
    )
    teams = tuple(
        TeamSpec(
            code,
            name,
            tuple(members[pk]),
            unit_code[unit_id] if unit_id is not None else None,
            status,
        )
        for pk, code, name, unit_id, status in team_rows
    )
    team_code = {pk: code for pk, code, *_ in team_rows}

    tokens = tokens_by_table(TableEvent.objects.filter(table__round__tournament_id=t_id))
    game_rows = games_by_table(Game.objects.filter(table__round__tournament_id=t_id))
    rules = tournament.rules
    stage_of = dict(Round.objects.filter(tournament_id=t_id).values_list("pk", "stage"))
    tables_of: dict[int, list[TableSpec]] = defaultdict(list)
    table_number: dict[int, int | None] = {}
    for row in (
        Table.objects.filter(round__tournament_id=t_id)
        .order_by("round_id", "number")
        .values_list(
            "pk",
            "round_id",
            "number",
            "is_bye",
            "ns_id",
            "ew_id",
            "start_ns",
            "start_ew",
            "end_kind",
            "end_side",
            "entry_status",
            "match",
            "group",
            "slot",
        )
    ):
        pk, round_id, number, is_bye, ns, ew, start_ns, start_ew, end_kind, end_side = row[:10]
        entry, match, group, slot = row[10:]
        if is_bye:
            tables_of[round_id].append(
                TableSpec(None, None, None, bye=number_of[ns], group=group, slot=slot)
            )
            table_number[pk] = None
            continue
        facts = MatchFacts.from_columns(
            start_ns, start_ew, end_kind, end_side, tokens=tokens.get(pk, ())
        )
        games = None
        stage = stage_of[round_id]
        if rules.plays_series(stage) and rules.stage(stage).games > 1:
            games = tuple(_game_spec(game) for game in split_games(facts, game_rows.get(pk, [])))
            if (
                not facts.tokens
                and not game_rows.get(pk)
                and facts.start == Start()
                and not facts.end
            ):
                games = ()  # nothing played yet
            facts = split_games(facts, game_rows.get(pk, []))[0]
        first = _game_spec(facts)
        tables_of[round_id].append(
            TableSpec(
                number,
                number_of[ns],
                number_of[ew],
                first.events,
                first.start,
                first.end,
                None,
                match,
                entry,
                None,
                group,
                slot,
                games,
            )
        )
        table_number[pk] = number
    rounds = tuple(
        RoundSpec(
            number,
            status,
            tuple(tables_of[pk]),
            seed,
            team_code[bye_team] if bye_team is not None else None,
            stage,
        )
        for pk, number, status, seed, bye_team, stage in Round.objects.filter(tournament_id=t_id)
        .order_by("number")
        .values_list("pk", "number", "status", "seed", "bye_team_id", "stage")
    )
    penalties = tuple(
        PenaltySpec(
            number_of[pair_id],
            kind,
            round_number,
            table_number.get(table_id) if table_id is not None else None,
            deal,
            float(jcf) if jcf is not None else None,
            reason,
            referee_name or (referee or ""),
        )
        for pair_id, kind, round_number, table_id, deal, jcf, reason, referee_name, referee in (
            Penalty.objects.filter(tournament_id=t_id, withdrawn_at=None)
            .order_by("pk")
            .values_list(
                "pair_id",
                "kind",
                "round__number",
                "table_id",
                "deal",
                "jcf",
                "reason",
                "referee_name",
                "referee__username",
            )
        )
    )
    return TournamentSpec(tournament.name, tournament.rules, units, pairs, teams, rounds, penalties)


def _game_spec(facts: MatchFacts) -> GameSpec:
    """One game's (or a plain table's) facts as the file writes them: a default start left
    out (TOURNAMENT_FILE.md)."""
    start = None if facts.start == Start(LOWEST, LOWEST) else facts.start
    return GameSpec(tuple(parse_event(token) for token in facts.tokens), start, facts.end)


def export_tournament(tournament: Tournament) -> dict[str, Any]:
    """The tournament file of ``tournament`` (``fileformat.dumps`` gives its canonical text)."""
    return to_dict(tournament_spec(tournament))
