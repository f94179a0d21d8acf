"""Round control for organizers and chief referees: generate the draft, review it with the
engine's reasons, swap two pairs by hand, publish, finish, or throw the draft away.

Thin views (STYLE.md): permission, form, one service from ``pairing.services``, message,
redirect. Lists are paginated, so every page costs a bounded number of queries whatever the
size of the round. The public pairings pages are in ``reports.views.public``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from pairing.forms import StageForm, StageFormSet, SwapForm, TableFilterForm
from pairing.queries import round_progress, round_tables, table_names
from pairing.services import (
    delete_draft,
    finish_round,
    generate_round,
    publish_round,
    swap_pairs,
    unpublish_round,
    withdraw_seated_pair,
)
from pairing.stages import stage_entrants, stage_finished
from scoring.cache import cached_standings
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Table, Tournament
from tournaments.permissions import Action, action_required, may, organizer_required
from tournaments.queries import live_table_of, names_by_pair, pairs_with_players
from tournaments.services import update_settings
from tournaments.wording import stage_kind_label

TABLES_PER_PAGE = 100
round_staff_required = action_required(Action.ROUND_CONTROL)


def _message(error: Exception) -> str:
    return str(getattr(error, "message", None) or error)


# --------------------------------------------------------------------------------------------
# Round control (organizers and chief referees)


@round_staff_required
def control(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """All rounds (drafts included) and the button that generates the next one."""
    all_rounds = list(
        Round.objects.filter(tournament=tournament)
        .annotate(
            table_count=Count("tables", filter=Q(tables__is_bye=False)),
            confirmed=Count(
                "tables",
                filter=Q(tables__is_bye=False, tables__entry_status=Table.EntryStatus.CONFIRMED),
            ),
        )
        .order_by("number")
    )
    last = all_rounds[-1] if all_rounds else None
    can_generate = last is None or last.status == Round.Status.FINISHED
    active = Pair.objects.filter(tournament=tournament, status=Pair.Status.ACTIVE).count()
    return render(
        request,
        "pairing/control.html",
        {
            "tournament": tournament,
            "nav": "round_control",
            "rounds": all_rounds,
            "last": last,
            "can_generate": can_generate,
            "active_pairs": active,
            "planned": tournament.rules.rounds,
            # The stages are settings: the organizers' (``pairing:stages``).
            "is_organizer": may(request.user, tournament, Action.REGISTRATION),
        },
    )


@round_staff_required
@require_POST
def generate(request: HttpRequest, tournament: Tournament) -> HttpResponse:

    try:
        rnd = generate_round(tournament, request.user)
    except ServiceError as error:
        messages.error(request, _message(error))
        return redirect("pairing:control", tournament.slug)
    messages.success(request, _("第%(n)s轮编排草稿已生成，请检查后公布") % {"n": rnd.number})
    return redirect("pairing:round_control", tournament.slug, rnd.number)


def _rematches(rnd: Round, tables: list[Table]) -> set[int]:
    """Table ids on this page whose two pairs met in an earlier round (one query)."""
    ids = {pid for t in tables if not t.is_bye for pid in (t.ns_id, t.ew_id)}
    if not ids:
        return set()
    met = set()
    earlier = Table.objects.filter(
        round__tournament_id=rnd.tournament_id,
        round__number__lt=rnd.number,
        is_bye=False,
        ns_id__in=ids,
        ew_id__in=ids,
    ).values_list("ns_id", "ew_id")
    for a, b in earlier:
        met.add(frozenset((a, b)))
    return {t.pk for t in tables if not t.is_bye and frozenset((t.ns_id, t.ew_id)) in met}


@round_staff_required
def round_control(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """A round for review: each table with both pairs' match points and the engine's reasons;
    rematches and same-unit tables flagged; swap, publish, finish, delete."""
    rnd = get_object_or_404(Round, tournament=tournament, number=number)
    form = TableFilterForm(request.GET or None)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    paginator = Paginator(round_tables(rnd, query), TABLES_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    tables = list(page.object_list)
    # Only the rows of the pairs on this page (the standings may have 10,000).
    numbers = {p.number for t in tables for p in (t.ns, t.ew) if p is not None}
    before = cached_standings(tournament, after_round=number - 1).rows_of(numbers)
    rematch = _rematches(rnd, tables)
    rows = []
    for table in tables:
        ns_row = before.get(table.ns.number)
        ew_row = before.get(table.ew.number) if table.ew_id else None
        same_unit = bool(table.ew_id and table.ns.unit_id and table.ns.unit_id == table.ew.unit_id)
        rows.append(
            {
                "table": table,
                "ns_cf": ns_row.cf if ns_row else 0,
                "ew_cf": ew_row.cf if ew_row else None,
                "ns_rank": ns_row.rank if ns_row else None,
                "ew_rank": ew_row.rank if ew_row else None,
                "rematch": table.pk in rematch,
                "same_unit": same_unit,
            }
        )
    return render(
        request,
        "pairing/round_control.html",
        {
            "tournament": tournament,
            "nav": "round_control",
            "round": rnd,
            "rows": rows,
            "names": table_names(tables),
            "page": page,
            "form": form,
            "query": query,
            "swap_form": SwapForm(tournament=tournament),
            "progress": round_progress(rnd),
            "draw_info": rnd.draw_info or {},
        },
    )


def _round_or_404(tournament: Tournament, number: int) -> Round:
    return get_object_or_404(Round, tournament=tournament, number=number)


@round_staff_required
@require_POST
def swap(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Swap two pairs of a draft by hand (audited); warn about rematches and same-unit tables."""

    rnd = _round_or_404(tournament, number)
    form = SwapForm(request.POST, tournament=tournament)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect("pairing:round_control", tournament.slug, number)
    data = form.cleaned_data
    try:
        warnings = swap_pairs(rnd, data["pair_a_obj"], data["pair_b_obj"], request.user)
    except ServiceError as error:
        messages.error(request, _message(error))
    else:
        messages.success(
            request,
            _("已交换第%(a)s对与第%(b)s对的座位") % {"a": data["pair_a"], "b": data["pair_b"]},
        )
        for warning in warnings:
            messages.warning(request, _("注意：") + _message(warning))
    return redirect("pairing:round_control", tournament.slug, number)


def _round_action(
    request: HttpRequest,
    tournament: Tournament,
    number: int,
    service: Any,
    success: str,
    done: str = "pairing:round_control",
) -> HttpResponse:
    """Call one round service; its refusal is a message and the user stays on the round."""
    rnd = _round_or_404(tournament, number)
    try:
        service(rnd, request.user)
    except ServiceError as error:
        messages.error(request, _message(error))
        return redirect("pairing:round_control", tournament.slug, number)
    messages.success(request, success)
    if done == "pairing:round_control":
        return redirect(done, tournament.slug, number)
    return redirect(done, tournament.slug)


@round_staff_required
@require_POST
def publish(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    message = _("第%(n)s轮对阵已公布") % {"n": number}
    return _round_action(request, tournament, number, publish_round, message)


@round_staff_required
@require_POST
def finish(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    message = _("第%(n)s轮已结束") % {"n": number}
    return _round_action(request, tournament, number, finish_round, message)


@round_staff_required
@require_POST
def delete(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    message = _("第%(n)s轮草稿已删除") % {"n": number}
    return _round_action(request, tournament, number, delete_draft, message, "pairing:control")


@round_staff_required
@require_POST
def unpublish(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Back to draft while no table has a result (a wrong pairing noticed after publishing)."""
    message = _("第%(n)s轮已撤回为草稿，旧记分表上的桌边链接已失效") % {"n": number}
    return _round_action(request, tournament, number, unpublish_round, message)


@round_staff_required
def withdraw_seated(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Withdraw (or disqualify) a pair seated in the round in play: forfeit its table, or leave
    the table to be played. The desk flags the table either way."""
    pair = get_object_or_404(
        pairs_with_players(Pair.objects.filter(tournament=tournament)), number=number
    )
    action = request.POST.get("action") or request.GET.get("action") or "withdraw"
    if action not in ("withdraw", "disqualify"):
        action = "withdraw"
    table = live_table_of(pair)
    if table is None:
        messages.error(request, ServiceError("pair_not_seated", pair=pair.number).message)
        return redirect("tournaments:pair_edit", tournament.slug, pair.number)
    if request.method == "POST":
        choice = request.POST.get("table_action", "")
        reason = (request.POST.get("reason") or "").strip()[:500]
        try:
            withdraw_seated_pair(
                pair, request.user, choice, reason, disqualify=action == "disqualify"
            )
        except ServiceError as error:
            messages.error(request, _message(error))
        else:
            text = (
                _("第%(n)s对已退赛，第%(t)s桌判其弃权")
                if choice == "forfeit"
                else _("第%(n)s对已退赛，第%(t)s桌照常比赛")
            )
            if action == "disqualify":
                text = (
                    _("第%(n)s对已被取消资格，第%(t)s桌判其弃权")
                    if choice == "forfeit"
                    else _("第%(n)s对已被取消资格，第%(t)s桌照常比赛")
                )
            messages.success(request, text % {"n": pair.number, "t": table.number})
            return redirect("tournaments:pairs", tournament.slug)
    return render(
        request,
        "pairing/withdraw_seated.html",
        {
            "tournament": tournament,
            "nav": "pairs",
            "pair": pair,
            "table": table,
            "action": action,
            "names": table_names([table]),
        },
    )


# --------------------------------------------------------------------------------------------
# Stages (RULES.md §8): set up, the qualifiers of a finished stage, start the next one


def started_stages(tournament: Tournament) -> int:
    """How many stages have started, as ``update_settings`` counts them: none until a round is
    published, then every stage up to the last round's."""
    rounds = Round.objects.filter(tournament=tournament)
    if not rounds.counted().exists():
        return 0
    return max(rounds.values_list("stage", flat=True))


def _stage_rows(tournament: Tournament) -> list[dict[str, Any]]:
    """Each configured stage with its state (未开始 / 进行中 / 已结束) and its rounds."""
    by_stage: dict[int, list[Round]] = {}
    for rnd in Round.objects.filter(tournament=tournament).order_by("number"):
        by_stage.setdefault(rnd.stage, []).append(rnd)
    rows = []
    for number, spec in enumerate(tournament.rules.stage_list, start=1):
        rounds = by_stage.get(number, [])
        finished = bool(rounds) and stage_finished(tournament, number)
        rows.append(
            {
                "number": number,
                "spec": spec,
                "label": stage_kind_label(spec.kind),
                "rounds": rounds,
                "state": "finished" if finished else ("running" if rounds else "waiting"),
            }
        )
    return rows


@organizer_required
def stages(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The event's stages: add, edit or remove them until each starts; when a stage is over,
    its qualifiers and the button that starts the next stage (its first round's draft)."""
    current = [stage.to_dict() for stage in tournament.rules.stages]
    started = started_stages(tournament)
    initial = [StageForm.initial_from(stage) for stage in current]
    if request.method == "POST":
        formset = StageFormSet(request.POST, initial=initial)
        _lock_started(formset, started)
        if formset.is_valid():
            given = [form.stage() for form in formset.forms[started:]]
            wanted = current[:started] + [stage for stage in given if stage is not None]
            settings = {k: v for k, v in tournament.settings.items() if k != "stages"}
            if wanted:
                settings["stages"] = wanted
            try:
                update_settings(tournament, settings, request.user)
            except ServiceError as error:
                messages.error(request, _message(error))
            else:
                messages.success(request, _("阶段设置已保存"))
                return redirect("pairing:stages", tournament.slug)
    else:
        formset = StageFormSet(initial=initial)
        _lock_started(formset, started)
    rows = _stage_rows(tournament)
    qualifiers: list[dict[str, Any]] = []
    next_number = None
    for row in rows:
        if row["state"] == "finished" and row["number"] < len(rows):
            following = rows[row["number"]]
            if following["state"] == "waiting":
                next_number = following["number"]
    if next_number is not None:
        entrants = stage_entrants(tournament, next_number)
        pks = dict(
            Pair.objects.filter(
                tournament=tournament, number__in=[e.id for e in entrants]
            ).values_list("number", "pk")
        )
        names = names_by_pair(list(pks.values()))
        qualifiers = [
            {"seed": e.seed, "pair": e.id, "name": names.get(pks.get(e.id, 0), ""), "unit": e.unit}
            for e in entrants
        ]
    last = Round.objects.filter(tournament=tournament).order_by("-number").first()
    return render(
        request,
        "pairing/stages.html",
        {
            "tournament": tournament,
            "nav": "round_control",
            "formset": formset,
            "started": started,
            "rows": rows,
            "has_stages": bool(current),
            "qualifiers": qualifiers,
            "next_number": next_number,
            "can_generate": last is None or last.status == Round.Status.FINISHED,
            "all_finished": bool(rows) and all(r["state"] == "finished" for r in rows),
        },
    )


def _lock_started(formset: Any, started: int) -> None:
    """A stage that has started keeps its settings: its fields are shown, not editable."""
    for form in formset.forms[:started]:
        for field in form.fields.values():
            field.disabled = True
