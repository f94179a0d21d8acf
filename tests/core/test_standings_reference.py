"""The linear ranking and the incremental API of ``scoring.standings`` (issue 18) against the
algorithm they replaced, kept verbatim in ``tests/support/standings_reference.py``: the very
same rows — every figure with its type, every rank, every ``decided_by`` — on random fields full
of ties, head-to-head between two pairs, mini-leagues of three or more (split again inside),
fractional match points, byes, forfeits, pairs sitting out and deductions (RULES.md §4)."""

from __future__ import annotations

import random
from dataclasses import astuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ruleset import RuleSet
from scoring.standings import (
    StandingRow,
    advance,
    compute_standings,
    initial_state,
    standings_by_round,
    standings_setup,
    state_after,
)
from tests.support import standings_reference as reference
from tests.support.standings_data import build_tournament
from tests.support.standings_fields import Field, random_field, truncated


def typed(rows: tuple[StandingRow, ...]) -> list[tuple[tuple[str, object], ...]]:
    """Rows as (type name, value) pairs: 2 and 2.0 are equal, but a row must not change type."""
    return [tuple((type(value).__name__, value) for value in astuple(row)) for row in rows]


def expected(field: Field, after_round: int, outcomes: object = None) -> list:
    return typed(
        reference.compute_standings(
            field.pairs,
            field.outcomes if outcomes is None else outcomes,  # type: ignore[arg-type]
            field.deductions,
            field.criteria,
            field.seed,
            after_round,
        )
    )


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False))
def test_same_rows_as_the_reference_after_every_round(rnd: random.Random) -> None:
    field = random_field(rnd)
    by_round = standings_by_round(
        field.pairs, field.outcomes, field.deductions, field.criteria, field.seed, field.rounds
    )
    for number in range(field.rounds + 1):
        got = compute_standings(
            field.pairs, field.outcomes, field.deductions, field.criteria, field.seed, number
        )
        assert typed(got) == expected(field, number)
        if number:
            assert typed(by_round[number]) == typed(got)


def test_same_rows_as_the_reference_on_a_thousand_seeded_fields() -> None:
    # A fixed sweep (hypothesis explores; this one is the same every run): about 3% of these
    # fields split a mini-league of three or more, 30% separate two pairs by head-to-head.
    for seed in range(1000):
        field = random_field(random.Random(seed))
        got = compute_standings(
            field.pairs, field.outcomes, field.deductions, field.criteria, field.seed, field.rounds
        )
        assert typed(got) == expected(field, field.rounds), seed


@settings(max_examples=200, deadline=None)
@given(st.randoms(use_true_random=False), st.data())
def test_advancing_a_frozen_state_with_a_round_in_progress_matches_the_reference(
    rnd: random.Random, data: st.DataObject
) -> None:
    # Issue 18: rounds before the one in progress are frozen; each confirmation advances the
    # frozen state with the outcomes confirmed so far.
    field = random_field(rnd)
    if not field.rounds:
        return
    number = data.draw(st.integers(1, field.rounds))
    setup = standings_setup(field.pairs, field.criteria, field.seed)
    frozen = state_after(
        setup,
        [o for o in field.outcomes if o.round < number],
        [d for d in field.deductions if d.round is None or d.round < number],
        number - 1,
    )
    this_round = [d for d in field.deductions if d.round == number]
    tables = len({min(o.pair, o.opponent or o.pair) for o in field.outcomes if o.round == number})
    for keep in range(tables + 1):  # one confirmation after another
        so_far = truncated(field, number, keep)
        state = advance(frozen, [o for o in so_far if o.round == number], this_round)
        assert typed(state.rows()) == expected(field, number, so_far)
    # The frozen state itself is unchanged by all that.
    assert typed(frozen.rows()) == expected(field, number - 1)


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False))
def test_advancing_round_by_round_is_the_cold_start(rnd: random.Random) -> None:
    field = random_field(rnd)
    setup = standings_setup(field.pairs, field.criteria, field.seed)
    state = initial_state(setup, [d for d in field.deductions if d.round is None])
    for number in range(1, field.rounds + 1):
        state = advance(
            state,
            [o for o in field.outcomes if o.round == number],
            [d for d in field.deductions if d.round == number],
        )
        assert typed(state.rows()) == expected(field, number)
    cold = state_after(setup, field.outcomes, field.deductions, field.rounds)
    assert typed(cold.rows()) == typed(state.rows())


@pytest.mark.parametrize(
    ("pairs", "seed", "preset"),
    [
        (301, 1, "regulation"),
        (300, 2, "jiangsu2017"),
        (800, 3, "regulation"),
        (57, 4, "regulation"),
    ],
)
def test_same_rows_as_the_reference_on_benchmark_tournaments(pairs, seed, preset) -> None:
    # Realistic Swiss-like fields (the benchmark's generator): large tie groups on CF, JCF.
    rounds = 9
    rules = RuleSet.from_dict({"rounds": rounds, "seed": seed})
    _, outcomes, deductions = build_tournament(pairs, rounds, seed, rules)
    ids = list(range(1, pairs + 1))
    got = standings_by_round(ids, outcomes, deductions, preset, seed, rounds)
    want = reference.standings_by_round(ids, outcomes, deductions, preset, seed, rounds)
    assert {r: typed(rows) for r, rows in got.items()} == {r: typed(w) for r, w in want.items()}
