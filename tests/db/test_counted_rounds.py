"""The rounds that count (issue 27): published or finished, asked in one place
(``Round.objects.counted()``, ``Table.objects.counted()`` for their tables) by every page,
desk and service; a draft counts nowhere."""

from __future__ import annotations

from typing import Any

from pairing import services as pairing_services
from scoring.results import latest_round_number
from tests.support.tournament import next_round, play_round
from tournaments.models import Round, Table, Tournament


def test_counted_rounds_are_the_published_and_finished_ones(
    tournament: Tournament, organizer: Any, referee: Any, referee2: Any
) -> None:
    for _ in range(2):
        rnd = next_round(tournament, organizer)
        play_round(rnd, referee, referee2)
        pairing_services.finish_round(rnd, organizer)
    playing = next_round(tournament, organizer)
    play_round(playing, referee, referee2)
    pairing_services.finish_round(playing, organizer)
    draft = pairing_services.generate_round(tournament, organizer)
    Round.objects.filter(pk=playing.pk).update(status=Round.Status.PUBLISHED)
    statuses = dict(Round.objects.filter(tournament=tournament).values_list("number", "status"))
    assert statuses == {1: "finished", 2: "finished", 3: "published", 4: "draft"}

    counted = Round.objects.counted().filter(tournament=tournament)
    assert sorted(counted.values_list("number", flat=True)) == [1, 2, 3]
    tables = Table.objects.counted().filter(round__tournament=tournament)
    assert set(tables.values_list("round__number", flat=True)) == {1, 2, 3}
    assert draft.tables.exists() and not draft.tables.counted().exists()
    assert latest_round_number(tournament) == 3

    Round.objects.filter(pk=playing.pk).update(status=Round.Status.FINISHED)
    pairing_services.publish_round(draft, organizer)
    assert Round.objects.counted().filter(tournament=tournament).count() == 4
    assert latest_round_number(tournament) == 4
