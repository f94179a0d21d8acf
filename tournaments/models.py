"""Registration models: tournaments, units (单位), pairs (对), players and teams.

This module holds facts only. Every write goes through ``tournaments/services.py`` (and the
pairing/scoring services); these models may touch the database through Django only and import the
pure core (``rules``) lazily, to validate a tournament's settings into a ``RuleSet``.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # pragma: no cover - typing only
    from rules.ruleset import RuleSet

# Pair codes are read aloud and typed on phones: no 0/O, 1/I/L.
PAIR_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
PAIR_CODE_LENGTH = 6


def new_pair_code() -> str:
    """A random six-character secret used by West to confirm a table-side entry."""
    return "".join(secrets.choice(PAIR_CODE_ALPHABET) for _ in range(PAIR_CODE_LENGTH))


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

        try:
            self.rules  # noqa: B018 - validates
        except RuleError as exc:
            problems = getattr(exc, "problems", None) or []
            if problems:
                msg = "; ".join(f"{p.setting}: {p.code}" for p in problems)
            else:
                msg = exc.code
            raise ValidationError({"settings": _("赛事设置无效：%(msg)s") % {"msg": msg}}) from exc


class Unit(models.Model):
    """A unit (单位): club, company or city. Pairs of one unit avoid each other (RULES.md §5)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="units", verbose_name=_("赛事")
    )
    code = models.CharField(_("单位代码"), max_length=32)
    name = models.CharField(_("单位名称"), max_length=100)

    class Meta:
        verbose_name = _("单位")
        verbose_name_plural = _("单位")
        ordering = ["tournament", "code"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "code"], name="unit_code_unique"),
        ]

    def __str__(self) -> str:
        return self.name or self.code


class Pair(models.Model):
    """A partnership (对). ``number`` is the tournament file's pair ``id``."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("参赛")
        WITHDRAWN = "withdrawn", _("退赛")
        DISQUALIFIED = "disqualified", _("取消资格")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="pairs", verbose_name=_("赛事")
    )
    number = models.PositiveIntegerField(_("编号"))
    unit = models.ForeignKey(
        Unit,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="pairs",
        verbose_name=_("单位"),
    )
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.ACTIVE
    )
    seeding = models.PositiveIntegerField(_("种子序号"), null=True, blank=True)
    # Secret: shown to the pair only (registration slip), never on public pages.
    code = models.CharField(_("对号密码"), max_length=PAIR_CODE_LENGTH, default=new_pair_code)

    class Meta:
        verbose_name = _("参赛对")
        verbose_name_plural = _("参赛对")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="pair_number_unique"),
            models.UniqueConstraint(fields=["tournament", "code"], name="pair_code_unique"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="pair_number_positive"),
            models.CheckConstraint(
                condition=models.Q(status__in=["active", "withdrawn", "disqualified"]),
                name="pair_status_valid",
            ),
        ]

    def __str__(self) -> str:
        names = self.player_names
        return f"{self.number} {names}" if names else str(self.number)

    @property
    def player_names(self) -> str:
        """ "张三/李四" (uses prefetched ``players`` when available)."""
        players = sorted(self.players.all(), key=lambda p: p.position) if self.pk else []
        return "/".join(p.name for p in players)

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    def clean(self) -> None:
        super().clean()
        if self.unit_id and self.unit.tournament_id != self.tournament_id:
            raise ValidationError({"unit": _("单位不属于本赛事")})


class Player(models.Model):
    """One of the two players of a pair; ``position`` 1 or 2 keeps the file's order."""

    class Position(models.IntegerChoices):
        FIRST = 1, _("第一人")
        SECOND = 2, _("第二人")

    pair = models.ForeignKey(
        Pair, on_delete=models.CASCADE, related_name="players", verbose_name=_("参赛对")
    )
    position = models.PositiveSmallIntegerField(_("序号"), choices=Position.choices)
    name = models.CharField(_("姓名"), max_length=100)
    contact = models.CharField(_("联系方式"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("选手")
        verbose_name_plural = _("选手")
        ordering = ["pair", "position"]
        constraints = [
            models.UniqueConstraint(fields=["pair", "position"], name="player_position_unique"),
            models.CheckConstraint(
                condition=models.Q(position__in=[1, 2]), name="player_position_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Team(models.Model):
    """A team (复式/团体, RULES.md §6) fielding two of its pairs per match."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="teams", verbose_name=_("赛事")
    )
    code = models.CharField(_("队代码"), max_length=32)
    name = models.CharField(_("队名"), max_length=100)
    pairs = models.ManyToManyField(Pair, related_name="teams", blank=True, verbose_name=_("参赛对"))

    class Meta:
        verbose_name = _("队")
        verbose_name_plural = _("队")
        ordering = ["tournament", "code"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "code"], name="team_code_unique"),
        ]

    def __str__(self) -> str:
        return self.name or self.code
