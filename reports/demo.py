"""Realistic random results and tournaments, for the demo, ``simulate`` and the benchmarks.

Pure (standard library and the core only) and driven by a seeded ``random.Random``, so a demo or a
benchmark file is reproducible. A match is a plausible sequence of deals (RULES.md §1): the
stronger pair wins more deals, upgrades are mostly +1/+2 with the odd 双下 (+3), a foul
(``foul:NS``) or a referee's level award (``adjust:EW+2``) now and then, and the match stops at
once when a side passes A (RULES.md §2). Rarely a table starts late (start levels 3 or 4),
forfeits or ends in 判负.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.events import Event, Side, parse_event
from rules.progression import TableState, apply_event, initial_state
from rules.ruleset import RuleSet
from scoring.engine import End, Start, match_outcomes, score_match

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程魏苏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦傅方邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"  # noqa: E501
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华建国志红文斌鹏辉玲宇浩凯健俊帆雪琳晨欣丹峰"
CITIES = (
    "南京",
    "苏州",
    "无锡",
    "常州",
    "徐州",
    "南通",
    "扬州",
    "镇江",
    "泰州",
    "淮安",
    "盐城",
    "连云港",
    "宿迁",
    "合肥",
    "杭州",
    "上海",
)
CITY_CODES = (
    "NJ",
    "SZ",
    "WX",
    "CZ",
    "XZ",
    "NT",
    "YZ",
    "ZJ",
    "TZ",
    "HA",
    "YC",
    "LYG",
    "SQ",
    "HF",
    "HZ",
    "SH",
)


def person_name(rng: random.Random) -> str:
    """A plausible Chinese name: a surname and one or two given characters."""
    given = "".join(rng.choice(GIVEN) for _ in range(rng.choice((1, 2, 2))))
    return rng.choice(SURNAMES) + given


@dataclass(frozen=True, slots=True)
class PlayedTable:
    """What happened at one table: the start levels, the events (tokens) and an end, if any."""

    events: tuple[str, ...]
    start: Start | None = None
    end: End | None = None
    late: Side | None = None  # the side that came late (for the referee's record)
    fouls: tuple[tuple[int, Side], ...] = field(default=())  # (deal number, offender)


def deal_limit(rules: RuleSet) -> int:
    """How many deals a simulated match may have: the round's number (计副制), until 过A
    (计局制: practically unbounded), or about an hour's play (计时制: 8 deals)."""
    if rules.max_deals is not None:
        return rules.max_deals
    return 10_000 if rules.round_format == "game" else 8


def _apply(state: TableState, event: Event, rules: RuleSet) -> TableState:
    """One event under the tournament's A rules and upgrades (the engine's own progression);
    in a deal-points match (RULES.md §9) nobody passes A: the levels are not followed."""
    if rules.deal_points:
        return state
    return apply_event(
        state,
        event,
        rules.a_rule,
        rules.a_attempts,
        rules.a_fail_count,
        rules.a_pass,
        rules.upgrades.values,
    ).state


def complete_match(
    rng: random.Random,
    rules: RuleSet,
    tokens: Sequence[str],
    start: Start | None = None,
    ns_strength: float = 0.5,
) -> list[str]:
    """The deals to add to a partly entered table so that its match is complete."""
    state = initial_state(*(start.ns, start.ew) if start else (2, 2), rules.lateness.start_levels)
    played = 0
    for token in tokens:
        event = parse_event(token)
        played += event.is_deal
        state = _apply(state, event, rules)
    extra: list[str] = []
    while state.passed_a is None and played < deal_limit(rules):
        extra.append(_deal_token(rng, ns_strength))
        played += 1
        state = _apply(state, parse_event(extra[-1]), rules)
    return extra


def _deal_token(rng: random.Random, ns_strength: float) -> str:
    side = "NS" if rng.random() < ns_strength else "EW"
    upgrade = rng.choices((1, 2, 3), weights=(38, 42, 20))[0]
    return f"{side}{upgrade}"


def play_match(
    rng: random.Random,
    rules: RuleSet,
    ns_strength: float = 0.5,
    incidents: bool = True,
    deals: int | None = None,
) -> PlayedTable:
    """A whole match (``deals`` caps the number of deals for a table still being played).

    ``ns_strength`` is the chance that North–South win a deal (0.5: even pairs).
    """
    start = None
    late = None
    if incidents:
        roll = rng.random()
        if roll < 0.004:  # RULES.md §2: over 10 minutes late → that side forfeits
            side = rng.choice((Side.NS, Side.EW))
            return PlayedTable((), None, End("forfeit", side), late=side)
        if roll < 0.03:  # late a few minutes: what the event's lateness rule says
            late = rng.choice((Side.NS, Side.EW))
            ruling = rules.lateness.ruling(rng.choice((3, 3, 7)))
            if ruling.kind in ("forfeit", "penalty_loss"):
                return PlayedTable((), None, End(ruling.kind, late), late=late)
            if ruling.kind == "start":
                level = ruling.level
                start = Start(2, level) if late is Side.NS else Start(level, 2)
    limit = deal_limit(rules)
    if deals is not None:
        limit = min(limit, deals)
    state = initial_state(*(start.ns, start.ew) if start else (2, 2), rules.lateness.start_levels)
    tokens: list[str] = []
    fouls: list[tuple[int, Side]] = []
    played = 0
    while played < limit:
        roll = rng.random() if incidents else 1.0
        if roll < 0.015:
            tokens.append(f"adjust:{rng.choice(('NS', 'EW'))}+{rng.choice((1, 2, 2, 3))}")
        elif roll < 0.04:
            offender = rng.choice((Side.NS, Side.EW))
            tokens.append(f"foul:{offender}")
            played += 1
            fouls.append((played, offender))
        else:
            tokens.append(_deal_token(rng, ns_strength))
            played += 1
        state = _apply(state, parse_event(tokens[-1]), rules)
        if state.passed_a is not None:
            break
    end = None
    # RULES.md §2: no 判负 once a side has passed A (the match is over).
    if incidents and rng.random() < 0.004 and tokens and state.passed_a is None:
        end = End("penalty_loss", rng.choice((Side.NS, Side.EW)))
    return PlayedTable(tuple(tokens), start, end, late, tuple(fouls))


def strength(skill_ns: float, skill_ew: float) -> float:
    """The chance that North–South win a deal, from the two pairs' skills (0…1)."""
    return min(0.8, max(0.2, 0.5 + (skill_ns - skill_ew) * 0.35))


def _pair_greedy(
    order: Sequence[int], met: dict[int, set[int]], rng: random.Random
) -> list[tuple[int, int]] | None:
    """High against high, skipping opponents already met; None if it got stuck."""
    free = list(order)
    tables = []
    while free:
        a = free.pop(0)
        for index, b in enumerate(free):
            if b not in met[a]:
                tables.append((a, b))
                free.pop(index)
                break
        else:
            return None
    return tables


def _pair_search(
    order: Sequence[int], met: dict[int, set[int]], budget: int = 100_000
) -> list[tuple[int, int]] | None:
    """Depth-first search for a pairing without rematches (small fields, where greedy fails)."""
    steps = 0

    def search(free: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not free:
            return []
        a, rest = free[0], free[1:]
        for index, b in enumerate(rest):
            steps += 1
            if steps > budget:
                return None
            if b in met[a]:
                continue
            found = search(rest[:index] + rest[index + 1 :])
            if found is not None:
                return [(a, b), *found]
        return None

    return search(list(order))


def swiss_like_round(
    ranking: Sequence[int], met: dict[int, set[int]], had_bye: set[int], rng: random.Random
) -> tuple[list[tuple[int, int]], int | None]:
    """A quick Swiss-style pairing for synthetic files (no rematch; the bye to the lowest pair
    without one). The real engine is ``pairing.swiss``; this one only has to be legal and fast."""
    order = list(ranking)
    bye = None
    if len(order) % 2:
        bye = next((p for p in reversed(order) if p not in had_bye), order[-1])
        order.remove(bye)
    for attempt in range(50):
        if attempt:
            # Shuffle a little inside the ranking and try again.
            order = sorted(order, key=lambda p: order.index(p) + rng.uniform(0, 4 * attempt))
        tables = _pair_greedy(order, met, rng)
        if tables is not None:
            return tables, bye
    tables = _pair_search(order, met)
    if tables is not None:
        return tables, bye
    raise RuntimeError("could not pair without a rematch")


def synthetic_file(
    pairs: int,
    rounds: int,
    seed: int = 1,
    finished: int | None = None,
    units: int = 16,
    name: str | None = None,
    planned: int | None = None,
) -> dict[str, Any]:
    """A whole tournament file (TOURNAMENT_FILE.md) with ``pairs`` pairs and ``rounds`` played
    rounds of realistic results, a few withdrawals and deductions — for benchmarks and tests.
    ``planned`` rounds (default ``rounds``); rounds after ``finished`` are published only."""
    rng = random.Random(seed)
    rules = RuleSet.from_dict({"rounds": max(rounds, planned or 0), "seed": seed})
    finished = rounds if finished is None else finished
    unit_list = [
        {
            "id": CITY_CODES[k % len(CITY_CODES)] + (str(k // len(CITY_CODES)) if k >= 16 else ""),
            "name": CITIES[k % len(CITIES)] + (str(k // len(CITIES)) if k >= 16 else ""),
        }
        for k in range(units)
    ]
    skill = {p: rng.random() for p in range(1, pairs + 1)}
    pair_list = [
        {
            "id": p,
            "players": [person_name(rng), person_name(rng)],
            "unit": rng.choice(unit_list)["id"] if rng.random() < 0.9 else None,
            "status": "active",
        }
        for p in range(1, pairs + 1)
    ]
    active = set(skill)
    met: dict[int, set[int]] = {p: set() for p in skill}
    had_bye: set[int] = set()
    cf: dict[int, float] = dict.fromkeys(skill, 0.0)
    round_list = []
    penalties: list[dict[str, Any]] = []
    for number in range(1, rounds + 1):
        ranking = sorted(active, key=lambda p: (-cf[p], rng.random()))
        tables, bye = swiss_like_round(ranking, met, had_bye, rng)
        status = "finished" if number <= finished else "published"
        items: list[dict[str, Any]] = []
        for k, (a, b) in enumerate(tables, start=1):
            ns, ew = (a, b) if rng.random() < 0.5 else (b, a)
            played = play_match(rng, rules, strength(skill[ns], skill[ew]))
            table: dict[str, Any] = {"table": k, "ns": ns, "ew": ew}
            if played.start is not None:
                table["start"] = {"ns": played.start.ns, "ew": played.start.ew}
            table["deals"] = list(played.events)
            if played.end is not None:
                table["end"] = {played.end.kind: played.end.side.value.lower()}
            items.append(table)
            met[a].add(b)
            met[b].add(a)
            if status == "finished":
                result = score_match(played.events, rules, played.start, played.end)
                for outcome in match_outcomes(number, ns, ew, result):
                    cf[outcome.pair] += outcome.cf
            for deal, offender in played.fouls:
                pair = ns if offender is Side.NS else ew
                penalties.append(
                    {
                        "round": number,
                        "table": k,
                        "pair": pair,
                        "kind": "foul",
                        "deal": deal,
                        "reason": "犯规",
                        "referee": "裁判",
                    }
                )
            if rng.random() < 0.01:
                penalties.append(
                    {
                        "round": number,
                        "pair": rng.choice((ns, ew)),
                        "kind": "deduction",
                        "jcf": 1,
                        "reason": "越序抓牌，已插入手中",
                    }
                )
        if bye is not None:
            items.append({"bye": bye})
            had_bye.add(bye)
            cf[bye] += rules.bye.cf
        round_list.append({"number": number, "status": status, "tables": items})
        if number < rounds and rng.random() < 0.5 and len(active) > 4:
            gone = rng.choice(sorted(active))
            active.discard(gone)
            pair_list[gone - 1]["status"] = "withdrawn"
    return {
        "format": "guandan-tournament",
        "version": 1,
        "name": name or f"模拟赛 {pairs}对{rounds}轮",
        "settings": rules.to_dict(),
        "units": unit_list,
        "pairs": pair_list,
        "teams": [],
        "rounds": round_list,
        "penalties": penalties,
    }
