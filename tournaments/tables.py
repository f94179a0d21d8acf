"""django-tables2 tables of the tournament pages: the standings, registrations, the audit log.

The standings pages read ``cached_standings``: the ``scoring.services.standings`` rows kept in
the cache as one column per field (``CompactStandings``), which load in ~1.5 ms at 10,000 pairs
where the services' tuple of frozen dataclasses takes ~60 ms (it is unpickled whole on every
read). ``StandingsData`` turns only the slice a page shows into rows and
loads those pairs' names and units (one query per page, whatever the size of the tournament).
``StandingsTable`` renders its rows in Python (``body_html``): the same markup as
django-tables2's row loop, without its per-cell template work and signature inspection.
Presentation only; nothing here writes to the database.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Callable, Collection, Iterator, Sequence
from operator import attrgetter
from typing import Any, overload

import django_tables2 as tables
from django.core.cache import cache
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _
from django_tables2.data import TableListData
from django_tables2.rows import BoundRow
from django_tables2.utils import AttributeDict

from scoring.standings import CRITERIA, StandingRow
from tournaments.models import Pair, Player
from tournaments.templatetags.tourney import criterion_label, num, signed

STANDINGS_PER_PAGE = 50

# --------------------------------------------------------------------------------------------
# The standings rows, compactly cached

_FIELDS = tuple(field.name for field in dataclasses.fields(StandingRow))
_PAIR = _FIELDS.index("pair")
# A field annotated as a plain int or float is stored as an array of machine numbers (pickled
# as raw bytes: 32-bit ints, doubles so no total changes); any other (``int | None``,
# ``str | None``) as a tuple. A value the array cannot hold keeps its column a tuple.
_TYPECODES: dict[Any, str] = {int: "i", "int": "i", float: "d", "float": "d"}
_TYPES = tuple(_TYPECODES.get(field.type) for field in dataclasses.fields(StandingRow))


class CompactStandings(Sequence[StandingRow]):
    """Standings as one column per ``StandingRow`` field; a row or a slice is rebuilt as
    ``StandingRow`` only when asked for. At 10,000 pairs the columns pickle in ~1 ms and load in
    ~1.5 ms (the tuple of slotted frozen dataclasses: ~70 ms and ~60 ms CPU)."""

    __slots__ = ("columns",)

    def __init__(self, columns: Sequence[Sequence[Any]]) -> None:
        if len(columns) != len(_FIELDS):
            raise ValueError("one column per StandingRow field")
        self.columns = tuple(columns)

    @classmethod
    def from_rows(cls, rows: Sequence[StandingRow]) -> CompactStandings:
        columns: list[Sequence[Any]] = []
        for name, typecode in zip(_FIELDS, _TYPES, strict=True):
            values = list(map(attrgetter(name), rows))
            column: Sequence[Any] = tuple(values)
            if typecode is not None:
                try:
                    column = array(typecode, values)
                except (TypeError, OverflowError):  # not the numbers the annotation promised
                    pass
            columns.append(column)
        return cls(columns)

    def __len__(self) -> int:
        return len(self.columns[_PAIR])

    @overload
    def __getitem__(self, index: int) -> StandingRow: ...
    @overload
    def __getitem__(self, index: slice) -> list[StandingRow]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [
                StandingRow(*values)
                for values in zip(*(c[index] for c in self.columns), strict=True)
            ]
        return StandingRow(*(c[index] for c in self.columns))

    def __iter__(self) -> Iterator[StandingRow]:
        for values in zip(*self.columns, strict=True):
            yield StandingRow(*values)

    def first_index(self, pairs: Collection[int]) -> int | None:
        """Position of the highest-placed row of any of ``pairs`` (None if none has a row)."""
        column = self.columns[_PAIR]
        found = [i for i, pair in enumerate(column) if pair in pairs] if pairs else []
        return found[0] if found else None

    def rows_of(self, pairs: Collection[int]) -> dict[int, StandingRow]:
        """The rows of ``pairs`` by pair number (one pass over the pair column)."""
        wanted = set(pairs)
        column = self.columns[_PAIR]
        return {pair: self[i] for i, pair in enumerate(column) if pair in wanted}


def _standings_key(tournament: Any, after_round: int | None) -> str:
    # The same parts as the services' own key: created_at tells a tournament from an earlier one
    # that had the same id; results_version is bumped by every result-changing service.
    after = "latest" if after_round is None else after_round
    return (
        f"standings-columns:{tournament.pk}:{tournament.created_at.timestamp():.6f}:"
        f"{tournament.results_version}:{after}"
    )


def cached_standings(tournament: Any, after_round: int | None = None) -> CompactStandings:
    """``scoring.services.standings(tournament, after_round)`` for the pages, compactly cached.

    Keyed by the ``results_version`` of ``tournament`` as this request loaded it. The services
    read the version again, so what is stored is never older than its key says (a result
    confirmed in between only makes it newer); a confirmed result shows at once.
    """
    from scoring.services import STANDINGS_CACHE_SECONDS, standings

    key = _standings_key(tournament, after_round)
    columns = cache.get(key)
    if columns is not None:
        return CompactStandings(columns)
    compact = CompactStandings.from_rows(standings(tournament, after_round=after_round))
    cache.set(key, compact.columns, STANDINGS_CACHE_SECONDS)
    return compact


def names_by_pair(pair_ids: Collection[int]) -> dict[int, str]:
    """``Pair.player_names`` ("张三/李四") of the given pairs by id, in one query of two columns.

    For lists of 50–200 pairs: prefetching ``players`` builds a queryset and a model instance
    per player, which was a third of the pairings page's time.
    """
    names: dict[int, list[str]] = {}
    players = (
        Player.objects.filter(pair_id__in=pair_ids)
        .order_by("pair_id", "position")
        .values_list("pair_id", "name")
    )
    for pair_id, name in players:
        names.setdefault(pair_id, []).append(name)
    return {pair_id: "/".join(listed) for pair_id, listed in names.items()}


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
                    "url": reverse("tournaments:pair", args=[slug, row.pair]),
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
