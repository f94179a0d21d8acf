"""Round services: generate a draft, publish, unpublish, finish; a seated pair's withdrawal.

May touch: ``pairing`` models (rounds, tables, seats), read ``tournaments``/``scoring`` models,
write ``AuditEntry`` (append only), and call the pure engines (``pairing.swiss``, the stages'
``pairing.stages``). Every write runs in ``transaction.atomic()``; generating locks the tournament
row (so two organizers clicking at once get one round — the second sees the draft and is
refused), the other services lock the round row. Round generation is all-or-nothing: the engine
runs before anything is written.

A Swiss round is drawn the same way for pairs and for teams (``pairing.entrants``: the field, read
once — entrants, standings, history — and how its draw is seated); writing a round is
``pairing.draws``; a draft's checks and the swaps by hand are ``pairing.review``. Their public
names are importable from here too.
"""

from __future__ import annotations

import random
from typing import Any

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Table, Tournament, new_entry_token
from tournaments.permissions import ROUND_ROLES, require_role
from tournaments.queries import live_table_of
from tournaments.services import audit, bump_results_version

from .draws import TableSpec, create_round, lock_round, match_tables, round_seed
from .entrants import PairField, TeamField, pair_field, swiss_input, team_field, team_swiss_input
from .review import (
    PairingWarning,
    draw_checks,
    round_matches,
    swap_pairs,
    swap_teams,
    table_view,
    team_draw_checks,
)
from .stages import next_stage, plan_stage_round, stage_finished


def generate_round(tournament: Tournament, user: Any = None) -> Round:
    """Pair the next round as a draft (round 1 by lot or seeding, later rounds Swiss; a
    round-robin or knockout stage's round by its stage).

    Refused while a round is a draft or published and unfinished, or when the planned number
    of rounds (or every stage) is played. The engine's ``PairingError`` becomes a
    ``ServiceError`` with its code.
    """
    require_role(user, tournament, *ROUND_ROLES)
    with transaction.atomic():
        # Lock the tournament row: a second organizer's click waits here, then sees the draft.
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        number, where = _next_round(locked)
        return _draw_round(locked, user, number, where)


def _next_round(locked: Tournament) -> tuple[int, tuple[int, bool] | None]:
    """The number of the round to draw and, in a staged event, its stage and whether the round
    starts it (``pairing.stages.next_stage``)."""
    rules = locked.rules
    last = Round.objects.filter(tournament=locked).order_by("-number").first()
    if last is not None and last.status != Round.Status.FINISHED:
        raise ServiceError("round_in_progress", number=last.number)
    number = last.number + 1 if last is not None else 1
    where = None
    if rules.stages:
        where = next_stage(locked)
        if where is None:
            raise ServiceError("stages_complete", stages=len(rules.stages))
    elif rules.rounds is not None and number > rules.rounds:
        raise ServiceError("rounds_complete", rounds=rules.rounds)
    return number, where


def _draw_round(
    locked: Tournament, user: Any, number: int, where: tuple[int, bool] | None
) -> Round:
    """Which draw round ``number`` is: its stage's (a round-robin or knockout stage,
    ``pairing.stages``), else a Swiss round of the event's entrants — pairs, or teams."""
    rules = locked.rules
    if where is not None and not rules.stage(where[0]).type.swiss_paired:
        stage, starts = where
        return _generate_stage_round(locked, user, number, stage, starts)
    field = team_field(locked, number) if rules.event == "teams" else pair_field(locked, number)
    return _generate_swiss_round(locked, user, number, field)


def _generate_swiss_round(
    locked: Tournament, user: Any, number: int, field: PairField | TeamField
) -> Round:
    """A Swiss round of ``field`` (pairs or teams alike) as a draft; inside
    ``generate_round``'s transaction, the tournament row locked."""
    from .swiss import PairingError, SwissOptions, pair_round

    field.check()
    rules = locked.rules
    seed = round_seed(rules.seed, number)
    options = SwissOptions(same_unit=rules.same_unit, round1=rules.round1)
    try:
        draw = pair_round(field.entrants, number, options, random.Random(seed))
    except PairingError as exc:
        raise ServiceError(exc.code, **dict(getattr(exc, "params", {}) or {})) from exc
    seated = field.seat(draw)
    rnd, _tables = create_round(
        locked,
        number,
        seated.tables,
        seed=seed,
        draw_info=seated.draw_info,
        bye_team=seated.bye_team,
    )
    audit(
        locked,
        "generate_round",
        user,
        round=rnd,
        after={"round": number, "seed": seed, **seated.summary},
    )
    return rnd


def _generate_stage_round(
    locked: Tournament, user: Any, number: int, stage: int, starts: bool
) -> Round:
    """The next round of a round-robin or knockout stage as a draft (``pairing.stages``);
    inside ``generate_round``'s transaction, the tournament row locked."""
    seed = round_seed(locked.rules.seed, number)
    planned, info = plan_stage_round(locked, stage, starts, random.Random(seed))
    by_number = {p.number: p for p in Pair.objects.filter(tournament=locked)}
    specs = [
        TableSpec(
            t.number,
            by_number[t.ns],
            by_number[t.ew] if t.ew is not None else None,
            group=t.group,
            slot=t.slot,
        )
        for t in planned
    ]
    info["stage"] = stage
    rnd, _tables = create_round(locked, number, specs, seed=seed, draw_info=info, stage=stage)
    audit(
        locked,
        "generate_round",
        user,
        round=rnd,
        after={"round": number, "stage": stage, "seed": seed, "tables": len(specs)},
    )
    return rnd


def publish_round(rnd: Round, user: Any = None) -> Round:
    """Draft → published: the tables become enterable and the pairing is public.

    RULES.md §5: a published pairing is never re-paired, whatever corrections come later.
    """
    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = lock_round(rnd)
        if locked.status != Round.Status.DRAFT:
            raise ServiceError("round_not_draft")
        locked.status = Round.Status.PUBLISHED
        locked.published_at = timezone.now()
        locked.save(update_fields=["status", "published_at"])
        Tournament.objects.filter(pk=locked.tournament_id, status=Tournament.Status.SETUP).update(
            status=Tournament.Status.RUNNING
        )
        audit(locked.tournament_id, "publish_round", user, round=locked)
        # Its byes now count; the default "latest round" of the standings moved.
        bump_results_version(locked.tournament_id)
    return locked


def unpublish_round(rnd: Round, user: Any = None) -> Round:
    """Published → draft again (a wrong pairing noticed after publishing), while no table of
    the round has a result: no deal, no lateness start, no end, nothing submitted or confirmed,
    and no penalty recorded in the round. The tables get new entry links, so score sheets
    printed for the withdrawn pairing cannot enter results; the draft can then be swapped,
    deleted or published again. Audited; the standings' latest round moves back."""
    from scoring.models import Penalty, TableEvent

    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = lock_round(rnd)
        if locked.status != Round.Status.PUBLISHED:
            raise ServiceError("round_not_published")
        tables = Table.objects.filter(round=locked, is_bye=False)
        touched = tables.filter(
            ~Q(entry_status=Table.EntryStatus.OPEN)
            | ~Q(end_kind="")
            | ~Q(start_ns=2)
            | ~Q(start_ew=2)
            | Q(pk__in=TableEvent.objects.filter(table__round=locked).values("table_id"))
        ).count()
        if touched:
            raise ServiceError("round_has_results", round=locked.number, count=touched)
        if Penalty.objects.filter(round=locked).exists():
            raise ServiceError("round_has_penalties", round=locked.number)
        for table in Table.objects.filter(round=locked).only("pk"):
            Table.objects.filter(pk=table.pk).update(
                entry_token=new_entry_token(), version=F("version") + 1
            )
        locked.status = Round.Status.DRAFT
        locked.published_at = None
        locked.save(update_fields=["status", "published_at"])
        if not Round.objects.counted().filter(tournament_id=locked.tournament_id):
            Tournament.objects.filter(pk=locked.tournament_id).update(
                status=Tournament.Status.SETUP
            )
        audit(locked.tournament_id, "unpublish_round", user, round=locked)
        bump_results_version(locked.tournament_id)
    return locked


def finish_round(rnd: Round, user: Any = None) -> Round:
    """Published → finished once every table is confirmed; table links stop working."""
    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = lock_round(rnd)
        if locked.status != Round.Status.PUBLISHED:
            raise ServiceError("round_not_published")
        open_tables = (
            Table.objects.filter(round=locked)
            .exclude(entry_status=Table.EntryStatus.CONFIRMED)
            .count()
        )
        if open_tables:
            raise ServiceError("round_not_finishable", count=open_tables)
        locked.status = Round.Status.FINISHED
        locked.finished_at = timezone.now()
        locked.save(update_fields=["status", "finished_at"])
        rules = locked.tournament.rules
        planned = rules.rounds
        if rules.stages:
            ends_stage = stage_finished(locked.tournament, locked.stage)
            done = ends_stage and locked.stage >= len(rules.stages)
        else:
            ends_stage = done = planned is not None and locked.number >= planned
        if ends_stage:
            # The stage's correction deadline counts from now (``scoring.deadlines``).
            locked.ends_stage = True
            locked.save(update_fields=["ends_stage"])
        if done:
            Tournament.objects.filter(pk=locked.tournament_id).update(
                status=Tournament.Status.FINISHED
            )
        audit(locked.tournament_id, "finish_round", user, round=locked)
        bump_results_version(locked.tournament_id)
    return locked


TABLE_ACTIONS = ("forfeit", "play")


def withdraw_seated_pair(
    pair: Pair,
    user: Any,
    table_action: str,
    reason: str = "",
    *,
    disqualify: bool = False,
) -> Table:
    """退赛 (or 取消资格) of a pair seated at a table of the round in play, deciding that table:
    ``forfeit`` ends it as the pair's forfeit (弃权, RULES.md §2) — the opponents win — or
    ``play`` leaves it to be played (the pair withdraws after this round). Either way the
    referee desk flags the table while it is unsettled. All or nothing."""
    from scoring.services import set_end
    from tournaments.permissions import is_referee
    from tournaments.services import disqualify_pair, withdraw_pair

    if table_action not in TABLE_ACTIONS:
        raise ServiceError("bad_table_choice")
    with transaction.atomic():
        table = live_table_of(pair)
        if table is None:
            raise ServiceError("pair_not_seated", pair=pair.number)
        (disqualify_pair if disqualify else withdraw_pair)(pair, user, reason)
        if table_action == "forfeit":
            side = "NS" if table.ns_id == pair.pk else "EW"
            # The forfeit is the withdrawal's consequence, decided by whoever may withdraw the
            # pair: an organizer who is no referee records it as the system, audited below.
            set_end(
                table, "forfeit", side, user if is_referee(user, pair.tournament) else None, None
            )
        audit(
            pair.tournament_id,
            "pair_status",
            user,
            table=table,
            after={"pair": pair.number, "status": pair.status, "table": table_action},
            reason=reason,
        )
    return table


def delete_draft(rnd: Round, user: Any = None) -> None:
    """Throw a draft away (its tables and seats); audit entries keep the round number."""
    require_role(user, rnd.tournament, *ROUND_ROLES)
    with transaction.atomic():
        locked = lock_round(rnd)
        if locked.status != Round.Status.DRAFT:
            raise ServiceError("round_not_draft")
        tables = [
            table_view(t) for t in locked.tables.select_related("ns", "ew").order_by("number")
        ]
        audit(locked.tournament_id, "delete_draft", user, round=locked, before={"tables": tables})
        locked.delete()


__all__ = [
    "PairingWarning",
    "TableSpec",
    "create_round",
    "delete_draft",
    "draw_checks",
    "finish_round",
    "generate_round",
    "match_tables",
    "publish_round",
    "round_matches",
    "swap_pairs",
    "swap_teams",
    "swiss_input",
    "team_draw_checks",
    "team_swiss_input",
    "unpublish_round",
    "withdraw_seated_pair",
]
