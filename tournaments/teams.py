"""Team registration services (复式/团体, RULES.md §6): register a team, edit it (its status:
``tournaments.lineups.set_team_status``).

A team is 4–6 players of one unit registered as two or three pairs. ``register_team`` registers
the pairs through ``services.register_pair`` (numbers, codes, the unit: one rule for every pair)
and the team around them, in one transaction: the team's pairs keep the order given (the default
line-up is the first two active ones, ``tournaments.lineups``). The team's ``code`` is its ``id``
in the tournament file; its ``captain_code`` (random, unique in the tournament, like a pair's
code) lets the captain set the line-up without an account.

May touch: the ``tournaments`` models (``AuditEntry`` append only), through the same locking as
``tournaments.services``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Max

from .errors import ServiceError
from .models import Pair, Team, Tournament, Unit
from .permissions import REGISTRATION_ROLES, require_role
from .services import (
    UNSET,
    audit,
    bump_results_version,
    clean_name,
    lock_tournament,
    new_code,
    register_pair,
    resolve_unit,
)

MAX_TEAM_NAME = 100  # Team.name max_length
MIN_TEAM_PAIRS, MAX_TEAM_PAIRS = 2, 3  # RULES.md §6: 4–6 players


def _team_name(name: str) -> str:
    name = clean_name(name)
    if not name:
        raise ServiceError("team_name_required")
    if len(name) > MAX_TEAM_NAME:
        raise ServiceError("text_too_long", limit=MAX_TEAM_NAME, length=len(name))
    return name


def next_team_code(tournament: Tournament) -> str:
    """The next free whole-number team code ("1", "2", …) after the largest numeric one."""
    numbers = [
        int(code)
        for code in Team.objects.filter(tournament=tournament).values_list("code", flat=True)
        if code.isascii() and code.isdigit() and len(code) < 10
    ]
    return str(max(numbers, default=0) + 1)


def register_team(
    tournament: Tournament,
    name: str,
    pairs: Sequence[Sequence[str | dict[str, str]]],
    user: Any = None,
    *,
    unit: Unit | str | None = None,
    code: str | None = None,
    first_number: int | None = None,
) -> Team:
    """Register a team: ``pairs`` is two or three pairs of two players (names or ``{"name",
    "contact"}``), in the order the team fields them by default. The pairs get the numbers
    ``first_number``, ``first_number`` + 1, … (default: after the largest pair number) and the
    team's unit. ``code`` defaults to the next whole number.

    Refusals (``ServiceError``): ``team_name_required``, ``team_size``,
    ``team_code_taken``, and those of ``register_pair`` (``bad_players``,
    ``pair_number_taken``, ``unit_not_found`` …).
    """
    require_role(user, tournament, *REGISTRATION_ROLES)
    name = _team_name(name)
    if not MIN_TEAM_PAIRS <= len(pairs) <= MAX_TEAM_PAIRS:
        raise ServiceError("team_size", count=len(pairs))
    with transaction.atomic():
        locked = lock_tournament(tournament)
        unit_obj = resolve_unit(locked, unit)
        code = (code or "").strip() or next_team_code(locked)
        if Team.objects.filter(tournament=locked, code=code).exists():
            raise ServiceError("team_code_taken", team=code)
        if first_number is None:
            first_number = (
                Pair.objects.filter(tournament=locked).aggregate(m=Max("number"))["m"] or 0
            ) + 1
        members = [
            register_pair(locked, players, None, unit=unit_obj, number=first_number + index)
            for index, players in enumerate(pairs)
        ]
        taken = set(Team.objects.filter(tournament=locked).values_list("captain_code", flat=True))
        team = Team.objects.create(
            tournament=locked, code=code, name=name, unit=unit_obj, captain_code=new_code(taken)
        )
        through = Team.pairs.through
        # One row at a time, in order: the membership rows' ids keep the registration order.
        for pair in members:
            through.objects.create(team_id=team.pk, pair_id=pair.pk)
        bump_results_version(locked.pk)
    return team


def _team_snapshot(team: Team, members: Sequence[Pair]) -> dict[str, Any]:
    return {
        "team": team.code,
        "name": team.name,
        "unit": team.unit.code if team.unit_id else None,
        "status": team.status,
        "pairs": [p.number for p in members],
    }


def edit_team(
    team: Team, user: Any = None, *, name: str | None = None, unit: Unit | str | None = UNSET
) -> Team:
    """Change a team's name or unit (the unit of its pairs follows). Its code, captain code and
    pairs stay (the pairs' players are edited as pairs: ``services.edit_pair``)."""
    tournament = team.tournament
    require_role(user, tournament, *REGISTRATION_ROLES)
    with transaction.atomic():
        locked = Team.objects.select_for_update().get(pk=team.pk)
        members = list(Pair.objects.filter(teams=locked).order_by("number"))
        before = _team_snapshot(locked, members)
        if name is not None:
            locked.name = _team_name(name)
        if unit is not UNSET:
            locked.unit = resolve_unit(tournament, unit)
            Pair.objects.filter(pk__in=[p.pk for p in members]).update(unit=locked.unit)
        locked.save(update_fields=["name", "unit"])
        audit(tournament, "edit_pair", user, before=before, after=_team_snapshot(locked, members))
        bump_results_version(tournament.pk)
    return locked


__all__ = ["edit_team", "next_team_code", "register_team"]
