"""Import and export through the database (reports.fileio): the golden files round-trip
byte for byte, every refusal of issue 4 leaves the database unchanged and says where, and the
standings from the database equal the pure engine on the same file."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation

from reports.demo import synthetic_file
from reports.fileformat import (
    TournamentFileError,
    dumps,
    load_json,
    parse_tournament,
    standings_from_file,
    standings_payload,
)
from reports.fileio import export_tournament, import_tournament
from scoring.cache import cached_standings
from scoring.models import Penalty, TableEvent
from tests.support.golden import EXAMPLES
from tournaments.messages import describe_problem, describe_rule_error
from tournaments.models import Pair, Player, Round, Seat, Table, Tournament, Unit

GOLDEN = ("eleven-pairs", "jiangsu-28", "worked-example")

pytestmark = pytest.mark.django_db


def golden_text(name: str) -> str:
    return (EXAMPLES / f"{name}.json").read_text(encoding="utf-8")


def golden(name: str) -> dict[str, Any]:
    return json.loads(golden_text(name))


def counts() -> dict[str, int]:
    models = (Tournament, Unit, Pair, Player, Round, Table, Seat, TableEvent, Penalty)
    return {model.__name__: model.objects.count() for model in models}


@pytest.mark.parametrize("name", GOLDEN)
def test_export_of_an_imported_golden_file_is_the_same_file(name):
    tournament = import_tournament(golden(name))
    first = dumps(export_tournament(tournament))
    assert first == golden_text(name)
    again = import_tournament(json.loads(first), slug="again")
    assert dumps(export_tournament(again)) == first


@pytest.mark.parametrize("name", GOLDEN)
def test_standings_from_the_database_equal_the_pure_engine(name):
    data = golden(name)
    tournament = import_tournament(data)
    spec = parse_tournament(data)
    after, pure = standings_from_file(spec)
    assert cached_standings(tournament, after_round=after) == pure


def test_import_writes_what_the_file_says():
    tournament = import_tournament(golden("worked-example"), slug="worked")
    assert tournament.slug == "worked"
    assert tournament.pairs.count() == 8
    assert Pair.objects.get(tournament=tournament, number=2).status == "withdrawn"
    table = Table.objects.get(round__tournament=tournament, round__number=1, number=2)
    assert (table.start_ns, table.start_ew, table.end_kind, table.end_side) == (
        2, 3, "penalty_loss", "NS",
    )  # fmt: skip
    assert table.entry_status == Table.EntryStatus.CONFIRMED
    bye = Table.objects.get(round__tournament=tournament, is_bye=True)
    assert (bye.number, bye.ns.number) == (4, 7)
    deduction = Penalty.objects.get(tournament=tournament, kind="deduction")
    assert (deduction.pair.number, float(deduction.jcf), deduction.round.number) == (3, 1.0, 1)
    foul = Penalty.objects.get(tournament=tournament, kind="foul")
    assert (foul.table.number, foul.deal, foul.referee_name) == (1, 4, "周裁判")


def test_slug_is_made_unique_from_the_name():
    first = import_tournament(golden("worked-example"))
    second = import_tournament(golden("worked-example"))
    assert first.slug != second.slug


def test_taken_slug_is_refused():
    import_tournament(golden("worked-example"), slug="x")
    before = counts()
    with pytest.raises(TournamentFileError) as caught:
        import_tournament(golden("worked-example"), slug="x")
    assert caught.value.problems[0].code == "slug_taken"
    assert counts() == before


def _refusal(data: Any) -> tuple[TournamentFileError, list[str]]:
    import_tournament(golden("eleven-pairs"), slug="existing")
    before = counts()
    with pytest.raises(TournamentFileError) as caught:
        import_tournament(data)
    assert counts() == before  # all or nothing: not a row written
    return caught.value, [describe_problem(p) for p in caught.value.problems]


def _worked() -> dict[str, Any]:
    return golden("worked-example")


def test_refuses_unknown_keys():
    data = _worked()
    data["rounds"][0]["tables"][0]["comment"] = "x"
    _error, messages = _refusal(data)
    assert messages == ["第1轮 第1桌（rounds[0].tables[0].comment）: 未知的键“comment”"]


def test_refuses_unknown_pair_and_unit_ids():
    data = _worked()
    data["rounds"][0]["tables"][2]["ew"] = 31
    data["pairs"][3]["unit"] = "SH"
    _error, messages = _refusal(data)
    assert "第4对: 单位“SH”不存在" in messages
    assert "第1轮 第3桌: 第31对不存在" in messages


def test_refuses_a_pair_seated_twice():
    data = _worked()
    data["rounds"][0]["tables"][3] = {"bye": 5}
    _error, messages = _refusal(data)
    assert messages == ["第1轮: 第5对在本轮已在第3桌入座"]


def test_refuses_a_rematch():
    data = _worked()
    data["settings"]["rounds"] = 3
    data["rounds"].append(
        {"number": 2, "status": "draft", "tables": [{"table": 1, "ns": 6, "ew": 3, "deals": []}]}
    )
    _error, messages = _refusal(data)
    assert messages == ["第2轮 第1桌: 第3对与第6对已经交手过（第1轮），两对最多相遇一次"]


def test_refuses_bad_tokens():
    data = _worked()
    data["rounds"][0]["tables"][0]["deals"][1] = "EW0"
    _error, messages = _refusal(data)
    assert messages == ["第1轮 第1桌 第2副: 记录“EW0”无法识别"]


def test_refuses_events_after_past_a():
    data = _worked()
    data["rounds"][0]["tables"][0]["deals"] = ["NS3", "NS3", "NS3", "NS3", "NS3", "EW1"]
    _error, messages = _refusal(data)
    assert messages == ["第1轮 第1桌 第6副: 过A后不能再有牌局"]


def test_refuses_wrong_deal_counts():
    data = _worked()
    data["rounds"][0]["tables"][0]["deals"] = ["NS1", "EW1"] * 3
    _error, messages = _refusal(data)
    assert messages == ["第1轮 第1桌: 本轮须打满 8 副，只有 6 副"]


def test_refuses_a_deduction_for_an_unknown_pair():
    data = _worked()
    data["penalties"][1]["pair"] = 12
    _error, messages = _refusal(data)
    assert messages == ["第2条判罚: 第12对不存在"]


def test_refuses_a_bad_scale_table():
    data = _worked()
    data["settings"]["scale"] = {"table": [[0, 13, 13], [1, 12, 14]]}
    _error, messages = _refusal(data)
    assert messages == [
        "设置“级差分表”: 级差分表中级差 1 的领先方得分低于落后方",
        "设置“级差分表”: 级差分表在级差 1 处不是单调的",
    ]


def test_refuses_malformed_json():
    with pytest.raises(TournamentFileError) as caught:
        load_json('{"format": "guandan-tournament", "version": 1')
    assert describe_problem(caught.value.problems[0]).startswith("文件不是有效的 JSON（第1行")


def test_messages_in_english_mode_do_not_crash():
    data = _worked()
    data["rounds"][0]["tables"][0]["deals"] = ["NS3"] * 5 + ["EW1", "XX"]
    data["colour"] = 1
    with translation.override("en"):
        error, messages = _refusal(data)
        assert all(isinstance(m, str) and m for m in messages)
        assert describe_rule_error(error)


def test_a_synthetic_tournament_round_trips_and_agrees_with_the_engine():
    data = synthetic_file(30, 4, seed=3, finished=3)
    tournament = import_tournament(data)
    exported = export_tournament(tournament)
    assert dumps(exported) == dumps(data)
    after, pure = standings_from_file(parse_tournament(data))
    assert after == 3
    db_rows = cached_standings(tournament, after_round=3)
    assert standings_payload("x", 3, db_rows) == standings_payload("x", 3, pure)


def test_export_reads_a_bounded_number_of_queries(django_assert_max_num_queries):
    tournament = import_tournament(synthetic_file(40, 3, seed=5))
    with django_assert_max_num_queries(12):
        export_tournament(tournament)
