"""What the referee desk, the penalty pages and table-side entry share: loading a round or a
table (reads only) and turning a refusal into a message."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from rules.ruleset import RuleSet
from scoring.facts import table_facts, table_games
from scoring.models import TableEvent
from scoring.once import once, recall_table, remember_table
from scoring.sheet import Sheet, build_match_sheet, build_sheet
from tournaments.errors import ConflictError, ServiceError
from tournaments.models import Player, Round, Table, Tournament


def _tables_qs() -> QuerySet[Table]:
    return Table.objects.select_related("round__tournament", "ns", "ew").prefetch_related(
        Prefetch("ns__players", queryset=Player.objects.order_by("position")),
        Prefetch("ew__players", queryset=Player.objects.order_by("position")),
    )


def _round(tournament: Tournament, number: int) -> Round:
    """A round referees may see: published or finished (a draft is the organizers' business)."""
    return get_object_or_404(
        Round,
        tournament=tournament,
        number=number,
        status__in=(Round.Status.PUBLISHED, Round.Status.FINISHED),
    )


def _table(tournament: Tournament, number: int, table_number: int) -> Table:
    """A match table of a round referees may see, with its round, pairs, players and events
    (the table and its round in one query)."""
    return get_object_or_404(
        _tables_qs().prefetch_related(
            Prefetch("events", queryset=TableEvent.objects.order_by("position"))
        ),
        round__tournament=tournament,
        round__number=number,
        round__status__in=(Round.Status.PUBLISHED, Round.Status.FINISHED),
        number=table_number,
        is_bye=False,
    )


def _sheet_of(table: Table, rules: RuleSet, *, with_rows: bool = True) -> Sheet:
    """The table's sheet by its stage's rules (``RuleSet.for_stage``); a knockout table game by
    game (``scoring.sheet.build_match_sheet``)."""
    stage = table.round.stage
    staged = rules.for_stage(stage)
    if rules.stages and rules.stage(stage).kind == "knockout":
        games = table_games(table)
        return build_match_sheet(games, staged, rules.stage(stage).games, with_rows=with_rows)
    return build_sheet(table_facts(table), staged, with_rows=with_rows)


def _can_change(table: Table) -> bool:
    return table.round.status == Round.Status.PUBLISHED and not table.is_confirmed


def _service_message(request: HttpRequest, error: ServiceError) -> None:
    """A refusal as a message; a conflict says clearly that nothing was saved."""
    if isinstance(error, ConflictError):
        messages.error(
            request,
            _("%(msg)s。您的操作没有保存；下面是最新的记录，请核对后再操作。")
            % {"msg": error.message.rstrip("。")},
        )
    else:
        messages.error(request, error.message)


def _form_errors(request: HttpRequest, form: forms.Form) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


def _once_table(request: HttpRequest, action: str, write: Callable[[], Table]) -> Table:
    """Run a table write at most once per the form's one-time key (hidden field ``once``,
    generated when the page was rendered): a repeat gets the first result, not a second row."""
    return once(request.POST.get("once") or None, action, write, remember_table, recall_table)
