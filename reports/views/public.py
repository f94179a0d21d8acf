"""The public pages players use without logging in: the site's home and language switch, a
tournament's page, "find my table", standings, a pair's history, the projector and the published
rounds' pairings.

They sit in ``reports`` (the top layer) because they read everything below: registrations,
rounds, results and standings. Views are thin (STYLE.md) and read only, with bounded queries
(every list is paginated or limited).

Public pages never show anything private: no pair codes, no table entry links, no draft rounds.
For anonymous visitors (no session cookie) they are cached for ``PUBLIC_CACHE_SECONDS`` under a
key that includes the tournament's ``results_version``, so a confirmed result or a published
round shows at once; responses carry ``Cache-Control: public``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.conf import settings as django_settings
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.safestring import mark_safe
from django.utils.translation import check_for_language, get_language

from guandan_tourney.redirects import safe_next
from pairing.forms import TableFilterForm
from pairing.queries import round_progress, round_tables, table_names, table_states
from pairing.stages import stage_finished
from reports.pagecache import normalise_query
from reports.stages import (
    bracket_rounds,
    group_rows,
    knockout_stages,
    pair_path,
    placings_rows,
)
from reports.tables import STANDINGS_PER_PAGE, StandingsData, StandingsTable
from rules.events import Side
from scoring.cache import CompactStandings, cached_standings
from scoring.clock import clock_of
from scoring.facts import score_table, table_facts
from scoring.matches import matches_of_team, team_matches
from scoring.results import team_field
from tournaments.bounds import INT_MAX, clamp_int, parse_int
from tournaments.forms import FindForm
from tournaments.models import Pair, Player, Round, Table, Team, Tournament
from tournaments.permissions import Role, can_create_tournaments, roles_of
from tournaments.queries import members_by_team, names_by_pair, pairs_with_players
from tournaments.search import is_pinyin_query, name_matches, pairs_by_pinyin, spellings
from tournaments.wording import seat_label, table_state, table_state_label

PUBLIC_CACHE_SECONDS = 30
PUBLIC_MAX_AGE = 15
VISIBLE_ROUNDS = (Round.Status.PUBLISHED, Round.Status.FINISHED)
FIND_LIMIT = 20


def _is_anonymous_request(request: HttpRequest) -> bool:
    """No session and no pending messages: the page is the same for every such visitor."""
    cookies = request.COOKIES
    return django_settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies


def public_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A public tournament page: loads ``tournament`` from ``slug``, caches anonymous GETs.

    The cache key holds the path with its query — reduced to the page's known parameters,
    normalised (``reports.pagecache``) — the language and the tournament's ``results_version``
    (bumped by every result, publication and registration).
    """

    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        normalise_query(request)
        tournament = get_object_or_404(Tournament, slug=slug)
        cacheable = request.method in ("GET", "HEAD") and _is_anonymous_request(request)
        if not cacheable:
            response = view(request, tournament=tournament, **kwargs)
            patch_cache_control(response, private=True, max_age=0)
            return response
        raw = "|".join(
            (
                str(tournament.pk),
                str(tournament.results_version),
                tournament.created_at.isoformat(),
                get_language() or "",
                request.get_full_path(),
            )
        )
        key = "public-page:" + hashlib.sha256(raw.encode()).hexdigest()
        hit = cache.get(key)
        if hit is not None:
            content, content_type = hit
            response = HttpResponse(content, content_type=content_type)
        else:
            response = view(request, tournament=tournament, **kwargs)
            if getattr(response, "provisional_standings", False):
                patch_cache_control(response, private=True, max_age=0)
                return response
            if response.status_code == 200 and not response.cookies and not response.streaming:
                if hasattr(response, "render") and not response.is_rendered:
                    response.render()
                cache.set(key, (response.content, response["Content-Type"]), PUBLIC_CACHE_SECONDS)
        if response.status_code == 200:
            patch_cache_control(response, public=True, max_age=PUBLIC_MAX_AGE)
        return response

    return wrapper


def _visible_rounds(tournament: Tournament) -> list[Round]:
    return list(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS).order_by("number")
    )


@dataclass(frozen=True, slots=True)
class StandingsRound:
    """Which standings the public pages show by default: after ``after``, the latest round
    whose tables are all confirmed (and every round before it); ``pending`` the round being
    played after it — its number and how many of its tables are confirmed — if any. Every page
    asks for the same ``after`` so they share one cache entry (one computation a result)."""

    after: int
    pending: dict[str, int] | None


def standings_round(tournament: Tournament) -> StandingsRound:
    """The latest complete round and the one in play after it (one query)."""
    counts = (
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS)
        .annotate(
            total=Count("tables", filter=Q(tables__is_bye=False)),
            confirmed=Count(
                "tables",
                filter=Q(tables__is_bye=False, tables__entry_status=Table.EntryStatus.CONFIRMED),
            ),
        )
        .order_by("number")
        .values_list("number", "total", "confirmed")
    )
    after = 0
    for number, total, confirmed in counts:
        if confirmed < total:
            return StandingsRound(after, {"number": number, "confirmed": confirmed, "total": total})
        after = number
    return StandingsRound(after, None)


def _as_of(response: HttpResponse, rows: CompactStandings | None) -> HttpResponse:
    """A page showing the previous standings while newer ones are computed (they say so, with
    their time: ``standings.current``/``as_of`` in the template) is never kept by the page
    cache, nor by browsers or proxies."""
    if rows is not None and not rows.current:
        response.provisional_standings = True  # type: ignore[attr-defined]
    return response


# --------------------------------------------------------------------------------------------
# Site-wide pages


def home(request: HttpRequest) -> HttpResponse:
    """Every tournament, newest first, with its state; "my tournaments" for staff."""
    tournaments = list(
        Tournament.objects.annotate(
            pair_count=Count("pairs", distinct=True),
        ).order_by("-created_at")[:100]
    )
    mine: list[tuple[Tournament, Role]] = []
    if request.user.is_authenticated:
        for tournament in tournaments:
            roles = roles_of(request.user, tournament)
            if roles:
                top = next(
                    r for r in (Role.ORGANIZER, Role.CHIEF_REFEREE, Role.REFEREE) if r in roles
                )
                mine.append((tournament, top))
    can_create = can_create_tournaments(request.user)
    return render(
        request,
        "tournaments/home.html",
        {"tournaments": tournaments, "mine": mine, "can_create": can_create},
    )


def language(request: HttpRequest, code: str) -> HttpResponse:
    """Switch the language by a plain link (no form, so public pages carry no CSRF token and
    stay cacheable); only the language cookie changes."""
    if not check_for_language(code) or code not in dict(django_settings.LANGUAGES):
        raise Http404
    response = HttpResponseRedirect(safe_next(request, request.GET.get("next"), "/"))
    response.set_cookie(
        django_settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=django_settings.LANGUAGE_COOKIE_AGE,
        path=django_settings.LANGUAGE_COOKIE_PATH,
        samesite="Lax",
    )
    return response


# --------------------------------------------------------------------------------------------
# Public tournament pages


@public_page
def detail(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Tournament home: state, rounds, progress of the current round, links."""
    rounds = _visible_rounds(tournament)
    current = rounds[-1] if rounds else None
    progress = None
    if current is not None:
        counts = Table.objects.filter(round=current, is_bye=False).aggregate(
            total=Count("pk"),
            confirmed=Count("pk", filter=Q(entry_status=Table.EntryStatus.CONFIRMED)),
        )
        progress = counts
    pair_counts = Pair.objects.filter(tournament=tournament).aggregate(
        total=Count("pk"), active=Count("pk", filter=Q(status=Pair.Status.ACTIVE))
    )
    rules = tournament.rules
    return render(
        request,
        "tournaments/detail.html",
        {
            "tournament": tournament,
            "nav": "home",
            "rounds": rounds,
            "current": current,
            "progress": progress,
            "pair_counts": pair_counts,
            "rules": rules,
            "find_form": FindForm(),
        },
    )


def _seat_rows(
    tournament: Tournament, rnd: Round, pairs: list[Pair], query: str = ""
) -> list[dict[str, Any]]:
    """Where each pair sits in ``rnd``: table, direction, each player's seat, opponents (two
    queries)."""
    numbers = [p.pk for p in pairs]
    tables = (
        Table.objects.filter(round=rnd)
        .filter(Q(ns_id__in=numbers) | Q(ew_id__in=numbers))
        .select_related("ns__unit", "ew__unit")
        .prefetch_related(
            Prefetch("ns__players", queryset=Player.objects.order_by("position")),
            Prefetch("ew__players", queryset=Player.objects.order_by("position")),
        )
    )
    seat: dict[int, tuple[Table, str]] = {}
    for table in tables:
        if table.is_bye:
            seat[table.ns_id] = (table, "BYE")
        else:
            seat[table.ns_id] = (table, "NS")
            seat[table.ew_id] = (table, "EW")
    rows = []
    for pair in pairs:
        found = seat.get(pair.pk)
        row: dict[str, Any] = {"pair": pair, "table": None, "direction": None, "opponent": None}
        if found is not None:
            table, direction = found
            row["table"] = table
            row["direction"] = direction
            if direction == "NS":
                row["opponent"] = table.ew
            elif direction == "EW":
                row["opponent"] = table.ns
            if direction in ("NS", "EW"):
                # Each player's own seat (北/南, 东/西), the one searched for marked.
                row["seats"] = [
                    {
                        "seat": seat_label(direction, player.position),
                        "name": player.name,
                        "found": name_matches(player.name, query),
                    }
                    for player in pair.players.all()
                ]
                found = [s["seat"] for s in row["seats"] if s["found"]]
                row["my_seat"] = found[0] if len(found) == 1 else ""
        rows.append(row)
    return rows


def search_pairs(tournament: Tournament, query: str, limit: int = FIND_LIMIT) -> list[Pair]:
    """Pairs whose number is ``query`` or a player's name contains it, in simplified or
    traditional characters, or whose pinyin (full or initials) matches it
    (``tournaments.search``; bounded)."""
    query = query.strip()
    condition = Q()
    for spelling in spellings(query):
        condition |= Q(players__name__icontains=spelling)
    if (number := parse_int(query, minimum=1)) is not None:
        condition |= Q(number=number)
    if is_pinyin_query(query):
        condition |= Q(pk__in=pairs_by_pinyin(tournament, query, limit))
    ids = list(
        Pair.objects.filter(tournament=tournament)
        .filter(condition)
        .order_by("number")
        .values_list("pk", flat=True)
        .distinct()[:limit]
    )
    return list(pairs_with_players(Pair.objects.filter(pk__in=ids)).order_by("number"))


@public_page
def find(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """找座位: part of a name (or the pair number) → round, table, direction, opponents."""
    form = FindForm(request.GET or None)
    rounds = _visible_rounds(tournament)
    current = rounds[-1] if rounds else None
    results: list[dict[str, Any]] = []
    searched = False
    if form.is_valid():
        searched = True
        pairs = search_pairs(tournament, form.cleaned_data["q"])
        if current is not None:
            results = _seat_rows(tournament, current, pairs, form.cleaned_data["q"])
        else:
            results = [
                {"pair": p, "table": None, "direction": None, "opponent": None} for p in pairs
            ]
    return render(
        request,
        "tournaments/find.html",
        {
            "tournament": tournament,
            "nav": "find",
            "form": form,
            "current": current,
            "results": results,
            "searched": searched,
            "limit": FIND_LIMIT,
        },
    )


def _standings_context(
    request: HttpRequest, tournament: Tournament, per_page: int = STANDINGS_PER_PAGE
) -> dict[str, Any]:
    rounds = _visible_rounds(tournament)
    latest = rounds[-1].number if rounds else 0
    default = standings_round(tournament)
    after = clamp_int(request.GET.get("after"), default=default.after, minimum=0, maximum=latest)
    # A team event ranks its teams; its pair ranking is the second view (?view=pairs).
    team_event = tournament.rules.event == "teams"
    field = team_field(tournament.pk) if team_event and request.GET.get("view") != "pairs" else None
    rows = cached_standings(tournament, after_round=after, provisional=True, teams=bool(field))
    mine: set[int] = set()
    query = (request.GET.get("q") or "").strip()[:50]
    if (pair := parse_int(request.GET.get("pair"), minimum=1)) is not None and field is None:
        mine.add(pair)
    if query and field is None:
        mine.update(p.number for p in search_pairs(tournament, query, limit=FIND_LIMIT))
    elif query and field is not None:
        found = search_pairs(tournament, query, limit=FIND_LIMIT)
        mine.update(field.team_of[p.number] for p in found if p.number in field.team_of)
        number_of = field.number_of_pk
        mine.update(
            number_of[pk]
            for pk in Team.objects.filter(tournament=tournament, name__icontains=query).values_list(
                "pk", flat=True
            )[:FIND_LIMIT]
        )
    page = request.GET.get("page")
    if mine and not page:
        index = rows.first_index(mine)
        if index is not None:
            page = str(index // per_page + 1)
    rules = tournament.rules
    criteria = ("cf", *rules.tiebreaks)

    def table() -> StandingsTable:
        data = StandingsData(tournament, rows, mine, teams=field)
        return StandingsTable(data, criteria, per_page=per_page, page=page or 1)

    return {
        "tournament": tournament,
        "table_html": _standings_table_html(request, rows, table, cacheable=not mine),
        "rounds": rounds,
        "after": after,
        "latest": latest,
        "pending": default.pending if after == default.after else None,
        "query": query,
        "found": bool(mine),
        "criteria": criteria,
        "standings": rows,
        "team_event": team_event,
        "team_view": field is not None,
    }


# How long a rendered page of the standings table is kept: as long as a public page (the names
# and units in it may change without a new results version, as the page cache already allows).
STANDINGS_TABLE_SECONDS = PUBLIC_CACHE_SECONDS


def _standings_table_html(
    request: HttpRequest,
    rows: CompactStandings,
    table: Callable[[], StandingsTable],
    cacheable: bool,
) -> str:
    """One page of the standings table (``tournaments/_standings_table.html``), rendered once
    for every visitor of the same standings (issue 18).

    The page cache (``public_page``) is keyed by the tournament's results version, which every
    confirmation changes; the table is keyed by the standings it shows (``rows.key``, the
    version of their inputs), the request's path and query (the pager's links) and the
    language. So after a confirmation in round 9 the standings after round 8 — the default
    while round 9 is played — are not read again, and their names are not queried again: only
    the page around them is rendered. Not cached when the page marks the visitor's own pair
    (``cacheable`` False) or the standings are in no cache entry."""
    if not cacheable or rows.key is None:
        return render_to_string("tournaments/_standings_table.html", {"table": table()}, request)
    raw = "|".join((rows.key, get_language() or "", request.get_full_path()))
    key = "standings-table:" + hashlib.sha256(raw.encode()).hexdigest()
    html: str | None = cache.get(key)
    if html is None:
        html = render_to_string("tournaments/_standings_table.html", {"table": table()}, request)
        cache.set(key, html, STANDINGS_TABLE_SECONDS)
    return mark_safe(html)  # noqa: S308 (the template's own escaped output)


@public_page
def standings(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """名次 after any round, with the tiebreak columns and which criterion decided each row."""
    context = _standings_context(request, tournament)
    context["nav"] = "standings"
    response = render(request, "tournaments/standings.html", context)
    return _as_of(response, context["standings"])


def pair_history(tournament: Tournament, pair: Pair) -> list[dict[str, Any]]:
    """Every visible round of ``pair``: opponent, levels, 级差, 级差分, 场分 and the deals.

    Results are shown for confirmed tables only (what the standings count); a table still
    being played shows as such. Three queries whatever the number of rounds.
    """
    tables = list(
        Table.objects.filter(Q(ns=pair) | Q(ew=pair), round__status__in=VISIBLE_ROUNDS)
        .select_related("round", "ns", "ew")
        .prefetch_related(
            "events",
            Prefetch("ns__players", queryset=Player.objects.order_by("position")),
            Prefetch("ew__players", queryset=Player.objects.order_by("position")),
        )
        .order_by("round__number")
    )
    rules = tournament.rules
    history = []
    for table in tables:
        entry: dict[str, Any] = {"round": table.round, "table": table, "bye": table.is_bye}
        if table.is_bye:
            entry.update({"cf": rules.bye.cf, "jcf": rules.bye.jcf, "confirmed": True})
            history.append(entry)
            continue
        mine = Side.NS if table.ns_id == pair.pk else Side.EW
        entry["direction"] = str(mine)
        entry["opponent"] = table.ew if mine is Side.NS else table.ns
        entry["confirmed"] = table.entry_status == Table.EntryStatus.CONFIRMED
        entry["state_label"] = table_state_label(
            table_state(
                table.entry_status,
                is_bye=False,
                has_facts=bool(table.events.all()) or bool(table.end_kind),
            )
        )
        if entry["confirmed"]:
            try:
                # Each stage's tables by its rules (RULES.md §8); a knockout match of several
                # games is not one match here (its page is the bracket's).
                result = score_table(table_facts(table), rules.for_stage(table.round.stage))
            except Exception:  # a bad record must not break a public page
                entry["confirmed"] = False
                history.append(entry)
                continue
            other = mine.other
            # A forfeit or a late scoresheet (RULES.md §2) is a loss for the side responsible
            # whatever the levels say (0 CF, 0 JCF, 0 级差); the other side keeps the result of
            # the deals.
            lost_by_end = result.lost_by_end(mine)
            entry.update(
                {
                    "my_level": result.level(mine),
                    "their_level": result.level(other),
                    "jc": 0
                    if lost_by_end or result.forfeit
                    else result.level(mine) - result.level(other),
                    "jcf": result.jcf(mine),
                    "cf": result.cf(mine),
                    "won": result.winner is mine and not lost_by_end,
                    "lost": lost_by_end or result.winner is other,
                    "forfeit": result.forfeit,
                    "penalty_loss": result.penalty_loss,
                    "late_sheet": result.late_sheet,
                    "steps": [
                        {
                            "deal": step.deal_number,
                            "token": step.event.token,
                            "level_played": step.level_played,
                            "mine": step.ns_level if mine is Side.NS else step.ew_level,
                            "theirs": step.ew_level if mine is Side.NS else step.ns_level,
                        }
                        for step in result.steps
                    ],
                }
            )
        history.append(entry)
    return history


@public_page
def pair_detail(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """A pair's page: its standing and every round with the deals."""
    pair = get_object_or_404(
        pairs_with_players(Pair.objects.filter(tournament=tournament)), number=number
    )
    default = standings_round(tournament)
    rows = cached_standings(tournament, after_round=default.after, provisional=True)
    row = rows.rows_of([pair.number]).get(pair.number)
    response = render(
        request,
        "tournaments/pair.html",
        {
            "tournament": tournament,
            "nav": "standings",
            "pair": pair,
            "row": row,
            "history": pair_history(tournament, pair),
            "path": pair_path(tournament, pair.number),
            "per_page": STANDINGS_PER_PAGE,
            "standings": rows,
            "after": default.after,
            "pending": default.pending,
        },
    )
    return _as_of(response, rows)


# Rows sent per load: the script shows as many as fit the screen at a time, then loads the next
# chunk (or the first again, which also refreshes the data).
PROJECTOR_CHUNK = 200
PROJECTOR_SECONDS = 12


@public_page
def projector(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Large-type pages for a projector, advanced by ``static/js/projector.js``.

    ``show=pairings`` (default while a round is being played) or ``standings``; ``offset``
    picks the chunk of rows. The script measures the screen and the rows, shows as many rows as
    fit, one screenful every ``seconds``, so every row appears once a cycle whatever the
    screen; after the last one it loads ``next_url`` (the next chunk, or the first one again).
    """
    rounds = _visible_rounds(tournament)
    current = rounds[-1] if rounds else None
    default = "pairings" if current and current.status == Round.Status.PUBLISHED else "standings"
    show = request.GET.get("show", default)
    if show not in ("pairings", "standings"):
        show = default
    offset = clamp_int(request.GET.get("offset"), default=0, minimum=0, maximum=INT_MAX)
    chunk = PROJECTOR_CHUNK
    standings_rows: CompactStandings | None = None
    standings_at: StandingsRound | None = None
    total = 0
    if show == "pairings" and current is not None:
        base = Table.objects.filter(round=current)
        total = base.count()
        tables = list(base.order_by("number").select_related("ns", "ew")[offset : offset + chunk])
        names = names_by_pair({pid for t in tables for pid in (t.ns_id, t.ew_id) if pid})
        items = [
            {"table": t, "ns_names": names.get(t.ns_id, ""), "ew_names": names.get(t.ew_id, "")}
            for t in tables
        ]
    elif show == "standings":
        standings_at = standings_round(tournament)
        standings_rows = cached_standings(
            tournament, after_round=standings_at.after, provisional=True
        )
        total = len(standings_rows)
        items = list(StandingsData(tournament, standings_rows, set())[offset : offset + chunk])
    else:
        items = []
    # The round clock of the round being played (计时制 / 计时计副制: time left, "最后一副").
    now = timezone.now()
    clock = (
        clock_of(current, tournament.rules, now)
        if current is not None and current.status == Round.Status.PUBLISHED
        else None
    )
    next_offset = offset + chunk if offset + chunk < total else 0
    next_url = (
        reverse("public:projector", args=[tournament.slug]) + f"?show={show}&offset={next_offset}"
    )
    response = render(
        request,
        "tournaments/projector.html",
        {
            "tournament": tournament,
            "show": show,
            "current": current,
            "items": items,
            "next_url": next_url,
            "seconds": PROJECTOR_SECONDS,
            "offset": offset,
            "standings": standings_rows,
            "after": standings_at.after if standings_at else None,
            "pending": standings_at.pending if standings_at else None,
            "clock": clock,
            "clock_now": int(now.timestamp()),
        },
    )
    return _as_of(response, standings_rows)


ROUND_TABLES_PER_PAGE = 100


@public_page
def rounds(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every published round, with its state and progress."""
    visible = list(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS)
        .annotate(
            table_count=Count("tables", filter=Q(tables__is_bye=False)),
            confirmed=Count(
                "tables",
                filter=Q(tables__is_bye=False, tables__entry_status=Table.EntryStatus.CONFIRMED),
            ),
        )
        .order_by("number")
    )
    return render(
        request,
        "pairing/rounds.html",
        {"tournament": tournament, "nav": "rounds", "rounds": visible},
    )


@public_page
def round_public(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The pairings of a published round: table, 南北, 东西, state; filter by name or number."""
    rnd = get_object_or_404(Round, tournament=tournament, number=number, status__in=VISIBLE_ROUNDS)
    form = TableFilterForm(request.GET or None)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    paginator = Paginator(round_tables(rnd, query), ROUND_TABLES_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    tables = list(page.object_list)
    rows = []
    for table, state in zip(tables, table_states(tables), strict=True):
        rows.append({"table": table, "state": state, "status": table_state_label(state)})
    others = list(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS)
        .order_by("number")
        .values_list("number", flat=True)
    )
    matches = None
    if tournament.rules.event == "teams":  # both tables of the page's matches, combined
        numbers = {t.match for t in tables if t.match is not None}
        matches = team_matches(Table.objects.filter(round=rnd, match__in=numbers), tournament.rules)
    return render(
        request,
        "pairing/round_public.html",
        {
            "matches": matches,
            "tournament": tournament,
            "nav": "rounds",
            "round": rnd,
            "page": page,
            "rows": rows,
            "names": table_names(tables),
            "form": form,
            "query": query,
            "numbers": others,
            "progress": round_progress(rnd),
        },
    )


# --------------------------------------------------------------------------------------------
# Team events (RULES.md §6)

TEAMS_PER_PAGE = 100


def _team_event(tournament: Tournament) -> None:
    if tournament.rules.event != "teams":
        raise Http404


@public_page
def teams(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """参赛队: every team with its unit and its pairs (no codes), paginated."""
    _team_event(tournament)
    listing = Team.objects.filter(tournament=tournament).select_related("unit").order_by("pk")
    page = Paginator(listing, TEAMS_PER_PAGE).get_page(request.GET.get("page"))
    members = members_by_team(Team.objects.filter(pk__in=[t.pk for t in page]))
    return render(
        request,
        "reports/teams.html",
        {
            "tournament": tournament,
            "nav": "public_teams",
            "page": page,
            "rows": [(team, members.get(team.pk, [])) for team in page],
        },
    )


@public_page
def team_detail(request: HttpRequest, tournament: Tournament, code: str) -> HttpResponse:
    """A team's page: its pairs, its standing and every match (both tables, the combined
    result once both are confirmed)."""
    _team_event(tournament)
    team = get_object_or_404(
        Team.objects.select_related("unit"), tournament=tournament, code=code[:32]
    )
    default = standings_round(tournament)
    rows = cached_standings(tournament, after_round=default.after, provisional=True, teams=True)
    field = team_field(tournament.pk)
    number = field.number_of_pk.get(team.pk)
    row = rows.rows_of([number]).get(number) if number is not None else None
    matches = matches_of_team(team, _visible_rounds(tournament))
    bye_rounds = list(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS, bye_team=team)
        .order_by("number")
        .values_list("number", flat=True)
    )
    response = render(
        request,
        "reports/team.html",
        {
            "tournament": tournament,
            "nav": "public_teams",
            "team": team,
            "pairs": members_by_team(Team.objects.filter(pk=team.pk)).get(team.pk, []),
            "row": row,
            "matches": [
                {
                    "match": m,
                    "opponent": m.opponent_of(team),
                    "outcome": m.outcome_of(team),
                    "home": m.home is not None and m.home.pk == team.pk,
                }
                for m in matches
            ],
            "bye_rounds": bye_rounds,
            "standings": rows,
            "after": default.after,
            "pending": default.pending,
        },
    )
    return _as_of(response, rows)


# --------------------------------------------------------------------------------------------
# Stages (RULES.md §8): the bracket, the group tables, the final placings


PLACINGS_PER_PAGE = 100


@public_page
def bracket(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The live bracket of every knockout stage (初赛, 复赛, 决赛 …, the repechage round marked):
    every published round, the rounds to come, each match's games and who leads. One column
    per round: side by side on a projector, scrolled sideways on a phone. A later knockout
    stage is shown once it has a published round (before that its entrants are not known)."""
    numbers = knockout_stages(tournament)
    if not numbers:
        raise Http404
    started = set(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS).values_list(
            "stage", flat=True
        )
    )
    shown = [n for n in numbers if n in started] or numbers[:1]
    stages = []
    for number in shown:
        spec = tournament.rules.stage(number)
        stages.append(
            {
                "stage": number,
                "best_of": spec.games,
                "wins_needed": spec.wins_needed,
                "until": spec.until,
                "rounds": bracket_rounds(tournament, number, VISIBLE_ROUNDS),
            }
        )
    return render(
        request,
        "reports/bracket.html",
        {
            "tournament": tournament,
            "nav": "bracket",
            "stages": stages,
            "finished": bool(placings_done(tournament)),
        },
    )


def placings_done(tournament: Tournament) -> bool:
    """Whether the event's last stage is finished (its final placings are known)."""
    return stage_finished(tournament, len(tournament.rules.stage_list))


@public_page
def groups(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The group tables of every group stage whose first round is published, qualifiers
    marked."""
    visible = set(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS).values_list(
            "stage", flat=True
        )
    )
    stages = [
        {
            "stage": number,
            "qualify": spec.qualify or 1,
            "finished": stage_finished(tournament, number),
            "groups": group_rows(tournament, number),
        }
        for number, spec in enumerate(tournament.rules.stage_list, start=1)
        if spec.kind == "round_robin" and number in visible
    ]
    if not any(spec.kind == "round_robin" for spec in tournament.rules.stage_list):
        raise Http404
    return render(
        request,
        "reports/groups.html",
        {"tournament": tournament, "nav": "groups", "stages": stages},
    )


@public_page
def placings(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The final placings (RULES.md §8), once the last stage is finished; paginated."""
    if not tournament.rules.stages:
        raise Http404
    paginator = Paginator(placings_rows(tournament), PLACINGS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    return render(
        request,
        "reports/placings.html",
        {"tournament": tournament, "nav": "placings", "page": page, "rows": page.object_list},
    )
