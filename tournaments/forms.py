"""Forms of the organizer and public pages: tournament settings (every ``RuleSet`` setting,
explained), registrations, roles, the public search boxes.

Forms validate and translate; they never write. ``SettingsForm.settings()`` returns the
tournament file's ``settings`` dict, already validated by ``RuleSet.from_dict``; a wrong custom
scale table or tiebreak list comes back as sentences on the field concerned.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rules.errors import RuleSetError
from rules.ruleset import (
    CORRECTION_MINUTES,
    CRITERION_KEYS,
    DEFAULT_PENALTY_AUTHORITY,
    MAX_CORRECTION_MINUTES,
    SCALE_PRESETS,
    TIEBREAK_PRESETS,
    RuleSet,
    preset_settings,
)
from rules.text import TextError, check_text, normalise_name
from tournaments.bounds import SEED_MAX, BoundedIntegerField
from tournaments.messages import describe_problem, sentence
from tournaments.models import Unit
from tournaments.settings_fields import (
    FIELD_OF_SETTING,
    ROUND_FORMAT_CHOICES,
    SOURCES,
    TIE_CHOICES,
    variant_fields,
    variant_initial,
    variant_settings,
)
from tournaments.wording import criterion_label

# The presets of ``rules.ruleset.PRESETS`` (labels are their ``label_zh``, translated), each with
# the seed text it follows (RULES.md §4), plus "custom".
PRESETS = (
    ("regulation", _("规程（26:0 级差分，规程名次规则）")),
    ("jiangsu2017", _("江苏2017（26分制，A必打不降级，平局加打一副）")),
    ("custom", _("自定义")),
)
PRESET_SOURCES = {
    "regulation": _(
        "依据：seed 003 竞赛规程——26:0 级差分表，弃权得2场分与17级差分，迟到领先级数，"
        "A必打不降级，级数相同为平局，规程名次规则。"
    ),
    "jiangsu2017": _(
        "依据：seed 001 江苏省掼蛋竞赛简易规则（按13级26分制计算，A必打不降级，"
        "如升级数相同可加打一副牌决出胜负）；名次规则依 seed 004。"
    ),
    "custom": _("自由组合以下各项（如28分制、三次打A不过降回2等公司或俱乐部规则）。"),
}
# RULES.md §3 "Who may impose what": one select per penalty kind.
PENALTY_KIND_LABELS = {
    "warning": _("警告"),
    "violation": _("违例"),
    "foul": _("犯规"),
    "deal_loss": _("本副判负"),
    "penalty_loss": _("判负"),
    "deduction": _("级差分扣分"),
    "level_award": _("升级调整"),
    "disqualification": _("取消资格"),
}
PENALTY_ROLE_CHOICES = (
    ("referee", _("裁判")),
    ("chief_referee", _("裁判长")),
    ("organizer", _("组委会")),
)
UPGRADES_NOTE = _(
    "升级数 = 每场最终级数 − 2（过A计13；迟到领先的级数计入，判负降级与打A失败降回2扣除；"
    "弃权、轮空计0）。"
)
TIEBREAK_SLOTS = len(CRITERION_KEYS)


class NameField(forms.CharField):
    """A name (a player's, a team's, a unit's, a contact): refused with a sentence when it holds a
    NUL, control, invisible or bidi-control character; NFKC-normalised, one space between words
    (``rules.text``, the same as the registration services and the imports)."""

    def clean(self, value: Any) -> Any:
        text = super().clean(value)
        if not text:
            return text
        try:
            check_text(text)
        except TextError as error:
            raise forms.ValidationError(sentence(error.code), code=error.code) from None
        return normalise_name(text)


def _criterion_choices() -> list[tuple[str, str]]:
    return [("", "—")] + [(key, criterion_label(key)) for key in CRITERION_KEYS]


class _CriterionField(forms.ChoiceField):
    """A criterion select whose labels follow the active language at render time."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=_criterion_choices, required=False, **kwargs)


def scale_rows_text(rows: Any) -> str:
    """A scale table as the textarea shows it: one "级差 领先方 落后方" row a line."""

    def fmt(value: float) -> str:
        return str(int(value)) if float(value).is_integer() else str(value)

    return "\n".join(f"{jc} {fmt(a)} {fmt(b)}" for jc, a, b in rows)


def _parse_number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


class SettingsForm(forms.Form):
    """Every ``RuleSet`` setting, each with the rule it implements (RULES.md) and the sentence
    it comes from (RULES.md §9's settings: ``tournaments.settings_fields``)."""

    upgrades_note = UPGRADES_NOTE
    sources = SOURCES
    # (label, the seed it follows) of every preset, for the page's "presets" note.
    preset_info = tuple((label, PRESET_SOURCES[key]) for key, label in PRESETS)

    event = forms.ChoiceField(
        label=_("比赛项目"),
        choices=(("pairs", _("双人赛（对）")), ("teams", _("团体赛（复式）"))),
        help_text=_("团体赛每队两对同时出场，两桌成绩合并计算。"),
    )
    round_format = forms.ChoiceField(
        label=_("每轮赛制"),
        choices=ROUND_FORMAT_CHOICES,
        help_text=_("任何赛制中一方过A比赛立即结束。"),
    )
    deals_per_round = BoundedIntegerField(
        label=_("每轮副数"),
        min_value=1,
        max_value=60,
        help_text=_("计副制与计时计副制每轮打的副数（规程：8副，约每副8分钟）。"),
    )
    rounds = BoundedIntegerField(
        label=_("计划轮数"),
        min_value=1,
        max_value=60,
        required=False,
        help_text=_("达到后不再编排新一轮；留空表示不限。"),
    )
    scale = forms.ChoiceField(
        label=_("级差分表"),
        choices=(
            ("26:0", _("26:0（13±级差，最多13级）")),
            ("28", _("28分制（14±级差，最多14级）")),
            ("custom", _("自定义（按下表）")),
        ),
        help_text=_("领先方得“基数＋级差”，落后方得“基数－级差”；平局两方各得基数。"),
    )
    scale_table = forms.CharField(
        label=_("自定义级差分表"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false", "class": "mono"}),
        help_text=_(
            "每行三个数：级差、领先方级差分、落后方级差分，从级差 0 开始逐行递增；"
            "超过最后一行的级差按最后一行计。仅在选择“自定义”时使用。"
        ),
    )
    win = forms.DecimalField(label=_("胜场分"), min_value=0, max_digits=5, decimal_places=2)
    draw = forms.DecimalField(label=_("平场分"), min_value=0, max_digits=5, decimal_places=2)
    loss = forms.DecimalField(
        label=_("负场分"),
        min_value=0,
        max_digits=5,
        decimal_places=2,
        help_text=_("规程：胜2、平1、负0；也可设为 1/0.5/0 或 3/2/1。"),
    )
    forfeit_by_scale = forms.BooleanField(
        label=_("弃权按级差分表计（2场分与4级胜的级差分）"),
        required=False,
        help_text=_("规程：出席方得2场分与4级胜的级差分（26:0 为17，28分制为18），缺席方得0。"),
    )
    forfeit_cf = forms.DecimalField(
        label=_("弃权：出席方场分"), min_value=0, max_digits=5, decimal_places=2
    )
    forfeit_jcf = forms.DecimalField(
        label=_("弃权：出席方级差分"),
        min_value=0,
        max_digits=5,
        decimal_places=2,
        help_text=_("不按级差分表时使用这两项。"),
    )
    bye_by_scale = forms.BooleanField(label=_("轮空按级差分表计（与弃权胜相同）"), required=False)
    bye_cf = forms.DecimalField(label=_("轮空：场分"), min_value=0, max_digits=5, decimal_places=2)
    bye_jcf = forms.DecimalField(
        label=_("轮空：级差分"),
        min_value=0,
        max_digits=5,
        decimal_places=2,
        help_text=_("单数对时名次最低且未轮空过的一对轮空；不按级差分表时使用这两项。"),
    )
    a_rule = forms.ChoiceField(
        label=_("打A规则"),
        choices=(
            ("continue", _("A必打，一直打A直到过A")),
            ("reset_to_2", _("A打若干次不过，降回2")),
        ),
        help_text=_("只有在自己的A上坐庄、对家二游或三游时才算过A。"),
    )
    a_attempts = BoundedIntegerField(
        label=_("打A次数上限"),
        min_value=1,
        max_value=10,
        help_text=_("选择“降回2”时：在A上失败这么多次后降回2（常见为3次）。"),
    )
    a_fail_count = forms.ChoiceField(
        label=_("打A失败的计数方式"),
        choices=(
            ("deal", _("每打一副A未过计一次（默认）")),
            (
                "stage",
                _(
                    "每次上台打A被推翻（输一副下台）计一次；打A赢但对家末游不算失败"
                    "（“第三次上臺又被推翻”）"
                ),
            ),
        ),
        help_text=_("仅在选择“降回2”时使用。"),
    )
    a_pass = forms.ChoiceField(
        label=_("打A过关方式"),
        choices=(
            (
                "partner_2_or_3",
                _("头游且对家二游或三游（默认；竞赛规程与江苏规则）"),
            ),
            (
                "double_only",
                _("只有对方双下才算过A（公司比赛规则：“只有对方双下时才算是赢得本局”）"),
            ),
        ),
    )
    tie = forms.ChoiceField(
        label=_("级数相同"),
        choices=TIE_CHOICES,
        help_text=_(
            "最后一副打完（或到时）双方级数相同时。加打的一副决定胜负，级数仍相同时按赢1级计。"
        ),
    )
    tiebreak_preset = forms.ChoiceField(
        label=_("名次规则"),
        choices=(
            ("regulation", _("规程：级差分、相互间胜负、胜场数、平场数、总级差、对手分、上轮名次")),
            ("jiangsu2017", _("江苏2017：(去首)累进分、胜场数、级差分、升级数、抽签")),
            ("custom", _("自定义（按下面的顺序）")),
        ),
        help_text=_("场分总是第一位；场分相同时依次比较这些规则。"),
    )
    same_unit = forms.ChoiceField(
        label=_("同单位"),
        choices=(("avoid", _("尽量避免同单位相遇")), ("allow", _("允许同单位相遇"))),
    )
    round1 = forms.ChoiceField(
        label=_("第一轮编排"),
        choices=(("lot", _("抽签")), ("seeding", _("按种子序号"))),
    )
    team_scoring = forms.ChoiceField(
        label=_("团体赛计分"),
        choices=(
            ("sum_jcf", _("两对级差分相加")),
            ("sum_levels", _("先合计两桌级差，再换算级差分")),
            ("sum_cf", _("两桌各自计场分和级差分")),
        ),
        help_text=_("仅用于团体赛。"),
    )
    seed = BoundedIntegerField(
        label=_("随机种子"),
        required=False,
        min_value=0,
        max_value=SEED_MAX,  # later rounds' seeds (seed × 1000 + round) stay within bigint
        help_text=_("第一轮抽签和名次抽签使用的种子，记录在案以便复核；留空则自动生成。"),
    )

    # RULES.md §7 "Correction deadlines" (seed 004 成绩更正时限); editable during the event.
    correction_round_minutes = BoundedIntegerField(
        label=_("录入错误更正时限（分钟）"),
        min_value=0,
        max_value=MAX_CORRECTION_MINUTES,
        help_text=_("一轮比赛结束后多少分钟内可更正录入错误（规则：10分钟）。"),
    )
    correction_stage_minutes = BoundedIntegerField(
        label=_("公布成绩错误更正时限（分钟）"),
        min_value=0,
        max_value=MAX_CORRECTION_MINUTES,
        help_text=_(
            "一个阶段比赛结束后多少分钟内可更正公布成绩错误及裁判发现的错误（规则：20分钟）；"
            "阶段可另设自己的时限。超过时限只有裁判长可决定更正，并记入日志。"
        ),
    )
    # The fields still editable once a round has been published (``update_settings``).
    always_editable = ("correction_round_minutes", "correction_stage_minutes")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for index in range(1, TIEBREAK_SLOTS + 1):
            self.fields[f"tiebreak_{index}"] = _CriterionField(label=_("第%(n)s项") % {"n": index})
        for kind, label in PENALTY_KIND_LABELS.items():
            self.fields[f"authority_{kind}"] = forms.ChoiceField(
                label=label, choices=PENALTY_ROLE_CHOICES, initial=DEFAULT_PENALTY_AUTHORITY[kind]
            )
        self.fields.update(variant_fields(stage=False))
        self._settings: dict[str, Any] | None = None

    def group(self, *names: str) -> list[forms.BoundField]:
        """The bound fields called ``names`` (a ``*`` at the end: every field starting so), for
        the template's fieldsets."""
        out = []
        for name in names:
            if name.endswith("*"):
                out += [self[key] for key in self.fields if key.startswith(name[:-1])]
            else:
                out.append(self[name])
        return out

    @property
    def upgrade_fields(self) -> list[forms.BoundField]:
        return self.group("upgrades_*")

    @property
    def lateness_fields(self) -> list[forms.BoundField]:
        return self.group("lateness", "lateness_*")

    @property
    def escalation_fields(self) -> list[forms.BoundField]:
        return self.group("escalation", "escalation_*")

    @property
    def label_fields(self) -> list[forms.BoundField]:
        return self.group("label_*")

    @classmethod
    def initial_from(cls, settings: dict[str, Any]) -> dict[str, Any]:
        """The form's initial values for a settings dict (a preset or a tournament's)."""
        rules = RuleSet.from_dict(settings)
        scale_key = rules.scale.key if rules.scale.key in SCALE_PRESETS else "custom"
        initial: dict[str, Any] = {
            "event": rules.event,
            "round_format": rules.round_format,
            "deals_per_round": rules.deals_per_round,
            "rounds": rules.rounds,
            "scale": scale_key,
            "scale_table": scale_rows_text(rules.scale.rows),
            "win": rules.match_points.win,
            "draw": rules.match_points.draw,
            "loss": rules.match_points.loss,
            "forfeit_by_scale": rules.forfeit_award is None,
            "bye_by_scale": rules.bye_award is None,
            "forfeit_cf": rules.forfeit.cf,
            "forfeit_jcf": rules.forfeit.jcf,
            "bye_cf": rules.bye.cf,
            "bye_jcf": rules.bye.jcf,
            "a_rule": rules.a_rule,
            "a_attempts": rules.a_attempts,
            "a_fail_count": rules.a_fail_count,
            "a_pass": rules.a_pass,
            "tie": rules.tie,
            "tiebreak_preset": rules.tiebreak_preset or "custom",
            "same_unit": rules.same_unit,
            "round1": rules.round1,
            "team_scoring": rules.team_scoring,
            "seed": rules.seed,
            "correction_round_minutes": rules.correction_round_minutes,
            "correction_stage_minutes": rules.correction_stage_minutes,
        }
        for index, key in enumerate(rules.tiebreaks, start=1):
            initial[f"tiebreak_{index}"] = key
        for kind, role in rules.penalty_authority:
            initial[f"authority_{kind}"] = role
        initial.update(variant_initial(rules.to_dict(), stage=False))
        return initial

    @property
    def authority_fields(self) -> list[forms.BoundField]:
        return [self[f"authority_{kind}"] for kind in PENALTY_KIND_LABELS]

    @property
    def tiebreak_fields(self) -> list[forms.BoundField]:
        return [self[f"tiebreak_{i}"] for i in range(1, TIEBREAK_SLOTS + 1)]

    def _scale_setting(self, data: dict[str, Any]) -> str | dict[str, Any]:
        if data.get("scale") != "custom":
            return data.get("scale") or "26:0"
        rows: list[list[int | float]] = []
        for line_no, line in enumerate((data.get("scale_table") or "").splitlines(), start=1):
            parts = line.replace(",", " ").replace("，", " ").split()
            if not parts:
                continue
            try:
                jc = int(parts[0])
                numbers = [_parse_number(p) for p in parts[1:]]
            except ValueError:
                self.add_error(
                    "scale_table",
                    gettext("第%(n)s行含有不是数字的内容") % {"n": line_no},
                )
                continue
            rows.append([jc, *numbers])
        return {"table": rows}

    def _tiebreaks(self, data: dict[str, Any]) -> str | list[str]:
        if data.get("tiebreak_preset") != "custom":
            return data.get("tiebreak_preset") or "regulation"
        keys = [data.get(f"tiebreak_{i}") for i in range(1, TIEBREAK_SLOTS + 1)]
        return [key for key in keys if key]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data

        def number(value: Any) -> int | float:
            return int(value) if value == int(value) else float(value)

        settings: dict[str, Any] = {
            "event": data["event"],
            "round_format": data["round_format"],
            "deals_per_round": data["deals_per_round"],
            "scale": self._scale_setting(data),
            "match_points": {
                "win": number(data["win"]),
                "draw": number(data["draw"]),
                "loss": number(data["loss"]),
            },
            "a_rule": data["a_rule"],
            "a_attempts": data["a_attempts"],
            "tiebreaks": self._tiebreaks(data),
            "same_unit": data["same_unit"],
            "round1": data["round1"],
            "team_scoring": data["team_scoring"],
        }
        # Written only when not the default, so a file's settings stay as short as they were.
        for key, default in (
            ("a_fail_count", "deal"),
            ("a_pass", "partner_2_or_3"),
            ("tie", "draw"),
        ):
            if data[key] != default:
                settings[key] = data[key]
        # Left out, forfeit and bye follow the scale (its 4-level win: 17 on 26:0, 18 on 28).
        if not data.get("forfeit_by_scale"):
            settings["forfeit"] = {
                "cf": number(data["forfeit_cf"]),
                "jcf": number(data["forfeit_jcf"]),
            }
        if not data.get("bye_by_scale"):
            settings["bye"] = {"cf": number(data["bye_cf"]), "jcf": number(data["bye_jcf"])}
        # RULES.md §9's settings (only those not at their default); the forfeit's absent side
        # joins the present side's award (by the scale when that is left out).
        variants = variant_settings(data, stage=False)
        absent = variants.pop("forfeit", None)
        if absent is not None:
            settings["forfeit"] = {**settings.get("forfeit", {}), **absent}
        settings.update(variants)
        authority = {kind: data[f"authority_{kind}"] for kind in PENALTY_KIND_LABELS}
        changed = {k: v for k, v in authority.items() if DEFAULT_PENALTY_AUTHORITY[k] != v}
        if changed:
            settings["penalty_authority"] = changed
        minutes = {
            "round": data["correction_round_minutes"],
            "stage": data["correction_stage_minutes"],
        }
        minutes = {k: v for k, v in minutes.items() if CORRECTION_MINUTES[k] != v}
        if minutes:
            settings["correction_minutes"] = minutes
        if data.get("rounds"):
            settings["rounds"] = data["rounds"]
        if data.get("seed") is not None:
            settings["seed"] = data["seed"]
        if self.errors:
            return data
        field_of = {
            **FIELD_OF_SETTING,
            "scale": "scale_table" if data.get("scale") == "custom" else "scale",
            "match_points": "win",
            "forfeit": "forfeit_cf",
            "bye": "bye_cf",
            "penalty_authority": "authority_warning",
            "correction_minutes": "correction_round_minutes",
            "tiebreaks": "tiebreak_1" if data.get("tiebreak_preset") == "custom" else None,
        }
        try:
            rules = RuleSet.from_dict(settings)
        except RuleSetError as error:
            for problem in error.problems:
                field = field_of.get(problem.setting, problem.setting)
                if field not in self.fields:
                    field = None
                self.add_error(field, describe_problem(problem))
            return data
        self._settings = rules.to_dict()
        return data

    def settings(self) -> dict[str, Any]:
        """The validated settings dict (call after ``is_valid()``)."""
        if self._settings is None:
            raise ValueError("the form is not valid")
        return self._settings


class TournamentCreateForm(SettingsForm):
    """Name and web address, then every setting (prefilled from the chosen preset)."""

    name = forms.CharField(label=_("赛事名称"), max_length=200)
    slug = forms.SlugField(
        label=_("网址标识"),
        max_length=80,
        help_text=_("用于网址，只能包含字母、数字、连字符，例如 city-open-2025。"),
    )
    field_order = ["name", "slug"]


def preset_initial(preset: str) -> dict[str, Any]:
    """Initial values of the create form for ``preset`` (regulation / jiangsu2017 / custom)."""
    base = preset_settings("jiangsu2017" if preset == "jiangsu2017" else "regulation")
    initial = SettingsForm.initial_from(base)
    if preset == "custom":
        initial["scale"] = "custom"
        initial["tiebreak_preset"] = "custom"
    return initial


class UnitChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Unit) -> str:
        return f"{obj.code} {obj.name}" if obj.name and obj.name != obj.code else obj.code


class PairForm(forms.Form):
    """A pair's two players, unit and seeding (the number is optional when adding)."""

    player1 = NameField(label=_("选手一"), max_length=100)
    contact1 = NameField(label=_("选手一联系方式"), max_length=100, required=False)
    player2 = NameField(label=_("选手二"), max_length=100)
    contact2 = NameField(label=_("选手二联系方式"), max_length=100, required=False)
    unit = UnitChoiceField(label=_("单位"), queryset=Unit.objects.none(), required=False)
    number = BoundedIntegerField(
        label=_("编号"), min_value=1, required=False, help_text=_("留空则自动取下一个编号。")
    )
    seeding = BoundedIntegerField(label=_("种子序号"), min_value=1, required=False)

    def __init__(self, *args: Any, tournament: Any, editing: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["unit"].queryset = Unit.objects.filter(tournament=tournament)
        if editing:
            del self.fields["number"]

    def players(self) -> list[dict[str, str]]:
        data = self.cleaned_data
        return [
            {"name": data["player1"], "contact": data.get("contact1", "")},
            {"name": data["player2"], "contact": data.get("contact2", "")},
        ]


class UnitForm(forms.Form):
    code = NameField(label=_("单位代码"), max_length=32)
    name = NameField(label=_("单位名称"), max_length=100, required=False)


class PairStatusForm(forms.Form):
    """Withdraw / disqualify / reinstate, with the reason the audit log keeps."""

    ACTIONS = (
        ("withdraw", _("退赛")),
        ("disqualify", _("取消资格")),
        ("reinstate", _("恢复参赛")),
    )
    action = forms.ChoiceField(label=_("操作"), choices=ACTIONS)
    reason = forms.CharField(label=_("原因"), max_length=500, required=False)


class TeamForm(forms.Form):
    """A team's name and unit (its pairs' players are edited as pairs)."""

    name = NameField(label=_("队名"), max_length=100)
    unit = UnitChoiceField(label=_("单位"), queryset=Unit.objects.none(), required=False)

    def __init__(self, *args: Any, tournament: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["unit"].queryset = Unit.objects.filter(tournament=tournament)


class NewTeamForm(TeamForm):
    """A team added by hand (a late entry, or a small event without a sheet): the team sheet's
    columns — 牌手1+牌手2 its first pair, 牌手3+牌手4 its second, 牌手5+牌手6 an optional third."""

    player1 = NameField(label=_("牌手1"), max_length=100)
    player2 = NameField(label=_("牌手2"), max_length=100)
    player3 = NameField(label=_("牌手3"), max_length=100)
    player4 = NameField(label=_("牌手4"), max_length=100)
    player5 = NameField(label=_("牌手5"), max_length=100, required=False)
    player6 = NameField(label=_("牌手6"), max_length=100, required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("player5")) != bool(data.get("player6")):
            raise forms.ValidationError(_("牌手5与牌手6组成第3对，须同时填写或同时留空"))
        first: dict[str, str] = {}
        for i in range(1, 7):
            name = data.get(f"player{i}") or ""
            if name in first:  # as the team sheet refuses it
                self.add_error(
                    f"player{i}",
                    _("“%(name)s”与%(other)s重名") % {"name": name, "other": first[name]},
                )
            elif name:
                first[name] = str(self.fields[f"player{i}"].label)
        return data

    def pairs(self) -> list[list[str]]:
        data = self.cleaned_data
        names = [data.get(f"player{i}") or "" for i in range(1, 7)]
        return [names[i : i + 2] for i in (0, 2, 4) if names[i]]


class TeamStatusForm(forms.Form):
    """Withdraw / reinstate a team, with the reason the audit log keeps."""

    ACTIONS = (("withdraw", _("退赛")), ("reinstate", _("恢复参赛")))
    action = forms.ChoiceField(label=_("操作"), choices=ACTIONS)
    reason = forms.CharField(label=_("原因"), max_length=500, required=False)


class LineUpForm(forms.Form):
    """A team's line-up (出场名单) for one round: its pair at 甲 NS and its pair at 甲1 EW; the
    captain's code when set without an account."""

    # The round the page was opened for: a form sent after that round was published is
    # refused (``lineup_locked``), not applied to the next round.
    round = BoundedIntegerField(min_value=1, widget=forms.HiddenInput)
    ns = forms.TypedChoiceField(label=_("甲桌南北"), coerce=int)
    ew = forms.TypedChoiceField(label=_("甲1桌东西"), coerce=int)
    captain_code = forms.CharField(
        label=_("队长密码"),
        max_length=16,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
    )

    def __init__(self, *args: Any, pairs: Any, captain: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(p.pk, f"{p.number} {p.player_names}") for p in pairs]
        self.fields["ns"].choices = choices
        self.fields["ew"].choices = choices
        if not captain:
            del self.fields["captain_code"]

    def clean(self) -> Any:
        data = super().clean()
        if data.get("ns") is not None and data.get("ns") == data.get("ew"):
            raise forms.ValidationError(gettext("南北与东西须是两个不同的参赛对"))
        return data


class RoleForm(forms.Form):
    """Give a user (by username) a role in this tournament."""

    ROLES = (
        ("organizer", _("组委会/编排")),
        ("chief_referee", _("裁判长")),
        ("referee", _("裁判")),
    )
    username = forms.CharField(label=_("用户名"), max_length=150)
    role = forms.ChoiceField(label=_("角色"), choices=ROLES)

    def clean_username(self) -> Any:
        name = self.cleaned_data["username"].strip()
        # A deactivated account too: its own organizer gives it a role again (the service
        # decides who may, ``tournaments.accounts.may_manage``).
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise forms.ValidationError(gettext("没有用户名为“%(name)s”的账户") % {"name": name})
        self.cleaned_data["user"] = user
        return name


class RevokeForm(forms.Form):
    user_id = BoundedIntegerField(widget=forms.HiddenInput)
    role = forms.ChoiceField(choices=RoleForm.ROLES, widget=forms.HiddenInput)


class FindForm(forms.Form):
    """The public "find my table" box: part of a name, or a pair number."""

    q = forms.CharField(
        label=_("姓名或编号"),
        max_length=50,
        min_length=1,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "inputmode": "search", "enterkeyhint": "search"}
        ),
    )


TIEBREAK_PRESET_KEYS = tuple(TIEBREAK_PRESETS)


class StaffAccountsForm(forms.Form):
    """N referee or chief-referee accounts with generated passwords (``tournaments.staff``)."""

    ROLES = (("referee", _("裁判")), ("chief_referee", _("裁判长")))
    role = forms.ChoiceField(label=_("角色"), choices=ROLES, initial="referee")
    count = BoundedIntegerField(label=_("账号数"), min_value=1, max_value=100, initial=3)
    prefix = forms.CharField(
        label=_("用户名前缀"),
        max_length=40,
        required=False,
        help_text=_("留空则用赛事网址标识，如 demo-r01、demo-r02"),
    )
    tables_each = BoundedIntegerField(
        label=_("每人分配桌数"),
        min_value=1,
        max_value=10_000,
        required=False,
        help_text=_("可选：依次给每位裁判分配连续的桌号"),
    )


class AssignTablesForm(forms.Form):
    """A referee's table range; both empty takes it away."""

    user_id = BoundedIntegerField(widget=forms.HiddenInput)
    first = BoundedIntegerField(label=_("起始桌号"), min_value=1, max_value=10_000, required=False)
    last = BoundedIntegerField(label=_("结束桌号"), min_value=1, max_value=10_000, required=False)


class StaffMemberForm(forms.Form):
    user_id = BoundedIntegerField(widget=forms.HiddenInput)
