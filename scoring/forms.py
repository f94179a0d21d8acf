"""Forms of the results-entry pages: they validate input only and never write.

Every form that changes a table carries the ``version`` the page was rendered with; the service
compares it with the row (compare-and-swap, STYLE.md "Concurrency") so a stale page gets a
conflict message instead of overwriting somebody else's entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from rules.errors import RuleError
from rules.events import MAX_ADJUST, Event, EventKind, Side, parse_event
from rules.levels import ACE, LOWEST, level_label
from rules.progression import initial_state
from rules.variants import Lateness
from scoring.corrections import Edit, ErrorKind
from scoring.engine import End, Start
from tournaments.bounds import BoundedIntegerField
from tournaments.messages import describe_rule_error
from tournaments.models import Pair
from tournaments.wording import END_KINDS, PENALTY_KINDS, SIDES

# Labels from ``tournaments.wording``, translated when the form is shown.
SIDE_CHOICES = [(side.value, _(SIDES[side.value])) for side in (Side.NS, Side.EW)]
END_KIND_CHOICES = [(kind, _(text)) for kind, text in END_KINDS.items()]


class VersionForm(forms.Form):
    """The table's version as the user saw it (every table POST carries it)."""

    version = BoundedIntegerField(min_value=0, widget=forms.HiddenInput)


class EventForm(VersionForm):
    """One tap: a deal ``NS3``, a foul ``foul:EW`` or an award ``adjust:NS+2`` (core tokens)."""

    token = forms.CharField(max_length=24)

    def clean_token(self) -> str:
        """The token as the core spells it; the parsed ``Event`` goes to ``cleaned_data["event"]``
        so the service does not parse it again."""
        try:
            event = parse_event(self.cleaned_data["token"])
        except RuleError as error:
            raise forms.ValidationError(_("无法识别的记录"), code=error.code) from None
        self.check_event(event)
        self.cleaned_data["event"] = event
        return event.token

    def check_event(self, event: Event) -> None:
        """Refuse an event this form does not take (all are taken here)."""


class DealForm(EventForm):
    """Table-side entry: South enters deals only (fouls and awards are the referee's)."""

    def check_event(self, event: Event) -> None:
        if event.kind is not EventKind.DEAL:
            raise forms.ValidationError(_("桌边只能录入牌局结果"), code="not_a_deal")


class FoulForm(VersionForm):
    """犯规 (RULES.md §3): the offending side; the deal ends, the other side +3, and the 犯规
    penalty is recorded for the offending pair in the same step."""

    side = forms.ChoiceField(label=_("犯规方"), choices=SIDE_CHOICES)
    reason = forms.CharField(
        label=_("犯规原因（可选）"),
        max_length=1000,
        required=False,
        widget=forms.TextInput(attrs={"placeholder": _("例如：看牌、越序出牌")}),
    )


class AwardForm(VersionForm):
    """升级调整 (RULES.md §3): a referee awards a side +N levels."""

    side = forms.ChoiceField(label=_("受益方"), choices=SIDE_CHOICES)
    levels = BoundedIntegerField(label=_("升级数"), min_value=1, max_value=MAX_ADJUST, initial=2)

    @property
    def token(self) -> str:
        return Event.adjust(self.cleaned_data["side"], self.cleaned_data["levels"]).token


LATE_NONE = ""


class LatenessForm(VersionForm):
    """迟到 by the round's lateness rule (``lateness``, RULES.md §2 and §9; by default the
    regulation's: 0–5 min → the punctual side starts at 3; 5–10 → at 4; over 10 the late side
    forfeits). A forfeit or a 判负 of the late side is recorded with the end form instead."""

    late_side = forms.ChoiceField(
        label=_("迟到方"), choices=[(LATE_NONE, _("无人迟到")), *SIDE_CHOICES], required=False
    )
    minutes = BoundedIntegerField(label=_("迟到分钟"), min_value=0, max_value=600, required=False)

    def __init__(self, *args: Any, lateness: Lateness | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lateness = lateness or Lateness()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        side, minutes = data.get("late_side"), data.get("minutes")
        if not side:
            data["start_ns"], data["start_ew"] = 2, 2
            return data
        if minutes is None:
            raise forms.ValidationError(_("请填写迟到分钟"), code="minutes_required")
        ruling = self.lateness.ruling(minutes)
        if ruling.kind == "forfeit":
            if self.lateness.kind == "regulation":
                message = _("迟到超过10分钟：请在“弃权/判负”中记录迟到方弃权")
            else:
                message = _("按本赛事的迟到规则，迟到方弃权：请在“弃权/判负”中记录")
            raise forms.ValidationError(message, code="late_forfeit")
        if ruling.kind == "penalty_loss":
            raise forms.ValidationError(
                _("按本赛事的迟到规则，迟到方判负：请在“弃权/判负”中记录判负"),
                code="late_penalty_loss",
            )
        punctual = ruling.level  # 2 when the lateness changes nothing
        ns, ew = (2, punctual) if Side(side) is Side.NS else (punctual, 2)
        state = initial_state(ns, ew, self.lateness.start_levels)
        data["start_ns"], data["start_ew"] = state.ns, state.ew
        return data


END_NONE = ""
END_CHOICES = [(END_NONE, _("正常（无弃权/判负）")), *END_KIND_CHOICES]


class EndForm(VersionForm):
    """弃权 / 判负 / 迟交记分表 (RULES.md §2), or clearing an end recorded by mistake.

    ``passed_a``: a side has passed A, so the match is over and 判负 is no longer offered (the
    engine refuses it, ``penalty_loss_after_past_a``); a late scoresheet still may be recorded
    (the sheet is late, the play stands)."""

    kind = forms.ChoiceField(
        label=_("结束方式"),
        choices=[(END_NONE, _("正常（撤销弃权/判负）")), *END_KIND_CHOICES],
        required=False,
    )
    side = forms.ChoiceField(label=_("责任方"), choices=[("", "—"), *SIDE_CHOICES], required=False)

    def __init__(
        self, *args: Any, passed_a: bool = False, penalty_loss: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        if passed_a or not penalty_loss:  # ``penalty_loss``: this user may impose a 判负
            field = self.fields["kind"]
            field.choices = [(k, v) for k, v in field.choices if k != "penalty_loss"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("kind") and not data.get("side"):
            raise forms.ValidationError(_("请选择弃权或判负的一方"), code="side_required")
        if not data.get("kind"):
            data["side"] = ""
        return data


LEVEL_CHOICES = [(level, level_label(level)) for level in range(LOWEST, ACE + 1)]


# RULES.md §7: which deadline a correction answers to (seed 004 成绩更正时限).
ERROR_CHOICES = (
    (ErrorKind.ENTRY.value, _("录入错误（一轮结束后的时限内）")),
    (ErrorKind.PUBLISHED.value, _("公布成绩错误或裁判发现的错误（一个阶段结束后的时限内）")),
)


class DeadlineFields(forms.Form):
    """A correction's error kind and the chief referee's override of a passed deadline."""

    error = forms.ChoiceField(
        label=_("错误类型"), choices=ERROR_CHOICES, required=False, initial=ErrorKind.ENTRY.value
    )
    override = forms.BooleanField(
        label=_("更正期限已过，由裁判长决定更正（记入日志）"), required=False
    )

    def clean_error(self) -> str:
        return self.cleaned_data.get("error") or ErrorKind.ENTRY.value


class CorrectionForm(DeadlineFields, VersionForm):
    """裁判长更正 a confirmed result: the whole sequence, start and end, and a reason (required,
    it goes into the audit log)."""

    tokens = forms.CharField(
        label=_("全部记录"),
        max_length=2000,
        required=False,
        help_text=_("用空格分隔，例如：NS3 EW2 foul:EW adjust:NS+2"),
        widget=forms.Textarea(attrs={"rows": 2, "autocapitalize": "characters"}),
    )
    start_ns = forms.TypedChoiceField(
        label=_("南北起始级"), choices=LEVEL_CHOICES, coerce=int, initial=LOWEST
    )
    start_ew = forms.TypedChoiceField(
        label=_("东西起始级"), choices=LEVEL_CHOICES, coerce=int, initial=LOWEST
    )
    end_kind = forms.ChoiceField(label=_("结束方式"), choices=END_CHOICES, required=False)
    end_side = forms.ChoiceField(
        label=_("责任方"), choices=[("", "—"), *SIDE_CHOICES], required=False
    )
    reason = forms.CharField(
        label=_("更正原因"), max_length=1000, widget=forms.Textarea(attrs={"rows": 2})
    )

    def clean_tokens(self) -> list[str]:
        tokens = []
        for position, text in enumerate(self.cleaned_data["tokens"].replace(",", " ").split()):
            try:
                tokens.append(parse_event(text, position).token)
            except RuleError as error:
                raise forms.ValidationError(describe_rule_error(error), code=error.code) from None
        return tokens

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("请填写更正原因"), code="reason_required")
        return reason

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("end_kind") and not data.get("end_side"):
            raise forms.ValidationError(_("请选择弃权或判负的一方"), code="side_required")
        return data


class StartRoundForm(forms.Form):
    """开始本轮 (``scoring.clock.start_round``): the round's length in a timed format."""

    minutes = BoundedIntegerField(
        label=_("本轮时长（分钟）"), min_value=1, max_value=600, required=False
    )


EDIT_CHOICES = [
    ("replace", _("改为")),
    ("insert", _("在此前插入")),
    ("delete", _("删除")),
    ("start", _("迟到起始级")),
    ("end", _("结束方式")),
]


class EditForm(DeadlineFields, LatenessForm):
    """裁判长更正 by one change on the sheet (issue 15, ``scoring.corrections.Edit``): the event
    ``position`` (1-based, as the sheet numbers its lines) replaced by a tapped ``token``, a
    tapped deal inserted before it, the line deleted, the lateness start (the lateness inputs
    of the sheet) or the end changed; a reason is required (it goes into the audit log)."""

    op = forms.ChoiceField(choices=EDIT_CHOICES)
    position = BoundedIntegerField(min_value=1, max_value=10_000, required=False)
    # A best-of-n knockout match (RULES.md §8): the game the line belongs to (none: the last).
    game = BoundedIntegerField(min_value=1, max_value=9, required=False)
    token = forms.CharField(max_length=24, required=False)
    kind = forms.ChoiceField(label=_("结束方式"), choices=END_CHOICES, required=False)
    side = forms.ChoiceField(label=_("责任方"), choices=[("", "—"), *SIDE_CHOICES], required=False)
    reason = forms.CharField(
        label=_("更正原因"), max_length=1000, widget=forms.Textarea(attrs={"rows": 2})
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError(_("请填写更正原因"), code="reason_required")
        return reason

    def clean(self) -> dict[str, Any]:
        op = self.data.get("op")
        if op != "start":  # the lateness inputs matter only for a start change
            data = forms.Form.clean(self)
        else:
            data = super().clean()
        if self.data.get("delete"):  # the sheet's delete button beside the tap grid
            data["op"] = "delete"
        op = data.get("op")
        position = data.get("position")
        if op in ("replace", "insert", "delete") and position is None:
            raise forms.ValidationError(_("请选择要更正的记录"), code="position_required")
        index = (position or 1) - 1
        if op in ("replace", "insert"):
            try:
                token = parse_event(data.get("token") or "").token
            except RuleError as error:
                raise forms.ValidationError(_("无法识别的记录"), code=error.code) from None
            data["edit"] = (Edit.replace if op == "replace" else Edit.insert)(index, token)
        elif op == "delete":
            data["edit"] = Edit.delete(index)
        elif op == "start" and "start_ns" in data:
            data["edit"] = Edit.new_start(Start(data["start_ns"], data["start_ew"]))
        elif op == "end":
            kind, side = data.get("kind") or "", data.get("side") or ""
            if kind and not side:
                raise forms.ValidationError(_("请选择弃权或判负的一方"), code="side_required")
            data["edit"] = Edit.new_end(End(kind, Side(side)) if kind else None)
        if "edit" not in data and not self.errors:  # never a valid form without its change
            raise forms.ValidationError(_("请选择要更正的记录"), code="position_required")
        return data


class PairCodeForm(VersionForm):
    """West confirms a table-side entry with the EW pair's code (RULES.md §7)."""

    code = forms.CharField(
        label=_("西家对号密码"),
        max_length=12,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "autocapitalize": "characters", "class": "code-input"}
        ),
    )

    def clean_code(self) -> str:
        return self.cleaned_data["code"].strip().upper()


class PenaltyForm(forms.Form):
    """A referee's penalty record (RULES.md §3) for one of ``pairs``."""

    KIND_CHOICES = [(kind, _(text)) for kind, text in PENALTY_KINDS.items()]

    pair = forms.ModelChoiceField(label=_("受罚对"), queryset=Pair.objects.none(), required=False)
    # The round page of a big event types the pair's number instead of a 10,000-line list.
    pair_number = BoundedIntegerField(label=_("受罚对（对号）"), min_value=1, required=False)
    kind = forms.ChoiceField(label=_("类别"), choices=KIND_CHOICES)
    deal = BoundedIntegerField(label=_("第几副"), min_value=1, max_value=99, required=False)
    jcf = forms.DecimalField(
        label=_("扣级差分"),
        min_value=0,
        max_digits=6,
        decimal_places=2,
        required=False,
        help_text=_("仅用于级差分扣分"),
    )
    reason = forms.CharField(
        label=_("原因"), max_length=1000, required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    round = BoundedIntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    table = BoundedIntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    next = forms.CharField(max_length=500, required=False, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        pairs: Any = None,
        kinds: Sequence[str] | None = None,
        by_number: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.by_number = by_number
        if kinds is not None:  # the kinds this user may impose (``record_kinds``)
            field = self.fields["kind"]
            field.choices = [(k, v) for k, v in field.choices if k in kinds]
        if isinstance(pairs, list | tuple):
            # Pairs already loaded (with their players): the choices are built from them, and
            # the queryset is only run to validate a posted form.
            field = self.fields["pair"]
            field.queryset = Pair.objects.filter(pk__in=[pair.pk for pair in pairs])
            field.choices = [
                ("", field.empty_label),
                *((pair.pk, str(pair)) for pair in sorted(pairs, key=lambda p: p.number)),
            ]
        elif pairs is not None:
            self.fields["pair"].queryset = pairs
        self.fields["pair"].label_from_instance = lambda pair: str(pair)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("pair") is None and "pair" not in self.errors:
            number = data.get("pair_number")
            pair = None
            if number is not None:
                pair = self.fields["pair"].queryset.filter(number=number).first()
                if pair is None:
                    raise forms.ValidationError(
                        _("第%(n)s对不在本轮"), code="pair_not_here", params={"n": number}
                    )
            elif "pair_number" not in self.errors:
                raise forms.ValidationError(_("请选择受罚对"), code="pair_required")
            data["pair"] = pair
        if data.get("kind") == "deduction":
            if not data.get("jcf"):
                raise forms.ValidationError(
                    _("级差分扣分须填写扣分数（大于0）"), code="jcf_required"
                )
        else:
            data["jcf"] = None
        return data


class EscalationForm(forms.Form):
    """Confirm the suggested escalation for one pair (two warnings → 违例 …)."""

    pair = BoundedIntegerField(min_value=1, widget=forms.HiddenInput)
    round = BoundedIntegerField(min_value=1, widget=forms.HiddenInput)
    table = BoundedIntegerField(min_value=1, required=False, widget=forms.HiddenInput)
    version = BoundedIntegerField(min_value=0, required=False, widget=forms.HiddenInput)
    next = forms.CharField(max_length=500, required=False, widget=forms.HiddenInput)


class PenaltyFilterForm(forms.Form):
    """Filters of the penalty list (GET)."""

    round = BoundedIntegerField(label=_("轮次"), min_value=1, required=False)
    kind = forms.ChoiceField(
        label=_("类别"), choices=[("", _("全部")), *PenaltyForm.KIND_CHOICES], required=False
    )
    pair = BoundedIntegerField(label=_("对号"), min_value=1, required=False)


class AppealForm(forms.Form):
    """申诉: the appealing pair, the table (round and table number) or the penalty, the text
    and the fee (RULES.md §3)."""

    pair = BoundedIntegerField(label=_("申诉方（对号）"), min_value=1)
    round = BoundedIntegerField(label=_("轮次"), min_value=1)
    table = BoundedIntegerField(label=_("桌号"), min_value=1, required=False)
    penalty = BoundedIntegerField(
        label=_("判罚编号"),
        min_value=1,
        required=False,
        help_text=_("针对一项判罚申诉时填写（判罚记录中的编号）"),
    )
    text = forms.CharField(
        label=_("申诉内容"), max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )
    fee = forms.DecimalField(
        label=_("申诉费（元）"), min_value=0, max_value=100000, decimal_places=2, initial=0
    )


class AppealDecisionForm(forms.Form):
    """The appeals committee's final decision."""

    STATUSES = (("upheld", _("申诉成立")), ("rejected", _("申诉驳回")))
    status = forms.ChoiceField(label=_("裁决"), choices=STATUSES, widget=forms.RadioSelect)
    decision = forms.CharField(
        label=_("裁决内容"), max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )
    committee = forms.CharField(label=_("仲裁委员会成员"), max_length=200)
