"""A tournament's rules as one validated, immutable value (TOURNAMENT_FILE.md "Settings").

``RuleSet.from_dict`` takes the file's ``settings`` object and either returns a ``RuleSet`` or
raises ``RuleSetError`` listing every wrong setting with a stable code; ``to_dict`` gives the
same object back, so export → import → export is stable. A setting added after the first files
were written (``forfeit``/``bye`` by the scale, ``a_fail_count``, ``a_pass``, ``tie``) is written
back when the file gave it or when it differs from its default, and only then.

Also here, as data the services and pages read: the presets an organizer starts from, each naming
the seed it follows (``PRESETS``); the penalty escalations the software suggests
(``ESCALATIONS``, RULES.md §3) and who may impose which penalty (``penalty_authority``, a
per-tournament setting with seed 003's defaults).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Any

from .errors import Problem, RuleSetError
from .levels import LOWEST, PAST_ACE
from .limits import SCORE_MAX, SEED_MAX, number_problem
from .stages import Stage, default_stage, parse_stages

EVENTS = ("pairs", "teams")
ROUND_FORMATS = ("deals", "game", "timed", "timed_deals")
TIMED_FORMATS = ("timed", "timed_deals")  # 计时制 / 计时计副制: the referee closes the match
A_RULES = ("continue", "reset_to_2")
SAME_UNIT = ("avoid", "allow")
ROUND1 = ("lot", "seeding")
TEAM_SCORING = ("sum_jcf", "sum_levels", "sum_cf")  # RULES.md §6, scoring.teams
A_FAIL_COUNTS = ("deal", "stage")  # RULES.md §1 "Failed attempts at A"
A_PASSES = ("partner_2_or_3", "double_only")  # RULES.md §1 "How A is passed"
TIES = ("draw", "extra_deal")  # RULES.md §2 "Level tie"
# RULES.md §7 "Correction deadlines" (seed 004): entry errors (录入错误) within 10 minutes after
# the round, published-result errors (公布成绩错误, and errors the referees find) within 20
# minutes after the stage; the chief referee may set other limits. Extension setting
# ``correction_minutes`` = {"round": m, "stage": m}; a stage's own ``correction_minutes``
# replaces the stage part for that stage.
CORRECTION_MINUTES: dict[str, int] = {"round": 10, "stage": 20}
MAX_CORRECTION_MINUTES = 100_000
FORFEIT_LEVELS = 4  # RULES.md §2: a forfeit or a bye is worth the scale's 4-level win

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

# TOURNAMENT_FILE.md "Criterion keys". Match points always come first, the lot always last.
CRITERION_KEYS = (
    "jcf",
    "head_to_head",
    "wins",
    "draws",
    "level_difference",
    "opponents_cf",
    "previous_rank",
    "progressive",
    "upgrades",
    "lot",
)
TIEBREAK_PRESETS: dict[str, tuple[str, ...]] = {
    # RULES.md §4, seed 003 (the competition regulation).
    "regulation": (
        "jcf",
        "head_to_head",
        "wins",
        "draws",
        "level_difference",
        "opponents_cf",
        "previous_rank",
    ),
    # RULES.md §4, seed 004 (Jiangsu 2017).
    "jiangsu2017": ("progressive", "wins", "jcf", "upgrades", "lot"),
}

MAX_JC = PAST_ACE - LOWEST  # 13: from 2 to 过A


def _is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _bad_number(value: Any, row: int | None = None, minimum: int = -SCORE_MAX) -> dict[str, Any]:
    """The parameters of ``bad_number`` (``rules.limits.number_problem`` refused ``value``)."""
    params: dict[str, Any] = {"value": repr(value)[:40], "min": minimum, "max": SCORE_MAX}
    if row is not None:
        params["row"] = row
    return params


def _plain(number: float) -> float | int:
    """Keep whole numbers as ints so files and JSON read naturally (2, not 2.0)."""
    return int(number) if float(number).is_integer() else number


@dataclass(frozen=True, slots=True)
class Scale:
    """级差分 scale: a table JC → (ahead, behind) (RULES.md §2). JC past the last row is capped."""

    key: str  # "26:0", "28" or "custom"
    rows: tuple[tuple[int, float, float], ...]

    @classmethod
    def linear(cls, key: str, base: int) -> Scale:
        """``base ± JC``, JC capped at ``base`` (the 26:0 scale is base 13, the 28 scale 14)."""
        return cls(key, tuple((jc, base + jc, base - jc) for jc in range(base + 1)))

    @property
    def max_jc(self) -> int:
        return self.rows[-1][0]

    @property
    def total(self) -> float:
        """What the two sides' 级差分 always add up to (checked for the presets in tests)."""
        return self.rows[0][1] + self.rows[0][2]

    def points(self, jc: int) -> tuple[float, float]:
        """(ahead, behind) for a level difference ``jc`` ≥ 0."""
        if jc < 0:
            raise ValueError("jc must not be negative")
        row = self.rows[min(jc, self.max_jc)]
        return row[1], row[2]

    def to_setting(self) -> str | dict[str, Any]:
        if self.key in SCALE_PRESETS:
            return self.key
        return {"table": [[jc, _plain(a), _plain(b)] for jc, a, b in self.rows]}


SCALE_PRESETS: dict[str, Scale] = {
    "26:0": Scale.linear("26:0", 13),
    "28": Scale.linear("28", 14),
}


def validate_scale_table(table: Any) -> tuple[Scale | None, list[Problem]]:
    """A custom scale must start at JC 0 (a draw: equal points), list every JC in order,
    give the side ahead at least as much as the side behind, and be monotone."""
    problems: list[Problem] = []
    if not isinstance(table, list) or not table:
        return None, [Problem("scale", "scale_table_empty")]
    rows: list[tuple[int, float, float]] = []
    for index, row in enumerate(table):
        ok = isinstance(row, list | tuple) and len(row) == 3 and _is_int(row[0])
        if not ok or not all(_is_number(x) for x in row[1:]):
            problems.append(Problem("scale", "scale_row_malformed", {"row": index + 1}))
            continue
        rows.append((row[0], row[1], row[2]))
        for value in row[1:]:
            if number_problem(value) is not None:
                problems.append(Problem("scale", "bad_number", _bad_number(value, index + 1)))
    if problems:
        return None, problems
    for index, (jc, ahead, behind) in enumerate(rows):
        if jc != index:
            problems.append(Problem("scale", "scale_not_consecutive", {"row": index + 1, "jc": jc}))
            break
        if ahead < behind:
            problems.append(Problem("scale", "scale_ahead_below_behind", {"jc": jc}))
        if index == 0 and ahead != behind:
            problems.append(
                Problem("scale", "scale_draw_unequal", {"ahead": ahead, "behind": behind})
            )
        if index > 0:
            _, prev_ahead, prev_behind = rows[index - 1]
            if ahead < prev_ahead or behind > prev_behind:
                problems.append(Problem("scale", "scale_not_monotone", {"jc": jc}))
    if problems:
        return None, problems
    return Scale("custom", tuple(rows)), []


@dataclass(frozen=True, slots=True)
class MatchPoints:
    """场分 for a win, a draw and a loss (RULES.md §2; default 2/1/0)."""

    win: float = 2
    draw: float = 1
    loss: float = 0


@dataclass(frozen=True, slots=True)
class Award:
    """What the present pair (forfeit) or the bye pair gets; the absent pair gets 0 and 0."""

    cf: float = 2
    jcf: float = 17


@dataclass(frozen=True, slots=True)
class EscalationRule:
    """RULES.md §3: ``count`` records of ``counted`` (penalty kinds, or ``forfeit`` for a table
    the pair forfeited) within ``scope`` suggest ``suggests`` — for the referee to confirm.

    ``scope``: ``round`` (in one round), ``consecutive_rounds`` (in rounds one after another) or
    ``tournament`` (anywhere in the event). A 本副判负 (``deal_loss``) is not a foul and counts
    towards nothing.
    """

    counted: str
    count: int
    scope: str
    suggests: str
    source: str


ESCALATIONS: tuple[EscalationRule, ...] = (
    EscalationRule("warning", 2, "round", "violation", "RULES.md §3; seed 001"),
    EscalationRule("violation", 2, "round", "foul", "RULES.md §3; seed 001"),
    EscalationRule("foul", 2, "round", "penalty_loss", "RULES.md §3; seed 001"),
    # Seed 001: "连续两轮弃权或被两次判负 … 由裁判长报请赛区组委会取消违规方参赛资格".
    EscalationRule("forfeit", 2, "consecutive_rounds", "disqualification", "seed 001"),
    EscalationRule("penalty_loss", 2, "tournament", "disqualification", "seed 001"),
)


def default_award(scale: Scale) -> Award:
    """RULES.md §2: a forfeit (and by default a bye) is 2 CF and the scale's 4-level win —
    17 on the 26:0 scale, 18 on the 28 scale."""
    return Award(2, scale.points(FORFEIT_LEVELS)[0])


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
    # Which of a_pass / a_fail_count / tie the file gave even at their default (round trip).
    written: frozenset[str] = frozenset()
    # RULES.md §8: the stages as the file gave them; () = one Swiss stage of ``rounds`` rounds.
    stages: tuple[Stage, ...] = ()

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
        """The rules a table of stage ``number`` is scored by: the stage's own round format,
        deals per round and tie rule (a knockout breaks a level tie by the extra deal unless it
        says otherwise, RULES.md §2: ``StageKind.default_tie``), everything else the
        tournament's."""
        if not self.stages:
            return self
        stage = self.stage(number)
        tie = stage.tie or stage.type.default_tie or self.tie
        return replace(
            self,
            round_format=stage.round_format or self.round_format,
            deals_per_round=stage.deals_per_round or self.deals_per_round,
            tie=tie,
        )

    def at_time(self, deals: int) -> RuleSet:
        """RULES.md §2 "Level tie" in a timed format: the referee called time on equal levels
        after ``deals`` deals, so those were the game's regular deals and the extra deal is the
        only one left — the rules of a ``timed_deals`` game of that many deals (the engine's
        extra deal, ``scoring.engine.extra_deal_allowed``, as after a 计副制 round)."""
        limit = deals if self.max_deals is None else min(deals, self.max_deals)
        return replace(self, round_format="timed_deals", deals_per_round=limit)

    @property
    def forfeit(self) -> Award:
        """What the present pair gets for a forfeit (RULES.md §2 弃权)."""
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
    def max_deals(self) -> int | None:
        """The most deals a match may have; ``None`` when only 过A (or time) ends it."""
        return self.deals_per_round if self.round_format in ("deals", "timed_deals") else None

    @classmethod
    def from_dict(cls, data: Any) -> RuleSet:
        problems: list[Problem] = []
        if not isinstance(data, dict):
            raise RuleSetError([Problem("settings", "not_an_object")])
        known = {
            "event",
            "round_format",
            "deals_per_round",
            "rounds",
            "scale",
            "match_points",
            "forfeit",
            "bye",
            "a_rule",
            "a_attempts",
            "tiebreaks",
            "same_unit",
            "seed",
            "round1",
            "team_scoring",
            "a_fail_count",
            "a_pass",
            "tie",
            "penalty_authority",
            "stages",
            "correction_minutes",
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
        round_format = choice("round_format", ROUND_FORMATS, "deals")
        deals_per_round = positive_int("deals_per_round", 8) or 8
        rounds = positive_int("rounds", None)
        a_rule = choice("a_rule", A_RULES, "continue")
        a_attempts = positive_int("a_attempts", 3) or 3
        same_unit = choice("same_unit", SAME_UNIT, "avoid")
        round1 = choice("round1", ROUND1, "lot")
        team_scoring = choice("team_scoring", TEAM_SCORING, "sum_jcf")
        a_fail_count = choice("a_fail_count", A_FAIL_COUNTS, "deal")
        a_pass = choice("a_pass", A_PASSES, "partner_2_or_3")
        tie = choice("tie", TIES, "draw")
        written = frozenset(k for k in ("a_pass", "a_fail_count", "tie") if k in data)

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

        match_points = MatchPoints()
        raw_mp = data.get("match_points", {})
        if not isinstance(raw_mp, dict) or set(raw_mp) - {"win", "draw", "loss"}:
            problems.append(Problem("match_points", "match_points_malformed"))
        else:
            values = {k: raw_mp.get(k, getattr(match_points, k)) for k in ("win", "draw", "loss")}
            if not all(_is_number(v) for v in values.values()):
                problems.append(Problem("match_points", "match_points_malformed"))
            elif bad := [v for v in values.values() if number_problem(v) is not None]:
                problems.append(Problem("match_points", "bad_number", _bad_number(bad[0])))
            elif not values["win"] >= values["draw"] >= values["loss"]:
                problems.append(Problem("match_points", "match_points_order", values))
            else:
                match_points = MatchPoints(**values)

        def award(key: str) -> Award | None:
            """None when the file gives none: the scale's 4-level win (RULES.md §2)."""
            if key not in data:
                return None
            raw = data[key]
            default = default_award(scale)
            if not isinstance(raw, dict) or set(raw) - {"cf", "jcf"}:
                problems.append(Problem(key, "award_malformed"))
                return None
            values = {k: raw.get(k, getattr(default, k)) for k in ("cf", "jcf")}
            if not all(_is_number(v) and v >= 0 for v in values.values()):
                problems.append(Problem(key, "award_malformed"))
                return None
            if bad := [v for v in values.values() if number_problem(v, minimum=0) is not None]:
                problems.append(Problem(key, "bad_number", _bad_number(bad[0], minimum=0)))
                return None
            return Award(**values)

        forfeit = award("forfeit")
        bye = award("bye")

        tiebreaks = TIEBREAK_PRESETS["regulation"]
        preset: str | None = "regulation"
        raw_tb = data.get("tiebreaks", "regulation")
        if isinstance(raw_tb, str):
            if raw_tb in TIEBREAK_PRESETS:
                tiebreaks, preset = TIEBREAK_PRESETS[raw_tb], raw_tb
            else:
                options = tuple(TIEBREAK_PRESETS)
                problems.append(
                    Problem("tiebreaks", "not_one_of", {"value": raw_tb, "options": options})
                )
        elif isinstance(raw_tb, list) and all(isinstance(k, str) for k in raw_tb):
            unknown = [k for k in raw_tb if k not in CRITERION_KEYS and k != "cf"]
            if unknown:
                problems.append(Problem("tiebreaks", "unknown_criterion", {"keys": unknown}))
            elif len(set(raw_tb)) != len(raw_tb):
                problems.append(Problem("tiebreaks", "duplicate_criterion"))
            elif "cf" in raw_tb and raw_tb[0] != "cf":
                problems.append(Problem("tiebreaks", "cf_not_first"))
            elif "lot" in raw_tb and raw_tb[-1] != "lot":
                problems.append(Problem("tiebreaks", "lot_not_last"))
            else:
                tiebreaks, preset = tuple(k for k in raw_tb if k != "cf"), None
        else:
            problems.append(Problem("tiebreaks", "tiebreaks_malformed"))

        seed = data.get("seed")
        if seed is not None and not _is_int(seed):
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
                if not _is_int(value) or not 0 <= value <= MAX_CORRECTION_MINUTES:
                    params = {"value": value, "min": 0, "max": MAX_CORRECTION_MINUTES}
                    problems.append(Problem("correction_minutes", "out_of_range", params))
                else:
                    minutes[part] = value

        stages: tuple[Stage, ...] = ()
        if "stages" in data:
            stages, stage_problems = parse_stages(data["stages"], ROUND_FORMATS, TIES)
            problems.extend(stage_problems)

        if problems:
            raise RuleSetError(problems)
        return cls(
            event=event,
            round_format=round_format,
            deals_per_round=deals_per_round,
            rounds=rounds,
            scale=scale,
            match_points=match_points,
            forfeit_award=forfeit,
            bye_award=bye,
            a_rule=a_rule,
            a_attempts=a_attempts,
            a_fail_count=a_fail_count,
            a_pass=a_pass,
            tie=tie,
            tiebreaks=tiebreaks,
            tiebreak_preset=preset,
            same_unit=same_unit,
            seed=seed,
            round1=round1,
            team_scoring=team_scoring,
            penalty_authority=tuple(authority.items()),
            correction_round_minutes=minutes["round"],
            correction_stage_minutes=minutes["stage"],
            written=written,
            stages=stages,
        )

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
                "match_points": {
                    "win": _plain(self.match_points.win),
                    "draw": _plain(self.match_points.draw),
                    "loss": _plain(self.match_points.loss),
                },
            }
        )
        for key, award in (("forfeit", self.forfeit_award), ("bye", self.bye_award)):
            if award is not None:
                data[key] = {"cf": _plain(award.cf), "jcf": _plain(award.jcf)}
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
        for key, default in (
            ("a_pass", "partner_2_or_3"),
            ("a_fail_count", "deal"),
            ("tie", "draw"),
        ):
            value = getattr(self, key)
            if key in self.written or value != default:
                data[key] = value
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
