"""The referee desk's queries: each table's state and problems across a round (cached per
round and results version), the filters, and the escalations due in a round."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import (
    Count,
    Exists,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
)

from rules.errors import RuleError
from rules.ruleset import RuleSet
from scoring.facts import (
    FACT_COLUMNS,
    MatchFacts,
    games_by_table,
    score_games,
    score_table,
    split_games,
    tokens_by_table,
)
from scoring.models import Penalty, TableEvent
from scoring.penalties import Escalation, escalation_from_counts
from scoring.sheet import TableStatus, match_finished
from tournaments.models import Game, Pair, Player, Round, Table
from tournaments.wording import penalty_kind_label

PROBLEMS_CACHE_SECONDS = 600


def is_problem(entry_status: str, facts: MatchFacts, rules: RuleSet) -> bool:
    """Pure: the "problem" half of ``table_status`` without wording a sheet (the round-wide
    scan): the engine refuses the stored events, or the table is marked entered/confirmed but
    its match is not finished."""
    try:
        result = score_table(facts, rules)
    except RuleError:
        return True
    return entry_status in ("entered", "confirmed") and not match_finished(result, rules)


def is_match_problem(
    entry_status: str, games: Sequence[MatchFacts], rules: RuleSet, best_of: int
) -> bool:
    """``is_problem`` for a knockout table: a game the engine refuses, or a sheet marked
    entered/confirmed whose match is not decided."""
    try:
        series = score_games(games, rules, best_of, closed=False)
    except RuleError:
        return True
    return entry_status in ("entered", "confirmed") and series.winner is None


@dataclass(frozen=True, slots=True)
class RoundOverview:
    """The round's counts from one aggregate query (byes apart), and a fingerprint that
    changes whenever any of its tables does (every service write bumps a table's version)."""

    total: int
    confirmed: int
    entered: int
    in_progress: int
    fingerprint: str

    @property
    def not_started(self) -> int:
        return self.total - self.confirmed - self.entered - self.in_progress


def round_overview(rnd: Round, rules: RuleSet) -> RoundOverview:
    """Counts by entry state for the whole round: one query whatever its size."""
    match = Q(is_bye=False)
    has_facts = Q(has_events=True) | ~Q(end_kind="")
    row = (
        Table.objects.filter(round=rnd)
        .annotate(has_events=Exists(TableEvent.objects.filter(table=OuterRef("pk"))))
        .aggregate(
            total=Count("pk", filter=match),
            confirmed=Count("pk", filter=match & Q(entry_status=Table.EntryStatus.CONFIRMED)),
            entered=Count("pk", filter=match & Q(entry_status=Table.EntryStatus.ENTERED)),
            in_progress=Count(
                "pk", filter=match & Q(entry_status=Table.EntryStatus.OPEN) & has_facts
            ),
            versions=Sum("version"),
            last=Max("pk"),
            n=Count("pk"),
        )
    )
    # The rules are part of the key: a sheet the rules no longer accept is a problem.
    settings_digest = hashlib.sha256(
        json.dumps(rules.to_dict(), sort_keys=True, default=str).encode()
    ).hexdigest()[:16]
    created = rnd.tournament.created_at.timestamp()
    fingerprint = (
        f"{rnd.pk}:{created:.6f}:{row['n']}:{row['last']}:{row['versions'] or 0}:{settings_digest}"
    )
    return RoundOverview(
        total=row["total"],
        confirmed=row["confirmed"],
        entered=row["entered"],
        in_progress=row["in_progress"],
        fingerprint=fingerprint,
    )


def round_problems(rnd: Round, rules: RuleSet, overview: RoundOverview) -> dict[int, str]:
    """Every problem table of the round: ``{table pk: its entry-state bucket}`` (the status it
    would have had, so the summary can move it to "problem").

    The one round-wide scan (two lean queries, no model instances, ~µs a match in the engine),
    cached under the round's fingerprint: any write to any table of the round, or a change of
    the rules, makes a new key."""
    key = f"round-problems:{overview.fingerprint}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    rows = Table.objects.filter(round=rnd, is_bye=False).values_list(
        "pk", "entry_status", *FACT_COLUMNS
    )
    tokens = tokens_by_table(TableEvent.objects.filter(table__round=rnd))
    # RULES.md §8: a table is scored by its stage's rules; a series (a knockout) game by game.
    series = rules.plays_series(rnd.stage)
    best_of = rules.stage(rnd.stage).games if series else 1
    games = games_by_table(Game.objects.filter(table__round=rnd)) if series else {}
    rules = rules.for_stage(rnd.stage)
    problems: dict[int, str] = {}
    for pk, entry_status, *columns in rows:
        facts = MatchFacts.from_columns(*columns, tokens=tokens.get(pk, ()))
        if series:
            problem = is_match_problem(
                entry_status, split_games(facts, games.get(pk, [])), rules, best_of
            )
        else:
            problem = is_problem(entry_status, facts, rules)
        if problem:
            if entry_status in (TableStatus.CONFIRMED, TableStatus.ENTERED):
                problems[pk] = entry_status
            elif facts.has_facts:
                problems[pk] = TableStatus.IN_PROGRESS
            else:
                problems[pk] = TableStatus.NOT_STARTED
    cache.set(key, problems, PROBLEMS_CACHE_SECONDS)
    return problems


def filtered_tables(
    rnd: Round,
    show: str,
    user_id: int,
    problems: dict[int, str],
    assigned: tuple[int, int] | None = None,
) -> QuerySet[Table]:
    """The round's tables under a filter, in SQL, so the page is a LIMIT/OFFSET slice.

    "我的桌" (``mine``) is the referee's assigned tables (``tournaments.staff``) when the
    organizer gave a range, else the tables the referee entered or confirmed."""
    tables = Table.objects.filter(round=rnd)
    if show == "mine" and assigned is not None:
        tables = tables.filter(number__gte=assigned[0], number__lte=assigned[1])
    elif show == "mine":
        mine_events = TableEvent.objects.filter(table=OuterRef("pk"), entered_by_id=user_id)
        tables = tables.filter(
            Q(entered_by_id=user_id) | Q(confirmed_by_id=user_id) | Exists(mine_events)
        )
    elif show == "unconfirmed":
        # A confirmed table with a problem still needs a referee: it is "unconfirmed" too.
        confirmed_problems = [pk for pk, bucket in problems.items() if bucket == "confirmed"]
        tables = tables.filter(is_bye=False).filter(
            ~Q(entry_status=Table.EntryStatus.CONFIRMED) | Q(pk__in=confirmed_problems)
        )
    elif show == "problem":
        tables = tables.filter(pk__in=list(problems))
    return tables.order_by("number")


def desk_stamp(rnd: Round) -> str:
    """What the desk's refresh compares (``static/js/desk.js``): it changes with every write to
    a table of the round (each bumps ``Table.version``), every penalty recorded or withdrawn and
    the round clock. One query whatever the round's size."""

    def scalar(query: QuerySet[Any], value: Any) -> Any:
        return Subquery(query.order_by().values("round").annotate(x=value).values("x")[:1])

    tables = Table.objects.filter(round=OuterRef("pk"))
    penalties = Penalty.objects.filter(round=OuterRef("pk"))
    row = (
        Round.objects.filter(pk=rnd.pk)
        .annotate(
            v=scalar(tables, Sum("version")),
            n=scalar(tables, Count("id")),
            p=scalar(penalties, Count("id")),
            w=scalar(penalties, Count("withdrawn_at")),
        )
        .values_list("v", "n", "p", "w", "started_at", "minutes", "status")
        .get()
    )
    version, n_tables, n_penalties, withdrawn, started, minutes, status = row
    started_at = started.timestamp() if started else 0
    return (
        f"{n_tables or 0}.{version or 0}.{n_penalties or 0}.{withdrawn or 0}."
        f"{started_at:.0f}.{minutes or 0}.{status}"
    )


def escalations_due(rnd: Round, pair_ids: Iterable[int] | None = None) -> dict[int, Escalation]:
    """The escalation due for each pair of a round (only ``pair_ids`` when given), from one
    aggregate query (the rule is the pure ``escalation_from_counts``)."""
    counts: dict[int, dict[tuple[str, bool], int]] = {}
    penalties = Penalty.objects.filter(round=rnd, withdrawn_at=None)
    if pair_ids is not None:
        penalties = penalties.filter(pair_id__in=list(pair_ids))
    rows = penalties.values_list("pair_id", "kind", "escalation").annotate(n=Count("id")).order_by()
    for pair_id, kind, escalated, n in rows:
        counts.setdefault(pair_id, {})[(kind, escalated)] = n
    due = {pk: escalation_from_counts(c) for pk, c in counts.items()}
    return {pk: s for pk, s in due.items() if s is not None}


def suggestion_row(pair: Pair, due: Escalation) -> dict[str, Any]:
    """One escalation suggestion as the pages show it."""
    return {
        "pair": pair,
        "kind": due.kind,
        "kind_label": penalty_kind_label(due.kind),
        "because_label": penalty_kind_label(due.because_of),
        "count": due.count,
    }


def round_suggestions(rnd: Round) -> list[dict[str, Any]]:
    """Every escalation due in a round (two queries: the counts, then the pairs concerned)."""
    due = escalations_due(rnd)
    if not due:
        return []
    pairs = Pair.objects.filter(pk__in=due).prefetch_related(
        Prefetch("players", queryset=Player.objects.order_by("position"))
    )
    return [suggestion_row(pair, due[pair.pk]) for pair in sorted(pairs, key=lambda p: p.number)]
