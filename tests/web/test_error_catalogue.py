"""One error type, one catalogue (issue 10): every code raised anywhere is worded once.

The codes are collected from the source by its syntax tree, so a new ``raise ServiceError("x")``
(or ``PairingError``, ``StandingsError``, a file problem, a settings problem …) without a sentence
in ``tournaments.messages.MESSAGES`` fails here, not in front of a user.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils.translation import override

from rules.errors import GuandanError, RuleError, RuleSetError, ScoringError
from tournaments.messages import MESSAGES, describe_error, sentence

ROOT = Path(__file__).resolve().parents[2]
APPS = ("rules", "tournaments", "scoring", "pairing", "reports", "guandan_tourney")
# Calls whose first argument is a code although they build no exception.
CODE_FIRST = {"FileProblem", "sentence"}


def _modules() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"))
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
    }


def _error_classes(modules: dict[Path, ast.Module]) -> set[str]:
    """Every class deriving (by name, across modules) from ``GuandanError``."""
    bases: dict[str, set[str]] = {}
    for tree in modules.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                bases.setdefault(node.name, set()).update(names)
    found = {"GuandanError"}
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found
        found |= more


def _name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _texts(node: ast.expr | None) -> list[str]:
    """The string constant(s) an argument can be (both branches of ``a if c else b``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _texts(node.body) + _texts(node.orelse)
    return []


def raised_codes() -> dict[str, set[str]]:
    """code → where it is raised or reported (``path:line``)."""
    modules = _modules()
    errors = _error_classes(modules)
    codes: dict[str, set[str]] = {}

    def found(arg: ast.expr | None, path: Path, node: ast.AST) -> None:
        for code in _texts(arg):
            codes.setdefault(code, set()).add(f"{path.relative_to(ROOT)}:{node.lineno}")

    for path, tree in modules.items():
        imports_rule_problem = any(
            isinstance(node, ast.ImportFrom)
            and (node.module or "").endswith("errors")
            and any(alias.name == "Problem" for alias in node.names)
            for node in ast.walk(tree)
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in errors:
                # A default code (``ConflictError()``) and the code a subclass passes up.
                for item in ast.walk(node):
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        positional = item.args.posonlyargs + item.args.args
                        defaults = item.args.defaults
                        for arg, default in zip(
                            positional[-len(defaults) :], defaults, strict=False
                        ):
                            if arg.arg == "code":
                                found(default, path, item)
                    if (
                        isinstance(item, ast.Call)
                        and isinstance(item.func, ast.Attribute)
                        and item.func.attr == "__init__"
                        and item.args
                    ):
                        found(item.args[0], path, item)
            if not isinstance(node, ast.Call):
                continue
            name = _name(node)
            if name in errors or name in CODE_FIRST:
                found(node.args[0] if node.args else None, path, node)
            elif name == "Problem" and imports_rule_problem and len(node.args) > 1:
                found(node.args[1], path, node)  # rules.errors.Problem(setting, code)
            elif name == "add" and path.parent.name == "tournament_file" and node.args:
                found(node.args[0], path, node)  # the file checker's self.add(code, …)
    return codes


def test_the_collector_sees_every_kind_of_error() -> None:
    codes = raised_codes()
    # One code of each error type and problem kind, so the collector cannot silently go blind.
    for code in (
        "bad_token",  # RuleError (rules.events)
        "event_after_past_a",  # ScoringError (scoring.engine)
        "scale_malformed",  # rules.errors.Problem (rules.ruleset)
        "no_pairing_without_rematch",  # PairingError (pairing.swiss)
        "repeated_outcome",  # StandingsError (scoring.standings)
        "settings_locked",  # ServiceError (tournaments.services)
        "conflict",  # ConflictError's default code
        "forbidden",  # ForbiddenError's default code
        "same_unit",  # PairingWarning (pairing.services)
        "no_rounds",  # ReportError (reports.collect)
        "invalid_file",  # TournamentFileError passes its code up
        "registration_refused",  # RegistrationError likewise
        "malformed_json",  # FileProblem (reports.fileformat)
        "round_out_of_order",  # the file checker's self.add
        "no_tournament",  # a command's sentence(...)
    ):
        assert code in codes, code


def test_every_code_raised_anywhere_has_a_sentence() -> None:
    missing = {
        code: sorted(where) for code, where in raised_codes().items() if code not in MESSAGES
    }
    assert missing == {}


def test_the_catalogue_has_no_sentence_nobody_raises() -> None:
    # ``pair_seated_twice_bye`` is chosen by ``sentence`` itself (no first table given).
    unused = set(MESSAGES) - set(raised_codes()) - {"pair_seated_twice_bye"}
    assert unused == set()


def test_one_catalogue() -> None:
    dicts = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in _modules().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(
            isinstance(target, ast.Name) and target.id == "MESSAGES"
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]
    assert dicts == ["tournaments/messages.py:" + dicts[0].split(":")[1]]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("code", sorted(MESSAGES))
def test_every_sentence_formats_with_the_params_it_names(code: str, language: str) -> None:
    names = re.findall(r"%\((\w+)\)s", str(MESSAGES[code]))
    with override(language):
        text = sentence(code, {name: f"<{name}>" for name in names})
    assert "%(" not in text
    assert "无法处理" not in text
    assert all(f"<{name}>" in text for name in names)


def test_every_error_derives_from_the_one_base() -> None:
    from pairing.services import PairingWarning
    from pairing.swiss import PairingError
    from reports.collect import ReportError
    from reports.fileformat import TournamentFileError
    from reports.registrations import RegistrationError
    from scoring.standings import StandingsError
    from tournaments.errors import ConflictError, ForbiddenError, ServiceError

    for error in (
        RuleError,
        ScoringError,
        RuleSetError,
        PairingError,
        StandingsError,
        ServiceError,
        ConflictError,
        ForbiddenError,
        PairingWarning,
        ReportError,
        TournamentFileError,
        RegistrationError,
    ):
        assert issubclass(error, GuandanError), error


def test_a_missing_detail_drops_its_bracket_and_other_names_are_understood() -> None:
    # The swap warning knows no first round; the file does.
    assert sentence("rematch", {"a": 3, "b": 6}) == "第3对与第6对已经交手过，两对最多相遇一次"
    assert sentence("rematch", {"a": 3, "b": 6, "first_round": 1}) == (
        "第3对与第6对已经交手过（第1轮），两对最多相遇一次"
    )
    # The standings call a pair ``pair`` where the file says ``id``.
    assert sentence("unknown_pair", {"pair": 12, "round": 2}) == "第12对不存在"
    assert sentence("no_such_code") == "无法处理（no_such_code）"
    with override("en"):
        assert sentence("rematch", {"a": 3, "b": 6}) == (
            "Pair 3 and Pair 6 have already played each other; two pairs may meet at most once"
        )
        assert sentence("bad_start", {"ns": 9, "ew": 1}) == (
            "Invalid starting level; it must be between 2 and A"
        )


def test_errors_read_the_same_from_the_core_and_from_a_service() -> None:
    from tournaments.errors import from_rule_error

    core = ScoringError("event_after_past_a", position=5, token="NS3")
    assert describe_error(core) == "第6条记录: 过A后不能再有牌局"
    assert from_rule_error(core).message == describe_error(core)
