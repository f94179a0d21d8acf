"""The organizer's desk: create a tournament, its settings, registrations (units, pairs, a
pair's status), staff roles and the audit log.

Views are thin (STYLE.md): check permission (``tournaments.permissions``), validate the form,
call one service, put its message on the page, redirect. They read the database (with bounded
queries: every list is paginated) and never write to it themselves.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe
from django_tables2 import RequestConfig

from tournaments.bounds import parse_int
from tournaments.errors import ServiceError
from tournaments.forms import (
    PRESETS,
    AssignTablesForm,
    PairForm,
    PairStatusForm,
    RevokeForm,
    RoleForm,
    SettingsForm,
    StaffAccountsForm,
    StaffMemberForm,
    TournamentCreateForm,
    UnitForm,
    preset_initial,
)
from tournaments.models import Pair, Round, Tournament
from tournaments.permissions import (
    Action,
    Role,
    action_required,
    allowed,
    can_create_tournaments,
    may,
    organizer_required,
    role_required,
)
from tournaments.queries import live_table_of, pairs_with_players
from tournaments.redirects import safe_next
from tournaments.search import look_alike_warnings
from tournaments.tables import AuditTable


def _service_error_message(error: Exception) -> str:
    return str(getattr(error, "message", None) or error)


def _report_links(tournament: Tournament) -> list[dict[str, str]]:
    """The organizer's links into the reports app (printing and Excel)."""
    slug = tournament.slug
    return [
        {"url": reverse("reports:index", args=[slug]), "label": _("打印与导出")},
        {"url": reverse("reports:document", args=[slug, "scoresheets"]), "label": _("记分表 PDF")},
        {"url": reverse("reports:document", args=[slug, "pairings"]), "label": _("对阵表 PDF")},
        {"url": reverse("reports:document", args=[slug, "standings"]), "label": _("名次表 PDF")},
        {"url": reverse("reports:export", args=[slug]), "label": _("导出 Excel")},
        {"url": reverse("reports:import", args=[slug]), "label": _("Excel 导入报名")},
    ]


# --------------------------------------------------------------------------------------------
# Organizers


@login_required
def create(request: HttpRequest) -> HttpResponse:
    """New tournament from a preset: every setting prefilled and explained, then editable."""
    from tournaments.services import create_tournament

    if not can_create_tournaments(request.user):
        raise PermissionDenied
    preset = request.GET.get("preset", "regulation")
    if preset not in dict(PRESETS):
        preset = "regulation"
    if request.method == "POST":
        form = TournamentCreateForm(request.POST)
        if form.is_valid():
            try:
                tournament = create_tournament(
                    form.cleaned_data["name"],
                    form.cleaned_data["slug"],
                    request.user,
                    settings=form.settings(),
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(request, _("赛事已创建"))
                return redirect("tournaments:manage", tournament.slug)
    else:
        form = TournamentCreateForm(initial=preset_initial(preset))
    return render(
        request,
        "tournaments/create.html",
        {"form": form, "presets": PRESETS, "preset": preset},
    )


@organizer_required
def manage(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The organizer's desk: the state of things and where to go next."""
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    pair_counts = Pair.objects.filter(tournament=tournament).aggregate(
        total=Count("pk"), active=Count("pk", filter=Q(status=Pair.Status.ACTIVE))
    )
    return render(
        request,
        "tournaments/manage.html",
        {
            "tournament": tournament,
            "nav": "manage",
            "rounds": rounds,
            "pair_counts": pair_counts,
            "rules": tournament.rules,
            "report_links": _report_links(tournament),
            "settings_locked": any(r.status in Round.COUNTED for r in rounds),
        },
    )


def _settings_form(form: SettingsForm, locked: bool) -> SettingsForm:
    """Once a round is published only the correction deadlines stay editable (RULES.md §7);
    the disabled fields keep the tournament's values (the form's initial)."""
    if locked:
        for name, field in form.fields.items():
            field.disabled = name not in SettingsForm.always_editable
    return form


@organizer_required
def settings_edit(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every setting; refused by the service once a round has been published."""
    from tournaments.services import update_settings

    initial = SettingsForm.initial_from(tournament.settings)
    locked = Round.objects.counted().filter(tournament=tournament).exists()
    if request.method == "POST":
        form = _settings_form(SettingsForm(request.POST, initial=initial), locked)
        if form.is_valid():
            settings = form.settings()
            if "stages" in tournament.settings:  # edited on the stages page, kept here
                settings = {**settings, "stages": tournament.settings["stages"]}
            try:
                update_settings(tournament, settings, request.user)
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(request, _("赛事设置已保存"))
                return redirect("tournaments:manage", tournament.slug)
    else:
        form = _settings_form(SettingsForm(initial=initial), locked)
    return render(
        request,
        "tournaments/settings.html",
        {
            "tournament": tournament,
            "nav": "manage",
            "form": form,
            "scale_rows": tournament.rules.scale.rows,
            "locked": locked,
        },
    )


REGISTRATIONS_PER_PAGE = 100


@organizer_required
def pairs(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """报名: the registered pairs (with their secret codes — this page is private), add a pair,
    add a unit, search; paginated."""
    from tournaments.services import register_pair

    form = PairForm(tournament=tournament, prefix="pair")
    if request.method == "POST":
        form = PairForm(request.POST, tournament=tournament, prefix="pair")
        if form.is_valid():
            data = form.cleaned_data
            try:
                pair = register_pair(
                    tournament,
                    form.players(),
                    request.user,
                    unit=data.get("unit"),
                    number=data.get("number"),
                    seeding=data.get("seeding"),
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                names = [p["name"] for p in form.players()]
                messages.success(
                    request,
                    _("已报名：第%(n)s对 %(names)s") % {"n": pair.number, "names": "/".join(names)},
                )
                for warning in look_alike_warnings(tournament, names):
                    messages.warning(request, warning)
                return redirect("tournaments:pairs", tournament.slug)
    query = (request.GET.get("q") or "").strip()[:50]
    listing = Pair.objects.filter(tournament=tournament).order_by("number")
    if query:
        condition = Q(players__name__icontains=query) | Q(unit__name__icontains=query)
        if (number := parse_int(query, minimum=1)) is not None:
            condition |= Q(number=number)
        listing = listing.filter(condition).distinct()
    paginator = Paginator(pairs_with_players(listing), REGISTRATIONS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    return render(
        request,
        "tournaments/pairs.html",
        {
            "tournament": tournament,
            "nav": "pairs",
            "form": form,
            "unit_form": UnitForm(prefix="unit"),
            "page": page,
            "query": query,
            "report_links": _report_links(tournament),
            "status_form": PairStatusForm(),
        },
    )


@organizer_required
@require_POST
def unit_add(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    from tournaments.services import add_unit

    form = UnitForm(request.POST, prefix="unit")
    if form.is_valid():
        try:
            unit = add_unit(
                tournament, form.cleaned_data["code"], form.cleaned_data["name"], request.user
            )
        except ServiceError as error:
            messages.error(request, _service_error_message(error))
        else:
            messages.success(request, _("已添加单位：%(unit)s") % {"unit": unit})
    else:
        messages.error(request, _("请填写单位代码"))
    return redirect("tournaments:pairs", tournament.slug)


@organizer_required
def pair_edit(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Edit a pair's players, unit and seeding; withdraw / disqualify / reinstate it."""
    from tournaments.services import edit_pair

    pair = get_object_or_404(
        pairs_with_players(Pair.objects.filter(tournament=tournament)), number=number
    )
    players = list(pair.players.all())
    if request.method == "POST":
        form = PairForm(request.POST, tournament=tournament, editing=True)
        if form.is_valid():
            try:
                edit_pair(
                    pair,
                    request.user,
                    players=form.players(),
                    unit=form.cleaned_data.get("unit"),
                    seeding=form.cleaned_data.get("seeding"),
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(request, _("第%(n)s对已修改") % {"n": pair.number})
                return redirect("tournaments:pairs", tournament.slug)
    else:
        initial = {"unit": pair.unit_id, "seeding": pair.seeding}
        for index, player in enumerate(players[:2], start=1):
            initial[f"player{index}"] = player.name
            initial[f"contact{index}"] = player.contact
        form = PairForm(initial=initial, tournament=tournament, editing=True)
    return render(
        request,
        "tournaments/pair_edit.html",
        {
            "tournament": tournament,
            "nav": "pairs",
            "pair": pair,
            "form": form,
            "status_form": PairStatusForm(),
            # 取消资格: whoever may impose a disqualification (by default the organizers).
            "may": allowed(request.user, tournament),
        },
    )


@role_required(Role.ORGANIZER, Role.CHIEF_REFEREE)
@require_POST
def pair_status(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """退赛 / 取消资格 / 恢复参赛 (the service checks who may do which)."""
    from tournaments import services

    pair = get_object_or_404(Pair, tournament=tournament, number=number)
    form = PairStatusForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("操作无效"))
        return redirect("tournaments:pair_edit", tournament.slug, number)
    action = form.cleaned_data["action"]
    if action in ("withdraw", "disqualify") and live_table_of(pair) is not None:
        # Seated in the round in play: ask what to do with its table first (issue 15).
        url = reverse("pairing:withdraw_seated", args=[tournament.slug, pair.number])
        return redirect(f"{url}?action={action}")
    service = {
        "withdraw": services.withdraw_pair,
        "disqualify": services.disqualify_pair,
        "reinstate": services.reinstate_pair,
    }[action]
    try:
        service(pair, request.user, form.cleaned_data["reason"])
    except ServiceError as error:
        messages.error(request, _service_error_message(error))
    else:
        text = {
            "withdraw": _("第%(n)s对已退赛"),
            "disqualify": _("第%(n)s对已被取消资格"),
            "reinstate": _("第%(n)s对已恢复参赛"),
        }[action]
        messages.success(request, text % {"n": pair.number})
    fallback = reverse("tournaments:pairs", args=[tournament.slug])
    return redirect(safe_next(request, request.POST.get("next"), fallback))


@organizer_required
def staff(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Who holds which role here, their tables; accounts in bulk with login slips; give a role
    to an existing user by username; take access away."""
    from tournaments.services import grant_role
    from tournaments.staff import SESSION_KEY, assignments_by_user

    form = RoleForm()
    if request.method == "POST":
        form = RoleForm(request.POST)
        if form.is_valid():
            try:
                grant_role(
                    tournament,
                    form.cleaned_data["user"],
                    form.cleaned_data["role"],
                    granted_by=request.user,
                )
            except ServiceError as error:
                form.add_error(None, _service_error_message(error))
            else:
                messages.success(
                    request,
                    _("已授予 %(user)s 角色：%(role)s")
                    % {
                        "user": form.cleaned_data["username"],
                        "role": dict(RoleForm.ROLES)[form.cleaned_data["role"]],
                    },
                )
                return redirect("tournaments:staff", tournament.slug)
    assignments = assignments_by_user(tournament)
    groups = []
    for key, label, field in (
        ("organizer", _("组委会/编排"), "organizers"),
        ("chief_referee", _("裁判长"), "chief_referees"),
        ("referee", _("裁判"), "referees"),
    ):
        members = list(getattr(tournament, field).order_by("username"))
        for member in members:
            member.assignment = assignments.get(member.pk)
        groups.append((key, label, members))
    new_logins = request.session.get(SESSION_KEY, {}).get(str(tournament.pk), [])
    return render(
        request,
        "tournaments/staff.html",
        {
            "tournament": tournament,
            "nav": "manage",
            "form": form,
            "groups": groups,
            "accounts_form": StaffAccountsForm(prefix="accounts"),
            "new_logins": new_logins,
        },
    )


@organizer_required
@require_POST
def staff_accounts(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Create N accounts; their passwords stay in the session until the slips are dismissed."""
    from tournaments.staff import SESSION_KEY, create_staff_accounts

    form = StaffAccountsForm(request.POST, prefix="accounts")
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect("tournaments:staff", tournament.slug)
    data = form.cleaned_data
    try:
        logins = create_staff_accounts(
            tournament,
            data["role"],
            data["count"],
            request.user,
            prefix=data.get("prefix") or "",
            tables_each=data.get("tables_each"),
        )
    except ServiceError as error:
        messages.error(request, _service_error_message(error))
        return redirect("tournaments:staff", tournament.slug)
    kept = dict(request.session.get(SESSION_KEY, {}))
    kept[str(tournament.pk)] = [
        *kept.get(str(tournament.pk), []),
        *(login.as_dict() for login in logins),
    ]
    request.session[SESSION_KEY] = kept
    messages.success(
        request,
        _("已创建 %(n)s 个账号，请打印登录条交给本人") % {"n": len(logins)},
    )
    return redirect(reverse("tournaments:staff", args=[tournament.slug]) + "#new-logins")


@organizer_required
@require_POST
def staff_logins_done(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Forget the new passwords (after printing the slips): they cannot be shown again."""
    from tournaments.staff import SESSION_KEY

    kept = dict(request.session.get(SESSION_KEY, {}))
    kept.pop(str(tournament.pk), None)
    request.session[SESSION_KEY] = kept
    messages.success(request, _("新账号的密码已从本页清除"))
    return redirect("tournaments:staff", tournament.slug)


def _member(tournament: Tournament, user_id: int) -> Any:
    """A user holding a role at this tournament, or 404."""
    from django.contrib.auth import get_user_model

    members = (
        get_user_model()
        .objects.filter(
            Q(organized_tournaments=tournament)
            | Q(chief_refereed_tournaments=tournament)
            | Q(refereed_tournaments=tournament)
        )
        .distinct()
    )
    return get_object_or_404(members, pk=user_id)


def _posted_member(request: HttpRequest, tournament: Tournament) -> Any:
    """The staff member a form posted (``user_id``), 404 when not one here; None (and the
    message said) when the form is not valid."""
    form = StaffMemberForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("操作无效"))
        return None
    return _member(tournament, form.cleaned_data["user_id"])


@organizer_required
@require_POST
def staff_assign(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A referee's tables ("我的桌" on the referee desk)."""
    from tournaments.staff import assign_tables

    form = AssignTablesForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("请填写有效的桌号"))
        return redirect("tournaments:staff", tournament.slug)
    member = _member(tournament, form.cleaned_data["user_id"])
    first, last = form.cleaned_data.get("first"), form.cleaned_data.get("last")
    try:
        assign_tables(tournament, member, first, last, request.user)
    except ServiceError as error:
        messages.error(request, _service_error_message(error))
    else:
        if first is None:
            text = _("已取消 %(user)s 的桌号分配") % {"user": member.get_username()}
        else:
            text = _("%(user)s 负责第%(first)s–%(last)s桌") % {
                "user": member.get_username(),
                "first": first,
                "last": last if last is not None else first,
            }
        messages.success(request, text)
    return redirect("tournaments:staff", tournament.slug)


@organizer_required
@require_POST
def staff_remove(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Take every role here away (and deactivate an account that then holds nothing)."""
    from tournaments.staff import remove_staff

    member = _posted_member(request, tournament)
    if member is None:
        return redirect("tournaments:staff", tournament.slug)
    try:
        deactivated = remove_staff(tournament, member, request.user)
    except ServiceError as error:
        messages.error(request, _service_error_message(error))
    else:
        text = (
            _("已移除 %(user)s 的全部权限，该账号已停用")
            if deactivated
            else _("已移除 %(user)s 在本赛事的全部权限")
        )
        messages.success(request, text % {"user": member.get_username()})
    return redirect("tournaments:staff", tournament.slug)


@organizer_required
@require_POST
def staff_reset_password(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A lost password: a new one, shown once among the login slips like a new account's."""
    from tournaments.staff import SESSION_KEY, reset_staff_password

    member = _posted_member(request, tournament)
    if member is None:
        return redirect("tournaments:staff", tournament.slug)
    try:
        login = reset_staff_password(tournament, member, request.user)
    except ServiceError as error:
        messages.error(request, _service_error_message(error))
        return redirect("tournaments:staff", tournament.slug)
    kept = dict(request.session.get(SESSION_KEY, {}))
    earlier = [
        slip for slip in kept.get(str(tournament.pk), []) if slip["username"] != login.username
    ]
    kept[str(tournament.pk)] = [*earlier, login.as_dict()]
    request.session[SESSION_KEY] = kept
    messages.success(
        request,
        _("已为 %(user)s 生成新密码，旧密码和已登录的设备都已失效，请打印登录条交给本人")
        % {"user": login.username},
    )
    return redirect(reverse("tournaments:staff", args=[tournament.slug]) + "#new-logins")


@organizer_required
@require_POST
def staff_revoke(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    from django.contrib.auth import get_user_model

    from tournaments.services import revoke_role

    form = RevokeForm(request.POST)
    if form.is_valid():
        user = get_object_or_404(get_user_model(), pk=form.cleaned_data["user_id"])
        if user.pk == request.user.pk and form.cleaned_data["role"] == "organizer":
            messages.error(request, _("不能取消自己的组委会角色"))
            return redirect("tournaments:staff", tournament.slug)
        try:
            deactivated = revoke_role(
                tournament, user, form.cleaned_data["role"], revoked_by=request.user
            )
        except ServiceError as error:
            messages.error(request, _service_error_message(error))
        else:
            text = (
                _("已取消 %(user)s 的角色；该账号已没有任何角色，已停用")
                if deactivated
                else _("已取消 %(user)s 的角色")
            )
            messages.success(request, text % {"user": user.get_username()})
    return redirect("tournaments:staff", tournament.slug)


@action_required(Action.AUDIT_LOG)
@require_safe
def audit(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """操作日志: read-only, newest first, filter by action or round."""
    from tournaments.models import AuditEntry

    entries = AuditEntry.objects.filter(tournament=tournament).order_by("-created_at", "-pk")
    action = request.GET.get("action", "")
    if action:
        entries = entries.filter(action=action)
    round_number = request.GET.get("round", "")
    if (number := parse_int(round_number, minimum=1)) is not None:
        entries = entries.filter(round_number=number)
    table = AuditTable(entries)
    RequestConfig(request, paginate={"per_page": 100}).configure(table)
    return render(
        request,
        "tournaments/audit.html",
        {
            "tournament": tournament,
            "nav": "audit",
            "table": table,
            "actions": AuditEntry.Action.choices,
            "action": action,
            "round_number": round_number,
        },
    )


# --------------------------------------------------------------------------------------------
# Check-in (签到)

CHECKIN_PER_PAGE = 200


@action_required(Action.CHECK_IN)
def checkin(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """签到: the active pairs, present or not, for the coming round; tap to mark present (or
    take it back); the QR code each pair's slip carries; withdraw the absent in one step."""
    from tournaments.checkin import check_in, checked_in, checkin_round, undo_check_in

    if request.method == "POST":
        number = parse_int(request.POST.get("pair", ""), minimum=1)
        pair = get_object_or_404(Pair, tournament=tournament, number=number or 0)
        try:
            if request.POST.get("action") == "undo":
                undo_check_in(pair, request.user)
                messages.success(request, _("已取消第%(n)s对的签到") % {"n": pair.number})
            else:
                check_in(pair, request.user)
                messages.success(request, _("第%(n)s对已签到") % {"n": pair.number})
        except ServiceError as error:
            messages.error(request, _service_error_message(error))
        query = request.POST.get("q", "")[:50]
        url = reverse("tournaments:checkin", args=[tournament.slug])
        return redirect(f"{url}?q={query}#pair-{pair.number}" if query else url)
    round_number = checkin_round(tournament)
    present = checked_in(tournament, round_number)
    query = (request.GET.get("q") or "").strip()[:50]
    listing = Pair.objects.filter(tournament=tournament, status=Pair.Status.ACTIVE)
    if query:
        condition = Q(players__name__icontains=query) | Q(unit__name__icontains=query)
        if (found := parse_int(query, minimum=1)) is not None:
            condition |= Q(number=found)
        listing = listing.filter(condition).distinct()
    if request.GET.get("show") == "absent":
        listing = listing.exclude(pk__in=list(present))
    paginator = Paginator(pairs_with_players(listing.order_by("number")), CHECKIN_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    for pair in page:
        pair.checkin = present.get(pair.pk)
    active = Pair.objects.filter(tournament=tournament, status=Pair.Status.ACTIVE).count()
    return render(
        request,
        "tournaments/checkin.html",
        {
            "tournament": tournament,
            "nav": "checkin",
            "page": page,
            "query": query,
            "show": request.GET.get("show", ""),
            "round_number": round_number,
            "present_count": len(present),
            "active_count": active,
            "draw_exists": Round.objects.filter(
                tournament=tournament, number=round_number
            ).exists(),
            "can_withdraw": may(request.user, tournament, Action.REGISTRATION),
        },
    )


@action_required(Action.CHECK_IN)
def checkin_scan(request: HttpRequest, tournament: Tournament, token: str) -> HttpResponse:
    """What a pair's QR slip opens on a staff phone: the pair, and one button to check it in.
    The address carries the pair's check-in token, never its code (issue 29)."""
    from tournaments.checkin import check_in, checked_in, checkin_round

    pair = get_object_or_404(
        pairs_with_players(Pair.objects.filter(tournament=tournament)),
        checkin_token=(token or "").strip()[:24],
    )
    if request.method == "POST":
        try:
            _row, created = check_in(pair, request.user, via="qr")
        except ServiceError as error:
            messages.error(request, _service_error_message(error))
        else:
            messages.success(
                request,
                (_("第%(n)s对已签到") if created else _("第%(n)s对此前已签到"))
                % {"n": pair.number},
            )
        return redirect("tournaments:checkin_scan", tournament.slug, pair.checkin_token)
    round_number = checkin_round(tournament)
    return render(
        request,
        "tournaments/checkin_scan.html",
        {
            "tournament": tournament,
            "nav": "checkin",
            "pair": pair,
            "round_number": round_number,
            "checkin": checked_in(tournament, round_number).get(pair.pk),
        },
    )


@organizer_required
@require_POST
def checkin_withdraw(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Withdraw every active pair not checked in for the coming round (before its draw)."""
    from tournaments.checkin import checkin_round, withdraw_absent

    number = checkin_round(tournament)
    try:
        withdrawn = withdraw_absent(
            tournament, request.user, _("第%(n)s轮编排前未签到") % {"n": number}
        )
    except ServiceError as error:
        messages.error(request, _service_error_message(error))
    else:
        if withdrawn:
            messages.success(
                request,
                _("未签到的 %(count)s 对已退赛：%(pairs)s")
                % {"count": len(withdrawn), "pairs": ", ".join(map(str, withdrawn))},
            )
        else:
            messages.success(request, _("所有参赛对都已签到，无需退赛"))
    return redirect("tournaments:checkin", tournament.slug)
