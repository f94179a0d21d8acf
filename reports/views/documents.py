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

from reports import collect, pdf, xlsx
from reports.registrations import (
    MAX_BYTES,
    RegistrationError,
    import_registrations,
    parse_registrations,
)
from scoring.once import new_once_key, once
from tournaments.bounds import parse_int
from tournaments.models import Pair, Round, Tournament
from tournaments.permissions import organizer_required

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
    data = xlsx.render_registration_template(tournament.name)
    return _file(data, f"{tournament.slug}-{_('报名表')}.xlsx", XLSX)


@require_http_methods(["GET", "POST"])
@organizer_required
def registration_import(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Upload the filled template: every problem is listed, nothing imported unless all is
    valid."""
    problems: list[str] = []
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

            def write() -> int:
                taken = Pair.objects.filter(tournament=tournament).values_list("number", flat=True)
                lines = parse_registrations(data, taken)
                return import_registrations(tournament, lines, request.user)

            try:
                # One-time key (issue 11): a doubled upload imports once, the repeat is told
                # the first import's count.
                count = once(
                    request.POST.get("once") or None,
                    "import",
                    write,
                    lambda n: {"count": n},
                    lambda first: int(first["count"]),
                )
            except RegistrationError as error:
                problems = error.messages
            else:
                messages.success(request, _("已导入 %(n)s 对") % {"n": count})
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
            "once": new_once_key(),
        },
        status=400 if problems else 200,
    )
