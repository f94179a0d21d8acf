"""The stage-kind registry (issue 27, docs/architecture.md "Stage kinds"): every kind of
``rules.kinds`` has its behaviour in the pairing layer's one map, a translated name, and no
module outside the registry names a kind — the layers above ask its capabilities."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils.translation import override

from pairing.kinds import DRAWS
from rules.kinds import KINDS, StageKind
from rules.ruleset import RuleSet
from rules.stages import Stage, stage_keys
from tournaments.wording import stage_kind_label

ROOT = Path(__file__).resolve().parents[2]
APPS = ("tournaments", "scoring", "pairing", "reports")
# The kinds' names outside ``rules/``: the demo's settings only (data, not a comparison).
NAMED_KINDS = ("knockout", "round_robin")
ALLOWED = {"reports/management/commands/demo.py"}


def modules_naming_kinds(root: Path = ROOT) -> set[str]:
    """Every app module outside ``rules/`` (migrations aside) with a string literal that is a
    kind's name."""
    found = set()
    for app in APPS:
        for path in (root / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            if any(
                isinstance(node, ast.Constant) and node.value in NAMED_KINDS
                for node in ast.walk(tree)
            ):
                found.add(str(path.relative_to(root)))
    return found


def test_no_module_outside_the_registry_names_a_kind() -> None:
    named = modules_naming_kinds()
    assert named <= ALLOWED, sorted(named - ALLOWED)
    assert len(named) <= 3


def test_the_check_sees_a_kind_named_in_a_module(tmp_path: Path) -> None:
    """The control: a comparison with a kind's name is found."""
    for app in APPS:
        (tmp_path / app).mkdir()
    (tmp_path / "scoring" / "x.py").write_text('def f(s):\n    return s.kind == "knockout"\n')
    (tmp_path / "pairing" / "migrations").mkdir()
    (tmp_path / "pairing" / "migrations" / "0001.py").write_text('KIND = "round_robin"\n')
    assert modules_naming_kinds(tmp_path) == {"scoring/x.py"}


def test_no_template_compares_kinds() -> None:
    # A kind's name quoted, or a ``kind`` compared (``spec.kind == …``, ``… in stage_kinds``).
    names = "|".join(("swiss", *NAMED_KINDS))
    pattern = re.compile(rf"[\"']({names})[\"']|\.kind\s*(==|!=)|in \w*kinds\b")
    named = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "templates").rglob("*.html")
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert named == []


@pytest.mark.parametrize("name", list(KINDS))
def test_every_kind_has_its_draw_its_keys_and_a_translated_name(name: str) -> None:
    kind = KINDS[name]
    assert isinstance(kind, StageKind) and kind.name == name
    assert DRAWS[name].kind is kind  # the pairing layer's behaviour of this very kind
    assert stage_keys(name)[0] == "kind" and "entrants" in stage_keys(name)
    assert kind.default_seeding and (not kind.seedings or kind.default_seeding in kind.seedings)
    assert stage_kind_label(name) == kind.label  # Chinese by default
    with override("en"):
        assert stage_kind_label(name) != kind.label  # and worded in English


def test_the_kinds_are_the_file_s_and_ask_capabilities() -> None:
    assert list(KINDS) == ["swiss", "round_robin", "knockout"]
    swiss, groups, knockout = KINDS.values()
    assert swiss.swiss_paired and not groups.swiss_paired and not knockout.swiss_paired
    assert groups.has_groups and knockout.has_bracket and knockout.series
    assert not knockout.gives_points and swiss.gives_points and groups.gives_points
    assert (swiss.default_tie, groups.default_tie, knockout.default_tie) == (
        None,
        None,
        "extra_deal",
    )
    assert Stage("swiss", rounds=5).planned_rounds == 5
    assert Stage("round_robin", groups=2).planned_rounds is None


def test_a_stage_round_trips_its_kind_s_keys_in_the_kind_s_order() -> None:
    stages = [
        {"kind": "swiss", "rounds": 3, "correction_minutes": 5},
        {"kind": "round_robin", "seeding": "lot", "qualify": 1, "groups": 2, "entrants": 8},
        {"kind": "knockout", "tie": "extra_deal", "best_of": 3, "third_place": True},
    ]
    rules = RuleSet.from_dict({"stages": stages})
    assert [stage.to_dict() for stage in rules.stages] == [
        {"kind": "swiss", "rounds": 3, "correction_minutes": 5},
        {"kind": "round_robin", "groups": 2, "qualify": 1, "seeding": "lot", "entrants": 8},
        {"kind": "knockout", "best_of": 3, "third_place": True, "tie": "extra_deal"},
    ]
