"""Who plays: units (单位), pairs (对) and their players, teams, a team's line-up for a round
(出场名单) and the desk's check-in (签到)."""

from __future__ import annotations

import secrets

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .tournament import Tournament

# Pair codes are read aloud and typed on phones: no 0/O, 1/I/L.
PAIR_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
PAIR_CODE_LENGTH = 6


def new_pair_code() -> str:
    """A random six-character secret used by West to confirm a table-side entry."""
    return "".join(secrets.choice(PAIR_CODE_ALPHABET) for _ in range(PAIR_CODE_LENGTH))


def new_checkin_token() -> str:
    """What a pair's check-in QR code carries (issue 29): its own token, never the pair's code,
    so the check-in list, its QR images and the desk's access logs hold no secret of the pair."""
    return secrets.token_urlsafe(12)


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
    # The check-in address's token (tournaments.checkin.checkin_path): not a secret of the pair.
    checkin_token = models.CharField(
        _("签到码"), max_length=24, unique=True, default=new_checkin_token, editable=False
    )

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
    """A team (队, 复式/团体, RULES.md §6) of two or three pairs of one unit.

    ``code`` is the team's ``id`` in the tournament file (TOURNAMENT_FILE.md "Team events");
    ``captain_code`` is the captain's secret, like a pair's ``code``: it lets the captain set the
    team's line-up (``LineUp``) without an account. ``pairs`` keep the order they were registered
    in (the through table's id): the default line-up is the first two active pairs in that order.
    A withdrawn team is not paired from the next round on; its results so far stand.
    """

    class Status(models.TextChoices):
        ACTIVE = "active", _("参赛")
        WITHDRAWN = "withdrawn", _("退赛")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="teams", verbose_name=_("赛事")
    )
    code = models.CharField(_("队代码"), max_length=32)
    name = models.CharField(_("队名"), max_length=100)
    unit = models.ForeignKey(
        Unit,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="teams",
        verbose_name=_("单位"),
    )
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.ACTIVE
    )
    # Secret: shown to the captain only (registration slip), never on public pages.
    captain_code = models.CharField(
        _("队长密码"), max_length=PAIR_CODE_LENGTH, default=new_pair_code
    )
    pairs = models.ManyToManyField(Pair, related_name="teams", blank=True, verbose_name=_("参赛对"))

    class Meta:
        verbose_name = _("队")
        verbose_name_plural = _("队")
        ordering = ["tournament", "code"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "code"], name="team_code_unique"),
            models.UniqueConstraint(
                fields=["tournament", "captain_code"], name="team_captain_code_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=["active", "withdrawn"]), name="team_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name or self.code

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


class LineUp(models.Model):
    """A team's line-up (出场名单) for one round (RULES.md §6): which two of its pairs play.

    ``ns`` sits North–South and ``ew`` East–West, at the two different tables of the team's
    match (match m = tables 2m − 1 and 2m; the match's first team has its NS pair at 2m − 1 and
    its EW pair at 2m, the other team the reverse — "甲桌的南北与甲1桌的东西互为队友"). Without a
    row the team fields its default line-up, its first two active pairs in registration order
    (``tournaments.lineups``). Keyed by the round's number, not the round, so a captain can
    choose before the draw is made; written only by ``tournaments.lineups.set_lineup``, which
    refuses once round ``round_number`` is published (the published tables are then the record).
    """

    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="lineups", verbose_name=_("队")
    )
    round_number = models.PositiveIntegerField(_("轮次"))
    ns = models.ForeignKey(
        Pair, on_delete=models.CASCADE, related_name="+", verbose_name=_("南北出场")
    )
    ew = models.ForeignKey(
        Pair, on_delete=models.CASCADE, related_name="+", verbose_name=_("东西出场")
    )
    set_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("设置人"),
    )
    # "captain" when set with the captain's code (no account), "" when by an account.
    set_via = models.CharField(_("设置方式"), max_length=16, blank=True)
    set_at = models.DateTimeField(_("设置时间"), auto_now=True)

    class Meta:
        verbose_name = _("出场名单")
        verbose_name_plural = _("出场名单")
        ordering = ["team", "round_number"]
        constraints = [
            models.UniqueConstraint(fields=["team", "round_number"], name="lineup_once_per_round"),
            models.CheckConstraint(condition=~Q(ns=models.F("ew")), name="lineup_two_pairs"),
            models.CheckConstraint(condition=Q(round_number__gte=1), name="lineup_round_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.team} {self.round_number}: {self.ns_id}/{self.ew_id}"


class CheckIn(models.Model):
    """签到: a pair reported present at the desk before a round's draw (``round_number`` is the
    round it is present for). One row per pair and round; undoing a check-in deletes the row
    (the audit log keeps both)."""

    class Via(models.TextChoices):
        LIST = "list", _("名单")
        QR = "qr", _("扫码")

    pair = models.ForeignKey(
        Pair, on_delete=models.CASCADE, related_name="checkins", verbose_name=_("参赛对")
    )
    round_number = models.PositiveIntegerField(_("轮次"))
    via = models.CharField(_("方式"), max_length=8, choices=Via.choices, default=Via.LIST)
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("签到人"),
    )
    created_at = models.DateTimeField(_("签到时间"), auto_now_add=True)

    class Meta:
        verbose_name = _("签到")
        verbose_name_plural = _("签到")
        ordering = ["round_number", "pair"]
        constraints = [
            models.UniqueConstraint(fields=["pair", "round_number"], name="checkin_once_per_round"),
            models.CheckConstraint(condition=Q(round_number__gte=1), name="checkin_round_positive"),
            models.CheckConstraint(condition=Q(via__in=["list", "qr"]), name="checkin_via_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.pair} R{self.round_number}"
