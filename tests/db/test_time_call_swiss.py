"""RULES.md §2 "Level tie" outside a knockout: a Swiss stage played 计时制 (or 计副制) with
``tie: extra_deal``. A match level when time is called, or level after its last regular deal,
is decided by one more deal — the referee records "到时：加打一副" (``call_time``), the sheet then
offers only the extra deal, and a level sheet cannot be submitted as a draw."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from rules.ruleset import preset_settings
from scoring import services
from scoring.once import new_once_key
from scoring.views.common import sheet_of
from tests.support.tournament import build_tournament, next_round
from tournaments.errors import ServiceError
from tournaments.models import Table

pytestmark = pytest.mark.django_db


def _table(organizer: Any, chief: Any, referee: Any, **settings: Any) -> Table:
    rules = {**preset_settings("regulation"), "rounds": 5, "seed": 7, **settings}
    tournament = build_tournament(organizer, chief, [referee], settings=rules)
    rnd = next_round(tournament, organizer)
    return rnd.tables.filter(is_bye=False).order_by("number").first()


def enter(table: Table, *tokens: str) -> Table:
    for token in tokens:
        table = services.enter_event(table, token, None, table.version)
    return table


def sheet(table: Table) -> Any:
    fresh = Table.objects.select_related("round__tournament", "ns", "ew").get(pk=table.pk)
    return sheet_of(fresh, fresh.round.tournament.rules)


def refused(code: str, write: Any) -> None:
    with pytest.raises(ServiceError) as caught:
        write()
    assert caught.value.code == code


def test_a_timed_swiss_match_level_at_time_plays_the_extra_deal(organizer, chief, referee):
    table = _table(organizer, chief, referee, round_format="timed", tie="extra_deal")
    table = enter(table, "NS3")  # 5 : 2 — time may be called by submitting
    assert sheet(table).closable and not sheet(table).may_call_time
    refused("time_levels_differ", lambda: services.call_time(table, None, table.version))
    table = enter(table, "EW3")  # 5 : 5
    state = sheet(table)
    assert state.may_call_time and not state.closable
    # Submitting the level sheet would make it a draw: refused, the extra deal decides.
    refused("time_call_due", lambda: services.mark_entered(table, None, table.version))
    table = services.call_time(table, None, table.version)
    assert Table.objects.get(pk=table.pk).time_deals == 2
    state = sheet(table)
    assert state.extra_deal_next and not state.may_call_time and not state.closable
    refused("time_already_called", lambda: services.call_time(table, None, table.version))
    refused("extra_deal_due", lambda: services.mark_entered(table, None, table.version))
    # Undo takes the call back while the extra deal is not entered; then it is called again.
    table = services.undo_last_event(table, None, table.version)
    assert Table.objects.get(pk=table.pk).time_deals is None and len(sheet(table).rows) == 2
    table = services.call_time(table, None, table.version)
    table = enter(table, "EW1")  # the extra deal: East–West win the match
    state = sheet(table)
    assert state.rows[-1].extra and state.finished and state.closable and state.leader == "EW"
    refused("event_after_extra_deal", lambda: enter(table, "NS1"))  # it decided the match
    table = services.mark_entered(table, None, table.version)
    assert table.entry_status == "entered"


def test_a_counted_swiss_match_level_after_its_deals_cannot_be_a_draw(organizer, chief, referee):
    table = _table(organizer, chief, referee, deals_per_round=2, tie="extra_deal")
    table = enter(table, "NS2", "EW2")  # 4 : 4 after the two deals
    state = sheet(table)
    assert state.extra_deal_next and not state.closable and not state.may_call_time
    refused("extra_deal_due", lambda: services.mark_entered(table, None, table.version))
    refused("time_call_not_timed", lambda: services.call_time(table, None, table.version))
    table = enter(table, "NS1")
    table = services.mark_entered(table, None, table.version)
    assert table.entry_status == "entered"


def test_a_draw_stays_a_draw_without_the_extra_deal_rule(organizer, chief, referee):
    table = _table(organizer, chief, referee, round_format="timed")  # tie: draw
    table = enter(table, "NS2", "EW2")
    assert sheet(table).closable and not sheet(table).may_call_time
    refused("time_call_not_timed", lambda: services.call_time(table, None, table.version))
    table = services.mark_entered(table, None, table.version)
    assert table.entry_status == "entered"


def test_the_referees_desk_offers_the_time_call_on_a_level_swiss_table(
    organizer, chief, referee, client
):
    table = _table(organizer, chief, referee, round_format="timed", tie="extra_deal")
    client.force_login(referee)
    args = [table.round.tournament.slug, table.round.number, table.number]
    desk = reverse("referee:table", args=args)

    def post(name: str, **data: Any) -> Any:
        version = Table.objects.get(pk=table.pk).version
        return client.post(
            reverse(name, args=args), {"version": version, "once": new_once_key(), **data}
        )

    assert post("referee:table_event", token="NS2").status_code == 302
    html = client.get(desk).content.decode()
    assert 'data-testid="call-time"' not in html and 'data-testid="submit"' in html
    # The tap's JSON answer (the page's outbox) says so too: the furniture is fetched afresh.
    answer = client.post(
        reverse("referee:table_event", args=args),
        {"version": Table.objects.get(pk=table.pk).version, "token": "EW2", "once": new_once_key()},
        HTTP_ACCEPT="application/json",
    ).json()
    assert answer["state"]["may_call_time"] and not answer["state"]["closable"]
    html = client.get(desk).content.decode()
    assert 'data-testid="call-time"' in html and 'data-testid="submit"' not in html
    assert post("referee:table_call_time").status_code == 302
    html = client.get(desk).content.decode()
    assert 'data-testid="extra-deal"' in html and 'data-testid="call-time"' not in html
    assert '"time_deals": 2' in html  # the page's facts: its waiting taps replay on them
