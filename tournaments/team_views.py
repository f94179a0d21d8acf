"""Team pages of the organizer's desk (复式/团体, RULES.md §6): the teams with their captain
codes, a team's name, unit and status, and the line-up page (出场名单) shared by the organizer
and the team's captain.

Thin views (STYLE.md), like ``tournaments.views``: load and authorise, validate the form, call
one service (``tournaments.teams``, ``tournaments.lineups``), message, redirect.

The line-up page needs no account: a captain proves themself with the team's captain code on
every change (like a pair code at the table, and throttled the same way: wrong codes count
against the team from the caller's address). An organizer or chief referee sees the same page
without the code field.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Max, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tournaments import throttle
from tournaments.errors import ForbiddenError, ServiceError
from tournaments.forms import LineUpForm, NewTeamForm, TeamForm, TeamStatusForm
from tournaments.lineups import round_lineups, set_lineup, set_team_status
from tournaments.models import Round, Team, Tournament
from tournaments.permissions import Action, get_tournament, may, organizer_required
from tournaments.queries import members_by_team

TEAMS_PER_PAGE = 100


def _message(error: Exception) -> str:
    return str(getattr(error, "message", None) or error)


def _team(tournament: Tournament, code: str) -> Team:
    team = Team.objects.filter(tournament=tournament, code=code[:32]).select_related("unit").first()
    if team is None:
        raise Http404
    return team


def lineup_round(tournament: Tournament) -> int:
    """The round a line-up is set for now: the draft round if one is drawn, else the round
    after the last published one."""
    rounds = Round.objects.filter(tournament=tournament)
    draft = rounds.filter(status=Round.Status.DRAFT).order_by("number").first()
    if draft is not None:
        return draft.number
    return (rounds.aggregate(m=Max("number"))["m"] or 0) + 1


@organizer_required
def teams(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """报名（团体）: the teams with their pairs and captain codes (this page is private),
    searchable, paginated; registration is by the Excel import or one team at a time."""
    query = (request.GET.get("q") or "").strip()[:50]
    listing = Team.objects.filter(tournament=tournament).select_related("unit").order_by("pk")
    if query:
        listing = listing.filter(
            Q(name__icontains=query)
            | Q(code=query)
            | Q(unit__name__icontains=query)
            | Q(pairs__players__name__icontains=query)
        ).distinct()
    page = Paginator(listing, TEAMS_PER_PAGE).get_page(request.GET.get("page"))
    members = members_by_team(Team.objects.filter(pk__in=[t.pk for t in page]))
    rows = [(team, members.get(team.pk, [])) for team in page]
    return render(
        request,
        "tournaments/teams.html",
        {
            "tournament": tournament,
            "nav": "teams",
            "page": page,
            "rows": rows,
            "query": query,
            "lineup_round": lineup_round(tournament),
        },
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def team_add(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """One team by hand: name, unit, two or three pairs (the team sheet's columns)."""
    from tournaments.search import look_alike_warnings
    from tournaments.teams import register_team

    if tournament.rules.event != "teams":
        raise Http404
    form = NewTeamForm(request.POST or None, tournament=tournament)
    if request.method == "POST" and form.is_valid():
        try:
            team = register_team(
                tournament,
                form.cleaned_data["name"],
                form.pairs(),
                request.user,
                unit=form.cleaned_data.get("unit"),
            )
        except ServiceError as error:
            form.add_error(None, _message(error))
        else:
            messages.success(
                request,
                _("队“%(team)s”已报名，队号 %(code)s") % {"team": team.name, "code": team.code},
            )
            names = [name for pair in form.pairs() for name in pair]
            for warning in look_alike_warnings(tournament, names):
                messages.warning(request, warning)
            return redirect("tournaments:team_edit", tournament.slug, team.code)
    return render(
        request,
        "tournaments/team_add.html",
        {"tournament": tournament, "nav": "teams", "form": form},
    )


@organizer_required
@require_http_methods(["GET", "POST"])
def team_edit(request: HttpRequest, tournament: Tournament, code: str) -> HttpResponse:
    """A team's name and unit; its pairs (edited as pairs); withdraw or reinstate it."""
    from tournaments.teams import edit_team

    team = _team(tournament, code)
    if request.method == "POST":
        form = TeamForm(request.POST, tournament=tournament)
        if form.is_valid():
            try:
                edit_team(
                    team,
                    request.user,
                    name=form.cleaned_data["name"],
                    unit=form.cleaned_data.get("unit"),
                )
            except ServiceError as error:
                form.add_error(None, _message(error))
            else:
                messages.success(request, _("队“%(team)s”已修改") % {"team": team.code})
                return redirect("tournaments:teams", tournament.slug)
    else:
        form = TeamForm(initial={"name": team.name, "unit": team.unit_id}, tournament=tournament)
    return render(
        request,
        "tournaments/team_edit.html",
        {
            "tournament": tournament,
            "nav": "teams",
            "team": team,
            "pairs": members_by_team(Team.objects.filter(pk=team.pk)).get(team.pk, []),
            "form": form,
            "status_form": TeamStatusForm(),
        },
    )


@organizer_required
@require_POST
def team_status(request: HttpRequest, tournament: Tournament, code: str) -> HttpResponse:
    """退赛 / 恢复参赛 of a team."""
    team = _team(tournament, code)
    form = TeamStatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("操作无效"))
        return redirect("tournaments:team_edit", tournament.slug, team.code)
    withdraw = form.cleaned_data["action"] == "withdraw"
    status = Team.Status.WITHDRAWN if withdraw else Team.Status.ACTIVE
    try:
        set_team_status(team, status, request.user, form.cleaned_data["reason"])
    except ServiceError as error:
        messages.error(request, _message(error))
    else:
        text = _("队“%(team)s”已退赛") if withdraw else _("队“%(team)s”已恢复参赛")
        messages.success(request, text % {"team": team.code})
    return redirect("tournaments:team_edit", tournament.slug, team.code)


@require_http_methods(["GET", "POST"])
@throttle.remembers_device
def lineup(request: HttpRequest, slug: str, code: str) -> HttpResponse:
    """出场名单 of a team for the next round: which two pairs play, one NS at 甲 (table
    2m − 1), the other EW at 甲1 (table 2m). The organizer or chief referee sets it from their
    account; the captain with the team's captain code. Refused once the round is published."""
    tournament = get_tournament(slug)
    if tournament.rules.event != "teams":
        raise Http404
    team = _team(tournament, code)
    staff = may(request.user, tournament, Action.LINEUP)
    number = lineup_round(tournament)
    pairs = [p for p in members_by_team(Team.objects.filter(pk=team.pk)).get(team.pk, [])]
    active = [p for p in pairs if p.is_active]
    current = round_lineups(tournament, number).get(team.pk)
    if request.method == "POST":
        form = LineUpForm(request.POST, pairs=active, captain=not staff)
        if form.is_valid():
            done = _set(request, tournament, team, number, form, staff, pairs)
            if done:
                return redirect("tournaments:lineup", tournament.slug, team.code)
    else:
        initial: dict[str, Any] = {"round": number}
        if current is not None:
            initial.update(ns=current.ns.pk, ew=current.ew.pk)
        form = LineUpForm(initial=initial, pairs=active, captain=not staff)
    locked = (
        Round.objects.counted()
        .filter(tournament=tournament)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    return render(
        request,
        "tournaments/lineup.html",
        {
            "tournament": tournament,
            "nav": "teams" if staff else "",
            "team": team,
            "round_number": number,
            "current": current,
            "pairs": pairs,
            "form": form,
            "staff": staff,
            "locked_round": locked,
        },
        status=400 if form.errors else 200,
    )


def _set(
    request: HttpRequest,
    tournament: Tournament,
    team: Team,
    number: int,
    form: LineUpForm,
    staff: bool,
    pairs: list[Any],
) -> bool:
    """Call ``set_lineup`` for the form; errors go on the form. Captain codes are throttled
    like pair codes (reserved before the check, a wrong one stays counted)."""
    by_pk = {p.pk: p for p in pairs}
    ns, ew = by_pk[form.cleaned_data["ns"]], by_pk[form.cleaned_data["ew"]]
    # The round the form was for, never a later one (the service refuses a published round).
    number = min(form.cleaned_data["round"], number)
    if staff:
        try:
            set_lineup(team, number, ns, ew, user=request.user)
        except ServiceError as error:
            form.add_error(None, _message(error))
            return False
    else:
        attempt = throttle.pair_code_attempt(request, f"team-{team.pk}")
        try:
            if attempt.blocked:
                form.add_error(None, throttle.refusal(attempt))
                return False
            try:
                set_lineup(team, number, ns, ew, captain_code=form.cleaned_data["captain_code"])
            except ForbiddenError as error:
                attempt.keep()
                form.add_error("captain_code", _message(error))
                return False
            except ServiceError as error:
                form.add_error(None, _message(error))
                return False
        finally:
            attempt.settle()
    messages.success(
        request,
        _("已保存第%(round)s轮出场名单：甲桌南北 第%(ns)s对，甲1桌东西 第%(ew)s对")
        % {"round": number, "ns": ns.number, "ew": ew.number},
    )
    return True
