"""The standings as a django-tables2 table, for the public standings page and the projector.

``StandingsData`` turns only the slice a page shows into rows and loads those pairs' names and
units (one query per page, whatever the size of the tournament).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

import django_tables2 as tables
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _
from django_tables2.data import TableListData
from django_tables2.rows import BoundRow
from django_tables2.utils import AttributeDict

from scoring.standings import CRITERIA, StandingRow
from tournaments.models import Pair
from tournaments.queries import names_by_pair
from tournaments.templatetags.tourney import num, signed
from tournaments.wording import criterion_label

STANDINGS_PER_PAGE = 50


class _Label:
    """A lazy column header following the active language."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __str__(self) -> str:
        return criterion_label(self.key)


def _label(key: str) -> Any:
    return _Label(key)


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
    return format_html('<a href="{}">{}</a>', record["url"], record["pair"])


def _row_id(record: dict[str, Any]) -> str:
    return f"pair-{record['pair']}"


def _row_class(record: dict[str, Any]) -> str:
    return "mine" if record["mine"] else ""


def _row_current(record: dict[str, Any]) -> str | None:
    return "true" if record["mine"] else None


class _RankingData(TableListData):
    """The standings in their order: the order is the ranking, so ``?sort=`` changes nothing
    (and a list of 10,000 rows is never sorted per request)."""

    def order_by(self, aliases: Any) -> None:
        pass


class StandingsTable(tables.Table):
    """名次: rank, pair, names, unit, 场分, then the tournament's tiebreak columns."""

    rank = tables.Column(verbose_name=_("名次"), orderable=False, attrs={"td": {"class": "num"}})
    pair = tables.Column(
        verbose_name=_("编号"), orderable=False, empty_values=(), attrs={"td": {"class": "num"}}
    )
    names = tables.Column(verbose_name=_("选手"), orderable=False)
    cf = _RowColumn("cf", verbose_name=_("场分"))

    class Meta:
        template_name = "tournaments/_standings_table.html"
        attrs = {"class": "standings data"}
        row_attrs = {
            "id": _row_id,
            "class": _row_class,
            "aria-current": _row_current,
        }
        empty_text = _("暂无名次")
        per_page = STANDINGS_PER_PAGE

    def render_pair(self, record: dict[str, Any]) -> str:
        return _pair_link(record)

    def render_names(self, record: dict[str, Any]) -> str:
        status = ""
        if record["status"] and record["status"] != Pair.Status.ACTIVE:
            status = record["status_label"]
        return format_html(
            '<a href="{}">{}</a>{}',
            record["url"],
            record["names"],
            format_html(' <span class="badge">{}</span>', status) if status else "",
        )

    def _cell_function(self, bound_column: Any) -> Callable[[dict[str, Any]], Any]:
        """``record -> cell content`` for a column, as django-tables2 would compute it."""
        column, name = bound_column.column, bound_column.name
        if isinstance(column, _RowColumn):
            return column.render
        renderer = {
            "pair": self.render_pair,
            "names": self.render_names,
            "decided_by": self.render_decided_by,
        }.get(name)
        if name in ("rank", "names", "unit"):
            key, empty, default = (
                str(bound_column.accessor),
                column.empty_values,
                bound_column.default,
            )

            def cell(record: dict[str, Any]) -> Any:
                value = record.get(key)
                if value in empty:
                    return default
                return renderer(record) if renderer is not None else value

            return cell
        if renderer is not None:
            return renderer

        def generic(record: dict[str, Any]) -> Any:  # any other column: the library's own way
            return BoundRow(record, table=self).get_cell(name)

        return generic

    def body_html(self) -> SafeString:
        """The ``<tr>`` rows of the page, with the markup of django-tables2's row loop (row
        attributes, even/odd, each column's ``td`` attributes, cells localised and escaped as
        ``{{ cell }}`` does), built in Python: a page is ~650 cells, and the template loop
        costs ~0.3 ms a cell (per-cell ``inspect.signature`` and attribute dicts)."""
        columns = [
            (format_html("<td {}>", c.attrs["td"].as_html()), self._cell_function(c))
            for c in self.columns
        ]
        records = list(self.paginated_rows.data)
        if not records:
            if not self.empty_text:
                return mark_safe("")
            return format_html('<tr><td colspan="{}">{}</td></tr>\n', len(columns), self.empty_text)
        parts: list[str] = []
        for counter, record in enumerate(records):
            even_odd = "odd" if counter % 2 else "even"
            css = _row_class(record)
            attrs = AttributeDict(
                {
                    "id": _row_id(record),
                    "class": f"{css} {even_odd}" if css else even_odd,
                    "aria-current": _row_current(record),
                }
            )
            parts.append(format_html("<tr {}>\n", attrs.as_html()))
            for opening, cell in columns:
                parts.append(opening)
                parts.append(conditional_escape(localize(cell(record))))
                parts.append("</td>\n")
            parts.append("</tr>\n")
        # Every part is a constant, escaped by conditional_escape or built by format_html.
        return mark_safe("".join(parts))  # noqa: S308

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
        table = cls(_RankingData(data), extra_columns=extra, **kwargs)
        return table

    def render_decided_by(self, record: dict[str, Any]) -> str:
        key = record["row"].decided_by
        return criterion_label(key) if key else ""
