"""What the standings are built from (RULES.md §4; the engine is ``scoring.standings``).

- ``StandingsSetup``: what stays fixed for an event's standings — the entrants (an entrant is
  its index in the sorted ids), the criteria, the seed and the drawing of lots it gives.
- ``RoundFigures``: one round's outcomes checked and made columns by entrant index
  (``round_figures``; ``flat_figures`` from the outcomes' fields already flattened).
- ``streamed`` / ``in_round_order``: every outcome read once, a block at a time, and handed
  over a round at a time (``OutOfOrder`` when the rounds are not in order).

Pure, no Django: the standard library and numpy (whole-array arithmetic on the ids).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, groupby, islice, repeat
from operator import eq, is_, itemgetter, le
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from scoring.criteria import (
    KINDS,
    RESULTS,
    Outcome,
    StandingsError,
    lot_numbers,
    resolve_criteria,
    round_of,
)
from scoring.ranking import radix_order


@dataclass(frozen=True, slots=True, eq=False)
class StandingsSetup:
    """What stays fixed for an event's standings: the entrants (sorted ids; entrant *i* is
    ``entrants[i]``), the full criteria, the seed and the drawing of lots it gives."""

    entrants: tuple[int, ...]
    index: Mapping[int | None, int]  # id → entrant index; None (no opponent) → n
    criteria: tuple[str, ...]
    seed: int
    lot_rank: tuple[int, ...]  # by entrant index: place in the drawing of lots, 0 first
    lot_order: tuple[int, ...]  # entrant indices in the order of the drawing of lots

    @property
    def contiguous(self) -> bool:
        """Ids a run of consecutive whole numbers (entrant index = id - first id); a quick test,
        ``_positions`` checks every index it computes."""
        ids = self.entrants
        return not ids or (type(ids[0]) is int and ids[-1] - ids[0] == len(ids) - 1)


def standings_setup(
    entrants: Iterable[int], criteria: str | Sequence[str], seed: int
) -> StandingsSetup:
    """Check the entrants and criteria once (``repeated_pair``, the criteria errors)."""
    ids = tuple(sorted(entrants))
    if len(set(ids)) != len(ids):
        raise StandingsError("repeated_pair")
    resolved = resolve_criteria(criteria)
    # Lot numbers, then the index (= id order) for a collision (the sort is stable): a total
    # order.
    # (Lot numbers are 64 bits: a radix sort, linear where a comparison sort is n·log n.)
    n = len(ids)
    numbers = np.array(lot_numbers(seed, ids), dtype=np.uint64)
    lot_order = radix_order([(numbers, 64)], np.arange(n))
    lot_rank = np.empty(n, dtype=np.intp)
    lot_rank[lot_order] = np.arange(n)
    index: dict[int | None, int] = dict(zip(ids, range(n), strict=True))
    index[None] = n
    return StandingsSetup(
        ids, index, resolved, seed, tuple(lot_rank.tolist()), tuple(lot_order.tolist())
    )


@dataclass(frozen=True, slots=True, eq=False)
class RoundFigures:
    """One round's outcomes as columns by entrant index (0 where an entrant has no outcome);
    ``opponent[i]`` is the opponent's index, or n (no entrant) for a bye or no outcome. When
    ``exact`` (every CF and JCF a whole number) ``cf`` and ``jcf`` hold ints."""

    number: int
    cf: tuple[float, ...]
    jcf: tuple[float, ...]
    wins: tuple[int, ...]
    draws: tuple[int, ...]
    losses: tuple[int, ...]
    level_difference: tuple[int, ...]
    upgrades: tuple[int, ...]
    opponent: Sequence[int]  # machine ints (array "i"), see round_figures
    exact: bool


def round_figures(setup: StandingsSetup, number: int, outcomes: Sequence[Outcome]) -> RoundFigures:
    """One round's outcomes (all of round ``number``, at most one per entrant) checked and
    turned into columns by entrant index. Whole-list operations throughout; the first bad
    outcome is then named by ``_reject``."""
    return flat_figures(setup, number, _flattened(outcomes))


_WIDTH = len(Outcome._fields)


def _flattened(outcomes: Sequence[Outcome]) -> list[Any]:
    """The outcomes' fields in one flat list, ``_WIDTH`` entries an outcome, in the order
    given: one visit to each outcome (``zip(*outcomes)`` would visit each once per field)."""
    flat: list[Any] = list(chain.from_iterable(outcomes))
    if len(flat) != _WIDTH * len(outcomes):
        raise TypeError("outcomes must be Outcome tuples")
    return flat


def flat_figures(setup: StandingsSetup, number: int, flat: list[Any]) -> RoundFigures:
    """``round_figures`` of the outcomes whose fields are ``flat`` (``_WIDTH`` entries an
    outcome, in order): a column is every ninth entry. Neither the outcomes nor their fields
    are sorted or visited again: each column is gathered into entrant order by position
    (``place`` below). Sorting the outcomes by pair first, as before, was n·log n and, worse,
    read the outcomes out of memory order (at 50,000 pairs a round is 50,000 objects out of the
    processor's cache): ~1.4× the cost per outcome at 50,000 pairs than at 10,000."""
    n = len(setup.entrants)
    width = _WIDTH
    m = len(flat) // width
    if not m:
        return no_outcomes(n, number)
    _, pairs, opponents, kinds, results, cf, jcf, ld, up = (flat[k::width] for k in range(width))
    is_bye = list(map(is_, opponents, repeat(None, m)))
    # place[i]: the position of entrant i's outcome, m (the value appended to every column
    # below: 0) when it has none. The opponent column is written by position (``_positions``)
    # into machine ints: its values are entrant indices, one int object each, and a tuple of
    # them in entrant order would point all over memory (they were made in the order of the
    # outcomes); every later round's 对手分 and head-to-head read this column, and reading
    # 50,000 scattered objects costs several times more per entry than reading 10,000 (they no
    # longer fit the processor's cache).
    try:
        mine, theirs, place, opponent = _positions(setup, pairs, opponents, is_bye)
    except (KeyError, TypeError, IndexError):
        _reject(flat, setup.index)
    if (
        not number >= 1
        or not set(kinds) <= KINDS
        or not set(results) <= RESULTS
        or n - int(np.count_nonzero(place == m)) != m  # each pair at most once
        # a bye has no opponent and nothing else lacks one; nobody meets itself
        or list(map(eq, kinds, repeat("bye", m))) != is_bye
        or bool((mine == theirs).any())
    ):
        _reject(flat, setup.index)
    types = set(map(type, cf))
    types.update(map(type, jcf))
    if types <= {int}:  # whole numbers as ints (see StandingsState), as the engine gives them
        exact = True
    else:
        whole_cf, whole_jcf = list(map(int, cf)), list(map(int, jcf))
        exact = whole_cf == cf and whole_jcf == jcf
        if exact:
            cf, jcf = whole_cf, whole_jcf
    # Each column in entrant order: entry i is the column's value at place[i], the value at
    # position m (appended) for an entrant without an outcome. One gather in C per column,
    # reading only the column's own list (its values are small ints, shared objects, or the
    # floats of an inexact round). The result is gathered, not the three counts made from it:
    # a gather reads its column in a random order, which at 50,000 entrants costs more per
    # entry than at 10,000 (the column is no longer in the processor's nearest cache).
    gather: Callable[[Sequence[Any]], tuple[Any, ...]]
    gather = itemgetter(*place.tolist()) if n > 1 else (lambda column: (column[place[0]],))
    columns: list[list[Any]] = [cf, jcf, results, ld, up]
    for column in columns:
        column.append(0)
    cf_, jcf_, results_, ld_, up_ = map(gather, columns)
    # Booleans (True adds 1): the cumulative counts start from int 0, so they stay ints.
    wins_, draws_, losses_ = (
        tuple(map(eq, results_, repeat(result, n))) for result in ("win", "draw", "loss")
    )
    return RoundFigures(number, cf_, jcf_, wins_, draws_, losses_, ld_, up_, opponent, exact)


def _index_column(value: int, n: int) -> array[int]:
    """A column of n entrant indices (or positions), all ``value``: machine ints in one block
    of memory, not n pointers to int objects (see ``RoundFigures``)."""
    return array("i", (value,)) * n


def _positions(
    setup: StandingsSetup, pairs: list[Any], opponents: list[Any], is_bye: list[bool]
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], array[int]]:
    """The entrant indices of ``pairs`` (mine) and ``opponents`` (theirs; n for None), and two
    columns by entrant: ``place`` (entrant i's position in ``pairs``, m for none; a pair given
    twice fills fewer than m places) and ``opponent`` (its opponent's index, n for none).
    KeyError or IndexError for an unknown id. ``opponents`` is changed.

    For consecutive ids (the usual pair numbers 1…n) the ids become one array of machine ints
    each and an index is a subtraction over the whole array, with neither a look-up in a large
    dictionary nor an int object per index (at 50,000 entrants both cost several times more per
    entry than at 10,000: the dictionary and the new objects no longer fit the processor's
    cache, and fresh objects are fresh memory the system must hand over). Ids that are not all
    ints (a float id, which the dictionary takes for the int it equals) or not all known go the
    dictionary's way."""
    n = len(setup.entrants)
    m = len(pairs)
    mine: NDArray[np.intp] | None = None
    if setup.contiguous and n:
        first = setup.entrants[0]
        byes, k = is_bye.count(True), -1
        for _ in range(byes):  # no opponent: index n, the id after the last
            k = is_bye.index(True, k + 1)
            opponents[k] = first + n
        try:
            ours, others = np.array(pairs), np.array(opponents)
        except (TypeError, ValueError):  # e.g. ids that are lists: the dictionary refuses them
            ours = others = np.array(())
        if ours.dtype.kind == "i" and others.dtype.kind == "i":  # (a huge int: "O")
            ours, others = (ours - first).astype(np.intp), (others - first).astype(np.intp)
            # n only for a bye: the id after the last is no opponent otherwise.
            if (
                ours.min() >= 0
                and ours.max() < n
                and others.min() >= 0
                and others.max() <= n
                and int(np.count_nonzero(others == n)) == byes
            ):
                mine, theirs = ours, others
        if mine is None:
            for k in range(m):
                if is_bye[k]:
                    opponents[k] = None
    if mine is None:
        index = setup.index.__getitem__
        mine = np.array(list(map(index, pairs)), dtype=np.intp)
        theirs = np.array(list(map(index, opponents)), dtype=np.intp)
    place = np.full(n, m, dtype=np.intp)
    place[mine] = np.arange(m)  # n (None as a pair) is out of range: IndexError
    by_entrant = np.full(n, n, dtype=np.int32)
    by_entrant[mine] = theirs
    opponent = array("i")
    opponent.frombytes(by_entrant.tobytes())
    return mine, theirs, place, opponent


def no_outcomes(n: int, number: int) -> RoundFigures:
    zeros: tuple[int, ...] = (0,) * n
    return RoundFigures(
        number, zeros, zeros, zeros, zeros, zeros, zeros, zeros, _index_column(n, n), True
    )


class OutOfOrder(Exception):
    """The outcomes are not in round order (``streamed``)."""


def streamed(listed: list[Outcome]) -> Iterator[tuple[int, list[Any]]]:
    """Each round's outcomes as one flat list (the ``_WIDTH`` fields of each outcome in turn,
    in the order given), yielded as soon as the round is complete: ``OutOfOrder`` when a
    round follows a later one.

    Each outcome is read once, here, a block of ``OUTCOME_BLOCK`` outcomes at a time: the block's
    fields are copied into one flat list, which stays in the processor's cache while its
    rounds are found and its slices copied to their round. The outcomes of a large event do
    not fit the cache (50,000 pairs × 9 rounds: ~50 MB of tuples), so a second pass over them,
    as when the rounds were read first and each round's outcomes then copied, read them all
    from memory again, where at 10,000 pairs the second pass found them in the cache."""
    width = _WIDTH
    number: int | None = None  # the round being read, and its outcomes so far
    flat_round: list[Any] = []
    for start in range(0, len(listed), OUTCOME_BLOCK):
        flat = _flattened(listed[start : start + OUTCOME_BLOCK])
        rounds: list[int] = flat[0::width]
        if (number is not None and rounds[0] < number) or not all(
            map(le, rounds, islice(rounds, 1, None))
        ):
            raise OutOfOrder
        first = 0
        while first < len(rounds):
            end = bisect_right(rounds, rounds[first], first)
            if rounds[first] != number:
                if number is not None:
                    yield number, flat_round
                number, flat_round = rounds[first], []
            flat_round += flat[first * width : end * width]
            first = end
    if number is not None:
        yield number, flat_round


OUTCOME_BLOCK = 4096  # outcomes: a flat list of ~300 KB


def in_round_order(listed: list[Outcome]) -> Iterator[tuple[int, list[Any]]]:
    """``streamed`` for outcomes in any order: a stable sort of their positions by round."""
    rounds = list(map(round_of, listed))
    order = sorted(range(len(rounds)), key=rounds.__getitem__)
    for number, positions in groupby(order, key=rounds.__getitem__):
        yield number, _flattened(list(map(listed.__getitem__, positions)))


def _reject(flat: list[Any], index: Mapping[int | None, int]) -> NoReturn:
    """Raise the precise error for the first bad outcome of a round that failed the checks
    (``flat``: their fields, as ``flat_figures`` takes them)."""
    seen: set[int] = set()
    for o in map(Outcome._make, (flat[k : k + _WIDTH] for k in range(0, len(flat), _WIDTH))):
        if o.pair not in index or o.pair is None:
            raise StandingsError("unknown_pair", pair=o.pair, round=o.round)
        if o.kind not in KINDS:
            raise StandingsError("bad_kind", pair=o.pair, round=o.round, kind=o.kind)
        if o.result not in RESULTS:
            raise StandingsError("bad_result", pair=o.pair, round=o.round, result=o.result)
        if not o.round >= 1:
            raise StandingsError("bad_round", pair=o.pair, round=o.round)
        if o.opponent is not None and o.opponent != o.pair and o.opponent not in index:
            raise StandingsError("unknown_pair", pair=o.opponent, round=o.round)
        if (o.kind == "bye") != (o.opponent is None) or o.opponent == o.pair:
            raise StandingsError("bad_opponent", pair=o.pair, round=o.round, opponent=o.opponent)
        if o.pair in seen:
            raise StandingsError("repeated_outcome", pair=o.pair, round=o.round)
        seen.add(o.pair)
    raise AssertionError("a round failed a check that no outcome fails")
