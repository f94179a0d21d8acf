"""The round clock (issue 15): when a round's play started, and in the timed formats (计时制 /
计时计副制, RULES.md §2) how long it lasts, the time left and the "最后一副" warning; the
lateness a referee records is counted from the start (RULES.md §2 迟到: 0–5 minutes → the
punctual side starts at 3, 5–10 → at 4, over 10 → the late side forfeits; RULES.md §9: the
event's or the stage's own ``lateness`` rule).

Every figure comes from the rules of the round's stage (``Round.rules``, ``RuleSet.for_stage``):
its round format, and the time limit its ``minutes`` setting gives (RULES.md §9: 70 in heats,
120 in a knockout), offered when the round starts and still changeable there.

``round_clock`` is pure (datetimes in, a frozen ``Clock`` out); ``start_round`` is the one write
(``Round.started_at`` / ``Round.minutes``), audited. Shown on the referee desk, the score sheet
and the projector (``static/js/clock.js`` counts down in the browser from the server's figures).

May touch: ``tournaments.models.Round`` (its clock fields), the audit log.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from rules.events import Side
from rules.ruleset import TIMED_FORMATS
from rules.variants import DEFAULT_MINUTES, MAX_MINUTES
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Round
from tournaments.permissions import ROUND_ROLES, require_role
from tournaments.services import audit

# RULES.md §2: about 8 minutes a deal; under that much time left, the deal being played is the
# last one ("最后一副").
MINUTES_PER_DEAL = 8
DEFAULT_TIMED_MINUTES = DEFAULT_MINUTES
MAX_ROUND_MINUTES = MAX_MINUTES


@dataclass(frozen=True, slots=True)
class Clock:
    """A round's clock at ``now``. ``ends_at`` and ``seconds_left`` only in a timed format."""

    started_at: datetime | None
    ends_at: datetime | None
    seconds_left: int | None
    elapsed_minutes: int | None  # whole minutes since the start, rounded up (lateness)
    last_deal: bool  # under MINUTES_PER_DEAL left: the deal being played is the last
    over: bool  # time is called (计时制: the deals completed count)

    @property
    def started(self) -> bool:
        return self.started_at is not None

    @property
    def timed(self) -> bool:
        return self.ends_at is not None

    @property
    def left_label(self) -> str:
        """The time left as the clock shows it: "12:05" (minutes:seconds), "" untimed."""
        if self.seconds_left is None:
            return ""
        return f"{self.seconds_left // 60:02d}:{self.seconds_left % 60:02d}"

    def as_json(self) -> dict[str, Any]:
        """For the desk's refresh (``referee:round_state``)."""
        return {
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "ends_at": self.ends_at.timestamp() if self.ends_at else None,
            "seconds_left": self.seconds_left,
            "last_deal": self.last_deal,
            "over": self.over,
        }


def round_clock(
    started_at: datetime | None, minutes: int | None, round_format: str, now: datetime
) -> Clock:
    """Pure: the clock of a round started at ``started_at`` lasting ``minutes`` (timed formats
    only; a round of another format has a start but no countdown)."""
    if started_at is None:
        return Clock(None, None, None, None, False, False)
    elapsed = max(0.0, (now - started_at).total_seconds())
    elapsed_minutes = math.ceil(elapsed / 60)
    if round_format not in TIMED_FORMATS or not minutes:
        return Clock(started_at, None, None, elapsed_minutes, False, False)
    ends_at = started_at + timedelta(minutes=minutes)
    left = math.ceil((ends_at - now).total_seconds())
    return Clock(
        started_at,
        ends_at,
        max(0, left),
        elapsed_minutes,
        0 < left <= MINUTES_PER_DEAL * 60,
        left <= 0,
    )


def clock_of(rnd: Round, now: datetime | None = None) -> Clock:
    """The clock of a loaded round now, by its stage's round format (``Round.rules``)."""
    return round_clock(rnd.started_at, rnd.minutes, rnd.rules.round_format, now or timezone.now())


def lateness_suggestion(clock: Clock, rnd: Round, late_side: Side | None = None) -> str:
    """What the minutes since the start mean for a late pair by the round's lateness rule
    (RULES.md §2, §9 ``lateness``): the level the punctual side starts at ("3", "4", … never
    past A), "forfeit" (the late side forfeits), "penalty_loss" (判负 of the late side), or ""
    (no start, or not late, or lateness changes nothing)."""
    if clock.elapsed_minutes is None or clock.elapsed_minutes <= 0:
        return ""
    ruling = rnd.rules.lateness.ruling(clock.elapsed_minutes)
    if ruling.kind == "start":
        return str(ruling.level)
    return "" if ruling.kind == "none" else ruling.kind


def default_minutes(rnd: Round) -> int:
    """The length offered when a round starts (RULES.md §9 ``minutes``): the stage's or the
    event's ``minutes`` when the settings give it; else the previous round's of the same stage
    (typed at its start), else 8 minutes a deal in 计时计副制, else ``DEFAULT_TIMED_MINUTES``."""
    rules = rnd.rules
    if "minutes" in rules.written:
        return rules.minutes
    previous = (
        Round.objects.filter(
            tournament_id=rnd.tournament_id, stage=rnd.stage, number__lt=rnd.number
        )
        .exclude(minutes=None)
        .order_by("-number")
        .values_list("minutes", flat=True)
        .first()
    )
    if previous:
        return int(previous)
    if rules.round_format == "timed_deals" and rules.deals_per_round:
        return rules.deals_per_round * MINUTES_PER_DEAL
    return DEFAULT_TIMED_MINUTES


def start_round(rnd: Round, user: Any, minutes: int | None = None) -> Round:
    """Start a published round's clock now (again, to correct a start given too early): the
    chief referee or an organizer. ``minutes`` is the round's length in a timed format (none
    given: ``default_minutes``, the stage's setting); in another format it is not kept."""
    require_role(user, rnd.tournament, *ROUND_ROLES)
    if minutes is not None and not 1 <= minutes <= MAX_ROUND_MINUTES:
        raise ServiceError("bad_round_minutes", max=MAX_ROUND_MINUTES)
    timed = rnd.rules.round_format in TIMED_FORMATS
    minutes = (minutes or default_minutes(rnd)) if timed else None
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=rnd.pk)
        if locked.status != Round.Status.PUBLISHED:
            raise ServiceError("round_not_published")
        before = {
            "started_at": locked.started_at.isoformat() if locked.started_at else None,
            "minutes": locked.minutes,
        }
        locked.started_at = timezone.now()
        locked.minutes = minutes
        locked.save(update_fields=["started_at", "minutes"])
        audit(
            locked.tournament_id,
            AuditEntry.Action.START_CLOCK,
            user,
            round=locked,
            before=before,
            after={"started_at": locked.started_at.isoformat(), "minutes": minutes},
        )
    rnd.started_at, rnd.minutes = locked.started_at, locked.minutes
    return locked
