"""The audit log as a django-tables2 table (the organizer's 操作日志 page)."""

from __future__ import annotations

from typing import Any

import django_tables2 as tables
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from tournaments.wording import audit_sentence


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

    # The log has one order, newest first: a ``?sort=`` of any value (the columns are not
    # orderable) is ignored before django-tables2 parses it.
    @tables.Table.order_by.setter  # type: ignore[attr-defined, untyped-decorator]
    def order_by(self, value: Any) -> None:
        tables.Table.order_by.fset(self, ())  # type: ignore[attr-defined]

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
        """The change as a sentence of the user's language (``wording.audit_sentence``), the
        stored data one click away (issue 15: the log showed raw JSON)."""
        from tournaments.templatetags.tourney import describe_change

        raw = describe_change(record.before, record.after, limit=2000)
        sentence = audit_sentence(record.action, record.before, record.after)
        if not sentence:
            return raw
        return format_html(
            '{}<details class="raw"><summary>{}</summary><code>{}</code></details>',
            sentence,
            _("原始数据"),
            raw,
        )
