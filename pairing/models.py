"""Rounds, tables and seats: the Django side of the Swiss pairing (RULES.md §5).

Facts only; every write goes through ``pairing/services.py`` or ``scoring/services.py``. A table
row is either a match (``ns`` against ``ew``) or a bye (``is_bye``, the bye pair in ``ns``, ``ew``
empty). ``Seat`` mirrors every (round, pair) so the database itself refuses a pair seated twice in
one round, whichever direction it sits in.
"""

from __future__ import annotations

import secrets

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tournaments.models import Pair, Tournament


def new_entry_token() -> str:
    """The secret in a table's table-side entry link (its QR code goes on the score sheet)."""
    return secrets.token_urlsafe(16)


class Round(models.Model):
    """A round (轮): draft → published → finished."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("草稿")
        PUBLISHED = "published", _("已公布")
        FINISHED = "finished", _("已结束")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("赛事")
    )
    number = models.PositiveIntegerField(_("轮次"))
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.DRAFT
    )
    # The seed of the random.Random handed to the engine, so the draw can be reproduced.
    seed = models.BigIntegerField(_("随机种子"), null=True, blank=True)
    # The engine's summary of a generated draw: bye reasons, same-unit meetings, total gap.
    draw_info = models.JSONField(_("编排说明"), default=dict, blank=True)
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)
    published_at = models.DateTimeField(_("公布时间"), null=True, blank=True)
    finished_at = models.DateTimeField(_("结束时间"), null=True, blank=True)

    class Meta:
        verbose_name = _("轮次")
        verbose_name_plural = _("轮次")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "published", "finished"]),
                name="round_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return _("第%(n)s轮") % {"n": self.number}


class Table(models.Model):
    """One table of a round: the match's facts (start, end, state). Events live in scoring."""

    class EndKind(models.TextChoices):
        NONE = "", _("正常")
        FORFEIT = "forfeit", _("弃权")
        PENALTY_LOSS = "penalty_loss", _("判负")
        LATE_SHEET = "late_sheet", _("迟交记分表")

    class Side(models.TextChoices):
        NONE = "", "—"
        NS = "NS", _("南北")
        EW = "EW", _("东西")

    class EntryStatus(models.TextChoices):
        OPEN = "open", _("录入中")
        ENTERED = "entered", _("已录入")
        CONFIRMED = "confirmed", _("已确认")

    class Via(models.TextChoices):
        NONE = "", "—"
        REFEREE = "referee", _("裁判")
        TABLE = "table", _("桌边")
        IMPORT = "import", _("导入")

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="tables", verbose_name=_("轮次")
    )
    number = models.PositiveIntegerField(_("桌号"))
    is_bye = models.BooleanField(_("轮空"), default=False)
    ns = models.ForeignKey(
        Pair, on_delete=models.PROTECT, related_name="ns_tables", verbose_name=_("南北")
    )
    ew = models.ForeignKey(
        Pair,
        on_delete=models.PROTECT,
        related_name="ew_tables",
        null=True,
        blank=True,
        verbose_name=_("东西"),
    )
    # Lateness (RULES.md §2): the punctual side starts at 3 or 4.
    start_ns = models.PositiveSmallIntegerField(_("南北起始级"), default=2)
    start_ew = models.PositiveSmallIntegerField(_("东西起始级"), default=2)
    end_kind = models.CharField(
        _("结束方式"), max_length=16, choices=EndKind.choices, default="", blank=True
    )
    # The offending side: absent (forfeit), penalised (判负) or late with the sheet.
    end_side = models.CharField(
        _("责任方"), max_length=2, choices=Side.choices, default="", blank=True
    )
    entry_status = models.CharField(
        _("录入状态"), max_length=16, choices=EntryStatus.choices, default=EntryStatus.OPEN
    )
    # Compare-and-swap counter: every write does filter(pk=, version=v).update(version=v+1).
    version = models.PositiveIntegerField(_("版本"), default=0)
    entry_token = models.CharField(
        _("桌边录入密钥"), max_length=32, unique=True, default=new_entry_token
    )
    entered_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("录入人"),
    )
    entered_at = models.DateTimeField(_("录入时间"), null=True, blank=True)
    # Ids of every account that entered, undid or changed this table's facts before it was
    # confirmed: the two-person rule refuses all of them as the confirmer.
    enterers = models.JSONField(_("录入人列表"), default=list, blank=True, editable=False)
    confirmed_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("确认人"),
    )
    # "table" = West confirmed at the table with the EW pair's code.
    confirmed_via = models.CharField(
        _("确认方式"), max_length=16, choices=Via.choices, default="", blank=True
    )
    confirmed_at = models.DateTimeField(_("确认时间"), null=True, blank=True)
    match = models.PositiveIntegerField(_("团体赛场次"), null=True, blank=True)
    # The engine's reasons for this table in the draft: [{"code": ..., "params": {...}}].
    reasons = models.JSONField(_("编排理由"), default=list, blank=True)

    class Meta:
        verbose_name = _("桌")
        verbose_name_plural = _("桌")
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="table_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="table_number_positive"),
            models.CheckConstraint(
                condition=(Q(is_bye=True) & Q(ew__isnull=True))
                | (Q(is_bye=False) & Q(ew__isnull=False) & ~Q(ew=models.F("ns"))),
                name="table_bye_or_two_pairs",
            ),
            models.CheckConstraint(
                condition=(Q(end_kind="") & Q(end_side=""))
                | (
                    Q(end_kind__in=["forfeit", "penalty_loss", "late_sheet"])
                    & Q(end_side__in=["NS", "EW"])
                ),
                name="table_end_consistent",
            ),
            models.CheckConstraint(
                condition=Q(start_ns__gte=2, start_ns__lte=14, start_ew__gte=2, start_ew__lte=14),
                name="table_start_levels_valid",
            ),
            models.CheckConstraint(
                condition=Q(entry_status__in=["open", "entered", "confirmed"]),
                name="table_entry_status_valid",
            ),
        ]

    def __str__(self) -> str:
        if self.is_bye:
            return _("第%(r)s轮 轮空") % {"r": self.round.number}
        return _("第%(r)s轮 第%(t)s桌") % {"r": self.round.number, "t": self.number}

    @property
    def pair_ids(self) -> tuple[int, ...]:
        return (self.ns_id,) if self.ew_id is None else (self.ns_id, self.ew_id)

    @property
    def is_confirmed(self) -> bool:
        return self.entry_status == self.EntryStatus.CONFIRMED


class Seat(models.Model):
    """(round, pair) for every seated pair: backs "a pair at most once per round" in the DB."""

    class Direction(models.TextChoices):
        NS = "NS", _("南北")
        EW = "EW", _("东西")
        BYE = "BYE", _("轮空")

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="seats", verbose_name=_("轮次")
    )
    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="seats", verbose_name=_("桌")
    )
    pair = models.ForeignKey(
        Pair, on_delete=models.PROTECT, related_name="seats", verbose_name=_("参赛对")
    )
    direction = models.CharField(_("方向"), max_length=3, choices=Direction.choices)

    class Meta:
        verbose_name = _("座位")
        verbose_name_plural = _("座位")
        ordering = ["round", "table", "direction"]
        constraints = [
            models.UniqueConstraint(fields=["round", "pair"], name="seat_pair_once_per_round"),
            models.UniqueConstraint(fields=["table", "direction"], name="seat_direction_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.round} {self.table.number} {self.direction} {self.pair.number}"
