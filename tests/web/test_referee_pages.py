"""The referees' pages (issue 5 "Referees"): permissions per role, entry rules through the
pages, confirmation by a second person, the chief referee's correction, penalties, query bounds.

The cast and the small tournament come from the services (``tests.support.tournament``), so
these tests see exactly what a referee at the event sees.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.urls import reverse

from scoring import penalties
from scoring import services as scoring_services
from scoring.models import Penalty
from scoring.once import new_once_key
from tests.support.pages import (
    EIGHT,
    assert_valid_html,
    client_for,
    first_table,
    fresh,
    make_cast,
    make_draft_round,
    make_tournament,
    page_messages,
    post,
    table_url,
    tokens_of,
)
from tests.support.tournament import build_tournament, enter_tokens, next_round
from tournaments.models import AuditEntry, Round, Table, Tournament

# --------------------------------------------------------------------------------------------
# Cast


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    cache.clear()


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def tournament(cast: dict[str, Any]) -> Tournament:
    return make_tournament(cast)


@pytest.fixture
def round1(tournament: Tournament, cast: dict[str, Any]) -> Round:
    return next_round(tournament, cast["organizer"])


@pytest.fixture
def table(round1: Round) -> Table:
    return first_table(round1)


# --------------------------------------------------------------------------------------------
# Permissions: every page × every role

GET_PAGES = ["dashboard", "round_dashboard", "table", "penalties"]
TABLE_POSTS = ["event", "foul", "award", "undo", "start", "end", "submit", "confirm"]


def get_url(name: str, table: Table) -> str:
    slug = table.round.tournament.slug
    if name == "dashboard":
        return reverse("referee:dashboard", args=[slug]) + "?all=1"
    if name == "round_dashboard":
        return reverse("referee:round_dashboard", args=[slug, table.round.number])
    if name == "penalties":
        return reverse("penalties:penalties", args=[slug])
    return table_url(table)


@pytest.mark.parametrize("page", GET_PAGES)
@pytest.mark.parametrize(
    ("role", "expected"),
    [
        (None, 302),
        ("outsider", 403),
        ("other_ref", 403),
        ("referee", 200),
        ("chief", 200),
        ("organizer", 200),  # organizers may watch the tables; only referees enter
    ],
)
def test_referee_pages_by_role(
    cast: dict[str, Any], table: Table, page: str, role: str | None, expected: int
) -> None:
    url = get_url(page, table)
    response = client_for(cast[role] if role else None).get(url)
    assert response.status_code == expected
    if expected == 302:
        assert response["Location"].startswith(reverse("login"))
    if expected == 200:
        assert_valid_html(response.content.decode())


@pytest.mark.parametrize("action", [*TABLE_POSTS, "correct"])
@pytest.mark.parametrize("role", [None, "outsider", "other_ref", "organizer"])
def test_table_posts_refused_to_non_referees(
    cast: dict[str, Any], table: Table, action: str, role: str | None
) -> None:
    data = {"version": table.version, "token": "NS3", "side": "NS", "reason": "x"}
    response = client_for(cast[role] if role else None).post(table_url(table, action), data)
    assert response.status_code == (302 if role is None else 403)
    if role is None:
        assert response["Location"].startswith(reverse("login"))
    assert tokens_of(table) == []
    assert fresh(table).version == table.version


def test_correction_is_for_the_chief_referee_only(cast: dict[str, Any], table: Table) -> None:
    table = enter_tokens(table, EIGHT, cast["referee"])
    table = scoring_services.confirm_table(table, cast["referee2"], table.version)
    data = {"version": table.version, "tokens": " ".join(EIGHT), "reason": "x"}
    data.update({"start_ns": 2, "start_ew": 2, "end_kind": "", "end_side": ""})
    response = client_for(cast["referee"]).post(table_url(table, "correct"), data)
    assert response.status_code == 403
    assert fresh(table).version == table.version


def test_table_posts_need_post_and_csrf(cast: dict[str, Any], table: Table) -> None:
    referee = client_for(cast["referee"], csrf=True)
    assert referee.get(table_url(table, "event")).status_code == 405
    response = referee.post(
        table_url(table, "event"), {"once": new_once_key(), "version": 0, "token": "NS3"}
    )
    assert response.status_code == 403  # no CSRF token
    assert tokens_of(table) == []


def test_draft_round_and_bye_are_not_entry_pages(cast: dict[str, Any], round1: Round) -> None:
    client = client_for(cast["referee"])
    draft = make_draft_round(round1.tournament)
    assert client.get(table_url(draft)).status_code == 404
    url = reverse("referee:round_dashboard", args=[round1.tournament.slug, 2])
    assert client.get(url).status_code == 404
    response = client.post(
        table_url(draft, "event"), {"once": new_once_key(), "version": 0, "token": "NS3"}
    )
    assert response.status_code == 404
    bye = round1.tables.filter(is_bye=True).first()
    if bye is not None:
        assert client.get(table_url(bye)).status_code == 404


# --------------------------------------------------------------------------------------------
# Entry through the page


def test_a_tap_appends_the_deal_and_the_sheet_shows_the_levels(
    cast: dict[str, Any], table: Table
) -> None:
    client = client_for(cast["referee"])
    response = post(client, table_url(table, "event"), {"version": table.version, "token": "NS3"})
    assert tokens_of(table) == ["NS3"]
    sheet = response.context["sheet"]
    assert (sheet.ns_level, sheet.ew_level, sheet.next_level, sheet.on_stage) == (
        "5",
        "2",
        "5",
        "NS",
    )
    html = response.content.decode()
    assert "南北上游，对家二游 +3" in html
    assert 'data-testid="deals">1/8<' in html
    assert_valid_html(html)


def test_every_tap_button_is_spelled_out(cast: dict[str, Any], table: Table) -> None:
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    for text in ("南北上游，对家二游 +3", "南北上游，对家三游 +2", "东西上游，对家末游 +1"):
        assert f'aria-label="{text}"' in html


def test_a_ninth_deal_is_refused_with_a_message(cast: dict[str, Any], table: Table) -> None:
    table = enter_tokens(table, EIGHT, cast["referee"])
    client = client_for(cast["referee"])
    response = post(client, table_url(table, "event"), {"version": table.version, "token": "EW3"})
    assert any("8" in m and "副" in m for m in page_messages(response)), page_messages(response)
    assert tokens_of(table) == EIGHT
    # The grid is gone once the sheet is complete; the sheet says so.
    html = response.content.decode()
    assert 'data-testid="tap-NS3"' not in html
    assert "8副已打完" in html


def test_a_deal_after_passing_a_is_refused_with_a_message(
    cast: dict[str, Any], table: Table
) -> None:
    table = enter_tokens(table, ["NS3", "NS3", "NS3", "NS3", "NS3"], cast["referee"])
    client = client_for(cast["referee"])
    response = post(client, table_url(table, "event"), {"version": table.version, "token": "NS1"})
    assert any("过A" in m for m in page_messages(response)), page_messages(response)
    assert len(tokens_of(table)) == 5
    assert "南北过A，比赛结束" in response.content.decode()


def test_a_bad_token_is_a_form_error_not_a_500(cast: dict[str, Any], table: Table) -> None:
    client = client_for(cast["referee"])
    for data in ({"version": 0, "token": "NS4"}, {"version": "x", "token": "NS3"}, {}):
        response = post(client, table_url(table, "event"), data)
        assert page_messages(response)
    assert tokens_of(table) == []


def test_undo_removes_the_last_event(cast: dict[str, Any], table: Table) -> None:
    table = enter_tokens(table, ["NS3", "EW2"], cast["referee"])
    client = client_for(cast["referee"])
    response = post(client, table_url(table, "undo"), {"version": table.version})
    assert tokens_of(table) == ["NS3"]
    assert "已撤销" in " ".join(page_messages(response))


def test_a_stale_version_is_a_conflict_never_an_overwrite(
    cast: dict[str, Any], table: Table
) -> None:
    stale = table.version
    enter_tokens(table, ["NS3"], cast["referee2"])  # somebody else tapped meanwhile
    client = client_for(cast["referee"])
    response = post(client, table_url(table, "event"), {"version": stale, "token": "EW3"})
    assert tokens_of(table) == ["NS3"]
    text = " ".join(page_messages(response))
    assert "已被他人修改" in text and "没有保存" in text
    response = post(client, table_url(table, "undo"), {"version": stale})
    assert tokens_of(table) == ["NS3"]


def test_foul_award_lateness_and_end_through_the_page(cast: dict[str, Any], table: Table) -> None:
    client = client_for(cast["chief"])  # RULES.md §3: fouls, awards and 判负 are the chief's
    post(client, table_url(table, "start"), {"version": 0, "late_side": "EW", "minutes": 7})
    table = fresh(table)
    assert (table.start_ns, table.start_ew) == (4, 2)
    post(client, table_url(table, "event"), {"version": table.version, "token": "foul:EW"})
    table = fresh(table)
    post(client, table_url(table, "award"), {"version": table.version, "side": "NS", "levels": 2})
    assert tokens_of(table) == ["foul:EW", "adjust:NS+2"]
    table = fresh(table)
    response = post(
        client,
        table_url(table, "start"),
        {"version": table.version, "late_side": "NS", "minutes": 12},
    )
    assert any("超过10分钟" in m for m in page_messages(response))
    response = post(
        client,
        table_url(table, "end"),
        {"version": table.version, "kind": "penalty_loss", "side": "EW"},
    )
    table = fresh(table)
    assert (table.end_kind, table.end_side) == ("penalty_loss", "EW")
    assert "东西判负" in response.content.decode()


def test_confirmation_needs_a_second_referee(cast: dict[str, Any], table: Table) -> None:
    table = enter_tokens(table, EIGHT, cast["referee"])
    enterer = client_for(cast["referee"])
    response = post(enterer, table_url(table, "submit"), {"version": table.version})
    table = fresh(table)
    assert table.entry_status == "entered"
    # The enterer is not offered "confirm" (issue 15); a forged post is still refused.
    assert 'data-testid="confirm"' not in enterer.get(table_url(table)).content.decode()
    second = client_for(cast["referee2"]).get(table_url(table)).content.decode()
    assert 'data-testid="confirm"' in second
    response = post(enterer, table_url(table, "confirm"), {"version": table.version})
    assert any("另一人" in m for m in page_messages(response)), page_messages(response)
    assert fresh(table).entry_status == "entered"
    response = post(
        client_for(cast["referee2"]), table_url(table, "confirm"), {"version": table.version}
    )
    table = fresh(table)
    assert table.entry_status == "confirmed" and table.confirmed_by == cast["referee2"]
    html = response.content.decode()
    assert 'data-testid="locked"' in html and 'data-testid="tap-NS3"' not in html
    # Locked: a late tap is refused with the service's message.
    response = post(enterer, table_url(table, "event"), {"version": table.version, "token": "NS3"})
    assert any("裁判长" in m for m in page_messages(response))


def test_chief_corrects_with_a_reason_and_the_history_shows_it(
    cast: dict[str, Any], table: Table
) -> None:
    table = enter_tokens(table, EIGHT, cast["referee"])
    table = scoring_services.confirm_table(table, cast["referee2"], table.version)
    chief = client_for(cast["chief"])
    corrected = ["EW3", *EIGHT[1:]]
    data = {"version": table.version, "tokens": " ".join(corrected), "start_ns": 2, "start_ew": 2}
    data.update({"end_kind": "", "end_side": ""})
    response = post(chief, table_url(table, "correct"), {**data, "reason": "  "})
    assert tokens_of(table) == EIGHT  # no reason, no correction
    assert page_messages(response)
    response = post(chief, table_url(table, "correct"), {**data, "reason": "第1副录反了方向"})
    assert tokens_of(table) == corrected
    entry = AuditEntry.objects.get(table=table, action="correct")
    assert entry.reason == "第1副录反了方向" and entry.actor == "chief"
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    assert "第1副录反了方向" in html and "更正成绩" in html
    bad = post(chief, table_url(table, "correct"), {**data, "tokens": "NS9", "reason": "x"})
    assert page_messages(bad) and tokens_of(table) == corrected


# --------------------------------------------------------------------------------------------
# The round dashboard


def test_dashboard_statuses_progress_and_filters(cast: dict[str, Any], round1: Round) -> None:
    tables = list(round1.tables.filter(is_bye=False).order_by("number"))
    t1, t2, t3 = tables[0], tables[1], tables[2]
    t1 = enter_tokens(t1, EIGHT, cast["referee"])
    scoring_services.confirm_table(t1, cast["referee2"], t1.version)
    t2 = enter_tokens(t2, EIGHT, cast["referee"])
    scoring_services.mark_entered(t2, cast["referee"], t2.version)
    enter_tokens(t3, ["NS3"], cast["referee2"])
    client = client_for(cast["referee"])
    url = reverse("referee:round_dashboard", args=[round1.tournament.slug, 1])
    response = client.get(url)
    statuses = {row["table"].number: row["status"] for row in response.context["rows"]}
    assert statuses[t1.number] == "confirmed"
    assert statuses[t2.number] == "entered"
    assert statuses[t3.number] == "in_progress"
    assert set(statuses.values()) <= {"confirmed", "entered", "in_progress", "not_started", "bye"}
    html = response.content.decode()
    assert f"1/{len(tables)} 已确认" in html
    mine = client.get(url + "?show=mine").context["rows"]
    assert {row["table"].number for row in mine} == {t1.number, t2.number}
    unconfirmed = client.get(url + "?show=unconfirmed").context["rows"]
    assert t1.number not in {row["table"].number for row in unconfirmed}
    assert len(unconfirmed) == len(tables) - 1


def test_dashboard_queries_do_not_grow_with_the_round(
    cast: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    counts = []
    for n_pairs, slug in ((8, "small"), (40, "large")):
        t = build_tournament(
            cast["organizer"], cast["chief"], [cast["referee"]], n_pairs=n_pairs, slug=slug
        )
        rnd = next_round(t, cast["organizer"])
        for table in rnd.tables.filter(is_bye=False)[:3]:
            enter_tokens(table, ["NS3", "EW1"], cast["referee"])
        client = client_for(cast["referee"])
        url = reverse("referee:round_dashboard", args=[slug, 1])
        # 16: the refresh stamp (``scoring.dashboard.desk_stamp``) is one query of its own.
        with django_assert_max_num_queries(16) as captured:
            response = client.get(url)
        assert response.status_code == 200
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1], counts


# --------------------------------------------------------------------------------------------
# Penalties


def test_penalty_from_the_table_page_and_escalation(cast: dict[str, Any], table: Table) -> None:
    client = client_for(cast["referee"])
    page = table_url(table)
    data = {"round": table.round.number, "table": table.number, "next": page}
    for _ in range(2):
        post(
            client,
            reverse("penalties:penalty_new", args=[table.round.tournament.slug]),
            {**data, "pair": table.ew_id, "kind": "warning", "deal": 3, "reason": "催促"},
        )
    assert Penalty.objects.filter(pair=table.ew, kind="warning").count() == 2
    html = client.get(page).content.decode()
    assert "建议：违例" in html
    response = post(
        client,
        reverse("penalties:penalty_escalate", args=[table.round.tournament.slug]),
        {**data, "pair": table.ew.number, "version": table.version},
    )
    penalty = Penalty.objects.get(pair=table.ew, kind="violation")
    assert penalty.escalation is True
    assert "建议：违例" not in response.content.decode()


def test_penalty_for_a_pair_not_at_the_table_is_refused(
    cast: dict[str, Any], round1: Round
) -> None:
    first, second = round1.tables.filter(is_bye=False).order_by("number")[:2]
    client = client_for(cast["referee"])
    response = post(
        client,
        reverse("penalties:penalty_new", args=[round1.tournament.slug]),
        {"round": 1, "table": first.number, "pair": second.ns_id, "kind": "warning"},
    )
    assert page_messages(response)
    assert not Penalty.objects.exists()


def test_deduction_from_the_round_page_needs_points(cast: dict[str, Any], table: Table) -> None:
    client = client_for(cast["chief"])  # RULES.md §3: deductions are the chief referee's
    url = reverse("penalties:penalty_new", args=[table.round.tournament.slug])
    data = {"round": 1, "pair": table.ns_id, "kind": "deduction", "next": "https://evil.example/"}
    response = post(client, url, data)
    assert page_messages(response) and not Penalty.objects.exists()
    assert response.redirect_chain[-1][0] == reverse(
        "penalties:penalties", args=[table.round.tournament.slug]
    )
    post(client, url, {**data, "jcf": "1", "reason": "越序抓牌"})
    assert Penalty.objects.get().jcf == 1


def test_penalty_list_filters(cast: dict[str, Any], table: Table) -> None:
    t = table.round.tournament
    penalties.record_penalty(t, table.ns, "warning", cast["referee"], round=table.round)
    penalties.record_penalty(t, table.ew, "deduction", cast["chief"], round=table.round, jcf=1)
    client = client_for(cast["chief"])
    url = reverse("penalties:penalties", args=[t.slug])
    assert len(client.get(url).context["page"]) == 2
    assert len(client.get(url + "?kind=deduction").context["page"]) == 1
    assert len(client.get(url + f"?pair={table.ns.number}").context["page"]) == 1
    assert len(client.get(url + "?round=2").context["page"]) == 0
    assert client.get(url + "?round=abc").status_code == 200
    new_url = reverse("penalties:penalty_new", args=[t.slug])
    escalate_url = reverse("penalties:penalty_escalate", args=[t.slug])
    for post_url in (new_url, escalate_url):
        assert client_for(cast["other_ref"]).post(post_url, {}).status_code == 403
    # RULES.md §3: the organizers impose a disqualification (the tournament's setting); the
    # service refuses them every other kind (tests/web/test_authority_walk.py walks them all).
    organizer = client_for(cast["organizer"])
    data = {"pair": table.ns.pk, "round": table.round.number, "table": table.number}
    organizer.post(new_url, {**data, "kind": "warning", "once": new_once_key()})
    assert not Penalty.objects.filter(kind="warning", referee=cast["organizer"]).exists()
    organizer.post(
        new_url, {**data, "kind": "disqualification", "reason": "严重违规", "once": new_once_key()}
    )
    assert Penalty.objects.filter(kind="disqualification", referee=cast["organizer"]).exists()


def test_a_sheet_the_rules_no_longer_accept_is_a_problem(
    cast: dict[str, Any], round1: Round
) -> None:
    table = enter_tokens(first_table(round1), EIGHT, cast["referee"])
    scoring_services.confirm_table(table, cast["referee2"], table.version)
    tournament = round1.tournament
    # The settings were changed behind everybody's back (6 deals a round): shown, not a 500.
    Tournament.objects.filter(pk=tournament.pk).update(
        settings={**tournament.settings, "deals_per_round": 6}
    )
    client = client_for(cast["referee"])
    url = reverse("referee:round_dashboard", args=[tournament.slug, 1])
    rows = client.get(url + "?show=problem").context["rows"]
    assert [row["table"].number for row in rows] == [table.number]
    response = client.get(table_url(table))
    assert response.status_code == 200
    assert "记录有问题" in response.content.decode()


def test_a_timed_round_can_be_closed_before_the_deal_limit(cast: dict[str, Any]) -> None:
    settings = {**make_tournament(cast).settings, "round_format": "timed"}
    timed = build_tournament(
        cast["organizer"], cast["chief"], [cast["referee"]], slug="timed", settings=settings
    )
    table = first_table(next_round(timed, cast["organizer"]))
    table = enter_tokens(table, ["NS3", "EW2", "NS1"], cast["referee"])
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    assert 'data-testid="submit"' in html and 'data-testid="tap-NS3"' in html
    assert 'data-testid="deals">3<' in html


def test_dashboard_pages_keep_filters_and_count_the_whole_round(
    cast: dict[str, Any], monkeypatch: Any
) -> None:
    """A page shows TABLES_PER_PAGE tables; the progress, the counts and every filter cover
    the whole round, whatever page is shown."""
    from scoring.views import referee as scoring_views

    monkeypatch.setattr(scoring_views, "TABLES_PER_PAGE", 3)
    t = build_tournament(
        cast["organizer"], cast["chief"], [cast["referee"], cast["referee2"]], n_pairs=20
    )
    rnd = next_round(t, cast["organizer"])
    tables = list(rnd.tables.filter(is_bye=False).order_by("number"))
    assert len(tables) == 10
    for table in tables[::2]:  # 5 confirmed: tables 1, 3, 5, 7, 9
        table = enter_tokens(table, EIGHT, cast["referee"])
        scoring_services.confirm_table(table, cast["referee2"], table.version)
    enter_tokens(tables[9], ["NS3"], cast["referee2"])  # table 10: in progress, not "mine"
    client = client_for(cast["referee"])
    url = reverse("referee:round_dashboard", args=[t.slug, 1])
    first = client.get(url)
    assert [row["table"].number for row in first.context["rows"]] == [1, 2, 3]
    html = first.content.decode()
    assert "5/10 已确认" in html and 'data-testid="pages"' in html
    assert 'href="?show=all&amp;page=2"' in html
    last = client.get(url + "?page=4")
    assert [row["table"].number for row in last.context["rows"]] == [10]
    assert "5/10 已确认" in last.content.decode()
    assert last.context["rows"][0]["status"] == "in_progress"
    summary = {s["status"]: s["count"] for s in last.context["summary"]}
    assert summary == {
        "not_started": 4,
        "in_progress": 1,
        "entered": 0,
        "confirmed": 5,
        "problem": 0,
    }
    unconfirmed = client.get(url + "?show=unconfirmed&page=2")
    assert [row["table"].number for row in unconfirmed.context["rows"]] == [8, 10]
    assert 'href="?show=unconfirmed&amp;page=1"' in unconfirmed.content.decode()
    mine = client.get(url + "?show=mine&page=2")
    assert [row["table"].number for row in mine.context["rows"]] == [7, 9]
    assert client.get(url + "?page=99").context["rows"][0]["table"].number == 10
    assert client.get(url + "?page=abc").context["rows"][0]["table"].number == 1
    # The rules change behind everybody's back: the confirmed 8-deal sheets are problems now,
    # found across the whole round and counted once (as problems, no longer as confirmed).
    Tournament.objects.filter(pk=t.pk).update(settings={**t.settings, "deals_per_round": 6})
    problem = client.get(url + "?show=problem&page=2")
    assert [row["table"].number for row in problem.context["rows"]] == [7, 9]
    assert all(row["status"] == "problem" for row in problem.context["rows"])
    summary = {s["status"]: s["count"] for s in problem.context["summary"]}
    assert summary["problem"] == 5 and summary["confirmed"] == 0
    assert "0/10 已确认" in problem.content.decode()
    unconfirmed = client.get(url + "?show=unconfirmed")
    assert (
        len(unconfirmed.context["rows"]) == 3 and unconfirmed.context["page"].paginator.count == 10
    )
    assert_valid_html(problem.content.decode())


def test_round_page_penalty_by_pair_number(cast: dict[str, Any], table: Table) -> None:
    """The round page asks for the pair's number (no list of every pair of a big event)."""
    client = client_for(cast["referee"])
    slug = table.round.tournament.slug
    html = client.get(reverse("referee:round_dashboard", args=[slug, 1])).content.decode()
    assert 'name="pair_number"' in html and '<select name="pair"' not in html
    url = reverse("penalties:penalty_new", args=[slug])
    data = {"round": 1, "kind": "warning", "reason": "喧哗"}
    response = post(client, url, {**data, "pair_number": 999})
    assert any("不在本轮" in m for m in page_messages(response))
    response = post(client, url, data)
    assert any("请选择受罚对" in m for m in page_messages(response))
    assert not Penalty.objects.exists()
    post(client, url, {**data, "pair_number": table.ew.number})
    assert Penalty.objects.get().pair == table.ew


def test_the_foul_button_scores_the_deal_and_records_the_penalty(
    cast: dict[str, Any], table: Table
) -> None:
    client = client_for(cast["chief"])  # RULES.md §3: a foul is the chief referee's
    html = client.get(table_url(table)).content.decode()
    assert 'data-testid="foul-form"' in html and f'action="{table_url(table, "foul")}"' in html
    post(client, table_url(table, "event"), {"version": table.version, "token": "NS3"})
    table = fresh(table)
    response = post(
        client, table_url(table, "foul"), {"version": table.version, "side": "EW", "reason": "看牌"}
    )
    assert tokens_of(table) == ["NS3", "foul:EW"]
    penalty = Penalty.objects.get()
    assert (penalty.pair, penalty.kind, penalty.deal, penalty.reason) == (
        table.ew,
        "foul",
        2,
        "看牌",
    )
    html = response.content.decode()
    assert "已记录犯规" in html and "东西犯规（南北 +3）" in html
    assert "<strong>犯规</strong>" in html  # listed under the table's penalties
    # A stale page: a conflict, and neither the event nor a second penalty is stored.
    response = post(client, table_url(table, "foul"), {"version": table.version, "side": "NS"})
    assert any("没有保存" in m for m in page_messages(response))
    assert tokens_of(table) == ["NS3", "foul:EW"] and Penalty.objects.count() == 1
    # A second foul by EW: the page suggests 判负.
    table = fresh(table)
    response = post(client, table_url(table, "foul"), {"version": table.version, "side": "EW"})
    assert Penalty.objects.filter(pair=table.ew, kind="foul").count() == 2
    assert "建议：判负" in response.content.decode()
    bad = post(client, table_url(fresh(table), "foul"), {"version": fresh(table).version})
    assert page_messages(bad) and Penalty.objects.count() == 2
