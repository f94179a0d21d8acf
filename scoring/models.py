"""Scoring facts: a table's events in order, penalties (判罚) and the append-only audit log.

Only facts are stored (the file's event tokens, who/when); levels, 级差, 级差分 and 场分 are derived
by ``scoring.engine.score_match``. Every write goes through ``scoring/services.py``.
``AuditEntry`` refuses updates and deletes at the model and queryset level.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Pair, Player, Round, Table, Tournament
from tournaments.wording import PENALTY_KINDS


class Via(models.TextChoices):
    REFEREE = "referee", _("裁判")
    TABLE = "table", _("桌边")
    IMPORT = "import", _("导入")


class TableEvent(models.Model):
    """One event of a match, in order: a deal ``NS3``, a foul ``foul:EW`` or ``adjust:NS+2``."""

    Via = Via

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="events", verbose_name=_("桌")
    )
    position = models.PositiveIntegerField(_("序号"))  # 0-based order of the event
    token = models.CharField(_("记录"), max_length=24)
    entered_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("录入人"),
    )
    entered_via = models.CharField(
        _("录入方式"), max_length=16, choices=Via.choices, default=Via.REFEREE
    )
    # At the table (RULES.md §7): the pair that proved itself with its code and entered this.
    entered_pair = models.ForeignKey(
        Pair,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("录入对"),
    )
    created_at = models.DateTimeField(_("录入时间"), auto_now_add=True)

    class Meta:
        verbose_name = _("牌局记录")
        verbose_name_plural = _("牌局记录")
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="event_position_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.position + 1} {self.token}"


class Penalty(models.Model):
    """A referee's record (RULES.md §3). Only deductions change scores through this record."""

    class Kind(models.TextChoices):  # the words: tournaments.wording.PENALTY_KINDS
        WARNING = "warning", _(PENALTY_KINDS["warning"])
        VIOLATION = "violation", _(PENALTY_KINDS["violation"])
        FOUL = "foul", _(PENALTY_KINDS["foul"])
        PENALTY_LOSS = "penalty_loss", _(PENALTY_KINDS["penalty_loss"])
        DISQUALIFICATION = "disqualification", _(PENALTY_KINDS["disqualification"])
        DEDUCTION = "deduction", _(PENALTY_KINDS["deduction"])
        LEVEL_AWARD = "level_award", _(PENALTY_KINDS["level_award"])

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="penalties", verbose_name=_("赛事")
    )
    round = models.ForeignKey(
        Round,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="penalties",
        verbose_name=_("轮次"),
    )
    table = models.ForeignKey(
        Table,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="penalties",
        verbose_name=_("桌"),
    )
    pair = models.ForeignKey(
        Pair, on_delete=models.PROTECT, related_name="penalties", verbose_name=_("受罚对")
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="penalties",
        verbose_name=_("受罚选手"),
    )
    kind = models.CharField(_("类别"), max_length=20, choices=Kind.choices)
    deal = models.PositiveIntegerField(_("副数"), null=True, blank=True)
    jcf = models.DecimalField(_("扣级差分"), max_digits=6, decimal_places=2, null=True, blank=True)
    # A level award's levels to the opponents (RULES.md §9 ladder step ``level_award``; the
    # award itself is the table's ``adjust:`` event).
    levels = models.PositiveSmallIntegerField(_("升级数"), null=True, blank=True)
    reason = models.TextField(_("原因"), blank=True)
    # True when recorded by confirming a suggested escalation (two warnings → 违例 …).
    escalation = models.BooleanField(_("由累计升级"), default=False)
    referee = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("裁判"),
    )
    referee_name = models.CharField(_("裁判姓名"), max_length=100, blank=True)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)
    # Never deleted: withdrawn (撤销) with a reason, by the chief referee or by undoing its foul.
    withdrawn_at = models.DateTimeField(_("撤销时间"), null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("撤销人"),
    )
    withdraw_reason = models.TextField(_("撤销原因"), blank=True)

    class Meta:
        verbose_name = _("判罚")
        verbose_name_plural = _("判罚")
        ordering = ["tournament", "created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="deduction") & Q(jcf__isnull=False) & Q(jcf__gt=0))
                | (~Q(kind="deduction") & Q(jcf__isnull=True)),
                name="penalty_jcf_only_for_deductions",
            ),
            models.CheckConstraint(
                condition=Q(
                    kind__in=[
                        "warning",
                        "violation",
                        "foul",
                        "penalty_loss",
                        "disqualification",
                        "deduction",
                        "level_award",
                    ]
                ),
                name="penalty_kind_valid",
            ),
        ]
        indexes = [models.Index(fields=["pair", "round"], name="penalty_pair_round")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.pair.number}"

    @property
    def is_withdrawn(self) -> bool:
        return self.withdrawn_at is not None


class Appeal(models.Model):
    """申诉 (RULES.md §3): a written appeal against a table's result or a penalty, lodged within
    30 minutes of the round's end with a fee (refunded when upheld); the appeals committee
    (仲裁委员会) decides, finally. A decision that changes a result does so through the chief
    referee's correction (``scoring.services.correct_result``), audited with this appeal's number.

    It lives next to ``Penalty`` (scoring), not in ``tournaments``: it points at a penalty, and a
    model of the lower layer must not know the upper one."""

    class Status(models.TextChoices):
        PENDING = "pending", _("待裁决")
        UPHELD = "upheld", _("申诉成立")
        REJECTED = "rejected", _("申诉驳回")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="appeals", verbose_name=_("赛事")
    )
    round = models.ForeignKey(
        Round, on_delete=models.PROTECT, related_name="appeals", verbose_name=_("轮次")
    )
    table = models.ForeignKey(
        Table,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="appeals",
        verbose_name=_("桌"),
    )
    penalty = models.ForeignKey(
        Penalty,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="appeals",
        verbose_name=_("判罚"),
    )
    pair = models.ForeignKey(
        Pair, on_delete=models.PROTECT, related_name="appeals", verbose_name=_("申诉方")
    )
    text = models.TextField(_("申诉内容"))
    fee = models.DecimalField(_("申诉费"), max_digits=8, decimal_places=2, default=0)
    filed_at = models.DateTimeField(_("申诉时间"), auto_now_add=True)
    filed_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("受理人"),
    )
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.PENDING
    )
    decision = models.TextField(_("裁决"), blank=True)
    # The committee's members as written on the decision; ``decided_by`` is who recorded it.
    committee = models.CharField(_("仲裁委员会成员"), max_length=200, blank=True)
    decided_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("裁决录入人"),
    )
    decided_at = models.DateTimeField(_("裁决时间"), null=True, blank=True)

    class Meta:
        verbose_name = _("申诉")
        verbose_name_plural = _("申诉")
        ordering = ["tournament", "filed_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(table__isnull=False) | Q(penalty__isnull=False),
                name="appeal_has_subject",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "upheld", "rejected"]),
                name="appeal_status_valid",
            ),
            models.CheckConstraint(condition=Q(fee__gte=0), name="appeal_fee_not_negative"),
            models.CheckConstraint(
                condition=Q(status="pending", decided_at__isnull=True)
                | (~Q(status="pending") & Q(decided_at__isnull=False)),
                name="appeal_decided_consistent",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.pair.number} {self.get_status_display()}"

    @property
    def fee_refunded(self) -> bool:
        """RULES.md §3: the fee is refunded if the appeal succeeds."""
        return self.status == self.Status.UPHELD


class Signoff(models.Model):
    """A submission (提交) or a confirmation (确认) of a table's sheet: who (an account, or the
    pair that proved itself with its code at the table) and how (referee desk, table link,
    import). RULES.md §7: the pair that confirms at the table is never one that entered."""

    class Step(models.TextChoices):
        SUBMIT = "submit", _("提交")
        CONFIRM = "confirm", _("确认")

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="signoffs", verbose_name=_("桌")
    )
    step = models.CharField(_("步骤"), max_length=16, choices=Step.choices)
    via = models.CharField(_("方式"), max_length=16, choices=Via.choices)
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("操作人"),
    )
    pair = models.ForeignKey(
        Pair,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("对"),
    )
    version = models.PositiveIntegerField(_("版本"))  # the table's version after this step
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        verbose_name = _("提交与确认")
        verbose_name_plural = _("提交与确认")
        ordering = ["table", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.table} {self.step} {self.via}"


class UsedKey(models.Model):
    """A one-time key of a form that creates something (a penalty, a deal, a confirmation …).

    Inserted in the same transaction as the row it guards (``scoring.once.once``); the
    unique key makes a repeated or concurrent second submission wait for the first and then
    get the first's ``result`` instead of writing a second row.
    """

    key = models.CharField(_("键"), max_length=100, unique=True)  # "<action>:<key>"
    action = models.CharField(_("操作"), max_length=32)
    result = models.JSONField(_("结果"), default=dict, blank=True)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        verbose_name = _("一次性键")
        verbose_name_plural = _("一次性键")

    def __str__(self) -> str:
        return f"{self.action} {self.key}"
