"""The round clock and the referee desk (issue 15 "Projector", "Referee desk"): the round's
start, the time left and "最后一副" in the timed formats, lateness counted from the start; the
jump-to-table box, the desk's refresh stamp, who may start a round."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from scoring.clock import MINUTES_PER_DEAL, round_clock
from tests.support.pages import (
    client_for,
    make_cast,
    make_tournament,
    page_messages,
    post,
    table_url,
)
from tests.support.tournament import enter_tokens, next_round
from tournaments.models import AuditEntry, Round, Tournament

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("fmt", "minutes", "after", "left", "last", "over", "elapsed"),
    [
        ("timed", 60, timedelta(0), 3600, False, False, 0),
        ("timed", 60, timedelta(minutes=7, seconds=1), 3179, False, False, 8),
        ("timed", 60, timedelta(minutes=60 - MINUTES_PER_DEAL), 480, True, False, 52),
        ("timed_deals", 60, timedelta(minutes=59, seconds=59), 1, True, False, 60),
        ("timed", 60, timedelta(minutes=60), 0, False, True, 60),
        ("timed", 60, timedelta(hours=5), 0, False, True, 300),
        ("deals", 60, timedelta(minutes=4, seconds=30), None, False, False, 5),
        ("timed", None, timedelta(minutes=3), None, False, False, 3),
    ],
)
def test_round_clock(
    fmt: str,
    minutes: int | None,
    after: timedelta,
    left: int | None,
    last: bool,
    over: bool,
    elapsed: int,
) -> None:
    clock = round_clock(T0, minutes, fmt, T0 + after)
    assert (clock.seconds_left, clock.last_deal, clock.over) == (left, last, over)
    assert clock.elapsed_minutes == elapsed
    assert round_clock(None, 60, "timed", T0).started is False


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


@pytest.fixture
def timed(cast: dict[str, Any]) -> Round:
    """计时制, round 1 published."""
    tournament = make_tournament(cast)
    Tournament.objects.filter(pk=tournament.pk).update(
        settings={**tournament.settings, "round_format": "timed"}
    )
    tournament.refresh_from_db()
    return next_round(tournament, cast["organizer"])


def desk_url(rnd: Round, name: str = "round_dashboard") -> str:
    return reverse(f"referee:{name}", args=[rnd.tournament.slug, rnd.number])


def test_the_chief_starts_the_round_and_the_desk_counts_down(
    cast: dict[str, Any], timed: Round
) -> None:
    referee = client_for(cast["referee"])
    assert 'data-testid="start-round"' not in referee.get(desk_url(timed)).content.decode()
    assert referee.post(desk_url(timed, "round_start"), {"minutes": 50}).status_code == 403
    chief = client_for(cast["chief"])
    page = chief.get(desk_url(timed)).content.decode()
    assert 'data-testid="start-round"' in page and 'value="60"' in page  # the default length
    response = post(chief, desk_url(timed, "round_start"), {"minutes": 50})
    assert any("开始计时" in m for m in page_messages(response))
    rnd = Round.objects.get(pk=timed.pk)
    assert rnd.minutes == 50 and rnd.started_at is not None
    assert AuditEntry.objects.filter(action="start_clock", round=rnd).exists()
    html = response.content.decode()
    assert 'data-testid="clock"' in html and "剩余" in html and "50:00" in html
    # Bad lengths change nothing.
    for bad in ("0", "601", "1" * 30, "x\x00"):
        response = post(chief, desk_url(timed, "round_start"), {"minutes": bad})
        assert page_messages(response) and Round.objects.get(pk=timed.pk).minutes == 50
    # Eight minutes before the end: "最后一副" on the desk and the projector.
    Round.objects.filter(pk=timed.pk).update(started_at=timezone.now() - timedelta(minutes=43))
    assert "最后一副" in referee.get(desk_url(timed)).content.decode()
    projector = reverse("public:projector", args=[timed.tournament.slug])
    html = client_for(None).get(projector).content.decode()
    assert 'data-testid="clock"' in html and "最后一副" in html
    Round.objects.filter(pk=timed.pk).update(started_at=timezone.now() - timedelta(minutes=51))
    assert "时间到" in client_for(None).get(projector).content.decode()


def test_lateness_is_suggested_from_the_round_start(cast: dict[str, Any], timed: Round) -> None:
    table = timed.tables.filter(is_bye=False).order_by("number").first()
    referee = client_for(cast["referee"])
    assert 'data-testid="lateness-suggestion"' not in referee.get(table_url(table)).content.decode()
    Round.objects.filter(pk=timed.pk).update(
        started_at=timezone.now() - timedelta(minutes=6, seconds=30), minutes=60
    )
    response = referee.get(table_url(table))
    html = response.content.decode()
    assert "已过 7 分钟：守时方从4开始" in html
    assert response.context["lateness_form"].initial["minutes"] == 7
    Round.objects.filter(pk=timed.pk).update(started_at=timezone.now() - timedelta(minutes=12))
    assert "迟到方弃权" in referee.get(table_url(table)).content.decode()
    # Once a deal is entered the lateness form is gone for a referee (locked), not for the chief.
    enter_tokens(table, ["NS3"], cast["referee"])
    assert 'data-testid="lateness-locked"' in referee.get(table_url(table)).content.decode()
    chief_page = client_for(cast["chief"]).get(table_url(table)).content.decode()
    assert 'data-testid="lateness-locked"' not in chief_page


def test_the_desk_stamp_moves_with_every_write_and_the_jump_box_opens_a_table(
    cast: dict[str, Any], timed: Round
) -> None:
    referee = client_for(cast["referee"])
    state = referee.get(desk_url(timed, "round_state"))
    assert state.status_code == 200 and "no-store" in state["Cache-Control"]
    stamp = state.json()["stamp"]
    assert referee.get(desk_url(timed, "round_state")).json()["stamp"] == stamp
    page = referee.get(desk_url(timed) + "?show=unconfirmed").content.decode()
    assert f'data-stamp="{stamp}"' in page and 'id="desk-live"' in page
    table = timed.tables.filter(is_bye=False).order_by("number").first()
    enter_tokens(table, ["NS3"], cast["referee2"])
    assert referee.get(desk_url(timed, "round_state")).json()["stamp"] != stamp
    assert client_for(None).get(desk_url(timed, "round_state")).status_code == 302
    assert client_for(cast["outsider"]).get(desk_url(timed, "round_state")).status_code == 403
    # Jump to a table; an unknown one comes back to the desk with the filter kept.
    response = referee.get(desk_url(timed, "jump"), {"table": table.number, "show": "mine"})
    assert response.status_code == 302 and response["Location"] == table_url(table)
    for bad in ("999", "0", "x", "1" * 30, ""):
        response = referee.get(desk_url(timed, "jump"), {"table": bad, "show": "unconfirmed"})
        assert response.status_code == 302
        assert response["Location"] == desk_url(timed) + "?show=unconfirmed"
    response = referee.get(desk_url(timed, "jump"), {"table": "999"}, follow=True)
    assert any("没有第999桌" in m for m in page_messages(response))
