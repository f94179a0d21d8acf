"""A group or knockout stage is over when its last round is finished, not when the next stage
starts (RULES.md §7: published-result errors within 20 minutes after the stage). The round that
ends a stage is marked when it is finished (``Round.ends_stage``, ``pairing.services.
finish_round``); the stage's correction deadline counts from it at once."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from reports.fileio import import_tournament
from scoring import services as scoring_services
from scoring.deadlines import stage_finished_at
from tests.support.stages import load, staged_file
from tournaments.errors import ServiceError
from tournaments.models import Round, Table

pytestmark = pytest.mark.django_db


def test_a_group_stage_ends_with_its_last_round():
    stages = [
        {"kind": "round_robin", "groups": 1, "qualify": 2},
        {"kind": "knockout", "entrants": 2},
    ]
    tournament = import_tournament(staged_file(4, stages), slug="groups")
    call_command("simulate", "groups", "--rounds", "3", "--seed", "1", stdout=io.StringIO())
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    assert [(r.stage, r.status, r.ends_stage) for r in rounds] == [
        (1, "finished", False),
        (1, "finished", False),
        (1, "finished", True),  # every meeting of the group played: the stage is over
    ]
    last = rounds[-1]
    assert stage_finished_at(rounds[0]) == last.finished_at  # no knockout round yet
    # 21 minutes later a published-result error of the group stage is too late.
    Round.objects.filter(tournament=tournament).update(
        finished_at=timezone.now() - timedelta(minutes=21)
    )
    table = Table.objects.filter(round=rounds[0], is_bye=False).order_by("number").first()
    tokens = list(table.events.order_by("position").values_list("token", flat=True))
    fixed = [("EW1" if t == "NS1" else "NS1" if t == "EW1" else t) for t in tokens]
    with pytest.raises(ServiceError) as error:
        scoring_services.correct_result(table, fixed, None, None, None, "x", error="published")
    assert error.value.code == "correction_too_late_stage"


def test_an_imported_stage_that_is_over_is_marked_so():
    tournament = import_tournament(load("group-stage.json"), slug="file")
    marks = list(Round.objects.filter(tournament=tournament).values_list("ends_stage", flat=True))
    assert marks == [False, False, True]
    assert stage_finished_at(Round.objects.get(tournament=tournament, number=1)) is not None
