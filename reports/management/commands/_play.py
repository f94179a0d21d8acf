"""Playing tables and rounds through the services, for ``demo`` and ``simulate``.

Every write goes through ``pairing.services`` and ``scoring.services`` (STYLE.md: commands are
thin), exactly as referees would do it: start levels for lateness, one event at a time, an end for
a forfeit or 判负, "entered", then confirmed by a second person (the two-person rule), the
referee's penalty record, and finally the round is finished.
"""

from __future__ import annotations

import random
from typing import Any

from pairing import services as pairing_services
from reports.demo import complete_match, play_match, strength
from rules.events import Side
from scoring import penalties
from scoring import services as scoring_services
from scoring.engine import Start
from scoring.facts import score_games, table_facts, table_games
from tournaments.models import Round, Table

FOUL_REASONS = ("越序出牌", "出牌后收回", "看同伴的牌", "暗示同伴")
WARNING_REASONS = ("催促对手出牌", "出牌过慢", "与同伴交谈")


def _skill(pair_number: int, seed: int) -> float:
    """A pair's fixed strength (0…1), the same each time the tournament is simulated."""
    return random.Random(seed * 100_003 + pair_number).random()


def play_table(
    table: Table,
    rng: random.Random,
    enterer: Any,
    confirmer: Any,
    *,
    seed: int = 0,
    deals: int | None = None,
    enter_only: bool = False,
    penalties: bool = True,
) -> Table:
    """Enter a realistic match at ``table`` (all of it, or its first ``deals`` deals) and, unless
    ``enter_only`` or partial, mark it entered and have ``confirmer`` confirm it."""
    tournament = table.round.tournament
    rules = tournament.rules.for_stage(table.round.stage)  # the stage's format, deals, tie
    if tournament.rules.plays_series(table.round.stage):
        return play_knockout_table(table, rng, enterer, confirmer, seed=seed)
    ns, ew = table.ns.number, table.ew.number
    chance = strength(_skill(ns, seed), _skill(ew, seed))
    facts = table_facts(table)
    tokens, start = list(facts.tokens), facts.start
    end = None
    fouls: tuple[tuple[int, Side], ...] = ()
    late = None
    if tokens or table.end_kind:
        # Partly entered already: complete it with plain deals.
        new = [] if table.end_kind else complete_match(rng, rules, tokens, start, chance)
    else:
        played = play_match(rng, rules, chance, incidents=True, deals=deals)
        start, end, fouls, late = played.start or Start(), played.end, played.fouls, played.late
        new = list(played.events)
        if played.start is not None:
            table = scoring_services.set_start_levels(
                table, start.ns, start.ew, enterer, table.version
            )
    for token in new:
        table = scoring_services.enter_event(table, token, enterer, table.version)
    if end is not None:
        table = scoring_services.set_end(table, end.kind, end.side, enterer, table.version)
    if penalties:
        record_penalties(table, rng, enterer, fouls, late, end)
    if deals is not None and end is None and not table.end_kind:
        return table  # still being played
    if table.entry_status == Table.EntryStatus.OPEN:
        table = scoring_services.mark_entered(table, enterer, table.version)
    if not enter_only:
        table = scoring_services.confirm_table(table, confirmer, table.version)
    return table


def play_knockout_table(
    table: Table, rng: random.Random, enterer: Any, confirmer: Any, *, seed: int = 0
) -> Table:
    """A knockout match (RULES.md §8) played game by game through the services: each game to
    过A or its deals (the next game opens by itself at its first deal, from 2 : 2), the extra
    deal when a game ends level, until one side has won ``best_of // 2 + 1`` games; then
    entered and confirmed. Plain deals only (no incidents). Timed knockouts are not simulated."""
    tournament = table.round.tournament
    stage = tournament.rules.stage(table.round.stage)
    rules = tournament.rules.for_stage(table.round.stage)
    chance = strength(_skill(table.ns.number, seed), _skill(table.ew.number, seed))
    for _game in range(stage.games):
        played = play_match(rng, rules, chance, incidents=False)
        tokens = list(played.events) or complete_match(rng, rules, [], None, chance)
        for token in tokens:
            table = scoring_services.enter_event(table, token, enterer, table.version)
        series = _series_of(table, rules, stage.games)
        if series.winners and series.winners[-1] is None:
            # RULES.md §2 "Level tie": one extra deal from the current levels decides the game.
            extra = ("NS" if rng.random() < chance else "EW") + str(rng.choice((1, 2, 3)))
            table = scoring_services.enter_event(table, extra, enterer, table.version)
            series = _series_of(table, rules, stage.games)
        if series.winner is not None:
            break
    table = scoring_services.mark_entered(table, enterer, table.version)
    return scoring_services.confirm_table(table, confirmer, table.version)


def _series_of(table: Table, rules: Any, best_of: int) -> Any:
    fresh = Table.objects.get(pk=table.pk)
    return score_games(table_games(fresh), rules, best_of, closed=False)


def record_penalties(
    table: Table,
    rng: random.Random,
    referee: Any,
    fouls: tuple[tuple[int, Side], ...],
    late: Side | None,
    end: Any,
) -> None:
    """The referee's record of what happened at the table (RULES.md §3)."""
    tournament = table.round.tournament
    pair_of = {Side.NS: table.ns, Side.EW: table.ew}
    common = {"round": table.round, "table": table}
    for deal, offender in fouls:
        penalties.record_penalty(
            tournament, pair_of[offender], "foul", referee, deal=deal,
            reason=rng.choice(FOUL_REASONS), **common,
        )  # fmt: skip
    if end is not None and end.kind == "penalty_loss":
        penalties.record_penalty(
            tournament, pair_of[end.side], "penalty_loss", referee,
            reason="两次犯规，判负", **common,
        )  # fmt: skip
    if late is not None and end is None:
        penalties.record_penalty(
            tournament, pair_of[late], "warning", referee, reason="迟到入座", **common
        )
    roll = rng.random()
    if roll < 0.04:
        penalties.record_penalty(
            tournament, pair_of[rng.choice((Side.NS, Side.EW))], "warning", referee,
            reason=rng.choice(WARNING_REASONS), **common,
        )  # fmt: skip
    elif roll < 0.055:
        penalties.record_penalty(
            tournament, pair_of[rng.choice((Side.NS, Side.EW))], "deduction", referee,
            jcf=1, reason="越序抓牌，已插入手中", **common,
        )  # fmt: skip


def open_round(tournament: Any, user: Any) -> Round:
    """The round to play now: the published unfinished one, the draft (published now), or a
    newly generated and published one."""
    last = Round.objects.filter(tournament=tournament).order_by("-number").first()
    if last is not None and last.status == Round.Status.PUBLISHED:
        return last
    if last is not None and last.status == Round.Status.DRAFT:
        return pairing_services.publish_round(last, user)
    rnd = pairing_services.generate_round(tournament, user)
    return pairing_services.publish_round(rnd, user)


def round_tables(rnd: Round) -> list[Table]:
    return list(
        Table.objects.filter(round=rnd, is_bye=False)
        .select_related("round__tournament", "ns", "ew")
        .order_by("number")
    )


def play_round(
    tournament: Any,
    rng: random.Random,
    organizer: Any = None,
    enterer: Any = None,
    confirmer: Any = None,
    finish: bool = True,
) -> Round:
    """Play every unconfirmed table of the current round, then finish it."""
    rnd = open_round(tournament, organizer)
    seed = tournament.rules.seed or 0
    for table in round_tables(rnd):
        if table.entry_status == Table.EntryStatus.CONFIRMED:
            continue
        if table.entry_status == Table.EntryStatus.ENTERED:
            scoring_services.confirm_table(table, confirmer, table.version)
            continue
        play_table(table, rng, enterer, confirmer, seed=seed)
    if finish:
        rnd = pairing_services.finish_round(rnd, organizer)
    return rnd
