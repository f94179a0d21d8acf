"""Level progression and match end (RULES.md §1–§2), one event at a time.

Everything here is a small pure function over a ``TableState`` so that the scoring engine, the
entry page's live sheet and the tests all apply the same rules.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import RuleError
from .events import Event, Side
from .levels import ACE, LOWEST, PAST_ACE
from .variants import Lateness

JACK = 11
PENALTY_LOSS_LEVELS = 4  # RULES.md §2: 判负 = the offender's level + 4
# RULES.md §2: the punctual side starts at 3 (0–5 min) or 4 (``lateness: regulation``); other
# lateness rules give other start levels (``rules.variants.Lateness.start_levels``).
LATENESS_START_LEVELS = Lateness().start_levels
# RULES.md §1/§9 ``upgrades``: the levels for a deal token's digit 3 / 2 / 1 (partner 2nd, 3rd,
# last): 3 / 2 / 1 by default.
DEFAULT_UPGRADES = (3, 2, 1)

# RULES.md §1 "How A is passed" (``a_pass``): the upgrades that pass A for a side on stage at its
# own A. ``partner_2_or_3`` (seeds 000/003/004 and Jiangsu): +3 or +2; ``double_only`` (a company
# sheet in seed 001, "只有对方双下时才算是赢得本局"): only +3. A foul or a deal loss of the other
# side is scored as +3 (双下), so it passes A under both.
PARTNER_2_OR_3 = "partner_2_or_3"
A_PASS_UPGRADES: dict[str, frozenset[int]] = {
    PARTNER_2_OR_3: frozenset({2, 3}),
    "double_only": frozenset({3}),
}
# RULES.md §1 "Failed attempts at A" (``a_fail_count``): ``deal`` — every deal played at the
# side's own A (on stage at A) that does not pass A; ``stage`` (seed 002, "第三次上臺又被推翻") — a
# stay on stage at A that ends by losing a deal.
A_FAIL_COUNTS = ("deal", "stage")


class TableState(NamedTuple):
    """Both sides' levels, who is on stage (None before the first deal), and each side's failed
    attempts at its own A (only counted for the ``reset_to_2`` variant)."""

    ns: int = LOWEST
    ew: int = LOWEST
    on_stage: Side | None = None
    ns_a_failures: int = 0
    ew_a_failures: int = 0

    def level(self, side: Side) -> int:
        return self.ns if side is Side.NS else self.ew

    @property
    def passed_a(self) -> Side | None:
        if self.ns == PAST_ACE:
            return Side.NS
        if self.ew == PAST_ACE:
            return Side.EW
        return None

    @property
    def level_in_play(self) -> int:
        """RULES.md §1: a deal is played at the level of the side on stage (the first at 2, or
        at the lower start level when nobody is on stage yet)."""
        if self.on_stage is None:
            return min(self.ns, self.ew)
        return self.level(self.on_stage)


class Change(NamedTuple):
    """What one event did: the new state and what a score sheet notes about it."""

    state: TableState
    level_played: int | None  # None for a level award (not a deal)
    on_stage: Side | None  # who was on stage when the deal was played
    attempt_at_a: Side | None  # the side on stage at its own A when this deal was played
    reset_to_2: Side | None  # the side dropped back to 2 (a_rule reset_to_2)
    a_failure: Side | None = None  # the side whose failed attempt at A this was (a_fail_count)


def initial_state(
    ns: int = LOWEST, ew: int = LOWEST, start_levels: tuple[int, ...] = LATENESS_START_LEVELS
) -> TableState:
    """The state before the first deal. RULES.md §1/§2: with lateness the punctual side starts
    higher and is on stage for the first deal."""
    # Lateness is the only reason start levels differ (RULES.md §2 迟到): the late side starts at
    # 2 and the punctual side at a level the event's lateness rule gives (``start_levels``: 2, 3
    # or 4 by the regulation; never past A). Anything else cannot happen at a table.
    if min(ns, ew) != LOWEST or not LOWEST <= max(ns, ew) <= ACE:
        raise RuleError("bad_start", ns=ns, ew=ew)
    if max(ns, ew) not in start_levels:
        raise RuleError("start_beyond_lateness", ns=ns, ew=ew, top=max(start_levels))
    on_stage = None if ns == ew else (Side.NS if ns > ew else Side.EW)
    return TableState(ns, ew, on_stage)


def start_for_lateness(
    minutes_late: float, late_side: Side, lateness: Lateness | None = None
) -> TableState | None:
    """RULES.md §2 迟到 (``lateness``: the event's rule, by default the regulation's): the
    start levels for a lateness of ``minutes_late`` (late up to 5 minutes → the punctual side
    starts at 3; 5–10 → at 4), or ``None`` when it is not a start: over 10 minutes the late
    side forfeits the round (other rules: a forfeit or a 判负, ``Lateness.ruling``)."""
    rule = lateness or Lateness()
    ruling = rule.ruling(minutes_late)
    if ruling.kind not in ("none", "start"):
        return None
    punctual_level = ruling.level
    if late_side is Side.NS:
        return initial_state(LOWEST, punctual_level, rule.start_levels)
    return initial_state(punctual_level, LOWEST, rule.start_levels)


def _with_level(state: TableState, side: Side, level: int) -> TableState:
    return state._replace(ns=level) if side is Side.NS else state._replace(ew=level)


def apply_event(
    state: TableState,
    event: Event,
    a_rule: str = "continue",
    a_attempts: int = 3,
    a_fail_count: str = "deal",
    a_pass: str = PARTNER_2_OR_3,
    upgrades: tuple[int, int, int] = DEFAULT_UPGRADES,
) -> Change:
    """Apply one event. The caller has checked that nobody has passed A yet.

    ``a_rule``/``a_attempts`` (RULES.md §1 "Failed attempts at A"), ``a_fail_count`` (what
    counts as a failure), ``a_pass`` (how A is passed) and ``upgrades`` (the levels for a
    deal's partner 2nd / 3rd / last, RULES.md §9; a foul or a deal loss is the other side's
    双下) are the tournament's settings. Passing A reads the deal's partner place, not its
    levels.
    """
    winner = event.beneficiary
    current = state.level(winner)
    if not event.is_deal:
        # RULES.md §3 升级调整 / TOURNAMENT_FILE.md: an award is capped at A and never passes A;
        # it is not a deal, so it moves nobody on or off stage.
        new_state = _with_level(state, winner, min(current + event.upgrade, ACE))
        return Change(new_state, None, state.on_stage, None, None)

    on_stage = state.on_stage
    level_played = state.level_in_play
    attempt = on_stage if on_stage is not None and state.level(on_stage) == ACE else None
    if attempt is winner:
        # RULES.md §1 A必打: on stage at its own A, the side passes A only with the partner 2nd
        # or 3rd (+3/+2; ``double_only``: +3 alone); otherwise it stays at A, on stage.
        new_level = PAST_ACE if event.upgrade in A_PASS_UPGRADES[a_pass] else ACE
    else:
        # An upgrade never jumps past A: it stops at A (RULES.md §1). A side at A that wins a
        # deal played at the other side's level stays at A and goes on stage: no attempt.
        new_level = min(current + upgrade_levels(event.upgrade, upgrades), ACE)
    new_state = _with_level(state, winner, new_level)._replace(on_stage=winner)

    failure: Side | None = None
    if attempt is not None and new_level != PAST_ACE:
        # RULES.md §1: with ``deal`` every deal at its own A that does not pass A is a failed
        # attempt; with ``stage`` only losing the deal (leaving the stage) is — a win at A that
        # does not pass A keeps the side on stage.
        if a_fail_count == "deal" or attempt is not winner:
            failure = attempt
    reset: Side | None = None
    if failure is not None and a_rule == "reset_to_2":
        # Only counted, and only acted on, for reset_to_2.
        if failure is Side.NS:
            failures = state.ns_a_failures + 1
            new_state = new_state._replace(ns_a_failures=failures)
        else:
            failures = state.ew_a_failures + 1
            new_state = new_state._replace(ew_a_failures=failures)
        if failures >= a_attempts:
            reset = failure
            new_state = _with_level(new_state, failure, LOWEST)
            if failure is Side.NS:
                new_state = new_state._replace(ns_a_failures=0)
            else:
                new_state = new_state._replace(ew_a_failures=0)
    return Change(new_state, level_played, on_stage, attempt, reset, failure)


def upgrade_levels(token: int, upgrades: tuple[int, int, int] = DEFAULT_UPGRADES) -> int:
    """The levels a deal token's digit gives (3: partner 2nd, 2: 3rd, 1: last; RULES.md §9)."""
    return upgrades[3 - token]


def penalty_loss_levels(offender_level: int, innocent_level: int) -> tuple[int, int]:
    """RULES.md §2 判负: the innocent side's level is recorded as the offender's + 4, the
    offender first lowered to J if above J (so J + 4 = 过A) — unless the real difference already
    favours the innocent side by more than 4, in which case the table score stands.
    Returns the recorded (offender, innocent) levels."""
    if innocent_level - offender_level > PENALTY_LOSS_LEVELS:
        return offender_level, innocent_level
    offender = min(offender_level, JACK)
    return offender, offender + PENALTY_LOSS_LEVELS
