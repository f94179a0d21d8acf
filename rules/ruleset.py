"""A tournament's rules as one validated, immutable value (TOURNAMENT_FILE.md "Settings").

``RuleSet.from_dict`` takes the file's ``settings`` object and either returns a ``RuleSet`` or
raises ``RuleSetError`` listing every wrong setting with a stable code; ``to_dict`` gives the
same object back, so export → import → export is stable. A setting added after the first files
were written (``forfeit``/``bye`` by the scale, ``a_fail_count``, ``a_pass``, ``tie``) is written
back when the file gave it or when it differs from its default, and only then.

The settings an organizer varies (RULES.md §9: upgrades, lateness, the escalation ladder, the
labels …) are values of ``rules.variants``, read there by the one reader of the settings a stage
may override (``OverrideReader``): a stage's ``settings`` are read as the event's are, and
``RuleSet.for_stage`` is the rules of a stage — what every consumer of stage-level rules reads.
The 级差分 scale is ``rules.scale``. Both modules' public names are importable from here.

Also here, as data the services and pages read: the presets an organizer starts from, each naming
the seed it follows (``PRESETS``); who may impose which penalty (``penalty_authority``, a
per-tournament setting with seed 003's defaults). The penalty escalations the software suggests
are RULES.md §3's (``ESCALATIONS``) or the event's own ladder (``RuleSet.escalation``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .errors import Problem, RuleSetError
from .levels import LOWEST, PAST_ACE
from .limits import SEED_MAX
from .scale import SCALE_PRESETS, Scale, is_int, validate_scale_table
from .stages import Stage, default_stage, parse_stages
from .variants import (
    CRITERION_KEYS,
    DEFAULT_MINUTES,
    ESCALATIONS,
    FORFEIT_LEVELS,
    ROUND_FORMATS,
    STAGE_SETTING_KEYS,
    TIEBREAK_PRESETS,
    TIES,
    TIMED_FORMATS,
    Award,
    Escalation,
    EscalationRule,
    Lateness,
    MatchPoints,
    OverrideReader,
    Tiebreaks,
    Upgrades,
    default_award,
    read_stage_settings,
    read_upgrades,
    setting_value,
)

EVENTS = ("pairs", "teams")
A_RULES = ("continue", "reset_to_2")
SAME_UNIT = ("avoid", "allow")
ROUND1 = ("lot", "seeding")
TEAM_SCORING = ("sum_jcf", "sum_levels", "sum_cf")  # RULES.md §6, scoring.teams
A_FAIL_COUNTS = ("deal", "stage")  # RULES.md §1 "Failed attempts at A"
A_PASSES = ("partner_2_or_3", "double_only")  # RULES.md §1 "How A is passed"
# RULES.md §7 "Correction deadlines" (seed 004): entry errors (录入错误) within 10 minutes after
# the round, published-result errors (公布成绩错误, and errors the referees find) within 20
# minutes after the stage; the chief referee may set other limits. Extension setting
# ``correction_minutes`` = {"round": m, "stage": m}; a stage's own ``correction_minutes``
# replaces the stage part for that stage.
CORRECTION_MINUTES: dict[str, int] = {"round": 10, "stage": 20}
MAX_CORRECTION_MINUTES = 100_000

# RULES.md §3 "Who may impose what" (seed 003): the lowest role that may record each kind of
# penalty. ``deal_loss`` is 本副判负 (a ``lose:`` event), ``level_award`` is 升级调整 (not in the
# seeds; a score change, so the chief referee's, like the other score changes).
PENALTY_ROLES = ("referee", "chief_referee", "organizer")
DEFAULT_PENALTY_AUTHORITY: dict[str, str] = {
    "warning": "referee",
    "violation": "referee",
    "foul": "chief_referee",
    "deal_loss": "chief_referee",
    "penalty_loss": "chief_referee",
    "deduction": "chief_referee",
    "level_award": "chief_referee",
    "disqualification": "organizer",
}

MAX_JC = PAST_ACE - LOWEST  # 13: from 2 to 过A


# The settings of RULES.md §9 written back when the file gave them (even at their default) or
# when they differ from it, with their defaults.
LATER_DEFAULTS: dict[str, Any] = {
    "a_pass": "partner_2_or_3",
    "a_fail_count": "deal",
    "tie": "draw",
    "minutes": DEFAULT_MINUTES,
    "upgrades": Upgrades(),
    "lateness": Lateness(),
    "escalation": None,
    "extra_deal_from": "current",
    "labels": (),
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every per-tournament setting of TOURNAMENT_FILE.md, validated."""

    event: str = "pairs"
    round_format: str = "deals"
    deals_per_round: int = 8
    rounds: int | None = None
    scale: Scale = field(default_factory=lambda: SCALE_PRESETS["26:0"])
    match_points: MatchPoints = field(default_factory=MatchPoints)
    # None: the scale's 4-level win (``default_award``); read ``forfeit``/``bye``.
    forfeit_award: Award | None = None
    bye_award: Award | None = None
    a_rule: str = "continue"
    a_attempts: int = 3
    a_fail_count: str = "deal"
    a_pass: str = A_PASSES[0]
    tie: str = "draw"
    tiebreaks: tuple[str, ...] = TIEBREAK_PRESETS["regulation"]
    tiebreak_preset: str | None = "regulation"
    same_unit: str = "avoid"
    seed: int | None = None
    round1: str = "lot"  # extension: round 1 by lot (default) or by seeding number
    team_scoring: str = "sum_jcf"  # extension, RULES.md §6
    # Extension (RULES.md §3 "Who may impose what"): penalty kind → the lowest role allowed.
    penalty_authority: tuple[tuple[str, str], ...] = tuple(DEFAULT_PENALTY_AUTHORITY.items())
    # Extension (RULES.md §7): minutes after the round / after the stage that a result may
    # still be corrected (``correction_deadline_minutes`` applies a stage's own minutes).
    correction_round_minutes: int = CORRECTION_MINUTES["round"]
    correction_stage_minutes: int = CORRECTION_MINUTES["stage"]
    # Which of the later settings (``LATER_DEFAULTS``) the file gave even at their default.
    written: frozenset[str] = frozenset()
    # RULES.md §8: the stages as the file gave them; () = one Swiss stage of ``rounds`` rounds.
    stages: tuple[Stage, ...] = ()
    # RULES.md §9: the time limit of a timed round (计时制 / 计时计副制), in minutes.
    minutes: int = DEFAULT_MINUTES
    # RULES.md §9: the levels a deal gives by the partner's place (3/2/1, or 5/3/1).
    upgrades: Upgrades = field(default_factory=Upgrades)
    # RULES.md §2/§9: what lateness means (the start levels it gives, a forfeit, a 判负).
    lateness: Lateness = field(default_factory=Lateness)
    # RULES.md §9: the event's escalation ladder; None: §3's (``ESCALATIONS``).
    escalation: Escalation | None = None
    # RULES.md §9: the extra deal of a level tie at the current levels or at 2 (``2``/``"2"``).
    extra_deal_from: str | int = "current"
    # RULES.md §9: criterion key → the event's own column label.
    labels: tuple[tuple[str, str], ...] = ()
    # Not a setting: the referee called time on equal levels after this many deals (RULES.md
    # §2 "Level tie": those were the regular deals, the extra deal follows; ``at_time``).
    time_call: int | None = None

    @property
    def stage_list(self) -> tuple[Stage, ...]:
        """Every stage, the implicit single Swiss stage when the file gives none."""
        return self.stages or (default_stage(self.rounds),)

    def stage(self, number: int) -> Stage:
        """Stage ``number`` (1-based)."""
        return self.stage_list[number - 1]

    def plays_series(self, number: int) -> bool:
        """Whether stage ``number``'s matches are best-of-n series scored game by game (a
        knockout, RULES.md §8: ``StageKind.series``)."""
        return bool(self.stages) and self.stage(number).type.series

    def for_stage(self, number: int) -> RuleSet:
        """The rules of stage ``number``: what every table, clock, standings and document of
        the stage reads (RULES.md §9 "Per-stage settings"). The stage's own ``settings``
        (match points, forfeit, bye, tiebreaks, round format, deals, minutes, tie, extra deal,
        lateness, escalation, labels) and its top-level ``round_format``, ``deals_per_round``
        and ``tie`` replace the event's; a stage that gives no tie rule keeps the event's,
        except that a draw becomes its kind's ``default_tie`` (a knockout breaks a level tie by
        the extra deal, RULES.md §2). Everything else is the event's. ``self`` for an event
        without stages."""
        if not self.stages:
            return self
        stage = self.stage(number)
        fields = stage.settings.fields() if stage.settings is not None else {}
        if fields:
            # The stage gave these settings (``written``: e.g. its ``minutes`` is the clock's).
            given = {key for key, _value in stage.settings.items} if stage.settings else set()
            fields["written"] = self.written | given
        if stage.round_format is not None:
            fields["round_format"] = stage.round_format
        if stage.deals_per_round is not None:
            fields["deals_per_round"] = stage.deals_per_round
        tie = stage.own_tie
        if tie is None:
            default = stage.type.default_tie
            tie = default if default is not None and self.tie == "draw" else self.tie
        fields["tie"] = tie
        return replace(self, **fields)

    def at_time(self, deals: int) -> RuleSet:
        """RULES.md §2 "Level tie" in a timed format: the referee called time on equal levels
        after ``deals`` deals, so those were the game's regular deals and the extra deal is the
        only one left (``scoring.engine``: the extra deal, counted apart; no other limit)."""
        return replace(self, time_call=deals)

    @property
    def forfeit(self) -> Award:
        """What the present pair (and the absent one) gets for a forfeit (RULES.md §2 弃权)."""
        return self.forfeit_award or default_award(self.scale)

    @property
    def bye(self) -> Award:
        """What a bye is worth (RULES.md §2 轮空; by default the same as a forfeit win)."""
        return self.bye_award or default_award(self.scale)

    def correction_deadline_minutes(self, number: int) -> tuple[int, int]:
        """RULES.md §7 for a table of stage ``number``: (minutes after its round, minutes after
        its stage) that a result may be corrected; the stage's own ``correction_minutes``
        replaces the event's stage part."""
        own = self.stage(number).correction_minutes if self.stages else None
        stage = self.correction_stage_minutes if own is None else own
        return self.correction_round_minutes, stage

    def may_impose(self, kind: str) -> str:
        """The lowest role (``PENALTY_ROLES``) allowed to record a penalty of ``kind``."""
        return dict(self.penalty_authority)[kind]

    @property
    def timed(self) -> bool:
        """计时制 / 计时计副制: the referee closes the match (time is called)."""
        return self.round_format in TIMED_FORMATS

    @property
    def deal_points(self) -> bool:
        """RULES.md §9 "6局积分制": every deal at 2, the match by the deals' points."""
        return self.round_format == "deal_points"

    @property
    def max_deals(self) -> int | None:
        """The most deals a match may have besides the extra deal; ``None`` when only 过A
        (or time) ends it."""
        if self.round_format in ("deals", "timed_deals", "deal_points"):
            return self.deals_per_round
        return None

    @property
    def regular_deals(self) -> int | None:
        """The deals after which the extra deal of a tie is played: the round's deals, or the
        deals played when time was called (``time_call``); None when neither is known."""
        if self.time_call is None:
            return self.max_deals
        limit = self.max_deals
        return self.time_call if limit is None else min(self.time_call, limit)

    @property
    def plays_extra_deal(self) -> bool:
        """A tie at the end of the regular deals is decided by one extra deal: ``tie:
        extra_deal``, and always in a deal-points match (RULES.md §2, §9)."""
        return self.tie == "extra_deal" or self.deal_points

    @property
    def extra_from_two(self) -> bool:
        """RULES.md §9 ``extra_deal_from: 2``: the extra deal is played at 2 by both sides."""
        return str(self.extra_deal_from) == "2"

    def label(self, key: str) -> str | None:
        """The event's own label of a criterion or column (``labels``), or None."""
        return dict(self.labels).get(key)

    @classmethod
    def from_dict(cls, data: Any) -> RuleSet:
        problems: list[Problem] = []
        if not isinstance(data, dict):
            raise RuleSetError([Problem("settings", "not_an_object")])
        known = {
            "event",
            "rounds",
            "scale",
            "a_rule",
            "a_attempts",
            "same_unit",
            "seed",
            "round1",
            "team_scoring",
            "a_fail_count",
            "a_pass",
            "penalty_authority",
            "stages",
            "correction_minutes",
            "upgrades",
            *STAGE_SETTING_KEYS,
        }
        for key in data:
            if key not in known:
                problems.append(Problem(str(key), "unknown_setting"))

        def choice(key: str, options: tuple[str, ...], default: str) -> str:
            value = data.get(key, default)
            if value not in options:
                problems.append(Problem(key, "not_one_of", {"value": value, "options": options}))
                return default
            return str(value)

        def positive_int(key: str, default: int | None) -> int | None:
            value = data.get(key, default)
            if value is None and default is None:
                return None
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                problems.append(Problem(key, "not_positive_integer", {"value": value}))
                return default
            return value

        event = choice("event", EVENTS, "pairs")
        rounds = positive_int("rounds", None)
        a_rule = choice("a_rule", A_RULES, "continue")
        a_attempts = positive_int("a_attempts", 3) or 3
        same_unit = choice("same_unit", SAME_UNIT, "avoid")
        round1 = choice("round1", ROUND1, "lot")
        team_scoring = choice("team_scoring", TEAM_SCORING, "sum_jcf")
        a_fail_count = choice("a_fail_count", A_FAIL_COUNTS, "deal")
        a_pass = choice("a_pass", A_PASSES, "partner_2_or_3")
        written = frozenset(k for k in LATER_DEFAULTS if k in data)

        scale = SCALE_PRESETS["26:0"]
        raw_scale = data.get("scale", "26:0")
        if isinstance(raw_scale, str):
            if raw_scale in SCALE_PRESETS:
                scale = SCALE_PRESETS[raw_scale]
            else:
                options = (*SCALE_PRESETS, "{table}")
                problems.append(
                    Problem("scale", "not_one_of", {"value": raw_scale, "options": options})
                )
        elif isinstance(raw_scale, dict) and set(raw_scale) == {"table"}:
            custom, scale_problems = validate_scale_table(raw_scale["table"])
            problems.extend(scale_problems)
            scale = custom or scale
        else:
            problems.append(Problem("scale", "scale_malformed"))

        # The settings a stage may override, read by the same reader as a stage's own.
        own = OverrideReader(data, problems, "", scale).read()
        tiebreaks: Tiebreaks = own.get("tiebreaks", Tiebreaks())
        escalation = own.get("escalation")
        upgrades = Upgrades()
        if "upgrades" in data:
            upgrades = read_upgrades(data["upgrades"], problems) or upgrades

        seed = data.get("seed")
        if seed is not None and not is_int(seed):
            problems.append(Problem("seed", "not_integer", {"value": seed}))
            seed = None
        elif seed is not None and not 0 <= seed <= SEED_MAX:
            # Later rounds draw with seed × 1000 + round, stored in a 64-bit column.
            problems.append(
                Problem("seed", "out_of_range", {"value": seed, "min": 0, "max": SEED_MAX})
            )
            seed = None

        authority = dict(DEFAULT_PENALTY_AUTHORITY)
        raw_auth = data.get("penalty_authority", {})
        if not isinstance(raw_auth, dict):
            problems.append(Problem("penalty_authority", "penalty_authority_malformed"))
        else:
            for kind, role in raw_auth.items():
                if kind not in DEFAULT_PENALTY_AUTHORITY:
                    options = tuple(DEFAULT_PENALTY_AUTHORITY)
                    problems.append(
                        Problem(
                            "penalty_authority", "not_one_of", {"value": kind, "options": options}
                        )
                    )
                elif role not in PENALTY_ROLES:
                    problems.append(
                        Problem(
                            "penalty_authority",
                            "not_one_of",
                            {"value": role, "options": PENALTY_ROLES},
                        )
                    )
                else:
                    authority[kind] = role

        minutes = dict(CORRECTION_MINUTES)
        raw_minutes = data.get("correction_minutes", {})
        if not isinstance(raw_minutes, dict) or set(raw_minutes) - set(CORRECTION_MINUTES):
            problems.append(Problem("correction_minutes", "correction_minutes_malformed"))
        else:
            for part, value in raw_minutes.items():
                if not is_int(value) or not 0 <= value <= MAX_CORRECTION_MINUTES:
                    params = {"value": value, "min": 0, "max": MAX_CORRECTION_MINUTES}
                    problems.append(Problem("correction_minutes", "out_of_range", params))
                else:
                    minutes[part] = value

        stages: tuple[Stage, ...] = ()
        if "stages" in data:
            stages, stage_problems = parse_stages(
                data["stages"],
                ROUND_FORMATS,
                TIES,
                lambda raw, number: read_stage_settings(raw, number, scale),
            )
            problems.extend(stage_problems)

        if problems:
            raise RuleSetError(problems)
        rules = cls(
            event=event,
            round_format=own.get("round_format", "deals"),
            deals_per_round=own.get("deals_per_round", 8),
            rounds=rounds,
            scale=scale,
            match_points=own.get("match_points", MatchPoints()),
            forfeit_award=own.get("forfeit"),
            bye_award=own.get("bye"),
            a_rule=a_rule,
            a_attempts=a_attempts,
            a_fail_count=a_fail_count,
            a_pass=a_pass,
            tie=own.get("tie", "draw"),
            tiebreaks=tiebreaks.keys,
            tiebreak_preset=tiebreaks.preset,
            same_unit=same_unit,
            seed=seed,
            round1=round1,
            team_scoring=team_scoring,
            penalty_authority=tuple(authority.items()),
            correction_round_minutes=minutes["round"],
            correction_stage_minutes=minutes["stage"],
            written=written,
            stages=stages,
            minutes=own.get("minutes", DEFAULT_MINUTES),
            upgrades=upgrades,
            lateness=own.get("lateness", Lateness()),
            escalation=None if escalation == "regulation" else escalation,
            extra_deal_from=own.get("extra_deal_from", "current"),
            labels=own.get("labels", ()),
        )
        problems.extend(rules.stage_rule_problems())
        if problems:
            raise RuleSetError(problems)
        return rules

    def stage_rule_problems(self) -> list[Problem]:
        """What no stage's effective rules may be (RULES.md §9): ``first_to_level`` outside a
        timed format (the side first at the common level is known only when time is called)."""
        problems: list[Problem] = []
        for number in range(1, len(self.stage_list) + 1):
            rules = self.for_stage(number)
            if rules.tie == "first_to_level" and not rules.timed:
                where = f"stages.{number}" if self.stages else "tie"
                params = {"stage": number, "format": rules.round_format}
                problems.append(Problem(where, "tie_first_to_level_untimed", params))
        return problems

    def to_dict(self) -> dict[str, Any]:
        """The file's ``settings`` object (extensions only when they differ from the default; the
        later settings when given or not at their default, in TOURNAMENT_FILE.md's order)."""
        data: dict[str, Any] = {
            "event": self.event,
            "round_format": self.round_format,
            "deals_per_round": self.deals_per_round,
        }
        if self.rounds is not None:
            data["rounds"] = self.rounds
        data.update(
            {
                "scale": self.scale.to_setting(),
                "match_points": self.match_points.to_setting(),
            }
        )
        for key, award in (("forfeit", self.forfeit_award), ("bye", self.bye_award)):
            if award is not None:
                data[key] = award.to_setting()
        data.update(
            {
                "a_rule": self.a_rule,
                "a_attempts": self.a_attempts,
                "tiebreaks": self.tiebreak_preset or list(self.tiebreaks),
                "same_unit": self.same_unit,
            }
        )
        if self.seed is not None:
            data["seed"] = self.seed
        for key, default in LATER_DEFAULTS.items():
            value = getattr(self, key)
            if key in self.written or value != default:
                if key == "escalation" and value is None:
                    data[key] = "regulation"
                elif key == "labels":
                    data[key] = dict(value)
                else:
                    data[key] = setting_value(value)
        if self.stages:
            data["stages"] = [stage.to_dict() for stage in self.stages]
        if self.round1 != "lot":
            data["round1"] = self.round1
        if self.team_scoring != "sum_jcf":
            data["team_scoring"] = self.team_scoring
        authority = dict(self.penalty_authority)
        changed = {k: v for k, v in authority.items() if DEFAULT_PENALTY_AUTHORITY.get(k) != v}
        if changed:
            data["penalty_authority"] = changed
        minutes = {
            "round": self.correction_round_minutes,
            "stage": self.correction_stage_minutes,
        }
        minutes = {k: v for k, v in minutes.items() if CORRECTION_MINUTES[k] != v}
        if minutes:
            data["correction_minutes"] = minutes
        return data


@dataclass(frozen=True, slots=True)
class Preset:
    """A set of settings an organizer starts from, and the seed text it follows (RULES.md §4)."""

    key: str
    label_zh: str
    label_en: str
    seed: str  # the file(s) in ``shared/seeds/`` this preset follows
    follows: str  # what of the seed it takes, in a sentence
    rules: RuleSet


PRESETS: dict[str, Preset] = {
    "regulation": Preset(
        "regulation",
        "规程（26:0 级差分，规程名次规则）",
        "Regulation (26:0 scale, regulation tiebreaks)",
        "003",
        "seed 003, the competition regulation (规程): the 26:0 scale, forfeit 2 CF + 17 JCF, "
        "lateness starts, A must be played with no reset, a level tie is a draw, the "
        "regulation tiebreaks",
        RuleSet(),
    ),
    "jiangsu2017": Preset(
        "jiangsu2017",
        "江苏2017（26分制，A必打不降级，平局加打一副）",
        "Jiangsu 2017 (26:0 scale, A must be played, no reset, extra deal on a tie)",
        "001, 004",
        "seed 001, the Jiangsu 2017 simplified rules (江苏省掼蛋竞赛简易规则): the 26:0 scale "
        '("按13级26分制计算"), A must be played and no reset, an extra deal on a level tie '
        '("如升级数相同，可加打一副牌"); the Jiangsu tiebreaks as seed 004 gives them',
        RuleSet(
            tie="extra_deal",
            tiebreaks=TIEBREAK_PRESETS["jiangsu2017"],
            tiebreak_preset="jiangsu2017",
            written=frozenset({"a_pass", "a_fail_count", "tie"}),
        ),
    ),
}


def preset_settings(name: str) -> dict[str, Any]:
    """Settings dicts for the presets an organizer starts from (regulation / Jiangsu 2017)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}")
    return PRESETS[name].rules.to_dict()


__all__ = [
    "A_FAIL_COUNTS",
    "A_PASSES",
    "A_RULES",
    "CORRECTION_MINUTES",
    "CRITERION_KEYS",
    "DEFAULT_MINUTES",
    "DEFAULT_PENALTY_AUTHORITY",
    "ESCALATIONS",
    "EVENTS",
    "FORFEIT_LEVELS",
    "MAX_CORRECTION_MINUTES",
    "MAX_JC",
    "PENALTY_ROLES",
    "PRESETS",
    "ROUND_FORMATS",
    "SCALE_PRESETS",
    "TEAM_SCORING",
    "TIEBREAK_PRESETS",
    "TIES",
    "TIMED_FORMATS",
    "Award",
    "Escalation",
    "EscalationRule",
    "Lateness",
    "MatchPoints",
    "Preset",
    "RuleSet",
    "Scale",
    "Upgrades",
    "default_award",
    "preset_settings",
    "validate_scale_table",
]
