"""The audit log: who changed what when, before and after, and why (append-only)."""

from __future__ import annotations

from typing import Any

from django.conf import settings as django_settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .rounds import Round, Table
from .tournament import Tournament


class AuditQuerySet(models.QuerySet):
    """Bulk updates and deletes are refused: the audit log is append-only."""

    def update(self, **kwargs: Any) -> int:
        raise PermissionError("AuditEntry is append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("AuditEntry is append-only")


class AuditEntry(models.Model):
    """Who changed which result when, before and after, and why. Append-only.

    ``round``/``table`` are set null if a draft round is deleted; ``round_number`` and
    ``table_number`` keep the entry readable then.
    """

    class Action(models.TextChoices):
        ENTER_EVENT = "enter_event", _("录入牌局")
        UNDO_EVENT = "undo_event", _("撤销牌局")
        SET_START = "set_start", _("修改起始级")
        SET_END = "set_end", _("修改结束方式")
        MARK_ENTERED = "mark_entered", _("提交录入")
        CONFIRM = "confirm", _("确认成绩")
        CORRECT = "correct", _("更正成绩")
        SWAP_PAIRS = "swap_pairs", _("调整编排")
        DELETE_DRAFT = "delete_draft", _("删除草稿")
        GENERATE_ROUND = "generate_round", _("生成编排")
        PUBLISH_ROUND = "publish_round", _("公布编排")
        FINISH_ROUND = "finish_round", _("结束本轮")
        PAIR_STATUS = "pair_status", _("参赛对状态")
        PENALTY = "penalty", _("判罚")
        GRANT_ROLE = "grant_role", _("授予角色")
        REVOKE_ROLE = "revoke_role", _("撤销角色")
        SETTINGS = "settings", _("修改赛事设置")
        EDIT_PAIR = "edit_pair", _("修改参赛对")
        ESCALATION = "escalation", _("判罚升级")
        UNPUBLISH_ROUND = "unpublish_round", _("撤回编排")
        CREATE_ACCOUNTS = "create_accounts", _("创建账号")
        ASSIGN_TABLES = "assign_tables", _("分配桌号")
        CHECK_IN = "check_in", _("签到")
        APPEAL = "appeal", _("申诉")
        LINEUP = "lineup", _("出场名单")
        TEAM_STATUS = "team_status", _("队状态")
        START_CLOCK = "start_clock", _("开始本轮")
        RESET_PASSWORD = "reset_password", _("重置密码")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="audit_entries", verbose_name=_("赛事")
    )
    round = models.ForeignKey(
        Round,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("轮次"),
    )
    table = models.ForeignKey(
        Table,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="audit_entries",
        verbose_name=_("桌"),
    )
    round_number = models.PositiveIntegerField(_("轮次号"), null=True, blank=True)
    table_number = models.PositiveIntegerField(_("桌号"), null=True, blank=True)
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("操作人"),
    )
    # Username, or "table" / "import" when no account acted; survives user deletion.
    actor = models.CharField(_("操作人名称"), max_length=150, blank=True)
    action = models.CharField(_("操作"), max_length=32, choices=Action.choices)
    before = models.JSONField(_("修改前"), null=True, blank=True)
    after = models.JSONField(_("修改后"), null=True, blank=True)
    reason = models.TextField(_("原因"), blank=True)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        verbose_name = _("操作日志")
        verbose_name_plural = _("操作日志")
        db_table = "scoring_auditentry"  # kept from the scoring app (moved, not copied)
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["tournament", "created_at"], name="audit_tournament_time")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor} {self.get_action_display()}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None or not self._state.adding:
            raise PermissionError("AuditEntry is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("AuditEntry is append-only")


class StaffAccount(models.Model):
    """Who made a login, for which tournament (``tournaments.staff.create_staff_accounts``):
    only organizers sharing an event with its creator may grant it a role or reset its password
    (``tournaments.accounts``, issue 29)."""

    user = models.OneToOneField(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="staff_account",
        verbose_name=_("账号"),
    )
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("创建人"),
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.SET_NULL, null=True, related_name="+", verbose_name=_("赛事")
    )
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)

    class Meta:
        verbose_name = _("工作人员账号")
        verbose_name_plural = _("工作人员账号")

    def __str__(self) -> str:
        return str(self.user)
