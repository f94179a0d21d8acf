"""The referee sheet, table-side entry and the pair page under issue 12's rules (RULES.md §1–§3):
the 本副判负 action beside 犯规 (``lose:NS``), the extra deal of a level tie offered only when
``scoring.engine.extra_deal_allowed`` says so, the late scoresheet among the end actions, no
判负 after 过A, and the A-failure notes from the tournament's ``a_attempts``/``a_fail_count``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from rules.ruleset import RuleSet, preset_settings
from scoring import services as scoring_services
from scoring.engine import score_match
from scoring.models import Penalty
from scoring.sheet import describe_snapshot, sheet_from_result
from tests.support.pages import (
    assert_valid_html,
    client_for,
    first_table,
    fresh,
    identified,
    make_cast,
    post,
    table_url,
    tokens_of,
)
from tests.support.tournament import build_tournament, enter_tokens, next_round
from tournaments import services as tournament_services
from tournaments.errors import ForbiddenError
from tournaments.models import Table, Tournament
from tournaments.permissions import Role

# Alternating single upgrades: NS 6 : EW 6 after 8 deals (a level tie).
TIED = ["NS1", "EW1"] * 4
# NS 9 : EW 7 after 8 deals.
EIGHT = ["NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1"]
PAST_A = ["NS3", "NS3", "NS3", "NS3", "NS3"]  # NS passes A in the fifth deal


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


def tournament_with(cast: dict[str, Any], preset: str = "regulation", **extra: Any) -> Tournament:
    settings = {**preset_settings(preset), "rounds": 7, "seed": 20261129, **extra}
    return build_tournament(
        cast["organizer"], cast["chief"], [cast["referee"], cast["referee2"]], settings=settings
    )


def table_of(tournament: Tournament, cast: dict[str, Any]) -> Table:
    return first_table(next_round(tournament, cast["organizer"]))


# --------------------------------------------------------------------------------------------
# 本副判负 (RULES.md §3): a lose: event beside 犯规, the chief referee's by default


def test_the_chief_referee_enters_a_deal_loss_beside_the_foul(cast: dict[str, Any]) -> None:
    table = table_of(tournament_with(cast), cast)
    chief = client_for(cast["chief"])
    html = chief.get(table_url(table)).content.decode()
    assert 'data-testid="lose-NS"' in html and 'data-testid="lose-EW"' in html
    assert "南北本副判负（东西 +3）" in html and "东西本副判负（南北 +3）" in html
    assert "按双下记分；不计为犯规" in html
    assert_valid_html(html)
    response = post(
        chief, table_url(table, "event"), {"version": table.version, "token": "lose:NS"}
    )
    assert tokens_of(table) == ["lose:NS"]
    sheet = response.context["sheet"]
    assert (sheet.ns_level, sheet.ew_level) == ("2", "5")  # scored as EW's 双下 (+3)
    assert sheet.rows[0].description == "南北本副判负（东西 +3）"
    assert "南北本副判负（东西 +3）" in response.content.decode()
    # Not a foul: no 犯规 penalty is recorded (it never counts towards "two fouls → 判负").
    assert not Penalty.objects.filter(table=table).exists()


def test_a_plain_referee_has_no_deal_loss_button_by_default(cast: dict[str, Any]) -> None:
    """RULES.md §3: fouls, deal losses and level awards are the chief referee's by default; a
    plain referee is not offered what the service would refuse."""
    table = table_of(tournament_with(cast), cast)
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    assert 'data-testid="foul-NS"' not in html
    assert 'data-testid="lose-NS"' not in html
    assert 'data-testid="award-form"' not in html
    html = client_for(cast["chief"]).get(table_url(table)).content.decode()
    assert 'data-testid="foul-NS"' in html and 'data-testid="lose-NS"' in html
    assert 'data-testid="award-form"' in html


def test_an_organizer_who_is_also_a_referee_is_not_offered_the_deal_loss(
    cast: dict[str, Any],
) -> None:
    """Issue 27: the page counted an organizer above the chief referee and offered 本副判负,
    which the service (RULES.md §3: the chief referee's) then refused."""
    tournament = tournament_with(cast)
    tournament_services.grant_role(tournament, cast["organizer"], Role.REFEREE, cast["organizer"])
    table = table_of(tournament, cast)
    html = client_for(cast["organizer"]).get(table_url(table)).content.decode()
    assert 'data-testid="tap-NS3"' in html  # a referee here: the sheet is open to them
    assert 'data-testid="lose-NS"' not in html and 'data-testid="foul-NS"' not in html
    with pytest.raises(ForbiddenError):
        scoring_services.enter_event(table, "lose:NS", cast["organizer"], table.version)


def test_the_deal_loss_button_follows_the_tournaments_penalty_authority(
    cast: dict[str, Any],
) -> None:
    tournament = tournament_with(cast, penalty_authority={"deal_loss": "referee"})
    table = table_of(tournament, cast)
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    assert 'data-testid="lose-EW"' in html


def test_the_deal_loss_buttons_are_disabled_once_the_match_is_over(cast: dict[str, Any]) -> None:
    table = table_of(tournament_with(cast), cast)
    table = enter_tokens(table, PAST_A, cast["referee"])
    html = client_for(cast["chief"]).get(table_url(table)).content.decode()
    assert 'data-testid="lose-NS" disabled' in html


def test_a_deal_loss_reads_as_such_on_the_pair_page(cast: dict[str, Any]) -> None:
    tournament = tournament_with(cast)
    table = table_of(tournament, cast)
    tokens = ["lose:EW", *EIGHT[1:]]
    table = enter_tokens(table, tokens, cast["chief"])
    table = scoring_services.mark_entered(table, cast["chief"], table.version)
    scoring_services.confirm_table(table, cast["referee"], table.version)
    url = reverse("public:pair", args=[tournament.slug, table.ns.number])
    html = client_for(None).get(url).content.decode()
    assert "东西本副判负" in html
    assert "升级调整" not in html  # a lose: event is not a level award


# --------------------------------------------------------------------------------------------
# The extra deal of a level tie (RULES.md §2 "Level tie")


def test_a_level_tie_offers_one_extra_deal_with_tie_extra_deal(cast: dict[str, Any]) -> None:
    table = table_of(tournament_with(cast, "jiangsu2017"), cast)
    table = enter_tokens(table, TIED, cast["referee"])
    client = client_for(cast["referee"])
    html = client.get(table_url(table)).content.decode()
    assert "双方级数相同：加打一副决定胜负" in html
    assert 'data-testid="extra-deal"' in html and 'data-testid="tap-NS3"' in html
    assert 'data-testid="submit"' not in html  # the extra deal decides the match first
    assert_valid_html(html)
    response = post(client, table_url(table, "event"), {"version": table.version, "token": "EW2"})
    assert tokens_of(table) == [*TIED, "EW2"]
    html = response.content.decode()
    assert "加打一副后比赛结束" in html
    assert 'data-testid="tap-NS3"' not in html and 'data-testid="submit"' in html
    sheet = response.context["sheet"]
    assert sheet.rows[-1].extra and sheet.rows[-1].note.startswith("加打一副")
    assert sheet.finished and sheet.leader == "EW"


def test_the_table_side_page_labels_the_extra_deal(cast: dict[str, Any]) -> None:
    table = table_of(tournament_with(cast, "jiangsu2017"), cast)
    table = enter_tokens(table, TIED, cast["referee"])
    url = reverse("tableside:tableside", args=[table.entry_token])
    html = identified(table).get(url).content.decode()  # South proved itself (issue 11)
    assert 'data-testid="extra-deal"' in html and "加打一副" in html
    assert 'data-testid="tap-EW1"' in html and 'data-testid="submit"' not in html


@pytest.mark.parametrize(
    ("preset", "tokens", "end"),
    [
        ("regulation", TIED, None),  # tie: draw — the tie stands
        ("jiangsu2017", EIGHT, None),  # levels not equal
        ("jiangsu2017", TIED, ("late_sheet", "EW")),  # an end
    ],
)
def test_no_extra_deal_without_a_tie_with_a_draw_rule_or_with_an_end(
    cast: dict[str, Any], preset: str, tokens: list[str], end: tuple[str, str] | None
) -> None:
    table = table_of(tournament_with(cast, preset), cast)
    table = enter_tokens(table, tokens, cast["referee"])
    if end is not None:
        table = scoring_services.set_end(table, *end, cast["referee"], table.version)
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    assert "加打一副" not in html
    assert 'data-testid="tap-NS3"' not in html


def test_no_extra_deal_after_passing_a() -> None:
    rules = RuleSet.from_dict({**preset_settings("jiangsu2017"), "deals_per_round": 5})
    # NS passes A in deal 5 with EW at 2: not a tie, and the match is over anyway.
    sheet = sheet_from_result(score_match(PAST_A, rules, complete=False), rules)
    assert sheet.finished and not sheet.extra_deal_next


# --------------------------------------------------------------------------------------------
# Late scoresheet (RULES.md §2) among the end actions; no 判负 after 过A


def test_a_late_scoresheet_is_an_end_action(cast: dict[str, Any]) -> None:
    table = table_of(tournament_with(cast), cast)
    table = enter_tokens(table, EIGHT, cast["referee"])
    client = client_for(cast["referee"])
    html = client.get(table_url(table)).content.decode()
    assert '<option value="late_sheet">迟交记分表</option>' in html
    assert "责任方按弃权记分（0场分、0级差分）" in html
    response = post(
        client,
        table_url(table, "end"),
        {"version": table.version, "kind": "late_sheet", "side": "NS"},
    )
    table = fresh(table)
    assert (table.end_kind, table.end_side) == ("late_sheet", "NS")
    html = response.content.decode()
    assert "南北迟交记分表（按弃权记分）" in html
    sheet = response.context["sheet"]
    # NS won the deals 9:7 but is scored a forfeit loss; EW keeps the real result (a loss).
    assert (sheet.ns_cf, sheet.ns_jcf, sheet.ew_cf, sheet.ew_jcf) == (0, 0, 0, 11)


def test_a_late_scoresheet_may_follow_passing_a_but_not_a_penalty_loss(
    cast: dict[str, Any],
) -> None:
    table = table_of(tournament_with(cast), cast)
    table = enter_tokens(table, PAST_A, cast["referee"])
    client = client_for(cast["referee"])
    html = client.get(table_url(table)).content.decode()
    assert 'value="penalty_loss"' not in html.split('id="end_kind"')[1].split("</select>")[0]
    assert 'data-testid="no-penalty-loss"' in html
    response = post(
        client,
        table_url(table, "end"),
        {"version": table.version, "kind": "late_sheet", "side": "EW"},
    )
    assert fresh(table).end_kind == "late_sheet"
    assert "东西迟交记分表（按弃权记分）" in response.content.decode()


def test_the_penalty_loss_is_offered_before_anyone_passed_a(cast: dict[str, Any]) -> None:
    table = table_of(tournament_with(cast), cast)
    html = client_for(cast["chief"]).get(table_url(table)).content.decode()
    select = html.split('id="end_kind"')[1].split("</select>")[0]
    assert 'value="penalty_loss"' in select and 'value="late_sheet"' in select
    assert 'data-testid="no-penalty-loss"' not in html
    # RULES.md §3: a 判负 is the chief referee's; a plain referee is offered the other ends.
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    select = html.split('id="end_kind"')[1].split("</select>")[0]
    assert 'value="penalty_loss"' not in select and 'value="forfeit"' in select


def test_the_history_names_a_late_scoresheet(cast: dict[str, Any]) -> None:
    table = table_of(tournament_with(cast), cast)
    table = enter_tokens(table, EIGHT, cast["referee"])
    table = scoring_services.mark_entered(table, cast["referee"], table.version)
    client = client_for(cast["referee2"])
    post(
        client,
        table_url(table, "end"),
        {"version": table.version, "kind": "late_sheet", "side": "EW"},
    )
    html = client.get(table_url(table)).content.decode()
    history = html.split('data-testid="history"')[1]
    assert "东西迟交记分表" in history and "东西判负" not in history
    assert describe_snapshot({"end": {"late_sheet": "ns"}}) == "南北迟交记分表"


def test_the_pair_page_shows_a_late_scoresheet_as_a_loss_with_nothing(
    cast: dict[str, Any],
) -> None:
    tournament = tournament_with(cast)
    table = table_of(tournament, cast)
    table = enter_tokens(table, EIGHT, cast["referee"])
    table = scoring_services.set_end(table, "late_sheet", "NS", cast["referee"], table.version)
    table = scoring_services.mark_entered(table, cast["referee"], table.version)
    scoring_services.confirm_table(table, cast["referee2"], table.version)
    public = client_for(None)
    ns_page = public.get(reverse("public:pair", args=[tournament.slug, table.ns.number]))
    ns = next(h for h in ns_page.context["history"] if h["round"].number == 1)
    # NS won the deals 9:7, but its late sheet makes it a loss with 0 CF and 0 JCF.
    assert (ns["won"], ns["lost"], ns["cf"], ns["jcf"], ns["jc"]) == (False, True, 0, 0, 0)
    html = ns_page.content.decode()
    assert "本方迟交记分表（按弃权记分）" in html
    ew_page = public.get(reverse("public:pair", args=[tournament.slug, table.ew.number]))
    ew = next(h for h in ew_page.context["history"] if h["round"].number == 1)
    assert (ew["won"], ew["lost"], ew["cf"], ew["jcf"], ew["jc"]) == (False, True, 0, 11, -2)
    assert "对方迟交记分表" in ew_page.content.decode()


# --------------------------------------------------------------------------------------------
# The A-failure notes (RULES.md §1 "Failed attempts at A")

# NS climbs to A (2 → 5 → 8 → J → A) and then fails at its own A.
TO_ACE = ["NS3", "NS3", "NS3", "NS3"]


def notes(tokens: list[str], **settings: Any) -> list[str]:
    rules = RuleSet.from_dict({"round_format": "game", **settings})
    sheet = sheet_from_result(score_match(tokens, rules, complete=False), rules)
    return [row.note for row in sheet.rows]


def test_the_reset_note_names_the_tournaments_number_of_attempts(db: Any) -> None:
    # a_attempts 2: NS fails twice at A (partner last, +1: no pass) and drops back to 2.
    found = notes([*TO_ACE, "NS1", "NS1"], a_rule="reset_to_2", a_attempts=2)
    assert found[-2] == "南北打A"
    assert found[-1] == "南北打A2次未过，回到2"


def test_stage_counted_failures_are_numbered_on_the_sheet(db: Any) -> None:
    # a_fail_count stage: only being knocked off stage counts (an EW win while NS is on stage
    # at A); NS1 at A keeps NS on stage and is no failure.
    tokens = [*TO_ACE, "NS1", "EW1", "NS3", "EW2"]
    found = notes(tokens, a_rule="reset_to_2", a_attempts=2, a_fail_count="stage")
    assert found[4] == "南北打A"
    assert found[5] == "南北第1次上台打A被推翻"
    assert found[7] == "南北第2次上台打A被推翻，回到2"
