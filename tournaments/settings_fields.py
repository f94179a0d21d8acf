"""The form fields of the settings organizers vary (RULES.md §9), once for both pages that offer
them: the event's settings page (``tournaments.forms.SettingsForm``) and each stage of the
stages page (``pairing.forms.StageForm``, where every field may be left empty: the stage keeps
the event's setting). Each field says what it does and the sentence of the rules text it comes
from (``SOURCES``).

- ``variant_fields(stage)``: the fields, by name;
- ``variant_initial(values)``: a form's initial values from settings (the event's dict, or a
  stage's ``settings`` object);
- ``variant_settings(data, stage)``: the settings a valid form gives, in the file's words, only
  those set (a stage: those not left empty; the event: those not at their default), checked by
  ``rules.ruleset.RuleSet.from_dict`` after.

Forms validate and translate; nothing here writes.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from rules.ruleset import DEFAULT_MINUTES, TIEBREAK_PRESETS, Upgrades
from rules.variants import (
    CRITERION_KEYS,
    LABEL_KEYS,
    MAX_ESCALATION_STEPS,
    MAX_LABEL,
    MAX_MINUTES,
    MAX_UPGRADE,
)
from tournaments.bounds import BoundedIntegerField
from tournaments.wording import criterion_label

# The sentence each setting comes from (RULES.md §9, the rules texts and the club guide it
# quotes), shown under the setting. No internal references: the source is named or quoted.
SOURCES: dict[str, Any] = {
    "minutes": _(
        "计时制与计时计副制每轮（每局）的时长，开始本轮时仍可修改。来源：“60分钟为一轮”"
        "（公司比赛规则）；俱乐部规程：预赛每轮70分钟，淘汰赛每局120分钟。"
    ),
    "upgrades": _(
        "上游方按对家名次升级。规程：对家二游升3级、三游升2级、末游升1级。另见公司比赛规则："
        "“如果是双贡，赢家升5级；如果对手有一家是下游，赢家升3级；如果赢家自己对门是下游，"
        "赢家升1级。”"
    ),
    "deal_points": _(
        "积分制：每副都从2打起，上游方按对家名次得3、2、1分，打满规定副数后积分高者胜，积分相同"
        "加打一副，胜方获胜；级差分按积分差计算。来源：“比赛晋级采取6局积分制。每局比赛都打2。"
        "……获胜并取得1,2名，积3分。1，3名积2分。1，4名积1分。6局比赛后，积分高者晋级。"
        "若6局比赛后积分相同，则加赛一局，获胜方晋级。”"
    ),
    "first_to_level": _(
        "计时的比赛到时双方级数相同时，先升到该级的一方获胜（按赢1级计级差分），不加打。"
        "来源：“60分钟到时，双方打同一点数时，先晋级的为胜方。”"
    ),
    "extra_deal_from": _(
        "级数相同加打的一副从哪一级打：当前级数，或双方都从2打起（从2打时加打的一副只决定胜负，"
        "按赢1级计）。来源：“同分的加赛一局，先升级的为获胜方”；俱乐部规程：平局加打一副，"
        "双方从2打起。"
    ),
    "lateness": _(
        "规程：迟到0–5分钟守时方从3开始，5–10分钟从4开始，超过10分钟迟到方弃权。也可设为："
        "迟到即弃权（“未按时出场视为弃赛”）；每迟到若干分钟守时方多升若干级（最多到A），"
        "超过若干分钟弃权；或超过若干分钟判负（“迟到五分钟以上未请假者判负”）。"
    ),
    "escalation": _(
        "同一方多次违规时软件建议的下一步判罚，由裁判确认。规程：一轮内两次警告→违例，"
        "两次违例→犯规，两次犯规→判负。也可按本赛事规定逐次升级，例如俱乐部规程：“初次违反"
        "口头警告，两次违反判对手升三级，三次违反判对手本局获胜。”"
    ),
    "forfeit_absent": _(
        "弃权时缺席方的得分，场分可以为负。来源：“缺席队伍得 −1 分，对手自动获胜（记 1 分）。”"
    ),
    "labels": _(
        "名次表的列名可用本赛事规程的叫法，屏幕、PDF与Excel一致。例如俱乐部规程：场分称“总积分”，"
        "总级差称“净积小分”，升级数称“累积小分”。留空则用通常的名称。"
    ),
    "head_to_head_two": _(
        "“两方相互间胜负”只在恰好两方同分时比较，三方及以上同分时跳过："
        "“3 队及以上总积分相同时，则比较各队的净积小分和累积小分。”"
    ),
    "stage": _(
        "本阶段自己的规则，留空的项目与赛事设置相同。来源：俱乐部规程各阶段的场分、时长、"
        "名次规则各不相同（“小组赛按本阶段的名次规则排名”）。"
    ),
}

STEP_CHOICES = (
    ("warning", _("警告")),
    ("violation", _("违例")),
    ("foul", _("犯规")),
    *((f"level_award:{n}", _("判对手升%(n)s级") % {"n": n}) for n in range(1, MAX_UPGRADE + 1)),
    ("penalty_loss", _("判负（对手本场获胜）")),
    ("disqualification", _("取消资格")),
)
ROUND_FORMAT_CHOICES = (
    ("deals", _("计副制：每轮固定副数")),
    ("game", _("计局制：打到一方过A")),
    ("timed", _("计时制：到时为止")),
    ("timed_deals", _("计时计副制：先到者为准")),
    ("deal_points", _("积分制：每副打2，按积分定胜负")),
)
TIE_CHOICES = (
    ("draw", _("平局（默认，规程）")),
    ("extra_deal", _("加打一副决定胜负（江苏：如升级数相同，可加打一副牌，决出胜负）")),
    (
        "first_to_level",
        _("先升到该级者胜（仅计时赛制：60分钟到时，双方打同一点数时，先晋级的为胜方）"),
    ),
)
SAME = ("", _("同赛事设置"))


def _optional(stage: bool, choices: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]:
    return (SAME, *choices) if stage else choices


def _decimal(label: Any, minimum: int | None = 0, help_text: Any = "") -> forms.DecimalField:
    """An optional number of at most two decimals (``minimum`` None: it may be negative)."""
    return forms.DecimalField(
        label=label,
        min_value=minimum,
        max_digits=5,
        decimal_places=2,
        required=False,
        help_text=help_text,
    )


def variant_fields(stage: bool) -> dict[str, forms.Field]:
    """The fields of RULES.md §9's settings; ``stage``: a stage's (each may stay empty), with
    the event's settings a stage may override besides (match points, forfeit, bye, tiebreaks,
    the tie rule)."""
    fields: dict[str, forms.Field] = {}
    if stage:
        fields["tie"] = forms.ChoiceField(
            label=_("级数相同"), choices=_optional(True, TIE_CHOICES), required=False
        )
        fields["win"] = _decimal(_("胜场分"))
        fields["draw"] = _decimal(_("平场分"))
        fields["loss"] = _decimal(_("负场分"))
        fields["forfeit_cf"] = _decimal(_("弃权：出席方场分"))
        fields["forfeit_jcf"] = _decimal(_("弃权：出席方级差分"))
        fields["bye_cf"] = _decimal(_("轮空：场分"))
        fields["bye_jcf"] = _decimal(_("轮空：级差分"))
        fields["tiebreak_preset"] = forms.ChoiceField(
            label=_("名次规则"),
            required=False,
            choices=(
                SAME,
                ("regulation", _("规程")),
                ("jiangsu2017", _("江苏2017")),
                ("custom", _("自定义（按下面的顺序）")),
            ),
            help_text=_("小组赛按本阶段自己的名次规则排名。"),
        )
        for index in range(1, len(CRITERION_KEYS) + 1):
            fields[f"tiebreak_{index}"] = forms.ChoiceField(
                label=_("第%(n)s项") % {"n": index},
                required=False,
                choices=lambda: [("", "—")] + [(k, criterion_label(k)) for k in CRITERION_KEYS],
            )
    fields["forfeit_absent_cf"] = _decimal(
        _("弃权：缺席方场分"), minimum=None, help_text=SOURCES["forfeit_absent"]
    )
    fields["forfeit_absent_jcf"] = _decimal(_("弃权：缺席方级差分"))
    fields["minutes"] = BoundedIntegerField(
        label=_("每轮时长（分钟）"),
        min_value=1,
        max_value=MAX_MINUTES,
        required=not stage,
        help_text=SOURCES["minutes"],
    )
    fields["extra_deal_from"] = forms.ChoiceField(
        label=_("加打一副的级数"),
        choices=_optional(stage, (("current", _("当前级数")), ("2", _("双方从2打起")))),
        required=not stage,
        help_text=SOURCES["extra_deal_from"],
    )
    if not stage:
        for key, label in (
            ("double", _("对家二游（双下）升级")),
            ("partner_3rd", _("对家三游升级")),
            ("partner_4th", _("对家末游升级")),
        ):
            fields[f"upgrades_{key}"] = BoundedIntegerField(
                label=label, min_value=1, max_value=MAX_UPGRADE
            )
        fields["upgrades_partner_4th"].help_text = SOURCES["upgrades"]
    fields["lateness"] = forms.ChoiceField(
        label=_("迟到"),
        choices=_optional(
            stage,
            (
                ("regulation", _("规程：3 / 4 / 弃权")),
                ("forfeit", _("迟到即弃权")),
                ("per_minutes", _("每迟到若干分钟守时方多升若干级")),
                ("loss_after", _("迟到超过若干分钟判负")),
            ),
        ),
        required=not stage,
        help_text=SOURCES["lateness"],
    )
    fields["lateness_per_minutes"] = BoundedIntegerField(
        label=_("每迟到（分钟）"), min_value=1, max_value=MAX_MINUTES, required=False
    )
    fields["lateness_levels"] = BoundedIntegerField(
        label=_("守时方多升（级）"), min_value=1, max_value=MAX_UPGRADE - 1, required=False
    )
    fields["lateness_forfeit_after"] = BoundedIntegerField(
        label=_("超过（分钟）弃权"), min_value=0, max_value=MAX_MINUTES, required=False
    )
    fields["lateness_loss_after"] = BoundedIntegerField(
        label=_("超过（分钟）判负"), min_value=0, max_value=MAX_MINUTES, required=False
    )
    fields["escalation"] = forms.ChoiceField(
        label=_("判罚升级"),
        choices=_optional(
            stage, (("regulation", _("规程")), ("custom", _("本赛事规定（按下面的顺序）")))
        ),
        required=not stage,
        help_text=SOURCES["escalation"],
    )
    fields["escalation_scope"] = forms.ChoiceField(
        label=_("违规次数的计算范围"),
        choices=(("match", _("每场比赛")), ("round", _("每轮")), ("event", _("整个赛事"))),
        required=False,
    )
    for index in range(1, MAX_ESCALATION_STEPS + 1):
        fields[f"escalation_step_{index}"] = forms.ChoiceField(
            label=_("第%(n)s次违规") % {"n": index},
            choices=(("", "—"), *STEP_CHOICES),
            required=False,
        )
    for key in LABEL_KEYS:
        fields[f"label_{key}"] = forms.CharField(
            label=criterion_label(key), max_length=MAX_LABEL, required=False
        )
    fields[f"label_{LABEL_KEYS[0]}"].help_text = SOURCES["labels"]
    return fields


def _number(value: Any) -> int | float:
    value = Decimal(value)
    return int(value) if value == value.to_integral_value() else float(value)


def variant_initial(values: dict[str, Any], stage: bool) -> dict[str, Any]:
    """A form's initial values from settings in the file's words: the event's settings dict
    (``stage`` False; the defaults where a setting is not given), or a stage's ``settings``
    object and its ``tie`` (``stage``: only what it gives)."""
    initial: dict[str, Any] = {}
    if not stage:
        upgrades = {**Upgrades().to_setting(), **values.get("upgrades", {})}
        for key, value in upgrades.items():
            initial[f"upgrades_{key}"] = value
        initial["minutes"] = values.get("minutes", DEFAULT_MINUTES)
        initial["extra_deal_from"] = str(values.get("extra_deal_from", "current"))
        initial["lateness"] = "regulation"
        initial["escalation"] = "regulation"
    elif "extra_deal_from" in values:
        initial["extra_deal_from"] = str(values["extra_deal_from"])
    if stage:
        if "minutes" in values:
            initial["minutes"] = values["minutes"]
        if "tie" in values:
            initial["tie"] = values["tie"]
        points = values.get("match_points", {})
        for key in ("win", "draw", "loss"):
            if key in points:
                initial[key] = points[key]
        for key in ("forfeit", "bye"):
            for part in ("cf", "jcf"):
                if part in values.get(key, {}):
                    initial[f"{key}_{part}"] = values[key][part]
        tiebreaks = values.get("tiebreaks")
        if isinstance(tiebreaks, str):
            initial["tiebreak_preset"] = tiebreaks
        elif isinstance(tiebreaks, list):
            initial["tiebreak_preset"] = "custom"
            keys = [key for key in tiebreaks if key != "cf"]
            for index, key in enumerate(keys, start=1):
                initial[f"tiebreak_{index}"] = key
    absent = (
        values.get("forfeit", {}).get("absent") if isinstance(values.get("forfeit"), dict) else None
    )
    if absent:
        initial["forfeit_absent_cf"] = absent.get("cf", 0)
        initial["forfeit_absent_jcf"] = absent.get("jcf", 0)
    lateness = values.get("lateness")
    if isinstance(lateness, str):
        initial["lateness"] = lateness
    elif isinstance(lateness, dict):
        kind = "loss_after" if "loss_after" in lateness else "per_minutes"
        initial["lateness"] = kind
        for key, value in lateness.items():
            initial[f"lateness_{key}"] = value
    escalation = values.get("escalation")
    if escalation == "regulation":
        initial["escalation"] = "regulation"
    elif isinstance(escalation, dict):
        initial["escalation"] = "custom"
        initial["escalation_scope"] = escalation.get("scope")
        for index, step in enumerate(escalation.get("steps", []), start=1):
            kind = step.get("kind")
            initial[f"escalation_step_{index}"] = (
                f"level_award:{step.get('levels')}" if kind == "level_award" else kind
            )
    for key, label in (values.get("labels") or {}).items():
        initial[f"label_{key}"] = label
    return initial


def variant_settings(data: dict[str, Any], stage: bool) -> dict[str, Any]:
    """The settings a valid form gives, in the file's words: a stage's only those not left
    empty, the event's only those not at their default (so a file's settings stay as short as
    they were). ``forfeit`` is only its absent side here (the present side is the form's own)."""
    out: dict[str, Any] = {}
    if stage:
        if data.get("tie"):
            out["tie"] = data["tie"]
        points = {k: _number(data[k]) for k in ("win", "draw", "loss") if data.get(k) is not None}
        if points:
            out["match_points"] = points
        for key in ("forfeit", "bye"):
            award = {
                part: _number(data[f"{key}_{part}"])
                for part in ("cf", "jcf")
                if data.get(f"{key}_{part}") is not None
            }
            if award:
                out[key] = award
        preset = data.get("tiebreak_preset")
        if preset == "custom":
            out["tiebreaks"] = [
                data[f"tiebreak_{i}"]
                for i in range(1, len(CRITERION_KEYS) + 1)
                if data.get(f"tiebreak_{i}")
            ]
        elif preset in TIEBREAK_PRESETS:
            out["tiebreaks"] = preset
        if data.get("minutes"):
            out["minutes"] = data["minutes"]
    else:
        upgrades = {
            key: data[f"upgrades_{key}"] for key in ("double", "partner_3rd", "partner_4th")
        }
        if upgrades != Upgrades().to_setting():
            out["upgrades"] = upgrades
        if data.get("minutes") and data["minutes"] != DEFAULT_MINUTES:
            out["minutes"] = data["minutes"]
    absent_cf, absent_jcf = data.get("forfeit_absent_cf"), data.get("forfeit_absent_jcf")
    if absent_cf or absent_jcf:
        out.setdefault("forfeit", {})["absent"] = {
            "cf": _number(absent_cf or 0),
            "jcf": _number(absent_jcf or 0),
        }
    if data.get("extra_deal_from") == "2":
        out["extra_deal_from"] = 2
    elif stage and data.get("extra_deal_from") == "current":
        out["extra_deal_from"] = "current"
    lateness = data.get("lateness")
    if lateness in ("forfeit",) or (stage and lateness == "regulation"):
        out["lateness"] = lateness
    elif lateness == "loss_after":
        out["lateness"] = {"loss_after": data.get("lateness_loss_after")}
    elif lateness == "per_minutes":
        given = {
            "per_minutes": data.get("lateness_per_minutes"),
            "levels": data.get("lateness_levels"),
        }
        if data.get("lateness_forfeit_after") is not None:
            given["forfeit_after"] = data["lateness_forfeit_after"]
        out["lateness"] = given
    escalation = data.get("escalation")
    if escalation == "custom":
        steps = []
        for index in range(1, MAX_ESCALATION_STEPS + 1):
            value = data.get(f"escalation_step_{index}")
            if not value:
                continue
            kind, _sep, levels = value.partition(":")
            steps.append({"kind": kind, "levels": int(levels)} if levels else {"kind": kind})
        out["escalation"] = {"scope": data.get("escalation_scope") or "match", "steps": steps}
    elif stage and escalation == "regulation":
        out["escalation"] = "regulation"
    labels = {
        key: data[f"label_{key}"].strip()
        for key in LABEL_KEYS
        if (data.get(f"label_{key}") or "").strip()
    }
    if labels:
        out["labels"] = labels
    return out


# The settings problems (``rules.errors.Problem.setting``) → the field that shows them.
FIELD_OF_SETTING = {
    "minutes": "minutes",
    "upgrades": "upgrades_double",
    "lateness": "lateness",
    "escalation": "escalation",
    "extra_deal_from": "extra_deal_from",
    "labels": f"label_{LABEL_KEYS[0]}",
}

__all__ = [
    "FIELD_OF_SETTING",
    "ROUND_FORMAT_CHOICES",
    "SOURCES",
    "TIE_CHOICES",
    "variant_fields",
    "variant_initial",
    "variant_settings",
]
