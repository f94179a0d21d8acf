"""The correction deadlines of a round's tables (RULES.md §7, seed 004 "成绩更正时限"): an entry
error (录入错误) within the round's minutes after the round finished, a published-result error
(公布成绩错误, or any error the referees find) within the stage's minutes after the stage
finished; the minutes are settings (``RuleSet.correction_deadline_minutes``: 10 and 20 by
default, a stage's own ``correction_minutes`` for its stage part). After the deadline a result
stands unless the chief referee overrides (``scoring.services.correct_table``, logged).

Which times count:
- the round finished at ``Round.finished_at`` (set when the round is finished, every table
  confirmed — the same time the appeal window counts from, ``scoring.appeals``);
- the stage finished at the ``finished_at`` of its last round, once the stage is over: the
  round that ended it is marked (``Round.ends_stage``, set by ``pairing.services.finish_round``,
  which knows when a group or knockout stage is over), a round of a later stage exists (a stage
  starts only when the one before it is finished), the tournament is finished (its last stage
  is), or a Swiss stage has played its rounds (the last three also read an imported file's
  rounds). Until then, and while the round is still on, the deadline has not started
  (``Deadline.since`` None).

May touch: ``tournaments.models`` (reads only) and ``scoring.corrections``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.corrections import Deadline, ErrorKind, correction_deadline
from tournaments.models import Round, Tournament


def stage_finished_at(rnd: Round) -> datetime | None:
    """When ``rnd``'s stage finished (the end of its last round), or None while it is on."""
    rows = list(
        Round.objects.filter(tournament_id=rnd.tournament_id).values_list(
            "stage", "status", "finished_at", "ends_stage"
        )
    )
    own = [(status, finished) for stage, status, finished, _e in rows if stage == rnd.stage]
    if not own or any(status != Round.Status.FINISHED or not at for status, at in own):
        return None
    tournament = rnd.tournament
    planned = tournament.rules.stage(rnd.stage).planned_rounds
    over = (
        any(ends for stage_number, _s, _f, ends in rows if stage_number == rnd.stage)
        or any(stage_number > rnd.stage for stage_number, _s, _f, _e in rows)
        or tournament.status == Tournament.Status.FINISHED
        or (planned is not None and len(own) >= planned)
    )
    return max(at for _status, at in own) if over else None


@dataclass(frozen=True, slots=True)
class RoundDeadlines:
    """Both deadlines of a round's tables."""

    round: int
    stage: int
    entry: Deadline
    published: Deadline

    def of(self, kind: ErrorKind | str) -> Deadline:
        return self.entry if ErrorKind(kind) is ErrorKind.ENTRY else self.published

    def all_passed(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        return self.entry.passed(now) and self.published.passed(now)

    def first_open(self, now: datetime | None = None) -> ErrorKind:
        """The kind a correction form offers first: an entry error while its window is open."""
        return (
            ErrorKind.ENTRY if not self.entry.passed(now or timezone.now()) else ErrorKind.PUBLISHED
        )


def round_deadlines(rnd: Round) -> RoundDeadlines:
    """The deadlines of ``rnd``'s tables as they stand now."""
    minutes = rnd.tournament.rules.correction_deadline_minutes(rnd.stage)
    finished = rnd.finished_at if rnd.status == Round.Status.FINISHED else None
    stage_end = stage_finished_at(rnd) if finished is not None else None
    return RoundDeadlines(
        rnd.number,
        rnd.stage,
        correction_deadline(ErrorKind.ENTRY, minutes, finished, stage_end),
        correction_deadline(ErrorKind.PUBLISHED, minutes, finished, stage_end),
    )


def clock(moment: datetime) -> str:
    """A deadline as the desk shows it: HH:MM local time."""
    return timezone.localtime(moment).strftime("%H:%M")


def too_late_params(deadlines: RoundDeadlines, kind: ErrorKind) -> dict[str, Any]:
    """The parameters of ``correction_too_late_round`` / ``_stage`` (tournaments.messages)."""
    deadline = deadlines.of(kind)
    assert deadline.since is not None
    return {
        "round": deadlines.round,
        "stage": deadlines.stage,
        "finished": clock(deadline.since),
        "minutes": deadline.minutes,
    }


def deadline_text(deadline: Deadline) -> str:
    """ "至 10:10", or while the round or stage is on, "本轮结束后10分钟" / "本阶段结束后20分钟"."""
    if deadline.until is not None:
        return _("至 %(time)s") % {"time": clock(deadline.until)}
    if deadline.kind is ErrorKind.ENTRY:
        return _("本轮结束后%(minutes)s分钟") % {"minutes": deadline.minutes}
    return _("本阶段结束后%(minutes)s分钟") % {"minutes": deadline.minutes}


def desk_line(deadlines: RoundDeadlines, now: datetime | None = None) -> dict[str, Any]:
    """What the desk shows of a confirmed table's deadline: "可更正至 HH:MM" (the later of the
    open deadlines), or while a window has not started, until when after it; or "更正期限已过，
    仅裁判长可更正"."""
    now = now or timezone.now()
    if deadlines.all_passed(now):
        return {"passed": True, "text": _("更正期限已过，仅裁判长可更正")}
    open_ = [d for d in (deadlines.entry, deadlines.published) if not d.passed(now)]
    unstarted = [d for d in open_ if d.until is None]
    if unstarted:
        # The published-result window is the later one whenever it has not started.
        latest = unstarted[-1]
        return {"passed": False, "text": _("可更正至%(when)s") % {"when": deadline_text(latest)}}
    until = max(d.until for d in open_ if d.until is not None)
    return {"passed": False, "text": _("可更正至 %(time)s") % {"time": clock(until)}}
