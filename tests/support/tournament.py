"""A small tournament built through the services, and rounds played the way referees play
them: one enters, another confirms (the database, web and browser tests share these).

``build_tournament``: the regulation preset, 8 pairs in 3 units (南京 ×3, 苏州 ×3, 无锡 ×2),
7 rounds planned, the chief referee and the referees given their roles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.contrib.auth import get_user_model

from pairing import services as pairing_services
from rules.ruleset import preset_settings
from scoring import services as scoring_services
from scoring.engine import MatchResult
from scoring.facts import score_table, table_facts
from tournaments import services as tournament_services
from tournaments.models import Round, Table, Tournament
from tournaments.permissions import Role


def make_user(username: str) -> Any:
    return get_user_model().objects.create_user(username=username, password="pw-" + username)


NAMES = [
    ("张伟", "王芳"),
    ("李娜", "刘洋"),
    ("陈静", "杨磊"),
    ("赵强", "黄敏"),
    ("周杰", "吴丽"),
    ("徐涛", "孙燕"),
    ("马超", "朱琳"),
    ("胡军", "郭红"),
]

UNITS = [("NJ", "南京"), ("SZ", "苏州"), ("WX", "无锡")]

UNIT_OF = ["NJ", "NJ", "NJ", "SZ", "SZ", "SZ", "WX", "WX"]

# Eight deals in which North–South ends ahead (2 → 8 against 2 → 4): a complete NS win.
NS_WINS = ["NS3", "NS2", "EW2", "EW1", "NS1", "EW1", "NS1", "EW1"]


def build_tournament(
    organizer: Any,
    chief: Any,
    referees: Sequence[Any],
    n_pairs: int = 8,
    slug: str = "autumn-open",
    settings: dict[str, Any] | None = None,
) -> Tournament:
    if settings is None:
        settings = {**preset_settings("regulation"), "rounds": 7, "seed": 20261129}
    t = tournament_services.create_tournament(
        "2026 秋季掼蛋公开赛", slug, organizer, settings=settings
    )
    tournament_services.grant_role(t, chief, Role.CHIEF_REFEREE, organizer)
    for ref in referees:
        tournament_services.grant_role(t, ref, Role.REFEREE, organizer)
    for code, name in UNITS:
        tournament_services.add_unit(t, code, name, organizer)
    for i in range(n_pairs):
        names = NAMES[i % len(NAMES)]
        players = [f"{names[0]}{i // 8 or ''}", f"{names[1]}{i // 8 or ''}"]
        tournament_services.register_pair(t, players, organizer, unit=UNIT_OF[i % len(UNIT_OF)])
    return t


def enter_tokens(table: Table, tokens: Sequence[str], user: Any) -> Table:
    for token in tokens:
        table = scoring_services.enter_event(table, token, user, table.version)
    return table


def play_table(
    table: Table, tokens: Sequence[str], enterer: Any, confirmer: Any, *, confirm: bool = True
) -> Table:
    table = enter_tokens(table, tokens, enterer)
    table = scoring_services.mark_entered(table, enterer, table.version)
    if confirm:
        table = scoring_services.confirm_table(table, confirmer, table.version)
    return table


def play_round(
    rnd: Round,
    enterer: Any,
    confirmer: Any,
    tokens_for: Callable[[Table], Sequence[str]] | None = None,
) -> None:
    """Enter and confirm every match table of a published round."""
    for table in rnd.tables.filter(is_bye=False).order_by("number"):
        tokens = tokens_for(table) if tokens_for else NS_WINS
        play_table(table, tokens, enterer, confirmer)


def next_round(tournament: Tournament, organizer: Any) -> Round:
    """Generate and publish the next round."""
    rnd = pairing_services.generate_round(tournament, organizer)
    return pairing_services.publish_round(rnd, organizer)


def result_of(table: Any) -> MatchResult:
    """A table's (possibly provisional) result from its stored facts, as the pages score it."""
    return score_table(table_facts(table), table.round.tournament.rules, complete=False)
