"""The ranking alone: any entrants ranked by ordered criteria columns in one sort (numpy), ties
split by the next criterion without recursion, head-to-head and mini-leagues only inside tie groups
(RULES.md §4). Pure (no Django); pairs, teams and groups all rank through ``rank_entrants``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from scoring.criteria import StandingsUsageError, rounded_figure

HEAD_TO_HEAD = "head_to_head"
# RULES.md §9: head-to-head only when exactly two are tied; a tie of three or more skips it.
HEAD_TO_HEAD_TWO = "head_to_head_two"

# Head-to-head as the ranking sees it: the mini-league points (higher is better) of every member of
# a tie group, or None when it does not apply to that group (some members did not meet).
MiniLeague = Callable[[Sequence[int]], Mapping[int, float] | None]


class RankColumn(NamedTuple):
    """One criterion as the ranking sees it: its key, one value per entrant (numbers, or any
    values that hash and order consistently) and which way is better. ``values`` is None for
    head-to-head, which is a relation between entrants rather than a number of each."""

    key: str
    values: Sequence[float] | None
    higher_is_better: bool = False


@dataclass(frozen=True, slots=True)
class Ranking:
    """A total order of entrants 0…n-1: ``order`` best first, ``decided_by[k]`` the criterion that
    put ``order[k]`` below ``order[k - 1]`` (None for the first), ``ranks[i]`` entrant i's rank.

    ``ranks`` is worked out from ``order`` the first time it is asked for: the standings after
    every earlier round are ranked for the ``previous_rank`` chain, but only the last two
    rounds' ranks are ever read (a loop over every entrant, ~10 ms a round at 50,000)."""

    order: tuple[int, ...]
    decided_by: tuple[str | None, ...]
    _ranks: tuple[int, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def ranks(self) -> tuple[int, ...]:
        ranks = self._ranks
        if ranks is None:
            by_entrant = [0] * len(self.order)
            for position, i in enumerate(self.order, start=1):
                by_entrant[i] = position
            ranks = tuple(by_entrant)
            object.__setattr__(self, "_ranks", ranks)  # computed once; equal if raced
        return ranks


def rank_entrants(columns: Sequence[RankColumn], mini_league: MiniLeague | None = None) -> Ranking:
    """Rank entrants 0…n-1 by ordered criteria (RULES.md §4).

    ``columns`` are the criteria in order. The one head-to-head column (values None: key
    ``head_to_head``, or ``head_to_head_two``, applied only to a tie group of exactly two) needs
    ``mini_league``: it receives a tie group (entrants equal on every column before it) and
    returns each member's mini-league points, or None when head-to-head does not apply to that
    group. The last column must tell every entrant apart (the drawing of lots); otherwise
    ``StandingsUsageError("no_total_order")``. Nothing here knows what an entrant is: pair, team and
    group standings share it.

    How: every column becomes one array of machine numbers (negated where higher is better),
    and one stable sort in C (a radix sort of the columns packed into machine words, the first
    column most significant: ``_sorted``) orders everyone; the criterion that separates two
    neighbours is the first column whose sorted array differs between them (one whole-array
    comparison per column, no comparison row by row in Python). Head-to-head then works only
    inside the tie groups that reach it (``_head_to_head``).
    """
    return rank_with_order(columns, mini_league, None)


def rank_with_order(
    columns: Sequence[RankColumn],
    mini_league: MiniLeague | None,
    last_order: Sequence[int] | None,
) -> Ranking:
    """``rank_entrants``; ``last_order``, when given, is every entrant sorted by the last column
    (which must then tell them all apart): the drawing of lots, the same every round, kept by
    ``StandingsSetup``, or the ranking after the round before when ``previous_rank`` is the last
    column. The last column then stays out of the sort (its values are not read): a stable sort
    from that order leaves entrants equal on every other column in it, and then it decided."""
    numeric = [c for c in columns if c.values is not None]
    h2h_at = next((k for k, c in enumerate(columns) if c.values is None), None)
    if (
        not numeric
        or len(numeric) + 1 < len(columns)
        or (h2h_at is not None and (h2h_at == len(columns) - 1 or mini_league is None))
    ):
        raise StandingsUsageError("bad_columns", criteria=tuple(c.key for c in columns))
    values = [c.values for c in numeric if c.values is not None]
    if last_order is not None:
        values[-1] = last_order  # what stands for the last column
    n = len(values[0])
    if any(len(column) != n for column in values):
        raise StandingsUsageError("bad_columns", criteria=tuple(c.key for c in columns))
    if n == 0:
        return Ranking((), ())
    if n == 1:
        return Ranking((0,), (None,))

    # Every column as one array of machine numbers, smaller better, sorted together by one
    # stable sort in C (``_sorted``: the first column most significant); without a
    # ``last_order`` the entrants start in index order, and equal rows mean no total order.
    keyed = values if last_order is None else values[:-1]
    arrays = [
        _smaller_first(v, c.higher_is_better, n)
        for v, c in zip(keyed, numeric[: len(keyed)], strict=True)
    ]
    start = np.arange(n) if last_order is None else np.asarray(last_order, dtype=np.intp)
    order = _sorted(arrays, start)
    # decided[p]: the first column on which rows p and p + 1 differ (each column marks its
    # differences, the later ones first, so the first one's marks stay), the last column (it
    # stands behind ``last_order``) where none of the others does.
    unseparated = _TIED if last_order is None else len(numeric) - 1
    decided = np.full(n - 1, unseparated, dtype=np.intp)
    for k in range(len(arrays) - 1, -1, -1):
        ranked = arrays[k][order]
        decided[ranked[1:] != ranked[:-1]] = k
    if last_order is None and bool((decided == _TIED).any()):
        raise StandingsUsageError("no_total_order", criterion=numeric[-1].key)

    order_list: list[int] = order.tolist()
    decided_list: list[int] = decided.tolist()
    names = [c.key for c in numeric]
    if h2h_at is not None:
        assert mini_league is not None
        # A byte per neighbour position p (rows p and p+1): 1 when they are equal on every
        # column before head-to-head. The tie groups are the runs of 1s, found by the regular
        # expression engine rather than by a loop over every position.
        tied = (decided >= h2h_at).astype(np.uint8).tobytes()
        runs = [match.span() for match in _TIE_RUNS.finditer(tied)]
        if runs:

            def first_difference(above: int, below: int) -> int:
                """The first column (after head-to-head: the rows are tied before it) on which
                two members of a tie group differ."""
                for k in range(h2h_at, len(keyed)):
                    if keyed[k][above] != keyed[k][below]:
                        return k
                return unseparated

            if columns[h2h_at].key == HEAD_TO_HEAD_TWO:
                runs = [(first, last) for first, last in runs if last - first == 1]
            _head_to_head(order_list, decided_list, runs, first_difference, len(names), mini_league)
        # decided == len(names) before the append: head-to-head (either kind)
        names.append(columns[h2h_at].key)
    decided_by: tuple[str | None, ...] = (None, *map(names.__getitem__, decided_list))
    return Ranking(tuple(order_list), decided_by)


_TIED = -1
_TIE_RUNS = re.compile(b"\x01+")
# Whole numbers within this bound, and floats within 2**53, are compared as machine numbers
# exactly; a column with anything else is compared by its values' places (``_places``).
_MACHINE_INT = 1 << 62
_EXACT_FLOAT = float(1 << 53)


def _sorted(
    arrays: Sequence[NDArray[np.int64] | NDArray[np.float64]], start: NDArray[np.intp]
) -> NDArray[np.intp]:
    """``start`` stably sorted by the columns ``arrays`` (the first most significant, smaller
    first), in time linear in the number of entrants.

    Whole-number columns (all of them, unless some figure has a fraction) are shifted to start
    at 0 and packed side by side into 64-bit words, the last column in the lowest bits, and the
    words sorted by ``radix_order``: ``lexsort``, a comparison sort per column, grew ×6.2 from
    10,000 to 50,000 entrants, this ×3.6. A column whose values are all equal orders nobody
    and takes no bits. Floats go to ``lexsort``."""
    if any(a.dtype.kind != "i" for a in arrays):
        return start[np.lexsort([a[start] for a in reversed(arrays)])]
    words: list[tuple[NDArray[np.uint64], int]] = []
    for array in reversed(arrays):  # least significant first
        low = array.min()
        bits = int(array.max() - low).bit_length()  # < 63: |values| < 2**62
        if not bits:
            continue
        shifted = (array - low).astype(np.uint64)
        if words and words[-1][1] + bits <= 64:
            word, used = words[-1]
            words[-1] = (word | (shifted << np.uint64(used)), used + bits)
        else:
            words.append((shifted, bits))
    return radix_order(words, start)


def radix_order(
    words: Sequence[tuple[NDArray[np.uint64], int]], start: NDArray[np.intp]
) -> NDArray[np.intp]:
    """``start`` (indices) stably sorted by unsigned 64-bit keys given as ``(word, bits)``, the
    least significant word first, ``word[i]`` entry i's key of which only the low ``bits``
    count. Sorted 16 bits at a time, least significant first, each by numpy's stable sort of
    16-bit numbers, which is a radix sort: a pass over the entries per 16 bits and none of a
    comparison sort's n·log n."""
    order = start
    mask = np.uint64(0xFFFF)
    for word, bits in words:
        for shift in range(0, bits, 16):
            digit = ((word >> np.uint64(shift)) & mask).astype(np.uint16)
            order = order[np.argsort(digit[order], kind="stable")]
    return order


def _smaller_first(
    values: Sequence[float], higher_is_better: bool, n: int
) -> NDArray[np.int64] | NDArray[np.float64]:
    """A column as an array whose order is the criterion's (smaller first): the values
    themselves, negated when higher is better; equal values (2 and 2.0) stay equal."""
    array = np.asarray(values)
    if array.dtype.kind == "b":
        array = array.astype(np.int64)
    kind = array.dtype.kind
    exact = (kind == "i" and -_MACHINE_INT < array.min() and array.max() < _MACHINE_INT) or (
        kind == "f" and float(np.abs(array).max()) < _EXACT_FLOAT
    )
    if array.shape != (n,) or not exact:
        return np.asarray(_places(values, higher_is_better), dtype=np.int64)
    return np.negative(array) if higher_is_better else array


def _places(values: Sequence[float], higher_is_better: bool) -> list[int]:
    """Each value's place among the column's distinct values (0 = best), for a column numpy
    cannot compare as machine numbers (whole numbers beyond 2**62, any other kind of value
    that orders consistently). Equal values (2 and 2.0 too) get equal places."""
    ordered = sorted(set(values), reverse=higher_is_better)
    place = {value: k for k, value in enumerate(ordered)}
    return list(map(place.__getitem__, values))


def _head_to_head(
    order: list[int],
    decided: list[int],
    runs: list[tuple[int, int]],
    first_difference: Callable[[int, int], int],
    h2h_mark: int,
    mini_league: MiniLeague,
) -> None:
    """Apply head-to-head inside every tie group that reaches it, in place.

    ``runs`` are the tie groups as runs of neighbour positions ``(first, end)``: rows p and
    p + 1 are equal on every column before head-to-head for every p from ``first`` to
    ``end - 1``, so the group is ``order[first : end + 1]``, already ordered by the columns after
    head-to-head. A group that head-to-head separates is re-ordered by (mini-league key, current
    position); its first row keeps the boundary it had (the row above differs on an earlier
    column whichever member comes first), the rows inside get head-to-head (``h2h_mark``) or the
    first later column that differs (``first_difference``).
    """
    for first, last in runs:  # the group is order[first : last + 1]
        members = order[first : last + 1]
        h2h = _mini_league_keys(members, mini_league)
        if h2h is None:
            continue
        position = {i: p for p, i in enumerate(members)}
        members.sort(key=lambda i: (h2h[i], position[i]))
        order[first : last + 1] = members
        for p in range(first, last):
            above, below = order[p], order[p + 1]
            if h2h[above] != h2h[below]:
                decided[p] = h2h_mark
            else:
                decided[p] = first_difference(above, below)


def _mini_league_keys(
    group: Sequence[int], mini_league: MiniLeague
) -> dict[int, tuple[float, ...]] | None:
    """Head-to-head's sort key for every member of a tie group (smaller is better), or None when
    it separates nobody. A sub-group level on points is itself a tie group, so head-to-head is
    applied again inside it (a work list, not recursion); each application that separates adds
    one element (minus the points) to its members' keys."""
    keys: dict[int, tuple[float, ...]] = dict.fromkeys(group, ())
    separated = False
    work: list[Sequence[int]] = [group]
    while work:
        members = work.pop()
        points = mini_league(members)
        if points is None:
            continue
        levels = set(map(points.__getitem__, members))
        if len(levels) == 1:
            continue
        separated = True
        for i in members:
            keys[i] = (*keys[i], -points[i])
        for level in levels:
            part = [i for i in members if points[i] == level]
            if len(part) > 1:
                work.append(part)
    return keys if separated else None


class MiniLeagueTable:
    """RULES.md §4 head-to-head for pairs: the CF each member of a tie group earned against the
    others, when every member met every other (for two pairs: they met)."""

    __slots__ = ("exact", "opponents", "round_cf")

    def __init__(
        self,
        opponents: tuple[Sequence[int], ...],
        round_cf: tuple[tuple[float, ...], ...],
        exact: bool,
    ) -> None:
        self.opponents = opponents
        self.round_cf = round_cf
        self.exact = exact

    def points(self, group: Sequence[int]) -> dict[int, float] | None:
        need = len(group) - 1
        if need > len(self.opponents):  # one opponent a round: cannot have met them all
            return None
        members = set(group)
        points: dict[int, float] = {}
        for i in group:
            met: set[int] = set()
            total = 0.0
            for opponent, cf in zip(self.opponents, self.round_cf, strict=True):
                j = opponent[i]
                if j in members:  # a meeting in the group (index n, no opponent, never is)
                    met.add(j)
                    total += cf[i]
            if len(met) != need:
                return None
            points[i] = total if self.exact else rounded_figure(total)
        return points
