"""The ``penalties`` of a tournament file (TOURNAMENT_FILE.md "Penalties"): the referee's
record, each naming a known pair and, when given, a round and a table of it at which the pair
played; only a ``deduction`` carries ``jcf`` (and must), only a ``level_award`` ``levels`` (the
levels given to the opponents, 1…13; optional: the award itself is the table's ``adjust:``).

Pure: the standard library and the file's own modules.
"""

from __future__ import annotations

from typing import Any

from .problems import Problems, is_int
from .specs import MAX_JCF, MAX_REFEREE, PENALTY_KINDS, PenaltySpec, RoundSpec

PENALTY_KEYS = ("round", "table", "pair", "kind", "deal", "jcf", "levels", "reason", "referee")
MAX_LEVELS = 13  # rules.events.MAX_ADJUST


def read_penalties(
    problems: Problems, data: dict[str, Any], pair_ids: set[int], rounds: tuple[RoundSpec, ...]
) -> tuple[PenaltySpec, ...]:
    by_number = {r.number: r for r in rounds}
    tables_of = {r.number: {t.number: t for t in r.tables if not t.is_bye} for r in rounds}
    penalties: list[PenaltySpec] = []
    for index, raw in problems.list_of_objects(data, "penalties"):
        path = f"penalties[{index}]"
        where: dict[str, Any] = {"penalty": index + 1}
        before = len(problems)
        problems.keys(raw, PENALTY_KEYS, path, **where)
        pair = raw.get("pair")
        if "pair" not in raw:
            problems.add("missing_key", f"{path}.pair", {"key": "pair"}, **where)
        elif problems.expect(pair, "integer", f"{path}.pair", **where):
            if pair not in pair_ids:
                problems.add("unknown_pair", f"{path}.pair", {"id": pair}, **where)
        kind = raw.get("kind")
        if kind not in PENALTY_KINDS:
            params = {"value": kind, "options": PENALTY_KINDS}
            problems.add("not_one_of", f"{path}.kind", params, **where)
        number = raw.get("round")
        round_spec = None
        if number is not None and problems.positive(number, f"{path}.round", **where):
            round_spec = by_number.get(number)
            if round_spec is None:
                problems.add("unknown_round", f"{path}.round", {"round": number}, **where)
        table = raw.get("table")
        if table is not None and problems.positive(table, f"{path}.table", **where):
            if number is None:
                problems.add("table_without_round", f"{path}.table", **where)
            elif round_spec is not None:
                seats = tables_of[number]
                if table not in seats:
                    params = {"round": number, "table": table}
                    problems.add("unknown_table", f"{path}.table", params, **where)
                elif is_int(pair) and pair not in seats[table].pairs:
                    params = {"id": pair, "round": number, "table": table}
                    problems.add("pair_not_at_table", f"{path}.pair", params, **where)
        deal = raw.get("deal")
        if deal is not None:
            problems.positive(deal, f"{path}.deal", **where)
        jcf = raw.get("jcf")
        if kind == "deduction":
            if "jcf" not in raw:
                problems.add("missing_key", f"{path}.jcf", {"key": "jcf"}, **where)
            elif problems.expect(jcf, "number", f"{path}.jcf", **where) and not (
                0 < jcf <= MAX_JCF and round(jcf, 2) == jcf
            ):
                problems.add("bad_deduction", f"{path}.jcf", {"value": jcf}, **where)
        elif jcf is not None:
            problems.add("jcf_not_deduction", f"{path}.jcf", {"kind": kind}, **where)
        levels = raw.get("levels")
        if levels is not None:
            if kind != "level_award":
                problems.add("levels_not_award", f"{path}.levels", {"kind": kind}, **where)
            elif not is_int(levels) or not 1 <= levels <= MAX_LEVELS:
                bounds = {"value": levels, "min": 1, "max": MAX_LEVELS}
                problems.add("out_of_range", f"{path}.levels", bounds, **where)
        reason = raw.get("reason", "")
        reason = problems.text(
            reason, f"{path}.reason", 10_000, required=False, multiline=True, **where
        )
        referee = raw.get("referee", "")
        referee = problems.text(referee, f"{path}.referee", MAX_REFEREE, required=False, **where)
        if len(problems) == before:
            penalties.append(
                PenaltySpec(pair, kind, number, table, deal, jcf, reason, referee, levels)
            )
    return tuple(penalties)
