"""The 级差分 scale (RULES.md §2): a table JC → (ahead, behind) the organizer can view and edit,
the 26:0 and 28 presets, and the check of a custom table; and the small value helpers the
settings share.

Pure: the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import Any

from .errors import Problem
from .limits import SCORE_MAX, number_problem


def is_number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def bad_number(value: Any, row: int | None = None, minimum: int = -SCORE_MAX) -> dict[str, Any]:
    """The parameters of ``bad_number`` (``rules.limits.number_problem`` refused ``value``)."""
    params: dict[str, Any] = {"value": repr(value)[:40], "min": minimum, "max": SCORE_MAX}
    if row is not None:
        params["row"] = row
    return params


def plain(number: float) -> float | int:
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
        return {"table": [[jc, plain(a), plain(b)] for jc, a, b in self.rows]}


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
        ok = isinstance(row, list | tuple) and len(row) == 3 and is_int(row[0])
        if not ok or not all(is_number(x) for x in row[1:]):
            problems.append(Problem("scale", "scale_row_malformed", {"row": index + 1}))
            continue
        rows.append((row[0], row[1], row[2]))
        for value in row[1:]:
            if number_problem(value) is not None:
                problems.append(Problem("scale", "bad_number", bad_number(value, index + 1)))
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
