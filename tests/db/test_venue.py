"""Table-side at a venue (issue 15): every QR code and printed link built on PUBLIC_BASE_URL,
the print page warning when it is unset or names this machine, the pairs' code slips, each
pair's code on its half of the score sheet, and the paper saying what the phones do (RULES.md
§7: South enters, West confirms)."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from pypdf import PdfReader

from reports import collect, pdf
from reports.rows import PairInfo, PairSlip, ScoreSheet
from tournaments.models import Pair, Round

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def pages(data: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(data)).pages]


@pytest.mark.parametrize(
    ("configured", "problem"),
    [
        ("", "unset"),
        ("http://127.0.0.1:8000", "local"),
        ("http://localhost:8000", "local"),
        ("http://0.0.0.0:8000", "local"),
        ("http://[::1]:8000", "local"),
        ("http://192.168.1.10:8000", ""),
        ("https://score.example.org", ""),
    ],
)
def test_public_base_problem(settings: Any, configured: str, problem: str) -> None:
    settings.PUBLIC_BASE_URL = configured
    assert collect.public_base_problem() == problem


def test_qr_codes_use_public_base_url_whatever_host_printed_them(
    client: Any, settings: Any, round1: Round, organizer: Any
) -> None:
    settings.PUBLIC_BASE_URL = "https://score.example.org"
    client.force_login(organizer)
    page = client.get(reverse("reports:index", args=[round1.tournament.slug])).content.decode()
    assert 'data-testid="base-url-warning"' not in page and "https://score.example.org" in page
    request = client.get("/").wsgi_request  # asked from http://testserver
    assert collect.public_base(request) == "https://score.example.org"
    token = round1.tables.filter(is_bye=False).order_by("number").first().entry_token
    sheets = collect.score_sheets(round1.tournament, 1, base_url=collect.public_base(request))
    assert sheets[0].entry_url == f"https://score.example.org/table/{token}/"
    assert collect.site_url() == "https://score.example.org"  # the print command


@pytest.mark.parametrize("configured", ["", "http://127.0.0.1:8000"])
def test_the_print_page_warns_when_phones_cannot_reach_the_codes(
    client: Any, settings: Any, round1: Round, organizer: Any, configured: str
) -> None:
    settings.PUBLIC_BASE_URL = configured
    client.force_login(organizer)
    page = client.get(reverse("reports:index", args=[round1.tournament.slug])).content.decode()
    assert 'data-testid="base-url-warning"' in page and "PUBLIC_BASE_URL" in page
    assert ("本机地址" in page) == bool(configured)


def test_pair_slips_one_per_pair_ten_a_page(
    client: Any, settings: Any, tournament: Any, organizer: Any
) -> None:
    settings.PUBLIC_BASE_URL = "http://192.168.1.10:8000"
    client.force_login(organizer)
    response = client.get(reverse("reports:document", args=[tournament.slug, "slips"]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    texts = pages(response.content)
    pairs = list(Pair.objects.filter(tournament=tournament).order_by("number"))
    assert len(texts) == (len(pairs) + 9) // 10
    text = "".join(texts)
    for pair in pairs:
        assert f"第 {pair.number} 对" in text and pair.code in text
    assert "南家扫记分表" in text and "西家用东西方的对号密码确认" in text
    slips = collect.pair_slips(tournament, collect.public_base())
    find = reverse("public:find", args=[tournament.slug])
    assert slips[0].find_url == f"http://192.168.1.10:8000{find}?q={pairs[0].number}"
    checkin = reverse("tournaments:checkin_scan", args=[tournament.slug, pairs[0].checkin_token])
    assert slips[0].checkin_url == f"http://192.168.1.10:8000{checkin}"
    # The QR code opens "find my table" for that pair.
    assert client.get(slips[0].find_url.removeprefix("http://192.168.1.10:8000")).status_code == 200


def test_many_slips_and_a_checkin_code() -> None:
    slips = [
        PairSlip(
            "赛", PairInfo(n, "单位", ("甲", "乙"), "ABC234"), f"http://x/f?q={n}", "http://x/c"
        )
        for n in range(1, 24)
    ]
    assert len(pages(pdf.render_slips(slips))) == 3
    assert "还没有报名" in pages(pdf.render_slips([]))[0]


def test_score_sheet_prints_each_code_on_its_half_and_says_south_enters() -> None:
    ns, ew = PairInfo(3, "", ("甲", "乙"), "NSCODE"), PairInfo(4, "", ("丙", "丁"), "EWCODE")
    plain = pages(pdf.render_scoresheets([ScoreSheet("赛", 1, 1, ns, ew, entry_url="http://x/")]))
    assert "NSCODE" not in plain[0]
    assert "南家逐副录入" in plain[0] and "西家用东西方对号密码确认" in plain[0]
    assert "西家填写，北家核对" not in plain[0]
    sheet = ScoreSheet("赛", 1, 1, ns, ew, entry_url="http://x/", codes=True)
    text = pages(pdf.render_scoresheets([sheet]))[0]
    assert "密码 NSCODE" in text and "密码 EWCODE" in text


def test_score_sheet_download_with_codes(client: Any, round1: Round, organizer: Any) -> None:
    client.force_login(organizer)
    url = reverse("reports:document", args=[round1.tournament.slug, "scoresheets"])
    table = round1.tables.filter(is_bye=False).order_by("number").first()
    text = pages(client.get(url + "?round=1&codes=1").content)[0]
    assert f"密码 {table.ns.code}" in text and f"密码 {table.ew.code}" in text
    assert table.ns.code not in pages(client.get(url + "?round=1").content)[0]


@pytest.mark.skipif(
    shutil.which("pdftoppm") is None,
    reason="pdftoppm not installed (Debian: apt-get install poppler-utils poppler-data)",
)
def test_pair_slips_render_to_png_for_the_readme(tmp_path: Path) -> None:
    names = [("张建国", "李秀英"), ("王伟", "陈静"), ("刘洋", "赵敏"), ("孙强", "周丽")]
    slips = [
        PairSlip(
            "2026年江苏省掼蛋锦标赛（双人赛）",
            PairInfo(n, "南京市掼蛋协会", names[n % 4], code),
            f"https://score.example.org/t/js2026/find/?q={n}",
        )
        for n, code in zip(range(1, 11), ("K7MQ2X", "P3RT9A", "W4ZC8N") * 4, strict=False)
    ]
    source = tmp_path / "slips.pdf"
    source.write_bytes(pdf.render_slips(slips))
    subprocess.run(
        ["pdftoppm", "-png", "-r", "80", "-singlefile", str(source), str(tmp_path / "slips")],
        check=True,
        capture_output=True,
    )
    png = tmp_path / "slips.png"
    assert png.read_bytes().startswith(b"\x89PNG")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(png, SCREENSHOTS / "pair-slips.png")
