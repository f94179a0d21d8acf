"""The tournament file decides a knockout match as the services do (issue 27: the parser only
parses, it scores through the one engine): for knockout files of every kind — best of 1, 3 or 5,
counted, timed or to 过A, the extra deal, a time call read from the levels, closed and open
tables — the match the file reads (``TableSpec.series``, or a one-game table's ``result``) is the
match ``scoring.stage_results.knockout_matches`` scores from the imported tables
(``scoring.facts.score_games``), game by game, with the time calls the import stored."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from reports.fileformat import TableSpec, check_tournament
from reports.fileio import import_tournament
from rules.events import Event
from scoring.engine import MatchResult
from scoring.stage_results import KnockoutMatch, knockout_matches

pytestmark = pytest.mark.django_db

KNOCKOUT = Path(__file__).parent / "data" / "stages" / "knockout.json"
TOKENS = ("NS1", "NS2", "NS3", "EW1", "EW2", "EW3")
BOTH_AT_A = ["NS3"] * 4 + ["EW3"] * 4  # 14 : 14, the next deal of a timed game is the extra deal


def _game(rng: random.Random, round_format: str, deals: int) -> dict[str, Any]:
    if rng.random() < 0.2:
        return {"deals": [*BOTH_AT_A, rng.choice(TOKENS)]}
    if round_format == "game":
        count = rng.choice([4, 6, 8, 10])
    elif round_format.startswith("timed"):
        count = rng.choice([1, 2, 3, deals, deals + 1])
    else:
        count = rng.choice([deals, deals, deals + 1])
    game: dict[str, Any] = {"deals": [rng.choice(TOKENS) for _ in range(count)]}
    if rng.random() < 0.05:
        kind = rng.choice(["forfeit", "penalty_loss", "late_sheet"])
        game["end"] = {kind: rng.choice(["ns", "ew"])}
    return game


def _knockout_file(rng: random.Random) -> dict[str, Any]:
    data = copy.deepcopy(json.loads(KNOCKOUT.read_text(encoding="utf-8")))
    stage = data["settings"]["stages"][0]
    stage["best_of"] = rng.choice([1, 3, 5])
    stage["round_format"] = round_format = rng.choice(["deals", "timed", "timed_deals", "game"])
    if rng.random() < 0.3:
        stage["tie"] = rng.choice(["extra_deal", "draw", "first_to_level"])
    data["settings"]["deals_per_round"] = deals = rng.choice([1, 2, 3])
    data["rounds"] = data["rounds"][: rng.choice([1, 2, 3])]
    if rng.random() < 0.4:
        data["rounds"][-1]["status"] = "published"
    for rnd in data["rounds"]:
        for table in rnd["tables"]:
            if "bye" in table:
                continue
            for key in ("deals", "start", "end", "games"):
                table.pop(key, None)
            if stage["best_of"] == 1:
                table.update(_game(rng, round_format, deals))
            else:
                count = rng.choice([1, 2, 2, 3, 3, 4, 5])
                table["games"] = [_game(rng, round_format, deals) for _ in range(count)]
            if rnd["status"] != "finished" and rng.random() < 0.5:
                table["entry"] = rng.choice(["open", "entered", "confirmed"])
    return data


def _valid_files(count: int) -> list[dict[str, Any]]:
    rng = random.Random(27)
    files = []
    while len(files) < count:
        data = _knockout_file(rng)
        if check_tournament(data)[0] is not None:
            files.append(data)
    return files


FILES = _valid_files(40)


def test_the_files_cover_best_of_n_time_calls_and_open_matches():
    seen = {"best_of": set(), "time_call": False, "open": False, "extra_deal": False}
    for data in FILES:
        spec = check_tournament(data)[0]
        assert spec is not None
        seen["best_of"].add(spec.rules.stage(1).games)
        for rnd in spec.rounds:
            for table in rnd.tables:
                games = table.games or ()
                calls = [table.time_deals, *(game.time_deals for game in games)]
                seen["time_call"] |= any(call is not None for call in calls)
                seen["open"] |= rnd.entry_of(table) == "open" and not table.is_bye
                results = table.series.games if table.series else (table.result,)
                seen["extra_deal"] |= any(r is not None and r.extra_deal for r in results)
    assert seen == {"best_of": {1, 3, 5}, "time_call": True, "open": True, "extra_deal": True}


def _tokens(result: MatchResult | None) -> MatchResult | None:
    """The result with its events as tokens (the file's are parsed, the database's text)."""
    if result is None:
        return None
    events = tuple(e.token if isinstance(e, Event) else e for e in result.events)
    return result._replace(events=events)


def _same_match(table: TableSpec, best_of: int, match: KnockoutMatch) -> None:
    assert match.series is not None
    played = tuple(_tokens(result) for result in match.series.games)
    if best_of > 1:  # the file's match so far: each game's result and winner
        assert table.series is not None
        assert tuple(_tokens(result) for result in table.series.games) == played
        assert table.series.winners == match.series.winners
        assert table.series.best_of == match.series.best_of == best_of
    else:  # one game: the file keeps its result; the match is that game
        assert (_tokens(table.result),) == played


@pytest.mark.parametrize("index", range(len(FILES)))
def test_the_file_and_the_services_decide_every_knockout_match_alike(index):
    data = FILES[index]
    spec = check_tournament(data)[0]
    assert spec is not None
    tournament = import_tournament(data, slug=f"ko-{index}")
    played = {(m.round, m.table): m for rnd in knockout_matches(tournament, 1) for m in rnd}
    best_of = spec.rules.stage(1).games
    checked = 0
    for rnd in spec.rounds:
        for table in rnd.tables:
            if table.is_bye:
                continue
            _same_match(table, best_of, played[(rnd.number, table.number)])
            checked += 1
    assert checked
