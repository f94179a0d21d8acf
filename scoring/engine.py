"""The scoring engine: one table's events → levels, 级差, 级差分 and 场分 (RULES.md §1–§2).

Pure: the standard library and ``rules`` only. ``score_match`` walks a table's events once,
applying ``rules.progression``; the result is immutable and carries the levels after every event
(what the score sheet shows) as well as the recorded result. Invalid sequences raise
``ScoringError`` with a stable code and the 0-based position of the offending event.

A match ends by its deals, by 过A, or by an ``End``: a forfeit (弃权), a loss by penalty (判负)
or a late scoresheet (``late_sheet``, seed 003: the responsible side is scored as a forfeit loss,
the other side keeps the result of the deals). With ``tie: extra_deal`` one deal beyond the
round's number (or beyond the deals played when time was called, ``RuleSet.at_time``) is
allowed when the levels are equal; it decides the match: its winner wins, where the levels stay
equal as a 1-level win, in every stage (RULES.md §2 "Level tie"). The variants of RULES.md §9
are the rules' settings: the levels a deal gives (``upgrades``), the extra deal played at 2
(``extra_deal_from``; it then decides without moving the levels), ``tie: first_to_level`` (a
timed match level at its end goes to the side that reached that level first, a 1-level win),
the start levels lateness may give, the absent side's score of a forfeit, and the deal-points
match (``round_format: deal_points``: every deal at 2, the winning side scores 3/2/1 by its
partner's place, the higher total wins, 级差 = the points difference; ``MatchResult.points``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from rules.errors import RuleError, ScoringError
from rules.events import Event, Side, parse_event
from rules.levels import LOWEST, PAST_ACE
from rules.progression import (
    DEFAULT_UPGRADES,
    PARTNER_2_OR_3,
    PENALTY_LOSS_LEVELS,
    TableState,
    apply_event,
    initial_state,
    penalty_loss_levels,
)
from rules.ruleset import RuleSet

from .standings import Outcome

FORFEIT = "forfeit"
PENALTY_LOSS = "penalty_loss"
LATE_SHEET = "late_sheet"
END_KINDS = (FORFEIT, PENALTY_LOSS, LATE_SHEET)


@dataclass(frozen=True, slots=True)
class Start:
    """Start levels (lateness: the punctual side starts at 3 or 4, RULES.md §2)."""

    ns: int = 2
    ew: int = 2


@dataclass(frozen=True, slots=True)
class End:
    """How a match ended other than by its deals: ``side`` forfeited (弃权), lost by penalty
    (判负), or handed the scoresheet in late (``late_sheet``, the responsible side)."""

    kind: str
    side: Side

    def __post_init__(self) -> None:
        if self.kind not in END_KINDS:
            raise RuleError("bad_end", kind=self.kind)


_DEFAULT_START = Start()


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
    a_failure: Side | None = None  # a failed attempt at A as a_fail_count counts it


class MatchResult(NamedTuple):
    """A match's result. Immutable; a NamedTuple because standings rebuild tens of thousands of
    them on every change and a tuple costs a tenth of a frozen dataclass to build."""

    events: tuple[Event | str, ...]
    start: Start
    end: End | None
    table_ns_level: int  # levels as played at the table
    table_ew_level: int
    ns_level: int  # recorded levels (after 判负 if any)
    ew_level: int
    deals_played: int
    passed_a: Side | None
    jc: int  # 级差, |ns_level − ew_level|; 0 for a forfeit
    winner: Side | None  # None: a draw. With a late sheet: the winner of the deals played
    ns_jcf: float  # 级差分 and 场分 each side is scored (a late sheet's side: 0 and 0)
    ew_jcf: float
    ns_cf: float
    ew_cf: float
    ns_upgrades: int  # 升级数 = final (recorded) level − 2 (RULES.md §2); 0 for a forfeit
    ew_upgrades: int
    forfeit: Side | None  # the side that forfeited
    penalty_loss: Side | None  # the side that lost by penalty
    on_stage: Side | None  # who is on stage for the next deal
    finished: bool  # the match cannot go on (过A, an end or the extra deal played)
    a_rule: str = "continue"
    a_attempts: int = 3
    late_sheet: Side | None = None  # the side that handed the scoresheet in late
    extra_deal: bool = False  # the last deal was the extra deal of a level tie
    a_fail_count: str = "deal"
    a_pass: str = PARTNER_2_OR_3
    upgrades_table: tuple[int, int, int] = DEFAULT_UPGRADES  # RULES.md §9 ``upgrades``
    # The deals before the extra deal (the round's, or those played when time was called).
    regular_deals: int | None = None
    extra_from_two: bool = False  # RULES.md §9: the extra deal was played at 2
    # RULES.md §9 deal points (``round_format: deal_points``): each side's points; the levels
    # stay at 2 (every deal is played at 2). None in every other format.
    points: tuple[int, int] | None = None

    @property
    def steps(self) -> tuple[Step, ...]:
        """The score sheet's rows: every event with both sides' levels after it, replayed
        through ``rules.progression.apply_event`` (scoring a tournament never needs them)."""
        return _replay(self)

    def level(self, side: Side) -> int:
        return self.ns_level if side is Side.NS else self.ew_level

    def jcf(self, side: Side) -> float:
        return self.ns_jcf if side is Side.NS else self.ew_jcf

    def cf(self, side: Side) -> float:
        return self.ns_cf if side is Side.NS else self.ew_cf

    def upgrades(self, side: Side) -> int:
        return self.ns_upgrades if side is Side.NS else self.ew_upgrades

    def lost_by_end(self, side: Side) -> bool:
        """True when ``side`` is scored a loss by the end (forfeit or late sheet), whatever the
        levels say."""
        return side is self.forfeit or side is self.late_sheet

    @property
    def level_difference(self) -> int:
        """Signed 级差 from North–South's view, as scored (``jc``: the levels' difference, a
        1-level win where the extra deal or ``first_to_level`` decided equal levels, the points
        difference of a deal-points match); 0 for a forfeit or a draw."""
        if self.forfeit or self.winner is None:
            return 0
        return self.jc if self.winner is Side.NS else -self.jc

    @property
    def deal_points(self) -> bool:
        return self.points is not None


def _as_event(item: Event | str, position: int) -> Event:
    if isinstance(item, Event):
        return item
    try:
        return parse_event(item, position)
    except RuleError as error:
        raise ScoringError("bad_token", position=position, **error.params) from None


_SIDES = (Side.NS, Side.EW)


class _State(NamedTuple):
    """What the rules need to know at a table between two events."""

    ns: int
    ew: int
    on_stage: Side | None
    ns_a_failures: int
    ew_a_failures: int
    deals: int


class _Machine:
    """The rules of one configuration (A rule and attempts, what counts as a failure, how A is
    passed, the upgrades, the start levels lateness allows, whether a tie plays the extra deal
    and from which levels, the deals before it, deal points) as a state machine.

    Each transition is computed once, by ``rules.progression.apply_event`` itself (in a
    deal-points match: the points of the deal), and then remembered: a table's state after an
    event depends only on its state before and the event. Scoring a match is then one
    dictionary look-up per event, which is what lets standings for a 10,000-pair event be
    recomputed from the raw facts on every change. In a deal-points match ``ns``/``ew`` are
    the sides' points.
    """

    def __init__(self, key: _Key) -> None:
        (
            self.a_rule,
            self.a_attempts,
            self.a_fail_count,
            self.a_pass,
            self.extra,
            self.limit,
            self.upgrades,
            self.start_levels,
            self.from_two,
            self.deal_points,
        ) = key
        self.ids: dict[_State, int] = {}
        self.states: list[_State] = []
        self.rows: list[dict[Event | str, int]] = []
        self.start_ids: dict[tuple[int, int], int] = {}
        # Guards only this memo (computed values, never data) against two threads interning
        # the same state under two ids.
        self.lock = threading.Lock()

    def start_id(self, ns: int, ew: int) -> int:
        try:
            first = initial_state(ns, ew, self.start_levels)
        except RuleError as error:
            raise ScoringError(error.code, **error.params) from None
        if self.deal_points:
            # RULES.md §9: every deal at 2; a lateness head start is a head start in points.
            first = TableState(first.ns - LOWEST, first.ew - LOWEST, None)
        sid = self.state_id(_State(first.ns, first.ew, first.on_stage, 0, 0, 0))
        self.start_ids[(ns, ew)] = sid
        return sid

    def state_id(self, state: _State) -> int:
        found = self.ids.get(state)
        if found is not None:
            return found
        with self.lock:
            found = self.ids.get(state)
            if found is None:
                found = len(self.states)
                self.states.append(state)
                self.rows.append({})
                self.ids[state] = found
        return found

    def step(self, sid: int, item: Event | str, position: int) -> int:
        """The transition from state ``sid`` by ``item``; raises for an impossible event."""
        event = _as_event(item, position)
        state = self.states[sid]
        if not self.deal_points and (state.ns == PAST_ACE or state.ew == PAST_ACE):
            # RULES.md §2: the match ends at once when a side passes A.
            raise ScoringError("event_after_past_a", position=position, token=event.token)
        deals, limit = state.deals, self.limit
        extra = False
        if event.is_deal:
            deals += 1
            if limit is not None and deals > limit:
                # RULES.md §2 "Level tie": with tie extra_deal (and always in a deal-points
                # match), one more deal is played when the sides are level after the last
                # regular deal; it is the only deal beyond them, and it decides the match.
                extra = deals == limit + 1 and self.extra
                if deals > limit + 1 and self.extra:
                    raise ScoringError(
                        "event_after_extra_deal", position=position, token=event.token
                    )
                if extra and state.ns != state.ew:
                    raise ScoringError(
                        "extra_deal_without_tie",
                        position=position,
                        token=event.token,
                        ns=state.ns,
                        ew=state.ew,
                    )
                if not extra:
                    raise ScoringError(
                        "too_many_deals",
                        position=position,
                        token=event.token,
                        limit=limit,
                    )
        elif limit is not None and deals > limit:
            # The extra deal decides the match: nothing may follow it.
            raise ScoringError("event_after_extra_deal", position=position, token=event.token)
        if self.deal_points:
            # RULES.md §9 "6局积分制": the side of the 1st player scores 3 / 2 / 1 by its
            # partner's place (a foul or a deal loss: the other side's 3; an award: its levels).
            gain = event.upgrade
            ns, ew = state.ns, state.ew
            if event.beneficiary is Side.NS:
                ns += gain
            else:
                ew += gain
            after = _State(ns, ew, None, 0, 0, deals)
        elif extra and self.from_two:
            # RULES.md §9 ``extra_deal_from: 2``: the extra deal is played at 2 by both sides;
            # it decides the match (its winner, a 1-level win) and moves no level.
            after = state._replace(deals=deals)
        else:
            table = TableState(
                state.ns, state.ew, state.on_stage, state.ns_a_failures, state.ew_a_failures
            )
            change = apply_event(
                table,
                event,
                self.a_rule,
                self.a_attempts,
                self.a_fail_count,
                self.a_pass,
                self.upgrades,
            )
            moved = change.state
            after = _State(
                moved.ns, moved.ew, moved.on_stage, moved.ns_a_failures, moved.ew_a_failures, deals
            )
        nid = self.state_id(after)
        self.rows[sid][item] = nid
        return nid


_Key = tuple[
    str, int, str, str, bool, int | None, tuple[int, int, int], tuple[int, ...], bool, bool
]
_MACHINES: dict[_Key, _Machine] = {}


def _machine(rules: RuleSet) -> _Machine:
    key: _Key = (
        rules.a_rule,
        rules.a_attempts,
        rules.a_fail_count,
        rules.a_pass,
        rules.plays_extra_deal,
        rules.regular_deals,
        rules.upgrades.values,
        rules.lateness.start_levels,
        rules.extra_from_two,
        rules.deal_points,
    )
    machine = _MACHINES.get(key)
    if machine is None:
        machine = _MACHINES.setdefault(key, _Machine(key))
    return machine


def score_match(
    events: Iterable[Event | str],
    rules: RuleSet,
    start: Start | None = None,
    end: End | None = None,
    complete: bool = True,
) -> MatchResult:
    """Score one match. ``complete=False`` for a table still being played (no minimum number
    of deals is required and the result is provisional).

    The events run through the rules' state machine (``_Machine``): every transition is
    ``rules.progression.apply_event``, computed once and remembered.
    """
    start = start or _DEFAULT_START
    events = tuple(events)
    machine = _machine(rules)
    rows = machine.rows
    sid = machine.start_ids.get((start.ns, start.ew))
    if sid is None:
        sid = machine.start_id(start.ns, start.ew)
    for position, item in enumerate(events):
        try:
            nid = rows[sid].get(item)
        except TypeError:  # an unhashable "token": let step() name it
            nid = None
        sid = machine.step(sid, item, position) if nid is None else nid
    state = machine.states[sid]
    deals = state.deals
    limit = machine.limit
    extra_deal = limit is not None and deals > limit
    points: tuple[int, int] | None = None
    if machine.deal_points:
        # RULES.md §9: the levels stay at 2; the points decide.
        points = (state.ns, state.ew)
        table_ns = table_ew = LOWEST
        passed_a = None
    else:
        table_ns, table_ew = state.ns, state.ew
        passed_a = Side.NS if table_ns == PAST_ACE else (Side.EW if table_ew == PAST_ACE else None)
    if complete and passed_a is None and end is None:
        if rules.round_format in ("deals", "deal_points") and deals < rules.deals_per_round:
            raise ScoringError("too_few_deals", deals=deals, required=rules.deals_per_round)
        if rules.round_format == "game":
            raise ScoringError("game_not_finished", deals=deals)
        if deals == 0:
            # RULES.md §2: a finished match with no deal and no end is refused (nothing was
            # played; a timed table is not a 13:13 draw by default).
            raise ScoringError("nothing_played")
    if end is not None and end.kind == PENALTY_LOSS and passed_a is not None:
        # RULES.md §2: a 判负 after a side has passed A is refused (the match is over).
        raise ScoringError("penalty_loss_after_past_a", side=end.side.value, passed=passed_a.value)
    finished = passed_a is not None or end is not None or extra_deal
    settings = (
        rules.a_rule, rules.a_attempts, rules.a_fail_count, rules.a_pass, rules.upgrades.values,
        limit, machine.from_two, points,
    )  # fmt: skip
    if end is not None and end.kind == FORFEIT:
        # RULES.md §2 弃权: the present side gets the forfeit award, the absent side its own
        # (RULES.md §9 ``forfeit.absent``: 0 and 0 by default, its CF may be negative); both
        # count 0 upgrades.
        award = rules.forfeit
        ns_won = end.side is Side.EW
        return _result(
            events, start, end, table_ns, table_ew, table_ns, table_ew, deals, passed_a, 0,
            end.side.other,
            award.jcf if ns_won else award.absent_jcf,
            award.absent_jcf if ns_won else award.jcf,
            award.cf if ns_won else award.absent_cf,
            award.absent_cf if ns_won else award.cf,
            0, 0, end.side, None, state.on_stage, True, None, extra_deal, settings,
        )  # fmt: skip
    ns_level, ew_level = table_ns, table_ew
    # What decides: the levels, or in a deal-points match the points.
    ns_score, ew_score = points if points is not None else (table_ns, table_ew)
    penalty_loss = None
    if end is not None and end.kind == PENALTY_LOSS:  # 判负
        penalty_loss = end.side
        recorded = _penalty_loss_points if points is not None else penalty_loss_levels
        if end.side is Side.NS:
            ns_score, ew_score = recorded(ns_score, ew_score)
        else:
            ew_score, ns_score = recorded(ew_score, ns_score)
        if points is None:
            ns_level, ew_level = ns_score, ew_score
    points_out = (ns_score, ew_score) if points is not None else None
    match_points = rules.match_points
    jc = abs(ns_score - ew_score)
    if points_out is not None:
        jc = min(jc, rules.scale.max_jc)  # RULES.md §9: the points difference, capped
    winner = Side.NS if ns_score > ew_score else (Side.EW if ew_score > ns_score else None)
    if winner is None and (end is None or end.kind == LATE_SHEET):
        # RULES.md §2 "Level tie": the extra deal decides equal levels — its winner wins,
        # scored as a 1-level win, in every stage; in a timed format with ``first_to_level``
        # the side that reached the common level first (RULES.md §9).
        if extra_deal:
            winner = _extra_deal_winner(events)
        elif rules.tie == "first_to_level":
            winner = _first_to_level(machine, start, events)
        jc = 1 if winner is not None else 0
    if winner is Side.NS:
        ahead, behind = rules.scale.points(jc)
        ns_jcf, ew_jcf, ns_cf, ew_cf = ahead, behind, match_points.win, match_points.loss
    elif winner is Side.EW:
        ahead, behind = rules.scale.points(jc)
        ns_jcf, ew_jcf, ns_cf, ew_cf = behind, ahead, match_points.loss, match_points.win
    else:
        ahead, behind = rules.scale.points(0)
        ns_jcf, ew_jcf, ns_cf, ew_cf = ahead, behind, match_points.draw, match_points.draw
    # RULES.md §2 升级数: the final level − 2 (过A = 15 counts 13), after a 判负 (its lowering
    # and its award both count) and after an A reset; the lateness head start counts. In a
    # deal-points match, a side's points (RULES.md §9).
    if points_out is not None:
        ns_upgrades, ew_upgrades = points_out
    else:
        ns_upgrades, ew_upgrades = ns_level - LOWEST, ew_level - LOWEST
    late_sheet = None
    if end is not None and end.kind == LATE_SHEET:
        # RULES.md §2 "Late scoresheet" (seed 003): the responsible side is scored as a forfeit
        # loss (0 CF, 0 JCF, 0 upgrades); the other side keeps the real result of the deals.
        late_sheet = end.side
        if end.side is Side.NS:
            ns_cf, ns_jcf, ns_upgrades = 0, 0, 0
        else:
            ew_cf, ew_jcf, ew_upgrades = 0, 0, 0
    settings = (*settings[:-1], points_out)
    return _result(
        events, start, end, table_ns, table_ew, ns_level, ew_level, deals, passed_a, jc, winner,
        ns_jcf, ew_jcf, ns_cf, ew_cf, ns_upgrades, ew_upgrades, None, penalty_loss,
        state.on_stage, finished, late_sheet, extra_deal, settings,
    )  # fmt: skip


_Settings = tuple[
    str, int, str, str, tuple[int, int, int], int | None, bool, tuple[int, int] | None
]


def _result(
    events: tuple[Event | str, ...],
    start: Start,
    end: End | None,
    table_ns: int,
    table_ew: int,
    ns_level: int,
    ew_level: int,
    deals: int,
    passed_a: Side | None,
    jc: int,
    winner: Side | None,
    ns_jcf: float,
    ew_jcf: float,
    ns_cf: float,
    ew_cf: float,
    ns_upgrades: int,
    ew_upgrades: int,
    forfeit: Side | None,
    penalty_loss: Side | None,
    on_stage: Side | None,
    finished: bool,
    late_sheet: Side | None,
    extra_deal: bool,
    settings: _Settings,
) -> MatchResult:
    a_rule, a_attempts, a_fail_count, a_pass, upgrades, limit, from_two, points = settings
    return MatchResult(
        events, start, end, table_ns, table_ew, ns_level, ew_level, deals, passed_a, jc, winner,
        ns_jcf, ew_jcf, ns_cf, ew_cf, ns_upgrades, ew_upgrades, forfeit, penalty_loss, on_stage,
        finished, a_rule, a_attempts, late_sheet, extra_deal, a_fail_count, a_pass, upgrades,
        limit, from_two, points,
    )  # fmt: skip


def _penalty_loss_points(offender: int, innocent: int) -> tuple[int, int]:
    """RULES.md §2 判负 in a deal-points match: the innocent side's points are the offender's
    + 4, unless it is already further ahead (then the table score stands)."""
    return offender, max(innocent, offender + PENALTY_LOSS_LEVELS)


def _extra_deal_winner(events: tuple[Event | str, ...]) -> Side | None:
    """The side that won the extra deal (the last deal: its first player's side, the innocent
    side of a foul or a deal loss)."""
    for position in range(len(events) - 1, -1, -1):
        event = _as_event(events[position], position)
        if event.is_deal:
            return event.beneficiary
    return None


def _first_to_level(
    machine: _Machine, start: Start, events: tuple[Event | str, ...]
) -> Side | None:
    """RULES.md §9 ``first_to_level`` (seed 001: "60分钟到时，双方打同一点数时，先晋级的为胜方"):
    of two sides level at the end, the one that arrived at that level first (its level last
    changed earlier); None when neither moved since the start."""
    sid = machine.start_ids[(start.ns, start.ew)]
    arrived = {Side.NS: -1, Side.EW: -1}
    for position, item in enumerate(events):
        before = machine.states[sid]
        sid = machine.rows[sid].get(item) or machine.step(sid, item, position)
        after = machine.states[sid]
        if after.ns != before.ns:
            arrived[Side.NS] = position
        if after.ew != before.ew:
            arrived[Side.EW] = position
    if arrived[Side.NS] == arrived[Side.EW]:
        return None
    return Side.NS if arrived[Side.NS] < arrived[Side.EW] else Side.EW


def extra_deal_allowed(result: MatchResult, rules: RuleSet) -> bool:
    """RULES.md §2 "Level tie": may the table play the extra deal now? Only with ``tie:
    extra_deal`` (always in a deal-points match, RULES.md §9), after the last regular deal (the
    round's, or those played when time was called), level, nobody past A and no end."""
    level = (
        result.points[0] == result.points[1]
        if result.points is not None
        else result.table_ns_level == result.table_ew_level
    )
    limit = rules.regular_deals
    return (
        rules.plays_extra_deal
        and limit is not None
        and result.deals_played == limit
        and level
        and result.passed_a is None
        and result.end is None
    )


def _replay(result: MatchResult) -> tuple[Step, ...]:
    """The score sheet's rows, event by event, through ``rules.progression.apply_event`` (the
    extra deal played at 2 moves no level; in a deal-points match the rows' levels are the
    sides' points and every deal is played at 2)."""
    steps: list[Step] = []
    deals = 0
    limit = result.regular_deals
    points = result.points is not None
    ns, ew = result.start.ns - LOWEST, result.start.ew - LOWEST  # a deal-points match's points
    state = initial_state(result.start.ns, result.start.ew, _ANY_START)
    for position, item in enumerate(result.events):
        event = _as_event(item, position)
        deal_number = None
        if event.is_deal:
            deals += 1
            deal_number = deals
        if points:
            if event.beneficiary is Side.NS:
                ns += event.upgrade
            else:
                ew += event.upgrade
            played = LOWEST if event.is_deal else None
            steps.append(Step(position, event, deal_number, played, None, ns, ew, None, None))
            continue
        if result.extra_from_two and limit is not None and deals > limit and event.is_deal:
            steps.append(
                Step(position, event, deal_number, LOWEST, None, state.ns, state.ew, None, None)
            )
            continue
        change = apply_event(
            state,
            event,
            result.a_rule,
            result.a_attempts,
            result.a_fail_count,
            result.a_pass,
            result.upgrades_table,
        )
        state = change.state
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
                change.a_failure,
            )
        )
    return tuple(steps)


# A scored result's start was checked against its rules' start levels when it was scored.
_ANY_START = tuple(range(LOWEST, PAST_ACE))


_RESULTS = {Side.NS: ("win", "loss"), Side.EW: ("loss", "win"), None: ("draw", "draw")}


def match_outcomes(
    round_number: int, ns_pair: int, ew_pair: int, result: MatchResult
) -> tuple[Outcome, Outcome]:
    """Each pair's view of one match, for the standings (TOURNAMENT_FILE.md: byes and forfeits
    count as wins or losses and add 0 to level_difference and upgrades; a late sheet's side
    counts a loss with 0 CF, 0 JCF, 0 level_difference and 0 upgrades, its opponent keeps the
    real figures of the deals)."""
    ns_result, ew_result = _RESULTS[result.winner]
    if result.forfeit:
        return (
            Outcome(
                round_number, ns_pair, ew_pair, "forfeit", ns_result, result.ns_cf,
                result.ns_jcf, 0, 0,
            ),
            Outcome(
                round_number, ew_pair, ns_pair, "forfeit", ew_result, result.ew_cf,
                result.ew_jcf, 0, 0,
            ),
        )  # fmt: skip
    diff = result.level_difference
    ns_diff, ew_diff = diff, -diff
    if result.late_sheet is Side.NS:
        ns_result, ns_diff = "loss", 0
    elif result.late_sheet is Side.EW:
        ew_result, ew_diff = "loss", 0
    return (
        Outcome(
            round_number, ns_pair, ew_pair, "played", ns_result, result.ns_cf, result.ns_jcf,
            ns_diff, result.ns_upgrades,
        ),
        Outcome(
            round_number, ew_pair, ns_pair, "played", ew_result, result.ew_cf, result.ew_jcf,
            ew_diff, result.ew_upgrades,
        ),
    )  # fmt: skip


def bye_outcome(round_number: int, pair: int, rules: RuleSet) -> Outcome:
    """RULES.md §2 轮空: by default the same as a forfeit win (2 CF + the scale's 4-level win:
    17 on 26:0, 18 on 28)."""
    return Outcome(round_number, pair, None, "bye", "win", rules.bye.cf, rules.bye.jcf, 0, 0)
