"""What ``standings --stage K`` and ``bracket`` print (TOURNAMENT_FILE.md "Stages"), as plain
dicts: a group stage's group tables and a knockout's bracket with its placings. The pages, PDFs
and Excel of the stages read the same functions (STYLE.md: one function yields plain rows).

Reads only: ``scoring.stage_results`` (group standings, knockout matches decided game by game)
and ``pairing.stages`` (placings, the final placings).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import override

from pairing.kinds.knockout import knockout_places, knockout_seeds
from pairing.knockout import stage_shape
from pairing.stages import final_placings, stage_finished, stage_ranking
from reports.fileformat import standings_payload
from reports.pdf.lists import Column, Section
from reports.pdf.stages import KnockoutSheet, PrintedMatch, PrintedRound
from rules.events import Side
from rules.levels import level_label
from scoring.stage_results import KnockoutMatch, group_standings, knockout_matches
from scoring.standings import StandingRow
from tournaments.models import Pair, Round, Tournament
from tournaments.queries import names_by_pair
from tournaments.wording import knockout_round_label, stage_kind_label


def group_tables(tournament: Tournament, stage: int) -> dict[str, Any]:
    """``{"stage", "groups": [{"group", "rows": [...]}]}``: each group's standings rows as
    ``standings --json`` prints them."""
    groups = []
    for name, rows in group_standings(tournament, stage):
        payload = standings_payload(tournament.slug, 0, rows)
        groups.append({"group": name, "rows": payload["rows"]})
    return {"stage": stage, "groups": groups}


def _match(match: KnockoutMatch, repechage: bool = False) -> dict[str, Any]:
    games: list[list[int]] = []
    if match.series is not None:
        for result in match.series.games:
            games.append([result.level(Side.NS), result.level(Side.EW)])
    item: dict[str, Any] = {"a": match.a, "b": match.b, "winner": match.winner, "games": games}
    if match.slot == 0:
        item["third_place"] = True
    if repechage:
        item["repechage"] = True
    return item


def knockout_stages(tournament: Tournament) -> list[int]:
    """The numbers of the event's knockout stages (初赛, 复赛, 决赛 … one each): every stage whose
    kind is a bracket (``StageKind.has_bracket``)."""
    return [n for n, s in enumerate(tournament.rules.stage_list, start=1) if s.type.has_bracket]


def group_stages(tournament: Tournament) -> list[int]:
    """The numbers of the event's group stages (``StageKind.has_groups``)."""
    return [n for n, s in enumerate(tournament.rules.stage_list, start=1) if s.type.has_groups]


def knockout_stage(tournament: Tournament, wanted: int | None = None) -> int | None:
    """The knockout stage ``wanted`` (None when it is not one), or without it the event's last
    knockout stage (None when it has none)."""
    stages = knockout_stages(tournament)
    if wanted is not None:
        return wanted if wanted in stages else None
    return stages[-1] if stages else None


def bracket(tournament: Tournament, stage: int) -> dict[str, Any]:
    """``{"stage", "rounds": [{"round", "matches": [{"a", "b", "winner", "games"}]}],
    "placings": [{"place", "entrant"}]}`` — ``b`` null for a bye, ``games`` each game's
    final levels [a, b], ``winner`` once the table is confirmed; the third-place match is
    marked ``"third_place": true``, the repechage round and its matches ``"repechage": true``.
    ``placings``: the stage's places known so far, and once the event is over every entrant of
    the event (RULES.md §8 "Final placings"). A stage with ``until``, once finished, lists the
    entrants it passes on in ``"qualifiers"`` (the next stage's seeds 1, 2 …)."""
    spec = tournament.rules.stage(stage)
    rounds = []
    for index, played in enumerate(knockout_matches(tournament, stage), start=1):
        repechage = spec.is_repechage_round(index)
        item: dict[str, Any] = {"round": played[0].round}
        if repechage:
            item["repechage"] = True
        item["matches"] = [_match(m, repechage) for m in played]
        rounds.append(item)
    final = final_placings(tournament) or knockout_places(tournament, stage)
    payload: dict[str, Any] = {"stage": stage, "rounds": rounds}
    if spec.until is not None and stage_finished(tournament, stage):
        ranked, qualifying = stage_ranking(tournament, stage)
        payload["qualifiers"] = ranked[:qualifying]
    payload["placings"] = [{"place": place, "entrant": entrant} for place, entrant in final]
    return payload


# --------------------------------------------------------------------------------------------
# The pages, the PDFs and Excel: the same results with the pairs' names and the round labels.


@dataclass(frozen=True, slots=True)
class BracketSide:
    """One side of a bracket match as a page shows it."""

    number: int | None  # None: not known yet (a later round) or a bye's empty side
    name: str
    games_won: int
    won: bool


@dataclass(frozen=True, slots=True)
class BracketMatch:
    slot: int
    table: int | None
    a: BracketSide
    b: BracketSide | None  # None: a bye
    games: tuple[tuple[int, int], ...]  # each game's final levels (a, b)
    leader: int | None  # the pair that leads the match (games won), while it is undecided
    decided: bool
    third_place: bool


@dataclass(frozen=True, slots=True)
class BracketRound:
    round: int | None  # None: a round not drawn yet
    label: str
    matches: tuple[BracketMatch, ...]
    repechage: bool = False  # the stage's repechage round (附加赛)


def _side(number: int | None, names: dict[int, str], wins: int, won: bool) -> BracketSide:
    return BracketSide(number, names.get(number, "") if number is not None else "", wins, won)


def _bracket_match(match: KnockoutMatch, names: dict[int, str]) -> BracketMatch:
    series = match.series
    wins_a = series.wins(Side.NS) if series is not None else 0
    wins_b = series.wins(Side.EW) if series is not None else 0
    games: tuple[tuple[int, int], ...] = ()
    leader = None
    begun = series is not None and (
        len(series.games) > 1 or any(r.steps or r.end is not None for r in series.games)
    )
    if series is not None and begun:
        games = tuple((r.level(Side.NS), r.level(Side.EW)) for r in series.games)
        if match.winner is None and series.leader is not None:
            leader = match.a if series.leader is Side.NS else match.b
    return BracketMatch(
        slot=match.slot,
        table=match.table if match.b is not None else None,
        a=_side(match.a, names, wins_a, match.winner == match.a),
        b=None if match.b is None else _side(match.b, names, wins_b, match.winner == match.b),
        games=games,
        leader=leader,
        decided=match.winner is not None,
        third_place=match.slot == 0,
    )


def _label(matches: list[KnockoutMatch], repechage: bool, before_repechage: bool) -> str:
    """A drawn round's label: by its meetings (byes included), the round before a repechage
    by its matches only (its losers and its bye play on in the repechage)."""
    entrants = sum(2 if m.b is not None else 1 for m in matches)
    meetings = sum(1 for m in matches if m.b is not None or not before_repechage)
    return knockout_round_label(meetings, repechage=repechage, entrants=entrants)


def bracket_rounds(
    tournament: Tournament, stage: int, statuses: Collection[str] | None = None
) -> list[BracketRound]:
    """The knockout's rounds for a page or a document: the rounds drawn (only those whose
    status is in ``statuses``, when given: the public pages show no draft), then the rounds to
    come with empty meetings, down to the final (or to ``until``: the stage's last round; a
    stage with a repechage as ``pairing.knockout.stage_shape`` foresees it). The third-place
    match is a round of its own after the final's round; the repechage round is marked."""
    spec = tournament.rules.stage(stage)
    matches = [
        played
        for played in knockout_matches(tournament, stage)
        if played and (statuses is None or played[0].status in statuses)
    ]
    seeds = knockout_seeds(tournament, stage)
    numbers = {m.a for played in matches for m in played}
    numbers |= {m.b for played in matches for m in played if m.b is not None}
    names = _names(tournament, numbers)
    out: list[BracketRound] = []
    for index, played in enumerate(matches, start=1):
        main = [m for m in played if m.slot != 0]
        repechage = spec.is_repechage_round(index)
        out.append(
            BracketRound(
                played[0].round,
                _label(main, repechage, spec.repechage_after == index),
                tuple(_bracket_match(m, names) for m in main),
                repechage,
            )
        )
        third = [m for m in played if m.slot == 0]
        if third:
            label = knockout_round_label(1, third_place=True)
            match = _bracket_match(third[0], names)
            out.append(BracketRound(played[0].round, label, (match,)))
    empty = BracketSide(None, "", 0, False)

    def placeholder(meetings: int) -> tuple[BracketMatch, ...]:
        return tuple(
            BracketMatch(slot, None, empty, empty, (), None, False, False)
            for slot in range(1, meetings + 1)
        )

    if spec.repechage_after is not None:
        shape = stage_shape(len(seeds), spec.until, spec.repechage_after)
        for index, future in enumerate(shape[len(matches) :], start=len(matches) + 1):
            slots = future.matches + future.byes
            label = knockout_round_label(
                future.matches if spec.repechage_after == index else slots,
                repechage=future.repechage,
                entrants=future.entrants,
            )
            out.append(BracketRound(None, label, placeholder(slots), future.repechage))
        return out
    size = 1
    while size < len(seeds):
        size *= 2
    last = len([m for m in matches[-1] if m.slot != 0]) if matches else size
    meetings = last // 2
    while meetings >= spec.remaining and len(seeds) >= 2:
        out.append(BracketRound(None, knockout_round_label(meetings), placeholder(meetings)))
        meetings //= 2
    return out


def _names(tournament: Tournament, numbers: Collection[int]) -> dict[int, str]:
    """Pair number → "张三/李四" for the given numbers (two queries)."""
    ids = dict(
        Pair.objects.filter(tournament=tournament, number__in=list(numbers)).values_list(
            "pk", "number"
        )
    )
    return {ids[pk]: name for pk, name in names_by_pair(list(ids)).items()}


@dataclass(frozen=True, slots=True)
class GroupRow:
    place: int
    pair: int
    name: str
    row: StandingRow
    qualifies: bool


def group_rows(tournament: Tournament, stage: int) -> list[tuple[str, list[GroupRow]]]:
    """Each group's standings with the pairs' names, the qualifiers marked (the top
    ``qualify`` of the group, when a stage follows)."""
    spec = tournament.rules.stage(stage)
    follows = stage < len(tournament.rules.stage_list)
    qualify = (spec.qualify or 1) if follows else 0
    groups = group_standings(tournament, stage)
    names = _names(tournament, {row.pair for _name, rows in groups for row in rows})
    return [
        (
            name,
            [
                GroupRow(place, row.pair, names.get(row.pair, ""), row, place <= qualify)
                for place, row in enumerate(rows, start=1)
            ],
        )
        for name, rows in groups
    ]


def placings_rows(tournament: Tournament) -> list[tuple[int, int, str]]:
    """The event's final placings (RULES.md §8) as ``(place, pair, names)``; empty until the
    last stage is finished."""
    final = final_placings(tournament)
    names = _names(tournament, {pair for _place, pair in final})
    return [(place, pair, names.get(pair, "")) for place, pair in final]


@dataclass(frozen=True, slots=True)
class PathStep:
    """What one stage was for one pair: its kind, and a line of where it ended."""

    stage: int
    kind: str
    label: str
    detail: str
    matches: tuple[BracketMatch, ...] = ()


def pair_path(tournament: Tournament, number: int) -> list[PathStep]:
    """The pair's path through the stages (RULES.md §8): each stage it played with its place
    (a group stage: its group and place; a bracket: its matches; any other: its rank in the
    stage, a Swiss stage's). Empty for a one-stage event."""
    rules = tournament.rules
    if not rules.stages:
        return []
    played = set(
        Round.objects.counted().filter(tournament=tournament).values_list("stage", flat=True)
    )
    steps: list[PathStep] = []
    for stage, spec in enumerate(rules.stage_list, start=1):
        if stage not in played:
            break
        label = stage_kind_label(spec.kind)
        if spec.type.has_groups:
            for name, rows in group_rows(tournament, stage):
                for row in rows:
                    if row.pair == number:
                        detail = _("%(group)s 组第 %(place)s 名") % {
                            "group": name,
                            "place": row.place,
                        }
                        if row.qualifies and stage_finished(tournament, stage):
                            detail += " · " + _("出线")
                        steps.append(PathStep(stage, spec.kind, label, detail))
            continue
        if spec.type.has_bracket:
            mine = tuple(
                match
                for rnd in bracket_rounds(tournament, stage, Round.COUNTED)
                for match in rnd.matches
                if number in (match.a.number, match.b.number if match.b else None)
            )
            if mine:
                steps.append(PathStep(stage, spec.kind, label, "", mine))
            continue
        ranked, _q = stage_ranking(tournament, stage)
        detail = (
            _("第 %(rank)s 名") % {"rank": ranked.index(number) + 1}
            if number in ranked and stage_finished(tournament, stage)
            else _("进行中")
        )
        steps.append(PathStep(stage, spec.kind, label, detail))
    return steps


# --------------------------------------------------------------------------------------------
# Paper and Excel: the same rows, printed (Chinese whatever the interface language).


def _printed_side(side: BracketSide | None) -> str:
    if side is None:
        return "轮空"
    return f"{side.number} {side.name}" if side.number is not None else ""


def printed_bracket(tournament: Tournament, stage: int) -> list[PrintedRound]:
    """The bracket as ``reports.pdf.stages.render_bracket`` prints it (every round drawn,
    drafts included, and the rounds to come)."""
    with override("zh-hans"):
        rounds = bracket_rounds(tournament, stage)
    return [
        PrintedRound(
            rnd.label,
            [
                PrintedMatch(
                    _printed_side(m.a),
                    _printed_side(m.b),
                    " ".join(f"{level_label(a)}:{level_label(b)}" for a, b in m.games),
                    1 if m.a.won else 2 if m.b is not None and m.b.won else 0,
                )
                for m in rnd.matches
            ],
        )
        for rnd in rounds
    ]


GROUP_COLUMNS = (
    Column("名次", 1),
    Column("编号", 1),
    Column("姓名", 5, "left"),
    Column("场分", 1.4),
    Column("级差分", 1.6),
    Column("胜/平/负", 1.8),
    Column("出线", 1.2),
)


def group_sections(tournament: Tournament, stage: int) -> list[Section]:
    """One printed table a group (``render_sections``)."""
    finished = stage_finished(tournament, stage)
    return [
        Section(
            f"{tournament.name}　第{stage}阶段　{name} 组",
            "小组积分表" + ("" if finished else "（进行中）"),
            GROUP_COLUMNS,
            [
                (
                    str(r.place),
                    str(r.pair),
                    r.name,
                    _num(r.row.cf),
                    _num(r.row.jcf),
                    f"{r.row.wins}/{r.row.draws}/{r.row.losses}",
                    "出线" if r.qualifies and finished else "",
                )
                for r in rows
            ],
        )
        for name, rows in group_rows(tournament, stage)
    ]


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def knockout_sheets(tournament: Tournament, round_number: int | None) -> list[KnockoutSheet]:
    """The knockout score sheets of a round (the last knockout round when None): one a
    match, byes left out."""
    drawn_rounds = Round.objects.filter(
        tournament=tournament, stage__in=knockout_stages(tournament)
    ).order_by("-number")
    if round_number is not None:
        drawn_rounds = drawn_rounds.filter(number=round_number)
    stage = drawn_rounds.values_list("stage", flat=True).first()
    if stage is None:
        return []
    spec = tournament.rules.stage(stage)
    rules = tournament.rules.for_stage(stage)
    with override("zh-hans"):
        rounds = bracket_rounds(tournament, stage)
    drawn = [r for r in rounds if r.round is not None]
    if round_number is not None:
        drawn = [r for r in drawn if r.round == round_number]
    elif drawn:
        drawn = [r for r in drawn if r.round == drawn[-1].round]
    return [
        KnockoutSheet(
            tournament.name,
            rnd.label,
            rnd.round or 0,
            m.table or 0,
            _printed_side(m.a),
            _printed_side(m.b),
            spec.games,
            rules.deals_per_round,
        )
        for rnd in drawn
        for m in rnd.matches
        if m.b is not None and m.table is not None
    ]


def stage_sheets(tournament: Tournament) -> list[tuple[str, list[str], list[list[Any]]]]:
    """The Excel export's stage sheets: each group stage's tables, the knockout's matches and
    the final placings; none for a one-stage event."""
    if not tournament.rules.stages:
        return []
    sheets: list[tuple[str, list[str], list[list[Any]]]] = []
    for stage in group_stages(tournament):
        headers = ["小组", "名次", "编号", "姓名", "场分", "级差分", "胜", "平", "负", "出线"]
        rows = [
            [
                name,
                r.place,
                r.pair,
                r.name,
                r.row.cf,
                r.row.jcf,
                r.row.wins,
                r.row.draws,
                r.row.losses,
                "出线" if r.qualifies else "",
            ]
            for name, group in group_rows(tournament, stage)
            for r in group
        ]
        sheets.append((f"第{stage}阶段小组", headers, rows))
    knockouts = knockout_stages(tournament)
    for stage_k in knockouts:
        # One sheet a knockout stage (初赛, 复赛, 决赛 …), the repechage round among them.
        headers = ["轮次", "阶段", "桌号", "甲方", "乙方", "各局", "胜方"]
        rows = []
        for rnd in printed_bracket(tournament, stage_k):
            for m in rnd.matches:
                winner = m.a if m.won == 1 else m.b if m.won == 2 else ""
                rows.append([rnd.label, stage_k, "", m.a, m.b, m.games, winner])
        name = "淘汰赛" if len(knockouts) == 1 else f"第{stage_k}阶段淘汰赛"
        sheets.append((name, headers, rows))
    placed = placings_rows(tournament)
    if placed:
        sheets.append(
            ("最终名次", ["名次", "编号", "姓名"], [[p, n, name] for p, n, name in placed])
        )
    return sheets
