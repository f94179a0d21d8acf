"""An event's stages (阶段) as validated, immutable values (RULES.md §8, TOURNAMENT_FILE.md
"Stages").

The ``stages`` setting is a list; each stage is ``swiss`` (a number of Swiss rounds),
``round_robin`` (groups, every entrant meets every other once) or ``knockout`` (single
elimination, best of 1/3/5). A stage may override the tournament's ``round_format``,
``deals_per_round`` and ``tie``, and has its own correction deadline (RULES.md §7,
``correction_minutes``). Its entrants are every registration (the first stage) or the
qualifiers of the previous stage: the top ``entrants`` of its ranking, or, after a round-robin
stage, the top ``qualify`` of each group; ``per_unit`` caps the entrants of one unit.

Only keys the file gave are kept (``None`` = not given), so ``to_dict`` writes back exactly what
was read; the effective values (defaults filled in) are the properties. ``parse_stages`` returns
the stages and the problems (``rules.errors.Problem``, setting ``stages.<k>``, every message
naming the stage) and never raises.

Pure: the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import Problem

STAGE_KINDS = ("swiss", "round_robin", "knockout")
GROUP_SEEDINGS = ("snake", "lot")  # RULES.md §8: snake seeding from the ranking, or by lot
BRACKET_SEEDINGS = ("bracket", "lot")  # standard bracket order, or a draw before every round
BEST_OF = (1, 3, 5)
MAX_STAGES = 10
MAX_STAGE_NUMBER = 100_000  # rounds, groups, entrants: far beyond any event, inside every column

# The keys each kind accepts, in the order ``to_dict`` writes them.
_COMMON = ("round_format", "deals_per_round", "tie", "correction_minutes")
_KEYS: dict[str, tuple[str, ...]] = {
    "swiss": ("kind", "rounds", "entrants", "per_unit", *_COMMON),
    "round_robin": ("kind", "groups", "qualify", "seeding", "entrants", "per_unit", *_COMMON),
    "knockout": (
        "kind",
        "entrants",
        "per_unit",
        "seeding",
        "best_of",
        "third_place",
        "until",
        "repechage",
        *_COMMON,
    ),
}


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage as the file gave it (``None``: not given; the properties give the effective
    value)."""

    kind: str
    rounds: int | None = None  # swiss
    groups: int | None = None  # round_robin: the number of groups
    qualify: int | None = None  # round_robin: the top q of each group go on
    entrants: int | None = None  # None: everyone (first stage) or every qualifier of the previous
    per_unit: int | None = None  # at most this many entrants of one unit
    seeding: str | None = None
    best_of: int | None = None
    third_place: bool | None = None
    until: int | None = None  # knockout: the stage stops when this many entrants remain
    # knockout: the round whose losers play the repechage (附加赛); False (no repechage) is read
    # and written back as given: files of the version that took a boolean and refused true.
    repechage: int | bool | None = None
    round_format: str | None = None
    deals_per_round: int | None = None
    tie: str | None = None
    correction_minutes: int | None = None

    @property
    def seeding_method(self) -> str:
        """``snake``/``lot`` (groups) or ``bracket``/``lot`` (knockout); Swiss: ``swiss``."""
        if self.seeding is not None:
            return self.seeding
        return {"round_robin": "snake", "knockout": "bracket"}.get(self.kind, "swiss")

    @property
    def games(self) -> int:
        """Best of how many games (1 outside a knockout)."""
        return self.best_of or 1

    @property
    def wins_needed(self) -> int:
        """Games a side must win to take the match (三局两胜: 2)."""
        return self.games // 2 + 1

    @property
    def plays_third_place(self) -> bool:
        return bool(self.third_place)

    def is_repechage_round(self, index: int) -> bool:
        """Whether the stage's round ``index`` (1-based within the stage) is its repechage."""
        after = self.repechage_after
        return after is not None and index == after + 1

    @property
    def repechage_after(self) -> int | None:
        """The round whose losers play the repechage; None without one."""
        return None if self.repechage is None or self.repechage is False else int(self.repechage)

    @property
    def remaining(self) -> int:
        """How many entrants are left when the stage stops: ``until``, else 1 (the final)."""
        return self.until or 1

    def to_dict(self) -> dict[str, Any]:
        """The file's stage object: the keys given, in a fixed order."""
        return {
            key: getattr(self, key)
            for key in _KEYS[self.kind]
            if key == "kind" or getattr(self, key) is not None
        }


def stage_keys(kind: str) -> tuple[str, ...]:
    """The keys a stage of ``kind`` accepts (none for an unknown kind)."""
    return _KEYS.get(kind, ())


def default_stage(rounds: int | None) -> Stage:
    """RULES.md §8: no ``stages`` setting is one Swiss stage of ``rounds`` rounds."""
    return Stage("swiss", rounds=rounds)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_stages(
    raw: Any, round_formats: tuple[str, ...], ties: tuple[str, ...]
) -> tuple[tuple[Stage, ...], list[Problem]]:
    """The ``stages`` setting checked: every problem found, each naming its stage (1-based)."""
    problems: list[Problem] = []
    if not isinstance(raw, list) or not raw or len(raw) > MAX_STAGES:
        return (), [Problem("stages", "stages_malformed", {"max": MAX_STAGES})]
    stages: list[Stage] = []
    for index, item in enumerate(raw):
        number = index + 1
        where = f"stages.{number}"
        if not isinstance(item, dict):
            problems.append(Problem(where, "stages_malformed", {"max": MAX_STAGES}))
            continue
        kind = item.get("kind")
        if kind not in STAGE_KINDS:
            params = {"stage": number, "key": "kind", "value": kind, "options": STAGE_KINDS}
            problems.append(Problem(where, "stage_bad_value", params))
            continue
        before = len(problems)
        for key in item:
            if key not in _KEYS[kind]:
                problems.append(Problem(where, "stage_unknown_key", {"stage": number, "key": key}))

        read = _Reader(item, number, problems)
        stage = Stage(
            kind,
            rounds=read.count("rounds", required=kind == "swiss"),
            groups=read.count("groups", required=kind == "round_robin"),
            qualify=read.count("qualify"),
            entrants=read.count("entrants", minimum=2),
            per_unit=read.count("per_unit"),
            seeding=read.option(
                "seeding", GROUP_SEEDINGS if kind == "round_robin" else BRACKET_SEEDINGS
            )
            if kind != "swiss"
            else None,
            best_of=read.option("best_of", BEST_OF) if kind == "knockout" else None,
            third_place=read.option("third_place", (True, False)) if kind == "knockout" else None,
            until=read.count("until", minimum=2) if kind == "knockout" else None,
            repechage=(False if item.get("repechage") is False else read.count("repechage"))
            if kind == "knockout"
            else None,
            round_format=read.option("round_format", round_formats),
            deals_per_round=read.count("deals_per_round"),
            tie=read.option("tie", ties),
            correction_minutes=read.count("correction_minutes", minimum=0),
        )
        if len(problems) == before:
            problems.extend(_stage_problems(stage, number, stages))
        stages.append(stage)
    if stages and stages[-1].until is not None:
        params = {"stage": len(stages), "until": stages[-1].until}
        problems.append(Problem(f"stages.{len(stages)}", "stage_until_last", params))
    return tuple(stages), problems


class _Reader:
    """Reads one stage object's values, adding a problem for each wrong one."""

    def __init__(self, item: dict[str, Any], number: int, problems: list[Problem]) -> None:
        self.item, self.number, self.problems = item, number, problems
        self.where = f"stages.{number}"

    def count(self, key: str, required: bool = False, minimum: int = 1) -> int | None:
        if key not in self.item:
            if required:
                params = {"stage": self.number, "key": key}
                self.problems.append(Problem(self.where, "stage_missing_key", params))
            return None
        value = self.item[key]
        if not _is_int(value) or not minimum <= value <= MAX_STAGE_NUMBER:
            params = {"stage": self.number, "key": key, "value": value, "min": minimum}
            params["max"] = MAX_STAGE_NUMBER
            self.problems.append(Problem(self.where, "stage_not_in_range", params))
            return None
        return int(value)

    def option(self, key: str, options: tuple[Any, ...]) -> Any:
        if key not in self.item:
            return None
        value = self.item[key]
        # True == 1: a boolean is an answer only where booleans are the options.
        if value not in options or isinstance(value, bool) != isinstance(options[0], bool):
            params = {"stage": self.number, "key": key, "value": value, "options": options}
            self.problems.append(Problem(self.where, "stage_bad_value", params))
            return None
        return value


def _stage_problems(stage: Stage, number: int, before: list[Stage]) -> list[Problem]:
    """The rules between a stage and the stages before it (RULES.md §8)."""
    where = f"stages.{number}"
    problems: list[Problem] = []
    if number == 1 and stage.entrants is not None:
        # The first stage's entrants are every registration.
        problems.append(Problem(where, "stage_first_entrants", {"stage": number}))
    if number > 1 and stage.kind == "swiss":
        # The Swiss engine pairs every active pair on the event's standings: the first stage.
        problems.append(Problem(where, "stage_swiss_not_first", {"stage": number}))
    if before and before[-1].kind == "knockout" and before[-1].until is None:
        # A knockout without ``until`` plays to its final: nothing is left for a next stage.
        problems.append(Problem(where, "stage_after_knockout", {"stage": number}))
    if stage.kind == "knockout" and stage.tie == "draw":
        # RULES.md §2/§8: a knockout game cannot be a draw; a level tie is broken by the extra deal.
        problems.append(Problem(where, "stage_knockout_draw", {"stage": number}))
    problems.extend(_until_problems(stage, number))
    previous = before[-1] if before else None
    if previous is not None and previous.kind == "round_robin" and previous.groups:
        qualifiers = previous.groups * (previous.qualify or 1)
        if previous.qualify is None:
            problems.append(
                Problem(where, "stage_missing_key", {"stage": number - 1, "key": "qualify"})
            )
        elif stage.entrants is not None and stage.entrants > qualifiers:
            params = {"stage": number, "entrants": stage.entrants, "qualifiers": qualifiers}
            problems.append(Problem(where, "stage_entrants_exceed_qualifiers", params))
    if previous is not None and previous.kind == "knockout" and previous.until is not None:
        if stage.entrants is not None and stage.entrants > previous.until:
            params = {"stage": number, "entrants": stage.entrants, "qualifiers": previous.until}
            problems.append(Problem(where, "stage_entrants_exceed_qualifiers", params))
    if stage.kind == "round_robin" and stage.groups and stage.entrants is not None:
        if stage.entrants < 2 * stage.groups:
            params = {"stage": number, "entrants": stage.entrants, "groups": stage.groups}
            problems.append(Problem(where, "stage_groups_too_small", params))
        elif stage.qualify is not None and stage.qualify >= stage.entrants // stage.groups:
            params = {
                "stage": number,
                "qualify": stage.qualify,
                "size": stage.entrants // stage.groups,
            }
            problems.append(Problem(where, "stage_qualify_too_many", params))
    count = known_entrants(stage, previous)
    if stage.kind == "knockout" and count is not None:
        found = knockout_field_problem(stage, number, count)
        if found is not None:
            problems.append(found)
    return problems


def _until_problems(stage: Stage, number: int) -> list[Problem]:
    """``until`` and ``repechage`` on their own (RULES.md §8; docs/stages.md "Knockout stages
    and the repechage")."""
    where = f"stages.{number}"
    problems: list[Problem] = []
    if stage.until is not None and stage.plays_third_place:
        # The stage stops before its semi-finals' losers could meet.
        problems.append(Problem(where, "stage_until_third_place", {"stage": number}))
    if (
        stage.until is not None
        and stage.repechage_after is None
        and stage.until & (stage.until - 1)
    ):
        # Without a repechage the field halves from a power of two (the byes of the first
        # round): it reaches ``until`` only if that is a power of two.
        problems.append(Problem(where, "stage_until_power_of_two", {"stage": number}))
    return problems


def known_entrants(stage: Stage, previous: Stage | None) -> int | None:
    """How many entrants ``stage`` will have when the settings alone say it (its ``entrants``,
    or what the previous stage passes on); None for the first stage (every registration) or
    after a Swiss stage without ``entrants``."""
    passed: int | None = None
    if previous is not None and previous.kind == "knockout":
        passed = previous.until
    elif previous is not None and previous.kind == "round_robin" and previous.groups:
        passed = previous.groups * (previous.qualify or 1)
    if stage.entrants is not None:
        return stage.entrants if passed is None else min(stage.entrants, passed)
    return passed


def knockout_field_problem(stage: Stage, number: int, entrants: int) -> Problem | None:
    """What makes a knockout of ``entrants`` impossible with this ``until`` and ``repechage``:
    too few entrants for ``until``, or a repechage that cannot bring the field to ``until``
    times a power of two (``repechage_plan``); None when it can be played. The settings check
    it when the entrants are known; the draw of the stage's first round always."""
    where = f"stages.{number}"
    if stage.until is not None and entrants <= stage.until:
        params = {"stage": number, "entrants": entrants, "until": stage.until}
        return Problem(where, "stage_until_too_many", params)
    if stage.repechage_after is None:
        return None
    plan = repechage_plan(entrants, stage.repechage_after, stage.remaining)
    return None if plan.possible else repechage_problem(plan, number, stage.remaining)


def repechage_problem(plan: RepechagePlan, number: int, until: int) -> Problem:
    """``stage_repechage_impossible`` for stage ``number``: the numbers that do not fit."""
    params = {
        "stage": number,
        "round": plan.round,
        "field": plan.field,
        "winners": plan.winners,
        "pool": plan.pool,
        "low": plan.winners + (plan.pool + 1) // 2,
        "high": plan.winners + plan.pool - 1,
        "until": until,
    }
    return Problem(f"stages.{number}", "stage_repechage_impossible", params)


def halving_fields(entrants: int, rounds: int) -> tuple[int, ...]:
    """The field of rounds 1 … ``rounds`` of a knockout that halves its field every round (a
    stage with a repechage): an odd field's odd entrant has a bye and goes on."""
    fields = [entrants]
    while len(fields) < rounds:
        fields.append((fields[-1] + 1) // 2)
    return tuple(fields)


@dataclass(frozen=True, slots=True)
class RepechagePlan:
    """The repechage (附加赛) after round ``round`` of a knockout (seed 001: "第三轮比赛胜者5对进入
    复赛，败者5对与轮空1对抽签进入附加赛，胜者3对进入复赛").

    Round ``round`` has ``field`` entrants: ``winners`` (= field // 2) go on and wait; its
    losers and its bye, the ``pool``, play the repechage in the next round, drawn by lot, and
    ``rejoin`` of them go on, so that ``target`` = ``winners`` + ``rejoin`` is ``until`` × 2^j.
    One round of ``matches`` meetings and ``byes`` byes does it: rejoin ≥ pool / 2."""

    round: int
    field: int
    winners: int
    pool: int
    target: int
    rejoin: int

    @property
    def possible(self) -> bool:
        return self.winners >= 1 and 1 <= self.matches <= self.pool // 2

    @property
    def matches(self) -> int:
        return self.pool - self.rejoin

    @property
    def byes(self) -> int:
        return 2 * self.rejoin - self.pool


def repechage_plan(entrants: int, round: int, until: int) -> RepechagePlan:
    """The repechage after ``round`` for a stage of ``entrants`` that stops at ``until``
    entrants (1: the final), its field halving every round (``halving_fields``)."""
    field = halving_fields(entrants, round)[-1]
    return repechage_for(round, field // 2, field - field // 2, until)


def repechage_for(round: int, winners: int, pool: int, until: int) -> RepechagePlan:
    """The repechage of ``pool`` entrants beside ``winners`` waiting: the smallest ``until`` ×
    2^j that one repechage round can reach (``possible`` False when none can)."""
    target = max(until, 1)
    while target < winners + (pool + 1) // 2:
        target *= 2
    return RepechagePlan(round, winners + pool, winners, pool, target, target - winners)
