"""The UI speaks Chinese by default and English completely (issue 5 "Quality")."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "locale" / "en" / "LC_MESSAGES" / "django.po"
SOURCES = ("guandan_tourney", "rules", "scoring", "pairing", "tournaments", "reports", "templates")


def _entries(po: str) -> dict[str, str]:
    """msgctxt+msgid → msgstr (non-fuzzy entries only; plural forms by their msgid)."""
    entries: dict[str, str] = {}
    for block in po.split("\n\n"):
        if re.search(r"^#,.*\bfuzzy\b", block, re.M):
            continue

        def field(name: str, text: str = block) -> str | None:
            match = re.search(rf'^{name} ((?:".*"\n?)+)', text + "\n", re.M)
            if not match:
                return None
            return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(1)))

        msgid = field("msgid")
        if not msgid:
            continue
        context = field("msgctxt")
        translated = field("msgstr") or field(r"msgstr\[1\]") or ""
        entries[(context + "\x04" if context else "") + msgid] = translated
    return entries


def test_english_catalogue_has_no_empty_or_fuzzy_entry():
    po = CATALOGUE.read_text(encoding="utf-8")
    assert "#, fuzzy\n" not in po.split("\n\n", 1)[1]
    empty = [key for key, text in _entries(po).items() if not text]
    assert empty == []


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs gettext's xgettext")
def test_every_string_in_the_code_is_in_the_english_catalogue(tmp_path):
    # Extract the strings afresh from a copy of the sources and compare with the catalogue.
    for name in (*SOURCES, "manage.py"):
        source = ROOT / name
        target = tmp_path / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target)
    (tmp_path / "locale").mkdir()
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "en", "-v0", "--no-location"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    fresh = _entries((tmp_path / "locale/en/LC_MESSAGES/django.po").read_text(encoding="utf-8"))
    committed = _entries(CATALOGUE.read_text(encoding="utf-8"))
    missing = sorted(key for key in fresh if not committed.get(key))
    assert missing == []


@pytest.mark.django_db
def test_pages_switch_to_english(client):
    client.cookies["django_language"] = "en"
    assert "Guandan" in client.get("/").content.decode()
    client.cookies["django_language"] = "zh-hans"
    assert "掼蛋" in client.get("/").content.decode()
