"""Issue 29 finding L: the tournament file (CLI ``import_tournament``) refuses what no column can
hold with one sentence per problem, never a traceback, and writes nothing — a 5,000-digit
integer, a NUL, a lone surrogate, an invisible or bidi-control name; a forfeit ``jcf`` of 1e308
or 5e-324 (the settings page caps it at 999.99).

The numbers go through the one bounded reader (``rules.limits.loads_bounded`` in the file's
``load_json``), the texts through ``rules.text.text_problem`` (the parser's ``Problems.text``),
the forfeit through the settings' check (``RuleSet``, ``rules.limits.number_problem``).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.support.golden import EXAMPLES
from tests.support.site import snapshot

pytestmark = pytest.mark.django_db


def _example() -> dict[str, Any]:
    return json.loads((EXAMPLES / "eleven-pairs.json").read_text(encoding="utf-8"))


def _refused(path: Path) -> str:
    """Import ``path``: refused with a sentence (no traceback) and nothing written."""
    before = snapshot()
    with pytest.raises(CommandError) as refused:
        call_command("import_tournament", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    text = str(refused.value)
    assert text.strip() and "Traceback" not in text
    assert snapshot() == before
    return text


@pytest.mark.parametrize("jcf", [1e308, 5e-324, 1e-7])
def test_a_forfeit_award_beyond_the_settings_range_is_refused(jcf: float, tmp_path: Path) -> None:
    data = _example()
    data["settings"]["forfeit"] = {"cf": 2, "jcf": jcf}
    path = tmp_path / "forfeit.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert "forfeit" in _refused(path) or "弃权" in _refused(path)


@pytest.mark.parametrize("where", ["pair id", "seeding", "round seed"])
def test_a_five_thousand_digit_integer_is_a_sentence(where: str, tmp_path: Path) -> None:
    data = _example()
    marker = 777_000_777
    if where == "pair id":
        data["pairs"][0]["id"] = marker
    elif where == "seeding":
        data["pairs"][0]["seeding"] = marker
    else:
        data["rounds"][0]["seed"] = marker
    text = json.dumps(data).replace(str(marker), "9" * 5000)
    path = tmp_path / "digits.json"
    path.write_text(text, encoding="utf-8")
    assert "位数过多" in _refused(path)


@pytest.mark.parametrize(
    "name",
    ["甲\x00零", "\ud800甲", "\u200b", "\u200b\u200c", "甲\u202e乙", "甲\x07乙"],
    ids=["nul", "lone-surrogate", "zero-width", "only-invisible", "bidi", "control"],
)
def test_a_name_with_nul_surrogate_invisible_or_control_is_a_sentence(
    name: str, tmp_path: Path
) -> None:
    data = _example()
    data["pairs"][0]["players"][0] = name
    path = tmp_path / "name.json"
    # ensure_ascii: the lone surrogate travels as the escape "\ud800", as an attacker sends it.
    path.write_text(json.dumps(data, ensure_ascii=True), encoding="utf-8")
    _refused(path)


def test_a_nul_in_a_unit_name_or_a_reason_is_a_sentence(tmp_path: Path) -> None:
    data = _example()
    data["units"][0]["name"] = "单位\x00零"
    path = tmp_path / "unit.json"
    path.write_text(json.dumps(data, ensure_ascii=True), encoding="utf-8")
    _refused(path)
