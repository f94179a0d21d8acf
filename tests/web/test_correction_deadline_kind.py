"""Issue 29 finding G: after the round's correction deadline an entry error (``error=entry``) is
refused without the chief referee's override, but the same correction declared a
published-result error (``error=published``) was accepted and logged as if no deadline had
passed — the override that RULES.md §7 asks for ("after that, results stand unless the chief
referee overrides (logged)") was bypassed by choosing the other kind.

The fix (``scoring.services._check_deadline``): once the round's entry deadline has passed, a
correction declared a published-result error is still taken within its own window (RULES.md §7:
20 minutes after the stage), but as the chief referee's decision past the entry deadline (the
one role check), and its audit entry says so (``after["overridden"]``, naming the declared kind).
"""

from __future__ import annotations

from typing import Any

import pytest

from scoring import services as scoring_services
from tests.support.corrections import FIX, corrections, ended, finished_round
from tests.support.pages import EIGHT, fresh, make_cast, tokens_of
from tournaments.errors import ServiceError
from tournaments.wording import audit_sentence


@pytest.fixture
def cast(db: Any) -> dict[str, Any]:
    return make_cast()


def test_declaring_a_published_error_does_not_skip_the_override(cast: dict[str, Any]) -> None:
    """The replay: eleven minutes after round 1 (entry deadline 10 minutes), a seven-round
    stage still on. ``error=published`` without ``override`` must not be a silent correction:
    either refused like ``error=entry``, or recorded as the override it is."""
    table = ended(finished_round(cast), 11)
    version = fresh(table).version
    with pytest.raises(ServiceError):
        scoring_services.correct_table(table, FIX, cast["chief"], "录成末游", version)
    try:
        scoring_services.correct_table(
            table, FIX, cast["chief"], "录成末游", version, error="published"
        )
    except ServiceError as refused:
        assert refused.code.startswith("correction_too_late")
        assert tokens_of(table) == EIGHT and corrections(table) == []
    else:
        (entry,) = corrections(table)
        assert "overridden" in entry.after, entry.after
        assert entry.after["overridden"]["by"] == "chief"


def test_with_the_override_it_is_corrected_and_logged(cast: dict[str, Any]) -> None:
    table = ended(finished_round(cast), 11)
    scoring_services.correct_table(
        table, FIX, cast["chief"], "申诉成立", table.version, error="published", override=True
    )
    assert tokens_of(table)[4] == "NS2"
    (entry,) = corrections(table)
    assert entry.after["overridden"]["declared"] == "published"


def test_the_log_reads_as_a_decision_past_the_entry_deadline(cast: dict[str, Any]) -> None:
    table = ended(finished_round(cast), 11)
    scoring_services.correct_table(
        table, FIX, cast["chief"], "公布成绩有误", table.version, error="published"
    )
    (entry,) = corrections(table)
    sentence = audit_sentence(entry.action, entry.before, entry.after)
    assert "录入错误的更正期限已过" in sentence and "作为公布成绩错误更正" in sentence
