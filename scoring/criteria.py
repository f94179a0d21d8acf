"""The standings' vocabulary (RULES.md §4): a match's outcome for one entrant, a deduction, the
tiebreak criteria with their direction, a standings row, the drawing of lots, and the errors.

Pure (no Django); ``scoring.standings`` re-exports every public name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

from rules.errors import GuandanError
from rules.ruleset import TIEBREAK_PRESETS

KINDS = frozenset({"played", "forfeit", "bye"})
RESULTS = frozenset({"win", "draw", "loss"})

# Totals are rounded to this many decimals before they are compared or shown, so that fractional
# match points (e.g. 0.5) cannot make two equal totals differ by a rounding error.
_DECIMALS = 9


class StandingsError(GuandanError, ValueError):
    """Bad input to the standings. ``code`` is stable; ``params`` name what was wrong."""


class StandingsUsageError(ValueError):
    """A caller broke the contract of ``advance`` or ``rank_entrants`` (``wrong_round``,
    ``bad_columns``, ``no_total_order``): a bug in the calling code, never something a user can
    fix, so not a ``GuandanError`` (rules/errors.py, STYLE.md "Errors"). ``code`` says which."""

    def __init__(self, code: str, /, **params: object) -> None:
        self.code = code
        self.params = params
        detail = ", ".join(f"{key}={value!r}" for key, value in params.items())
        super().__init__(code + (f" ({detail})" if detail else ""))


class Outcome(NamedTuple):
    """One pair's view of one round (a played match, a forfeit either way, or a bye).

    A NamedTuple (immutable) because the engine builds two per match for every refresh."""

    round: int
    pair: int
    opponent: int | None  # None for a bye
    kind: str  # "played" | "forfeit" | "bye"
    result: str  # "win" | "draw" | "loss"
    cf: float  # 场分 earned this round
    jcf: float  # 级差分 earned this round
    level_difference: int  # signed 级差 from this pair's view; 0 for byes and forfeits
    upgrades: int  # 升级数: levels climbed in this match; 0 for byes and forfeits


@dataclass(frozen=True, slots=True)
class Deduction:
    """级差分扣分 (RULES.md §3): ``jcf`` (≥ 0) comes off the pair's tournament total of JCF.

    ``round`` None means it counts in every standings, including those after round 0.
    """

    round: int | None
    pair: int
    jcf: float


@dataclass(frozen=True, slots=True)
class Criterion:
    """One tiebreak criterion: a key and which way is better (its labels, for pages and
    documents, are ``tournaments.wording.CRITERIA``, keyed by the same keys).

    ``attribute`` names the ``StandingRow`` field that shows its value (None for the two
    head-to-heads and ``lot``, which are relations rather than numbers on the row).
    """

    key: str
    higher_is_better: bool
    attribute: str | None


CRITERIA: dict[str, Criterion] = {
    c.key: c
    for c in (
        Criterion("cf", True, "cf"),  # 场分
        Criterion("jcf", True, "jcf"),  # 级差分
        Criterion("head_to_head", True, None),  # 相互间胜负
        Criterion("wins", True, "wins"),  # 胜场数
        Criterion("draws", True, "draws"),  # 平场数
        Criterion("level_difference", True, "level_difference"),  # 总级差
        Criterion("opponents_cf", True, "opponents_cf"),  # 对手分
        # Lower is better: rank 1 is the best rank.
        Criterion("previous_rank", False, "previous_rank"),  # 上轮名次
        Criterion("progressive", True, "progressive"),  # (去首)累进分
        Criterion("upgrades", True, "upgrades"),  # 升级数
        # 相互间胜负, only when exactly two are tied (RULES.md §9: "3 队及以上…则比较…").
        Criterion("head_to_head_two", True, None),
        Criterion("lot", False, None),  # 抽签
    )
}
# TOURNAMENT_FILE.md "Criterion keys": cf is implied first and lot is implied last. One source
# for the presets: the settings (rules.ruleset) and the ranking must never disagree.
PRESETS: dict[str, tuple[str, ...]] = TIEBREAK_PRESETS


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One pair's line in the standings after a round. ``jcf`` is after deductions;
    ``deductions`` is the JCF taken off (≥ 0). ``decided_by`` is the criterion key that put this
    row below the row above (None for rank 1)."""

    rank: int
    pair: int
    cf: float
    jcf: float
    wins: int
    draws: int
    losses: int
    level_difference: int
    opponents_cf: float
    upgrades: int
    progressive: float
    deductions: float
    previous_rank: int | None
    decided_by: str | None


def resolve_criteria(criteria: str | Sequence[str]) -> tuple[str, ...]:
    """The full ordered list of criterion keys: ``cf`` first, the given ones, ``lot`` last.

    ``criteria`` is a preset name or a sequence of keys; an explicit leading ``cf`` and trailing
    ``lot`` are accepted. Raises ``StandingsError`` for an unknown preset or key, a repeated key,
    ``cf`` anywhere but first, ``lot`` anywhere but last (TOURNAMENT_FILE.md), or both kinds of
    head-to-head (RULES.md §9).
    """
    if isinstance(criteria, str):
        if criteria not in PRESETS:
            raise StandingsError("unknown_preset", preset=criteria)
        criteria = PRESETS[criteria]
    keys = list(criteria)
    for key in keys:
        if key not in CRITERIA:
            raise StandingsError("unknown_criterion", criterion=key)
    if len(set(keys)) != len(keys):
        raise StandingsError("repeated_criterion", criteria=tuple(keys))
    if "cf" in keys[1:]:
        raise StandingsError("cf_not_first", criteria=tuple(keys))
    if "lot" in keys[:-1]:
        raise StandingsError("lot_not_last", criteria=tuple(keys))
    if "head_to_head" in keys and "head_to_head_two" in keys:
        # RULES.md §9: two kinds of head-to-head, one of them in a list.
        raise StandingsError("two_head_to_heads", criteria=tuple(keys))
    if not keys or keys[0] != "cf":
        keys.insert(0, "cf")
    if keys[-1] != "lot":
        keys.append("lot")
    return tuple(keys)


def lot_number(seed: int, pair: int) -> int:
    """The number the pair draws in the drawing of lots (lower ranks first).

    A 64-bit BLAKE2b digest of ``"seed:pair"``: reproducible from the recorded seed, and the same
    whatever the input order or the other pairs (RULES.md §4: a seeded, recorded random order).
    """
    digest = hashlib.blake2b(f"{seed}:{pair}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def lot_numbers(seed: int, pairs: Sequence[int]) -> list[int]:
    """``lot_number(seed, pair)`` of every pair, in order: the same digests, the hash of the
    shared ``"seed:"`` prefix made once and copied for each pair."""
    prefix = hashlib.blake2b(f"{seed}:".encode(), digest_size=8)
    numbers: list[int] = []
    append, from_bytes = numbers.append, int.from_bytes
    for pair in pairs:
        digest = prefix.copy()
        digest.update(f"{pair}".encode())
        append(from_bytes(digest.digest(), "big"))
    return numbers


def rounded_figure(value: float) -> float:
    return round(value, _DECIMALS)


round_of = attrgetter("round")
_pair_of = attrgetter("pair")
