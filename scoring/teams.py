"""Team matches (复式/团体, RULES.md §6): the two tables of a match combined into one outcome per
team, a team bye, and the deductions of a team's pairs counted against the team.

Pure (no Django). Each table is scored as a pairs match (``scoring.engine``) and gives each pair
its ``Outcome``; this module turns one round's pair outcomes into team outcomes, which the SAME
standings engine (``scoring.standings``: ``standings_setup``, ``advance``, ``state_after``) ranks
with the entrants being teams. Team ids are whole numbers chosen by the caller (the services use
the team's place in registration order, 1…T, so the database and the file agree).

How a match is combined (``team_scoring``, TOURNAMENT_FILE.md; docs/scoring.md "Team events"
works an example of each). A team's *own* outcomes are those of its two pairs (one NS at table
2m − 1, one EW at table 2m), its opponent's those of the other team's two pairs:

- ``sum_jcf`` (default): JCF = the sum of the two pairs' JCF; the team with the larger sum wins
  (equal sums: a draw) and gets the match points of a win / draw / loss.
- ``sum_levels``: d = the sum of the pairs' signed 级差 (a forfeit table counts as a 4-level
  win or loss, ``FORFEIT_LEVELS``: the scale's forfeit award); JCF = the scale's value for |d|
  (ahead when d > 0, behind when d < 0, the draw value when d = 0); d's sign decides the match.
  A late sheet's table counts 0 for the responsible team and the real difference for the other
  (as for pairs), so the two teams' d need not be opposite.
- ``sum_cf``: each table gives its own CF and JCF to its team (0…4 CF a match); there is no
  separate match result, so wins/draws/losses count by the CF sums compared.

In every method ``level_difference`` and ``upgrades`` are the sums of the two pairs' (forfeits
add 0), and a team's match counts only once both its tables are (confirmed and) given: a team
with one table in is left out of the round, as a pair whose table is not confirmed.

A *team forfeit* (RULES.md §6: the team cannot field two pairs, so both tables are forfeits of
its pairs) scores as the two forfeit wins for the present team: the JCF of both tables (2 × 17
on 26:0) and the match points of a win (``sum_cf``: both tables' CF), a loss with 0 and 0 for the
absent team, kind ``forfeit``. A *team bye* scores as two forfeit wins too: 2 × the bye's JCF and
the bye's CF (``sum_cf``: twice the bye's CF).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import groupby
from operator import attrgetter

from rules.ruleset import FORFEIT_LEVELS, TEAM_SCORING, RuleSet
from scoring.criteria import Deduction, Outcome, StandingsError, rounded_figure


def team_bye_outcome(round_number: int, team: int, rules: RuleSet) -> Outcome:
    """RULES.md §6: a team bye scores as two forfeit wins (2 CF and 2 × 17 JCF by default;
    ``sum_cf``: each table's CF, so twice the bye's CF)."""
    cf = rules.bye.cf * (2 if rules.team_scoring == "sum_cf" else 1)
    return Outcome(round_number, team, None, "bye", "win", cf, 2 * rules.bye.jcf, 0, 0)


def team_round_outcomes(
    round_number: int,
    pair_outcomes: Iterable[Outcome],
    team_of: Mapping[int, int],
    rules: RuleSet,
    bye_team: int | None = None,
) -> list[Outcome]:
    """One ``Outcome`` per team of round ``round_number`` whose match has both tables in, plus
    the team bye. ``pair_outcomes`` are the round's pair outcomes (confirmed tables),
    ``team_of`` maps a pair id to its team id.

    Raises ``StandingsError``: ``pair_without_team`` (a pair that belongs to no team),
    ``bad_team_match`` (a team's pairs facing two teams, its own team, or more than two
    tables)."""
    if rules.team_scoring not in TEAM_SCORING:
        raise StandingsError("bad_team_scoring", method=rules.team_scoring)
    mine: dict[int, list[Outcome]] = {}
    for o in pair_outcomes:
        team = team_of.get(o.pair)
        if team is None:
            raise StandingsError("pair_without_team", pair=o.pair, round=o.round)
        mine.setdefault(team, []).append(o)
    outcomes: list[Outcome] = []
    for team, own in mine.items():
        opponents = {team_of.get(o.opponent) if o.opponent is not None else None for o in own}
        if len(own) > 2 or len(opponents) != 1 or team in opponents or None in opponents:
            raise StandingsError("bad_team_match", team=team, round=round_number)
        if len(own) < 2:  # the other table is not in yet: the match does not count yet
            continue
        opponent = opponents.pop()
        assert opponent is not None
        theirs = mine.get(opponent, [])
        if len(theirs) != 2:
            raise StandingsError("bad_team_match", team=team, round=round_number)
        outcomes.append(_combined(round_number, team, opponent, own, theirs, rules))
    if bye_team is not None:
        if bye_team in mine:
            raise StandingsError("bad_team_match", team=bye_team, round=round_number)
        outcomes.append(team_bye_outcome(round_number, bye_team, rules))
    return outcomes


def _combined(
    number: int,
    team: int,
    opponent: int,
    own: Sequence[Outcome],
    theirs: Sequence[Outcome],
    rules: RuleSet,
) -> Outcome:
    """Team ``team``'s view of its match against ``opponent`` (see the module docstring)."""
    method = rules.team_scoring
    points = rules.match_points
    level_difference = sum(o.level_difference for o in own)
    upgrades = sum(o.upgrades for o in own)
    own_cf = rounded_figure(sum(o.cf for o in own))
    own_jcf = rounded_figure(sum(o.jcf for o in own))
    # A team forfeit: both tables forfeited by the same team (RULES.md §6).
    if all(o.kind == "forfeit" for o in own) and len({o.result for o in own}) == 1:
        result = own[0].result
        if result == "win":
            cf = own_cf if method == "sum_cf" else points.win
            return Outcome(number, team, opponent, "forfeit", "win", cf, own_jcf, 0, 0)
        return Outcome(number, team, opponent, "forfeit", "loss", 0, 0, 0, 0)
    if method == "sum_jcf":
        result = _compare(own_jcf, rounded_figure(sum(o.jcf for o in theirs)))
        cf, jcf = _match_points(result, rules), own_jcf
    elif method == "sum_levels":
        d = sum(map(_levels, own))
        result = "win" if d > 0 else "loss" if d < 0 else "draw"
        ahead, behind = rules.scale.points(abs(d))
        cf, jcf = _match_points(result, rules), ahead if d >= 0 else behind
    else:  # sum_cf
        result = _compare(own_cf, rounded_figure(sum(o.cf for o in theirs)))
        cf, jcf = own_cf, own_jcf
    return Outcome(number, team, opponent, "played", result, cf, jcf, level_difference, upgrades)


def _compare(mine: float, theirs: float) -> str:
    return "win" if mine > theirs else "loss" if mine < theirs else "draw"


def _match_points(result: str, rules: RuleSet) -> float:
    points = rules.match_points
    return points.win if result == "win" else points.loss if result == "loss" else points.draw


def _levels(o: Outcome) -> int:
    """A table's signed level difference for ``sum_levels``: a forfeit is the scale's
    forfeit award, a 4-level win or loss (RULES.md §2)."""
    if o.kind == "forfeit":
        return FORFEIT_LEVELS if o.result == "win" else -FORFEIT_LEVELS
    return o.level_difference


def team_outcomes(
    pair_outcomes: Iterable[Outcome],
    team_of: Mapping[int, int],
    rules: RuleSet,
    bye_teams: Mapping[int, int] | None = None,
) -> list[Outcome]:
    """``team_round_outcomes`` of every round: ``pair_outcomes`` of any rounds, ``bye_teams``
    the team bye by round number."""
    byes = dict(bye_teams or {})
    outcomes: list[Outcome] = []
    ordered = sorted(pair_outcomes, key=attrgetter("round"))
    for number, bucket in groupby(ordered, key=attrgetter("round")):
        outcomes.extend(team_round_outcomes(number, bucket, team_of, rules, byes.pop(number, None)))
    for number, team in sorted(byes.items()):  # rounds with a bye and no table counted yet
        outcomes.extend(team_round_outcomes(number, (), team_of, rules, team))
    return outcomes


def team_deductions(deductions: Iterable[Deduction], team_of: Mapping[int, int]) -> list[Deduction]:
    """RULES.md §6: the deductions of a team's pairs count against the team (same order)."""
    out: list[Deduction] = []
    for d in deductions:
        team = team_of.get(d.pair)
        if team is None:
            raise StandingsError("pair_without_team", pair=d.pair, round=d.round)
        out.append(Deduction(d.round, team, d.jcf))
    return out


__all__ = [
    "TEAM_SCORING",
    "team_bye_outcome",
    "team_deductions",
    "team_outcomes",
    "team_round_outcomes",
]
