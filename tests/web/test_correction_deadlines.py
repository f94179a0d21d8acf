"""Correction deadlines (RULES.md §7, seed 004 成绩更正时限; issue 14): an entry error within 10
minutes after the round, a published-result error within 20 minutes after the stage (a stage's
``correction_minutes`` replaces the stage part); after that a correction is refused unless the
chief referee overrides, which the audit log says in a sentence. Table-side entry before
confirmation is not affected."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import override as language

from rules.ruleset import RuleSet, preset_settings
from scoring import penalties
from scoring import services as scoring_services
from scoring.corrections import Edit
from scoring.once import new_once_key
from tests.support.corrections import FIX, corrections, ended, finished_round
from tests.support.pages import (
    EIGHT,
    client_for,
    fresh,
    identified,
    link,
    make_cast,
    page_messages,
    post,
    table_url,
    tap,
    tokens_of,
)
from tests.support.tournament import build_tournament, next_round, play_table
from tournaments import services as tournament_services
from tournaments.errors import ForbiddenError, ServiceError
from tournaments.models import Round, Table, Tournament
from tournaments.permissions import Role
from tournaments.wording import audit_sentence


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


# --------------------------------------------------------------------------------------------
# The service


def test_within_ten_minutes_an_entry_error_is_corrected(cast: dict[str, Any]) -> None:
    table = ended(finished_round(cast), 9)
    scoring_services.correct_table(table, FIX, cast["chief"], "录成末游", table.version)
    assert tokens_of(table)[4] == "NS2"
    assert "overridden" not in corrections(table)[0].after


def test_after_the_deadline_it_is_refused_and_nothing_changes(cast: dict[str, Any]) -> None:
    table = ended(finished_round(cast), 11)
    version = fresh(table).version
    with pytest.raises(ServiceError) as error:
        scoring_services.correct_table(table, FIX, cast["chief"], "录成末游", version)
    assert error.value.code == "correction_too_late_round"
    finished = timezone.localtime(fresh(table).round.finished_at).strftime("%H:%M")
    assert error.value.message == (
        f"第1轮已于 {finished} 结束，录入错误须在结束后 10 分钟内更正；"
        "更正期限已过，仅裁判长可决定超过期限更正"
    )
    assert tokens_of(table) == EIGHT and fresh(table).version == version
    assert corrections(table) == []
    # The whole result at once (the file's path) answers to the same deadline.
    with pytest.raises(ServiceError):
        scoring_services.correct_result(table, EIGHT[::-1], None, None, cast["chief"], "x")
    assert tokens_of(table) == EIGHT


def test_a_published_result_error_waits_for_the_stage(cast: dict[str, Any]) -> None:
    """Seven rounds planned: after round 1 the stage is still on, so a published-result error
    may be corrected although the round's 10 minutes are over."""
    table = ended(finished_round(cast), 60)
    scoring_services.correct_table(
        table, FIX, cast["chief"], "公布成绩有误", table.version, error="published"
    )
    assert tokens_of(table)[4] == "NS2"


def test_the_chief_overrides_and_the_log_says_so(cast: dict[str, Any]) -> None:
    table = ended(finished_round(cast), 11)
    scoring_services.correct_table(
        table, FIX, cast["chief"], "申诉成立", table.version, override=True
    )
    assert tokens_of(table)[4] == "NS2"
    (entry,) = corrections(table)
    assert entry.after["overridden"]["by"] == "chief"
    assert entry.after["overridden"]["error"] == "entry"
    until = timezone.localtime(fresh(table).round.finished_at + timedelta(minutes=10))
    sentence = audit_sentence(entry.action, entry.before, entry.after)
    assert sentence == (
        "第5副：南北上游 对家末游 → 对家三游；更正期限已过（录入错误：一轮结束后10分钟，"
        f"至 {until:%H:%M}），由裁判长 chief 决定更正"
    )
    with language("en"):
        english = audit_sentence(entry.action, entry.before, entry.after)
    assert "deadline had passed" in english and "chief referee chief" in english


def test_only_the_chief_referee_may_override(
    cast: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A referee may not correct at all; were referees allowed to correct, the override would
    still be the chief's (``DEADLINE_OVERRIDE_ROLES``, the one role check)."""
    table = ended(finished_round(cast), 11)
    with pytest.raises(ForbiddenError):
        scoring_services.correct_table(table, FIX, cast["referee"], "x", table.version)
    roles = (Role.REFEREE, Role.CHIEF_REFEREE)
    monkeypatch.setattr(scoring_services, "CORRECTION_ROLES", roles)
    with pytest.raises(ForbiddenError):
        scoring_services.correct_table(
            table, FIX, cast["referee"], "x", table.version, override=True
        )
    assert tokens_of(table) == EIGHT and corrections(table) == []
    # Within the deadline such a referee would need no override.
    table = ended(table.round, 1)
    scoring_services.correct_table(table, FIX, cast["referee"], "x", table.version)
    assert tokens_of(table)[4] == "NS2"


def stage_settings(minutes: int | None) -> dict[str, Any]:
    swiss: dict[str, Any] = {"kind": "swiss", "rounds": 1}
    if minutes is not None:
        swiss["correction_minutes"] = minutes
    stages = [swiss, {"kind": "knockout", "entrants": 4}]
    return {**preset_settings("regulation"), "seed": 20261129, "stages": stages}


def test_a_stage_sets_its_own_published_result_minutes(cast: dict[str, Any]) -> None:
    """A one-round Swiss stage is over with its round: the published-result deadline counts
    from it, 20 minutes by default, the stage's ``correction_minutes`` when it gives them."""
    table = ended(finished_round(cast, stage_settings(None)), 30)
    with pytest.raises(ServiceError) as error:
        scoring_services.correct_table(
            table, FIX, cast["chief"], "x", table.version, error="published"
        )
    assert error.value.code == "correction_too_late_stage"
    assert "第1阶段已于" in error.value.message and "20 分钟" in error.value.message
    Tournament.objects.filter(pk=table.round.tournament_id).update(settings=stage_settings(45))
    table = fresh(table)
    scoring_services.correct_table(table, FIX, cast["chief"], "x", table.version, error="published")
    assert tokens_of(table)[4] == "NS2"
    table = ended(table.round, 50)
    with pytest.raises(ServiceError) as error:
        scoring_services.correct_table(
            table, Edit.replace(4, "NS1"), cast["chief"], "x", table.version, error="published"
        )
    assert "45 分钟" in error.value.message


def test_the_event_minutes_are_settings(cast: dict[str, Any]) -> None:
    settings = {**preset_settings("regulation"), "rounds": 7, "seed": 1}
    table = ended(finished_round(cast, {**settings, "correction_minutes": {"round": 30}}), 20)
    scoring_services.correct_table(table, FIX, cast["chief"], "x", table.version)
    assert tokens_of(table)[4] == "NS2"


def test_a_round_still_on_has_no_deadline_yet(cast: dict[str, Any]) -> None:
    tournament = build_tournament(
        cast["organizer"], cast["chief"], [cast["referee"], cast["referee2"]]
    )
    rnd = next_round(tournament, cast["organizer"])
    table = play_table(table_of(rnd), EIGHT, cast["referee"], cast["referee2"])
    Round.objects.filter(pk=rnd.pk).update(published_at=timezone.now() - timedelta(hours=3))
    scoring_services.correct_table(fresh(table), FIX, cast["chief"], "x", fresh(table).version)
    assert tokens_of(table)[4] == "NS2"


def test_a_penalty_loss_is_a_ruling_not_a_late_correction(cast: dict[str, Any]) -> None:
    """判负 on a confirmed table goes through the correction service but is no error's
    correction: the deadline does not apply."""
    table = ended(finished_round(cast), 120)
    penalties.apply_penalty_loss(table.round, table.ns, cast["chief"], table=table, reason="x")
    assert fresh(table).end_kind == "penalty_loss"


def test_table_side_entry_before_confirmation_is_not_affected(cast: dict[str, Any]) -> None:
    rnd = finished_round(cast)
    ended(rnd, 600)
    rnd2 = next_round(rnd.tournament, cast["organizer"])
    Round.objects.filter(pk=rnd2.pk).update(published_at=timezone.now() - timedelta(hours=2))
    table = rnd2.tables.filter(is_bye=False).order_by("number").first()
    client = identified(table, "NS")
    for token in ("NS3", "EW2"):
        tap(client, table, token)
    client.post(
        link(table, "undo"), {"once": new_once_key(), "version": fresh(table).version}, follow=True
    )
    for token in ("EW2", *EIGHT[2:]):
        tap(client, table, token)
    assert tokens_of(table) == ["NS3", "EW2", *EIGHT[2:]]


# --------------------------------------------------------------------------------------------
# The desk


def test_the_desk_shows_the_deadline_and_the_override_to_the_chief(cast: dict[str, Any]) -> None:
    table = ended(finished_round(cast), 5)
    until = timezone.localtime(fresh(table).round.finished_at + timedelta(minutes=10))
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    assert 'data-testid="correction-deadline"' in html
    # Within 10 minutes; the published-result window has not started (the stage is on).
    assert "可更正至本阶段结束后20分钟" in html
    chief = client_for(cast["chief"])
    page = chief.get(table_url(table) + "?fix=5").content.decode()
    assert f"录入错误（至 {until:%H:%M}）" in page and 'data-testid="override"' not in page
    # A later stage: both windows have an end.
    Tournament.objects.filter(pk=table.round.tournament_id).update(
        status=Tournament.Status.FINISHED
    )
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    stage_until = until + timedelta(minutes=10)
    assert f"可更正至 {stage_until:%H:%M}" in html
    ended(table.round, 40)
    html = client_for(cast["referee"]).get(table_url(table)).content.decode()
    assert "更正期限已过，仅裁判长可更正" in html and 'data-testid="override"' not in html
    page = chief.get(table_url(table) + "?fix=5").content.decode()
    assert page.count('data-testid="override"') == 3  # the tap grid, the start, the end
    english = chief.get(table_url(table), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The correction deadline has passed" in english


def correct(client: Client, table: Table, **data: Any) -> Any:
    return post(client, table_url(table, "correct"), {"version": fresh(table).version, **data})


def test_the_desk_refuses_late_and_takes_the_chiefs_override(cast: dict[str, Any]) -> None:
    table = ended(finished_round(cast), 11)
    chief = client_for(cast["chief"])
    data = {"op": "replace", "position": 5, "token": "NS2", "reason": "对家三游"}
    response = correct(chief, table, **data)
    assert any("更正期限已过" in m for m in page_messages(response))
    assert tokens_of(table) == EIGHT
    response = correct(chief, table, **data, error="published")  # the stage is still on
    assert tokens_of(table)[4] == "NS2"
    data = {**data, "token": "NS1", "reason": "改回"}
    Tournament.objects.filter(pk=table.round.tournament_id).update(
        status=Tournament.Status.FINISHED
    )
    table = ended(table.round, 40)
    response = correct(chief, table, **data, error="published")
    assert tokens_of(table)[4] == "NS2"
    response = correct(chief, table, **data, error="published", override="1")
    assert tokens_of(table)[4] == "NS1"
    html = response.content.decode()
    assert (
        "更正期限已过（公布成绩错误：阶段结束后20分钟" in html and "由裁判长 chief 决定更正" in html
    )
    # A referee's POST is refused before any deadline is looked at.
    response = client_for(cast["referee"]).post(
        table_url(table, "correct"), {"version": fresh(table).version, **data, "override": "1"}
    )
    assert response.status_code == 403


# --------------------------------------------------------------------------------------------
# The settings


def test_the_minutes_round_trip_and_stay_editable_once_play_started(
    cast: dict[str, Any],
) -> None:
    rules = RuleSet.from_dict({"correction_minutes": {"stage": 30}})
    assert rules.to_dict()["correction_minutes"] == {"stage": 30}
    assert rules.correction_deadline_minutes(1) == (10, 30)
    assert "correction_minutes" not in RuleSet().to_dict()
    rnd = finished_round(cast)
    tournament = rnd.tournament
    url = reverse("tournaments:settings", args=[tournament.slug])
    organizer = client_for(cast["organizer"])
    page = organizer.get(url).content.decode()
    assert 'name="correction_round_minutes"' in page and "保存更正时限" in page
    form = organizer.get(url).context["form"]
    data = {name: form[name].value() for name in form.fields}
    data = {k: v for k, v in data.items() if v not in (None, False)}
    data.update(correction_round_minutes=15, correction_stage_minutes=25, deals_per_round=6)
    response = organizer.post(url, data)
    assert response.status_code == 302, page_messages(response)
    tournament.refresh_from_db()
    assert tournament.rules.correction_deadline_minutes(1) == (15, 25)
    assert tournament.rules.deals_per_round == 8  # the other fields are locked
    # The service: the minutes alone may change; with anything else it is refused.
    settings = {**tournament.settings, "correction_minutes": {"round": 5}}
    tournament_services.update_settings(tournament, settings, cast["organizer"])
    assert fresh(table_of(rnd)).round.tournament.rules.correction_round_minutes == 5
    with pytest.raises(ServiceError):
        tournament_services.update_settings(
            tournament, {**settings, "deals_per_round": 6, "correction_minutes": {}}, None
        )


def table_of(rnd: Round) -> Table:
    return rnd.tables.filter(is_bye=False).first()
