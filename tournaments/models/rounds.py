"""What is played: rounds (轮), their tables (a match, or a bye), a knockout match's later games
and the seats that keep a pair to one table a round."""

from __future__ import annotations

import secrets

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .registration import Pair, Team
from .tournament import Tournament


def new_entry_token() -> str:
    """The secret in a table's table-side entry link (its QR code goes on the score sheet)."""
    return secrets.token_urlsafe(16)


class RoundQuerySet(models.QuerySet["Round"]):
    def counted(self) -> RoundQuerySet:
        """The rounds that count: published or finished (``Round.COUNTED``). What the
        standings, the public pages, the desks and the reports read; a draft is the
        organizers' business and counts nowhere."""
        return self.filter(status__in=Round.COUNTED)


class Round(models.Model):
    """A round (轮): draft → published → finished."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("草稿")
        PUBLISHED = "published", _("已公布")
        FINISHED = "finished", _("已结束")

    # The statuses of the rounds that count (``Round.objects.counted()``, and
    # ``Table.objects.counted()`` for their tables): ask those, not the statuses.
    COUNTED = (Status.PUBLISHED, Status.FINISHED)

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("赛事")
    )
    number = models.PositiveIntegerField(_("轮次"))
    # RULES.md §8: the stage (阶段) the round belongs to, 1-based (``RuleSet.stage_list``);
    # rounds are numbered through the whole event.
    stage = models.PositiveSmallIntegerField(_("阶段"), default=1)
    status = models.CharField(
        _("状态"), max_length=16, choices=Status.choices, default=Status.DRAFT
    )
    # The seed of the random.Random handed to the engine, so the draw can be reproduced.
    seed = models.BigIntegerField(_("随机种子"), null=True, blank=True)
    # The engine's summary of a generated draw: bye reasons, same-unit meetings, total gap.
    draw_info = models.JSONField(_("编排说明"), default=dict, blank=True)
    # Team events (RULES.md §6): the team that sits out this round (轮空), scored as two forfeit
    # wins. A pairs event's bye is a bye ``Table`` instead (one pair, no opponent).
    bye_team = models.ForeignKey(
        Team,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bye_rounds",
        verbose_name=_("轮空队"),
    )
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)
    published_at = models.DateTimeField(_("公布时间"), null=True, blank=True)
    finished_at = models.DateTimeField(_("结束时间"), null=True, blank=True)
    # Set when the round was finished and its stage was over with it (``pairing.services.
    # finish_round`` asks ``pairing.stages.stage_finished``): the stage's correction deadline
    # counts from this round's ``finished_at`` (``scoring.deadlines``).
    ends_stage = models.BooleanField(_("本阶段最后一轮"), default=False)
    # The round clock (issue 15, ``scoring.clock``): when play started (lateness counts from it,
    # RULES.md §2) and, in 计时制 / 计时计副制, how many minutes the round lasts.
    started_at = models.DateTimeField(_("开始时间"), null=True, blank=True)
    minutes = models.PositiveSmallIntegerField(_("本轮时长（分钟）"), null=True, blank=True)

    objects = RoundQuerySet.as_manager()

    class Meta:
        verbose_name = _("轮次")
        verbose_name_plural = _("轮次")
        db_table = "pairing_round"  # kept from the pairing app (moved, not copied)
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="round_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
            models.UniqueConstraint(fields=["tournament", "bye_team"], name="round_team_bye_once"),
            models.CheckConstraint(condition=Q(stage__gte=1), name="round_stage_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "published", "finished"]),
                name="round_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return _("第%(n)s轮") % {"n": self.number}


class TableQuerySet(models.QuerySet["Table"]):
    def counted(self) -> TableQuerySet:
        """The tables of the rounds that count (``Round.objects.counted()``)."""
        return self.filter(round__status__in=Round.COUNTED)


class Table(models.Model):
    """One table of a round: the match's facts (start, end, state). Events live in scoring.

    In a team event (RULES.md §6) ``match`` is the team match the table belongs to: match *m*
    is played at tables 2m − 1 (甲) and 2m (甲1), the two teams seated crossed — team X's
    line-up pair sits NS at table 2m − 1 and its other pair EW at table 2m. Pairs events leave
    ``match`` empty.
    """

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
    # RULES.md §2 "Level tie" in a timed knockout game (计时制 / 计时计副制): the referee called
    # time on equal levels after this many deals; the extra deal follows. Null: not called so
    # (``scoring.facts.MatchFacts.time_deals``).
    time_deals = models.PositiveSmallIntegerField(_("到时副数"), null=True, blank=True)
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
    # Team events: match m = tables 2m − 1 and 2m (a check constraint keeps the numbering).
    match = models.PositiveIntegerField(_("团体赛场次"), null=True, blank=True)
    # RULES.md §8: a round-robin table's group (小组) "A", "B" …; "" outside a group stage.
    group = models.CharField(_("小组"), max_length=8, default="", blank=True)
    # A knockout table's place in its round's bracket, 1-based from the top (the winners of
    # slots 2k − 1 and 2k meet in slot k of the next round); the third-place match is slot 0.
    slot = models.PositiveIntegerField(_("对阵位置"), null=True, blank=True)
    # The engine's reasons for this table in the draft: [{"code": ..., "params": {...}}].
    reasons = models.JSONField(_("编排理由"), default=list, blank=True)

    objects = TableQuerySet.as_manager()

    class Meta:
        verbose_name = _("桌")
        verbose_name_plural = _("桌")
        db_table = "pairing_table"  # kept from the pairing app (moved, not copied)
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
            models.CheckConstraint(
                condition=Q(match__isnull=True)
                | Q(number=models.F("match") * 2 - 1)
                | Q(number=models.F("match") * 2),
                name="table_match_tables",
            ),
        ]
        indexes = [
            # Issue 18: what the standings read at every page after a confirmation — each
            # round's table count, summed versions and last id (``scoring.cache.round_versions``),
            # the confirmed tables' versions of the round in play and the public page's
            # confirmed-of-total count — read from this index alone, not from the table rows
            # (~12 of ~30 ms of queries at 10,000 pairs, SQLite).
            models.Index(
                fields=["round", "entry_status", "is_bye", "version"], name="table_round_progress"
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


class Game(models.Model):
    """Game 2, 3 … of a knockout match played best of n (RULES.md §8, 三局两胜).

    Game 1 is the table itself (its start, end and first events), so a best-of-1 match and
    every Swiss or group table need no row here. A game's events are the table's events from
    ``first_position`` on, up to the next game's: one event list per table, one scoring engine
    per game (``scoring.facts.table_games`` splits them). Game 2 starts from 2 : 2.
    """

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="games", verbose_name=_("桌")
    )
    number = models.PositiveSmallIntegerField(_("局次"))
    # The position (``TableEvent.position``) of this game's first event.
    first_position = models.PositiveIntegerField(_("首条记录序号"))
    start_ns = models.PositiveSmallIntegerField(_("南北起始级"), default=2)
    start_ew = models.PositiveSmallIntegerField(_("东西起始级"), default=2)
    end_kind = models.CharField(
        _("结束方式"), max_length=16, choices=Table.EndKind.choices, default="", blank=True
    )
    end_side = models.CharField(
        _("责任方"), max_length=2, choices=Table.Side.choices, default="", blank=True
    )
    time_deals = models.PositiveSmallIntegerField(_("到时副数"), null=True, blank=True)

    class Meta:
        verbose_name = _("局")
        verbose_name_plural = _("局")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="game_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=2), name="game_number_from_two"),
            models.CheckConstraint(
                condition=(Q(end_kind="") & Q(end_side=""))
                | (
                    Q(end_kind__in=["forfeit", "penalty_loss", "late_sheet"])
                    & Q(end_side__in=["NS", "EW"])
                ),
                name="game_end_consistent",
            ),
            models.CheckConstraint(
                condition=Q(start_ns__gte=2, start_ns__lte=14, start_ew__gte=2, start_ew__lte=14),
                name="game_start_levels_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.number}"


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
        db_table = "pairing_seat"  # kept from the pairing app (moved, not copied)
        ordering = ["round", "table", "direction"]
        constraints = [
            models.UniqueConstraint(fields=["round", "pair"], name="seat_pair_once_per_round"),
            models.UniqueConstraint(fields=["table", "direction"], name="seat_direction_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.round} {self.table.number} {self.direction} {self.pair.number}"
