"""Forms of the round pages: the manual swap of two pairs in a draft, the public table filter.

Validation only; the swap itself is ``pairing.services.swap_pairs``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rules.kinds import KINDS
from rules.stages import MAX_STAGES, stage_keys
from tournaments.bounds import BoundedIntegerField
from tournaments.models import Pair
from tournaments.settings_fields import (
    ROUND_FORMAT_CHOICES,
    SOURCES,
    variant_fields,
    variant_initial,
    variant_settings,
)


class SwapForm(forms.Form):
    """Two pair numbers whose seats are exchanged (either may be the bye)."""

    pair_a = BoundedIntegerField(
        label=_("参赛对编号 A"),
        min_value=1,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    pair_b = BoundedIntegerField(
        label=_("参赛对编号 B"),
        min_value=1,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def __init__(self, *args: Any, tournament: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tournament = tournament

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        if data["pair_a"] == data["pair_b"]:
            raise forms.ValidationError(gettext("请选择两个不同的参赛对"))
        found = {
            p.number: p
            for p in Pair.objects.filter(
                tournament=self.tournament, number__in=[data["pair_a"], data["pair_b"]]
            )
        }
        for field in ("pair_a", "pair_b"):
            if data[field] not in found:
                self.add_error(field, gettext("没有第%(n)s对") % {"n": data[field]})
            else:
                data[f"{field}_obj"] = found[data[field]]
        return data


class TableFilterForm(forms.Form):
    """The public pairings page's box: a name, a pair number or a table number."""

    q = forms.CharField(label=_("姓名、对号或桌号"), max_length=50, required=False)


class StageForm(forms.Form):
    """One stage of the ``stages`` setting (RULES.md §8); empty fields are not written (the
    stage's default, or the tournament's own setting). Only the keys of the chosen kind are
    kept, so a field left over from another kind does not refuse the stage. The stage's own
    rules (RULES.md §9: match points, forfeit, bye, tiebreaks, minutes, tie, the extra deal,
    lateness, escalation, labels; ``tournaments.settings_fields``) go into its ``settings``
    object. The values are checked by ``rules.stages.parse_stages`` (one catalogue message
    per problem)."""

    source = SOURCES["stage"]

    kind = forms.ChoiceField(
        label=_("阶段类型"),
        required=False,
        choices=(("", "—"), *((kind.name, _(kind.label)) for kind in KINDS.values())),
    )
    rounds = BoundedIntegerField(label=_("轮数（瑞士移位）"), min_value=1, required=False)
    groups = BoundedIntegerField(label=_("小组数"), min_value=1, required=False)
    qualify = BoundedIntegerField(label=_("每组出线数"), min_value=1, required=False)
    entrants = BoundedIntegerField(
        label=_("参赛者数"),
        min_value=2,
        required=False,
        help_text=_("上一阶段的前 N 名；留空为全部出线者。"),
    )
    per_unit = BoundedIntegerField(label=_("每单位最多"), min_value=1, required=False)
    seeding = forms.ChoiceField(
        label=_("分组/对阵方式"),
        required=False,
        choices=(
            ("", _("默认（蛇形分组 / 标准对阵）")),
            ("snake", _("蛇形分组")),
            ("bracket", _("标准对阵（1对16，8对9…）")),
            ("lot", _("抽签")),
        ),
    )
    best_of = forms.TypedChoiceField(
        label=_("每场局数"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=(("", "—"), ("1", _("一局定胜负")), ("3", _("三局两胜")), ("5", _("五局三胜"))),
    )
    third_place = forms.BooleanField(label=_("三四名决赛"), required=False)
    until = BoundedIntegerField(
        label=_("剩几个参赛者时本阶段结束"),
        min_value=2,
        required=False,
        help_text=_(
            "淘汰赛分初赛、复赛、决赛时填写，例如 8：剩 8 个时结束，进入下一阶段。留空为打到决赛。"
        ),
    )
    repechage = BoundedIntegerField(
        label=_("附加赛（在第几轮之后）"),
        min_value=1,
        required=False,
        help_text=_(
            "本阶段第 r 轮的败者（和该轮轮空者）在下一轮抽签打附加赛，胜者回到比赛，"
            "使人数回到“剩几个”乘以 2 的幂。留空为没有附加赛。"
        ),
    )
    round_format = forms.ChoiceField(
        label=_("本阶段赛制"),
        required=False,
        choices=(("", _("同赛事设置")), *ROUND_FORMAT_CHOICES),
    )
    deals_per_round = BoundedIntegerField(
        label=_("每轮（每局）副数"), min_value=1, max_value=60, required=False
    )
    correction_minutes = BoundedIntegerField(
        label=_("公布成绩错误更正时限（分钟）"), min_value=0, required=False
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        own = variant_fields(stage=True)
        self.fields.update(own)
        self.setting_names = list(own)

    @property
    def kind_fields(self) -> list[forms.BoundField]:
        """The stage's own keys (its kind, rounds, groups … and its format)."""
        return [self[name] for name in self.base_fields if name != "DELETE"]

    @property
    def setting_fields(self) -> list[forms.BoundField]:
        """The stage's own rules (RULES.md §9), each empty for the event's."""
        return [self[name] for name in self.setting_names]

    def stage(self) -> dict[str, Any] | None:
        """The stage object for the setting, or None for a row left empty."""
        data = self.cleaned_data
        kind = data.get("kind")
        if not kind or data.get("DELETE"):
            return None
        out: dict[str, Any] = {"kind": kind}
        for key in stage_keys(kind):
            value = data.get(key)
            if key in ("kind", "settings", "tie") or value in (None, "", False):
                continue
            if key == "seeding" and value not in KINDS[kind].seedings:
                continue  # a group seeding for a knockout or the other way round: the default
            out[key] = value
        own = variant_settings(data, stage=True)
        if own:
            out["settings"] = own
        return out

    @staticmethod
    def initial_from(stage: dict[str, Any]) -> dict[str, Any]:
        # ``repechage: false`` (files of the version that took a boolean) is no repechage.
        initial = {
            key: value
            for key, value in stage.items()
            if key in StageForm.base_fields and not (key == "repechage" and value is False)
        }
        # The stage's own settings and its tie rule (a key of the stage, or of its settings).
        own = dict(stage.get("settings") or {})
        if "tie" in stage:
            own["tie"] = stage["tie"]
        initial.update(variant_initial(own, stage=True))
        return initial


StageFormSet = forms.formset_factory(StageForm, extra=1, can_delete=True, max_num=MAX_STAGES)
