"""The one standings cache (issue 10) and its recomputation (issue 18): what it returns equals
a fresh computation; a confirmation in the last round leaves the earlier rounds' entries
alone; after a change one process recomputes while pages keep the previous standings, marked
with their time; two concurrent recomputations run the computation once — and twice with
the lock switched off, so the tests mean something."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connections

from pairing import services as pairing_services
from scoring import cache as standings_cache
from scoring import penalties, penalty_records, results, services
from scoring.cache import CompactStandings, cached_standings
from scoring.standings import StandingRow
from tests.support.tournament import NS_WINS, next_round, play_round
from tests.support.tournament import play_table as play
from tournaments.models import Round, Table, Tournament

EW_WINS = ["EW3", "EW3", "EW3", "EW3", "EW2"]


def fresh(tournament: Tournament, after_round: int) -> tuple[Any, ...]:
    tournament.refresh_from_db()
    return results.standings_from_db(tournament.pk, tournament.rules, after_round)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The computations run by the cache, by round, from an empty cache."""
    cache.clear()
    calls: list[int] = []
    compute = standings_cache.compute

    def counting(source: Any) -> CompactStandings:
        calls.append(source.after_round)
        return compute(source)

    monkeypatch.setattr(standings_cache, "compute", counting)
    return calls


@pytest.fixture
def three_rounds(tournament: Tournament, organizer: Any, referee: Any, referee2: Any) -> Round:
    """Rounds 1 and 2 played and finished; round 3 published with its first table confirmed."""
    for _ in range(2):
        rnd = next_round(tournament, organizer)
        play_round(rnd, referee, referee2)
        pairing_services.finish_round(rnd, organizer)
    rnd = next_round(tournament, organizer)
    play(rnd.tables.get(number=1), NS_WINS, referee, referee2)
    return rnd


def test_cached_rows_equal_a_fresh_computation(three_rounds: Round) -> None:
    tournament = three_rounds.tournament
    for after in (0, 1, 2, 3, None):
        expected = fresh(tournament, 3 if after is None else after)
        miss = cached_standings(tournament, after_round=after)
        hit = cached_standings(tournament, after_round=after)
        page = cached_standings(tournament, after_round=after, provisional=True)
        for rows in (miss, hit, page):
            assert rows == expected and list(rows) == list(expected)
            assert rows.current and rows.as_of is not None
        assert hit[2:5] == list(expected[2:5]) and len(hit) == 8
    assert cached_standings(tournament) != fresh(tournament, 2)


def test_a_confirmation_in_the_last_round_leaves_the_earlier_rounds_alone(
    three_rounds: Round, referee: Any, referee2: Any, counted: list[int]
) -> None:
    tournament = three_rounds.tournament
    for after in (1, 2, 3):
        cached_standings(tournament, after_round=after)
    assert counted == [1, 2, 3]
    stored = {after: cache.get(_latest_key(tournament, after)) for after in (1, 2, 3)}
    play(three_rounds.tables.get(number=2), NS_WINS, referee, referee2)
    for after in (1, 2, 3):
        assert cached_standings(tournament, after_round=after) == fresh(tournament, after)
        assert cached_standings(tournament, after_round=after, provisional=True).current
    assert counted == [1, 2, 3, 3]  # round 3 recomputed once, rounds 1 and 2 not at all
    assert [cache.get(_latest_key(tournament, a)) for a in (1, 2)] == [stored[1], stored[2]]
    assert cache.get(_latest_key(tournament, 3)) != stored[3]
    assert cache.get(stored[3]) is None  # the replaced entry is dropped


def test_a_correction_in_round_one_invalidates_every_later_round(
    three_rounds: Round, chief: Any, counted: list[int]
) -> None:
    tournament = three_rounds.tournament
    for after in (1, 2, 3):
        cached_standings(tournament, after_round=after)
    table = Table.objects.get(round__tournament=tournament, round__number=1, number=1)
    services.correct_result(table, EW_WINS, None, None, chief, "记分表抄错")
    for after in (1, 2, 3):
        assert cached_standings(tournament, after_round=after) == fresh(tournament, after)
    assert counted == [1, 2, 3, 1, 2, 3]


def test_a_deduction_invalidates_its_round_and_the_later_ones_only(
    three_rounds: Round, chief: Any, counted: list[int]
) -> None:
    tournament = three_rounds.tournament
    for after in (1, 2, 3):
        cached_standings(tournament, after_round=after)
    round2 = tournament.rounds.get(number=2)
    pair = tournament.pairs.get(number=1)
    penalty = penalties.record_penalty(
        tournament, pair, "deduction", chief, jcf=1, reason="迟到", round=round2
    )
    for after in (1, 2, 3):
        assert cached_standings(tournament, after_round=after) == fresh(tournament, after)
    assert counted == [1, 2, 3, 2, 3]
    assert cached_standings(tournament, after_round=2).rows_of([1])[1].deductions == 1
    # Withdrawn (issue 11: never deleted), the deduction stops counting at once.
    penalty_records.withdraw_penalty(penalty, chief, "误判")
    assert cached_standings(tournament, after_round=2).rows_of([1])[1].deductions == 0
    assert cached_standings(tournament, after_round=3) == fresh(tournament, 3)


def test_a_new_pair_invalidates_every_round(
    three_rounds: Round, organizer: Any, counted: list[int]
) -> None:
    from tournaments.services import register_pair

    tournament = three_rounds.tournament
    cached_standings(tournament, after_round=1)
    register_pair(tournament, ["迟到甲", "迟到乙"], organizer)
    rows = cached_standings(tournament, after_round=1)
    assert len(rows) == 9 and rows == fresh(tournament, 1)
    assert counted == [1, 1]


def _latest_key(tournament: Tournament, after: int) -> Any:
    home = f"{tournament.pk}:{tournament.created_at.timestamp():.6f}"
    return f"standings-latest:{standings_cache.SCHEMA}:{home}:{after}"


# --------------------------------------------------------------------------------------------
# Only one process recomputes; pages keep the previous standings meanwhile


def _without_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(standings_cache, "_acquire", lambda lock, token: True)


@pytest.mark.parametrize("lock", [True, False], ids=["with the lock", "control: no lock"])
def test_a_page_arriving_during_a_recomputation_gets_the_previous_standings(
    three_rounds: Round,
    referee: Any,
    referee2: Any,
    monkeypatch: pytest.MonkeyPatch,
    lock: bool,
) -> None:
    """Deterministic interleaving: a second page asks while the first one's recomputation is
    inside the computation."""
    tournament = three_rounds.tournament
    before = cached_standings(tournament, provisional=True)
    play(three_rounds.tables.get(number=2), NS_WINS, referee, referee2)
    tournament.refresh_from_db()
    if not lock:
        _without_lock(monkeypatch)
    compute = standings_cache.compute
    calls: list[int] = []
    meanwhile: list[CompactStandings] = []

    def interleaved(source: Any) -> CompactStandings:
        calls.append(source.after_round)
        if len(calls) == 1:  # the second page arrives now
            meanwhile.append(cached_standings(tournament, provisional=True))
        return compute(source)

    monkeypatch.setattr(standings_cache, "compute", interleaved)
    first = cached_standings(tournament, provisional=True)
    assert first.current and first == fresh(tournament, 3) and first != before
    (second,) = meanwhile
    if lock:
        assert calls == [3]
        assert not second.current and second.as_of == before.as_of and second == before
    else:
        assert calls == [3, 3] and second.current  # computed twice: what the lock prevents
    # The previous standings were not kept under the new version: the next page is current.
    third = cached_standings(tournament, provisional=True)
    assert third.current and third == first and calls == ([3] if lock else [3, 3])


def test_a_provisional_page_says_so_and_is_not_kept(
    three_rounds: Round, referee: Any, referee2: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.test import Client
    from django.urls import reverse
    from django.utils.timezone import localtime

    tournament = three_rounds.tournament
    before = cached_standings(tournament, provisional=True)
    # The pages show the standings after the last complete round: complete round 3.
    for table in three_rounds.tables.filter(is_bye=False, number__gt=1):
        play(table, NS_WINS, referee, referee2)
    monkeypatch.setattr(standings_cache, "_acquire", lambda lock, token: False)  # held elsewhere
    client = Client()
    for url in (
        reverse("public:standings", args=[tournament.slug]),
        reverse("public:projector", args=[tournament.slug]) + "?show=standings",
        reverse("public:pair", args=[tournament.slug, 1]),
    ):
        response = client.get(url)
        html = response.content.decode()
        assert "名次正在更新" in html, url
        assert before.as_of is not None
        assert localtime(before.as_of).strftime("%H:%M:%S") in html
        assert "private" in response["Cache-Control"] and "public" not in response["Cache-Control"]
    monkeypatch.undo()
    html = client.get(reverse("public:standings", args=[tournament.slug])).content.decode()
    assert "名次正在更新" not in html


def _race(*calls: Callable[[], Any]) -> list[Any]:
    barrier = threading.Barrier(len(calls), timeout=30)
    results: list[Any] = [None] * len(calls)

    def worker(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # reported by the assertion below
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("lock", [True, False], ids=["with the lock", "control: no lock"])
def test_two_concurrent_recomputations_compute_once(
    organizer: Any,
    chief: Any,
    referee: Any,
    referee2: Any,
    monkeypatch: pytest.MonkeyPatch,
    lock: bool,
) -> None:
    """Two threads, each with its own database connection, ask for the same standings at once
    with nothing cached: one computes, the other waits for its result."""
    from tests.support.tournament import build_tournament

    tournament = build_tournament(organizer, chief, [referee, referee2], slug="race")
    rnd = next_round(tournament, organizer)
    play_round(rnd, referee, referee2)
    cache.clear()
    if not lock:
        _without_lock(monkeypatch)
    compute = standings_cache.compute
    calls: list[int] = []
    entered = threading.Event()

    def slow(source: Any) -> CompactStandings:
        calls.append(source.after_round)
        entered.set()
        threading.Event().wait(0.5)  # long enough for the other thread to arrive
        return compute(source)

    monkeypatch.setattr(standings_cache, "compute", slow)
    results = _race(
        lambda: cached_standings(tournament, after_round=1),
        lambda: cached_standings(tournament, after_round=1),
    )
    expected = fresh(tournament, 1)
    assert all(isinstance(r, CompactStandings) and r == expected and r.current for r in results)
    assert calls == ([1] if lock else [1, 1])


# --------------------------------------------------------------------------------------------
# The incremental computation (issue 18): the kept state after the round before, advanced


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """From an empty cache: the rounds computed from everything (``cold``) and how many
    tables each read of scored tables scored (``scored``)."""
    cache.clear()
    seen: dict[str, list[int]] = {"cold": [], "scored": []}
    cold, scored = standings_cache._cold_state, standings_cache.scored_tables

    def counting_cold(source: Any) -> Any:
        seen["cold"].append(source.after_round)
        return cold(source)

    def counting_scored(*args: Any, **kwargs: Any) -> Any:
        tables = scored(*args, **kwargs)
        seen["scored"].append(len(tables))
        return tables

    monkeypatch.setattr(standings_cache, "_cold_state", counting_cold)
    monkeypatch.setattr(standings_cache, "scored_tables", counting_scored)
    return seen


def _all_equal_fresh(tournament: Tournament, last: int = 3) -> None:
    for after in range(last + 1):
        assert cached_standings(tournament, after_round=after) == fresh(tournament, after), after
    assert cached_standings(tournament) == fresh(tournament, last)


def test_one_confirmation_advances_the_kept_state_and_scores_one_table(
    three_rounds: Round, referee: Any, referee2: Any, spied: dict[str, list[int]]
) -> None:
    tournament = three_rounds.tournament
    first = cached_standings(tournament, after_round=3)
    assert first == fresh(tournament, 3) and spied["cold"] == [3]
    for number in (2, 3):
        play(three_rounds.tables.get(number=number), EW_WINS, referee, referee2)
        tournament.refresh_from_db()  # as the next page request loads it
        rows = cached_standings(tournament, after_round=3, provisional=True)
        assert rows.current and rows == fresh(tournament, 3) and rows != first
        assert spied["cold"] == [3]  # the state after round 2 was reused …
        assert spied["scored"][-1] == 1  # … and only the confirmed table scored
    _all_equal_fresh(tournament)


def test_the_state_after_a_finished_round_serves_the_next(
    three_rounds: Round, spied: dict[str, list[int]]
) -> None:
    tournament = three_rounds.tournament
    assert cached_standings(tournament, after_round=2) == fresh(tournament, 2)
    assert cached_standings(tournament, after_round=3) == fresh(tournament, 3)
    assert spied["cold"] == [2]  # round 3 advanced the state kept after round 2
    assert spied["scored"][-1] == three_rounds.tables.filter(entry_status="confirmed").count()


def test_a_correction_in_round_one_rebuilds_the_kept_state(
    three_rounds: Round, chief: Any, spied: dict[str, list[int]]
) -> None:
    tournament = three_rounds.tournament
    before = cached_standings(tournament, after_round=3)
    table = Table.objects.get(round__tournament=tournament, round__number=1, number=1)
    services.correct_result(table, EW_WINS, None, None, chief, "记分表抄错")
    after = cached_standings(tournament, after_round=3)
    assert after == fresh(tournament, 3) and after != before
    assert spied["cold"] == [3, 3]
    _all_equal_fresh(tournament)


def test_a_correction_in_the_round_in_progress_rescores_that_table_only(
    three_rounds: Round, chief: Any, spied: dict[str, list[int]]
) -> None:
    tournament = three_rounds.tournament
    before = cached_standings(tournament, after_round=3)
    table = three_rounds.tables.get(number=1)
    services.correct_result(table, EW_WINS, None, None, chief, "记分表抄错")
    after = cached_standings(tournament, after_round=3)
    assert after == fresh(tournament, 3) and after != before
    assert spied["cold"] == [3] and spied["scored"][-1] == 1


@pytest.mark.parametrize("jcf", [1, 0.5])
def test_deductions_of_this_round_advance_and_earlier_ones_rebuild(
    three_rounds: Round, chief: Any, spied: dict[str, list[int]], jcf: float
) -> None:
    tournament = three_rounds.tournament
    cached_standings(tournament, after_round=3)
    pair = tournament.pairs.get(number=1)
    # A deduction of the round in progress: passed to ``advance``, the kept state reused.
    this = penalties.record_penalty(
        tournament, pair, "deduction", chief, jcf=jcf, reason="迟到", round=three_rounds
    )
    rows = cached_standings(tournament, after_round=3)
    assert rows == fresh(tournament, 3) and rows.rows_of([1])[1].deductions == jcf
    assert spied["cold"] == [3]
    # Withdrawn, it stops counting at once.
    penalty_records.withdraw_penalty(this, chief, "误判")
    assert cached_standings(tournament, after_round=3) == fresh(tournament, 3)
    assert spied["cold"] == [3]
    # A deduction of round 2, then one without a round: the kept state is built again.
    round2 = tournament.rounds.get(number=2)
    earlier = penalties.record_penalty(
        tournament, pair, "deduction", chief, jcf=jcf, reason="迟到", round=round2
    )
    assert cached_standings(tournament, after_round=3) == fresh(tournament, 3)
    assert spied["cold"] == [3, 3]
    penalties.record_penalty(tournament, pair, "deduction", chief, jcf=jcf, reason="违纪")
    assert cached_standings(tournament, after_round=3) == fresh(tournament, 3)
    assert spied["cold"] == [3, 3, 3]
    penalty_records.withdraw_penalty(earlier, chief, "误判")
    _all_equal_fresh(tournament)
    assert cached_standings(tournament, after_round=3).rows_of([1])[1].deductions == jcf


def test_a_new_pair_rebuilds_the_kept_state(
    three_rounds: Round, organizer: Any, spied: dict[str, list[int]]
) -> None:
    from tournaments.services import register_pair

    tournament = three_rounds.tournament
    cached_standings(tournament, after_round=3)
    register_pair(tournament, ["迟到甲", "迟到乙"], organizer)
    rows = cached_standings(tournament, after_round=3)
    assert len(rows) == 9 and rows == fresh(tournament, 3)
    assert spied["cold"] == [3, 3]
    _all_equal_fresh(tournament)


def test_other_settings_rescore_every_kept_table(
    three_rounds: Round, spied: dict[str, list[int]]
) -> None:
    """Settings are locked once a round is published, but an edit in the admin (or a repair
    of the database) must not leave tables scored under the old scale in the cache."""
    from tournaments.services import bump_results_version

    tournament = three_rounds.tournament
    before = cached_standings(tournament, after_round=3)
    settings = {**tournament.settings, "scale": "28"}
    Tournament.objects.filter(pk=tournament.pk).update(settings=settings)
    bump_results_version(tournament.pk)
    # The standings after round 2 first: they keep a state after round 2 under the new
    # settings, which the standings after round 3 then advance with round 3's tables — kept
    # scored under the old settings, so they must be scored again.
    assert cached_standings(tournament, after_round=2) == fresh(tournament, 2)
    after = cached_standings(tournament, after_round=3)
    assert after == fresh(tournament, 3) and after != before
    assert spied["cold"] == [3, 2]
    _all_equal_fresh(tournament)


def test_a_local_copy_is_used_only_while_the_shared_cache_names_it(
    three_rounds: Round, spied: dict[str, list[int]]
) -> None:
    """Each process keeps what it last kept or loaded (no unpickling next time), but the shared
    cache decides: another process's newer entry is read, a cleared cache is a cold start."""
    tournament = three_rounds.tournament
    cached_standings(tournament, after_round=3)
    home = f"{tournament.pk}:{tournament.created_at.timestamp():.6f}"
    pointer = f"standings-tables:{standings_cache.SCHEMA}:{home}:3"
    key, value = standings_cache._LOCAL[pointer]
    assert cache.get(pointer) == key and standings_cache._kept(pointer) is value
    cache.set(pointer, "another-process", 60)
    cache.set("another-process", ("theirs", {}), 60)
    assert standings_cache._kept(pointer) == ("theirs", {})
    cache.clear()
    assert standings_cache._kept(pointer) is None
    assert cached_standings(tournament, after_round=3) == fresh(tournament, 3)
    assert spied["cold"] == [3, 3]


# --------------------------------------------------------------------------------------------
# The schema: what an entry holds, in every key


def test_entries_written_under_another_schema_are_never_read(
    three_rounds: Round, spied: dict[str, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deploy that changes what an entry holds (``SCHEMA``) reads nothing an older one wrote:
    the standings, their pointers, the kept states and the kept scored tables are all computed
    again, exactly as from an empty cache."""
    tournament = three_rounds.tournament
    monkeypatch.setattr(standings_cache, "SCHEMA", "old-deploy")
    for after in (1, 2, 3, None):
        cached_standings(tournament, after_round=after, provisional=True)
    from_empty = {name: list(seen) for name, seen in spied.items()}
    assert from_empty["cold"] and from_empty["scored"]
    spied["cold"].clear()
    spied["scored"].clear()
    monkeypatch.setattr(standings_cache, "SCHEMA", "new-deploy")
    for after in (1, 2, 3, None):
        rows = cached_standings(tournament, after_round=after, provisional=True)
        assert rows.key is not None and rows.key.startswith("standings:new-deploy:"), rows.key
    assert spied == from_empty
    _all_equal_fresh(tournament)


def test_a_field_added_to_what_is_stored_changes_the_schema() -> None:
    @dataclasses.dataclass(frozen=True)
    class WiderRow(StandingRow):
        flag: bool = False

    kinds = (StandingRow, standings_cache.Outcome, standings_cache.StandingsState)
    assert standings_cache.layout_schema(3, *kinds) == standings_cache.layout_schema(3, *kinds)
    wider = (WiderRow, *kinds[1:])
    assert standings_cache.layout_schema(3, *wider) != standings_cache.layout_schema(3, *kinds)
    assert standings_cache.layout_schema(4, *kinds) != standings_cache.layout_schema(3, *kinds)
