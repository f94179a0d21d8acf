"""An event's stages (阶段) as validated, immutable values (RULES.md §8, TOURNAMENT_FILE.md
"Stages").

The ``stages`` setting is a list; each stage is ``swiss`` (a number of Swiss rounds),
``round_robin`` (groups, every entrant meets every other once) or ``knockout`` (single
elimination, best of 1/3/5). A stage may override the tournament's ``round_format``,
``deals_per_round`` and ``tie``, and has its own correction deadline (RULES.md §7,
``correction_minutes``). Its entrants are every registration (the first stage) or the
qualifiers of the previous stage: the top ``entrants`` of its ranking, or, after a round-robin
stage, the top ``qualify`` of each group; ``per_unit`` caps the entrants of one unit.

What each kind accepts, checks and can do is the stage-kind registry (``rules.kinds``: one
module a kind); this module is the stage as a value and the reading of the list. Only keys the
file gave are kept (``None`` = not given), so ``to_dict`` writes back exactly what was read; the
effective values (defaults filled in) are the properties. ``parse_stages`` returns the stages
and the problems (``rules.errors.Problem``, setting ``stages.<k>``, every message naming the
stage) and never raises.

Pure: the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import Problem
from .kinds import KINDS, STAGE_KINDS, StageKind
from .kinds.base import Reader

MAX_STAGES = 10


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage as the file gave it (``None``: not given; the properties give the effective
    value)."""

    kind: str  # the file's ``kind``; ``type`` is the kind itself (``rules.kinds``)
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
    def type(self) -> StageKind:
        """The stage's kind: its keys, checks, defaults and capabilities (``rules.kinds``)."""
        return KINDS[self.kind]

    @property
    def planned_rounds(self) -> int | None:
        """How many rounds the stage plays when its settings say it (a Swiss stage's
        ``rounds``; None: its results say when it is over)."""
        return self.type.planned_rounds(self)

    @property
    def seeding_method(self) -> str:
        """``snake``/``lot`` (groups) or ``bracket``/``lot`` (knockout); Swiss: ``swiss``."""
        return self.seeding if self.seeding is not None else self.type.default_seeding

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
            for key in self.type.keys
            if key == "kind" or getattr(self, key) is not None
        }


def stage_keys(kind: str) -> tuple[str, ...]:
    """The keys a stage of ``kind`` accepts (none for an unknown kind)."""
    return KINDS[kind].keys if kind in KINDS else ()


def default_stage(rounds: int | None) -> Stage:
    """RULES.md §8: no ``stages`` setting is one Swiss stage of ``rounds`` rounds."""
    return Stage("swiss", rounds=rounds)


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
        name = item.get("kind")
        kind = KINDS.get(name) if isinstance(name, str) else None
        if kind is None:
            params = {"stage": number, "key": "kind", "value": name, "options": STAGE_KINDS}
            problems.append(Problem(where, "stage_bad_value", params))
            continue
        before = len(problems)
        for key in item:
            if key not in kind.keys:
                problems.append(Problem(where, "stage_unknown_key", {"stage": number, "key": key}))
        read = Reader(item, number, problems, round_formats, ties)
        stage = Stage(kind.name, **{key: field(read) for key, field in kind.fields.items()})
        if len(problems) == before:
            problems.extend(_stage_problems(stage, number, stages))
        stages.append(stage)
    if stages:
        problems.extend(stages[-1].type.last_problems(stages[-1], len(stages)))
    return tuple(stages), problems


def _stage_problems(stage: Stage, number: int, before: list[Stage]) -> list[Problem]:
    """The rules between a stage and the stages before it (RULES.md §8): the kinds' checks
    (``rules.kinds``)."""
    problems: list[Problem] = []
    if number == 1 and stage.entrants is not None:
        # The first stage's entrants are every registration.
        where = f"stages.{number}"
        problems.append(Problem(where, "stage_first_entrants", {"stage": number}))
    if number > 1:
        problems.extend(stage.type.later_problems(stage, number))
    previous = before[-1] if before else None
    if previous is not None:
        problems.extend(previous.type.follower_problems(previous, stage, number))
    problems.extend(stage.type.settings_problems(stage, number))
    count = known_entrants(stage, previous)
    problems.extend(stage.type.field_problems(stage, number, count))
    return problems


def known_entrants(stage: Stage, previous: Stage | None) -> int | None:
    """How many entrants ``stage`` will have when the settings alone say it (its ``entrants``,
    or what the previous stage passes on: ``StageKind.passes_on``); None for the first stage
    (every registration) or after a stage that does not say (a Swiss stage without
    ``entrants``)."""
    passed = previous.type.passes_on(previous) if previous is not None else None
    if stage.entrants is not None:
        return stage.entrants if passed is None else min(stage.entrants, passed)
    return passed
