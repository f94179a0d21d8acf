"""Registration services: every write to tournaments, units, pairs, players and roles.

Also the shared service plumbing used by ``pairing.services`` and ``scoring.services``: the
append-only ``audit`` helper and the results-version bump that invalidates the cached standings.
Refusals are ``tournaments.errors.ServiceError`` (worded by ``tournaments.messages``); the role
check is ``tournaments.permissions.require_role``, the same one the views use.

May touch: the ``tournaments`` models (``AuditEntry`` append only) and the pure
``rules`` core. Every write runs in ``transaction.atomic()`` and locks the parent row first.

``user=None`` means the system (an import or a management command): no role check. A web view
always passes ``request.user`` (anonymous users hold no role and are refused).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Max

from rules.errors import RuleSetError
from rules.ruleset import RuleSet, preset_settings
from rules.text import TextError, check_text, normalise_name

from .accounts import deactivate_if_idle, may_manage
from .errors import ServiceError, from_rule_error
from .models import AuditEntry, Pair, Player, StaffAccount, Tournament, Unit
from .permissions import (
    REGISTRATION_ROLES,
    Action,
    Role,
    action_roles,
    forget_roles,
    require_role,
)

ROLE_FIELDS = {
    Role.ORGANIZER: "organizers",
    Role.CHIEF_REFEREE: "chief_referees",
    Role.REFEREE: "referees",
}

# --------------------------------------------------------------------------------------------
# Shared helpers


def account(user: Any) -> Any:
    """The logged-in account behind an action, or None (anonymous, the table link, the system)."""
    return user if user is not None and getattr(user, "is_authenticated", False) else None


def actor_name(user: Any, via: str = "") -> str:
    if account(user) is not None:
        return user.get_username()
    return via or "system"


def audit(
    tournament: Tournament | int,
    action: str,
    user: Any = None,
    *,
    before: Any = None,
    after: Any = None,
    reason: str = "",
    round: Any = None,
    table: Any = None,
    via: str = "",
) -> Any:
    """Append one ``AuditEntry`` (call inside the service's transaction)."""
    if table is not None and round is None:
        round = table.round
    return AuditEntry.objects.create(
        tournament_id=tournament if isinstance(tournament, int) else tournament.pk,
        action=action,
        user=account(user),
        actor=actor_name(user, via),
        before=before,
        after=after,
        reason=reason,
        round=round,
        table=table,
        round_number=round.number if round is not None else None,
        table_number=table.number if table is not None else None,
    )


def bump_results_version(tournament_id: int) -> None:
    """Invalidate the cached standings of a tournament (a row update, so every process sees it).

    Called last in a result-changing transaction, after the table/round lock, so the lock order
    is always table → tournament and two services cannot deadlock on it.
    """
    Tournament.objects.filter(pk=tournament_id).update(results_version=F("results_version") + 1)


def lock_tournament(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _validated_settings(settings: dict[str, Any]) -> RuleSet:
    try:
        return RuleSet.from_dict(settings)
    except RuleSetError as exc:
        raise from_rule_error(exc) from exc


# --------------------------------------------------------------------------------------------
# Tournaments and roles


def create_tournament(
    name: str,
    slug: str,
    user: Any = None,
    *,
    preset: str | None = "regulation",
    settings: dict[str, Any] | None = None,
) -> Tournament:
    """A new tournament from a preset (``regulation`` / ``jiangsu2017``) or explicit settings.

    Settings are validated into a ``RuleSet`` and stored normalised (``RuleSet.to_dict``); a
    missing ``seed`` is drawn and recorded so the round-1 draw and the lots are reproducible.
    The creating user becomes an organizer.
    """
    if settings is None:
        try:
            settings = preset_settings(preset or "regulation")
        except ValueError as exc:
            raise ServiceError("unknown_preset", preset=preset) from exc
    rules = _validated_settings(settings)
    data = rules.to_dict()
    if rules.seed is None:
        data["seed"] = secrets.randbelow(10**9)
    name = (name or "").strip()
    if not name:
        raise ServiceError("name_required")
    with transaction.atomic():
        if Tournament.objects.filter(slug=slug).exists():
            raise ServiceError("slug_taken", slug=slug)
        try:
            with transaction.atomic():
                tournament = Tournament.objects.create(name=name, slug=slug, settings=data)
        except IntegrityError as exc:  # a concurrent create with the same slug
            raise ServiceError("slug_taken", slug=slug) from exc
        if account(user) is not None:
            tournament.organizers.add(user)
    return tournament


def _only_later_stages_change(old: RuleSet, new: RuleSet, started: int) -> bool:
    """RULES.md §8 / issue 14: a stage is editable until it starts. True when ``new`` changes
    ``old``'s stages, and only those after the first ``started`` (the others are kept as they
    were, and every other setting too) — or changes only the correction deadlines (RULES.md §7:
    the chief referee may set other limits during the event; no result depends on them)."""

    def rest(rules: RuleSet) -> RuleSet:
        seed = old.seed if rules.seed is None else rules.seed  # no seed given keeps the old one
        return replace(
            rules,
            stages=(),
            rounds=None,
            written=frozenset(),
            seed=seed,
            correction_round_minutes=0,
            correction_stage_minutes=0,
        )

    if rest(old) != rest(new):
        return False
    if old.stages == new.stages:
        return old.rounds == new.rounds and (
            old.correction_round_minutes,
            old.correction_stage_minutes,
        ) != (
            new.correction_round_minutes,
            new.correction_stage_minutes,
        )
    if len(new.stage_list) < started:
        return False
    return old.stage_list[:started] == new.stage_list[:started]


def update_settings(tournament: Tournament, settings: dict[str, Any], user: Any) -> Tournament:
    """Replace the settings; once a round has been published (results would change) only the
    stages that have not started (RULES.md §8) and the correction deadlines (§7) may still
    change."""
    from tournaments.models import Round

    require_role(user, tournament, *REGISTRATION_ROLES)
    rules = _validated_settings(settings)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        played = Round.objects.counted().filter(tournament=locked)
        if played.exists():
            started = max(Round.objects.filter(tournament=locked).values_list("stage", flat=True))
            if not _only_later_stages_change(locked.rules, rules, started):
                raise ServiceError("settings_locked")
        before = locked.settings
        data = rules.to_dict()
        if rules.seed is None:
            data["seed"] = before.get("seed", secrets.randbelow(10**9))
        locked.settings = data
        locked.save(update_fields=["settings"])
        audit(locked, "settings", user, before={"settings": before}, after={"settings": data})
        bump_results_version(locked.pk)
    tournament.settings = data
    return tournament


def grant_role(tournament: Tournament, user: Any, role: str, granted_by: Any = None) -> None:
    """Give ``user`` a role in this tournament (organizers grant; ``granted_by`` None = system).

    Accounts belong to their event's organizers (issue 29): a login another organizer made is
    refused (``account_not_yours``) unless the two share an event (``accounts.may_manage``).
    A deactivated account (its last role revoked) is activated again by the grant — only one
    made by an organizer, and only by one who may manage it (``account_inactive``)."""
    if role not in ROLE_FIELDS:
        raise ServiceError("bad_role", role=role)
    require_role(granted_by, tournament, *REGISTRATION_ROLES)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        if not may_manage(granted_by, user):
            raise ServiceError("account_not_yours", user=user.get_username())
        after = {"user": user.get_username(), "role": role}
        if not user.is_active:
            made_here = StaffAccount.objects.filter(user_id=user.pk).exists()
            if not made_here and granted_by is not None and not granted_by.is_superuser:
                raise ServiceError("account_inactive", user=user.get_username())
            user.is_active = True
            user.save(update_fields=["is_active"])
            after["reactivated"] = True
        getattr(locked, ROLE_FIELDS[Role(role)]).add(user)
        forget_roles(user)
        audit(locked, "grant_role", granted_by, after=after)


def revoke_role(tournament: Tournament, user: Any, role: str, revoked_by: Any = None) -> bool:
    """Take one role here from ``user``; an account left with no role anywhere (and no site
    powers) is deactivated, so no idle account waits to be taken (issue 29). Returns whether
    it was."""
    if role not in ROLE_FIELDS:
        raise ServiceError("bad_role", role=role)
    require_role(revoked_by, tournament, *REGISTRATION_ROLES)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        getattr(locked, ROLE_FIELDS[Role(role)]).remove(user)
        forget_roles(user)
        oneself = user.pk == getattr(revoked_by, "pk", None)
        deactivated = not oneself and deactivate_if_idle(user)
        audit(
            locked,
            "revoke_role",
            revoked_by,
            before={"user": user.get_username(), "role": role},
            after={"user": user.get_username(), "deactivated": True} if deactivated else None,
        )
    return deactivated


# --------------------------------------------------------------------------------------------
# Units and pairs


def add_unit(tournament: Tournament, code: str, name: str, user: Any = None) -> Unit:
    require_role(user, tournament, *REGISTRATION_ROLES)
    code = clean_name(code)
    name = clean_name(name)
    if not code:
        raise ServiceError("unit_not_found", unit=code)
    with transaction.atomic():
        lock_tournament(tournament)
        if Unit.objects.filter(tournament=tournament, code=code).exists():
            raise ServiceError("unit_exists", unit=code)  # not code=: ServiceError.code
        return Unit.objects.create(tournament=tournament, code=code, name=(name or code).strip())


def resolve_unit(tournament: Tournament, unit: Unit | str | None) -> Unit | None:
    if unit is None or unit == "":
        return None
    if isinstance(unit, Unit):
        if unit.tournament_id != tournament.pk:
            raise ServiceError("wrong_tournament")
        return unit
    found = Unit.objects.filter(tournament=tournament, code=unit).first()
    if found is None:
        raise ServiceError("unit_not_found", unit=unit)
    return found


def clean_name(text: str | None) -> str:
    """A name as stored (``rules.text``: NFKC, one space between words); ``ServiceError`` with
    the code of a NUL, control, invisible or bidi-control character (issue 29 point 10)."""
    try:
        check_text(text or "")
    except TextError as error:
        raise ServiceError(error.code) from None
    return normalise_name(text or "")


def _player_rows(players: Sequence[str | dict[str, str]]) -> list[dict[str, str]]:
    rows = []
    for item in players:
        row = {"name": item, "contact": ""} if isinstance(item, str) else dict(item)
        row["name"] = clean_name(row.get("name"))
        row["contact"] = clean_name(row.get("contact"))
        rows.append(row)
    if len(rows) != 2 or not all(r["name"] for r in rows):
        raise ServiceError("bad_players")
    return rows


def new_code(taken: set[str]) -> str:
    from .models import new_pair_code

    while True:
        code = new_pair_code()
        if code not in taken:
            return code


def register_pair(
    tournament: Tournament,
    players: Sequence[str | dict[str, str]],
    user: Any = None,
    *,
    unit: Unit | str | None = None,
    number: int | None = None,
    seeding: int | None = None,
    status: str = Pair.Status.ACTIVE,
) -> Pair:
    """Register a pair of two players (names or ``{"name", "contact"}``).

    ``number`` defaults to the next free number; the secret pair code is random and unique in
    the tournament. The tournament row is locked so two desks cannot take the same number.
    """
    require_role(user, tournament, *REGISTRATION_ROLES)
    rows = _player_rows(players)
    with transaction.atomic():
        locked = lock_tournament(tournament)
        unit_obj = resolve_unit(locked, unit)
        if number is None:
            number = (
                Pair.objects.filter(tournament=locked).aggregate(m=Max("number"))["m"] or 0
            ) + 1
        elif Pair.objects.filter(tournament=locked, number=number).exists():
            raise ServiceError("pair_number_taken", number=number)
        taken = set(Pair.objects.filter(tournament=locked).values_list("code", flat=True))
        pair = Pair.objects.create(
            tournament=locked,
            number=number,
            unit=unit_obj,
            seeding=seeding,
            status=status,
            code=new_code(taken),
        )
        Player.objects.bulk_create(
            Player(pair=pair, position=i, name=r["name"], contact=r["contact"])
            for i, r in enumerate(rows, start=1)
        )
        bump_results_version(locked.pk)  # standings list every registered pair
    return pair


UNSET: Any = object()


def edit_pair(
    pair: Pair,
    user: Any = None,
    *,
    players: Sequence[str | dict[str, str]] | None = None,
    unit: Unit | str | None = UNSET,
    seeding: int | None = UNSET,
) -> Pair:
    """Change names, contact, unit or seeding; the number and the code stay."""
    tournament = pair.tournament
    require_role(user, tournament, *REGISTRATION_ROLES)
    with transaction.atomic():
        locked = Pair.objects.select_for_update().get(pk=pair.pk)
        before = _pair_snapshot(locked)
        fields = []
        if unit is not UNSET:
            locked.unit = resolve_unit(tournament, unit)
            fields.append("unit")
        if seeding is not UNSET:
            locked.seeding = seeding
            fields.append("seeding")
        if fields:
            locked.save(update_fields=fields)
        if players is not None:
            for position, row in enumerate(_player_rows(players), start=1):
                Player.objects.update_or_create(
                    pair=locked,
                    position=position,
                    defaults={"name": row["name"], "contact": row["contact"]},
                )
        audit(tournament, "edit_pair", user, before=before, after=_pair_snapshot(locked))
    return locked


def _pair_snapshot(pair: Pair) -> dict[str, Any]:
    return {
        "pair": pair.number,
        "status": pair.status,
        "unit": pair.unit.code if pair.unit_id else None,
        "seeding": pair.seeding,
        "players": [p.name for p in pair.players.order_by("position")],
    }


def set_status(
    record: Any,
    status: str,
    user: Any,
    reason: str,
    roles: Iterable[str],
    *,
    action: str,
    unchanged: ServiceError,
    name: tuple[str, Any],
) -> Any:
    """Change the ``status`` of a pair or team (``record``): locked, refused with ``unchanged``
    when the status is already ``status``, audited as ``action`` with ``name`` = (key, value) naming
    the record in the entry. The one status change of ``withdraw_pair`` … and of
    ``tournaments.lineups.set_team_status``."""
    require_role(user, record.tournament, *roles)
    with transaction.atomic():
        locked = type(record).objects.select_for_update().get(pk=record.pk)
        if locked.status == status:
            raise unchanged
        before = locked.status
        locked.status = status
        locked.save(update_fields=["status"])
        key, value = name
        audit(
            locked.tournament_id,
            action,
            user,
            before={key: value, "status": before},
            after={key: value, "status": status},
            reason=reason,
        )
    record.status = status
    return locked


def _set_pair_status(pair: Pair, status: str, user: Any, reason: str, roles: Iterable[str]) -> Pair:
    return set_status(
        pair,
        status,
        user,
        reason,
        roles,
        action="pair_status",
        unchanged=ServiceError("pair_status_unchanged"),
        name=("pair", pair.number),
    )


def withdraw_pair(pair: Pair, user: Any = None, reason: str = "") -> Pair:
    """退赛: not paired from the next generated round on; its results so far stand."""
    return _set_pair_status(pair, Pair.Status.WITHDRAWN, user, reason, REGISTRATION_ROLES)


def disqualify_pair(pair: Pair, user: Any = None, reason: str = "") -> Pair:
    """取消资格 (RULES.md §3): plays no further rounds; its results so far stand. Whoever may
    impose a disqualification (the tournament's setting, by default the organizers), as for
    the disqualification penalty (``scoring.penalties.record_penalty``)."""
    roles = action_roles(pair.tournament, Action.DISQUALIFICATION)
    return _set_pair_status(pair, Pair.Status.DISQUALIFIED, user, reason, roles)


def reinstate_pair(pair: Pair, user: Any = None, reason: str = "") -> Pair:
    """Undo a withdrawal (e.g. entered by mistake)."""
    return _set_pair_status(pair, Pair.Status.ACTIVE, user, reason, REGISTRATION_ROLES)
