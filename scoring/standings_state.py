"""The standings after one round, frozen (``StandingsState``), and how a round is added to it
(RULES.md §4; the chain of rounds is ``scoring.standings``).

- ``starting_state``: the standings after round 0 (deductions without a round only);
- ``add_round``: the state after the next round from the state before and the round's figures
  (``scoring.standings_input.RoundFigures``) and deductions: cumulative columns added whole,
  对手分, then the ranking (``scoring.ranking``);
- the column layout: ``StandingsState.columns()`` gives one tuple per ``StandingRow`` field
  (``STANDING_ROW_FIELDS``) in standings order, what the cache stores; ``rows()`` makes rows
  from them a block at a time (``ROW_BLOCK``).

Pure, no Django: the standard library and numpy (through ``scoring.ranking``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import add, eq, itemgetter, sub
from typing import Any

from scoring.criteria import (
    Deduction,
    StandingRow,
    StandingsError,
    StandingsUsageError,
    rounded_figure,
)
from scoring.ranking import MiniLeagueTable, RankColumn, Ranking, rank_with_order
from scoring.standings_input import RoundFigures, StandingsSetup


@dataclass(frozen=True, slots=True, eq=False)
class StandingsState:
    """The standings after round ``after_round``, frozen (RULES.md §4).

    Every column is by entrant index (see ``setup``). ``cf``/``jcf`` (before deductions)/
    ``deducted``/``wins``/``draws``/``losses``/``level_difference``/``upgrades``/``progressive``
    are the cumulative figures; ``opponents[r - 1]`` and ``round_cf[r - 1]`` are round r's
    opponent and CF columns (对手分 and head-to-head read them); ``unmet`` the entrants that have
    met nobody yet; ``previous`` the ranking after the round before (None after rounds 0 and 1;
    ``previous_rank`` gives its ranks by entrant); ``ranking`` orders the entrants. The
    ``shown_*`` columns and ``opponents_cf`` are the figures as compared. While ``exact``
    (every value so far a whole number) the CF and JCF figures are kept as ints, which are
    exact and small (Python shares the objects of small ints, so the columns stay compact at
    any size); ``columns()`` and ``rows()`` give them as the floats they are.
    """

    setup: StandingsSetup
    after_round: int
    exact: bool
    cf: tuple[float, ...]
    jcf: tuple[float, ...]
    deducted: tuple[float, ...]
    wins: tuple[int, ...]
    draws: tuple[int, ...]
    losses: tuple[int, ...]
    level_difference: tuple[int, ...]
    upgrades: tuple[int, ...]
    progressive: tuple[float, ...]
    opponents: tuple[Sequence[int], ...]
    round_cf: tuple[tuple[float, ...], ...]
    unmet: tuple[int, ...]
    previous: Ranking | None
    shown_cf: tuple[float, ...]
    shown_jcf: tuple[float, ...]
    shown_deducted: tuple[float, ...]
    shown_progressive: tuple[float, ...]
    opponents_cf: tuple[float, ...]
    ranking: Ranking

    @property
    def entrants(self) -> tuple[int, ...]:
        return self.setup.entrants

    @property
    def previous_rank(self) -> tuple[int | None, ...]:
        """By entrant: the rank after the round before (None for all after rounds 0 and 1)."""
        if self.previous is None:
            return (None,) * len(self.setup.entrants)
        return self.previous.ranks

    def rank_of(self, entrant: int) -> int:
        """The rank of one entrant (by id) in these standings."""
        return self.ranking.ranks[self.setup.index[entrant]]

    def columns(self, floats: bool = True) -> tuple[tuple[Any, ...], ...]:
        """One tuple per ``StandingRow`` field, in standings order: what a compact cache of the
        standings stores, without a row object per entrant. ``floats=False``: the CF/JCF
        figures of an exact state stay the ints they are (equal values), for a store that
        makes them doubles anyway (``scoring.cache.CompactStandings``)."""
        n = len(self.setup.entrants)
        if n == 0:
            return tuple(() for _ in STANDING_ROW_FIELDS)
        order = self.ranking.order
        pick: Callable[[Sequence[Any]], tuple[Any, ...]]
        pick = itemgetter(*order) if n > 1 else _pick_first
        # Picked first, then made floats: the floats are made in standings order and read in
        # it (made by entrant and picked in standings order they would lie all over memory).
        cf, jcf, opponents_cf, progressive, deducted = map(
            pick,
            (
                self.shown_cf,
                self.shown_jcf,
                self.opponents_cf,
                self.shown_progressive,
                self.shown_deducted,
            ),
        )
        if self.exact and floats:  # whole numbers kept as ints: the floats they stand for
            cf, jcf, progressive, deducted = (
                tuple(map(float, column)) for column in (cf, jcf, progressive, deducted)
            )
            opponents_cf = tuple(map(float, opponents_cf))
        if self.exact and floats and self.unmet:
            # 对手分 of a pair that met nobody: 0, as sum([]) (an int among the floats).
            unmet = set(self.unmet)
            opponents_cf = tuple(
                0 if i in unmet else value for i, value in zip(order, opponents_cf, strict=True)
            )
        ids = self.setup.entrants
        pairs: tuple[int, ...]
        if type(ids[0]) is int and all(map(eq, ids, range(ids[0], ids[0] + n))):
            # Consecutive ids: made in standings order (index + first id) rather than picked.
            pairs = tuple(map(add, order, repeat(ids[0], n)))
        else:
            pairs = pick(ids)
        return (
            tuple(range(1, n + 1)),
            pairs,
            cf,
            jcf,
            *map(pick, (self.wins, self.draws, self.losses, self.level_difference)),
            opponents_cf,
            pick(self.upgrades),
            progressive,
            deducted,
            pick(self.previous_rank),
            self.ranking.decided_by,
        )

    def rows(self) -> tuple[StandingRow, ...]:
        """The standings as rows, rank 1 first: ``columns()`` made into rows (``_make_rows``)."""
        return _make_rows(self.columns())


# The StandingRow fields in order (``StandingsState.columns()``).
STANDING_ROW_FIELDS = (
    "rank",
    "pair",
    "cf",
    "jcf",
    "wins",
    "draws",
    "losses",
    "level_difference",
    "opponents_cf",
    "upgrades",
    "progressive",
    "deductions",
    "previous_rank",
    "decided_by",
)


# How ``_make_rows`` fills a row's fields: the slots' own descriptors, in field order.
_ROW_SETTERS: tuple[Callable[[StandingRow, Any], None], ...] = tuple(
    getattr(StandingRow, name).__set__ for name in STANDING_ROW_FIELDS
)


def _make_rows(columns: Sequence[Sequence[Any]]) -> tuple[StandingRow, ...]:
    """Rows from ``StandingRow`` columns (``STANDING_ROW_FIELDS``), equal to
    ``map(StandingRow, *columns)``. ``StandingRow`` is frozen, so its ``__init__`` sets each of
    its 14 fields through ``object.__setattr__``, an interpreted call per field (~0.25 s for
    50,000 rows); here the empty objects are made at once and each field is set by its slot's
    descriptor for a whole column, with no Python frame per row or per field.

    A block of ``ROW_BLOCK`` rows at a time: each of the 14 columns visits every row of the
    block, and a block's rows (~0.5 MB) stay in the processor's cache for all 14 visits, where
    all 50,000 rows (~6.5 MB) would be read from memory 14 times (the cost per row then grew by
    ~1.5× from 10,000 to 50,000 rows)."""
    n = len(columns[0]) if columns else 0
    rows = list(map(object.__new__, repeat(StandingRow, n)))
    for start in range(0, n, ROW_BLOCK):
        end = start + ROW_BLOCK
        block = rows[start:end]
        for set_field, column in zip(_ROW_SETTERS, columns, strict=True):
            deque(map(set_field, block, column[start:end]), maxlen=0)
    return tuple(rows)


ROW_BLOCK = 4096


def _pick_first(column: Sequence[Any]) -> tuple[Any, ...]:
    return (column[0],)


def checked_deductions(
    setup: StandingsSetup, deductions: Iterable[Deduction], number: int | None
) -> list[tuple[int, float]]:
    """``(entrant index, jcf)`` of deductions that must all be of round ``number``."""
    checked: list[tuple[int, float]] = []
    for d in deductions:
        i = setup.index.get(d.pair) if d.pair is not None else None
        if i is None:
            raise StandingsError("unknown_pair", pair=d.pair, round=d.round)
        # RULES.md §3: a deduction subtracts from the JCF total, it never adds.
        if not d.jcf >= 0:
            raise StandingsError("bad_deduction", pair=d.pair, jcf=d.jcf)
        if d.round is not None and d.round < 1:
            raise StandingsError("bad_round", pair=d.pair, round=d.round)
        if d.round != number:
            raise StandingsUsageError("wrong_round", pair=d.pair, round=d.round, expected=number)
        checked.append((i, d.jcf))
    return checked


def starting_state(
    setup: StandingsSetup, deductions: Sequence[tuple[int, float]]
) -> StandingsState:
    n = len(setup.entrants)
    zeros: tuple[int, ...] = (0,) * n
    exact = all(not jcf % 1 for _, jcf in deductions)
    deducted: list[float] = [0] * n if exact else [0.0] * n
    for i, jcf in deductions:  # in the given order, as the sums are made in it
        deducted[i] += int(jcf) if exact else jcf
    empty = zeros if exact else (0.0,) * n
    return _ranked(
        setup,
        after_round=0,
        exact=exact,
        cf=empty,
        jcf=empty,
        deducted=tuple(deducted),
        wins=zeros,
        draws=zeros,
        losses=zeros,
        level_difference=zeros,
        upgrades=zeros,
        progressive=empty,
        opponents=(),
        round_cf=(),
        unmet=tuple(range(n)),
        previous=None,
    )


def add_round(
    state: StandingsState, figures: RoundFigures, deductions: Sequence[tuple[int, float]]
) -> StandingsState:
    """Add one round's figures and deductions to the cumulative columns, then rank."""
    number = figures.number
    n = len(state.setup.entrants)
    exact = state.exact and figures.exact and all(not jcf % 1 for _, jcf in deductions)
    cf, jcf, deducted, progressive = state.cf, state.jcf, state.deducted, state.progressive
    if state.exact and not exact:
        # The first fraction: the whole-number totals become the floats the same additions of
        # floats would have made (exact below 2**53), and floats are added from here on.
        cf, jcf, deducted, progressive = (
            tuple(map(float, column)) for column in (cf, jcf, deducted, progressive)
        )
    cf = tuple(map(add, cf, figures.cf))
    if deductions:
        added = list(deducted)
        for i, amount in deductions:
            added[i] += int(amount) if exact else amount
        deducted = tuple(added)
    return _ranked(
        state.setup,
        after_round=number,
        exact=exact,
        cf=cf,
        jcf=tuple(map(add, jcf, figures.jcf)),
        deducted=deducted,
        wins=tuple(map(add, state.wins, figures.wins)),
        draws=tuple(map(add, state.draws, figures.draws)),
        losses=tuple(map(add, state.losses, figures.losses)),
        level_difference=tuple(map(add, state.level_difference, figures.level_difference)),
        upgrades=tuple(map(add, state.upgrades, figures.upgrades)),
        # RULES.md §4 Jiangsu preset: (去首)累进分 = Σ over r = 2…N of the cumulative CF after r.
        progressive=tuple(map(add, progressive, cf)) if number >= 2 else progressive,
        opponents=(*state.opponents, figures.opponent),
        round_cf=(*state.round_cf, figures.cf),
        unmet=tuple(i for i in state.unmet if figures.opponent[i] == n),
        # RULES.md §4 regulation 7: the rank after the previous round; nobody has one after
        # round 1 (the standings after round 0 rank nobody by merit).
        previous=state.ranking if state.after_round >= 1 else None,
    )


def _ranked(
    setup: StandingsSetup,
    *,
    after_round: int,
    exact: bool,
    cf: tuple[float, ...],
    jcf: tuple[float, ...],
    deducted: tuple[float, ...],
    wins: tuple[int, ...],
    draws: tuple[int, ...],
    losses: tuple[int, ...],
    level_difference: tuple[int, ...],
    upgrades: tuple[int, ...],
    progressive: tuple[float, ...],
    opponents: tuple[Sequence[int], ...],
    round_cf: tuple[tuple[float, ...], ...],
    unmet: tuple[int, ...],
    previous: Ranking | None,
) -> StandingsState:
    """The state with these cumulative figures: the figures as compared, 对手分, the ranking.
    ``previous`` is the ranking after the round before (None after rounds 0 and 1)."""
    net_jcf = tuple(map(sub, jcf, deducted))
    if exact:
        shown_cf, shown_jcf, shown_progressive, shown_deducted = cf, net_jcf, progressive, deducted
    else:
        shown_cf, shown_jcf, shown_progressive, shown_deducted = (
            tuple(map(rounded_figure, column)) for column in (cf, net_jcf, progressive, deducted)
        )
    opponents_cf = _opponents_cf(shown_cf, opponents, exact)
    sources: dict[str, Sequence[float]] = {
        "cf": shown_cf,
        "jcf": shown_jcf,
        "wins": wins,
        "draws": draws,
        "level_difference": level_difference,
        "opponents_cf": opponents_cf,
        "progressive": shown_progressive,
        "upgrades": upgrades,
    }
    # The rank after the round before tells every entrant apart (it is a permutation), so when
    # it is the last criterion the drawing of lots after it never decides, and the entrants in
    # the order of that ranking are already sorted by it: the sort starts from there, and it
    # needs no field in the key (the widest one, log2(n) bits) nor its ranks (see ``Ranking``).
    by_previous = previous is not None and setup.criteria[-2:] == ("previous_rank", "lot")
    columns: list[RankColumn] = []
    for key in setup.criteria:
        if key in sources:
            columns.append(RankColumn(key, sources[key], higher_is_better=True))
        elif key == "previous_rank":  # lower is better; no previous rank ties everyone
            if by_previous:
                columns.append(
                    RankColumn(key, ())
                )  # the last column: not read (``rank_with_order``)
                break
            ranks = (0,) * len(cf) if previous is None else previous.ranks
            columns.append(RankColumn(key, ranks))
        elif key == "lot":
            columns.append(RankColumn(key, setup.lot_rank))
        else:
            columns.append(RankColumn(key, None))  # head_to_head
    mini_league = MiniLeagueTable(opponents, round_cf, exact).points
    last_order = previous.order if by_previous and previous is not None else setup.lot_order
    ranking = rank_with_order(columns, mini_league, last_order)
    return StandingsState(
        setup=setup,
        after_round=after_round,
        exact=exact,
        cf=cf,
        jcf=jcf,
        deducted=deducted,
        wins=wins,
        draws=draws,
        losses=losses,
        level_difference=level_difference,
        upgrades=upgrades,
        progressive=progressive,
        opponents=opponents,
        round_cf=round_cf,
        unmet=unmet,
        previous=previous,
        shown_cf=shown_cf,
        shown_jcf=shown_jcf,
        shown_deducted=shown_deducted,
        shown_progressive=shown_progressive,
        opponents_cf=opponents_cf,
        ranking=ranking,
    )


def _opponents_cf(
    cf: tuple[float, ...], opponents: tuple[Sequence[int], ...], exact: bool
) -> tuple[float, ...]:
    """RULES.md §4 对手分: the sum of the cumulative CF (as compared) of every opponent met.

    Whole numbers (ints, see ``StandingsState``): one look-up and one addition per round
    column, index n (no opponent) giving 0. Otherwise each pair's opponents are summed in round
    order with ``sum`` and rounded, exactly as before issue 18 (a 0 for "no opponent" changes
    no float sum)."""
    n = len(cf)
    if exact:
        cf_of = [*cf, 0].__getitem__
        total: tuple[float, ...] = (0,) * n
        for column in opponents:
            total = tuple(map(add, total, map(cf_of, column)))
        return total
    if not opponents:
        return (0,) * n
    of = [*cf, 0].__getitem__
    return tuple(map(rounded_figure, map(sum, zip(*[map(of, c) for c in opponents], strict=True))))
