"""scoring.standings' issue-18 API: ``rank_entrants`` (the ranking alone, for any entrants) and
the frozen ``StandingsState`` that ``advance`` carries from one round to the next, so that a
confirmation in the round in progress re-ranks without re-reading the earlier rounds."""

from __future__ import annotations

import dataclasses
import pickle
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import standings_input, standings_state
from scoring.standings import (
    HEAD_TO_HEAD,
    STANDING_ROW_FIELDS,
    Deduction,
    Outcome,
    RankColumn,
    StandingRow,
    StandingsError,
    StandingsUsageError,
    advance,
    compute_standings,
    initial_state,
    rank_entrants,
    round_figures,
    standings_setup,
    state_after,
)


def match(number: int, winner: int, loser: int, jc: int = 1) -> list[Outcome]:
    return [
        Outcome(number, winner, loser, "played", "win", 2, 13 + jc, jc, 0),
        Outcome(number, loser, winner, "played", "loss", 0, 13 - jc, -jc, 0),
    ]


LOT = RankColumn("lot", (3, 2, 1, 0))

# -- rank_entrants: the ranking alone ---------------------------------------------------------


def test_rank_entrants_orders_by_the_columns_in_turn_and_says_which_decided():
    # Entrants are indices only (teams or a group's pairs alike). Higher points first, then
    # fewer penalties, then the lot.
    points = RankColumn("points", (4, 6, 4, 4), higher_is_better=True)
    penalties = RankColumn("penalties", (1, 0, 0, 1))
    ranking = rank_entrants([points, penalties, LOT])
    assert ranking.order == (1, 2, 3, 0)
    assert ranking.decided_by == (None, "points", "penalties", "lot")
    assert ranking.ranks == (4, 1, 2, 3)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_rank_entrants_sorts_whole_numbers_of_any_width_as_a_plain_sort_does(data):
    # The columns are packed into 64-bit words and radix-sorted 16 bits at a time: columns
    # from 1 to 62 bits wide, negative values, constant columns and more than one word must
    # all give the order (and the deciding column) of Python's sort of the rows.
    n = data.draw(st.integers(2, 30), label="n")
    columns, keys = [], []
    for k in range(data.draw(st.integers(1, 5), label="columns")):
        bits = data.draw(st.sampled_from([0, 1, 4, 15, 16, 17, 31, 40, 61]), label="bits")
        pool = data.draw(st.lists(st.integers(-(2**bits), 2**bits), min_size=1, max_size=4))
        values = data.draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        higher = data.draw(st.booleans())
        columns.append(RankColumn(f"c{k}", tuple(values), higher_is_better=higher))
        keys.append([-v if higher else v for v in values])
    lot = data.draw(st.permutations(range(n)))
    columns.append(RankColumn("lot", tuple(lot)))
    keys.append(lot)
    rows = list(zip(*keys, strict=True))
    expected = sorted(range(n), key=rows.__getitem__)
    ranking = rank_entrants(columns)
    assert ranking.order == tuple(expected)
    for (above, below), decided in zip(pairwise(expected), ranking.decided_by[1:], strict=True):
        first = next(k for k in range(len(keys)) if rows[above][k] != rows[below][k])
        assert decided == columns[first].key


def test_rank_entrants_treats_equal_numbers_of_either_type_as_equal():
    # 2 and 2.0 (and -0.0 and 0.0) are the same figure: the lot decides.
    ranking = rank_entrants([RankColumn("cf", (2, 2.0, -0.0, 0.0), True), LOT])
    assert ranking.order == (1, 0, 3, 2)
    assert ranking.decided_by == (None, "lot", "cf", "lot")


def test_rank_entrants_places_fractions_and_wide_ranges_exactly():
    values = (0.1 + 0.2, 0.3, 10**12, -(10**12))
    ranking = rank_entrants([RankColumn("x", values, True), LOT])
    assert ranking.order == (2, 0, 1, 3)  # 0.1 + 0.2 > 0.3 in binary floating point


def test_rank_entrants_compares_numbers_beyond_machine_precision_exactly():
    # Whole numbers past 2**62 and floats from 2**53 are not compared as machine numbers: a
    # float64 would make 2**53 + 1 equal to 2**53, an int64 cannot hold 10**30.
    ranking = rank_entrants(
        [RankColumn("x", (2**53 + 1, float(2**53)), True), RankColumn("lot", (1, 0))]
    )
    assert ranking.order == (0, 1)
    assert ranking.decided_by == (None, "x")
    ranking = rank_entrants([RankColumn("x", (10**30, 10**30 + 1, 5, -(2**63))), LOT])
    assert ranking.order == (3, 2, 0, 1)


def test_rank_entrants_head_to_head_only_inside_tie_groups_and_again_inside_sub_groups():
    # Entrants 0-3 tied on points; 4 alone. The mini-league puts 3 first and leaves 0, 1, 2
    # level on 2, where it is applied again (1 beat 0 and 2 among themselves).
    calls: list[tuple[int, ...]] = []

    def mini_league(group):
        calls.append(tuple(sorted(group)))
        if len(group) == 4:
            return {0: 2, 1: 2, 2: 2, 3: 6}
        return {0: 0, 1: 4, 2: 0}  # 0 and 2: level again, then they did not meet

    points = RankColumn("points", (5, 5, 5, 5, 9), higher_is_better=True)
    ranking = rank_entrants(
        [points, RankColumn(HEAD_TO_HEAD, None), RankColumn("lot", (0, 1, 2, 3, 4))],
        mini_league,
    )
    assert ranking.order == (4, 3, 1, 0, 2)
    assert ranking.decided_by == (None, "points", HEAD_TO_HEAD, HEAD_TO_HEAD, "lot")
    assert calls[0] == (0, 1, 2, 3)  # never the single entrant 4
    assert set(calls[1:]) == {(0, 1, 2), (0, 2)}


def test_rank_entrants_head_to_head_that_does_not_apply_leaves_the_group_to_the_next_column():
    ranking = rank_entrants(
        [
            RankColumn("points", (1, 1, 1, 1)),
            RankColumn(HEAD_TO_HEAD, None),
            RankColumn("wins", (0, 1, 0, 1), True),
            LOT,
        ],
        lambda group: None,
    )
    assert ranking.order == (3, 1, 2, 0)
    assert ranking.decided_by == (None, "lot", "wins", "lot")


@pytest.mark.parametrize(
    ("columns", "mini_league"),
    [
        ([], None),
        ([RankColumn(HEAD_TO_HEAD, None), LOT], None),  # head-to-head without a mini-league
        ([LOT, RankColumn(HEAD_TO_HEAD, None)], lambda g: None),  # head-to-head last
        (
            [RankColumn(HEAD_TO_HEAD, None), RankColumn("h2", None), LOT],
            lambda g: None,
        ),
        ([RankColumn("x", (1, 2)), LOT], None),  # columns of different lengths
    ],
)
def test_rank_entrants_rejects_bad_columns(columns, mini_league):
    with pytest.raises(StandingsUsageError) as error:
        rank_entrants(columns, mini_league)
    assert error.value.code == "bad_columns"


def test_rank_entrants_needs_a_last_column_that_separates_everyone():
    with pytest.raises(StandingsUsageError) as error:
        rank_entrants([RankColumn("points", (1, 2, 2))])
    assert error.value.code == "no_total_order"


def test_rank_entrants_of_no_one_and_of_one():
    assert rank_entrants([RankColumn("lot", ())]).order == ()
    assert rank_entrants([RankColumn("lot", (7,))]).decided_by == (None,)


# -- StandingsState and advance ----------------------------------------------------------------

PAIRS = [11, 12, 13, 14, 15]


def _rounds() -> list[Outcome]:
    outcomes = [*match(1, 11, 12, 3), *match(1, 13, 14, 1)]
    outcomes.append(Outcome(1, 15, None, "bye", "win", 2, 17, 0, 0))
    outcomes += [*match(2, 13, 11, 2), *match(2, 15, 12, 1)]
    outcomes.append(Outcome(2, 14, None, "bye", "win", 2, 17, 0, 0))
    return outcomes


def test_outcomes_out_of_round_order_give_the_same_standings():
    # Outcomes usually come round by round and are cut at the rounds' boundaries; in any other
    # order they are put in round order first (each round's outcomes keep their order).
    outcomes = _rounds()
    given = compute_standings(PAIRS, outcomes, [], "regulation", 5, 2)
    assert compute_standings(PAIRS, outcomes[::-1], [], "regulation", 5, 2) == given
    assert compute_standings(PAIRS, iter(outcomes[3:] + outcomes[:3]), [], "regulation", 5, 2) == (
        given
    )


@pytest.mark.parametrize("block", [1, 2, 3, 4, 5])
def test_outcomes_read_a_block_at_a_time_give_the_same_standings(monkeypatch, block):
    # The outcomes are read a block at a time; a round that spans blocks is one round, and a
    # block whose first round is before the round the block before ended with is out of order
    # (each block alone in order: 3 starts the second block of the rotation's first cut).
    outcomes = _rounds()
    given = compute_standings(PAIRS, outcomes, [], "regulation", 5, 2)
    monkeypatch.setattr(standings_input, "OUTCOME_BLOCK", block)
    assert compute_standings(PAIRS, outcomes, [], "regulation", 5, 2) == given
    rotated = outcomes[5:] + outcomes[:5]  # round 2, then round 1
    assert compute_standings(PAIRS, rotated, [], "regulation", 5, 2) == given


def test_every_outcome_is_checked_before_a_bad_deduction_is_reported():
    # The rounds are made one after the other, but the errors are those of checking all of
    # them first: a bad outcome in a later round wins over a bad deduction in an earlier one,
    # and an outcome after the last round asked for is checked too.
    outcomes = [*_rounds(), Outcome(3, 99, 11, "played", "win", 2, 14, 1, 0)]
    bad = [Deduction(1, 11, -1)]
    with pytest.raises(StandingsError) as error:
        compute_standings(PAIRS, outcomes, bad, "regulation", 5, 2)
    assert (error.value.code, error.value.params["pair"]) == ("unknown_pair", 99)
    with pytest.raises(StandingsError) as error:
        compute_standings(PAIRS, _rounds(), bad, "regulation", 5, 1)
    assert error.value.code == "bad_deduction"


@pytest.mark.parametrize("block", [1, 13, 4096])
def test_the_first_error_is_that_of_the_rounds_in_order_whatever_the_order_given(
    monkeypatch, block
):
    # Rounds are read as they come; when a round turns up after a later one and some outcome
    # is bad, the error is still the first one of round 1 (then 2, ...), not the first met.
    monkeypatch.setattr(standings_input, "OUTCOME_BLOCK", block)
    late = Outcome(1, 99, 11, "played", "win", 2, 14, 1, 0)
    early = Outcome(2, 98, 12, "played", "win", 2, 14, 1, 0)
    outcomes = [*_rounds(), early, *match(3, 11, 12), late]  # round 2 is read before `late`
    with pytest.raises(StandingsError) as error:
        compute_standings(PAIRS, outcomes, [], "regulation", 5, 2)
    assert (error.value.code, error.value.params["pair"]) == ("unknown_pair", 99)


def test_advance_with_a_round_in_progress_equals_the_standings_from_every_outcome():
    outcomes = _rounds()
    setup = standings_setup(PAIRS, "regulation", 5)
    frozen = state_after(setup, [o for o in outcomes if o.round == 1], [], 1)
    round_2 = [o for o in outcomes if o.round == 2][:2]  # one table confirmed, one playing
    in_progress = advance(frozen, round_2)
    want = compute_standings(PAIRS, [*outcomes[:5], *round_2], [], "regulation", 5, 2)
    assert in_progress.rows() == want
    assert in_progress.after_round == 2


def test_advance_leaves_the_frozen_state_as_it_was():
    outcomes = _rounds()
    setup = standings_setup(PAIRS, "regulation", 5)
    frozen = state_after(setup, outcomes, [], 1)
    before = frozen.rows()
    first = advance(frozen, [o for o in outcomes if o.round == 2][:2])
    second = advance(frozen, [o for o in outcomes if o.round == 2])
    assert frozen.rows() == before
    assert first.rows() != second.rows()
    assert second.rows() == compute_standings(PAIRS, outcomes, [], "regulation", 5, 2)


def test_advance_takes_only_outcomes_and_deductions_of_the_next_round():
    setup = standings_setup(PAIRS, (), 0)
    state = initial_state(setup)
    for outcomes, deductions in [
        (match(2, 11, 12), []),  # round 2 after round 0
        (match(1, 11, 12), [Deduction(2, 11, 1)]),
        (match(1, 11, 12), [Deduction(None, 11, 1)]),  # no round: a new cold start
    ]:
        with pytest.raises(StandingsUsageError) as error:  # a bug of the caller, not the user's
            advance(state, outcomes, deductions)
        assert error.value.code == "wrong_round"


def test_advance_checks_outcomes_like_compute_standings():
    state = initial_state(standings_setup(PAIRS, (), 0))
    with pytest.raises(StandingsError) as error:
        advance(state, match(1, 11, 99))
    assert error.value.code == "unknown_pair"


def test_initial_state_applies_deductions_without_a_round():
    state = initial_state(standings_setup(PAIRS, (), 0), [Deduction(None, 12, 2)])
    row = next(row for row in state.rows() if row.pair == 12)
    assert (row.jcf, row.deductions) == (-2, 2)
    with pytest.raises(StandingsUsageError) as error:
        initial_state(standings_setup(PAIRS, (), 0), [Deduction(1, 12, 2)])
    assert error.value.code == "wrong_round"


def test_columns_are_the_rows_by_field_and_rank_of_finds_an_entrant():
    outcomes = _rounds()
    state = state_after(standings_setup(PAIRS, "jiangsu2017", 3), outcomes, [], 2)
    rows = state.rows()
    assert STANDING_ROW_FIELDS == tuple(f.name for f in dataclasses.fields(StandingRow))
    columns = state.columns()
    assert [StandingRow(*values) for values in zip(*columns, strict=True)] == list(rows)
    assert all(state.rank_of(row.pair) == row.rank for row in rows)


def test_a_state_survives_pickling_and_advances_the_same():
    # A service may keep the frozen state in a cache shared by its processes.
    outcomes = _rounds()
    setup = standings_setup(PAIRS, "regulation", 9)
    frozen = state_after(setup, outcomes, [], 1)
    copy = pickle.loads(pickle.dumps(frozen))  # noqa: S301 (our own bytes)
    round_2 = [o for o in outcomes if o.round == 2]
    assert advance(copy, round_2).rows() == advance(frozen, round_2).rows()


# -- round_figures and rows: the columns by entrant, whatever the order of the input ----------


def test_round_figures_are_by_entrant_whatever_the_order_of_the_outcomes():
    # Outcomes are gathered into entrant order by position, not sorted (issue 18): any order,
    # gaps in the ids, and entrants without an outcome yet (0, and no opponent: index n).
    ids = (3, 7, 8, 20, 21, 40)
    setup = standings_setup(ids, (), 0)
    outcomes = [
        *match(1, 21, 3, 2),
        Outcome(1, 40, None, "bye", "win", 2, 17, 0, 0),
        Outcome(1, 7, 8, "forfeit", "loss", 0, 0, 0, 0),
    ]

    def figures(outcomes: list[Outcome]) -> list[object]:
        got = round_figures(setup, 1, outcomes)
        return [list(getattr(got, f.name)) for f in dataclasses.fields(got)[1:-1]]

    want = figures(sorted(outcomes, key=lambda o: o.pair))
    for order in ([2, 0, 3, 1], [3, 2, 1, 0], [1, 3, 0, 2]):
        assert figures([outcomes[k] for k in order]) == want
    cf, jcf, wins, _, losses, level_difference, _, opponent = want
    n = len(ids)
    assert opponent == [4, 2, n, n, 0, n]  # 3 met 21, 7 (forfeited) 8; 8 and 20 no outcome yet
    assert cf == [0, 0, 0, 0, 2, 2]
    assert jcf == [11, 0, 0, 0, 15, 17]
    assert (wins, losses) == ([0, 0, 0, 0, 1, 1], [1, 1, 0, 0, 0, 0])
    assert level_difference == [-2, 0, 0, 0, 2, 0]


def test_round_figures_refuse_an_entrant_given_twice_in_any_order():
    setup = standings_setup(PAIRS, (), 0)
    twice = [*match(1, 11, 12), Outcome(1, 11, None, "bye", "win", 2, 17, 0, 0)]
    for outcomes in (twice, twice[::-1]):
        with pytest.raises(StandingsError) as error:
            round_figures(setup, 1, outcomes)
        assert error.value.code == "repeated_outcome"


def test_rows_made_a_block_at_a_time_are_the_rows_of_the_columns(monkeypatch):
    outcomes = _rounds()
    state = state_after(standings_setup(PAIRS, "regulation", 4), outcomes, [], 2)
    columns = state.columns()
    want = [StandingRow(*values) for values in zip(*columns, strict=True)]
    for block in (1, 2, 3, len(PAIRS), 4096):  # blocks that split the rows, and one that does not
        monkeypatch.setattr(standings_state, "ROW_BLOCK", block)
        assert list(state.rows()) == want


def test_columns_without_floats_are_the_same_figures_kept_as_ints():
    # For a store that makes the figures doubles anyway (scoring.cache.CompactStandings).
    state = state_after(standings_setup(PAIRS, "regulation", 4), _rounds(), [], 2)
    assert state.exact
    as_floats, as_kept = state.columns(), state.columns(floats=False)
    assert as_kept == as_floats  # equal values (2 == 2.0), in the same order
    cf = STANDING_ROW_FIELDS.index("cf")
    assert {type(v) for v in as_floats[cf]} == {float}
    assert {type(v) for v in as_kept[cf]} == {int}


@pytest.mark.parametrize(
    "outcome",
    [
        Outcome(1, 11, 16, "played", "win", 2, 14, 1, 0),  # the id after the last one
        Outcome(1, 11, 10, "played", "win", 2, 14, 1, 0),  # the id before the first one
        Outcome(1, 16, 11, "played", "win", 2, 14, 1, 0),
        Outcome(1, 10, 11, "played", "win", 2, 14, 1, 0),
        Outcome(1, 11, -3, "played", "win", 2, 14, 1, 0),  # would wrap round an array
        Outcome(1, 11, 99, "played", "win", 2, 14, 1, 0),  # far beyond the last one
        Outcome(1, 99, 11, "played", "win", 2, 14, 1, 0),
    ],
)
def test_round_figures_refuse_ids_just_outside_consecutive_ones(outcome):
    setup = standings_setup(PAIRS, (), 0)  # 11…15: indices by subtraction
    for outcomes in ([outcome], [Outcome(1, 13, None, "bye", "win", 2, 17, 0, 0), outcome]):
        with pytest.raises(StandingsError) as error:
            round_figures(setup, 1, outcomes)
        assert error.value.code == "unknown_pair"


def test_round_figures_take_a_float_id_as_the_int_it_equals():
    # As the dictionary of ids always did (3.0 == 3): the consecutive ids' shortcut steps aside.
    setup = standings_setup(PAIRS, (), 0)
    bye = Outcome(1, 13, None, "bye", "win", 2, 17, 0, 0)
    floats = round_figures(setup, 1, [Outcome(1, 11.0, 12, "played", "win", 2, 14, 1, 0), bye])
    ints = round_figures(setup, 1, [Outcome(1, 11, 12, "played", "win", 2, 14, 1, 0), bye])
    assert list(floats.opponent) == list(ints.opponent) == [1, 5, 5, 5, 5]
    assert floats.cf == ints.cf == (2, 0, 2, 0, 0)
