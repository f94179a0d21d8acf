"""The event itself: ``Tournament`` (its settings, status, results version and staff) and the
referees' table ranges (``TableAssignment``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # pragma: no cover - typing only
    from rules.ruleset import RuleSet


class Tournament(models.Model):
    """One event. ``settings`` is the tournament file's ``settings`` object (TOURNAMENT_FILE.md)."""

    class Status(models.TextChoices):
        SETUP = "setup", _("筹备中")
        RUNNING = "running", _("进行中")
        FINISHED = "finished", _("已结束")

    name = models.CharField(_("赛事名称"), max_length=200)
    slug = models.SlugField(_("网址标识"), max_length=80, unique=True)
    settings = models.JSONField(_("赛事设置"), default=dict, blank=True)
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.SETUP
    )
    # Bumped by every service that changes what the standings are computed from (confirmed
    # results, deductions, pairs); the standings cache is keyed by it, so a bump invalidates.
    results_version = models.PositiveIntegerField(_("成绩版本"), default=0, editable=False)
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)
    organizers = models.ManyToManyField(
        django_settings.AUTH_USER_MODEL,
        related_name="organized_tournaments",
        blank=True,
        verbose_name=_("组委会/编排"),
    )
    chief_referees = models.ManyToManyField(
        django_settings.AUTH_USER_MODEL,
        related_name="chief_refereed_tournaments",
        blank=True,
        verbose_name=_("裁判长"),
    )
    referees = models.ManyToManyField(
        django_settings.AUTH_USER_MODEL,
        related_name="refereed_tournaments",
        blank=True,
        verbose_name=_("裁判"),
    )

    class Meta:
        verbose_name = _("赛事")
        verbose_name_plural = _("赛事")
        ordering = ["-created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=["setup", "running", "finished"]),
                name="tournament_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def rules(self) -> RuleSet:
        """The validated ``RuleSet``; cached per instance until ``settings`` changes."""
        from rules.ruleset import RuleSet

        key = json.dumps(self.settings, sort_keys=True, ensure_ascii=False)
        cached = getattr(self, "_rules_cache", None)
        if cached is None or cached[0] != key:
            cached = (key, RuleSet.from_dict(self.settings))
            self._rules_cache = cached
        return cached[1]

    def clean(self) -> None:
        super().clean()
        from rules.errors import RuleError
        from tournaments.messages import describe_error

        try:
            self.rules  # noqa: B018 - validates
        except RuleError as exc:
            raise ValidationError({"settings": describe_error(exc)}) from exc


class TableAssignment(models.Model):
    """A referee's tables (桌号范围) at one tournament: "我的桌" on the referee desk."""

    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.CASCADE,
        related_name="table_assignments",
        verbose_name=_("赛事"),
    )
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="table_assignments",
        verbose_name=_("裁判"),
    )
    first = models.PositiveIntegerField(_("起始桌号"))
    last = models.PositiveIntegerField(_("结束桌号"))

    class Meta:
        verbose_name = _("分配桌号")
        verbose_name_plural = _("分配桌号")
        ordering = ["tournament", "first"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="assignment_one_per_user"),
            models.CheckConstraint(
                condition=Q(first__gte=1) & Q(last__gte=models.F("first")),
                name="assignment_range_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.first}–{self.last}"
