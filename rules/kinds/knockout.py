"""The knockout stage (淘汰赛, RULES.md §8): single elimination, best of 1/3/5 games a match,
seeded in bracket order or by lot; an optional third-place match; ``until`` stops it when that
many entrants remain (初赛/复赛), and ``repechage`` plays a 附加赛 after its round ``r`` (docs/
stages.md "Knockout stages and the repechage"). The repechage plan (``repechage_plan``) is here
too: it is what the settings check and what the draw (``pairing.knockout``) follows.

Pure: the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules.errors import Problem

from .base import (
    COMMON_FIELDS,
    ENTRANT_FIELDS,
    Reader,
    StageKind,
    count,
    exceed_problem,
    gettext_noop,
    option,
)

if TYPE_CHECKING:
    from rules.stages import Stage

BRACKET_SEEDINGS = ("bracket", "lot")  # standard bracket order, or a draw before every round
BEST_OF = (1, 3, 5)


def _repechage(read: Reader) -> int | bool | None:
    # ``false`` (files of the version that took a boolean and refused true) is read as given.
    return False if read.item.get("repechage") is False else read.count("repechage")


class Knockout(StageKind):
    name = "knockout"
    label = gettext_noop("淘汰赛")
    fields = {
        **ENTRANT_FIELDS,
        "seeding": option("seeding", BRACKET_SEEDINGS),
        "best_of": option("best_of", BEST_OF),
        "third_place": option("third_place", (True, False)),
        "until": count("until", minimum=2),
        "repechage": _repechage,
        **COMMON_FIELDS,
    }
    seedings = BRACKET_SEEDINGS
    default_seeding = "bracket"
    # RULES.md §2/§8: a knockout game is never drawn; a level tie is broken by the extra deal.
    default_tie = "extra_deal"
    has_bracket = True
    series = True
    gives_points = False

    def passes_on(self, stage: Stage) -> int | None:
        return stage.until

    def follower_problems(self, stage: Stage, follower: Stage, number: int) -> list[Problem]:
        if stage.until is None:
            # A knockout without ``until`` plays to its final: nothing is left for a next stage.
            return [Problem(f"stages.{number}", "stage_after_knockout", {"stage": number})]
        return exceed_problem(follower, number, stage.until)

    def settings_problems(self, stage: Stage, number: int) -> list[Problem]:
        where = f"stages.{number}"
        problems: list[Problem] = []
        if stage.tie == "draw":
            # RULES.md §2/§8: a knockout game cannot be a draw.
            problems.append(Problem(where, "stage_knockout_draw", {"stage": number}))
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

    def field_problems(self, stage: Stage, number: int, entrants: int | None) -> list[Problem]:
        found = None if entrants is None else knockout_field_problem(stage, number, entrants)
        return [] if found is None else [found]

    def last_problems(self, stage: Stage, number: int) -> list[Problem]:
        if stage.until is None:
            return []
        params = {"stage": number, "until": stage.until}
        return [Problem(f"stages.{number}", "stage_until_last", params)]


KNOCKOUT = Knockout()


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
    params: dict[str, Any] = {
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
