"""A knockout match played best of n games (RULES.md §8, 三局两胜), decided from its games.

Pure: the standard library, ``rules`` and the scoring engine. Each game is one ``MatchResult``
of ``scoring.engine.score_match`` (the one engine: game 2 is scored like any match, from its own
start, 2 : 2 by default); this module only says who won each game and the match.

A game's winner (RULES.md §2, §8):
- a forfeit, a loss by penalty: the result's winner (the other side);
- a late scoresheet: the side that handed it in on time (the late side is scored a forfeit loss);
- otherwise the higher level; a level tie is broken by the extra deal, and when that deal
  leaves the levels equal (both at A, the winner's partner last) the side that won the extra
  deal takes the game ("加打一副牌，决出胜负": the extra deal decides).
A game with equal levels and no extra deal yet is not decided: the extra deal is still to be
played (``scoring.engine.extra_deal_allowed``).

The match is won by the first side to win ``best_of // 2 + 1`` games; no game may follow. Every
game but the last is over (it was followed by another); the last is over when the sheet is
closed or by its own facts (``game_over``): ``decide_games``, for the services' stored games
(``scoring.facts.score_games``) and the tournament file's (``reports.tournament_file``) alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.errors import ScoringError
from rules.events import Event, Side, parse_event
from rules.ruleset import TIMED_FORMATS, RuleSet

from .engine import End, MatchResult, Start, score_match


def game_winner(result: MatchResult) -> Side | None:
    """The side that won a finished game, or None while it is undecided (see the module)."""
    if result.late_sheet is not None:
        return result.late_sheet.other
    if result.winner is not None:
        return result.winner
    if result.extra_deal and result.events:
        last = result.events[-1]
        return (last if not isinstance(last, str) else parse_event(last)).side
    return None


@dataclass(frozen=True, slots=True)
class Series:
    """A best-of-n match so far: each game's result and winner, the games won by each side."""

    best_of: int
    games: tuple[MatchResult, ...]
    winners: tuple[Side | None, ...]  # by game; None: that game is not decided yet

    @property
    def wins_needed(self) -> int:
        return self.best_of // 2 + 1

    def wins(self, side: Side) -> int:
        return sum(1 for winner in self.winners if winner is side)

    @property
    def winner(self) -> Side | None:
        """The side that has won the match, or None while it goes on."""
        for side in (Side.NS, Side.EW):
            if self.wins(side) >= self.wins_needed:
                return side
        return None

    @property
    def leader(self) -> Side | None:
        """Who leads the match (more games won); None when level."""
        ns, ew = self.wins(Side.NS), self.wins(Side.EW)
        return Side.NS if ns > ew else (Side.EW if ew > ns else None)

    @property
    def next_game(self) -> int | None:
        """The number of the game that may be started now: the last game is decided and the
        match is not; None otherwise."""
        if self.winner is not None or (self.winners and self.winners[-1] is None):
            return None
        return len(self.games) + 1


def game_over(result: MatchResult, rules: RuleSet) -> bool:
    """A game ended by its own facts: 过A, an end, the extra deal, or its deals all played
    (``deals``/``timed_deals``; ``rules``: the game's, ``MatchFacts.rules``). A timed game ends
    only when the referee closes it (or calls time on equal levels and the extra deal is
    played)."""
    return result.finished or (
        rules.max_deals is not None and result.deals_played >= rules.max_deals
    )


def decide_series(games: Sequence[MatchResult], best_of: int, last_complete: bool) -> Series:
    """The match from its games in order (each scored complete but the last; ``last_complete``
    says whether the last game is over — scored complete, or closed by the referee).

    Every game but the last must be decided, and no game may follow the deciding one
    (``ScoringError`` ``game_not_decided`` / ``game_after_match``, ``game`` 1-based)."""
    winners: list[Side | None] = []
    needed = best_of // 2 + 1
    last = len(games)
    for number, result in enumerate(games, start=1):
        if any(winners.count(side) >= needed for side in (Side.NS, Side.EW)):
            raise ScoringError("game_after_match", game=number)
        if winners and winners[-1] is None:
            raise ScoringError("game_not_decided", game=number - 1)
        over = result.finished or number < last or last_complete
        winners.append(game_winner(result) if over else None)
    return Series(best_of, tuple(games), tuple(winners))


def decide_games(
    results: Sequence[MatchResult], rules: RuleSet, best_of: int, closed: bool
) -> Series:
    """The match from its games' results in order, every game scored complete but the last
    (complete too when ``closed``: the sheet was submitted). The last game is over when closed
    or by its own facts (``game_over``; ``rules``: the last game's). Raises as
    ``decide_series``."""
    over = closed or (bool(results) and game_over(results[-1], rules))
    return decide_series(results, best_of, over)


def score_game(
    events: Sequence[Event | str],
    rules: RuleSet,
    start: Start | None,
    end: End | None,
    *,
    complete: bool,
) -> tuple[MatchResult, int | None]:
    """One game of a knockout match as the tournament file gives it, by the one engine:
    ``(result, time call)``. A complete game that its levels leave undecided may end with the
    extra deal played when time was called on equal levels (``time_call_of_closed_game``: the
    file has no mark for the call); then it is scored at the time (``RuleSet.at_time``) and the
    time call is the number of deals before it (None otherwise). Raises the engine's
    ``ScoringError``."""
    result = score_match(events, rules, start=start, end=end, complete=complete)
    if not complete or game_winner(result) is not None:
        return result, None
    try:
        time_deals = time_call_of_closed_game(events, rules, start, end)
    except ScoringError:  # the deals before the last do not score: no time call to read
        return result, None
    if time_deals is None:
        return result, None
    at_time = rules.at_time(time_deals)
    return score_match(events, at_time, start=start, end=end, complete=True), time_deals


def time_call_of_closed_game(
    events: Sequence[Event | str], rules: RuleSet, start: Start | None, end: End | None
) -> int | None:
    """A closed timed game (计时制 / 计时计副制, ``tie: extra_deal``) whose levels ended equal,
    as the tournament file gives it (the file has no mark for the time call; TOURNAMENT_FILE.md
    "Deals"): RULES.md §2 says one more deal is played from equal levels when time is called
    and it decides the match, so when the levels were equal before the last deal that deal was
    the extra deal and time was called after the deals before it — their number (for
    ``RuleSet.at_time``). None when that is not so (the game stays undecided)."""
    if rules.round_format not in TIMED_FORMATS or rules.tie != "extra_deal" or end is not None:
        return None
    if not events:
        return None
    last = events[-1]
    if not (last if isinstance(last, Event) else parse_event(last)).is_deal:
        return None
    before = score_match(events[:-1], rules, start=start, complete=False)
    if before.table_ns_level != before.table_ew_level or before.passed_a is not None:
        return None
    if rules.max_deals is not None and before.deals_played > rules.max_deals:
        return None
    return before.deals_played
