"""Pages of the tournaments app: the public pages players use without logging in, and the
organizer's desk (settings, registrations, roles, the audit log).

Views are thin (STYLE.md): check permission (``tournaments.permissions``), validate the form,
call one service, put its message on the page, redirect. They read the database (with bounded
queries: every list is paginated or limited) and never write to it themselves.

Public pages never show anything private: no pair codes, no table entry links, no draft rounds.
For anonymous visitors (no session cookie) they are cached for ``PUBLIC_CACHE_SECONDS`` under a
key that includes the tournament's ``results_version``, so a confirmed result or a published
round shows at once; responses carry ``Cache-Control: public``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings as django_settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import check_for_language, get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe
from django_tables2 import RequestConfig

from guandan_tourney.redirects import safe_next
from tournaments.forms import (
    PRESETS,
    FindForm,
    PairForm,
    PairStatusForm,
    RevokeForm,
    RoleForm,
    SettingsForm,
    TournamentCreateForm,
    UnitForm,
    preset_initial,
)
from tournaments.models import Pair, Player, Round, Table, Tournament
from tournaments.permissions import Role, organizer_required, role_required, roles_of
from tournaments.tables import (
    STANDINGS_PER_PAGE,
    AuditTable,
    StandingsData,
    StandingsTable,
    cached_standings,
    names_by_pair,
)

PUBLIC_CACHE_SECONDS = 30
PUBLIC_MAX_AGE = 15
VISIBLE_ROUNDS = (Round.Status.PUBLISHED, Round.Status.FINISHED)
FIND_LIMIT = 20


# --------------------------------------------------------------------------------------------
# Helpers


def _service_error_message(error: Exception) -> str:
    return str(getattr(error, "message", None) or error)


def _is_anonymous_request(request: HttpRequest) -> bool:
    """No session and no pending messages: the page is the same for every such visitor."""
    cookies = request.COOKIES
    return django_settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies


def public_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A public tournament page: loads ``tournament`` from ``slug``, caches anonymous GETs.

    The cache key holds the path with its query, the language and the tournament's
    ``results_version`` (bumped by every result, publication and registration).
    """

    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        tournament = get_object_or_404(Tournament, slug=slug)
        cacheable = request.method in ("GET", "HEAD") and _is_anonymous_request(request)
        if not cacheable:
            response = view(request, tournament=tournament, **kwargs)
            patch_cache_control(response, private=True, max_age=0)
            return response
        from django.core.cache import cache

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
            if response.status_code == 200 and not response.cookies and not response.streaming:
                if hasattr(response, "render") and not response.is_rendered:
                    response.render()
                cache.set(key, (response.content, response["Content-Type"]), PUBLIC_CACHE_SECONDS)
        if response.status_code == 200:
            patch_cache_control(response, public=True, max_age=PUBLIC_MAX_AGE)
        return response

    return wrapper


def _pairs_with_players(queryset: Any) -> Any:
    return queryset.select_related("unit").prefetch_related(
        Prefetch("players", queryset=Player.objects.order_by("position"))
    )


def _visible_rounds(tournament: Tournament) -> list[Round]:
    return list(
        Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS).order_by("number")
    )


def _latest_round_number(tournament: Tournament) -> int:
    """The last published or finished round (0 before any): the standings "after the latest
    round" are asked for by this number on every page, so the pages share one cache entry (and
    one computation after each result) instead of one per spelling of "latest"."""
    numbers = Round.objects.filter(tournament=tournament, status__in=VISIBLE_ROUNDS)
    return numbers.order_by("-number").values_list("number", flat=True).first() or 0


def _report_links(tournament: Tournament) -> list[dict[str, str]]:
    """The organizer's links into the reports app (printing and Excel)."""
    slug = tournament.slug
    return [
        {"url": reverse("reports:index", args=[slug]), "label": _("打印与导出")},
        {"url": reverse("reports:document", args=[slug, "scoresheets"]), "label": _("记分表 PDF")},
        {"url": reverse("reports:document", args=[slug, "pairings"]), "label": _("对阵表 PDF")},
        {"url": reverse("reports:document", args=[slug, "standings"]), "label": _("名次表 PDF")},
        {"url": reverse("reports:export", args=[slug]), "label": _("导出 Excel")},
        {"url": reverse("reports:import", args=[slug]), "label": _("Excel 导入报名")},
    ]


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
    can_create = request.user.has_perm("tournaments.add_tournament")
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


def _seat_rows(tournament: Tournament, rnd: Round, pairs: list[Pair]) -> list[dict[str, Any]]:
    """Where each pair sits in ``rnd``: table, direction, opponents (two queries)."""
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
        rows.append(row)
    return rows


def search_pairs(tournament: Tournament, query: str, limit: int = FIND_LIMIT) -> list[Pair]:
    """Pairs whose number is ``query`` or a player's name contains it (bounded)."""
    query = query.strip()
    condition = Q(players__name__icontains=query)
    if query.isdigit():
        condition |= Q(number=int(query))
    ids = list(
        Pair.objects.filter(tournament=tournament)
        .filter(condition)
        .order_by("number")
        .values_list("pk", flat=True)
        .distinct()[:limit]
    )
    return list(_pairs_with_players(Pair.objects.filter(pk__in=ids)).order_by("number"))


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
            results = _seat_rows(tournament, current, pairs)
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
    try:
        after = int(request.GET.get("after", latest))
    except ValueError:
        after = latest
    after = max(0, min(after, latest))
    rows = cached_standings(tournament, after_round=after)
    mine: set[int] = set()
    query = (request.GET.get("q") or "").strip()[:50]
    if request.GET.get("pair", "").isdigit():
        mine.add(int(request.GET["pair"]))
    if query:
        mine.update(p.number for p in search_pairs(tournament, query, limit=FIND_LIMIT))
    page = request.GET.get("page")
    if mine and not page:
        index = rows.first_index(mine)
        if index is not None:
            page = str(index // per_page + 1)
    data = StandingsData(tournament, rows, mine)
    rules = tournament.rules
    criteria = ("cf", *rules.tiebreaks)
    table = StandingsTable.for_criteria(data, criteria)
    RequestConfig(request, paginate={"per_page": per_page, "page": page or 1}).configure(table)
    return {
        "tournament": tournament,
        "table": table,
        "rounds": rounds,
        "after": after,
        "latest": latest,
        "query": query,
        "found": bool(mine),
        "criteria": criteria,
    }


@public_page
def standings(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """名次 after any round, with the tiebreak columns and which criterion decided each row."""
    context = _standings_context(request, tournament)
    context["nav"] = "standings"
    return render(request, "tournaments/standings.html", context)


def pair_history(tournament: Tournament, pair: Pair) -> list[dict[str, Any]]:
    """Every visible round of ``pair``: opponent, levels, 级差, 级差分, 场分 and the deals.

    Results are shown for confirmed tables only (what the standings count); a table still
    being played shows as such. Three queries whatever the number of rounds.
    """
    from rules.events import Side
    from scoring.engine import score_match
    from scoring.services import table_end, table_start

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
        if entry["confirmed"]:
            tokens = [e.token for e in sorted(table.events.all(), key=lambda e: e.position)]
            try:
                result = score_match(
                    tokens, rules, start=table_start(table), end=table_end(table), complete=False
                )
            except Exception:  # a bad record must not break a public page
                entry["confirmed"] = False
                history.append(entry)
                continue
            other = mine.other
            entry.update(
                {
                    "my_level": result.level(mine),
                    "their_level": result.level(other),
                    "jc": result.level(mine) - result.level(other),
                    "jcf": result.jcf(mine),
                    "cf": result.cf(mine),
                    "won": result.winner is mine,
                    "lost": result.winner is other,
                    "forfeit": result.forfeit,
                    "penalty_loss": result.penalty_loss,
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
        _pairs_with_players(Pair.objects.filter(tournament=tournament)), number=number
    )
    rows = cached_standings(tournament, after_round=_latest_round_number(tournament))
    row = rows.rows_of([pair.number]).get(pair.number)
    return render(
        request,
        "tournaments/pair.html",
        {
            "tournament": tournament,
            "nav": "standings",
            "pair": pair,
            "row": row,
            "history": pair_history(tournament, pair),
            "per_page": STANDINGS_PER_PAGE,
        },
    )


PROJECTOR_ROWS = 20
PROJECTOR_PAGES = 10


@public_page
def projector(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Large-type pages for a projector, advanced by ``static/js/projector.js``.

    ``show=pairings`` (default while a round is being played) or ``standings``; ``offset``
    picks the chunk of rows; after the last page the script loads ``next_url`` (the next chunk,
    or the first one again, which also refreshes the data).
    """
    rounds = _visible_rounds(tournament)
    current = rounds[-1] if rounds else None
    default = "pairings" if current and current.status == Round.Status.PUBLISHED else "standings"
    show = request.GET.get("show", default)
    if show not in ("pairings", "standings"):
        show = default
    try:
        offset = max(0, int(request.GET.get("offset", 0)))
    except ValueError:
        offset = 0
    chunk = PROJECTOR_ROWS * PROJECTOR_PAGES
    pages: list[list[dict[str, Any]]] = []
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
        rows = cached_standings(tournament, after_round=current.number if current else 0)
        total = len(rows)
        items = list(StandingsData(tournament, rows, set())[offset : offset + chunk])
    else:
        items = []
    for start in range(0, len(items), PROJECTOR_ROWS):
        pages.append(items[start : start + PROJECTOR_ROWS])
    next_offset = offset + chunk if offset + chunk < total else 0
    next_url = (
        reverse("tournaments:projector", args=[tournament.slug])
        + f"?show={show}&offset={next_offset}"
    )
    return render(
        request,
        "tournaments/projector.html",
        {
            "tournament": tournament,
            "show": show,
            "current": current,
            "pages": pages,
            "next_url": next_url,
            "seconds": 12,
            "offset": offset,
        },
    )


# --------------------------------------------------------------------------------------------
# Organizers


@login_required
def create(request: HttpRequest) -> HttpResponse:
    """New tournament from a preset: every setting prefilled and explained, then editable."""
    from tournaments.services import ServiceError, create_tournament

    if not request.user.has_perm("tournaments.add_tournament"):
        raise PermissionDenied
    preset = request.GET.get("preset", "regulation")
    if preset not in dict(PRESETS):
        preset = "regulation"
    if request.method == "POST":
        form = TournamentCreateForm(request.POST)
        if form.is_valid():
            try:
                tournament = create_tournament(
                    form.cleaned_data["name"],
                    form.cleaned_data["slug"],
                    request.user,
                    settings=form.settings(),
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(request, _("赛事已创建"))
                return redirect("tournaments:manage", tournament.slug)
    else:
        form = TournamentCreateForm(initial=preset_initial(preset))
    return render(
        request,
        "tournaments/create.html",
        {"form": form, "presets": PRESETS, "preset": preset},
    )


@organizer_required
def manage(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The organizer's desk: the state of things and where to go next."""
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    pair_counts = Pair.objects.filter(tournament=tournament).aggregate(
        total=Count("pk"), active=Count("pk", filter=Q(status=Pair.Status.ACTIVE))
    )
    return render(
        request,
        "tournaments/manage.html",
        {
            "tournament": tournament,
            "nav": "manage",
            "rounds": rounds,
            "pair_counts": pair_counts,
            "rules": tournament.rules,
            "report_links": _report_links(tournament),
            "settings_locked": any(r.status != Round.Status.DRAFT for r in rounds),
        },
    )


@organizer_required
def settings_edit(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every setting; refused by the service once a round has been published."""
    from tournaments.services import ServiceError, update_settings

    if request.method == "POST":
        form = SettingsForm(request.POST)
        if form.is_valid():
            try:
                update_settings(tournament, form.settings(), request.user)
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(request, _("赛事设置已保存"))
                return redirect("tournaments:manage", tournament.slug)
    else:
        form = SettingsForm(initial=SettingsForm.initial_from(tournament.settings))
    locked = Round.objects.filter(tournament=tournament).exclude(status=Round.Status.DRAFT)
    if locked.exists():
        for field in form.fields.values():
            field.disabled = True
    return render(
        request,
        "tournaments/settings.html",
        {
            "tournament": tournament,
            "nav": "manage",
            "form": form,
            "scale_rows": tournament.rules.scale.rows,
            "locked": locked.exists(),
        },
    )


REGISTRATIONS_PER_PAGE = 100


@organizer_required
def pairs(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """报名: the registered pairs (with their secret codes — this page is private), add a pair,
    add a unit, search; paginated."""
    from tournaments.services import ServiceError, register_pair

    form = PairForm(tournament=tournament, prefix="pair")
    if request.method == "POST":
        form = PairForm(request.POST, tournament=tournament, prefix="pair")
        if form.is_valid():
            data = form.cleaned_data
            try:
                pair = register_pair(
                    tournament,
                    form.players(),
                    request.user,
                    unit=data.get("unit"),
                    number=data.get("number"),
                    seeding=data.get("seeding"),
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(
                    request,
                    _("已报名：第%(n)s对 %(names)s")
                    % {"n": pair.number, "names": "/".join(p["name"] for p in form.players())},
                )
                return redirect("tournaments:pairs", tournament.slug)
    query = (request.GET.get("q") or "").strip()[:50]
    listing = Pair.objects.filter(tournament=tournament).order_by("number")
    if query:
        condition = Q(players__name__icontains=query) | Q(unit__name__icontains=query)
        if query.isdigit():
            condition |= Q(number=int(query))
        listing = listing.filter(condition).distinct()
    paginator = Paginator(_pairs_with_players(listing), REGISTRATIONS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    return render(
        request,
        "tournaments/pairs.html",
        {
            "tournament": tournament,
            "nav": "pairs",
            "form": form,
            "unit_form": UnitForm(prefix="unit"),
            "page": page,
            "query": query,
            "report_links": _report_links(tournament),
            "status_form": PairStatusForm(),
        },
    )


@organizer_required
@require_POST
def unit_add(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    from tournaments.services import ServiceError, add_unit

    form = UnitForm(request.POST, prefix="unit")
    if form.is_valid():
        try:
            unit = add_unit(
                tournament, form.cleaned_data["code"], form.cleaned_data["name"], request.user
            )
        except ServiceError as error:
            messages.error(request, _service_error_message(error))
        else:
            messages.success(request, _("已添加单位：%(unit)s") % {"unit": unit})
    else:
        messages.error(request, _("请填写单位代码"))
    return redirect("tournaments:pairs", tournament.slug)


@organizer_required
def pair_edit(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Edit a pair's players, unit and seeding; withdraw / disqualify / reinstate it."""
    from tournaments.services import ServiceError, edit_pair

    pair = get_object_or_404(
        _pairs_with_players(Pair.objects.filter(tournament=tournament)), number=number
    )
    players = list(pair.players.all())
    if request.method == "POST":
        form = PairForm(request.POST, tournament=tournament, editing=True)
        if form.is_valid():
            try:
                edit_pair(
                    pair,
                    request.user,
                    players=form.players(),
                    unit=form.cleaned_data.get("unit"),
                    seeding=form.cleaned_data.get("seeding"),
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(request, _("第%(n)s对已修改") % {"n": pair.number})
                return redirect("tournaments:pairs", tournament.slug)
    else:
        initial = {"unit": pair.unit_id, "seeding": pair.seeding}
        for index, player in enumerate(players[:2], start=1):
            initial[f"player{index}"] = player.name
            initial[f"contact{index}"] = player.contact
        form = PairForm(initial=initial, tournament=tournament, editing=True)
    return render(
        request,
        "tournaments/pair_edit.html",
        {
            "tournament": tournament,
            "nav": "pairs",
            "pair": pair,
            "form": form,
            "status_form": PairStatusForm(),
        },
    )


@role_required(Role.ORGANIZER, Role.CHIEF_REFEREE)
@require_POST
def pair_status(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """退赛 / 取消资格 / 恢复参赛 (the service checks who may do which)."""
    from tournaments import services

    pair = get_object_or_404(Pair, tournament=tournament, number=number)
    form = PairStatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("操作无效"))
        return redirect("tournaments:pair_edit", tournament.slug, number)
    action = form.cleaned_data["action"]
    service = {
        "withdraw": services.withdraw_pair,
        "disqualify": services.disqualify_pair,
        "reinstate": services.reinstate_pair,
    }[action]
    try:
        service(pair, request.user, form.cleaned_data["reason"])
    except services.ServiceError as error:
        messages.error(request, _service_error_message(error))
    else:
        text = {
            "withdraw": _("第%(n)s对已退赛"),
            "disqualify": _("第%(n)s对已被取消资格"),
            "reinstate": _("第%(n)s对已恢复参赛"),
        }[action]
        messages.success(request, text % {"n": pair.number})
    fallback = reverse("tournaments:pairs", args=[tournament.slug])
    return redirect(safe_next(request, request.POST.get("next"), fallback))


@organizer_required
def staff(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Who holds which role here; give a role to a user by username; take it back."""
    from tournaments.services import ServiceError, grant_role

    form = RoleForm()
    if request.method == "POST":
        form = RoleForm(request.POST)
        if form.is_valid():
            try:
                grant_role(
                    tournament,
                    form.cleaned_data["user"],
                    form.cleaned_data["role"],
                    granted_by=request.user,
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(
                    request,
                    _("已授予 %(user)s 角色：%(role)s")
                    % {
                        "user": form.cleaned_data["username"],
                        "role": dict(RoleForm.ROLES)[form.cleaned_data["role"]],
                    },
                )
                return redirect("tournaments:staff", tournament.slug)
    groups = [
        (key, label, list(getattr(tournament, field).order_by("username")))
        for key, label, field in (
            ("organizer", _("组委会/编排"), "organizers"),
            ("chief_referee", _("裁判长"), "chief_referees"),
            ("referee", _("裁判"), "referees"),
        )
    ]
    return render(
        request,
        "tournaments/staff.html",
        {"tournament": tournament, "nav": "manage", "form": form, "groups": groups},
    )


@organizer_required
@require_POST
def staff_revoke(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    from django.contrib.auth import get_user_model

    from tournaments.services import ServiceError, revoke_role

    form = RevokeForm(request.POST)
    if form.is_valid():
        user = get_object_or_404(get_user_model(), pk=form.cleaned_data["user_id"])
        if user.pk == request.user.pk and form.cleaned_data["role"] == "organizer":
            messages.error(request, _("不能取消自己的组委会角色"))
            return redirect("tournaments:staff", tournament.slug)
        try:
            revoke_role(tournament, user, form.cleaned_data["role"], revoked_by=request.user)
        except ServiceError as error:
            messages.error(request, _service_error_message(error))
        else:
            messages.success(request, _("已取消 %(user)s 的角色") % {"user": user.get_username()})
    return redirect("tournaments:staff", tournament.slug)


@role_required(Role.ORGANIZER, Role.CHIEF_REFEREE)
@require_safe
def audit(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """操作日志: read-only, newest first, filter by action or round."""
    from tournaments.models import AuditEntry

    entries = AuditEntry.objects.filter(tournament=tournament).order_by("-created_at", "-pk")
    action = request.GET.get("action", "")
    if action:
        entries = entries.filter(action=action)
    round_number = request.GET.get("round", "")
    if round_number.isdigit():
        entries = entries.filter(round_number=int(round_number))
    table = AuditTable(entries)
    RequestConfig(request, paginate={"per_page": 100}).configure(table)
    return render(
        request,
        "tournaments/audit.html",
        {
            "tournament": tournament,
            "nav": "audit",
            "table": table,
            "actions": AuditEntry.Action.choices,
            "action": action,
            "round_number": round_number,
        },
    )
