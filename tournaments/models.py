"""Registration models: tournaments, units (单位), pairs (对), players and teams.

This module holds facts only. Every write goes through ``tournaments/services.py`` (and the
pairing/scoring services); these models may touch the database through Django only and import the
pure core (``rules``) lazily, to validate a tournament's settings into a ``RuleSet``.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # pragma: no cover - typing only
    from rules.ruleset import RuleSet

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


class ThrottleCounter(models.Model):
    """One fixed-window counter of ``tournaments.throttle`` when no Redis is configured: a
    login or pair-code attempt count shared by every worker (see that module). Not domain data;
    rows expire and are swept by the throttle itself."""

    key = models.CharField(max_length=80, primary_key=True)
    count = models.IntegerField(default=0)
    expires_at = models.BigIntegerField(help_text="Unix time (seconds) the window ends")

    class Meta:
        verbose_name = _("尝试计数")
        verbose_name_plural = _("尝试计数")

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"
