"""The standings table of the public standings page (and the rows of the projector).

``StandingsData`` turns only the slice a page shows into rows and loads those pairs' names and
units (one query per page, whatever the size of the tournament). ``StandingsTable`` is one page
of it: the columns (rank, pair, names, 场分, the tournament's tiebreak figures, 扣分, unit, the
criterion that decided each row), Django's paginator and the page's rows, in ranking order and
never sorted per request. ``tournaments/_standings_table.html`` renders it with a plain template
loop over the rows; the cells of a row are joined here (``format_html_join``, every value
escaped).

Chosen by measuring the standings page (50 rows × 13 columns, CPU per request, 2,000 pairs):
django-tables2's own row loop costs ~40 ms more a page (an ``inspect.signature`` per cell's
render call, attribute dicts per cell), a template loop over the cells ~5 ms more, these rows
nothing more than the hand-made markup they replace (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, overload

from django.core.paginator import Page, Paginator
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from rules.ruleset import RuleSet
from scoring.results import TeamField
from scoring.standings import CRITERIA, StandingRow
from tournaments.models import Pair, Team
from tournaments.queries import names_by_pair
from tournaments.templatetags.tourney import num, signed
from tournaments.wording import criterion_label

STANDINGS_PER_PAGE = 50


class StandingsData(Sequence[dict[str, Any]]):
    """Standings rows as dicts; a slice loads the pairs' names and units in one query.

    ``teams`` (a team event's ``scoring.results.TeamField``): the rows are teams (a row's
    ``pair`` is the team's number), shown by their code, name and unit."""

    def __init__(
        self,
        tournament: Any,
        rows: Sequence[StandingRow],
        mine: set[int],
        teams: TeamField | None = None,
    ) -> None:
        self.tournament = tournament
        self.rows = rows
        self.mine = mine
        self.teams = teams

    def __len__(self) -> int:
        return len(self.rows)

    def _enrich_teams(self, rows: Sequence[StandingRow], field: TeamField) -> list[dict[str, Any]]:
        pks = [field.pks[row.pair] for row in rows if row.pair in field.pks]
        teams = Team.objects.filter(pk__in=pks).select_related("unit").in_bulk()
        slug = self.tournament.slug
        out = []
        for row in rows:
            team = teams.get(field.pks.get(row.pair, 0))
            code = team.code if team else str(row.pair)
            out.append(
                {
                    "row": row,
                    "rank": row.rank,
                    "pair": row.pair,
                    "label": code,
                    "url": reverse("public:team", args=[slug, code]),
                    "names": team.name if team else "",
                    "unit": str(team.unit) if team and team.unit_id else "",
                    "status": team.status if team else "",
                    "status_label": team.get_status_display() if team else "",
                    "mine": row.pair in self.mine,
                    "slug": slug,
                }
            )
        return out

    def _enrich(self, rows: Sequence[StandingRow]) -> list[dict[str, Any]]:
        if self.teams is not None:
            return self._enrich_teams(rows, self.teams)
        numbers = [row.pair for row in rows]
        pairs = {
            p.number: p
            for p in Pair.objects.filter(
                tournament=self.tournament, number__in=numbers
            ).select_related("unit")
        }
        names = names_by_pair([p.pk for p in pairs.values()])
        slug = self.tournament.slug
        out = []
        for row in rows:
            pair = pairs.get(row.pair)
            out.append(
                {
                    "row": row,
                    "rank": row.rank,
                    "pair": row.pair,
                    "label": row.pair,
                    "url": reverse("public:pair", args=[slug, row.pair]),
                    "names": names.get(pair.pk, "") if pair else "",
                    "unit": str(pair.unit) if pair and pair.unit_id else "",
                    "status": pair.status if pair else "",
                    "status_label": pair.get_status_display() if pair else "",
                    "mine": row.pair in self.mine,
                    "slug": slug,
                }
            )
        return out

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return self._enrich(self.rows[index])
        return self._enrich([self.rows[index]])[0]

    def __iter__(self) -> Any:
        # Iterating everything would load every name; the paginator only slices.
        yield from self._enrich(self.rows)


# --------------------------------------------------------------------------------------------
# Cells


def _rank(record: dict[str, Any]) -> str:
    return localize(record["rank"])


def _pair_link(record: dict[str, Any]) -> str:
    return format_html('<a href="{}">{}</a>', record["url"], record["label"])


def _names(record: dict[str, Any]) -> str:
    if not record["names"]:
        return "—"
    status = ""
    if record["status"] and record["status"] != Pair.Status.ACTIVE:  # a team's: the same
        status = record["status_label"]
    return format_html(
        '<a href="{}">{}</a>{}',
        record["url"],
        record["names"],
        format_html(' <span class="badge">{}</span>', status) if status else "",
    )


def _unit(record: dict[str, Any]) -> str:
    return str(record["unit"])


def _decided_by(rules: RuleSet | None) -> Callable[[dict[str, Any]], str]:
    def cell(record: dict[str, Any]) -> str:
        return criterion_label(record["row"].decided_by, rules)

    return cell


def _figure(attribute: str, fmt: Callable[[Any], str]) -> Callable[[dict[str, Any]], str]:
    """A number of the ``StandingRow``, formatted ("—" when the row has none)."""

    def cell(record: dict[str, Any]) -> str:
        return fmt(getattr(record["row"], attribute))

    return cell


@dataclass(frozen=True, slots=True)
class StandingsColumn:
    """One column: its header (lazy, follows the language), the ``class`` of its ``<th>`` and
    ``<td>`` ("" for none) and the cell's content from a row of ``StandingsData``."""

    key: str
    header: Any
    cell: Callable[[dict[str, Any]], Any]
    td_class: str = ""
    th_class: str = ""


class _CriterionHeader:
    """A tiebreak column's header in the active language, or the event's own words (RULES.md
    §9 ``labels``)."""

    def __init__(self, key: str, rules: RuleSet | None = None) -> None:
        self.key = key
        self.rules = rules

    def __str__(self) -> str:
        return criterion_label(self.key, self.rules)


def standings_columns(
    criteria: Sequence[str], teams: bool = False, rules: RuleSet | None = None
) -> list[StandingsColumn]:
    """Rank, pair, names, 场分, one column per numeric criterion, 扣分, unit, "decided by"
    (``teams``: the team's code and name in place of the pair's number and players); the
    criteria headed in the event's own words when ``rules`` name them (RULES.md §9)."""
    columns = [
        StandingsColumn("rank", _("名次"), _rank, td_class="num"),
        StandingsColumn("pair", _("队号") if teams else _("编号"), _pair_link, td_class="num"),
        StandingsColumn("names", _("队名") if teams else _("选手"), _names),
        StandingsColumn("cf", _CriterionHeader("cf", rules), _figure("cf", num), "num", "num"),
    ]
    for key in criteria:
        criterion = CRITERIA.get(key)
        if criterion is None or criterion.attribute is None or key == "cf":
            continue
        fmt = signed if key == "level_difference" else num
        cell = _figure(criterion.attribute, fmt)
        columns.append(StandingsColumn(key, _CriterionHeader(key, rules), cell, "num", "num"))
    columns.append(
        StandingsColumn("deductions", _("扣分"), _figure("deductions", num), "num", "num")
    )
    columns.append(StandingsColumn("unit", _("单位"), _unit, td_class="unit"))
    columns.append(
        StandingsColumn("decided_by", _("区分依据"), _decided_by(rules), td_class="decided")
    )
    return columns


class StandingsTable:
    """One page of the standings: ``columns``, ``page`` (Django's, over ``StandingsData``, so
    only its rows are loaded), ``rows`` (each with its ``cells``). A page number that is not a
    number gives the first page, one past the end the last (``Paginator.get_page``)."""

    def __init__(
        self,
        data: StandingsData,
        criteria: Sequence[str],
        per_page: int = STANDINGS_PER_PAGE,
        page: Any = 1,
        rules: RuleSet | None = None,
    ) -> None:
        self.columns = standings_columns(criteria, teams=data.teams is not None, rules=rules)
        self.paginator = Paginator(data, per_page)
        self.page: Page = self.paginator.get_page(page)

    @cached_property
    def rows(self) -> list[dict[str, Any]]:
        """The page's rows: ``pair``, ``mine``, ``css`` (``mine``, then ``even``/``odd``) and
        ``cells`` (the row's ``<td>`` elements, safe markup)."""
        columns = [
            (format_html(' class="{}"', c.td_class) if c.td_class else "", c.cell)
            for c in self.columns
        ]
        rows = []
        for counter, record in enumerate(self.page.object_list):
            even_odd = "odd" if counter % 2 else "even"
            rows.append(
                {
                    "pair": record["pair"],
                    "mine": record["mine"],
                    "css": f"mine {even_odd}" if record["mine"] else even_odd,
                    "cells": format_html_join(
                        "\n", "<td{}>{}</td>", ((css, cell(record)) for css, cell in columns)
                    ),
                }
            )
        return rows
