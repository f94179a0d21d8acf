"""Template helpers for the tournament pages: levels, numbers, the engine's reasons, navigation.

Presentation only: no domain rule is decided here, and nothing is written. ``describe_reason``
turns a pairing reason stored on a draft table (``{"code": ..., "params": {...}}``, codes from
``pairing.swiss``) into a translated sentence.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _

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


def side_text(side: str | None) -> str:
    return {"NS": _("南北"), "EW": _("东西"), "BYE": _("轮空")}.get(side or "", "—")


@register.filter
def side(value: Any) -> str:
    """NS → 南北, EW → 东西, BYE → 轮空."""
    return side_text(str(value) if value else None)


def criterion_label(key: str | None) -> str:
    """The label of a standings criterion in the current language (``scoring.standings``)."""
    from scoring.standings import CRITERIA

    if not key:
        return ""
    criterion = CRITERIA.get(key)
    if criterion is None:
        return key
    if (get_language() or "").startswith("zh"):
        return criterion.label_zh
    return criterion.label_en


register.filter("criterion", criterion_label)


_WHY = {
    "had_bye": lambda: _("已轮空过"),
    "rest_unpairable": lambda: _("否则其余各对无法避免重复交手"),
    "balance": lambda: _("平衡南北与东西的次数"),
    "alternate": lambda: _("与上轮方向交替"),
    "higher_ranked": lambda: _("方向无偏好，名次较高的一对坐南北"),
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
        params["seat"] = side_text(str(params["seat"]))
    texts = {
        "same_score": _("两对场分相同（%(cf)s）"),
        "float": _("第%(pair)s对从 %(from)s 分组移至 %(to)s 分组"),
        "same_unit_forced": _("同单位（%(unit)s）相遇：没有其他可行的编排"),
        "same_unit_allowed": _("同单位（%(unit)s）相遇：赛事设置允许"),
        "lot": _("第一轮：抽签编排"),
        "seeding": _("第一轮：种子 %(seed_a)s 对种子 %(seed_b)s"),
        "direction": _("第%(pair)s对坐%(seat)s：%(why)s"),
        "bye_lowest_without_bye": _("轮空：第%(pair)s对（第%(rank)s名）是未轮空过的最低名次"),
        "bye_skipped": _("轮空：跳过第%(pair)s对（第%(rank)s名）：%(why)s"),
        "bye_lot": _("轮空：在未轮空过的各对中抽签选中第%(pair)s对"),
        "bye_seeding": _("轮空：第%(pair)s对是未轮空过的最低种子"),
        "manual_swap": _("编排人员手工调整"),
    }
    text = texts.get(code)
    if text is None:
        return code
    try:
        return text % params
    except (KeyError, TypeError, ValueError):
        return text


register.filter("reason", describe_reason)


@register.inclusion_tag("tournaments/_nav.html", takes_context=True)
def tournament_nav(context: template.Context, tournament: Any, nav: str = "") -> dict[str, Any]:
    """The tournament's tab bar: public tabs for everybody, staff tabs by the user's role."""
    from tournaments.permissions import Role, roles_of

    request = context.get("request")
    user = getattr(request, "user", None)
    roles = roles_of(user, tournament) if user is not None else frozenset()
    slug = tournament.slug
    links: list[dict[str, str]] = [
        {
            "key": "home",
            "url": reverse("tournaments:detail", args=[slug]),
            "label": tournament.name,
        },
        {"key": "find", "url": reverse("tournaments:find", args=[slug]), "label": _("查找座位")},
        {"key": "rounds", "url": reverse("pairing:rounds", args=[slug]), "label": _("对阵")},
        {
            "key": "standings",
            "url": reverse("tournaments:standings", args=[slug]),
            "label": _("名次"),
        },
    ]
    staff: list[dict[str, str]] = []
    if Role.ORGANIZER in roles:
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
    if roles & {Role.ORGANIZER, Role.CHIEF_REFEREE}:
        staff.append(
            {
                "key": "round_control",
                "url": reverse("pairing:control", args=[slug]),
                "label": _("编排"),
            }
        )
    if Role.REFEREE in roles:
        for name in ("scoring:dashboard", "scoring:round_dashboard", "scoring:index"):
            try:
                url = reverse(name, args=[slug])
            except NoReverseMatch:
                continue
            staff.append({"key": "referee", "url": url, "label": _("裁判台")})
            break
    if roles & {Role.ORGANIZER, Role.CHIEF_REFEREE}:
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


@register.filter
def event_text(token: str) -> str:
    """A table event token as words: "南北上游，对家二游 +3", "东西犯规", "南北升级调整 +2"."""
    from rules.errors import RuleError
    from rules.events import EventKind, parse_event

    try:
        event = parse_event(str(token))
    except RuleError:
        return str(token)
    who = side_text(str(event.side))
    if event.kind is EventKind.DEAL:
        place = {3: _("二游"), 2: _("三游"), 1: _("末游")}[event.upgrade]
        return _("%(side)s上游，对家%(place)s +%(up)s") % {
            "side": who,
            "place": place,
            "up": event.upgrade,
        }
    if event.kind is EventKind.FOUL:
        return _("%(side)s犯规") % {"side": who}
    return _("%(side)s升级调整 +%(up)s") % {"side": who, "up": event.upgrade}
