"""scoring.standings: RULES.md §4 sentence by sentence, each criterion alone, head-to-head, the
preset lists of TOURNAMENT_FILE.md and the API's contract (rows, rounds, errors)."""

from __future__ import annotations

from itertools import count

import pytest

from scoring.standings import (
    CRITERIA,
    PRESETS,
    Deduction,
    Outcome,
    StandingRow,
    StandingsError,
    compute_standings,
    lot_number,
    lot_numbers,
    resolve_criteria,
    standings_by_round,
)

# -- helpers: outcomes on the 26:0 scale with 2/1/0 match points (RULES.md §2 defaults) --------


def match(
    number: int, winner: int, loser: int, jc: int = 1, upgrades: tuple[int, int] = (0, 0)
) -> list[Outcome]:
    """A played match; ``jc`` 0 is a draw (then ``winner``/``loser`` are just the two pairs)."""
    jc = min(jc, 13)
    if jc == 0:
        return [
            Outcome(number, winner, loser, "played", "draw", 1, 13, 0, upgrades[0]),
            Outcome(number, loser, winner, "played", "draw", 1, 13, 0, upgrades[1]),
        ]
    return [
        Outcome(number, winner, loser, "played", "win", 2, 13 + jc, jc, upgrades[0]),
        Outcome(number, loser, winner, "played", "loss", 0, 13 - jc, -jc, upgrades[1]),
    ]


def forfeit(number: int, present: int, absent: int) -> list[Outcome]:
    return [
        Outcome(number, present, absent, "forfeit", "win", 2, 17, 0, 0),
        Outcome(number, absent, present, "forfeit", "loss", 0, 0, 0, 0),
    ]


def bye(number: int, pair: int) -> list[Outcome]:
    return [Outcome(number, pair, None, "bye", "win", 2, 17, 0, 0)]


def order(rows: tuple[StandingRow, ...]) -> list[int]:
    return [row.pair for row in rows]


def row_of(rows: tuple[StandingRow, ...], pair: int) -> StandingRow:
    return next(row for row in rows if row.pair == pair)


def seed_ranking_by_lot(*pairs: int) -> int:
    """A seed whose drawing of lots puts ``pairs`` in the given order, so a test shows that a
    criterion (not the lot) made an order that the lot would have made the other way round."""
    for seed in count():
        numbers = [lot_number(seed, pair) for pair in pairs]
        if numbers == sorted(numbers):
            return seed
    raise AssertionError("unreachable")


def standings(pairs, outcomes, criteria=(), seed=0, after_round=None, deductions=()):
    if after_round is None:
        after_round = max((o.round for o in outcomes), default=0)
    return compute_standings(pairs, outcomes, deductions, criteria, seed, after_round)


# -- RULES.md §4: "Rank by total match points (CF)" --------------------------------------------


def test_more_match_points_rank_first_whatever_the_other_criteria():
    # RULES.md §4: CF first. Pair 1 has fewer CF but far more JCF and a better lot.
    outcomes = [*match(1, 2, 3, jc=1), *match(1, 4, 1, jc=1), *match(2, 1, 3, jc=13)]
    outcomes += match(2, 2, 4, jc=1)
    seed = seed_ranking_by_lot(1, 2)
    rows = standings([1, 2, 3, 4], outcomes, PRESETS["regulation"], seed)
    assert row_of(rows, 1).jcf > row_of(rows, 2).jcf
    assert order(rows)[:2] == [2, 1]
    assert rows[1].decided_by == "cf"


def test_cf_is_always_first_and_lot_always_last():
    # TOURNAMENT_FILE.md: match points always come first and lot always last.
    assert resolve_criteria(()) == ("cf", "lot")
    assert resolve_criteria(("jcf",)) == ("cf", "jcf", "lot")
    assert resolve_criteria(("cf", "jcf", "lot")) == ("cf", "jcf", "lot")
    assert resolve_criteria("regulation") == ("cf", *PRESETS["regulation"], "lot")
    assert resolve_criteria("jiangsu2017") == ("cf", *PRESETS["jiangsu2017"])


@pytest.mark.parametrize(
    ("criteria", "code"),
    [
        (("jcf", "cf"), "cf_not_first"),
        (("lot", "jcf"), "lot_not_last"),
        (("jcf", "jcf"), "repeated_criterion"),
        (("points",), "unknown_criterion"),
        ("fifa", "unknown_preset"),
    ],
)
def test_bad_criteria_lists_are_rejected_with_a_code(criteria, code):
    with pytest.raises(StandingsError) as error:
        resolve_criteria(criteria)
    assert error.value.code == code


# -- RULES.md §4: "deductions apply to JCF" ----------------------------------------------------


def test_deduction_lowers_jcf_and_not_match_points():
    # RULES.md §4 (and §3 级差分扣分): deductions apply to JCF, from the tournament total.
    outcomes = match(1, 1, 2, jc=3)
    rows = standings([1, 2], outcomes, deductions=[Deduction(1, 1, 2)])
    one = row_of(rows, 1)
    assert (one.cf, one.jcf, one.deductions) == (2, 14, 2)


def test_deduction_can_change_the_order_through_jcf():
    # RULES.md §4: pair 1 is ahead on JCF by 1 until a deduction of 2.
    outcomes = [*match(1, 1, 3, jc=4), *match(1, 2, 4, jc=3)]
    before = standings([1, 2, 3, 4], outcomes, ("jcf",))
    after = standings([1, 2, 3, 4], outcomes, ("jcf",), deductions=[Deduction(1, 1, 2)])
    assert order(before)[:2] == [1, 2]
    assert order(after)[:2] == [2, 1]
    assert after[1].decided_by == "jcf"


def test_deduction_counts_from_its_round_on_and_one_without_round_always():
    # RULES.md §3: recorded in a round; counts in the standings after that round.
    outcomes = [*match(1, 1, 2), *match(2, 2, 1)]
    deductions = [Deduction(2, 1, 1), Deduction(None, 2, 3)]
    by_round = standings_by_round([1, 2], outcomes, deductions, (), 0, 2)
    assert row_of(by_round[1], 1).deductions == 0
    assert row_of(by_round[2], 1).deductions == 1
    assert row_of(by_round[1], 2).deductions == 3
    assert row_of(by_round[2], 2).jcf == 12 + 14 - 3


def test_negative_deduction_is_rejected():
    with pytest.raises(StandingsError) as error:
        standings([1, 2], match(1, 1, 2), deductions=[Deduction(1, 1, -1)])
    assert error.value.code == "bad_deduction"


# -- RULES.md §4: "Ties are broken by an ordered list of criteria chosen per tournament" ------


def test_the_order_of_the_criteria_decides():
    # RULES.md §4: an ordered list. Pairs 1 and 2 have 4 CF; 1 has more wins, 2 more JCF.
    outcomes = [
        *match(1, 1, 3, jc=1),  # pair 1: win, win -> 4 CF, 2 wins, 28 JCF
        *match(2, 1, 4, jc=1),
        *match(1, 2, 5, jc=0),  # pair 2: draw, draw, win by 13 -> 4 CF, 1 win, 52 JCF
        *match(2, 2, 6, jc=0),
        *match(3, 2, 7, jc=13),
    ]
    pairs = list(range(1, 8))
    by_wins = standings(pairs, outcomes, ("wins", "jcf"), after_round=3)
    by_jcf = standings(pairs, outcomes, ("jcf", "wins"), after_round=3)
    assert order(by_wins)[:2] == [1, 2]
    assert by_wins[1].decided_by == "wins"
    assert order(by_jcf)[:2] == [2, 1]
    assert by_jcf[1].decided_by == "jcf"


# -- each criterion alone: pair 2 is better on it, the lot favours pair 1 -----------------------


def _pair2_better_on(key: str) -> tuple[list[Outcome], int]:
    """Outcomes where pairs 1 and 2 have equal CF and pair 2 is better on ``key``, and the
    round to rank after."""
    if key == "jcf":
        return [*match(1, 1, 3, jc=1), *match(1, 2, 4, jc=7)], 1
    if key == "wins":  # RULES.md §4: number of wins (draws not counted)
        outcomes = [*match(1, 1, 3, jc=0), *match(2, 1, 4, jc=0), *match(1, 2, 5), *match(2, 6, 2)]
        return [*outcomes, *match(1, 6, 7)], 2
    if key == "draws":  # equal CF and wins on 3/2/1 points: W D (5) against W L L (5)
        outcomes = [
            Outcome(1, 1, 3, "played", "win", 3, 14, 1, 0),
            Outcome(2, 1, 4, "played", "loss", 1, 12, -1, 0),
            Outcome(3, 1, 5, "played", "loss", 1, 12, -1, 0),
            Outcome(1, 2, 6, "played", "win", 3, 14, 1, 0),
            Outcome(2, 2, 7, "played", "draw", 2, 13, 0, 0),
        ]
        return outcomes, 3
    if key == "level_difference":
        return [*match(1, 1, 3, jc=2), *match(1, 2, 4, jc=5)], 1
    if key == "opponents_cf":  # pair 2 beat pair 4, who won later; pair 1's opponents did not
        outcomes = [*match(1, 1, 3), *match(1, 2, 4), *match(2, 1, 5), *match(2, 2, 6)]
        return [*outcomes, *match(3, 4, 7)], 3
    if key == "progressive":  # (去首)累进分: the early winner gets more
        # pair 1: W L L W -> cumulative 2 2 2 4 (8); pair 2: W W L L -> 2 4 4 4 (12)
        one = [*match(1, 1, 3), *match(2, 4, 1), *match(3, 5, 1), *match(4, 1, 10)]
        two = [*match(1, 2, 6), *match(2, 2, 7), *match(3, 8, 2), *match(4, 9, 2)]
        return [*one, *two], 4
    if key == "upgrades":
        return [*match(1, 1, 3, upgrades=(9, 4)), *match(1, 2, 4, upgrades=(12, 3))], 1
    if key == "previous_rank":  # after round 1 pair 2 led; after round 2 both have 2 CF
        return [*match(1, 2, 3), *match(1, 4, 1), *match(2, 1, 3), *match(2, 4, 2)], 2
    if key in ("head_to_head", "head_to_head_two"):  # two tied: both kinds apply
        return [*match(1, 2, 1), *match(1, 4, 5), *match(2, 1, 3), *match(2, 4, 2)], 2
    raise AssertionError(key)


TESTED_ALONE = [key for key in CRITERIA if key not in {"cf", "lot"}]


@pytest.mark.parametrize("key", TESTED_ALONE)
def test_each_criterion_alone_separates_two_pairs_tied_on_match_points(key):
    # RULES.md §4: each criterion of either preset, alone after CF.
    outcomes, after_round = _pair2_better_on(key)
    pairs = sorted({o.pair for o in outcomes} | {o.opponent for o in outcomes} - {None})
    seed = seed_ranking_by_lot(1, 2)
    rows = standings(pairs, outcomes, (key,), seed, after_round)
    one, two = row_of(rows, 1), row_of(rows, 2)
    assert one.cf == two.cf
    assert two.rank == one.rank - 1
    assert one.decided_by == key
    # Without the criterion the lot puts pair 1 first, so the criterion did it.
    plain = standings(pairs, outcomes, (), seed, after_round)
    assert row_of(plain, 1).rank < row_of(plain, 2).rank


def test_every_criterion_has_a_key_and_a_direction():
    # RULES.md §4 / issue 2 §4: a key and a direction (the labels: tests/core/test_wording.py).
    assert set(CRITERIA) == {
        "cf",
        "jcf",
        "head_to_head",
        "wins",
        "draws",
        "level_difference",
        "opponents_cf",
        "previous_rank",
        "progressive",
        "upgrades",
        "head_to_head_two",  # RULES.md §9
        "lot",
    }
    for key, criterion in CRITERIA.items():
        assert criterion.key == key
    assert not CRITERIA["previous_rank"].higher_is_better
    assert CRITERIA["jcf"].higher_is_better


# -- RULES.md §4 regulation preset and Jiangsu 2017 preset -------------------------------------


def test_regulation_preset_is_the_seed_003_list():
    # RULES.md §4 regulation preset (TOURNAMENT_FILE.md "Criterion keys").
    assert PRESETS["regulation"] == (
        "jcf",
        "head_to_head",
        "wins",
        "draws",
        "level_difference",
        "opponents_cf",
        "previous_rank",
    )


def test_jiangsu_preset_is_the_seed_004_list():
    # RULES.md §4 Jiangsu 2017 preset.
    assert PRESETS["jiangsu2017"] == ("progressive", "wins", "jcf", "upgrades", "lot")


def test_regulation_jcf_comes_before_head_to_head():
    # RULES.md §4 regulation 1–2: pair 1 beat pair 2 but pair 2 has more JCF.
    outcomes = [*match(1, 1, 2, jc=1), *match(2, 2, 3, jc=13), *match(2, 4, 1, jc=1)]
    rows = standings([1, 2, 3, 4], outcomes, "regulation")
    assert order(rows)[:2] == [2, 1]
    assert row_of(rows, 1).decided_by == "jcf"


def test_regulation_head_to_head_comes_before_wins():
    # RULES.md §4 regulation 2–3: tied on CF and JCF; pair 2 beat pair 1, pair 1 has more wins.
    outcomes = [
        *match(1, 2, 1, jc=2),  # 2: W 15 ; 1: L 11
        *match(2, 1, 3, jc=2),  # 1: W 15 -> 26
        *match(3, 1, 4, jc=0),  # 1: D 13 -> 39, CF 3
        *match(2, 2, 5, jc=0),  # 2: D 13 -> 28
        *match(3, 6, 2, jc=2),  # 2: L 11 -> 39, CF 3
    ]
    rows = standings(list(range(1, 7)), outcomes, "regulation", after_round=3)
    one, two = row_of(rows, 1), row_of(rows, 2)
    assert (one.cf, one.jcf) == (two.cf, two.jcf) == (3, 39)
    assert one.wins == two.wins  # both 1 win: the preset's next criterion would not decide
    assert two.rank == one.rank - 1
    assert one.decided_by == "head_to_head"


def test_jiangsu_progressive_comes_before_wins():
    # RULES.md §4 Jiangsu 1–2: same CF; pair 1 won early (累进分 higher), pair 2 won more.
    outcomes = [
        *match(1, 1, 3),
        *match(2, 1, 4),
        *match(3, 5, 1),
        *match(4, 6, 1),  # pair 1: W W L L -> cumulative 2 4 4 4, progressive 12, 2 wins
        *match(1, 2, 7, jc=0),
        *match(2, 2, 8, jc=0),
        *match(3, 2, 9, jc=0),
        *match(4, 2, 10, jc=0),  # pair 2: D D D D -> cumulative 1 2 3 4, progressive 9, 0 wins
    ]
    rows = standings(list(range(1, 11)), outcomes, "jiangsu2017", after_round=4)
    one, two = row_of(rows, 1), row_of(rows, 2)
    assert one.cf == two.cf == 4
    assert (one.progressive, two.progressive) == (12, 9)
    assert (one.wins, two.wins) == (2, 0)
    assert one.rank < two.rank
    assert two.decided_by == "progressive"


def test_progressive_is_the_sum_of_cumulative_cf_from_round_2():
    # RULES.md §4: (去首)累进分 = Σ over r = 2…N of the cumulative CF after round r.
    outcomes = [*match(1, 1, 2), *match(2, 1, 3, jc=0), *match(3, 4, 1), *match(4, 1, 5)]
    rows = standings(list(range(1, 6)), outcomes, after_round=4)
    # Cumulative CF after rounds 1–4: 2, 3, 3, 5; the first round is left out.
    assert row_of(rows, 1).progressive == 3 + 3 + 5


def test_level_difference_is_the_signed_sum_of_jc():
    # RULES.md §4 regulation 5: total level difference, signed.
    outcomes = [*match(1, 1, 2, jc=5), *match(2, 3, 1, jc=2), *match(3, 1, 4, jc=0)]
    assert row_of(standings([1, 2, 3, 4], outcomes), 1).level_difference == 5 - 2 + 0


def test_opponents_cf_sums_the_cumulative_cf_of_every_opponent_and_nothing_for_a_bye():
    # RULES.md §4 regulation 6: 对手分; byes count nothing; a forfeit counts the opponent.
    outcomes = [
        *match(1, 1, 2),  # 2 ends with 2 CF (beats 4 in round 3)
        *bye(2, 1),
        *forfeit(3, 1, 3),  # 3 ends with 2 CF (beats 5 in round 2)
        *match(2, 3, 5),
        *match(3, 2, 4),
    ]
    rows = standings([1, 2, 3, 4, 5], outcomes, after_round=3)
    assert row_of(rows, 1).opponents_cf == 2 + 2
    # Only rounds up to after_round count, for the opponent's CF too.
    early = standings([1, 2, 3, 4, 5], outcomes, after_round=2)
    assert row_of(early, 1).opponents_cf == 0


def test_wins_draws_and_losses_count_byes_and_forfeits():
    # TOURNAMENT_FILE.md: byes and forfeits count as wins or losses, add 0 to level difference
    # and upgrades. RULES.md §4 regulation 3–4: wins (draws not counted), then draws.
    outcomes = [*bye(1, 1), *forfeit(2, 1, 2), *match(3, 1, 3, jc=0), *match(1, 2, 3)]
    rows = standings([1, 2, 3], outcomes, after_round=3)
    one, two = row_of(rows, 1), row_of(rows, 2)
    assert (one.wins, one.draws, one.losses) == (2, 1, 0)
    assert (two.wins, two.draws, two.losses) == (1, 0, 1)
    assert (one.level_difference, one.upgrades) == (0, 0)


def test_previous_rank_is_the_rank_after_the_previous_round_with_the_same_criteria():
    # RULES.md §4 regulation 7.
    outcomes = [*match(1, 2, 3), *match(1, 4, 1), *match(2, 1, 3), *match(2, 4, 2)]
    by_round = standings_by_round([1, 2, 3, 4], outcomes, [], "regulation", 5, 2)
    for row in by_round[2]:
        assert row.previous_rank == row_of(by_round[1], row.pair).rank
    assert all(row.previous_rank is None for row in by_round[1])


def test_previous_rank_separates_nobody_after_round_1():
    # After round 0 nobody has a rank, so previous_rank cannot decide in round 1's standings.
    outcomes = [*match(1, 1, 3), *match(1, 2, 4)]
    rows = standings([1, 2, 3, 4], outcomes, ("previous_rank",), after_round=1)
    assert {row.decided_by for row in rows[1:]} <= {"cf", "lot"}


# -- RULES.md §4 head-to-head ------------------------------------------------------------------


def test_head_to_head_two_tied_pairs_that_met_winner_first():
    # RULES.md §4: "if the tied pairs met, the winner ranks first".
    outcomes, after_round = _pair2_better_on("head_to_head")
    seed = seed_ranking_by_lot(1, 2)
    rows = standings([1, 2, 3, 4, 5], outcomes, ("head_to_head",), seed, after_round)
    assert order(rows)[1:3] == [2, 1]
    assert row_of(rows, 1).decided_by == "head_to_head"


def test_head_to_head_forfeit_counts_as_a_meeting():
    # RULES.md §2 forfeit: the present pair wins the match, so it is the head-to-head winner.
    outcomes = [*forfeit(1, 2, 1), *match(1, 4, 5), *match(2, 1, 3), *match(2, 4, 2)]
    seed = seed_ranking_by_lot(1, 2)
    rows = standings([1, 2, 3, 4, 5], outcomes, ("head_to_head",), seed, 2)
    assert row_of(rows, 2).rank < row_of(rows, 1).rank
    assert row_of(rows, 1).decided_by == "head_to_head"


def test_head_to_head_drawn_meeting_does_not_separate():
    # RULES.md §4: applies only when it separates cleanly; a draw goes on to the next criterion.
    outcomes = [*match(1, 1, 2, jc=0), *match(2, 1, 3), *match(2, 2, 4)]
    rows = standings([1, 2, 3, 4], outcomes, ("head_to_head",), 0, 2)
    assert {row_of(rows, 1).decided_by, row_of(rows, 2).decided_by} == {None, "lot"}


def test_head_to_head_two_tied_pairs_that_did_not_meet_are_not_separated():
    # RULES.md §4: "if the tied pairs met" — they did not.
    outcomes = [*match(1, 1, 3), *match(1, 2, 4)]
    rows = standings([1, 2, 3, 4], outcomes, ("head_to_head",), 0, 1)
    assert rows[1].decided_by == "lot"


def _round_robin(results: dict[tuple[int, int], int]) -> list[Outcome]:
    """Matches among a group, one a round: {(a, b): jc} with a the winner (jc 0: a draw)."""
    outcomes = []
    for number, ((a, b), jc) in enumerate(results.items(), start=1):
        outcomes += match(number, a, b, jc=jc)
    return outcomes


def test_head_to_head_mini_league_when_every_pair_met_every_other():
    # RULES.md §4: a mini-league among the tied pairs when every pair has met every other.
    # 1 beats 2 and 3, 2 beats 3: equal overall CF after outsiders 4-6 balance it.
    outcomes = _round_robin({(1, 2): 1, (1, 3): 1, (2, 3): 1})
    outcomes += [*match(4, 2, 4), *match(4, 3, 5), *match(5, 3, 6), *match(5, 7, 1)]
    outcomes += [*match(6, 8, 1), *match(6, 9, 2)]
    # CF: 1 = 2+2+0+0 = 4; 2 = 0+2+2+0 = 4; 3 = 0+0+2+2 = 4.
    seed = seed_ranking_by_lot(3, 2, 1)
    rows = standings(list(range(1, 10)), outcomes, ("head_to_head",), seed, 6)
    assert [row_of(rows, p).cf for p in (1, 2, 3)] == [4, 4, 4]
    ranks = [row_of(rows, p).rank for p in (1, 2, 3)]
    assert ranks == sorted(ranks) and ranks[2] - ranks[0] == 2
    assert row_of(rows, 2).decided_by == row_of(rows, 3).decided_by == "head_to_head"


def test_head_to_head_cycle_in_a_mini_league_does_not_separate():
    # RULES.md §4: 1 beat 2, 2 beat 3, 3 beat 1: every pair has 2 mini-league CF.
    outcomes = _round_robin({(1, 2): 1, (2, 3): 1, (3, 1): 1})
    rows = standings([1, 2, 3], outcomes, ("head_to_head",), 0, 3)
    assert [row.decided_by for row in rows] == [None, "lot", "lot"]


def test_head_to_head_larger_group_where_not_all_met_is_not_applied():
    # RULES.md §4: a larger group only as a mini-league when every pair met every other.
    # 1 beat 2; 3 met neither. All three have 2 CF.
    outcomes = [*match(1, 1, 2), *match(1, 3, 5), *match(1, 6, 8), *match(1, 7, 9)]
    outcomes += [*match(2, 2, 4), *match(2, 6, 1), *match(2, 7, 3)]
    seed = seed_ranking_by_lot(2, 3, 1)
    rows = standings(list(range(1, 10)), outcomes, ("head_to_head",), seed, 2)
    assert [row.cf for row in rows[2:5]] == [2, 2, 2]
    assert order(rows)[2:5] == [2, 3, 1]
    assert [row.decided_by for row in rows[3:5]] == ["lot", "lot"]


def test_head_to_head_partial_split_leaves_the_rest_to_the_next_criterion():
    # RULES.md §4 (documented in scoring/standings.py): 1 beat 2 and 3, 2 and 3 drew. The group
    # splits into {1} and {2, 3}; 2 and 3 go on to the next criterion (here level difference).
    outcomes = _round_robin({(1, 2): 1, (1, 3): 1, (2, 3): 0})
    outcomes += [*match(4, 2, 4, jc=5), *match(4, 3, 5, jc=1), *match(4, 6, 1)]
    outcomes += [*match(5, 2, 7, jc=0), *match(5, 3, 8, jc=0), *match(5, 9, 1)]
    seed = seed_ranking_by_lot(3, 2, 1)
    rows = standings(list(range(1, 10)), outcomes, ("head_to_head", "level_difference"), seed, 5)
    one, two, three = (row_of(rows, p) for p in (1, 2, 3))
    assert one.cf == two.cf == three.cf == 4
    assert [one.rank, two.rank, three.rank] == [1, 2, 3]
    assert two.decided_by == "head_to_head"
    assert three.decided_by == "level_difference"


def test_head_to_head_is_applied_again_inside_a_sub_group():
    # RULES.md §4: four tied pairs all met. Mini-league CF: 1 → 4, 2 → 4, 3 → 2, 4 → 2.
    # Inside {1, 2} pair 2 beat pair 1; inside {3, 4} pair 3 beat pair 4: order 2, 1, 3, 4.
    outcomes = _round_robin({(2, 1): 1, (3, 4): 1, (1, 3): 1, (4, 2): 1, (1, 4): 1, (2, 3): 1})
    outcomes += [*match(7, 5, 1), *match(7, 6, 2), *match(7, 3, 7), *match(7, 4, 8)]
    seed = seed_ranking_by_lot(4, 3, 1, 2)
    rows = standings(list(range(1, 9)), outcomes, ("head_to_head",), seed, 7)
    group = [row for row in rows if row.pair in {1, 2, 3, 4}]
    assert {row.cf for row in group} == {4}
    assert [row.pair for row in group] == [2, 1, 3, 4]
    assert [row.decided_by for row in group[1:]] == ["head_to_head"] * 3


def test_head_to_head_counts_only_rounds_up_to_after_round():
    # Pair 2 beats pair 1 in round 3; after round 2 that meeting has not happened.
    outcomes = [*match(1, 1, 3), *match(1, 2, 4), *match(2, 5, 1), *match(2, 6, 2)]
    outcomes += match(3, 2, 1)
    seed = seed_ranking_by_lot(1, 2)
    rows = standings(list(range(1, 7)), outcomes, ("head_to_head",), seed, 2)
    assert row_of(rows, 1).rank < row_of(rows, 2).rank
    assert row_of(rows, 2).decided_by == "lot"


# -- RULES.md §4 Jiangsu 5: drawing of lots ---------------------------------------------------


def test_lot_is_a_seeded_reproducible_order():
    # RULES.md §4 Jiangsu 5: a seeded, recorded random order.
    pairs = list(range(1, 21))
    first = standings(pairs, [], "jiangsu2017", seed=11)
    again = standings(list(reversed(pairs)), [], "jiangsu2017", seed=11)
    other = standings(pairs, [], "jiangsu2017", seed=12)
    assert order(first) == order(again)
    assert order(first) == sorted(pairs, key=lambda p: lot_number(11, p))
    assert order(first) != order(other)
    assert [row.decided_by for row in first] == [None] + ["lot"] * 19


def test_lot_numbers_are_lot_number_of_each_pair():
    # The standings draw every pair's number at once (the seed's prefix hashed once).
    pairs = [1, 7, 12, 100, 123_456_789, 1 << 40]
    for seed in (0, 5, 2**63):
        assert lot_numbers(seed, pairs) == [lot_number(seed, p) for p in pairs]


def test_lot_between_two_pairs_does_not_depend_on_the_other_pairs():
    few = order(standings([3, 8], [], seed=99))
    many = [p for p in order(standings(list(range(1, 30)), [], seed=99)) if p in (3, 8)]
    assert few == many


# -- RULES.md §4: "Each standings row should be able to say which criterion separated it" ------


def test_decided_by_is_none_for_rank_1_and_names_a_criterion_for_every_other_row():
    outcomes = [*match(1, 1, 2, jc=3), *match(1, 3, 4, jc=3), *match(1, 5, 6, jc=0)]
    rows = standings(list(range(1, 7)), outcomes, "regulation")
    assert rows[0].decided_by is None
    assert all(row.decided_by in CRITERIA for row in rows[1:])
    assert [row.rank for row in rows] == list(range(1, 7))


# -- the API's contract ------------------------------------------------------------------------


def test_every_registered_pair_appears_even_without_outcomes():
    # A withdrawn pair keeps its row; a pair that has not played has zeros.
    rows = standings([1, 2, 3, 9], match(1, 1, 2), after_round=1)
    assert sorted(order(rows)) == [1, 2, 3, 9]
    nine = row_of(rows, 9)
    assert (nine.cf, nine.jcf, nine.wins, nine.losses, nine.opponents_cf) == (0, 0, 0, 0, 0)


def test_only_outcomes_up_to_after_round_count():
    outcomes = [*match(1, 1, 2), *match(2, 2, 1, jc=5)]
    rows = standings([1, 2], outcomes, after_round=1)
    assert (row_of(rows, 1).cf, row_of(rows, 2).cf) == (2, 0)
    assert order(rows) == [1, 2]


def test_after_round_0_ranks_everyone_by_lot_with_zero_figures():
    rows = standings([1, 2, 3], match(1, 1, 2), seed=4, after_round=0)
    assert order(rows) == sorted([1, 2, 3], key=lambda p: lot_number(4, p))
    assert all(row.cf == 0 and row.previous_rank is None for row in rows)


def test_compute_standings_equals_the_last_of_standings_by_round():
    outcomes = [*match(1, 1, 2), *match(1, 3, 4), *match(2, 1, 3), *match(2, 4, 2, jc=0)]
    by_round = standings_by_round([1, 2, 3, 4], outcomes, [], "regulation", 3, 2)
    assert set(by_round) == {1, 2}
    for number in (1, 2):
        assert by_round[number] == standings([1, 2, 3, 4], outcomes, "regulation", 3, number)


def test_fractional_match_points_that_are_equal_tie():
    # RULES.md §2: match points may be fractional (e.g. 1/0.5/0). 0.1 + 0.2 equals 0.3 here.
    outcomes = [
        Outcome(1, 1, 3, "played", "win", 0.1, 14, 1, 0),
        Outcome(2, 1, 4, "played", "win", 0.2, 14, 1, 0),
        Outcome(1, 2, 5, "played", "win", 0.3, 14, 1, 0),
        Outcome(2, 2, 6, "played", "loss", 0, 12, -1, 0),
    ]
    rows = standings(list(range(1, 7)), outcomes, ("jcf",), after_round=2)
    assert row_of(rows, 1).cf == row_of(rows, 2).cf == 0.3
    assert order(rows)[:2] == [1, 2]
    assert rows[1].decided_by == "jcf"


@pytest.mark.parametrize(
    ("outcomes", "code"),
    [
        ([Outcome(1, 9, 1, "played", "win", 2, 14, 1, 0)], "unknown_pair"),
        ([Outcome(1, 1, 9, "played", "win", 2, 14, 1, 0)], "unknown_pair"),
        ([Outcome(1, 1, 2, "walkover", "win", 2, 14, 1, 0)], "bad_kind"),
        ([Outcome(1, 1, 2, "played", "won", 2, 14, 1, 0)], "bad_result"),
        ([Outcome(0, 1, 2, "played", "win", 2, 14, 1, 0)], "bad_round"),
        ([Outcome(1, 1, 2, "bye", "win", 2, 17, 0, 0)], "bad_opponent"),
        ([Outcome(1, 1, None, "played", "win", 2, 17, 0, 0)], "bad_opponent"),
        ([Outcome(1, 1, 1, "played", "win", 2, 17, 0, 0)], "bad_opponent"),
        ([*bye(1, 1), *bye(1, 1)], "repeated_outcome"),
    ],
)
def test_bad_outcomes_are_rejected_with_a_code(outcomes, code):
    with pytest.raises(StandingsError) as error:
        standings([1, 2], outcomes, after_round=1)
    assert error.value.code == code


def test_repeated_pair_and_negative_round_are_rejected():
    with pytest.raises(StandingsError) as error:
        standings([1, 1], [], after_round=0)
    assert error.value.code == "repeated_pair"
    with pytest.raises(StandingsError) as error:
        standings([1, 2], [], after_round=-1)
    assert error.value.code == "bad_round"
