"""The command line of TOURNAMENT_FILE.md: import_tournament, export_tournament, standings,
pair_round, and demo/simulate; errors are one plain sentence and a CommandError (non-zero)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from scoring.models import Penalty, TableEvent
from tests.support.golden import EXAMPLES
from tournaments.models import Pair, Round, Table, Tournament

pytestmark = pytest.mark.django_db


def run(*args: Any) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_prints_the_slug_and_export_gives_the_file_back(tmp_path):
    slug = run("import_tournament", str(EXAMPLES / "jiangsu-28.json")).strip()
    assert Tournament.objects.get(slug=slug).pairs.count() == 14
    target = tmp_path / "out.json"
    assert run("export_tournament", slug, "-o", str(target)) == ""
    original = (EXAMPLES / "jiangsu-28.json").read_text(encoding="utf-8")
    assert target.read_text(encoding="utf-8") == original
    assert run("export_tournament", slug) == original + "\n"


def test_import_refusal_lists_every_problem_and_writes_nothing(tmp_path):
    data = json.loads((EXAMPLES / "worked-example.json").read_text(encoding="utf-8"))
    data["rounds"][0]["tables"][0]["deals"][0] = "NS4"
    data["penalties"][1]["pair"] = 99
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        run("import_tournament", str(path))
    lines = str(caught.value).splitlines()
    assert lines == [
        "未导入：文件中有 2 处问题",
        "第1轮 第1桌 第1副: 记录“NS4”无法识别",
        "第2条判罚: 第99对不存在",
    ]
    assert not Tournament.objects.exists()


def test_import_refuses_malformed_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "guandan-tournament",\n  "version": 1\n  "name": "x"}')
    with pytest.raises(CommandError, match="第3行"):
        run("import_tournament", str(path))
    assert not Tournament.objects.exists()


def test_import_of_a_missing_file_is_one_sentence(tmp_path):
    with pytest.raises(CommandError) as caught:
        run("import_tournament", str(tmp_path / "nope.json"))
    assert "无法读取文件" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_import_refusal_in_english_does_not_crash(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "x"}', encoding="utf-8")
    with translation.override("en"), pytest.raises(CommandError) as caught:
        run("import_tournament", str(path))
    assert str(caught.value)


def test_unknown_tournament_is_one_sentence():
    for command in ("export_tournament", "standings", "pair_round", "simulate"):
        with pytest.raises(CommandError, match=r"^赛事“nope”不存在$"):
            run(command, "nope")


def test_standings_text_and_after_round():
    run("import_tournament", str(EXAMPLES / "eleven-pairs.json"), "--slug", "eleven")
    text = run("standings", "eleven")
    assert "第4轮后排名" in text
    assert len(text.strip().splitlines()) == 2 + 11
    after2 = json.loads(run("standings", "eleven", "--after-round", "2", "--json"))
    assert after2["after_round"] == 2
    assert sum(row["wins"] + row["draws"] + row["losses"] for row in after2["rows"]) <= 22
    with pytest.raises(CommandError, match="第9轮不存在"):
        run("standings", "eleven", "--after-round", "9")


def test_pair_round_json_then_publish():
    run("import_tournament", str(EXAMPLES / "worked-example.json"), "--slug", "worked")
    payload = json.loads(run("pair_round", "worked", "--json"))
    assert payload["round"] == 2
    seated = [p for t in payload["tables"] for p in (t["ns"], t["ew"])] + [payload["bye"]]
    # Pair 2 withdrew: seven active pairs, three tables and a bye (not pair 7, who had one).
    assert sorted(seated) == [1, 3, 4, 5, 6, 7, 8]
    assert payload["bye"] != 7
    met = {frozenset(p) for p in ((1, 4), (3, 6), (5, 8))}
    assert all(frozenset((t["ns"], t["ew"])) not in met for t in payload["tables"])
    assert Round.objects.get(tournament__slug="worked", number=2).status == "draft"
    with pytest.raises(CommandError, match="第2轮尚未结束"):
        run("pair_round", "worked")


def test_pair_round_publish_text():
    run("import_tournament", str(EXAMPLES / "worked-example.json"), "--slug", "worked")
    text = run("pair_round", "worked", "--publish")
    assert text.startswith("第2轮（已公布）")
    assert Round.objects.get(tournament__slug="worked", number=2).status == "published"


def test_simulate_plays_rounds_to_the_planned_number():
    run("import_tournament", str(EXAMPLES / "eleven-pairs.json"), "--slug", "eleven")
    out = run("simulate", "eleven", "--rounds", "1", "--seed", "7")
    assert out.strip() == "第5轮已完成"
    rnd = Round.objects.get(tournament__slug="eleven", number=5)
    assert rnd.status == "finished"
    assert not rnd.tables.exclude(entry_status="confirmed").exists()
    assert (
        TableEvent.objects.filter(table__round=rnd).count()
        >= 8 * rnd.tables.filter(is_bye=False, end_kind="").count()
    )
    with pytest.raises(CommandError, match="已达到计划轮数"):
        run("simulate", "eleven", "--rounds", "1")
    # The simulated tournament still exports to a valid file.
    exported = json.loads(run("export_tournament", "eleven"))
    assert len(exported["rounds"]) == 5


@pytest.mark.slow
def test_demo_builds_the_tournament_through_the_services_once():
    out = run("demo", "--if-empty")
    assert "organizer" in out and "chief" in out and "referee" in out
    assert "guandan-demo" in out
    demo = Tournament.objects.get(slug="demo")
    assert demo.rules.rounds == 7
    assert Pair.objects.filter(tournament=demo).count() == 48
    assert demo.units.count() == 12
    rounds = dict(Round.objects.filter(tournament=demo).values_list("number", "status"))
    assert rounds == {1: "finished", 2: "finished", 3: "finished", 4: "finished",
                      5: "finished", 6: "published"}  # fmt: skip
    sixth = Table.objects.filter(round__tournament=demo, round__number=6, is_bye=False)
    states = set(sixth.values_list("entry_status", flat=True))
    assert states == {"open", "entered", "confirmed"}
    assert Penalty.objects.filter(tournament=demo).exists()
    users = get_user_model().objects.filter(username__in=["organizer", "chief", "referee"])
    assert users.count() == 3
    assert all(u.check_password("guandan-demo") for u in users)
    assert demo.chief_referees.filter(username="chief").exists()
    # The team event (issue 13): 12 teams, 4 rounds played, round 5 published and under way.
    teams = Tournament.objects.get(slug="demo-teams")
    assert teams.rules.event == "teams" and teams.teams.count() == 12
    statuses = dict(Round.objects.filter(tournament=teams).values_list("number", "status"))
    assert statuses == {1: "finished", 2: "finished", 3: "finished", 4: "finished",
                        5: "published"}  # fmt: skip
    fifth = Table.objects.filter(round__tournament=teams, round__number=5)
    assert fifth.filter(entry_status="confirmed").count() >= 4
    assert not fifth.filter(match__isnull=True).exists()
    # --if-empty does nothing the second time, but still says how to log in.
    again = run("demo", "--if-empty")
    assert "guandan-demo" in again
    assert Tournament.objects.count() == 3
    # The staged demo (RULES.md §8): 5 Swiss rounds, the top-8 knockout's quarter-finals
    # played, the semi-finals published, the first in its second game.
    staged = Tournament.objects.get(slug="demo-ko")
    rounds = list(
        Round.objects.filter(tournament=staged).order_by("number").values_list("stage", "status")
    )
    assert rounds == [(1, "finished")] * 5 + [(2, "finished"), (2, "published")]
    bracket = json.loads(run("bracket", "demo-ko", "--json"))
    quarters, semis = bracket["rounds"]
    assert len(quarters["matches"]) == 4 and all(m["winner"] for m in quarters["matches"])
    assert semis["matches"][0]["games"] == [[8, 4], [2, 4]]
    assert semis["matches"][0]["winner"] is None
