"""Team events on the web (issue 13): the team sheet import, the organizer's and the public team
pages, the line-up page (captain's code or organizer, locked at publication), the referee desk
with both tables of a match and the combined result, the deals-count flag, the team standings
and the pair ranking as a second view, table-side entry at a team table."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from pairing import services as pairing_services
from reports.registrations import (
    RegistrationError,
    import_team_registrations,
    parse_team_registrations,
)
from scoring.once import new_once_key
from tests.support.team_event import build_team_event, team_rows, team_settings, team_sheet
from tests.support.tournament import play_table
from tournaments.models import LineUp, Pair, Round, Table, Team, Tournament
from tournaments.services import create_tournament, update_settings

pytestmark = pytest.mark.django_db

TWO_DEALS = ["NS3", "EW1"]  # NS 2→5, EW 2→3: NS wins by 2 levels


@pytest.fixture
def event(cast: dict[str, Any]) -> Tournament:
    return build_team_event(cast["organizer"], cast["chief"], [cast["referee"]])


def _publish(event: Tournament, cast: dict[str, Any]) -> Round:
    rnd = pairing_services.generate_round(event, cast["organizer"])
    return pairing_services.publish_round(rnd, cast["organizer"])


def _match_tables(rnd: Round, match: int = 1) -> list[Table]:
    return list(Table.objects.filter(round=rnd, match=match).order_by("number"))


# --- the team sheet ---------------------------------------------------------------------------


def test_the_sheet_registers_teams_their_pairs_in_order_and_units(event: Tournament) -> None:
    teams = list(Team.objects.filter(tournament=event).order_by("pk"))
    assert [t.code for t in teams] == [str(i) for i in range(1, 13)]
    assert sum(t.pairs.count() for t in teams) == 8 * 2 + 4 * 3
    third = teams[2]
    members = list(Team.pairs.through.objects.filter(team=third).order_by("pk"))
    numbers = [m.pair.number for m in members]
    assert numbers == sorted(numbers) and len(numbers) == 3
    first_pair = members[0].pair
    assert [p.name for p in first_pair.players.order_by("position")] == team_rows()[2][3:5]
    assert third.unit is not None and first_pair.unit_id == third.unit_id
    assert len({t.captain_code for t in teams}) == 12


def test_every_problem_is_named_by_row_and_column_and_nothing_is_imported(
    cast: dict[str, Any],
) -> None:
    tournament = create_tournament("团体赛", "t-bad", cast["organizer"], settings=team_settings())
    rows = team_rows(5)
    rows[0][6] = ""  # row 2: 牌手4 empty
    rows[1].append("某人")  # row 3: 牌手5 without 牌手6
    rows[2][0] = 1  # row 4: 序号 repeats row 2
    rows[3][1] = rows[0][1]  # row 5: 队名 repeats row 2
    rows[4][4] = rows[4][3]  # row 6: 牌手2 is 牌手1's name
    with pytest.raises(RegistrationError) as refused:
        parse_team_registrations(team_sheet(rows))
    text = "\n".join(refused.value.messages)
    assert "第2行 牌手4 为空" in text
    assert "第3行 牌手6 为空" in text
    assert "第4行 序号 1 与第2行重复" in text
    assert "第5行 队名" in text and "与第2行重复" in text
    assert "第6行 牌手2" in text and "重名" in text
    assert Team.objects.filter(tournament=tournament).count() == 0


def test_a_sheet_without_the_team_columns_is_refused() -> None:
    with pytest.raises(RegistrationError) as refused:
        parse_team_registrations(team_sheet([[1, "甲", "乙"]], headers=["序号", "单位", "牌手1"]))
    assert "队名" in refused.value.messages[0]


def test_taken_team_numbers_are_refused_and_a_service_refusal_rolls_back(
    event: Tournament, cast: dict[str, Any]
) -> None:
    with pytest.raises(RegistrationError) as refused:
        parse_team_registrations(team_sheet(team_rows(1)), taken=["1"])
    assert "已被已报名的队使用" in refused.value.messages[0]
    lines = parse_team_registrations(team_sheet([[20, "新队", "", "a", "b", "c", "d"]] * 1))
    before = Pair.objects.filter(tournament=event).count()
    with pytest.raises(RegistrationError):
        import_team_registrations(event, lines, cast["referee"])  # no organizer role
    assert Pair.objects.filter(tournament=event).count() == before


def test_the_import_page_takes_the_team_sheet_in_a_team_event(
    cast: dict[str, Any], client_as: Any
) -> None:
    tournament = create_tournament("团体赛", "t-web", cast["organizer"], settings=team_settings())
    client = client_as("organizer")
    template = client.get(reverse("reports:template", args=[tournament.slug]))
    assert template.status_code == 200
    from io import BytesIO

    from openpyxl import load_workbook

    header = [c.value for c in load_workbook(BytesIO(template.content))["团体报名表"][1]]
    assert header[:4] == ["序号", "队名", "单位", "牌手1"] and header[-1] == "牌手6"
    page = client.get(reverse("reports:import", args=[tournament.slug]))
    assert "牌手5与牌手6为第3对" in page.content.decode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        reverse("reports:import", args=[tournament.slug]),
        {
            "once": new_once_key(),
            "file": SimpleUploadedFile("teams.xlsx", team_sheet(team_rows(12))),
        },
        follow=True,
    )
    assert "已导入 12 队" in response.content.decode()
    assert Team.objects.filter(tournament=tournament).count() == 12


# --- team pages ---------------------------------------------------------------------------------


def test_the_organizer_sees_captain_codes_the_public_does_not(
    event: Tournament, client_as: Any
) -> None:
    team = Team.objects.filter(tournament=event).first()
    assert team is not None
    private = client_as("organizer").get(reverse("tournaments:teams", args=[event.slug]))
    assert team.captain_code in private.content.decode()
    public = Client().get(reverse("public:teams", args=[event.slug])).content.decode()
    assert team.name in public and team.captain_code not in public
    pair = team.pairs.first()
    assert pair is not None and pair.code not in public
    page = Client().get(reverse("public:team", args=[event.slug, team.code])).content.decode()
    assert team.captain_code not in page and pair.code not in page
    assert (
        client_as("referee").get(reverse("tournaments:teams", args=[event.slug])).status_code == 403
    )


def test_the_organizer_edits_a_team_and_withdraws_it(event: Tournament, client_as: Any) -> None:
    client = client_as("organizer")
    url = reverse("tournaments:team_edit", args=[event.slug, "3"])
    assert client.get(url).status_code == 200
    client.post(url, {"name": "改名队", "unit": ""})
    assert Team.objects.get(tournament=event, code="3").name == "改名队"
    client.post(reverse("tournaments:team_status", args=[event.slug, "3"]), {"action": "withdraw"})
    assert Team.objects.get(tournament=event, code="3").status == Team.Status.WITHDRAWN


def test_the_organizer_adds_a_team_by_hand_and_bad_input_adds_nothing(
    event: Tournament, client_as: Any
) -> None:
    client = client_as("organizer")
    url = reverse("tournaments:team_add", args=[event.slug])
    assert client_as("referee").get(url).status_code == 403
    page = client.get(url)
    assert page.status_code == 200 and "牌手6" in page.content.decode()
    teams, pairs = Team.objects.count(), Pair.objects.count()
    top = max(Pair.objects.filter(tournament=event).values_list("number", flat=True))
    bad = [
        {"name": "半队", "player1": "甲", "player2": "乙", "player3": "丙"},  # 牌手4 empty
        {"name": "三对", **{f"player{i}": f"X{i}" for i in range(1, 6)}},  # 牌手6 missing
        {"name": "\x00", **{f"player{i}": f"N{i}" for i in range(1, 5)}},
        {"name": "重名", "player1": "同", "player2": "同", "player3": "丙", "player4": "丁"},
    ]
    for data in bad:
        response = client.post(url, data)
        assert response.status_code == 200, data
        assert Team.objects.count() == teams and Pair.objects.count() == pairs, data
    response = client.post(url, {"name": "晚到队", **{f"player{i}": f"晚{i}" for i in range(1, 7)}})
    assert response.status_code == 302
    team = Team.objects.get(tournament=event, name="晚到队")
    numbers = list(team.pairs.order_by("number").values_list("number", flat=True))
    assert numbers == [top + 1, top + 2, top + 3]
    first = team.pairs.order_by("number").first()
    assert first is not None and first.player_names.count("晚") == 2


def test_team_pages_of_a_pairs_event_are_not_found(tournament: Tournament) -> None:
    assert Client().get(reverse("public:teams", args=[tournament.slug])).status_code == 404
    assert (
        Client().get(reverse("tournaments:lineup", args=[tournament.slug, "1"])).status_code == 404
    )
    organizer = Client()
    organizer.force_login(tournament.organizers.get())
    assert organizer.get(reverse("tournaments:team_add", args=[tournament.slug])).status_code == 404


# --- line-ups -----------------------------------------------------------------------------------


def _lineup_post(team: Team, **extra: Any) -> dict[str, Any]:
    pairs = list(Team.pairs.through.objects.filter(team=team).order_by("pk"))
    # The third pair NS, the first EW (not the default line-up).
    return {"round": 1, "ns": pairs[2].pair_id, "ew": pairs[0].pair_id, **extra}


def test_the_captain_sets_the_line_up_with_the_code_and_it_locks_at_publication(
    event: Tournament, cast: dict[str, Any]
) -> None:
    team = Team.objects.get(tournament=event, code="3")  # three pairs
    url = reverse("tournaments:lineup", args=[event.slug, team.code])
    client = Client()
    page = client.get(url).content.decode()
    assert "队长密码" in page and "第1轮" in page
    wrong = client.post(url, _lineup_post(team, captain_code="WRONG1"))
    assert wrong.status_code == 400 and "队长密码不正确" in wrong.content.decode()
    assert not LineUp.objects.filter(team=team).exists()
    right = client.post(
        url, _lineup_post(team, captain_code=team.captain_code.lower()), follow=True
    )
    assert "已保存第1轮出场名单" in right.content.decode()
    lineup = LineUp.objects.get(team=team, round_number=1)
    assert lineup.set_via == "captain"
    rnd = _publish(event, cast)
    seated = set(
        Table.objects.filter(round=rnd, match__isnull=False).values_list("ns_id", flat=True)
    ) | set(Table.objects.filter(round=rnd).values_list("ew_id", flat=True))
    if rnd.bye_team_id != team.pk:
        assert lineup.ns_id in seated and lineup.ew_id in seated
    # The next round's line-up is open; a form still showing round 1 is refused, clearly,
    # and changes nothing (neither round 1 nor round 2).
    assert "第2轮" in client.get(url).content.decode()
    stale = client.post(url, _lineup_post(team, captain_code=team.captain_code))
    assert stale.status_code == 400
    assert "第1轮已公布，出场名单不能再修改" in stale.content.decode()
    assert LineUp.objects.filter(team=team).count() == 1


def test_a_change_after_publication_is_refused_with_a_clear_message(
    event: Tournament, cast: dict[str, Any], client_as: Any
) -> None:
    from tournaments.errors import ServiceError
    from tournaments.lineups import set_lineup

    rnd = _publish(event, cast)
    team = Team.objects.exclude(pk=rnd.bye_team_id).filter(tournament=event, code="3").first()
    assert team is not None
    pairs = [m.pair for m in Team.pairs.through.objects.filter(team=team).order_by("pk")]
    with pytest.raises(ServiceError) as refused:
        set_lineup(team, 1, pairs[2], pairs[0], user=cast["organizer"])
    assert "已公布" in refused.value.message


def test_the_organizer_sets_a_line_up_without_a_code(event: Tournament, client_as: Any) -> None:
    team = Team.objects.get(tournament=event, code="6")
    url = reverse("tournaments:lineup", args=[event.slug, team.code])
    client = client_as("organizer")
    assert "队长密码" not in client.get(url).content.decode().split("<form")[1]
    client.post(url, _lineup_post(team))
    lineup = LineUp.objects.get(team=team, round_number=1)
    assert lineup.set_via == "" and lineup.set_by is not None


# --- entry, the desk, the standings ----------------------------------------------------------


def test_the_desk_shows_both_tables_and_the_combined_result_once_both_are_confirmed(
    event: Tournament, cast: dict[str, Any], client_as: Any
) -> None:
    rnd = _publish(event, cast)
    first, second = _match_tables(rnd)
    desk = client_as("referee")
    url = reverse("referee:round_dashboard", args=[event.slug, rnd.number])
    page = desk.get(url).content.decode()
    assert "团体赛对阵" in page and "待两桌确认" in page
    play_table(first, TWO_DEALS, cast["referee"], cast["chief"])
    assert "待两桌确认" in desk.get(url).content.decode().split('id="match-1"')[1].split("</tr>")[0]
    play_table(second, TWO_DEALS, cast["referee"], cast["chief"])
    row = desk.get(url).content.decode().split('id="match-1"')[1].split("</tr>")[0]
    # Each team won one table by 2 levels: equal JCF sums, a draw (1 : 1).
    assert "场分 1 : 1" in row
    sheet = desk.get(reverse("referee:table", args=[event.slug, rnd.number, first.number]))
    assert "团体赛第1场" in sheet.content.decode()
    # The standings count the match; the pairs view ranks the pairs.
    standings = Client().get(reverse("public:standings", args=[event.slug]) + "?after=1")
    text = standings.content.decode()
    assert "团体名次" in text and "队名" in text
    pairs_view = Client().get(
        reverse("public:standings", args=[event.slug]) + "?view=pairs&after=1"
    )
    assert "选手" in pairs_view.content.decode()
    round_page = Client().get(reverse("public:round", args=[event.slug, rnd.number]))
    assert "场分 1 : 1" in round_page.content.decode()


def test_the_desk_flags_a_match_whose_tables_played_different_numbers_of_deals(
    cast: dict[str, Any], client_as: Any
) -> None:
    event = build_team_event(cast["organizer"], cast["chief"], [cast["referee"]], slug="timed")
    update_settings(event, {**team_settings(), "round_format": "timed"}, cast["organizer"])
    rnd = _publish(event, cast)
    first, second = _match_tables(rnd)
    play_table(first, ["NS2", "EW2", "NS1"], cast["referee"], cast["chief"], confirm=False)
    play_table(second, ["NS2", "EW2"], cast["referee"], cast["chief"], confirm=False)
    page = client_as("referee").get(
        reverse("referee:round_dashboard", args=[event.slug, rnd.number])
    )
    text = page.content.decode()
    assert 'data-testid="flagged-matches"' in text and "第1场" in text
    assert "两桌打的副数不一致" in text


def test_table_side_entry_works_per_table_in_a_team_match(
    event: Tournament, cast: dict[str, Any]
) -> None:
    rnd = _publish(event, cast)
    table = _match_tables(rnd)[1]
    client = Client()
    url = reverse("tableside:tableside", args=[table.entry_token])
    assert client.get(url).status_code == 200
    client.post(
        reverse("tableside:tableside_identify", args=[table.entry_token]),
        {"code": table.ns.code, "version": table.version},
    )
    client.post(
        reverse("tableside:tableside_event", args=[table.entry_token]),
        {"token": "NS3", "version": table.version, "once": new_once_key()},
    )
    assert Table.objects.get(pk=table.pk).events.count() == 1
    assert _match_tables(rnd)[0].events.count() == 0


# --- paper and files ----------------------------------------------------------------------------


def test_team_score_sheets_pairing_list_and_standings_name_the_matches_and_teams(
    event: Tournament, cast: dict[str, Any], client_as: Any
) -> None:
    from io import BytesIO

    from openpyxl import load_workbook

    from reports import collect, pdf, xlsx

    rnd = _publish(event, cast)
    first, second = _match_tables(rnd)
    play_table(first, TWO_DEALS, cast["referee"], cast["chief"])
    play_table(second, TWO_DEALS, cast["referee"], cast["chief"])
    home = Team.objects.get(pairs=first.ns)
    away = Team.objects.get(pairs=first.ew)
    sheets = {s.table_number: s for s in collect.score_sheets(event, 1)}
    assert sheets[1].match_label == "团体赛 第1场 甲桌（另一桌：第2桌）"
    assert sheets[2].match_label == "团体赛 第1场 甲1桌（另一桌：第1桌）"
    assert (sheets[1].ns_team, sheets[1].ew_team) == (home.name, away.name)
    assert (sheets[2].ns_team, sheets[2].ew_team) == (away.name, home.name)
    listing = collect.pairing_list(event, 1)
    assert listing.matches[0].home == home.name and listing.matches[0].tables == (1, 2)
    assert len(listing.matches) == 6 and listing.bye_team == ""
    standings = collect.standings(event, 1)
    assert standings.teams and {line.pair.names for line in standings.lines} >= {home.name}
    assert len(standings.lines) == 12
    for data in (
        pdf.render_scoresheets(list(sheets.values())),
        pdf.render_pairings(listing),
        pdf.render_standings(standings),
    ):
        assert data.startswith(b"%PDF")
    book = load_workbook(BytesIO(xlsx.render_workbook(collect.workbook(event))), read_only=True)
    assert book.sheetnames[:2] == ["团体排名", "各对排名"]
    header = next(book["团体排名"].iter_rows(values_only=True))
    assert header[:3] == ("名次", "队号", "队名")
    organizer = client_as("organizer")
    for document in ("scoresheets", "pairings", "standings"):
        url = reverse("reports:document", args=[event.slug, document]) + "?round=1"
        assert organizer.get(url).status_code == 200


def test_import_players_takes_the_team_sheet_of_a_team_event(
    cast: dict[str, Any], tmp_path: Any
) -> None:
    from io import StringIO

    from django.core.management import call_command

    tournament = create_tournament("团体赛", "t-cli", cast["organizer"], settings=team_settings())
    sheet = tmp_path / "teams.xlsx"
    sheet.write_bytes(team_sheet(team_rows(4)))
    out = StringIO()
    call_command("import_players", tournament.slug, str(sheet), stdout=out)
    assert "已导入 4 队" in out.getvalue()
    assert Team.objects.filter(tournament=tournament).count() == 4
