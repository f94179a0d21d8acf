"""Registration services: every write to tournaments, units, pairs, players and roles.

Also the shared service plumbing used by ``pairing.services`` and ``scoring.services``:
``ServiceError`` (a stable code plus a translated Chinese-source message), role checks per
tournament, the append-only ``audit`` helper and the results-version bump that invalidates the
cached standings.

May touch: the ``tournaments`` models, ``scoring.models.AuditEntry`` (append only) and the pure
``rules`` core. Every write runs in ``transaction.atomic()`` and locks the parent row first.

``user=None`` means the system (an import or a management command): no role check. A web view
always passes ``request.user`` (anonymous users hold no role and are refused).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from rules.errors import RuleError, RuleSetError
from rules.ruleset import RuleSet, preset_settings

from .models import Pair, Player, Team, Tournament, Unit

# --------------------------------------------------------------------------------------------
# Errors

MESSAGES: dict[str, Any] = {
    # generic
    "conflict": _("该桌成绩已被他人修改，请刷新后重试"),
    "round_conflict": _("本轮编排已被他人修改，请刷新后重试"),
    "forbidden": _("您没有执行此操作的权限"),
    "wrong_tournament": _("数据不属于本赛事"),
    # tournaments
    "name_required": _("请填写赛事名称"),
    "slug_taken": _("网址标识“%(slug)s”已被使用"),
    "invalid_settings": _("赛事设置无效：%(problems)s"),
    "unknown_preset": _("未知的预设“%(preset)s”"),
    "settings_locked": _("已有公布的轮次，不能再修改赛事设置"),
    "bad_players": _("每对须有两名选手，姓名不能为空"),
    "unit_not_found": _("单位“%(unit)s”不存在"),
    "unit_exists": _("单位代码“%(unit)s”已存在"),
    "pair_number_taken": _("编号 %(number)s 已被使用"),
    "pair_not_active": _("第%(pair)s对已退赛或被取消资格"),
    "pair_status_unchanged": _("该对状态未改变"),
    "bad_role": _("未知角色“%(role)s”"),
    # pairing
    "round_in_progress": _("第%(number)s轮尚未结束，不能生成新一轮"),
    "rounds_complete": _("已达到计划轮数（%(rounds)s轮）"),
    "not_enough_pairs": _("参赛对不足，无法编排"),
    "teams_not_supported": _("团体赛的编排尚未支持"),
    "round_not_draft": _("只能修改草稿状态的轮次"),
    "round_not_published": _("该轮尚未公布或已结束"),
    "round_not_finishable": _("还有 %(count)s 桌成绩未确认，不能结束本轮"),
    "pair_not_in_round": _("第%(pair)s对不在本轮编排中"),
    "same_pair": _("请选择两个不同的参赛对"),
    "rematch": _("第%(a)s对与第%(b)s对已经交手过"),
    "same_unit": _("第%(a)s对与第%(b)s对属于同一单位"),
    "pairing_failed": _("编排失败（%(reason)s）"),
    "too_few_pairs": _("参赛对不足，无法编排"),
    "no_bye_candidate": _("找不到可以轮空的参赛对"),
    "no_pairing_without_rematch": _("不存在避免重复交手的编排"),
    # scoring
    "table_is_bye": _("轮空桌无需录入成绩"),
    "table_confirmed": _("该桌成绩已确认，只能由裁判长更正"),
    "table_not_confirmed": _("该桌成绩尚未确认"),
    "table_not_open": _("该桌已提交录入，请先修改或确认"),
    "table_not_entered": _("该桌成绩尚未提交，不能确认"),
    "bad_entry_link": _("录入链接无效或本轮已结束"),
    "table_ended": _("该桌比赛已结束（弃权或判负），请先撤销结束方式"),
    "no_events": _("该桌还没有记录"),
    "bad_end": _("结束方式无效"),
    "same_person": _("确认人不能是录入人（须由另一人确认）"),
    "bad_pair_code": _("对号密码不正确"),
    "reason_required": _("请填写更正原因"),
    "bad_penalty": _("判罚信息不完整：%(detail)s"),
    "no_escalation": _("目前没有需要升级的判罚"),
    # engine (rules.errors codes)
    "bad_token": _("记录“%(token)s”无法识别"),
    "event_after_past_a": _("已有一方过A，比赛已结束，不能再录入"),
    "too_many_deals": _("本轮最多 %(limit)s 副牌"),
    "too_few_deals": _("本轮须打满 %(required)s 副，目前只有 %(deals)s 副"),
    "game_not_finished": _("计局制比赛须打到一方过A"),
    "bad_start": _("起始级数无效"),
}


class ServiceError(Exception):
    """A refusal the user can act on. ``code`` is stable; ``message`` is translated."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(f"{code} {params}" if params else code)

    @property
    def message(self) -> str:
        template = MESSAGES.get(self.code)
        if template is None:
            text = gettext("操作失败（%(code)s）") % {"code": self.code}
        else:
            try:
                text = gettext(str(template)) % self.params if self.params else str(template)
            except (KeyError, TypeError, ValueError):
                text = str(template)
        position = self.params.get("position")
        if isinstance(position, int):
            # ``position`` is 1-based in params (the n-th record at the table).
            text = gettext("第%(n)s条记录：") % {"n": position} + text
        return text

    def __str__(self) -> str:
        return self.message


class ConflictError(ServiceError):
    """Somebody else changed the row since the user loaded it (compare-and-swap failed)."""

    def __init__(self, code: str = "conflict", **params: Any) -> None:
        super().__init__(code, **params)


def from_rule_error(error: RuleError) -> ServiceError:
    """Wrap a core error, keeping its code; ``position`` becomes 1-based."""
    params = dict(error.params)
    if error.position is not None:
        params["position"] = error.position + 1
    return ServiceError(error.code, **params)


# --------------------------------------------------------------------------------------------
# Roles

ORGANIZER = "organizer"
CHIEF_REFEREE = "chief_referee"
REFEREE = "referee"
ROLES = (ORGANIZER, CHIEF_REFEREE, REFEREE)
_ROLE_FIELDS = {ORGANIZER: "organizers", CHIEF_REFEREE: "chief_referees", REFEREE: "referees"}

# Who may do what (per tournament). Views check the same sets before calling a service.
REGISTRATION_ROLES = (ORGANIZER,)
ROUND_ROLES = (ORGANIZER, CHIEF_REFEREE)
RESULT_ROLES = (REFEREE, CHIEF_REFEREE)
PENALTY_ROLES = (REFEREE, CHIEF_REFEREE)
CORRECTION_ROLES = (CHIEF_REFEREE,)
DISQUALIFY_ROLES = (ORGANIZER, CHIEF_REFEREE)


def roles_of(tournament: Tournament, user: Any) -> set[str]:
    """The roles ``user`` holds in ``tournament`` (three small queries; none for anonymous)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return set()
    return {
        role
        for role, field in _ROLE_FIELDS.items()
        if getattr(tournament, field).filter(pk=user.pk).exists()
    }


def has_role(tournament: Tournament, user: Any, *roles: str) -> bool:
    """True for the system (``user`` None), a superuser, or a holder of one of ``roles``."""
    if user is None:
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser:
        return True
    return any(
        getattr(tournament, _ROLE_FIELDS[role]).filter(pk=user.pk).exists() for role in roles
    )


def require_role(tournament: Tournament, user: Any, *roles: str) -> None:
    if not has_role(tournament, user, *roles):
        raise ServiceError("forbidden")


# --------------------------------------------------------------------------------------------
# Shared helpers


def actor_name(user: Any, via: str = "") -> str:
    if user is not None and getattr(user, "is_authenticated", False):
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
    from tournaments.models import AuditEntry

    if table is not None and round is None:
        round = table.round
    return AuditEntry.objects.create(
        tournament_id=tournament if isinstance(tournament, int) else tournament.pk,
        action=action,
        user=user if user is not None and getattr(user, "is_authenticated", False) else None,
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


def _lock_tournament(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _validated_settings(settings: dict[str, Any]) -> RuleSet:
    try:
        return RuleSet.from_dict(settings)
    except RuleSetError as exc:
        problems = "; ".join(str(p) for p in exc.problems)
        raise ServiceError("invalid_settings", problems=problems) from exc


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
        if user is not None and getattr(user, "is_authenticated", False):
            tournament.organizers.add(user)
    return tournament


def update_settings(tournament: Tournament, settings: dict[str, Any], user: Any) -> Tournament:
    """Replace the settings; refused once a round has been published (results would change)."""
    from tournaments.models import Round

    require_role(tournament, user, ORGANIZER)
    rules = _validated_settings(settings)
    with transaction.atomic():
        locked = _lock_tournament(tournament)
        if Round.objects.filter(tournament=locked).exclude(status=Round.Status.DRAFT).exists():
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
    """Give ``user`` a role in this tournament (organizers grant; ``granted_by`` None = system)."""
    if role not in ROLES:
        raise ServiceError("bad_role", role=role)
    require_role(tournament, granted_by, ORGANIZER)
    with transaction.atomic():
        locked = _lock_tournament(tournament)
        getattr(locked, _ROLE_FIELDS[role]).add(user)
        audit(locked, "grant_role", granted_by, after={"user": user.get_username(), "role": role})


def revoke_role(tournament: Tournament, user: Any, role: str, revoked_by: Any = None) -> None:
    if role not in ROLES:
        raise ServiceError("bad_role", role=role)
    require_role(tournament, revoked_by, ORGANIZER)
    with transaction.atomic():
        locked = _lock_tournament(tournament)
        getattr(locked, _ROLE_FIELDS[role]).remove(user)
        audit(locked, "revoke_role", revoked_by, before={"user": user.get_username(), "role": role})


# --------------------------------------------------------------------------------------------
# Units and pairs


def add_unit(tournament: Tournament, code: str, name: str, user: Any = None) -> Unit:
    require_role(tournament, user, *REGISTRATION_ROLES)
    code = (code or "").strip()
    if not code:
        raise ServiceError("unit_not_found", unit=code)
    with transaction.atomic():
        _lock_tournament(tournament)
        if Unit.objects.filter(tournament=tournament, code=code).exists():
            raise ServiceError("unit_exists", unit=code)  # not code=: ServiceError.code
        return Unit.objects.create(tournament=tournament, code=code, name=(name or code).strip())


def _resolve_unit(tournament: Tournament, unit: Unit | str | None) -> Unit | None:
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


def _player_rows(players: Sequence[str | dict[str, str]]) -> list[dict[str, str]]:
    rows = []
    for item in players:
        row = {"name": item, "contact": ""} if isinstance(item, str) else dict(item)
        row["name"] = (row.get("name") or "").strip()
        row["contact"] = (row.get("contact") or "").strip()
        rows.append(row)
    if len(rows) != 2 or not all(r["name"] for r in rows):
        raise ServiceError("bad_players")
    return rows


def _new_code(taken: set[str]) -> str:
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
    require_role(tournament, user, *REGISTRATION_ROLES)
    rows = _player_rows(players)
    with transaction.atomic():
        locked = _lock_tournament(tournament)
        unit_obj = _resolve_unit(locked, unit)
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
            code=_new_code(taken),
        )
        Player.objects.bulk_create(
            Player(pair=pair, position=i, name=r["name"], contact=r["contact"])
            for i, r in enumerate(rows, start=1)
        )
        bump_results_version(locked.pk)  # standings list every registered pair
    return pair


_UNSET: Any = object()


def edit_pair(
    pair: Pair,
    user: Any = None,
    *,
    players: Sequence[str | dict[str, str]] | None = None,
    unit: Unit | str | None = _UNSET,
    seeding: int | None = _UNSET,
) -> Pair:
    """Change names, contact, unit or seeding; the number and the code stay."""
    tournament = pair.tournament
    require_role(tournament, user, *REGISTRATION_ROLES)
    with transaction.atomic():
        locked = Pair.objects.select_for_update().get(pk=pair.pk)
        before = _pair_snapshot(locked)
        fields = []
        if unit is not _UNSET:
            locked.unit = _resolve_unit(tournament, unit)
            fields.append("unit")
        if seeding is not _UNSET:
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


def _set_pair_status(pair: Pair, status: str, user: Any, reason: str, roles: Iterable[str]) -> Pair:
    require_role(pair.tournament, user, *roles)
    with transaction.atomic():
        locked = Pair.objects.select_for_update().get(pk=pair.pk)
        if locked.status == status:
            raise ServiceError("pair_status_unchanged")
        before = locked.status
        locked.status = status
        locked.save(update_fields=["status"])
        audit(
            locked.tournament_id,
            "pair_status",
            user,
            before={"pair": locked.number, "status": before},
            after={"pair": locked.number, "status": status},
            reason=reason,
        )
    pair.status = status
    return locked


def withdraw_pair(pair: Pair, user: Any = None, reason: str = "") -> Pair:
    """退赛: not paired from the next generated round on; its results so far stand."""
    return _set_pair_status(pair, Pair.Status.WITHDRAWN, user, reason, REGISTRATION_ROLES)


def disqualify_pair(pair: Pair, user: Any = None, reason: str = "") -> Pair:
    """取消资格 (RULES.md §3): plays no further rounds; its results so far stand."""
    return _set_pair_status(pair, Pair.Status.DISQUALIFIED, user, reason, DISQUALIFY_ROLES)


def reinstate_pair(pair: Pair, user: Any = None, reason: str = "") -> Pair:
    """Undo a withdrawal (e.g. entered by mistake)."""
    return _set_pair_status(pair, Pair.Status.ACTIVE, user, reason, REGISTRATION_ROLES)


def add_team(
    tournament: Tournament, code: str, name: str, pairs: Sequence[Pair], user: Any = None
) -> Team:
    """A team (RULES.md §6) of pairs already registered in this tournament."""
    require_role(tournament, user, *REGISTRATION_ROLES)
    with transaction.atomic():
        _lock_tournament(tournament)
        if any(p.tournament_id != tournament.pk for p in pairs):
            raise ServiceError("wrong_tournament")
        team = Team.objects.create(tournament=tournament, code=code, name=name or code)
        team.pairs.set(pairs)
    return team
