"""Line-ups (出场名单, RULES.md §6): which two of a team's pairs play a round, and where.

A team fields two of its pairs in every match: its *NS pair* sits North–South and its *EW pair*
East–West, at the two different tables of the match (match m = tables 2m − 1 and 2m: the first
team of the match has its NS pair at table 2m − 1 and its EW pair at 2m, the other team the
reverse; ``pairing.services`` seats them). Without a ``LineUp`` row a team fields its default
line-up: its first two active pairs in registration order, the first one NS.

``set_lineup`` is the one write: the organizer (an account with ``LINEUP_ROLES``) or the team's
captain (with the team's ``captain_code``, no account) chooses before round ``round_number`` is
published. It is refused once the round is published (the published tables are then the
record: RULES.md §6 "a line-up change after publication is refused"); while the round is a
draft, the team's two seats of its match are re-seated at once, so the draft always shows the
line-ups. Audited (``AuditEntry.Action.LINEUP``).

``set_team_status`` withdraws a team (not paired from the next round on) or reinstates it.

May touch: the ``tournaments`` models (``LineUp``, ``Team.status``, and a draft round's
``Table``/``Seat`` rows), ``AuditEntry`` (append only). Reads only otherwise.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import F

from .errors import ForbiddenError, ServiceError
from .models import LineUp, Pair, Round, Seat, Table, Team
from .permissions import LINEUP_ROLES, REGISTRATION_ROLES, require_role
from .services import account, audit, set_status


class Fielded(NamedTuple):
    """A team's two pairs for a round: ``ns`` sits North–South, ``ew`` East–West."""

    ns: Pair
    ew: Pair


def team_pairs(team: Team) -> list[Pair]:
    """The team's pairs in registration order (the order of the membership rows)."""
    through = Team.pairs.through
    ids = list(through.objects.filter(team=team).order_by("pk").values_list("pair_id", flat=True))
    by_id = {p.pk: p for p in Pair.objects.filter(pk__in=ids)}
    return [by_id[pk] for pk in ids]


def default_lineup(pairs: Iterable[Pair]) -> Fielded | None:
    """RULES.md §6: the first two active pairs (in registration order), or None when the team
    cannot field two (a team forfeit)."""
    active = [p for p in pairs if p.status == Pair.Status.ACTIVE]
    return Fielded(active[0], active[1]) if len(active) >= 2 else None


def round_lineups(tournament: Any, round_number: int) -> dict[int, Fielded | None]:
    """Every team's line-up for round ``round_number`` by team id: its ``LineUp`` if it has one
    (and both pairs are still active), else its default; None for a team that cannot field
    two pairs. Three queries whatever the size."""
    members: dict[int, list[Pair]] = {}
    pairs = {p.pk: p for p in Pair.objects.filter(tournament=tournament)}
    through = Team.pairs.through
    for team_id, pair_id in (
        through.objects.filter(team__tournament=tournament)
        .order_by("pk")
        .values_list("team_id", "pair_id")
    ):
        members.setdefault(team_id, []).append(pairs[pair_id])
    chosen = {
        lineup.team_id: lineup
        for lineup in LineUp.objects.filter(team__tournament=tournament, round_number=round_number)
    }
    lineups: dict[int, Fielded | None] = {}
    for team_id in Team.objects.filter(tournament=tournament).values_list("pk", flat=True):
        lineup = chosen.get(team_id)
        ns = pairs.get(lineup.ns_id) if lineup is not None else None
        ew = pairs.get(lineup.ew_id) if lineup is not None else None
        if ns is not None and ew is not None and ns.is_active and ew.is_active:
            lineups[team_id] = Fielded(ns, ew)
        else:
            lineups[team_id] = default_lineup(members.get(team_id, []))
    return lineups


def _check_actor(team: Team, user: Any, captain_code: str | None) -> str:
    """An account with a lineup role, or the right captain's code: the audit's ``via``."""
    if captain_code is not None and account(user) is None:
        if not secrets.compare_digest(captain_code.strip().upper(), team.captain_code):
            raise ForbiddenError("bad_captain_code")
        return "captain"
    require_role(user, team.tournament, *LINEUP_ROLES)
    return ""


def set_lineup(
    team: Team,
    round_number: int,
    ns: Pair,
    ew: Pair,
    *,
    user: Any = None,
    captain_code: str | None = None,
) -> LineUp:
    """Choose the team's two pairs for round ``round_number``: ``ns`` North–South, ``ew``
    East–West (see the module docstring). ``user`` an organizer or chief referee, or
    ``captain_code`` the team's captain's code (``user=None`` without a code: the system).

    Refusals (``ServiceError``): ``lineup_locked`` (the round is published or finished),
    ``lineup_same_pair``, ``lineup_pair_not_in_team``, ``lineup_pair_inactive``,
    ``team_withdrawn``, ``bad_round``; ``ForbiddenError`` ``bad_captain_code`` or
    ``forbidden``.
    """
    via = _check_actor(team, user, captain_code)
    if round_number < 1:
        raise ServiceError("bad_round", round=round_number)
    if ns.pk == ew.pk:
        raise ServiceError("lineup_same_pair", pair=ns.number)
    with transaction.atomic():
        # Lock the round (when drawn) before deciding: publication takes the same lock, so a
        # line-up is never changed under a round being published.
        rnd = (
            Round.objects.select_for_update()
            .filter(tournament_id=team.tournament_id, number=round_number)
            .first()
        )
        if rnd is not None and rnd.status in Round.COUNTED:
            raise ServiceError("lineup_locked", round=round_number)
        locked = Team.objects.select_for_update().get(pk=team.pk)
        if locked.status != Team.Status.ACTIVE:
            raise ServiceError("team_withdrawn", team=locked.code)
        members = {p.pk: p for p in team_pairs(locked)}
        for pair in (ns, ew):
            if pair.pk not in members:
                raise ServiceError("lineup_pair_not_in_team", pair=pair.number, team=locked.code)
            if not members[pair.pk].is_active:
                raise ServiceError("lineup_pair_inactive", pair=pair.number)
        previous = LineUp.objects.filter(team=locked, round_number=round_number).first()
        before = (
            {"ns": previous.ns.number, "ew": previous.ew.number} if previous is not None else None
        )
        lineup, _created = LineUp.objects.update_or_create(
            team=locked,
            round_number=round_number,
            defaults={"ns": ns, "ew": ew, "set_by": account(user), "set_via": via},
        )
        if rnd is not None:
            _reseat(rnd, set(members), ns, ew)
        audit(
            locked.tournament_id,
            "lineup",
            user,
            round=rnd,
            before=before,
            after={"team": locked.code, "round": round_number, "ns": ns.number, "ew": ew.number},
            via=via,
        )
    return lineup


def _reseat(rnd: Round, members: set[int], ns: Pair, ew: Pair) -> None:
    """Seat the new line-up in a draft: the team's NS seat of its match gets ``ns``, its EW
    seat ``ew`` (nothing when the team has the bye). Table versions are bumped so a stale
    screen conflicts."""
    seats = list(
        Seat.objects.filter(round=rnd, pair_id__in=members).exclude(direction=Seat.Direction.BYE)
    )
    if not seats:
        return
    Seat.objects.filter(pk__in=[s.pk for s in seats]).delete()
    new = []
    for seat in seats:
        pair = ns if seat.direction == Seat.Direction.NS else ew
        field = "ns" if seat.direction == Seat.Direction.NS else "ew"
        Table.objects.filter(pk=seat.table_id).update(**{field: pair}, version=F("version") + 1)
        new.append(Seat(round=rnd, table_id=seat.table_id, pair=pair, direction=seat.direction))
    Seat.objects.bulk_create(new)


def set_team_status(team: Team, status: str, user: Any = None, reason: str = "") -> Team:
    """退赛 / 恢复 of a team (``Team.Status``): a withdrawn team is not paired from the next
    generated round on (its results so far stand); its pairs keep their own status. The
    organizers decide (``REGISTRATION_ROLES``). Audited (``AuditEntry.Action.TEAM_STATUS``)."""
    if status not in Team.Status.values:
        raise ServiceError("not_one_of", value=status, options=tuple(Team.Status.values))
    return set_status(
        team,
        status,
        user,
        reason,
        REGISTRATION_ROLES,
        action="team_status",
        unchanged=ServiceError("team_status_unchanged"),
        name=("team", team.code),
    )


__all__ = [
    "LINEUP_ROLES",
    "Fielded",
    "default_lineup",
    "round_lineups",
    "set_lineup",
    "set_team_status",
    "team_pairs",
]
