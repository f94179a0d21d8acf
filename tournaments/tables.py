"""django-tables2 tables of the tournament pages: the standings, registrations, the audit log.

The standings table is fed by ``StandingsData``: a sequence over the cached
``scoring.services.standings`` rows that loads names and units only for the slice a page shows
(one query per page, whatever the size of the tournament), so pagination stays cheap at 10,000
pairs. Presentation only; nothing here writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

import django_tables2 as tables
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django_tables2.data import TableListData

from scoring.standings import CRITERIA, StandingRow
from tournaments.models import Pair
from tournaments.templatetags.tourney import criterion_label, num, signed

STANDINGS_PER_PAGE = 50


class StandingsData(Sequence[dict[str, Any]]):
    """Standings rows as dicts; a slice loads the pairs' names and units in one query."""

    def __init__(self, tournament: Any, rows: Sequence[StandingRow], mine: set[int]) -> None:
        self.tournament = tournament
        self.rows = rows
        self.mine = mine

    def __len__(self) -> int:
        return len(self.rows)

    def _enrich(self, rows: Sequence[StandingRow]) -> list[dict[str, Any]]:
        numbers = [row.pair for row in rows]
        pairs = {
            p.number: p
            for p in Pair.objects.filter(tournament=self.tournament, number__in=numbers)
            .select_related("unit")
            .prefetch_related("players")
        }
        out = []
        for row in rows:
            pair = pairs.get(row.pair)
            out.append(
                {
                    "row": row,
                    "rank": row.rank,
                    "pair": row.pair,
                    "names": pair.player_names if pair else "",
                    "unit": str(pair.unit) if pair and pair.unit_id else "",
                    "status": pair.status if pair else "",
                    "status_label": pair.get_status_display() if pair else "",
                    "mine": row.pair in self.mine,
                    "slug": self.tournament.slug,
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
        # Iterating everything would load every name; tables2 only slices (paginated pages).
        yield from self._enrich(self.rows)


def _attr(name: str, fmt: Callable[[Any], str] = num) -> Callable[..., str]:
    def render(record: dict[str, Any]) -> str:
        return fmt(getattr(record["row"], name))

    return render


class _RowColumn(tables.Column):
    """A number from the ``StandingRow``, formatted."""

    def __init__(self, attribute: str, fmt: Callable[[Any], str] = num, **kwargs: Any) -> None:
        self.attribute_name = attribute
        self.fmt = fmt
        kwargs.setdefault("empty_values", ())
        kwargs.setdefault("orderable", False)
        kwargs.setdefault("attrs", {"td": {"class": "num"}, "th": {"class": "num"}})
        super().__init__(**kwargs)

    def render(self, record: dict[str, Any]) -> str:
        value = getattr(record["row"], self.attribute_name)
        if value is None:
            return "—"
        return self.fmt(value)


def _pair_link(record: dict[str, Any]) -> str:
    url = reverse("tournaments:pair", args=[record["slug"], record["pair"]])
    return format_html('<a href="{}">{}</a>', url, record["pair"])


class StandingsTable(tables.Table):
    """名次: rank, pair, names, unit, 场分, then the tournament's tiebreak columns."""

    rank = tables.Column(verbose_name=_("名次"), orderable=False, attrs={"td": {"class": "num"}})
    pair = tables.Column(
        verbose_name=_("编号"), orderable=False, empty_values=(), attrs={"td": {"class": "num"}}
    )
    names = tables.Column(verbose_name=_("选手"), orderable=False)
    cf = _RowColumn("cf", verbose_name=_("场分"))

    class Meta:
        template_name = "tournaments/_table.html"
        attrs = {"class": "standings data"}
        row_attrs = {
            "id": lambda record: f"pair-{record['pair']}",
            "class": lambda record: "mine" if record["mine"] else "",
            "aria-current": lambda record: "true" if record["mine"] else None,
        }
        empty_text = _("暂无名次")
        per_page = STANDINGS_PER_PAGE

    def render_pair(self, record: dict[str, Any]) -> str:
        return _pair_link(record)

    def render_names(self, record: dict[str, Any]) -> str:
        url = reverse("tournaments:pair", args=[record["slug"], record["pair"]])
        status = ""
        if record["status"] and record["status"] != Pair.Status.ACTIVE:
            status = record["status_label"]
        return format_html(
            '<a href="{}">{}</a>{}',
            url,
            record["names"],
            format_html(' <span class="badge">{}</span>', status) if status else "",
        )

    @classmethod
    def for_criteria(cls, data: StandingsData, criteria: Sequence[str], **kwargs: Any) -> Any:
        """The table with one column per numeric criterion, then 扣分 and "decided by"."""
        extra: list[tuple[str, tables.Column]] = []
        for key in criteria:
            criterion = CRITERIA.get(key)
            if criterion is None or criterion.attribute is None or key == "cf":
                continue
            fmt = signed if key == "level_difference" else num
            extra.append((key, _RowColumn(criterion.attribute, fmt, verbose_name=_label(key))))
        extra.append(("deductions", _RowColumn("deductions", verbose_name=_("扣分"))))
        extra.append(
            (
                "unit",
                tables.Column(
                    verbose_name=_("单位"),
                    orderable=False,
                    attrs={"td": {"class": "unit"}},
                    default="",
                ),
            )
        )
        extra.append(
            (
                "decided_by",
                tables.Column(
                    verbose_name=_("区分依据"),
                    orderable=False,
                    empty_values=(),
                    accessor="row",
                    attrs={"td": {"class": "decided"}},
                ),
            )
        )
        # Wrapped so django-tables2 slices it instead of calling list() on every row.
        table = cls(TableListData(data), extra_columns=extra, **kwargs)
        return table

    def render_decided_by(self, record: dict[str, Any]) -> str:
        key = record["row"].decided_by
        return criterion_label(key) if key else ""


class _Label:
    """A lazy column header following the active language."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __str__(self) -> str:
        return criterion_label(self.key)


def _label(key: str) -> Any:
    return _Label(key)


class AuditTable(tables.Table):
    """操作日志 (read-only)."""

    created_at = tables.DateTimeColumn(
        verbose_name=_("时间"), format="Y-m-d H:i:s", orderable=False
    )
    actor = tables.Column(verbose_name=_("操作人"), orderable=False)
    action = tables.Column(verbose_name=_("操作"), orderable=False)
    where = tables.Column(verbose_name=_("轮/桌"), orderable=False, empty_values=(), accessor="pk")
    change = tables.Column(verbose_name=_("内容"), orderable=False, empty_values=(), accessor="pk")
    reason = tables.Column(verbose_name=_("原因"), orderable=False, default="")

    class Meta:
        template_name = "tournaments/_table.html"
        attrs = {"class": "audit data"}
        empty_text = _("暂无记录")
        per_page = 100

    def render_action(self, record: Any) -> str:
        return record.get_action_display()

    def render_where(self, record: Any) -> str:
        parts = []
        if record.round_number:
            parts.append(str(_("第%(n)s轮")) % {"n": record.round_number})
        if record.table_number:
            parts.append(str(_("第%(n)s桌")) % {"n": record.table_number})
        return " ".join(parts) or "—"

    def render_change(self, record: Any) -> str:
        from tournaments.templatetags.tourney import describe_change

        return describe_change(record.before, record.after)
