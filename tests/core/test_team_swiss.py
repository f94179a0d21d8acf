"""Team Swiss (RULES.md §6) against the exact reference, and the team scoring core alone.

Teams go through the same engine as pairs (``pairing.swiss.pair_round``): random team events are
played round by round (tests/support/team_fields.py: the engine pairs, the scoring engine plays
random deals, the team standings rank), and the next round's draw is checked against the
networkx reference that shares no code with the engine (tests/support/reference.py): no team
rematch, the fewest same-unit matches, the smallest Σ|CF gap|, and for small fields the
neighbour rule (4) too. ``SWISS_TEST_CASES`` scales the number of random events.
"""

from __future__ import annotations

import os
import random

import pytest

from pairing.swiss import PairingError, SwissOptions, pair_round
from reports.fileformat import parse_tournament
from rules.ruleset import RuleSet
from scoring.criteria import Deduction, Outcome, StandingsError
from scoring.teams import team_bye_outcome, team_deductions, team_outcomes, team_round_outcomes
from tests.support.reference import check_draw, reference_tables
from tests.support.team_fields import team_event_file, team_swiss_pairs

CASES = int(os.environ.get("SWISS_TEST_CASES", "60"))


@pytest.mark.parametrize("chunk", range(3))
def test_team_draws_equal_the_exact_reference_on_random_team_events(chunk: int) -> None:
    rng = random.Random(500 + chunk)
    checked = 0
    for case in range(max(CASES // 6, 4)):
        teams = rng.randint(3, 31 if case % 4 else 61)
        rounds = rng.randint(1, min(6, teams - 2))
        method = rng.choice(["sum_jcf", "sum_levels", "sum_cf"])
        try:
            data = team_event_file(
                1000 * chunk + case, teams, rounds, units=rng.randint(0, 5), method=method
            )
        except PairingError:
            continue  # a small field can run out of opponents: the engine says so
        spec = parse_tournament(data)
        field = team_swiss_pairs(spec, rounds + 1)
        try:
            draw = pair_round(field, rounds + 1, SwissOptions(), random.Random(case))
        except PairingError as exc:
            assert exc.code in ("no_pairing_without_rematch", "no_bye_candidate")
            continue
        assert check_draw(field, draw, SwissOptions()) == []
        for table in draw.tables:  # a team never meets a team twice
            assert table.ew not in next(t for t in field if t.id == table.ns).opponents
        if len(field) <= 24:  # rule (4), ranking neighbours: exponential weights, small only
            rest = [t for t in field if t.id != draw.bye]
            expected = reference_tables(rest, rounds + 1)
            assert sorted(tuple(sorted((t.ns, t.ew))) for t in draw.tables) == expected
        checked += 1
    assert checked >= 2


def test_the_team_bye_goes_to_the_lowest_team_without_one() -> None:
    data = team_event_file(3, 9, 3, units=0)
    spec = parse_tournament(data)
    field = team_swiss_pairs(spec, 4)
    draw = pair_round(field, 4, SwissOptions(), random.Random(4))
    ranked = sorted(field, key=lambda t: (-t.match_points, t.rank, t.id))
    assert draw.bye == next(t.id for t in reversed(ranked) if not t.had_bye)


# -- the team scoring core alone (scoring.teams) ------------------------------------------------

RULES = {
    m: RuleSet.from_dict({"event": "teams", "team_scoring": m})
    for m in ("sum_jcf", "sum_levels", "sum_cf")
}
# Pairs 1, 2 are team 1; pairs 3, 4 team 2. Table A: 1 NS against 3 EW; table B: 4 NS against 2 EW.
TEAM_OF = {1: 1, 2: 1, 3: 2, 4: 2}


def played(
    pair: int, opponent: int, result: str, cf: float, jcf: float, ld: int, up: int = 0
) -> Outcome:
    return Outcome(1, pair, opponent, "played", result, cf, jcf, ld, up)


def test_sum_jcf_sums_the_two_tables_and_the_larger_sum_wins() -> None:
    # Team 1 wins table A by 5 levels (18:8) and loses table B by 4 (9:17): 27 against 25.
    pairs = [
        played(1, 3, "win", 2, 18, 5, 5), played(3, 1, "loss", 0, 8, -5),
        played(4, 2, "win", 2, 17, 4, 4), played(2, 4, "loss", 0, 9, -4),
    ]  # fmt: skip
    by_team = {o.pair: o for o in team_round_outcomes(1, pairs, TEAM_OF, RULES["sum_jcf"])}
    assert by_team[1] == Outcome(1, 1, 2, "played", "win", 2, 27, 1, 5)
    assert by_team[2] == Outcome(1, 2, 1, "played", "loss", 0, 25, -1, 4)
    levels = {o.pair: o for o in team_round_outcomes(1, pairs, TEAM_OF, RULES["sum_levels"])}
    assert (levels[1].result, levels[1].cf, levels[1].jcf) == ("win", 2, 14)  # d = +1: 14:12
    assert (levels[2].result, levels[2].cf, levels[2].jcf) == ("loss", 0, 12)
    by_cf = {o.pair: o for o in team_round_outcomes(1, pairs, TEAM_OF, RULES["sum_cf"])}
    assert (by_cf[1].result, by_cf[1].cf, by_cf[1].jcf) == ("draw", 2, 27)


def test_sum_levels_caps_the_summed_difference_on_the_scale() -> None:
    pairs = [
        played(1, 3, "win", 2, 23, 10), played(3, 1, "loss", 0, 3, -10),
        played(4, 2, "loss", 0, 4, -9), played(2, 4, "win", 2, 22, 9),
    ]  # fmt: skip
    by_team = {o.pair: o for o in team_round_outcomes(1, pairs, TEAM_OF, RULES["sum_levels"])}
    assert (by_team[1].jcf, by_team[2].jcf) == (26, 0)  # d = 19, capped at 13 → 26:0


def test_a_match_counts_only_with_both_tables_in() -> None:
    pairs = [played(1, 3, "win", 2, 18, 5), played(3, 1, "loss", 0, 8, -5)]
    assert team_round_outcomes(1, pairs, TEAM_OF, RULES["sum_jcf"]) == []


def test_a_team_forfeit_is_two_forfeit_wins_under_every_method() -> None:
    pairs = [
        Outcome(1, 1, 3, "forfeit", "win", 2, 17, 0, 0),
        Outcome(1, 3, 1, "forfeit", "loss", 0, 0, 0, 0),
        Outcome(1, 4, 2, "forfeit", "loss", 0, 0, 0, 0),
        Outcome(1, 2, 4, "forfeit", "win", 2, 17, 0, 0),
    ]
    for method, cf in (("sum_jcf", 2), ("sum_levels", 2), ("sum_cf", 4)):
        by_team = {o.pair: o for o in team_round_outcomes(1, pairs, TEAM_OF, RULES[method])}
        assert by_team[1] == Outcome(1, 1, 2, "forfeit", "win", cf, 34, 0, 0), method
        assert by_team[2] == Outcome(1, 2, 1, "forfeit", "loss", 0, 0, 0, 0), method


def test_a_team_bye_is_two_forfeit_wins() -> None:
    assert team_bye_outcome(2, 5, RULES["sum_jcf"]) == Outcome(
        2, 5, None, "bye", "win", 2, 34, 0, 0
    )
    assert team_bye_outcome(2, 5, RULES["sum_cf"]).cf == 4
    assert team_outcomes([], TEAM_OF, RULES["sum_jcf"], {3: 1})[0].round == 3


def test_deductions_of_a_teams_pairs_count_against_the_team() -> None:
    assert team_deductions([Deduction(None, 2, 1.0), Deduction(2, 4, 0.5)], TEAM_OF) == [
        Deduction(None, 1, 1.0),
        Deduction(2, 2, 0.5),
    ]
    with pytest.raises(StandingsError) as refused:
        team_deductions([Deduction(None, 9, 1.0)], TEAM_OF)
    assert refused.value.code == "pair_without_team"


def test_a_team_facing_two_teams_or_itself_is_refused() -> None:
    team_of = {**TEAM_OF, 5: 3, 6: 3}
    pairs = [played(1, 3, "win", 2, 18, 5), played(2, 5, "win", 2, 18, 5)]
    with pytest.raises(StandingsError) as refused:
        team_round_outcomes(1, pairs, team_of, RULES["sum_jcf"])
    assert refused.value.code == "bad_team_match"
    with pytest.raises(StandingsError):
        team_round_outcomes(1, [played(1, 2, "win", 2, 18, 5)], team_of, RULES["sum_jcf"])
