"""A table's match as its stage plays it: one game, or a best-of-n series scored game by game
(RULES.md §8, 三局两胜) — the stage kind's ``series`` (``rules.kinds``). This is the one module of
the scoring layer that knows what a kind means for entry and correction; ``scoring.services``
asks it for every step that depends on it.

- Scoring a locked table (``score_match_of``): one game by the one engine, with the extra-deal
  check when it is complete; a series game by game (``scoring.facts.score_games``), complete
  only when the match is decided.
- A tap (``check_tap``): a series' next game opens at the first event after a decided game;
  nothing follows the deciding one. The series is scored once: every game once, and the game
  the tap goes to once more with the tap.
- The referee's clock: ``start_game`` closes a timed game, ``call_time`` records time called on
  equal levels (any stage with a timed format and ``tie: extra_deal``), undo takes the call
  back (``undo_game_or_time_call``).
- Start and end changes apply to the series' current game (``current_game``); a correction
  (``corrected_games``, ``write_games``) is checked game by game, its time calls kept, the
  games after an earlier decision voided, and the bracket protected (``correct_bracket_drawn``).

Every service here opens its write with ``scoring.writes.open_table``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from django.db import transaction

from rules.errors import RuleError
from rules.events import Side, parse_event
from rules.ruleset import TIMED_FORMATS, RuleSet
from rules.stages import Stage
from scoring.engine import MatchResult, extra_deal_allowed
from scoring.facts import (
    GAME_COLUMNS,
    GameRow,
    MatchFacts,
    score_games,
    score_table,
    split_games,
    table_facts,
)
from scoring.series import Series, decide_games, game_winner, time_call_of_closed_game
from tournaments.errors import ServiceError, from_rule_error
from tournaments.models import Game, Pair, Round, Table

from .models import Via
from .writes import TableAt, cas, open_table, touched_by

# The start/end columns a game row shares with its table (``tournaments.models.Game``).
GAME_FIELDS = ("start_ns", "start_ew", "end_kind", "end_side")


def stage_rules(locked: Table) -> tuple[RuleSet, Stage]:
    """The rules a table is scored by (its stage's, ``RuleSet.for_stage``) and its stage."""
    rules = locked.round.tournament.rules
    return rules.for_stage(locked.round.stage), rules.stage(locked.round.stage)


def game_rows(locked: Table) -> list[GameRow]:
    """The table's games 2, 3 … (``GAME_COLUMNS``), in order: one query."""
    return list(locked.games.order_by("number").values_list(*GAME_COLUMNS))  # type: ignore[arg-type]


def _series(games: Sequence[MatchFacts], rules: RuleSet, stage: Stage, closed: bool) -> Series:
    try:
        return score_games(games, rules, stage.games, closed)
    except RuleError as exc:
        raise from_rule_error(exc) from exc


def score_match_of(
    locked: Table, facts: MatchFacts, complete: bool, rows: list[GameRow] | None = None
) -> MatchResult:
    """Score a table's facts by its stage's rules. A series is scored game by game
    (``scoring.series``; ``rows``: its game rows when already read); complete, its match must
    be decided (a level tie needs the extra deal, a best of three its second win). Returns the
    (last) game's result."""
    rules, stage = stage_rules(locked)
    if not stage.type.series:
        return _one_game(facts, rules, complete)
    games = split_games(facts, game_rows(locked) if rows is None else rows)
    return _decided(_series(games, rules, stage, complete), stage, complete).games[-1]


def _one_game(facts: MatchFacts, rules: RuleSet, complete: bool) -> MatchResult:
    try:
        result = score_table(facts, rules, complete=complete)
    except RuleError as exc:
        raise from_rule_error(exc) from exc
    if complete:
        _extra_deal_check(result, facts, rules)
    return result


def _decided(series: Series, stage: Stage, complete: bool) -> Series:
    if complete and series.winner is None:
        raise ServiceError("match_not_decided", games=len(series.games), best_of=stage.games)
    return series


def _extra_deal_check(result: MatchResult, facts: MatchFacts, rules: RuleSet) -> None:
    """RULES.md §2 "Level tie" with ``tie: extra_deal``: a match level after its last regular
    deal, or level when time is called, is decided by one more deal — it cannot be submitted as
    a draw. (A series is checked by its match: ``match_not_decided``.)"""
    if rules.tie != "extra_deal" or result.passed_a is not None or result.end is not None:
        return
    if result.table_ns_level != result.table_ew_level or result.extra_deal:
        return
    if extra_deal_allowed(result, facts.rules(rules)):
        raise ServiceError("extra_deal_due")
    if rules.round_format in TIMED_FORMATS and facts.time_deals is None:
        raise ServiceError("time_call_due")


def check_tap(locked: Table, facts: MatchFacts, token: str) -> None:
    """Check one more event (``token``) after the table's ``facts`` with the engine, before it
    is saved. In a series played best of more than one: when the current game is over and the
    match is not, the event opens the next game (a ``Game`` row; game 2 starts from 2 : 2);
    when the match is decided, nothing may follow. The series is scored once: each game as it
    stands (every game but the last complete, as ``score_games`` does), then only the game the
    event goes to, with it."""
    rules, stage = stage_rules(locked)
    new_tokens = (*facts.tokens, token)
    if not stage.type.series:
        _one_game(facts.with_tokens(new_tokens), rules, complete=False)
        return
    rows = game_rows(locked)
    if stage.games == 1:
        score_match_of(locked, facts.with_tokens(new_tokens), False, rows)
        return
    games = split_games(facts, rows)
    before = _series(games, rules, stage, closed=False)
    if before.winner is not None:
        raise ServiceError("match_decided")
    results = list(before.games)
    if before.next_game is not None:
        # The current game is over (and so scored as complete): the event opens the next.
        Game.objects.create(table=locked, number=before.next_game, first_position=len(facts.tokens))
        current = MatchFacts.from_columns(tokens=(token,))
    else:
        current = games[-1].with_tokens((*games[-1].tokens, token))
        results.pop()
    try:
        last = score_table(current, rules)
        results.append(last)
        decide_games(results, current.rules(rules), stage.games, closed=False)
    except RuleError as exc:
        raise from_rule_error(exc) from exc


def start_game(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    via: str = Via.REFEREE,
    *,
    pair: Pair | int | None = None,
) -> Table:
    """Close the current game of a best-of-n knockout match and open the next one — for a
    timed game, which only the referee ends (a game over by 过A or its deals opens the next
    by itself at the next event). The current game must have a winner."""
    with transaction.atomic():
        locked, pair = open_table(table, user, expected_version, via=via, pair=pair)
        rules, stage = stage_rules(locked)
        if not stage.type.series or stage.games == 1:
            raise ServiceError("not_best_of")
        facts = table_facts(locked)
        games = split_games(facts, game_rows(locked))
        series = _series(games, rules, stage, closed=False)
        if series.next_game is None and series.winner is None:
            # A timed game: closing it decides it (its facts must be complete).
            series = _series(games, rules, stage, closed=True)
        if series.winner is not None:
            raise ServiceError("match_decided")
        if series.next_game is None:
            raise ServiceError("game_not_decided", game=len(series.games))
        Game.objects.create(table=locked, number=series.next_game, first_position=len(facts.tokens))
        fields = {"entry_status": Table.EntryStatus.OPEN}
        cas(locked, **touched_by(locked, user, fields))
    return locked


def call_time(
    table: Table | TableAt,
    user: Any,
    expected_version: int | None,
    via: str = Via.REFEREE,
    *,
    pair: Pair | int | None = None,
) -> Table:
    """RULES.md §2 "Level tie": the referee calls time on a timed match or knockout game (计时制
    / 计时计副制, ``tie: extra_deal``, any stage) whose levels are equal — the deals played are
    its regular deals and one extra deal follows, which decides it (``MatchFacts.time_deals``,
    ``RuleSet.at_time``). With unequal levels time is called by closing the game
    (``start_game``) or submitting the sheet; undo takes the call back while the extra deal is
    not entered."""
    with transaction.atomic():
        locked, pair = open_table(table, user, expected_version, via=via, pair=pair)
        rules, stage = stage_rules(locked)
        if rules.round_format not in TIMED_FORMATS or rules.tie != "extra_deal":
            raise ServiceError("time_call_not_timed")
        if locked.end_kind:
            raise ServiceError("table_ended")
        facts = table_facts(locked)
        fields: dict[str, Any] = {"entry_status": Table.EntryStatus.OPEN}
        if not stage.type.series:
            if facts.time_deals is not None:
                raise ServiceError("time_already_called")
            result = _one_game(facts, rules, complete=False)
            if result.table_ns_level != result.table_ew_level or result.passed_a is not None:
                raise ServiceError("time_levels_differ")
            fields["time_deals"] = result.deals_played
            cas(locked, **touched_by(locked, user, fields))
            return locked
        rows = game_rows(locked)
        games = split_games(facts, rows)
        series = _series(games, rules, stage, closed=False)
        if series.winner is not None:
            raise ServiceError("match_decided")
        if series.next_game is not None:
            # The game before is over and the next has no deal yet: time is called at 2 : 2.
            Game.objects.create(
                table=locked,
                number=series.next_game,
                first_position=len(facts.tokens),
                time_deals=0,
            )
        else:
            result = series.games[-1]
            if games[-1].time_deals is not None:
                raise ServiceError("time_already_called")
            if (
                result.table_ns_level != result.table_ew_level
                or result.passed_a is not None
                or result.end is not None
            ):
                raise ServiceError("time_levels_differ")
            if rows:
                Game.objects.filter(table=locked, number=len(rows) + 1).update(
                    time_deals=result.deals_played
                )
            else:
                fields["time_deals"] = result.deals_played
        cas(locked, **touched_by(locked, user, fields))
    return locked


def undo_game_or_time_call(locked: Table, tokens: Sequence[str], user: Any) -> bool:
    """Undo before the last event: a series' last game that has no event yet is removed (undo
    opens the game before it again), or a time call not yet followed by the extra deal
    (``call_time``) is taken back. False when neither applies (undo removes the last event)."""
    if stage_rules(locked)[1].type.series:
        empty_game = locked.games.filter(first_position__gte=len(tokens)).order_by("-number")
        if empty_game.exists():
            empty_game.first().delete()  # type: ignore[union-attr]
            cas(locked, **touched_by(locked, user, {"entry_status": Table.EntryStatus.OPEN}))
            return True
    rows = game_rows(locked)
    current = split_games(table_facts(locked, tokens), rows)[-1]
    if current.time_deals is None:
        return False
    deals = sum(1 for token in current.tokens if parse_event(token).is_deal)
    if deals > current.time_deals:
        return False
    fields: dict[str, Any] = {"entry_status": Table.EntryStatus.OPEN}
    if rows:
        Game.objects.filter(table=locked, number=len(rows) + 1).update(time_deals=None)
    else:
        fields["time_deals"] = None
    cas(locked, **touched_by(locked, user, fields))
    return True


def match_games(locked: Table, facts: MatchFacts) -> tuple[MatchFacts, ...]:
    """The table's facts game by game: one game, or a series' games (its game rows read)."""
    return split_games(facts, game_rows(locked) if stage_rules(locked)[1].type.series else [])


def current_game(locked: Table, facts: MatchFacts) -> tuple[MatchFacts, list[GameRow]]:
    """The facts a start or end change applies to: the table's, or a series' current game (its
    last game row's start and end), with the series' game rows (none for one game)."""
    if not stage_rules(locked)[1].type.series:
        return facts, []
    rows = game_rows(locked)
    return (split_games(facts, rows)[-1] if rows else facts), rows


def change_current_game(locked: Table, fields: dict[str, Any]) -> dict[str, Any]:
    """Write a start or end change to a series' current game (its ``Game`` row) and check the
    match with it; returns the fields left for the table row."""
    current = locked.games.order_by("-number").first()
    assert current is not None
    game_fields = {k: fields.pop(k) for k in list(fields) if k in GAME_FIELDS}
    Game.objects.filter(pk=current.pk).update(**game_fields)
    score_match_of(locked, table_facts(locked), complete=False)
    return fields


# -- corrections (RULES.md §7, §8) --------------------------------------------------------------


def corrected_games(
    locked: Table,
    old: tuple[MatchFacts, ...],
    new: tuple[MatchFacts, ...],
    whole: bool,
) -> tuple[MatchFacts, ...]:
    """A corrected match checked as its stage plays it: one game complete by the engine; a
    series game by game, its time calls kept (``_corrected_time_calls``), the games after an
    earlier decision voided (not for a ``whole`` result given anew), the match decided, and the
    bracket protected (``_check_bracket``). Returns the games to store."""
    rules, stage = stage_rules(locked)
    if not stage.type.series:
        if len(new) != 1:
            raise ServiceError("not_best_of")
        _one_game(new[0], rules, complete=True)
        return new
    new = _corrected_time_calls(old, new, rules, whole)
    if not whole:
        new = _void_games_after_decision(new, rules, stage)
    winner = _decided(_series(new, rules, stage, closed=True), stage, True).winner
    assert winner is not None
    _check_bracket(locked, old, rules, stage, winner)
    return new


def write_games(locked: Table, games: tuple[MatchFacts, ...]) -> None:
    """Store a corrected series' games 2, 3 … (game 1 is the table row itself)."""
    if not stage_rules(locked)[1].type.series:
        return
    Game.objects.filter(table=locked).delete()
    first_position = len(games[0].tokens)
    for number, game in enumerate(games[1:], start=2):
        Game.objects.create(
            table=locked,
            number=number,
            first_position=first_position,
            start_ns=game.start.ns,
            start_ew=game.start.ew,
            end_kind=game.end.kind if game.end is not None else "",
            end_side=str(game.end.side) if game.end is not None else "",
            time_deals=game.time_deals,
        )
        first_position += len(game.tokens)


def _corrected_time_calls(
    old: tuple[MatchFacts, ...], new: tuple[MatchFacts, ...], rules: RuleSet, whole: bool
) -> tuple[MatchFacts, ...]:
    """A corrected timed knockout game's time call (``call_time``): kept on its last deal (the
    extra deal) while the levels before it are still equal; otherwise, and for a whole result
    given anew, read as the file reads it (``scoring.series.time_call_of_closed_game``: only a
    game that its levels leave undecided)."""
    if rules.round_format not in TIMED_FORMATS or rules.tie != "extra_deal":
        return tuple(replace(game, time_deals=None) for game in new)
    out = []
    for index, game in enumerate(new):
        had_call = not whole and index < len(old) and old[index].time_deals is not None
        try:
            time_deals = time_call_of_closed_game(game.tokens, rules, game.start, game.end)
            if time_deals is not None and not had_call:
                plain = score_table(replace(game, time_deals=None), rules, complete=True)
                if game_winner(plain) is not None:
                    time_deals = None
        except RuleError:
            time_deals = None  # the engine refuses the game itself below
        out.append(replace(game, time_deals=time_deals))
    return tuple(out)


def _void_games_after_decision(
    games: tuple[MatchFacts, ...], rules: RuleSet, stage: Stage
) -> tuple[MatchFacts, ...]:
    """A correction that decides a best-of-n match earlier (RULES.md §8: nothing follows the
    deciding game): the games after the deciding one should not have been played and go with
    the correction (the audit keeps their deals in ``before``)."""
    while True:
        try:
            score_games(games, rules, stage.games, closed=True)
        except RuleError as exc:
            after = exc.params.get("game") if exc.code == "game_after_match" else None
            if isinstance(after, int) and 1 < after <= len(games):
                games = games[: after - 1]
                continue
        return games


def _check_bracket(
    locked: Table, old: tuple[MatchFacts, ...], rules: RuleSet, stage: Stage, winner: Side
) -> None:
    """RULES.md §5 and §8: a knockout correction may change the games and levels, but not who
    goes on once any later round is drawn — the stage's next round (its meetings were made
    from this winner, or this loser's third-place match or repechage) or, after a stage that
    stopped at ``until``, the next stage's (its entrants were this stage's survivors):
    refused, naming that round."""
    try:
        before = score_games(old, rules, stage.games, closed=True).winner
    except RuleError:
        before = None
    if before is winner:
        return
    later = (
        Round.objects.filter(
            tournament_id=locked.round.tournament_id, number__gt=locked.round.number
        )
        .order_by("number")
        .values_list("number", flat=True)
        .first()
    )
    if later is not None:
        raise ServiceError("correct_bracket_drawn", round=later)
