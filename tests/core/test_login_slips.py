"""Login slips (登录条, issue 15): eight to an A4 page, every word on it, the QR code scans back to
the login address."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reports.pdf.logins import LoginSlip, render_login_slips


def _slips(n: int) -> list[LoginSlip]:
    return [
        LoginSlip(
            title="2026 常州掼蛋邀请赛",
            heading="裁判登录条",
            lines=(("用户名", f"cz-r{i:02d}"), ("密码", f"pw{i:08d}"), ("负责桌号", "第1–10桌")),
            url=f"https://gd.example.org/accounts/login/?next=/t/cz/referee/&n={i}",
            note="扫码或在浏览器打开上面的网址登录",
        )
        for i in range(1, n + 1)
    ]


@pytest.mark.skipif(
    shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None,
    reason="poppler-utils not installed",
)
def test_eight_slips_a_page_with_every_username_and_password(tmp_path: Path) -> None:
    source = tmp_path / "slips.pdf"
    source.write_bytes(render_login_slips(_slips(9), "登录条"))
    info = subprocess.run(["pdfinfo", str(source)], capture_output=True, text=True, check=True)
    assert re.search(r"^Pages:\s+2$", info.stdout, re.M), info.stdout
    text = subprocess.run(
        ["pdftotext", str(source), "-"], capture_output=True, text=True, check=True
    ).stdout
    for i in range(1, 10):
        assert f"cz-r{i:02d}" in text and f"pw{i:08d}" in text


@pytest.mark.skipif(
    shutil.which("pdftoppm") is None or shutil.which("zbarimg") is None,
    reason="pdftoppm or zbarimg not installed (Debian: poppler-utils, zbar-tools)",
)
def test_the_slip_qr_code_scans_back_to_the_login_address(tmp_path: Path) -> None:
    slips = _slips(1)
    source = tmp_path / "slip.pdf"
    source.write_bytes(render_login_slips(slips, "登录条"))
    subprocess.run(
        ["pdftoppm", "-png", "-r", "150", str(source), str(tmp_path / "p")],
        check=True,
        capture_output=True,
    )
    png = next(tmp_path.glob("p-*.png"))
    out = subprocess.run(
        ["zbarimg", "-q", "--raw", str(png)], capture_output=True, text=True, check=False
    )
    assert out.stdout.strip() == slips[0].url


def test_no_slips_is_still_a_pdf() -> None:
    assert render_login_slips([], "登录条").startswith(b"%PDF")
