"""The apps form a line of layers (docs/architecture.md): each imports only from the ones below.

``rules`` ← ``tournaments`` ← ``scoring`` ← ``pairing`` ← ``reports``. Every import counts,
at module level or inside a function, absolute or relative. The configuration package
``guandan_tourney`` (settings, the root URL configuration, middleware) may name any app and no app
imports it (an app reads settings through ``django.conf.settings``); no app imports
``benchmarks``, ``tests`` or ``scripts`` either.

The tests keep to a rule of their own: a helper two test modules share lives in
``tests/support`` (fixtures in a conftest, which pytest finds without an import); no test module
imports another test module or a conftest.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("rules", "tournaments", "scoring", "pairing", "reports")
OUTSIDE = ("benchmarks", "tests", "scripts")  # may import apps; never imported by them
CONFIG = ("guandan_tourney",)  # imports every app; never imported by them


def _imported_packages(path: Path, package: str, root: Path) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module_parts = path.relative_to(root).with_suffix("").parts
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = module_parts[: len(module_parts) - node.level]
                top = base[0] if base else package
            else:
                top = (node.module or "").split(".")[0]
            found.append((node.lineno, top))
    return found


def upward_imports(root: Path = ROOT) -> list[str]:
    """Every import from a layer above (or from the configuration, benchmarks, tests or scripts)
    in the apps, as text."""
    problems = []
    for level, package in enumerate(LAYERS):
        above = set(LAYERS[level + 1 :]) | set(OUTSIDE) | set(CONFIG)
        for path in sorted((root / package).rglob("*.py")):
            for line, top in _imported_packages(path, package, root):
                if top in above:
                    where = path.relative_to(root)
                    what = "the configuration" if top in CONFIG else f"a layer above {package}"
                    problems.append(f"{where}:{line} imports {top} ({what})")
    return problems


def test_no_app_imports_from_a_layer_above() -> None:
    assert upward_imports() == []


def test_the_check_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    """The control: an upward import hidden in a function, and a relative one, are found."""
    for package in LAYERS:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "scoring" / "hidden.py").write_text(
        "def f():\n    from pairing.services import generate_round\n"
    )
    (tmp_path / "tournaments" / "plain.py").write_text("import reports.views\n")
    (tmp_path / "reports" / "fine.py").write_text("from . import x\nfrom rules import levels\n")
    (tmp_path / "rules" / "bench.py").write_text("import benchmarks.run\n")
    (tmp_path / "reports" / "config.py").write_text(
        "def f():\n    from guandan_tourney.redirects import safe_next\n"
    )
    found = [p.split(" imports ")[0] for p in upward_imports(tmp_path)]
    assert found == [
        "rules/bench.py:1",
        "tournaments/plain.py:1",
        "scoring/hidden.py:2",
        "reports/config.py:2",
    ]


@pytest.mark.parametrize("package", LAYERS)
def test_every_layer_is_a_package(package: str) -> None:
    assert (ROOT / package / "__init__.py").exists()


def imports_between_tests(root: Path = ROOT) -> list[str]:
    """What one test module (or a benchmark, or a conftest) imports from another test module
    or a conftest, as text: shared helpers live in ``tests/support`` and fixtures in conftest
    files, which pytest finds without an import."""
    problems = []
    for folder in ("tests", "benchmarks"):
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                for name in names:
                    if name.split(".")[0] == "tests" and not name.startswith("tests.support"):
                        problems.append(f"{path.relative_to(root)}:{node.lineno} imports {name}")
    return problems


def test_tests_share_helpers_through_support_only() -> None:
    assert imports_between_tests() == []


def test_the_check_sees_a_test_importing_another(tmp_path: Path) -> None:
    """The control: a test importing a conftest's helper, or another test module's, is found."""
    for folder in ("tests/db", "tests/support", "benchmarks"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "tests" / "db" / "test_a.py").write_text(
        "from tests.db.conftest import next_round\nfrom tests.support.pages import post\n"
    )
    (tmp_path / "tests" / "db" / "test_b.py").write_text("def f():\n    import tests.db.test_a\n")
    (tmp_path / "benchmarks" / "run.py").write_text("from tests.web.team_event import team_rows\n")
    found = [p.split(" imports ")[0] for p in imports_between_tests(tmp_path)]
    assert found == ["tests/db/test_a.py:1", "tests/db/test_b.py:2", "benchmarks/run.py:1"]
