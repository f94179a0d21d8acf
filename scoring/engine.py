"""The scoring engine: one table's events → levels, 级差, 级差分 and 场分 (RULES.md §1–§2).

Pure: the standard library and ``rules`` only. ``score_match`` walks a table's events once,
applying ``rules.progression``; the result is immutable and carries the levels after every event
(what the score sheet shows) as well as the recorded result. Invalid sequences raise
``ScoringError`` with a stable code and the 0-based position of the offending event.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rules.errors import RuleError, ScoringError
from rules.events import Event, Side, parse_event
from rules.levels import PAST_ACE
from rules.progression import TableState, apply_event, initial_state, penalty_loss_levels
from rules.ruleset import RuleSet

from .standings import Outcome

FORFEIT = "forfeit"
PENALTY_LOSS = "penalty_loss"
END_KINDS = (FORFEIT, PENALTY_LOSS)


@dataclass(frozen=True, slots=True)
class Start:
    """Start levels (lateness: the punctual side starts at 3 or 4, RULES.md §2)."""

    ns: int = 2
    ew: int = 2


@dataclass(frozen=True, slots=True)
class End:
    """How a match ended other than by its deals: ``side`` forfeited (弃权) or lost by
    penalty (判负)."""

    kind: str
    side: Side

    def __post_init__(self) -> None:
        if self.kind not in END_KINDS:
            raise RuleError("bad_end", kind=self.kind)


class Step(NamedTuple):
    """One row of the score sheet: the event and both sides' levels after it."""

    position: int  # 0-based index in the table's events
    event: Event
    deal_number: int | None  # 1-based; None for a level award
    level_played: int | None
    on_stage: Side | None  # who was on stage when the deal was played
    ns_level: int
    ew_level: int
    attempt_at_a: Side | None
    reset_to_2: Side | None


@dataclass(frozen=True, slots=True)
class MatchResult:
    steps: tuple[Step, ...]
    start: Start
    end: End | None
    table_ns_level: int  # levels as played at the table
    table_ew_level: int
    ns_level: int  # recorded levels (after 判负 if any)
    ew_level: int
    deals_played: int
    passed_a: Side | None
    jc: int  # 级差, |ns_level − ew_level|; 0 for a forfeit
    winner: Side | None  # None: a draw
    ns_jcf: float
    ew_jcf: float
    ns_cf: float
    ew_cf: float
    ns_upgrades: int  # levels climbed (升级数), the award of a 判负 included
    ew_upgrades: int
    forfeit: Side | None  # the side that forfeited
    penalty_loss: Side | None  # the side that lost by penalty
    on_stage: Side | None  # who is on stage for the next deal
    finished: bool  # the match cannot go on (过A or an end)

    def level(self, side: Side) -> int:
        return self.ns_level if side is Side.NS else self.ew_level

    def jcf(self, side: Side) -> float:
        return self.ns_jcf if side is Side.NS else self.ew_jcf

    def cf(self, side: Side) -> float:
        return self.ns_cf if side is Side.NS else self.ew_cf

    @property
    def level_difference(self) -> int:
        """Signed 级差 from North–South's view (0 for a forfeit)."""
        return 0 if self.forfeit else self.ns_level - self.ew_level


def _as_event(item: Event | str, position: int) -> Event:
    if isinstance(item, Event):
        return item
    try:
        return parse_event(item, position)
    except RuleError as error:
        raise ScoringError("bad_token", position=position, **error.params) from None


def score_match(
    events: Iterable[Event | str],
    rules: RuleSet,
    start: Start | None = None,
    end: End | None = None,
    complete: bool = True,
) -> MatchResult:
    """Score one match. ``complete=False`` for a table still being played (no minimum number
    of deals is required and the result is provisional)."""
    start = start or Start()
    try:
        state = initial_state(start.ns, start.ew)
    except RuleError as error:
        raise ScoringError("bad_start", **error.params) from None
    max_deals = rules.max_deals
    a_rule, a_attempts = rules.a_rule, rules.a_attempts
    steps: list[Step] = []
    deals = 0
    climbed = {Side.NS: 0, Side.EW: 0}
    for position, item in enumerate(events):
        event = _as_event(item, position)
        if state.ns == PAST_ACE or state.ew == PAST_ACE:
            # RULES.md §2: the match ends at once when a side passes A.
            raise ScoringError("event_after_past_a", position=position, token=event.token)
        deal_number = None
        if event.is_deal:
            deals += 1
            if max_deals is not None and deals > max_deals:
                raise ScoringError(
                    "too_many_deals", position=position, token=event.token, limit=max_deals
                )
            deal_number = deals
        side = event.beneficiary
        before = state.level(side)
        change = apply_event(state, event, a_rule, a_attempts)
        state = change.state
        after = state.level(side)
        if after > before:
            climbed[side] += after - before
        steps.append(
            Step(
                position,
                event,
                deal_number,
                change.level_played,
                change.on_stage,
                state.ns,
                state.ew,
                change.attempt_at_a,
                change.reset_to_2,
            )
        )
    passed_a = state.passed_a
    if complete and passed_a is None and end is None:
        if rules.round_format == "deals" and deals < rules.deals_per_round:
            raise ScoringError("too_few_deals", deals=deals, required=rules.deals_per_round)
        if rules.round_format == "game":
            raise ScoringError("game_not_finished", deals=deals)
    return _result(tuple(steps), state, deals, climbed, start, end, rules)


def _result(
    steps: tuple[Step, ...],
    state: TableState,
    deals: int,
    climbed: dict[Side, int],
    start: Start,
    end: End | None,
    rules: RuleSet,
) -> MatchResult:
    table_ns, table_ew = state.ns, state.ew
    passed_a = state.passed_a
    finished = passed_a is not None or end is not None
    if end is not None and end.kind == FORFEIT:
        # RULES.md §2 弃权: the present side gets the forfeit award, the absent side nothing.
        present = end.side.other
        award = rules.forfeit
        ns_won = present is Side.NS
        return MatchResult(
            steps, start, end, table_ns, table_ew, table_ns, table_ew, deals, passed_a, 0,
            present,
            award.jcf if ns_won else 0,
            0 if ns_won else award.jcf,
            award.cf if ns_won else 0,
            0 if ns_won else award.cf,
            0, 0, end.side, None, state.on_stage, True,
        )  # fmt: skip
    ns_level, ew_level = table_ns, table_ew
    penalty_loss = None
    if end is not None:  # 判负
        penalty_loss = end.side
        offender_level, innocent_level = penalty_loss_levels(
            state.level(end.side), state.level(end.side.other)
        )
        if end.side is Side.NS:
            ns_level, ew_level = offender_level, innocent_level
        else:
            ns_level, ew_level = innocent_level, offender_level
        # The award is climbing too (升级数 counts the recorded levels reached).
        climbed[end.side.other] += max(0, innocent_level - state.level(end.side.other))
    jc = abs(ns_level - ew_level)
    ahead, behind = rules.scale.points(jc)
    points = rules.match_points
    if ns_level > ew_level:
        winner, ns_jcf, ew_jcf, ns_cf, ew_cf = Side.NS, ahead, behind, points.win, points.loss
    elif ew_level > ns_level:
        winner, ns_jcf, ew_jcf, ns_cf, ew_cf = Side.EW, behind, ahead, points.loss, points.win
    else:
        winner, ns_jcf, ew_jcf, ns_cf, ew_cf = None, ahead, behind, points.draw, points.draw
    return MatchResult(
        steps, start, end, table_ns, table_ew, ns_level, ew_level, deals, passed_a, jc, winner,
        ns_jcf, ew_jcf, ns_cf, ew_cf, climbed[Side.NS], climbed[Side.EW], None, penalty_loss,
        state.on_stage, finished,
    )  # fmt: skip


def _outcome_result(won: bool, lost: bool) -> str:
    return "win" if won else ("loss" if lost else "draw")


def match_outcomes(
    round_number: int, ns_pair: int, ew_pair: int, result: MatchResult
) -> tuple[Outcome, Outcome]:
    """Each pair's view of one match, for the standings (TOURNAMENT_FILE.md: byes and forfeits
    count as wins or losses and add 0 to level_difference and upgrades)."""
    kind = "forfeit" if result.forfeit else "played"
    winner = result.winner
    diff = result.level_difference
    ns = Outcome(
        round_number, ns_pair, ew_pair, kind,
        _outcome_result(winner is Side.NS, winner is Side.EW),
        result.ns_cf, result.ns_jcf, diff, 0 if result.forfeit else result.ns_upgrades,
    )  # fmt: skip
    ew = Outcome(
        round_number, ew_pair, ns_pair, kind,
        _outcome_result(winner is Side.EW, winner is Side.NS),
        result.ew_cf, result.ew_jcf, -diff, 0 if result.forfeit else result.ew_upgrades,
    )  # fmt: skip
    return ns, ew


def bye_outcome(round_number: int, pair: int, rules: RuleSet) -> Outcome:
    """RULES.md §2 轮空: by default the same as a forfeit win (2 CF + 17 JCF)."""
    return Outcome(round_number, pair, None, "bye", "win", rules.bye.cf, rules.bye.jcf, 0, 0)


def parse_events(tokens: Sequence[str]) -> tuple[Event, ...]:
    """Parse a table's tokens, naming the first bad one (with its position)."""
    return tuple(_as_event(token, position) for position, token in enumerate(tokens))
