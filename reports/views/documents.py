"""Organizer downloads: score sheets, pairing lists, standings, penalty reports (PDF), the Excel
export, the registration template and the registration import page.

Thin views (STYLE.md): check permission (``organizer_required``: organizers and superusers
only, as score sheets carry the tables' entry links), read the parameters, build the rows
(``reports.collect``, read only) and render them outside any transaction; the import calls
``reports.registrations`` which writes through ``tournaments.services`` in one transaction.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from reports import collect, pdf, stages, xlsx
from reports.registrations import MAX_BYTES, RegistrationError, import_sheet
from scoring.once import new_once_key, once
from tournaments.bounds import parse_int
from tournaments.errors import ServiceError
from tournaments.models import Pair, Round, Team, Tournament
from tournaments.permissions import Action, action_required, organizer_required
from tournaments.search import look_alike_warnings

DOCUMENTS = ("scoresheets", "pairings", "standings", "penalties", "slips")


def _int(request: HttpRequest, name: str) -> int | None:
    return parse_int(request.GET.get(name, ""), minimum=1)


def _flag(request: HttpRequest, name: str) -> bool:
    return request.GET.get(name, "") in {"1", "true", "on", "yes"}


def _file(data: bytes, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, filename)
    response["Cache-Control"] = "private, no-store"
    return response


def document_filename(tournament: Tournament, document: str, **params: Any) -> str:
    """``slug-第3轮-记分表.pdf`` and the like."""
    names = {
        "scoresheets": _("记分表"),
        "filled": _("记分表（已填）"),
        "pairings": _("对阵表"),
        "standings": _("名次"),
        "final": _("最终排名"),
        "penalties": _("判罚记录"),
        "slips": _("对号卡"),
    }
    parts = [tournament.slug]
    if params.get("round"):
        parts.append(_("第%(n)s轮") % {"n": params["round"]})
    parts.append(names[document])
    return "-".join(parts) + ".pdf"


def render_document(
    tournament: Tournament,
    document: str,
    round_number: int | None = None,
    filled: bool = False,
    final: bool = False,
    base_url: str | None = None,
    progress: pdf.Progress | None = None,
    codes: bool = False,
) -> bytes:
    """One of the PDFs (also used by ``manage.py print``). Raises ``ReportError``."""
    if document == "slips":
        return pdf.render_slips(collect.pair_slips(tournament, base_url))
    if document == "scoresheets":
        sheets = collect.score_sheets(tournament, round_number, filled, base_url, codes)
        if not sheets:
            raise collect.ReportError("no_filled_sheets" if filled else "no_sheets")
        return pdf.render_scoresheets(sheets, progress=progress, total=len(sheets))
    if document == "pairings":
        return pdf.render_pairings(collect.pairing_list(tournament, round_number))
    if document == "standings":
        return pdf.render_standings(collect.standings(tournament, round_number, final))
    if document == "penalties":
        return pdf.render_penalties(collect.penalty_report(tournament, round_number))
    raise ValueError(document)


@require_GET
@organizer_required
def index(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The organizer's printing and export page."""
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    return render(
        request,
        "reports/index.html",
        {
            "tournament": tournament,
            "nav": "reports",
            "rounds": rounds,
            "latest": rounds[-1].number if rounds else None,
            "pair_count": Pair.objects.filter(tournament=tournament).count(),
            "has_stages": bool(tournament.rules.stages),
            "knockout_stages": stages.knockout_stages(tournament)
            if tournament.rules.stages
            else [],
            "group_stages": stages.group_stages(tournament) if tournament.rules.stages else [],
            # The QR codes must reach players' phones (issue 15): say so when they may not.
            "base_problem": collect.public_base_problem(),
            "base_url": collect.public_base(request),
        },
    )


@require_GET
@organizer_required
def download(request: HttpRequest, tournament: Tournament, document: str) -> HttpResponse:
    """One of the four PDFs: ``?round=N``, ``&filled=1`` (score sheets), ``&final=1``."""
    if document not in DOCUMENTS:
        raise Http404
    round_number = _int(request, "round")
    filled = _flag(request, "filled")
    final = _flag(request, "final")
    try:
        data = render_document(
            tournament,
            document,
            round_number,
            filled=filled,
            final=final,
            base_url=collect.public_base(request),
            codes=_flag(request, "codes"),
        )
    except collect.ReportError as error:
        messages.error(request, error.message)
        return redirect("reports:index", slug=tournament.slug)
    kind = "filled" if filled and document == "scoresheets" else document
    if final and document == "standings":
        kind = "final"
    name = document_filename(tournament, kind, round=round_number)
    return _file(data, name, "application/pdf")


XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@require_GET
@organizer_required
def export(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    data = xlsx.render_workbook(collect.workbook(tournament))
    return _file(data, f"{tournament.slug}-{_('成绩')}.xlsx", XLSX)


@require_GET
@organizer_required
def registration_template(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The registration template: the team sheet for a team event, else the pairs sheet."""
    if tournament.rules.event == "teams":
        team_data = xlsx.render_team_registration_template(tournament.name)
        return _file(team_data, f"{tournament.slug}-{_('团体报名表')}.xlsx", XLSX)
    data = xlsx.render_registration_template(tournament.name)
    return _file(data, f"{tournament.slug}-{_('报名表')}.xlsx", XLSX)


@require_http_methods(["GET", "POST"])
@organizer_required
def registration_import(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Upload the filled template: every problem is listed, nothing imported unless all is
    valid."""
    problems: list[str] = []
    teams = tournament.rules.event == "teams"
    if request.method == "POST":
        upload = request.FILES.get("file")
        if upload is None:
            problems = [_("请选择要上传的 Excel 文件")]
        elif upload.size and upload.size > MAX_BYTES:
            problems = [
                _("文件过大，报名表不能超过 %(max)s MB") % {"max": MAX_BYTES // 1024 // 1024}
            ]
        else:
            data = upload.read(MAX_BYTES + 1)

            append = request.POST.get("append") == "1"

            def write() -> int:
                return import_sheet(tournament, data, request.user, append=append)

            try:
                # One-time key (issue 11): a doubled upload imports once, the repeat is told
                # the first import's count.
                count = once(
                    request.POST.get("once") or None,
                    "import",
                    write,
                    lambda n: {"count": n},
                    lambda first: int(first["count"]),
                    scope=f"tournament={tournament.pk}",
                )
            except RegistrationError as error:
                problems = error.messages
            except ServiceError as error:  # the one-time key: missing, or not this page's
                problems = [error.message]
            else:
                done = _("已导入 %(n)s 队") if teams else _("已导入 %(n)s 对")
                messages.success(request, done % {"n": count})
                for warning in look_alike_warnings(tournament):
                    messages.warning(request, warning)
                if started := _late_entry_round(tournament):
                    messages.info(
                        request,
                        _("比赛已开始：新报名的参赛对从第%(n)s轮起参加编排，之前各轮记0分")
                        % {"n": started},
                    )
                return redirect("reports:import", slug=tournament.slug)
    return render(
        request,
        "reports/import.html",
        {
            "tournament": tournament,
            "nav": "reports",
            "problems": problems,
            "max_mb": MAX_BYTES // 1024 // 1024,
            "pair_count": Pair.objects.filter(tournament=tournament).count(),
            "teams": teams,
            "team_count": Team.objects.filter(tournament=tournament).count() if teams else 0,
            "once": new_once_key(),
            "late_round": _late_entry_round(tournament),
        },
        status=400 if problems else 200,
    )


def _base_url(request: HttpRequest) -> str:
    """Where QR codes and printed links point: ``PUBLIC_BASE_URL`` when set, else this host."""
    from django.conf import settings

    configured = str(getattr(settings, "PUBLIC_BASE_URL", "") or "").rstrip("/")
    return configured + "/" if configured else request.build_absolute_uri("/")


STAGE_DOCUMENTS = ("bracket", "groups", "knockout-sheets")


@require_GET
@organizer_required
def login_slips(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """登录条 PDF of the accounts just created (their passwords are in this session only)."""
    from django.urls import reverse

    from reports.pdf.logins import LoginSlip, render_login_slips
    from tournaments.staff import SESSION_KEY, Login

    kept = request.session.get(SESSION_KEY, {}).get(str(tournament.pk), [])
    if not kept:
        messages.error(request, _("没有待打印的登录条：密码已清除或尚未创建账号"))
        return redirect("tournaments:staff", slug=tournament.slug)
    login_url = _base_url(request).rstrip("/") + reverse("login")
    desk_url = reverse("referee:dashboard", args=[tournament.slug])
    roles = {"referee": _("裁判"), "chief_referee": _("裁判长")}
    slips = []
    for data in kept:
        login = Login.from_dict(data)
        lines = [(_("用户名"), login.username), (_("密码"), login.password)]
        if login.first_table is not None:
            lines.append(
                (
                    _("负责桌号"),
                    _("第%(first)s–%(last)s桌")
                    % {"first": login.first_table, "last": login.last_table},
                )
            )
        slips.append(
            LoginSlip(
                title=tournament.name,
                heading=_("%(role)s登录条") % {"role": roles.get(login.role, login.role)},
                lines=tuple(lines),
                url=f"{login_url}?next={desk_url}",
                note=_("扫码或在浏览器打开上面的网址登录；请妥善保管密码"),
            )
        )
    data = render_login_slips(slips, _("登录条"))
    return _file(data, f"{tournament.slug}-{_('登录条')}.pdf", "application/pdf")


def qr_svg(data: str, module: int = 8) -> str:
    """An SVG image of the QR code for ``data`` (the same encoder as the printed sheets)."""
    modules = pdf.qr_modules(data)
    quiet = 4
    size = (len(modules) + 2 * quiet) * module
    rects = "".join(
        f'<rect x="{(quiet + col) * module}" y="{(quiet + row) * module}" '
        f'width="{length * module}" height="{module}"/>'
        for row, col, length in pdf.qr_runs(modules)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" shape-rendering="crispEdges">'
        f'<rect width="{size}" height="{size}" fill="#fff"/><g fill="#000">{rects}</g></svg>'
    )


@require_GET
@action_required(Action.CHECK_IN)
def checkin_qr(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The QR code of pair ``number``'s check-in address (what its slip carries), as an SVG
    image. Named by the pair's number: no secret in the address (issue 29); the image encodes
    the pair's check-in token, never its code."""
    from tournaments.checkin import checkin_path

    number = parse_int(number, minimum=1) or 0  # beyond the column: no such pair
    pair = Pair.objects.filter(tournament=tournament, number=number).first()
    if pair is None:
        raise Http404
    url = _base_url(request).rstrip("/") + checkin_path(tournament, pair.checkin_token)
    response = HttpResponse(qr_svg(url), content_type="image/svg+xml")
    response["Cache-Control"] = "private, no-store"
    return response


def _late_entry_round(tournament: Tournament) -> int | None:
    """The first round a pair registered now plays (None before round 1 is published).

    Late entries start on 0 points: RULES.md and the settings have nothing on late entries,
    so a pair registered after round N was published simply has no result in rounds 1…N and
    is paired from the next round generated (docs/event-desk.md)."""
    latest = (
        Round.objects.counted()
        .filter(tournament=tournament)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    return None if latest is None else latest + 1


@require_GET
@organizer_required
def stage_document(request: HttpRequest, tournament: Tournament, document: str) -> HttpResponse:
    """The stages' paper (RULES.md §8): ``bracket`` (``?stage=K`` a knockout stage, else the
    last; ``?paper=a3``, else A4 landscape), the
    ``groups`` tables (``?stage=K``, else every group stage) and the ``knockout-sheets`` of a
    round (``?round=N``, else the knockout's last round): score sheets with a box a game."""
    if document not in STAGE_DOCUMENTS:
        raise Http404
    if document == "bracket":
        knockout = stages.knockout_stage(tournament, _int(request, "stage"))
        if knockout is None:
            raise Http404
        paper = "a3" if request.GET.get("paper") == "a3" else "a4"
        data = pdf.render_bracket(
            f"{tournament.name}　淘汰赛对阵",
            f"第{knockout}阶段",
            stages.printed_bracket(tournament, knockout),
            paper,
        )
        return _file(data, f"{tournament.slug}-{_('淘汰赛对阵')}.pdf", "application/pdf")
    if document == "groups":
        wanted = _int(request, "stage")
        sections = [
            section
            for number in stages.group_stages(tournament)
            if wanted in (None, number)
            for section in stages.group_sections(tournament, number)
        ]
        if not sections:
            messages.error(request, _("小组赛尚未开始"))
            return redirect("reports:index", slug=tournament.slug)
        data = pdf.render_sections(sections)
        return _file(data, f"{tournament.slug}-{_('小组积分表')}.pdf", "application/pdf")
    sheets = stages.knockout_sheets(tournament, _int(request, "round"))
    if not sheets:
        messages.error(request, _("淘汰赛尚未开始"))
        return redirect("reports:index", slug=tournament.slug)
    data = pdf.render_knockout_sheets(sheets)
    return _file(data, f"{tournament.slug}-{_('淘汰赛记分表')}.pdf", "application/pdf")
