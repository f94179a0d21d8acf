"""A correction by one change (issue 15, ``scoring.corrections``): pure, table-driven; and the
correction deadlines' arithmetic (RULES.md §7)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from rules.errors import RuleError
from rules.events import Side
from scoring.corrections import Edit, ErrorKind, apply_edit, correction_deadline
from scoring.engine import End, Start

TOKENS = ("NS3", "EW2", "adjust:NS+2", "NS1")


@pytest.mark.parametrize(
    ("edit", "tokens"),
    [
        (Edit.replace(0, "NS2"), ("NS2", "EW2", "adjust:NS+2", "NS1")),
        (Edit.replace(3, "foul:EW"), ("NS3", "EW2", "adjust:NS+2", "foul:EW")),
        (Edit.insert(0, "EW3"), ("EW3", *TOKENS)),
        (Edit.insert(4, "EW3"), (*TOKENS, "EW3")),  # one past the last: added at the end
        (Edit.delete(2), ("NS3", "EW2", "NS1")),
        (Edit.replace(1, " EW1 "), ("NS3", "EW1", "adjust:NS+2", "NS1")),  # spelt as the core
    ],
)
def test_an_event_edit_changes_only_its_line(edit: Edit, tokens: tuple[str, ...]) -> None:
    start, end = Start(3, 2), End("forfeit", Side.EW)
    assert apply_edit(start, end, TOKENS, edit) == (start, end, tokens)


def test_start_and_end_edits_keep_the_events() -> None:
    assert apply_edit(Start(), None, TOKENS, Edit.new_start(Start(2, 4))) == (
        Start(2, 4),
        None,
        TOKENS,
    )
    end = End("penalty_loss", Side.NS)
    assert apply_edit(Start(), None, TOKENS, Edit.new_end(end)) == (Start(), end, TOKENS)
    assert apply_edit(Start(), end, TOKENS, Edit.new_end(None))[1] is None


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (Edit.replace(4, "NS3"), "bad_position"),
        (Edit.delete(4), "bad_position"),
        (Edit.delete(-1), "bad_position"),
        (Edit.insert(5, "NS3"), "bad_position"),
        (Edit.replace(0, "NS9"), "bad_token"),
        (Edit.insert(0, "ns3\x00"), "bad_token"),
    ],
)
def test_a_bad_edit_is_refused(edit: Edit, code: str) -> None:
    with pytest.raises(RuleError) as error:
        apply_edit(Start(), None, TOKENS, edit)
    assert error.value.code == code


# -- correction deadlines (RULES.md §7) ---------------------------------------------------------


def test_a_deadline_counts_from_the_round_or_the_stage() -> None:
    round_end = datetime(2026, 11, 29, 10, 0)
    stage_end = datetime(2026, 11, 29, 12, 0)
    entry = correction_deadline(ErrorKind.ENTRY, (10, 20), round_end, stage_end)
    assert entry.until == round_end + timedelta(minutes=10)
    assert not entry.passed(round_end + timedelta(minutes=10))
    assert entry.passed(round_end + timedelta(minutes=10, seconds=1))
    published = correction_deadline(ErrorKind.PUBLISHED, (10, 20), round_end, stage_end)
    assert published.until == stage_end + timedelta(minutes=20)
    # While the stage is on, its deadline has not started.
    waiting = correction_deadline(ErrorKind.PUBLISHED, (10, 20), round_end, None)
    assert waiting.until is None and not waiting.passed(datetime(2030, 1, 1))
