"""Property tests for scoring.standings (hypothesis): a total order, independent of input order;
deductions only lower JCF; the previous_rank chain is consistent (RULES.md §4)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.standings import (
    CRITERIA,
    Deduction,
    Outcome,
    StandingRow,
    compute_standings,
    standings_by_round,
)

SELECTABLE = [key for key in CRITERIA if key not in {"cf", "lot"}]


@dataclass(frozen=True)
class Tournament:
    pairs: list[int]
    outcomes: list[Outcome]
    deductions: list[Deduction]
    rounds: int
    criteria: tuple[str, ...]
    seed: int


@st.composite
def tournaments(draw: st.DrawFn) -> Tournament:
    """Random Swiss-like tournaments: every round a random pairing of the present pairs, with
    byes, draws, forfeits and small JC values so that ties (and head-to-head) are common."""
    n = draw(st.integers(min_value=1, max_value=9))
    pairs = draw(
        st.lists(st.integers(1, 60), min_size=n, max_size=n, unique=True),
    )
    rounds = draw(st.integers(min_value=0, max_value=4))
    outcomes: list[Outcome] = []
    for number in range(1, rounds + 1):
        present = draw(st.permutations(pairs))
        present = present[: draw(st.integers(0, len(present)))]  # some pairs sit out
        if len(present) % 2:
            outcomes.append(Outcome(number, present.pop(), None, "bye", "win", 2, 17, 0, 0))
        for a, b in zip(present[::2], present[1::2], strict=True):
            kind = draw(st.sampled_from(["played", "played", "played", "forfeit"]))
            jc = 0 if kind == "forfeit" else draw(st.integers(0, 3))
            if kind == "forfeit":
                outcomes += [
                    Outcome(number, a, b, "forfeit", "win", 2, 17, 0, 0),
                    Outcome(number, b, a, "forfeit", "loss", 0, 0, 0, 0),
                ]
            elif jc == 0:
                up = draw(st.integers(0, 3))
                outcomes += [
                    Outcome(number, a, b, "played", "draw", 1, 13, 0, up),
                    Outcome(number, b, a, "played", "draw", 1, 13, 0, up),
                ]
            else:
                outcomes += [
                    Outcome(number, a, b, "played", "win", 2, 13 + jc, jc, jc + 1),
                    Outcome(number, b, a, "played", "loss", 0, 13 - jc, -jc, 1),
                ]
    deductions = draw(
        st.lists(
            st.builds(
                Deduction,
                st.one_of(st.none(), st.integers(1, max(rounds, 1))),
                st.sampled_from(pairs),
                st.integers(0, 2),
            ),
            max_size=3,
        )
    )
    criteria = tuple(draw(st.permutations(SELECTABLE))[: draw(st.integers(0, len(SELECTABLE)))])
    if "head_to_head" in criteria and "head_to_head_two" in criteria:  # one kind (RULES.md §9)
        drop = draw(st.sampled_from(["head_to_head", "head_to_head_two"]))
        criteria = tuple(key for key in criteria if key != drop)
    return Tournament(pairs, outcomes, deductions, rounds, criteria, draw(st.integers(0, 2**32)))


def _rank(t: Tournament, **changes: object) -> tuple[StandingRow, ...]:
    args = {
        "pairs": t.pairs,
        "outcomes": t.outcomes,
        "deductions": t.deductions,
        "criteria": t.criteria,
        "seed": t.seed,
        "after_round": t.rounds,
    }
    args.update(changes)
    return compute_standings(**args)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(tournaments())
def test_standings_are_a_total_order_of_every_registered_pair(t: Tournament) -> None:
    # RULES.md §4: every pair has one place; CF first; every row below the first says why.
    rows = _rank(t)
    assert sorted(row.pair for row in rows) == sorted(t.pairs)
    assert [row.rank for row in rows] == list(range(1, len(t.pairs) + 1))
    assert all(row.decided_by in CRITERIA for row in rows[1:])
    if rows:
        assert rows[0].decided_by is None
    for above, below in pairwise(rows):
        assert above.cf >= below.cf
        key = below.decided_by
        assert key in {"cf", "lot", *t.criteria}
        attribute = CRITERIA[key].attribute
        if key == "previous_rank":  # lower is better
            assert above.previous_rank is not None and below.previous_rank is not None
            assert above.previous_rank < below.previous_rank
        elif attribute is not None:
            # The deciding number favours the row above; every number before it is equal.
            assert getattr(above, attribute) > getattr(below, attribute)
            earlier = ("cf", *t.criteria[: t.criteria.index(key)]) if key != "cf" else ()
            for k in earlier:
                if CRITERIA[k].attribute is not None:
                    assert getattr(above, CRITERIA[k].attribute) == getattr(
                        below, CRITERIA[k].attribute
                    )


@settings(max_examples=150, deadline=None)
@given(tournaments(), st.randoms(use_true_random=False))
def test_standings_do_not_depend_on_the_order_of_the_input(t: Tournament, rnd) -> None:
    # RULES.md §4 / issue 2 §5: same results, any order → same standings.
    pairs, outcomes, deductions = list(t.pairs), list(t.outcomes), list(t.deductions)
    rnd.shuffle(pairs)
    rnd.shuffle(outcomes)
    rnd.shuffle(deductions)
    assert _rank(t) == _rank(t, pairs=pairs, outcomes=outcomes, deductions=deductions)


@settings(max_examples=150, deadline=None)
@given(tournaments(), st.data())
def test_a_deduction_only_lowers_that_pairs_jcf(t: Tournament, data: st.DataObject) -> None:
    # RULES.md §3–§4: a deduction subtracts from the offender's JCF, nothing else changes.
    pair = data.draw(st.sampled_from(t.pairs))
    amount = data.draw(st.integers(1, 5))
    before = {row.pair: row for row in _rank(t)}
    more = [*t.deductions, Deduction(None, pair, amount)]
    after = {row.pair: row for row in _rank(t, deductions=more)}
    for p, row in after.items():
        expected = before[p].jcf - (amount if p == pair else 0)
        assert row.jcf == expected
        assert row.deductions == before[p].deductions + (amount if p == pair else 0)
        assert (row.cf, row.wins, row.opponents_cf) == (
            before[p].cf,
            before[p].wins,
            before[p].opponents_cf,
        )


@settings(max_examples=100, deadline=None)
@given(tournaments())
def test_previous_rank_chain_is_consistent(t: Tournament) -> None:
    # RULES.md §4 regulation 7: the rank after the previous round with the same criteria.
    by_round = standings_by_round(t.pairs, t.outcomes, t.deductions, t.criteria, t.seed, t.rounds)
    assert sorted(by_round) == list(range(1, t.rounds + 1))
    for number, rows in by_round.items():
        assert rows == _rank(t, after_round=number)
        if number == 1:
            assert all(row.previous_rank is None for row in rows)
        else:
            earlier = {row.pair: row.rank for row in by_round[number - 1]}
            assert all(row.previous_rank == earlier[row.pair] for row in rows)
