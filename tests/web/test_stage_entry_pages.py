"""A best-of-three semi-final entered at the referee's sheet (RULES.md §8, issue 14 "Entry"):
game 2 from 2 : 2, the extra deal offered only on equal levels after the last regular deal, who
leads the match, the two-person rule; the public bracket follows the confirmed result."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from reports.fileio import import_tournament
from scoring.once import new_once_key
from tournaments.models import Table
from tournaments.services import grant_role

pytestmark = pytest.mark.django_db

DATA = Path(__file__).parents[1] / "db" / "data" / "stages"


@pytest.fixture
def semi(request: Any) -> dict[str, Any]:
    """The knockout file with its semi-finals published and not played yet (no final);
    ``@pytest.mark.parametrize("semi", [{...}], indirect=True)`` overrides the stage's keys."""
    data = json.loads((DATA / "knockout.json").read_text(encoding="utf-8"))
    data["settings"]["stages"][0].update(getattr(request, "param", {}))
    data["rounds"] = data["rounds"][:2]
    data["rounds"][1]["status"] = "published"
    for table in data["rounds"][1]["tables"]:
        table["games"] = []
    tournament = import_tournament(data, slug="semi")
    users = {}
    for name in ("ref1", "ref2"):
        users[name] = get_user_model().objects.create_user(username=name, password="pw")
        grant_role(tournament, users[name], "referee")
    clients = {}
    for name, user in users.items():
        clients[name] = Client()
        clients[name].force_login(user)
    return {"tournament": tournament, "clients": clients}


def sheet_url(action: str = "") -> str:
    name = f"referee:table_{action}" if action else "referee:table"
    return reverse(name, args=["semi", 2, 1])


def version() -> int:
    return Table.objects.get(round__tournament__slug="semi", round__number=2, number=1).version


def tap(client: Client, token: str) -> None:
    data = {"token": token, "version": version(), "once": new_once_key()}
    response = client.post(sheet_url("event"), data)
    assert response.status_code == 302


def test_a_best_of_three_semi_final_with_an_extra_deal(semi):
    ref1, ref2 = semi["clients"]["ref1"], semi["clients"]["ref2"]
    html = ref1.get(sheet_url()).content.decode()
    assert 'data-testid="match-state"' in html and 'data-testid="extra-deal"' not in html
    tap(ref1, "NS3")
    tap(ref1, "NS3")  # game 1: North–South 8 : 2
    html = ref1.get(sheet_url()).content.decode()
    assert re.search(r'data-testid="ns-games">1<', html)
    assert "下一副开始第2局" in html
    live = Client().get(reverse("public:bracket", args=["semi"])).content.decode()
    first = live.split("<h2>半决赛")[1].split("</li>")
    assert "<span>8:2</span> · 领先 1" in first[0]  # the live bracket: game 1, who leads
    assert 'class="games' not in first[1]  # the other semi-final has not begun: no games
    assert 'data-testid="submit"' not in html  # the match is not decided
    tap(ref1, "EW2")
    tap(ref1, "NS2")  # game 2 from 2 : 2: level at 4 : 4 after its two deals
    html = ref1.get(sheet_url()).content.decode()
    assert 'data-testid="extra-deal"' in html  # offered: the levels are equal
    tap(ref1, "NS1")  # the extra deal: North–South take game 2 and the match 2 : 0
    html = ref1.get(sheet_url()).content.decode()
    assert re.search(r'data-testid="ns-games">2<', html)
    assert 'data-testid="extra-deal"' not in html
    assert ref1.post(sheet_url("submit"), {"version": version()}).status_code == 302
    # Two-person rule: the referee who entered is not offered "confirm"; another referee is.
    assert 'data-testid="confirm"' not in ref1.get(sheet_url()).content.decode()
    assert 'data-testid="confirm"' in ref2.get(sheet_url()).content.decode()
    ref2.post(sheet_url("confirm"), {"version": version(), "once": new_once_key()})
    table = Table.objects.get(round__tournament__slug="semi", round__number=2, number=1)
    assert table.is_confirmed
    # The public bracket shows the semi-final decided, 1 through, games 8:2 and 5:4.
    bracket = Client().get(reverse("public:bracket", args=["semi"])).content.decode()
    semi_final = bracket.split("<h2>半决赛")[1].split("</section>")[0]
    assert 'class="bracket-side won"' in semi_final
    assert "8:2" in semi_final and "5:4" in semi_final


def test_an_extra_deal_is_refused_when_the_levels_differ(semi):
    ref1 = semi["clients"]["ref1"]
    tap(ref1, "NS3")
    tap(ref1, "NS2")  # game 1 over: 7 : 2
    tap(ref1, "EW3")
    tap(ref1, "NS1")  # game 2: 3 : 5 after two deals: over, East–West win it
    html = ref1.get(sheet_url()).content.decode()
    assert 'data-testid="extra-deal"' not in html
    assert re.search(r'data-testid="ns-games">1<', html)
    assert re.search(r'data-testid="ew-games">1<', html)


@pytest.mark.parametrize("semi", [{"round_format": "timed"}], indirect=True)
def test_a_timed_game_is_closed_by_the_referee(semi):
    ref1 = semi["clients"]["ref1"]
    assert 'data-testid="next-game"' not in ref1.get(sheet_url()).content.decode()  # no deal yet
    tap(ref1, "NS3")
    html = ref1.get(sheet_url()).content.decode()
    assert 'data-testid="next-game"' in html  # a timed game ends when the referee says so
    assert ref1.post(sheet_url("next_game"), {"version": version()}).status_code == 302
    html = ref1.get(sheet_url()).content.decode()
    assert re.search(r'data-testid="ns-games">1<', html)
    assert "第2局" in html
    table = Table.objects.get(round__tournament__slug="semi", round__number=2, number=1)
    assert table.games.count() == 1


@pytest.mark.parametrize("semi", [{"round_format": "timed"}], indirect=True)
def test_time_called_on_equal_levels_offers_the_extra_deal_only(semi):
    ref1 = semi["clients"]["ref1"]
    tap(ref1, "NS2")
    tap(ref1, "EW2")  # 4 : 4 when time is called
    html = ref1.get(sheet_url()).content.decode()
    assert 'data-testid="call-time"' in html
    assert 'data-testid="next-game"' not in html and 'data-testid="submit"' not in html
    assert 'data-testid="extra-deal"' not in html
    en = ref1.get(sheet_url(), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Time called: play the extra deal" in en
    assert ref1.post(sheet_url("call_time"), {"version": version()}).status_code == 302
    html = ref1.get(sheet_url()).content.decode()
    assert 'data-testid="extra-deal"' in html  # the extra deal, and only it
    assert 'data-testid="call-time"' not in html and 'data-testid="next-game"' not in html
    tap(ref1, "NS1")  # the extra deal: North–South take game 1
    html = ref1.get(sheet_url()).content.decode()
    assert re.search(r'data-testid="ns-games">1<', html) and "加打一副" in html
    tap(ref1, "NS3")  # game 2: 5 : 2; closing it now decides the match: submit, not next game
    html = ref1.get(sheet_url()).content.decode()
    assert 'data-testid="submit"' in html and 'data-testid="next-game"' not in html


def test_the_chief_corrects_an_earlier_game_of_a_confirmed_match(db):
    # The knockout file's final (EW3 EW3 | NS2 EW1 | NS3 NS1, confirmed): the chief picks game
    # 2 on the sheet and corrects its first line; the match is recomputed (2 : 0 to East–West)
    # and game 3, now played after the decision, goes with the correction.
    data = json.loads((DATA / "knockout.json").read_text(encoding="utf-8"))
    tournament = import_tournament(data, slug="ko-chief")
    chief = get_user_model().objects.create_user(username="chief", password="pw")
    grant_role(tournament, chief, "chief_referee")
    client = Client()
    client.force_login(chief)
    url = reverse("referee:table", args=["ko-chief", 3, 1])
    assert "6:2" in Client().get(reverse("public:bracket", args=["ko-chief"])).content.decode()
    html = client.get(url).content.decode()
    assert 'data-testid="fix-game-2"' in html and "?game=3&amp;fix=1" in html
    html = client.get(url + "?game=2&fix=1").content.decode()
    assert 'name="game" value="2"' in html and 'data-testid="fixing"' in html
    response = client.post(
        reverse("referee:table_correct", args=["ko-chief", 3, 1]),
        {
            "op": "replace",
            "position": 1,
            "game": 2,
            "token": "EW2",
            "reason": "第2局第1副记反",
            "version": Table.objects.get(
                round__tournament=tournament, round__number=3, number=1
            ).version,
        },
    )
    assert response.status_code == 302
    final = Table.objects.get(round__tournament=tournament, round__number=3, number=1)
    assert list(final.games.values_list("number", flat=True)) == [2]
    assert list(final.events.order_by("position").values_list("token", flat=True)) == [
        "EW3", "EW3", "EW2", "EW1"
    ]  # fmt: skip
    bracket = Client().get(reverse("public:bracket", args=["ko-chief"])).content.decode()
    assert "2:5" in bracket and "6:2" not in bracket  # game 2 East–West's, game 3 gone


def test_a_knockout_sheet_queues_its_taps_on_the_phone(semi):
    """The page's outbox works at a knockout table too (docs/offline.md): the sheet loads the
    script, marked not to replay (a best-of-n match is the server's to score), and every tap's
    JSON answer says where the match stands, so the page refreshes when a game ends."""
    ref1 = semi["clients"]["ref1"]
    html = ref1.get(sheet_url()).content.decode()
    assert 'id="live-sheet"' in html and 'data-replay="0"' in html and "js/live-sheet.js" in html

    def tap_json(token: str) -> dict[str, Any]:
        response = ref1.post(
            sheet_url("event"),
            {"token": token, "version": version(), "once": f"key{token}{version():04d}xxxxxxxxxx"},
            HTTP_ACCEPT="application/json",
        )
        assert response.status_code == 200, response.json()
        return response.json()["state"]

    state = tap_json("NS3")
    assert state["match"] == {
        "game": 1, "ns_games": 0, "ew_games": 0, "winner": "", "may_close_game": False
    }  # fmt: skip
    state = tap_json("NS2")  # game 1 over: 7 : 2 after its two deals
    assert state["match"]["ns_games"] == 1 and not state["finished"]
    state = tap_json("EW1")  # the next tap opens game 2 from 2 : 2
    assert state["match"]["game"] == 2 and state["start"] == [2, 2] and state["tokens"] == ["EW1"]
