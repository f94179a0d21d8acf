"""The ``rounds`` of a tournament file: each round's number (1, 2 … in order), status (only the
last may be unfinished), seed, stage (RULES.md §8: a stage of the settings, never going back),
repechage mark and team bye, and its tables (``reports.tournament_file.tables``); pairs may
meet again in a later stage, once in each.

Pure: the standard library, ``rules`` and the pure scoring engine.
"""

from __future__ import annotations

from typing import Any

from rules.limits import BIGINT_MAX, INT_MAX
from rules.ruleset import RuleSet

from .problems import Problems, is_int
from .specs import ROUND_STATUSES, RoundSpec
from .tables import RoundContext, read_tables

ROUND_KEYS = ("number", "stage", "repechage", "status", "seed", "tables")
BYE_TEAM_KEYS = ("bye_team",)


def read_rounds(
    problems: Problems, data: dict[str, Any], pair_ids: set[int], rules: RuleSet | None
) -> tuple[RoundSpec, ...]:
    rounds: list[RoundSpec] = []
    met: dict[frozenset[int], int] = {}  # pairs who met → the round they met in
    unfinished: int | None = None
    last_stage = 1
    within: dict[int, int] = {}  # stage → rounds of it read so far
    for index, raw in problems.list_of_objects(data, "rounds"):
        path = f"rounds[{index}]"
        number = raw.get("number")
        if not is_int(number):
            problems.expect(number, "integer", f"{path}.number")
            continue
        where = {"round": number}
        problems.keys(raw, ROUND_KEYS, path, **where)
        if number != index + 1:
            params = {"value": number, "expected": index + 1}
            problems.add("round_out_of_order", f"{path}.number", params, **where)
        status = raw.get("status")
        if status not in ROUND_STATUSES:
            params = {"value": status, "options": ROUND_STATUSES}
            problems.add("not_one_of", f"{path}.status", params, **where)
            status = "finished"
        if unfinished is not None:
            # Rounds are played one after another: only the last may still be open.
            params = {"unfinished": unfinished}
            problems.add("round_after_unfinished", f"{path}.number", params, **where)
        if status != "finished":
            unfinished = number
        seed = raw.get("seed")
        if seed is not None and not problems.expect(seed, "integer", f"{path}.seed", **where):
            seed = None
        elif seed is not None and not -BIGINT_MAX <= seed <= BIGINT_MAX:
            bounds = {"value": seed, "min": -BIGINT_MAX, "max": BIGINT_MAX}
            problems.add("out_of_range", f"{path}.seed", bounds, **where)
            seed = None
        stage = round_stage(problems, raw, path, last_stage, rules, where)
        if stage != last_stage:
            met = {}  # RULES.md §8: pairs may meet again in a later stage, once in each
            last_stage = stage
        within[stage] = within.get(stage, 0) + 1
        round_repechage(problems, raw, path, stage, within[stage], rules, where)
        context = RoundContext(number, status, stage, rules, pair_ids)
        tables = read_tables(problems, raw, path, context, met)
        bye_team = read_bye_team(problems, raw, path, where)
        rounds.append(RoundSpec(number, status, tables, seed, bye_team=bye_team, stage=stage))
    return tuple(rounds)


def read_bye_team(
    problems: Problems, raw: dict[str, Any], path: str, where: dict[str, Any]
) -> str | None:
    """A team event's bye: ``{"bye_team": id}`` among the round's tables, at most one."""
    raw_tables = raw.get("tables")  # a wrong type is named by ``read_tables``
    bye_teams = [
        (k, t["bye_team"])
        for k, t in enumerate(raw_tables if isinstance(raw_tables, list) else ())
        if isinstance(t, dict) and "bye_team" in t
    ]
    bye_team = None
    for k, (position, value) in enumerate(bye_teams):
        at = f"{path}.tables[{position}]"
        problems.keys(raw["tables"][position], BYE_TEAM_KEYS, at, **where)
        if k:
            problems.add("two_team_byes", f"{at}.bye_team", **where)
        elif problems.expect(value, "string", f"{at}.bye_team", **where):
            bye_team = value
    return bye_team


def round_repechage(
    problems: Problems,
    raw: dict[str, Any],
    path: str,
    stage: int,
    index: int,
    rules: RuleSet | None,
    where: dict[str, Any],
) -> None:
    """A round's ``repechage`` mark (our extension): written on a knockout stage's
    repechage round (its round ``repechage`` + 1); the settings decide which round that is,
    so a missing mark is read as given, a wrong one refused."""
    if "repechage" not in raw:
        return
    expected = rules is not None and rules.stage(stage).is_repechage_round(index)
    if raw["repechage"] is not True or not expected:
        problems.add("not_repechage_round", f"{path}.repechage", {"round": index}, **where)


def round_stage(
    problems: Problems,
    raw: dict[str, Any],
    path: str,
    last: int,
    rules: RuleSet | None,
    where: dict[str, Any],
) -> int:
    """A round's ``stage`` (default 1): a stage of the settings, never before the last."""
    stage = raw.get("stage", 1)
    count = len(rules.stage_list) if rules is not None else INT_MAX
    if not is_int(stage) or not 1 <= stage <= count:
        bounds = {"value": stage, "min": 1, "max": count}
        problems.add("out_of_range", f"{path}.stage", bounds, **where)
        return last
    if stage < last:
        params = {"value": stage, "last": last}
        problems.add("stage_out_of_order", f"{path}.stage", params, **where)
        return last
    return int(stage)
