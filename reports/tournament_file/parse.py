"""Reading a whole tournament file: the head (``format``, ``version``, ``name``), the settings
(``RuleSet.from_dict``), then each section in the contract's order (TOURNAMENT_FILE.md: units,
pairs, teams, rounds with their tables and games, a team event's matches, penalties), every
problem collected in one ``Problems`` — the file is valid only when there is none.

Pure: the standard library, ``rules`` and the pure scoring engine.
"""

from __future__ import annotations

from typing import Any

from rules.errors import RuleSetError
from rules.ruleset import RuleSet

from .entrants import read_pairs, read_teams, read_units
from .penalties import read_penalties
from .problems import FileProblem, Problems, TournamentFileError, is_int, type_name
from .rounds import read_rounds
from .specs import FORMAT, MAX_NAME, VERSION, TournamentSpec
from .team_matches import check_team_matches

TOP_KEYS = (
    "format",
    "version",
    "name",
    "settings",
    "units",
    "pairs",
    "teams",
    "rounds",
    "penalties",
)


def check_tournament(data: Any) -> tuple[TournamentSpec | None, tuple[FileProblem, ...]]:
    """Parse and validate; ``(spec, ())`` or ``(None, problems)`` — every problem found."""
    problems = Problems()
    spec = read_tournament(problems, data)
    if problems.found:
        return None, tuple(problems.found)
    return spec, ()


def parse_tournament(data: Any) -> TournamentSpec:
    """The validated file, or ``TournamentFileError`` with every problem."""
    spec, problems = check_tournament(data)
    if problems or spec is None:
        raise TournamentFileError(problems or [FileProblem("not_an_object")])
    return spec


def read_tournament(problems: Problems, data: Any) -> TournamentSpec | None:
    """The file read section by section (None when any problem was found)."""
    if not isinstance(data, dict):
        problems.add("not_an_object", "", {"found": type_name(data)})
        return None
    problems.keys(data, TOP_KEYS, "")
    if "format" not in data:
        problems.add("missing_key", "format", {"key": "format"})
    elif data["format"] != FORMAT:
        problems.add("wrong_format", "format", {"value": data["format"], "expected": FORMAT})
    if "version" not in data:
        problems.add("missing_key", "version", {"key": "version"})
    elif not is_int(data["version"]) or data["version"] != VERSION:
        params = {"value": data["version"], "expected": VERSION}
        problems.add("wrong_version", "version", params)
    name = ""
    if "name" not in data:
        problems.add("missing_key", "name", {"key": "name"})
    else:
        name = problems.text(data["name"], "name", MAX_NAME)

    rules = read_settings(problems, data.get("settings", {}))
    units = read_units(problems, data)
    unit_ids = {unit.id for unit in units}
    pairs = read_pairs(problems, data, unit_ids)
    pair_ids = {pair.id for pair in pairs}
    teams = read_teams(problems, data, pair_ids, unit_ids)
    rounds = read_rounds(problems, data, pair_ids, rules)
    if rules is not None and rules.event == "teams":
        check_team_matches(problems, rounds, teams)
    penalties = read_penalties(problems, data, pair_ids, rounds)
    if problems.found or rules is None:
        return None
    return TournamentSpec(name, rules, units, pairs, teams, rounds, penalties)


def read_settings(problems: Problems, raw: Any) -> RuleSet | None:
    """The settings (``RuleSet.from_dict``); each of its problems becomes a file problem on
    ``settings.<key>``."""
    if not problems.expect(raw, "object", "settings"):
        return None
    try:
        return RuleSet.from_dict(raw)
    except RuleSetError as error:
        for problem in error.problems:
            code = "unknown_key" if problem.code == "unknown_setting" else problem.code
            params = dict(problem.params)
            if code == "unknown_key":
                params.setdefault("key", problem.setting)
            problems.add(code, f"settings.{problem.setting}", params, setting=problem.setting)
        return None
