"""The scoring engine: one table's events → levels, 级差, 级差分 and 场分 (RULES.md §1–§2).

Pure: the standard library and ``rules`` only. ``score_match`` walks a table's events once,
applying ``rules.progression``; the result is immutable and carries the levels after every event
(what the score sheet shows) as well as the recorded result. Invalid sequences raise
``ScoringError`` with a stable code and the 0-based position of the offending event.

A match ends by its deals, by 过A, or by an ``End``: a forfeit (弃权), a loss by penalty (判负)
or a late scoresheet (``late_sheet``, seed 003: the responsible side is scored as a forfeit loss,
the other side keeps the result of the deals). With ``tie: extra_deal`` one deal beyond the
round's number is allowed when the levels are equal (RULES.md §2 "Level tie").
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
    PARTNER_2_OR_3,
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
        """Signed 级差 from North–South's view (0 for a forfeit)."""
        return 0 if self.forfeit else self.ns_level - self.ew_level


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
    passed, the tie rule, the deal limit) as a state machine.

    Each transition is computed once, by ``rules.progression.apply_event`` itself, and then
    remembered: a table's state after an event depends only on its state before and the event.
    Scoring a match is then one dictionary look-up per event, which is what lets standings for
    a 10,000-pair event be recomputed from the raw facts on every change.
    """

    def __init__(
        self,
        a_rule: str,
        a_attempts: int,
        a_fail_count: str,
        a_pass: str,
        tie: str,
        max_deals: int | None,
    ) -> None:
        self.a_rule, self.a_attempts, self.max_deals = a_rule, a_attempts, max_deals
        self.a_fail_count, self.a_pass, self.tie = a_fail_count, a_pass, tie
        self.ids: dict[_State, int] = {}
        self.states: list[_State] = []
        self.rows: list[dict[Event | str, int]] = []
        self.start_ids: dict[tuple[int, int], int] = {}
        # Guards only this memo (computed values, never data) against two threads interning
        # the same state under two ids.
        self.lock = threading.Lock()

    def start_id(self, ns: int, ew: int) -> int:
        try:
            first = initial_state(ns, ew)
        except RuleError as error:
            raise ScoringError("bad_start", **error.params) from None
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
        if state.ns == PAST_ACE or state.ew == PAST_ACE:
            # RULES.md §2: the match ends at once when a side passes A.
            raise ScoringError("event_after_past_a", position=position, token=event.token)
        deals = state.deals
        if event.is_deal:
            deals += 1
            if self.max_deals is not None and deals > self.max_deals:
                # RULES.md §2 "Level tie": with tie extra_deal, one more deal is played when the
                # levels are equal after the last regular deal; it is the only deal allowed
                # beyond deals_per_round.
                extra = deals == self.max_deals + 1 and self.tie == "extra_deal"
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
                        limit=self.max_deals,
                    )
        elif self.max_deals is not None and deals > self.max_deals:
            # The extra deal decides the match: nothing may follow it.
            raise ScoringError("event_after_extra_deal", position=position, token=event.token)
        table = TableState(
            state.ns, state.ew, state.on_stage, state.ns_a_failures, state.ew_a_failures
        )
        change = apply_event(
            table, event, self.a_rule, self.a_attempts, self.a_fail_count, self.a_pass
        )
        after = change.state
        nid = self.state_id(
            _State(
                after.ns, after.ew, after.on_stage, after.ns_a_failures, after.ew_a_failures, deals
            )
        )
        self.rows[sid][item] = nid
        return nid


_MACHINES: dict[tuple[str, int, str, str, str, int | None], _Machine] = {}


def _machine(rules: RuleSet) -> _Machine:
    key = (
        rules.a_rule,
        rules.a_attempts,
        rules.a_fail_count,
        rules.a_pass,
        rules.tie,
        rules.max_deals,
    )
    machine = _MACHINES.get(key)
    if machine is None:
        machine = _MACHINES.setdefault(key, _Machine(*key))
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
    table_ns, table_ew, deals = state.ns, state.ew, state.deals
    passed_a = Side.NS if table_ns == PAST_ACE else (Side.EW if table_ew == PAST_ACE else None)
    extra_deal = rules.max_deals is not None and deals > rules.max_deals
    if complete and passed_a is None and end is None:
        if rules.round_format == "deals" and deals < rules.deals_per_round:
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
    a_rule, a_attempts = rules.a_rule, rules.a_attempts
    a_fail_count, a_pass = rules.a_fail_count, rules.a_pass
    if end is not None and end.kind == FORFEIT:
        # RULES.md §2 弃权: the present side gets the forfeit award, the absent side nothing;
        # both count 0 upgrades.
        award = rules.forfeit
        ns_won = end.side is Side.EW
        return MatchResult(
            events, start, end, table_ns, table_ew, table_ns, table_ew, deals, passed_a, 0,
            end.side.other,
            award.jcf if ns_won else 0,
            0 if ns_won else award.jcf,
            award.cf if ns_won else 0,
            0 if ns_won else award.cf,
            0, 0, end.side, None, state.on_stage, True, a_rule, a_attempts, None, extra_deal,
            a_fail_count, a_pass,
        )  # fmt: skip
    ns_level, ew_level = table_ns, table_ew
    penalty_loss = None
    if end is not None and end.kind == PENALTY_LOSS:  # 判负
        penalty_loss = end.side
        if end.side is Side.NS:
            ns_level, ew_level = penalty_loss_levels(table_ns, table_ew)
        else:
            ew_level, ns_level = penalty_loss_levels(table_ew, table_ns)
    points = rules.match_points
    if ns_level > ew_level:
        jc = ns_level - ew_level
        ahead, behind = rules.scale.points(jc)
        winner, ns_jcf, ew_jcf, ns_cf, ew_cf = Side.NS, ahead, behind, points.win, points.loss
    elif ew_level > ns_level:
        jc = ew_level - ns_level
        ahead, behind = rules.scale.points(jc)
        winner, ns_jcf, ew_jcf, ns_cf, ew_cf = Side.EW, behind, ahead, points.loss, points.win
    else:
        jc = 0
        ahead, behind = rules.scale.points(0)
        winner, ns_jcf, ew_jcf, ns_cf, ew_cf = None, ahead, behind, points.draw, points.draw
    # RULES.md §2 升级数: the final level − 2 (过A = 15 counts 13), after a 判负 (its lowering
    # and its award both count) and after an A reset; the lateness head start counts.
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
    return MatchResult(
        events, start, end, table_ns, table_ew, ns_level, ew_level, deals, passed_a, jc, winner,
        ns_jcf, ew_jcf, ns_cf, ew_cf, ns_upgrades, ew_upgrades, None, penalty_loss,
        state.on_stage, finished, a_rule, a_attempts, late_sheet, extra_deal, a_fail_count,
        a_pass,
    )  # fmt: skip


def extra_deal_allowed(result: MatchResult, rules: RuleSet) -> bool:
    """RULES.md §2 "Level tie": may the table play the extra deal now? Only with ``tie:
    extra_deal``, after the last regular deal, with equal levels, nobody past A and no end."""
    return (
        rules.tie == "extra_deal"
        and rules.max_deals is not None
        and result.deals_played == rules.max_deals
        and result.table_ns_level == result.table_ew_level
        and result.passed_a is None
        and result.end is None
    )


def _replay(result: MatchResult) -> tuple[Step, ...]:
    """The score sheet's rows, event by event, through ``rules.progression.apply_event``."""
    state = initial_state(result.start.ns, result.start.ew)
    steps: list[Step] = []
    deals = 0
    for position, item in enumerate(result.events):
        event = _as_event(item, position)
        deal_number = None
        if event.is_deal:
            deals += 1
            deal_number = deals
        change = apply_event(
            state, event, result.a_rule, result.a_attempts, result.a_fail_count, result.a_pass
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
    diff = result.ns_level - result.ew_level
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
