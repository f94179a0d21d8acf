"""Template helpers for the tournament pages: levels, numbers, the engine's reasons, navigation.

Presentation only: no domain rule is decided here, and nothing is written. ``describe_reason``
turns a pairing reason stored on a draft table (``{"code": ..., "params": {...}}``, codes from
``pairing.swiss``) into a translated sentence.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from tournaments.wording import criterion_label, event_text, side_label

register = template.Library()


@register.filter
def level(value: Any) -> str:
    """A level as players write it: 2…10, J, Q, K, A, 过A."""
    from rules.levels import level_label

    try:
        text = level_label(int(value))
    except (TypeError, ValueError):
        return "—"
    return _("过A") if text == "过A" else text


@register.filter
def num(value: Any) -> str:
    """2.0 → "2", 0.5 → "0.5", None → "—"."""
    if value is None or value == "":
        return "—"
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if number.is_integer():
        return str(int(number))
    return f"{number:.2f}".rstrip("0").rstrip(".")


@register.filter
def signed(value: Any) -> str:
    """+3 / 0 / −2 for a signed level difference."""
    if value is None:
        return "—"
    number = int(value)
    return f"+{number}" if number > 0 else ("0" if number == 0 else f"−{-number}")


@register.filter
def side(value: Any) -> str:
    """NS → 南北, EW → 东西, BYE → 轮空 (``tournaments.wording``)."""
    return side_label(str(value) if value else None)


register.filter("criterion", criterion_label)
register.filter("event_text", event_text)


_WHY = {
    "had_bye": lambda: _("已轮空过"),
    "rest_unpairable": lambda: _("否则其余各对无法避免重复交手"),
    "balance": lambda: _("平衡南北与东西的次数"),
    "alternate": lambda: _("与上轮方向交替"),
    "higher_ranked": lambda: _("方向无偏好，名次较高的一对坐南北"),
    "drawn_first": lambda: _("方向无偏好，抽签在前的一对坐南北"),
    "higher_seeded": lambda: _("方向无偏好，种子序号靠前的一对坐南北"),
}


# Lazy: a review page shows 100 tables, and only the text of each table's own code is translated
# (building all twelve per call was ~1,200 gettext calls a page).
_REASON_TEXTS = {
    "same_score": gettext_lazy("两对场分相同（%(cf)s）"),
    "float": gettext_lazy("第%(pair)s对从 %(from)s 分组移至 %(to)s 分组"),
    "same_unit_forced": gettext_lazy("同单位（%(unit)s）相遇：没有其他可行的编排"),
    "same_unit_allowed": gettext_lazy("同单位（%(unit)s）相遇：赛事设置允许"),
    "lot": gettext_lazy("第一轮：抽签编排"),
    "seeding": gettext_lazy("第一轮：种子 %(seed_a)s 对种子 %(seed_b)s"),
    "direction": gettext_lazy("第%(pair)s对坐%(seat)s：%(why)s"),
    "bye_lowest_without_bye": gettext_lazy(
        "轮空：第%(pair)s对（第%(rank)s名）是未轮空过的最低名次"
    ),
    "bye_skipped": gettext_lazy("轮空：跳过第%(pair)s对（第%(rank)s名）：%(why)s"),
    "bye_lot": gettext_lazy("轮空：在未轮空过的各对中抽签选中第%(pair)s对"),
    "bye_seeding": gettext_lazy("轮空：第%(pair)s对是未轮空过的最低种子"),
    "manual_swap": gettext_lazy("编排人员手工调整"),
}


def describe_reason(reason: Any) -> str:
    """A draft table's reason (``{"code", "params"}``) as a translated sentence."""
    if not isinstance(reason, dict):
        return str(reason)
    code = str(reason.get("code", ""))
    params = dict(reason.get("params") or {})
    if "why" in params:
        why = _WHY.get(str(params["why"]))
        params["why"] = why() if why else params["why"]
    if "seat" in params:
        params["seat"] = side_label(str(params["seat"]))
    lazy = _REASON_TEXTS.get(code)
    if lazy is None:
        return code
    text = str(lazy)
    try:
        return text % params
    except (KeyError, TypeError, ValueError):
        return text


register.filter("reason", describe_reason)


def _pair_text(pair: Any, names: dict[int, str]) -> str:
    unit = pair.unit
    return format_html(
        '<span class="pair-no">{}</span> <span class="names">{}</span>{}',
        localize(pair.number),
        names.get(pair.pk, ""),
        format_html(' <span class="muted unit">{}</span>', unit) if unit else "",
    )


@register.filter
def pair_cells(table: Any, names: dict[int, str]) -> str:
    """A table's 桌号, 南北 and 东西 cells, for the pairings and the round review (100 tables a
    page): built here rather than by a template included once per row (~0.3 ms a row).
    ``names`` is the players' names by pair id (``tournaments.tables.names_by_pair``); the
    pairs' ``unit`` should be selected with the table."""
    ew = format_html("<em>{}</em>", _("轮空")) if table.is_bye else _pair_text(table.ew, names)
    return format_html(
        '<td class="num">{}</td>\n<td>{}</td>\n<td>{}</td>\n',
        localize(table.number),
        _pair_text(table.ns, names),
        ew,
    )


@register.inclusion_tag("tournaments/_nav.html", takes_context=True)
def tournament_nav(context: template.Context, tournament: Any, nav: str = "") -> dict[str, Any]:
    """The tournament's tab bar: public tabs for everybody, staff tabs by the user's role."""
    from tournaments.permissions import Action, allowed

    request = context.get("request")
    user = getattr(request, "user", None)
    # The staff tabs by the one map (``tournaments.permissions``): a tab only for whoever the
    # page behind it lets in; no user (a page rendered outside a request) sees none.
    may = allowed(user, tournament) if user is not None else None

    def tab(action: Action) -> bool:
        return may is not None and may[action]

    slug = tournament.slug
    links: list[dict[str, str]] = [
        {
            "key": "home",
            "url": reverse("public:detail", args=[slug]),
            "label": tournament.name,
        },
        {"key": "find", "url": reverse("public:find", args=[slug]), "label": _("查找座位")},
        {"key": "rounds", "url": reverse("public:rounds", args=[slug]), "label": _("对阵")},
        {
            "key": "standings",
            "url": reverse("public:standings", args=[slug]),
            "label": _("名次"),
        },
    ]
    teams = tournament.rules.event == "teams"
    if teams:
        links.append(
            {
                "key": "public_teams",
                "url": reverse("public:teams", args=[slug]),
                "label": _("参赛队"),
            }
        )
    kinds = [stage.type for stage in tournament.rules.stages]
    if any(kind.has_groups for kind in kinds):
        links.append(
            {"key": "groups", "url": reverse("public:groups", args=[slug]), "label": _("小组")}
        )
    if any(kind.has_bracket for kind in kinds):
        links.append(
            {"key": "bracket", "url": reverse("public:bracket", args=[slug]), "label": _("淘汰赛")}
        )
    if kinds:
        links.append(
            {
                "key": "placings",
                "url": reverse("public:placings", args=[slug]),
                "label": _("最终名次"),
            }
        )
    staff: list[dict[str, str]] = []
    if tab(Action.REGISTRATION):
        staff.append(
            {
                "key": "manage",
                "url": reverse("tournaments:manage", args=[slug]),
                "label": pgettext("nav", "管理"),
            }
        )
        staff.append(
            {
                "key": "pairs",
                "url": reverse("tournaments:pairs", args=[slug]),
                "label": _("报名"),
            }
        )
        if teams:
            staff.append(
                {
                    "key": "teams",
                    "url": reverse("tournaments:teams", args=[slug]),
                    "label": _("队伍"),
                }
            )
    if tab(Action.ROUND_CONTROL):
        staff.append(
            {
                "key": "round_control",
                "url": reverse("pairing:control", args=[slug]),
                "label": _("编排"),
            }
        )
    if tab(Action.ENTER_RESULT):
        staff.append(
            {
                "key": "referee",
                "url": reverse("referee:dashboard", args=[slug]),
                "label": _("裁判台"),
            }
        )
    if tab(Action.CHECK_IN):
        staff.append(
            {
                "key": "checkin",
                "url": reverse("tournaments:checkin", args=[slug]),
                "label": _("签到"),
            }
        )
    if tab(Action.APPEAL):
        staff.append(
            {
                "key": "appeals",
                "url": reverse("appeals:appeals", args=[slug]),
                "label": _("申诉"),
            }
        )
    if tab(Action.AUDIT_LOG):
        staff.append(
            {"key": "audit", "url": reverse("tournaments:audit", args=[slug]), "label": _("日志")}
        )
    return {"links": links, "staff": staff, "nav": nav}


def _compact(value: Any) -> str:
    import json

    if value in (None, "", {}, []):
        return ""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def describe_change(before: Any, after: Any, limit: int = 300) -> str:
    """An audit entry's before → after, compact (the log is for reading, not re-using)."""
    left, right = _compact(before), _compact(after)
    text = f"{left} → {right}" if left and right else (left or right or "—")
    return text if len(text) <= limit else text[: limit - 1] + "…"
