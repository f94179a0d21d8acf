"""The settings an organizer varies (RULES.md §2–§4, §9; TOURNAMENT_FILE.md "Settings"), each as
a validated, immutable value that writes itself back as the file gave it (``to_setting``), and
the one reader of the settings a stage may override (``read_overrides``): the event's settings
and a stage's ``settings`` object are read by the same code, so they accept and refuse the same
values with the same problems.

- ``MatchPoints`` (场分), ``Award`` (a forfeit's present and absent side, a bye);
- ``Tiebreaks`` (a preset or a list of criterion keys, RULES.md §4, §9 ``head_to_head_two``);
- ``Upgrades`` (升级: partner 2nd / 3rd / last, RULES.md §9: 3/2/1 or 5/3/1);
- ``Lateness`` (迟到, RULES.md §2 and §9) and what a lateness of n minutes means
  (``Lateness.ruling``);
- ``Escalation`` (an event's own ladder of steps, RULES.md §9; ``None`` on a ``RuleSet`` is §3's
  ladder) and §3's own rules (``ESCALATIONS``);
- the column labels in the event's words (``labels``), the extra deal's level
  (``extra_deal_from``), the time limit of a timed round (``minutes``);
- ``StageSettings``: a stage's own values of these (``RuleSet.for_stage`` applies them).

Pure: the standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import Problem
from .levels import ACE, LOWEST
from .limits import SCORE_MAX, number_problem
from .scale import Scale, bad_number, is_int, is_number, plain

ROUND_FORMATS = ("deals", "game", "timed", "timed_deals", "deal_points")
TIMED_FORMATS = ("timed", "timed_deals")  # 计时制 / 计时计副制: the referee closes the match
# RULES.md §2 "Level tie"; ``first_to_level`` only in timed formats (RULES.md §9).
TIES = ("draw", "extra_deal", "first_to_level")
EXTRA_DEAL_FROM = ("current", 2, "2")  # RULES.md §9: the extra deal at the current levels or at 2
MAX_MINUTES = 600  # a round's time limit (the clock's largest)
DEFAULT_MINUTES = 60  # TOURNAMENT_FILE.md: ``minutes`` of a timed round
FORFEIT_LEVELS = 4  # RULES.md §2: a forfeit or a bye is worth the scale's 4-level win
MAX_LABEL = 20  # characters of a column label

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
    "head_to_head_two",
    "lot",
)
# Two kinds of head-to-head (RULES.md §9): one of them in a list.
HEAD_TO_HEADS = ("head_to_head", "head_to_head_two")
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
# The keys ``labels`` may name: match points and every criterion.
LABEL_KEYS = ("cf", *CRITERION_KEYS)

# The settings a stage may override (TOURNAMENT_FILE.md "Formats": a stage's ``settings``), in
# the order they are written; the correction deadline is the stage's own ``correction_minutes``.
STAGE_SETTING_KEYS = (
    "match_points",
    "forfeit",
    "bye",
    "tiebreaks",
    "round_format",
    "deals_per_round",
    "minutes",
    "tie",
    "extra_deal_from",
    "lateness",
    "escalation",
    "labels",
)


def setting_value(value: Any) -> Any:
    """A parsed value as the file writes it."""
    to_setting = getattr(value, "to_setting", None)
    return to_setting() if callable(to_setting) else value


# -- match points, forfeit and bye ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchPoints:
    """场分 for a win, a draw and a loss (RULES.md §2; default 2/1/0)."""

    win: float = 2
    draw: float = 1
    loss: float = 0

    def to_setting(self) -> dict[str, Any]:
        return {"win": plain(self.win), "draw": plain(self.draw), "loss": plain(self.loss)}


@dataclass(frozen=True, slots=True)
class Award:
    """What the present pair of a forfeit (or the bye pair) gets, and what the absent side of a
    forfeit gets (RULES.md §9 ``forfeit.absent``: its CF may be negative; default 0 and 0)."""

    cf: float = 2
    jcf: float = 17
    absent_cf: float = 0
    absent_jcf: float = 0
    absent_given: bool = False  # the file gave ``absent`` (written back only then)

    def to_setting(self) -> dict[str, Any]:
        data: dict[str, Any] = {"cf": plain(self.cf), "jcf": plain(self.jcf)}
        if self.absent_given:
            data["absent"] = {"cf": plain(self.absent_cf), "jcf": plain(self.absent_jcf)}
        return data


def default_award(scale: Scale) -> Award:
    """RULES.md §2: a forfeit (and by default a bye) is 2 CF and the scale's 4-level win —
    17 on the 26:0 scale, 18 on the 28 scale."""
    return Award(2, scale.points(FORFEIT_LEVELS)[0])


# -- tiebreaks --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tiebreaks:
    """The tiebreak criteria after match points (RULES.md §4): a preset's (``preset``) or a
    list the file gave (``preset`` None)."""

    keys: tuple[str, ...] = TIEBREAK_PRESETS["regulation"]
    preset: str | None = "regulation"

    def to_setting(self) -> str | list[str]:
        return self.preset or list(self.keys)


# -- upgrades ---------------------------------------------------------------------------------

MAX_UPGRADE = ACE - LOWEST + 1  # 13: from 2 past A


@dataclass(frozen=True, slots=True)
class Upgrades:
    """RULES.md §1/§9 升级: the levels the side of the 1st player climbs with its partner 2nd
    (``double``, 双下), 3rd or last: 3/2/1 by default; seed 001's company sheet 5/3/1. The
    deal tokens keep their meaning (``NS3``: partner 2nd, ``NS2``: 3rd, ``NS1``: last)."""

    double: int = 3
    partner_3rd: int = 2
    partner_4th: int = 1

    def gain(self, token: int) -> int:
        """The levels gained for a deal token's digit (3: partner 2nd, 2: 3rd, 1: last)."""
        return self.double if token == 3 else (self.partner_3rd if token == 2 else self.partner_4th)

    @property
    def values(self) -> tuple[int, int, int]:
        return self.double, self.partner_3rd, self.partner_4th

    def to_setting(self) -> dict[str, int]:
        return {
            "double": self.double,
            "partner_3rd": self.partner_3rd,
            "partner_4th": self.partner_4th,
        }


# -- lateness ---------------------------------------------------------------------------------

LATENESS_KINDS = ("regulation", "forfeit", "per_minutes", "loss_after")
REGULATION_LATE = ((5, 3), (10, 4))  # RULES.md §2: late ≤ 5 min → 3, ≤ 10 min → 4, else forfeit


@dataclass(frozen=True, slots=True)
class LatenessRuling:
    """What a lateness means: ``none``; ``start`` (the punctual side starts at ``level`` and is
    on stage); ``forfeit`` (the late side forfeits the round); ``penalty_loss`` (判负 of the
    late side)."""

    kind: str
    level: int = LOWEST


@dataclass(frozen=True, slots=True)
class Lateness:
    """迟到 (RULES.md §2, §9): ``regulation`` (3 / 4 / forfeit); ``forfeit`` (any lateness is a
    forfeit, "未按时出场视为弃赛"); ``per_minutes`` (+``levels`` to the punctual side per started
    ``per_minutes`` minutes, a forfeit after ``forfeit_after`` minutes if given); ``loss_after``
    (seed 001 "迟到五分钟以上未请假者判负": a 判负 of the late side after that many minutes)."""

    kind: str = "regulation"
    per_minutes: int | None = None
    levels: int | None = None
    forfeit_after: int | None = None
    loss_after: int | None = None

    def ruling(self, minutes: float) -> LatenessRuling:
        """What a lateness of ``minutes`` means."""
        if minutes <= 0:
            return LatenessRuling("none")
        if self.kind == "forfeit":
            return LatenessRuling("forfeit")
        if self.kind == "loss_after":
            late = self.loss_after is not None and minutes > self.loss_after
            return LatenessRuling("penalty_loss" if late else "none")
        if self.kind == "per_minutes":
            assert self.per_minutes is not None and self.levels is not None
            if self.forfeit_after is not None and minutes > self.forfeit_after:
                return LatenessRuling("forfeit")
            periods = math.ceil(minutes / self.per_minutes)
            return LatenessRuling("start", min(ACE, LOWEST + periods * self.levels))
        for limit, level in REGULATION_LATE:
            if minutes <= limit:
                return LatenessRuling("start", level)
        return LatenessRuling("forfeit")

    @property
    def start_levels(self) -> tuple[int, ...]:
        """The levels the punctual side may start at (2: nobody was late), never past A."""
        if self.kind == "regulation":
            return (LOWEST, *(level for _limit, level in REGULATION_LATE))
        if self.kind == "per_minutes":
            assert self.per_minutes is not None and self.levels is not None
            top = ACE
            if self.forfeit_after is not None:
                periods = math.ceil(self.forfeit_after / self.per_minutes)
                top = min(ACE, LOWEST + periods * self.levels)
            return tuple(range(LOWEST, top + 1))
        return (LOWEST,)

    def to_setting(self) -> str | dict[str, int]:
        if self.kind in ("regulation", "forfeit"):
            return self.kind
        if self.kind == "loss_after":
            assert self.loss_after is not None
            return {"loss_after": self.loss_after}
        assert self.per_minutes is not None and self.levels is not None
        data = {"per_minutes": self.per_minutes, "levels": self.levels}
        if self.forfeit_after is not None:
            data["forfeit_after"] = self.forfeit_after
        return data


# -- escalation -------------------------------------------------------------------------------

ESCALATION_SCOPES = ("match", "round", "event")
# The steps of an event's ladder (RULES.md §9), in the order of their weight.
ESCALATION_STEPS = (
    "warning",
    "violation",
    "foul",
    "level_award",
    "penalty_loss",
    "disqualification",
)
MAX_ESCALATION_STEPS = 10


@dataclass(frozen=True, slots=True)
class EscalationStep:
    """One step of an event's ladder: a penalty kind, with ``levels`` for ``level_award``
    (the levels the opponents are given)."""

    kind: str
    levels: int | None = None

    def to_setting(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.levels is not None:
            data["levels"] = self.levels
        return data


@dataclass(frozen=True, slots=True)
class Escalation:
    """An event's own escalation ladder (RULES.md §9): the n-th offence of one side within
    ``scope`` (its match, its round, the event) is given ``steps[n - 1]`` (the last step again
    beyond the ladder). Example: "初次违反口头警告，两次违反判对手升三级，三次违反判对手本局获胜"
    = warning → level_award 3 → penalty_loss, scope match."""

    scope: str
    steps: tuple[EscalationStep, ...]

    def step_for(self, offences: int) -> EscalationStep:
        """The step of offence number ``offences + 1`` (``offences`` already recorded)."""
        return self.steps[min(offences, len(self.steps) - 1)]

    def to_setting(self) -> dict[str, Any]:
        return {"scope": self.scope, "steps": [step.to_setting() for step in self.steps]}


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


# RULES.md §3's ladder (``escalation: regulation``).
ESCALATIONS: tuple[EscalationRule, ...] = (
    EscalationRule("warning", 2, "round", "violation", "RULES.md §3; seed 001"),
    EscalationRule("violation", 2, "round", "foul", "RULES.md §3; seed 001"),
    EscalationRule("foul", 2, "round", "penalty_loss", "RULES.md §3; seed 001"),
    # Seed 001: "连续两轮弃权或被两次判负 … 由裁判长报请赛区组委会取消违规方参赛资格".
    EscalationRule("forfeit", 2, "consecutive_rounds", "disqualification", "seed 001"),
    EscalationRule("penalty_loss", 2, "tournament", "disqualification", "seed 001"),
)


# -- a stage's own settings -------------------------------------------------------------------

# The ``RuleSet`` fields a setting of ``STAGE_SETTING_KEYS`` sets (the rest: its own name).
FIELD_OF = {"forfeit": "forfeit_award", "bye": "bye_award"}


@dataclass(frozen=True, slots=True)
class StageSettings:
    """A stage's ``settings`` (TOURNAMENT_FILE.md "Formats"): its own values of the event's
    settings, as read (``read_overrides``), in the file's order."""

    items: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str) -> Any:
        """The stage's own value of ``key``, or None."""
        return dict(self.items).get(key)

    def fields(self) -> dict[str, Any]:
        """The ``RuleSet`` fields these settings set (``RuleSet.for_stage``)."""
        out: dict[str, Any] = {}
        for key, value in self.items:
            if key == "tiebreaks":
                out["tiebreaks"], out["tiebreak_preset"] = value.keys, value.preset
            elif key == "escalation":
                out["escalation"] = None if value == "regulation" else value
            else:
                out[FIELD_OF.get(key, key)] = value
        return out

    def to_setting(self) -> dict[str, Any]:
        return {
            key: dict(value) if key == "labels" else setting_value(value)
            for key, value in self.items
        }


# -- reading ----------------------------------------------------------------------------------


class OverrideReader:
    """Reads the settings of ``STAGE_SETTING_KEYS`` from ``data`` (the event's settings or a
    stage's ``settings``), adding a problem for each wrong one; ``prefix`` goes before every
    problem's setting (``stages.2.settings.``). ``scale`` is the event's (a partly given
    forfeit or bye takes the rest from its 4-level win)."""

    def __init__(
        self, data: Mapping[str, Any], problems: list[Problem], prefix: str, scale: Scale
    ) -> None:
        self.data, self.problems, self.prefix, self.scale = data, problems, prefix, scale

    def at(self, key: str) -> str:
        """The problem's setting: ``key`` after the prefix."""
        return self.prefix + key

    def read(self) -> dict[str, Any]:
        """Every setting of ``STAGE_SETTING_KEYS`` given in ``data``, parsed (a wrong one is
        left out, with its problem)."""
        readers = {
            "match_points": self.match_points,
            "forfeit": lambda raw: self.award("forfeit", raw, absent=True),
            "bye": lambda raw: self.award("bye", raw, absent=False),
            "tiebreaks": self.tiebreaks,
            "round_format": lambda raw: self.choice("round_format", raw, ROUND_FORMATS),
            "deals_per_round": lambda raw: self.positive("deals_per_round", raw),
            "minutes": lambda raw: self.count("minutes", raw, 1, MAX_MINUTES),
            "tie": lambda raw: self.choice("tie", raw, TIES),
            "extra_deal_from": self.extra_deal_from,
            "lateness": self.lateness,
            "escalation": self.escalation,
            "labels": self.labels,
        }
        out: dict[str, Any] = {}
        for key, reader in readers.items():
            if key in self.data:
                value = reader(self.data[key])
                if value is not None:
                    out[key] = value
        return out

    def choice(self, key: str, raw: Any, options: tuple[str, ...]) -> str | None:
        if not isinstance(raw, str) or raw not in options:
            self.problems.append(
                Problem(self.at(key), "not_one_of", {"value": raw, "options": options})
            )
            return None
        return raw

    def positive(self, key: str, raw: Any) -> int | None:
        if not is_int(raw) or raw < 1:
            self.problems.append(Problem(self.at(key), "not_positive_integer", {"value": raw}))
            return None
        return int(raw)

    def count(self, key: str, raw: Any, low: int, high: int) -> int | None:
        if not is_int(raw) or not low <= raw <= high:
            self.problems.append(
                Problem(self.at(key), "out_of_range", {"value": raw, "min": low, "max": high})
            )
            return None
        return int(raw)

    def match_points(self, raw: Any) -> MatchPoints | None:
        if not isinstance(raw, dict) or set(raw) - {"win", "draw", "loss"}:
            self.problems.append(Problem(self.at("match_points"), "match_points_malformed"))
            return None
        default = MatchPoints()
        values = {k: raw.get(k, getattr(default, k)) for k in ("win", "draw", "loss")}
        if not all(is_number(v) for v in values.values()):
            self.problems.append(Problem(self.at("match_points"), "match_points_malformed"))
            return None
        if bad := [v for v in values.values() if number_problem(v) is not None]:
            self.problems.append(Problem(self.at("match_points"), "bad_number", bad_number(bad[0])))
            return None
        if not values["win"] >= values["draw"] >= values["loss"]:
            self.problems.append(Problem(self.at("match_points"), "match_points_order", values))
            return None
        return MatchPoints(**values)

    def award(self, key: str, raw: Any, *, absent: bool) -> Award | None:
        allowed = {"cf", "jcf", "absent"} if absent else {"cf", "jcf"}
        if isinstance(raw, dict) and not absent and "absent" in raw:
            self.problems.append(Problem(self.at(key), "bye_absent"))
            return None
        if not isinstance(raw, dict) or set(raw) - allowed:
            self.problems.append(Problem(self.at(key), "award_malformed"))
            return None
        default = default_award(self.scale)
        values = {k: raw.get(k, getattr(default, k)) for k in ("cf", "jcf")}
        if not all(is_number(v) and v >= 0 for v in values.values()):
            self.problems.append(Problem(self.at(key), "award_malformed"))
            return None
        if bad := [v for v in values.values() if number_problem(v, minimum=0) is not None]:
            self.problems.append(Problem(self.at(key), "bad_number", bad_number(bad[0], minimum=0)))
            return None
        if "absent" not in raw:
            return Award(values["cf"], values["jcf"])
        given = raw["absent"]
        if not isinstance(given, dict) or set(given) - {"cf", "jcf"}:
            self.problems.append(Problem(self.at(key), "award_absent_malformed"))
            return None
        absent_cf, absent_jcf = given.get("cf", 0), given.get("jcf", 0)
        if not is_number(absent_cf) or not is_number(absent_jcf) or absent_jcf < 0:
            self.problems.append(Problem(self.at(key), "award_absent_malformed"))
            return None
        for value, minimum in ((absent_cf, -SCORE_MAX), (absent_jcf, 0)):
            if number_problem(value, minimum=minimum) is not None:
                params = bad_number(value, minimum=minimum)
                self.problems.append(Problem(self.at(key), "bad_number", params))
                return None
        if absent_cf > values["cf"] or absent_jcf > values["jcf"]:
            params = {
                "absent": f"{plain(absent_cf)}/{plain(absent_jcf)}",
                "present": f"{plain(values['cf'])}/{plain(values['jcf'])}",
            }
            self.problems.append(Problem(self.at(key), "award_absent_above", params))
            return None
        return Award(values["cf"], values["jcf"], absent_cf, absent_jcf, True)

    def tiebreaks(self, raw: Any) -> Tiebreaks | None:
        if isinstance(raw, str):
            if raw in TIEBREAK_PRESETS:
                return Tiebreaks(TIEBREAK_PRESETS[raw], raw)
            self.problems.append(
                Problem(
                    self.at("tiebreaks"),
                    "not_one_of",
                    {"value": raw, "options": tuple(TIEBREAK_PRESETS)},
                )
            )
            return None
        if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
            self.problems.append(Problem(self.at("tiebreaks"), "tiebreaks_malformed"))
            return None
        unknown = [k for k in raw if k not in CRITERION_KEYS and k != "cf"]
        if unknown:
            self.problems.append(
                Problem(self.at("tiebreaks"), "unknown_criterion", {"keys": unknown})
            )
        elif len(set(raw)) != len(raw):
            self.problems.append(Problem(self.at("tiebreaks"), "duplicate_criterion"))
        elif "cf" in raw and raw[0] != "cf":
            self.problems.append(Problem(self.at("tiebreaks"), "cf_not_first"))
        elif "lot" in raw and raw[-1] != "lot":
            self.problems.append(Problem(self.at("tiebreaks"), "lot_not_last"))
        elif all(k in raw for k in HEAD_TO_HEADS):
            self.problems.append(Problem(self.at("tiebreaks"), "two_head_to_heads"))
        else:
            return Tiebreaks(tuple(k for k in raw if k != "cf"), None)
        return None

    def extra_deal_from(self, raw: Any) -> str | int | None:
        if isinstance(raw, bool) or raw not in EXTRA_DEAL_FROM:
            self.problems.append(
                Problem(
                    self.at("extra_deal_from"),
                    "not_one_of",
                    {"value": raw, "options": ("current", 2)},
                )
            )
            return None
        return raw  # type: ignore[no-any-return]

    def lateness(self, raw: Any) -> Lateness | None:
        if raw in ("regulation", "forfeit"):
            return Lateness(raw)
        if isinstance(raw, dict) and set(raw) == {"loss_after"}:
            minutes = self.count("lateness", raw["loss_after"], 0, MAX_MINUTES)
            return None if minutes is None else Lateness("loss_after", loss_after=minutes)
        keys = {"per_minutes", "levels"}
        if isinstance(raw, dict) and keys <= set(raw) <= keys | {"forfeit_after"}:
            per = self.count("lateness", raw["per_minutes"], 1, MAX_MINUTES)
            levels = self.count("lateness", raw["levels"], 1, ACE - LOWEST)
            after = raw.get("forfeit_after")
            if after is not None:
                after = self.count("lateness", after, 0, MAX_MINUTES)
                if after is None:
                    return None
            if per is None or levels is None:
                return None
            return Lateness("per_minutes", per, levels, after)
        self.problems.append(Problem(self.at("lateness"), "lateness_malformed"))
        return None

    def escalation(self, raw: Any) -> Escalation | str | None:
        """The ladder, or ``regulation`` (§3's ladder: ``RuleSet.escalation`` None)."""
        if raw == "regulation":
            return "regulation"
        if not isinstance(raw, dict) or set(raw) != {"scope", "steps"}:
            self.problems.append(Problem(self.at("escalation"), "escalation_malformed"))
            return None
        scope, steps = raw["scope"], raw["steps"]
        if scope not in ESCALATION_SCOPES:
            self.problems.append(
                Problem(
                    self.at("escalation"),
                    "not_one_of",
                    {"value": scope, "options": ESCALATION_SCOPES},
                )
            )
            return None
        if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_ESCALATION_STEPS:
            self.problems.append(
                Problem(
                    self.at("escalation"), "escalation_steps_count", {"max": MAX_ESCALATION_STEPS}
                )
            )
            return None
        read: list[EscalationStep] = []
        for number, step in enumerate(steps, start=1):
            kind = step.get("kind") if isinstance(step, dict) else None
            if kind not in ESCALATION_STEPS or set(step) - {"kind", "levels"}:
                params = {"step": number, "value": kind, "options": ESCALATION_STEPS}
                self.problems.append(Problem(self.at("escalation"), "escalation_step_kind", params))
                return None
            levels = step.get("levels")
            if kind == "level_award":
                if not is_int(levels) or not 1 <= levels <= MAX_UPGRADE:
                    params = {"step": number, "max": MAX_UPGRADE}
                    self.problems.append(
                        Problem(self.at("escalation"), "escalation_step_levels", params)
                    )
                    return None
            elif "levels" in step:
                self.problems.append(
                    Problem(self.at("escalation"), "escalation_step_no_levels", {"step": number})
                )
                return None
            read.append(EscalationStep(kind, levels))
        return Escalation(scope, tuple(read))

    def labels(self, raw: Any) -> tuple[tuple[str, str], ...] | None:
        if not isinstance(raw, dict):
            self.problems.append(Problem(self.at("labels"), "labels_malformed"))
            return None
        unknown = [key for key in raw if key not in LABEL_KEYS]
        if unknown:
            self.problems.append(Problem(self.at("labels"), "unknown_criterion", {"keys": unknown}))
            return None
        for key, label in raw.items():
            if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
                self.problems.append(
                    Problem(self.at("labels"), "label_bad", {"key": key, "max": MAX_LABEL})
                )
                return None
        return tuple((key, label) for key, label in raw.items())


def read_upgrades(raw: Any, problems: list[Problem]) -> Upgrades | None:
    """The ``upgrades`` setting: 1…13 each, partner 2nd ≥ 3rd ≥ last."""
    keys = ("double", "partner_3rd", "partner_4th")
    if not isinstance(raw, dict) or set(raw) - set(keys):
        problems.append(Problem("upgrades", "upgrades_malformed", {"max": MAX_UPGRADE}))
        return None
    default = Upgrades()
    values = {key: raw.get(key, getattr(default, key)) for key in keys}
    if not all(is_int(v) and 1 <= v <= MAX_UPGRADE for v in values.values()):
        problems.append(Problem("upgrades", "upgrades_malformed", {"max": MAX_UPGRADE}))
        return None
    if not values["double"] >= values["partner_3rd"] >= values["partner_4th"]:
        problems.append(Problem("upgrades", "upgrades_order", values))
        return None
    return Upgrades(**values)


@dataclass(frozen=True, slots=True)
class Overrides:
    """What ``read_stage_settings`` found: the stage's settings and its problems."""

    settings: StageSettings | None
    problems: list[Problem] = field(default_factory=list)


def read_stage_settings(raw: Any, number: int, scale: Scale) -> Overrides:
    """Stage ``number``'s ``settings`` object: only ``STAGE_SETTING_KEYS``, each read as the
    event's own."""
    where = f"stages.{number}.settings"
    if not isinstance(raw, dict):
        return Overrides(None, [Problem(where, "not_an_object")])
    problems: list[Problem] = []
    for key in raw:
        if key not in STAGE_SETTING_KEYS:
            params = {"stage": number, "key": key, "options": STAGE_SETTING_KEYS}
            problems.append(Problem(where, "stage_unknown_setting", params))
    values = OverrideReader(raw, problems, f"{where}.", scale).read()
    items = tuple((key, values[key]) for key in raw if key in values)
    return Overrides(StageSettings(items), problems)
