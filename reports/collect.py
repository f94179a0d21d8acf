"""Build the plain rows of ``reports.rows`` from the database (read only).

The rows' texts are the printed documents' Chinese (an official form is Chinese whatever the
interface language); messages to the user go through gettext.

Every query of the printed and exported documents lives here, written to stay a handful of
queries whatever the size (``values_list`` and one pass over all events), so 2,000 pairs ×
9 rounds export in seconds. Nothing here writes; results are derived by the pure scoring engine
from the stored facts, exactly as ``scoring.services`` does; the standings come from
``scoring.cache.cached_standings`` (confirmed results only).

May touch: read-only queries on the tournaments, pairing and scoring models; the pure core.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from rules.errors import RuleError
from rules.events import EventKind, Side
from rules.levels import level_label
from rules.ruleset import RuleSet
from scoring.engine import MatchResult
from scoring.facts import (
    GameRow,
    MatchFacts,
    games_by_table,
    score_games,
    score_table,
    split_games,
    tokens_by_table,
)
from scoring.models import Penalty, TableEvent
from scoring.standings import CRITERIA, PRESETS, resolve_criteria
from tournaments.errors import ServiceError
from tournaments.models import AuditEntry, Game, Pair, Player, Round, Table, Team, Tournament
from tournaments.wording import (
    CUSTOM_PRESET,
    PRINTED_EXTRA_DEAL,
    PRINTED_UPGRADES_NOTE,
    RESULT_STATES,
    TIEBREAK_PRESETS,
    penalty_kind_label,
    printed_criterion,
    printed_end,
    printed_event_note,
    printed_place,
    printed_sheet_hint,
    printed_side,
    printed_table_state,
    table_state,
)

from .rows import (
    DealLine,
    DealRecord,
    MatchLine,
    MatchSummary,
    PairInfo,
    PairingLine,
    PairingList,
    PairSlip,
    PenaltyLine,
    PenaltyReport,
    RegistrationLine,
    ResultLine,
    ScoreSheet,
    StandingLine,
    Standings,
    StandingsColumn,
    Workbook,
)
from .settings_doc import round_format_label, settings_block
from .stages import stage_sheets

# Blank lines on a sheet when the round has no fixed number of deals (计局制/计时制).
OPEN_FORMAT_ROWS = 14
# The table-side entry page; its QR code goes on the score sheet.
ENTRY_URL_NAME = "tableside:tableside"


class ReportError(ServiceError):
    """A document cannot be produced (no such round …): ``message`` is for the user."""


# --- pairs --------------------------------------------------------------------------------


def pair_infos(tournament: Tournament) -> dict[int, PairInfo]:
    """Every pair of the tournament by primary key, with unit and players: two queries."""
    players: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for pair_id, position, name in Player.objects.filter(pair__tournament=tournament).values_list(
        "pair_id", "position", "name"
    ):
        players[pair_id].append((position, name))
    infos = {}
    rows = Pair.objects.filter(tournament=tournament).values_list(
        "pk", "number", "unit__name", "unit__code", "code"
    )
    for pk, number, unit_name, unit_code, code in rows:
        names = tuple(name for _, name in sorted(players.get(pk, ())))
        infos[pk] = PairInfo(number, unit_name or unit_code or "", names, code)
    return infos


FIND_URL_NAME = "public:find"
CHECKIN_URL_NAME = "tournaments:checkin_scan"


def pair_slips(tournament: Tournament, base_url: str | None = None) -> list[PairSlip]:
    """Every pair's slip in pair-number order (withdrawn pairs too: a slip is printed once, at
    registration). The QR code opens "find my table" for the pair: its table, seat and
    opponents in the round being played."""
    base = site_url() if base_url is None else base_url.rstrip("/")
    find = reverse(FIND_URL_NAME, args=[tournament.slug])
    infos = sorted(pair_infos(tournament).items(), key=lambda item: item[1].number)
    tokens = dict(Pair.objects.filter(tournament=tournament).values_list("pk", "checkin_token"))
    return [
        PairSlip(
            tournament.name,
            info,
            f"{base}{find}?q={info.number}",
            # 签到: the desk scans the slip (``tournaments:checkin_scan``, issue 15 part A) — the
            # pair's check-in token, never its code (issue 29).
            base + reverse(CHECKIN_URL_NAME, args=[tournament.slug, tokens[pk]]),
        )
        for pk, info in infos
    ]


def get_round(tournament: Tournament, number: int | None) -> Round:
    """The given round, or the latest one; ``ReportError`` when there is none."""
    rounds = Round.objects.filter(tournament=tournament)
    rnd = rounds.filter(number=number).first() if number else rounds.order_by("-number").first()
    if rnd is None:
        if number:
            raise ReportError("unknown_round", round=number)
        raise ReportError("no_rounds")
    return rnd


# --- teams (RULES.md §6) --------------------------------------------------------------------


def team_of_pairs(tournament: Tournament) -> dict[int, tuple[str, str]]:
    """A team event's pairs by primary key → (their team's name, its unit): one query."""
    return {
        pair: (name, unit_name or unit_code or "")
        for pair, name, unit_name, unit_code in Team.pairs.through.objects.filter(
            team__tournament=tournament
        ).values_list("pair_id", "team__name", "team__unit__name", "team__unit__code")
    }


def _match_label(t: _TableFacts) -> str:
    """ "团体赛 第3场 甲桌（另一桌：第6桌）" for a table of match m (tables 2m − 1 and 2m)."""
    if t.match is None:
        return ""
    first = t.number == 2 * t.match - 1
    other = t.number + 1 if first else t.number - 1
    return f"团体赛 第{t.match}场 {'甲桌' if first else '甲1桌'}（另一桌：第{other}桌）"


def match_lines(
    tables: list[_TableFacts], teams: dict[int, tuple[str, str]]
) -> tuple[MatchLine, ...]:
    """The team matches of a round's tables: home is the team NS at table 2m − 1."""
    by_match: dict[int, list[_TableFacts]] = defaultdict(list)
    for t in tables:
        if t.match is not None:
            by_match[t.match].append(t)
    lines = []
    for match, listed in sorted(by_match.items()):
        first = min(listed, key=lambda t: t.number)
        home = teams.get(first.ns_id, ("", ""))
        away = teams.get(first.ew_id or 0, ("", ""))
        numbers = tuple(sorted(t.number for t in listed))
        lines.append(MatchLine(match, home[0], away[0], numbers, home[1], away[1]))
    return tuple(lines)


# --- events → sheet lines -----------------------------------------------------------------


_LABELS = {level: level_label(level) for level in range(2, 16)}


def _label(level: int | None) -> str:
    return "" if level is None else _LABELS.get(level) or level_label(level)


def deal_lines(result: MatchResult) -> tuple[DealLine, ...]:
    """The score sheet's deal grid from the engine's steps (RULES.md §7): a deal beyond the
    regular deals (the round's, or those before time was called) is the extra deal of a level
    tie, marked 加打; the upgrades are the event's (RULES.md §9); a deal-points match prints
    the sides' points where the levels would be."""
    lines = []
    limit = result.regular_deals
    label = str if result.points is not None else _label
    gains = (3, 2, 1) if result.points is not None else result.upgrades_table
    for step in result.steps:
        event = step.event
        note = ""
        first = place = ""
        if event.kind is EventKind.DEAL:
            first = printed_side(event.side)
            place = printed_place(event.upgrade)
        else:
            note = printed_event_note(event)
        if limit is not None and step.deal_number is not None and step.deal_number > limit:
            note = (note + " " if note else "") + PRINTED_EXTRA_DEAL
        if step.attempt_at_a is not None and step.reset_to_2 is not None:
            note = (note + " " if note else "") + f"{printed_side(step.reset_to_2)}打A失败回2"
        lines.append(
            DealLine(
                deal_number=step.deal_number,
                level_played=_label(step.level_played),
                first_side=first,
                partner_place=place,
                upgrade=event.upgrade
                if event.kind is EventKind.ADJUST
                else gains[3 - event.upgrade],
                ns_level=label(step.ns_level),
                ew_level=label(step.ew_level),
                note=note,
            )
        )
    return tuple(lines)


def match_summary(result: MatchResult) -> MatchSummary:
    """The result boxes: recorded levels, 级差, 级差分, 场分 and what decided the match. A late
    scoresheet's side prints 0 场分 and 0 级差分 (``result.cf``/``jcf``, RULES.md §2) and the note
    names it before anything else."""
    if result.forfeit is not None:
        note = f"{printed_side(result.forfeit)}弃权"
    elif result.penalty_loss is not None:
        note = f"{printed_side(result.penalty_loss)}判负"
    elif result.late_sheet is not None:
        note = f"{printed_side(result.late_sheet)}迟交记分表（按弃权记分）"
    elif result.passed_a is not None:
        note = f"{printed_side(result.passed_a)}过A"
    elif result.winner is not None:
        note = f"{printed_side(result.winner)}胜"
    else:
        note = "平局"
    ns_shown, ew_shown = result.points or (result.ns_level, result.ew_level)
    label = str if result.points is not None else _label
    return MatchSummary(
        ns_level=label(ns_shown),
        ew_level=label(ew_shown),
        jc=result.jc,
        ns_jcf=result.ns_jcf,
        ew_jcf=result.ew_jcf,
        ns_cf=result.ns_cf,
        ew_cf=result.ew_cf,
        note=note,
        end=printed_end(result.end.kind) if result.end is not None else "",
        extra_deal=result.extra_deal,
    )


@dataclass(frozen=True, slots=True)
class _TableFacts:
    pk: int
    round_number: int
    number: int
    is_bye: bool
    ns_id: int
    ew_id: int | None
    start_ns: int
    start_ew: int
    end_kind: str
    end_side: str
    entry_status: str
    entry_token: str
    confirmed_at: Any
    confirmed_by: str | None
    confirmed_via: str
    match: int | None  # a team event's match (tables 2m − 1 and 2m)
    stage: int
    time_deals: int | None


_FACT_FIELDS = (
    "pk",
    "round__number",
    "number",
    "is_bye",
    "ns_id",
    "ew_id",
    "start_ns",
    "start_ew",
    "end_kind",
    "end_side",
    "entry_status",
    "entry_token",
    "confirmed_at",
    "confirmed_by__username",
    "confirmed_via",
    "match",
    "round__stage",
    "time_deals",
)


def _tables(tournament: Tournament, round_number: int | None = None) -> list[_TableFacts]:
    qs = Table.objects.filter(round__tournament=tournament)
    if round_number is not None:
        qs = qs.filter(round__number=round_number)
    qs = qs.order_by("round__number", "number")
    return [_TableFacts(*row) for row in qs.values_list(*_FACT_FIELDS)]


def _tokens(tournament: Tournament, round_number: int | None = None) -> dict[int, list[str]]:
    qs = TableEvent.objects.filter(table__round__tournament=tournament)
    if round_number is not None:
        qs = qs.filter(table__round__number=round_number)
    return tokens_by_table(qs)


def _games(tournament: Tournament, round_number: int | None = None) -> dict[int, list[GameRow]]:
    """Games 2, 3 … of the knockout tables (``scoring.facts.games_by_table``), one query."""
    qs = Game.objects.filter(table__round__tournament=tournament)
    if round_number is not None:
        qs = qs.filter(table__round__number=round_number)
    return games_by_table(qs)


def _scored(
    t: _TableFacts, tokens: list[str], rules: RuleSet, games: dict[int, list[GameRow]]
) -> tuple[MatchSummary, tuple[DealLine, ...]] | None:
    """A confirmed table's result boxes and deal lines, scored as ``scoring.services`` does: by
    its stage's rules (``RuleSet.for_stage``), with the referee's time call, and a knockout
    match game by game (each game's lines after a "第n局" mark; the boxes are the deciding
    game's, the note says the match)."""
    staged = rules.for_stage(t.stage)
    facts = MatchFacts.from_columns(
        t.start_ns, t.start_ew, t.end_kind, t.end_side, tokens=tokens, time_deals=t.time_deals
    )
    try:
        if not rules.plays_series(t.stage):
            result = score_table(facts, staged)
            return match_summary(result), deal_lines(result)
        played = split_games(facts, games.get(t.pk, []))
        series = score_games(played, staged, rules.stage(t.stage).games, closed=True)
    except RuleError:
        # Stored facts are validated on entry; a table that no longer scores (settings changed
        # under it) prints blank rather than stopping the whole run.
        return None
    lines: list[DealLine] = []
    for number, result in enumerate(series.games, start=1):
        shown = deal_lines(result)
        if number > 1 and shown:
            mark = f"第{number}局"
            shown = (replace(shown[0], note=f"{mark} {shown[0].note}".strip()), *shown[1:])
        lines.extend(shown)
    summary = match_summary(series.games[-1])
    if series.winner is not None and series.best_of > 1:
        won = series.wins(series.winner)
        lost = series.wins(Side.EW if series.winner is Side.NS else Side.NS)
        scores = "，".join(
            f"{_label(r.level(Side.NS))}:{_label(r.level(Side.EW))}" for r in series.games
        )
        note = f"{printed_side(series.winner)} {won}:{lost} 胜（{scores}）"
        summary = replace(summary, note=note)
    return summary, tuple(lines)


def _local(dt: Any) -> str:
    return timezone.localtime(dt).strftime("%Y-%m-%d %H:%M") if dt else ""


# --- score sheets -------------------------------------------------------------------------


def site_url() -> str:
    """Where the QR codes point when no request tells us (commands): ``PUBLIC_BASE_URL`` (or
    its older name ``SITE_URL``), else a local address."""
    return (
        getattr(settings, "PUBLIC_BASE_URL", "")
        or getattr(settings, "SITE_URL", "")
        or os.environ.get("SITE_URL", "")
        or "http://localhost:8000"
    ).rstrip("/")


def public_base(request: Any | None = None) -> str:
    """The base of every QR code and printed link (issue 15): ``PUBLIC_BASE_URL`` when set,
    else the host the page was asked from (``request``), else ``site_url()``."""
    configured = getattr(settings, "PUBLIC_BASE_URL", "")
    if configured:
        return str(configured).rstrip("/")
    if request is not None:
        return str(request.build_absolute_uri("/")).rstrip("/")
    return site_url()


# Addresses no phone at the venue reaches (0.0.0.0 is a listening address, not a place).
LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]", "testserver")  # noqa: S104


def public_base_problem() -> str:
    """Why printed QR codes may not reach players' phones: "unset" (``PUBLIC_BASE_URL`` not
    configured: the codes carry the printing computer's address), "local" (it names this
    machine, which no phone reaches), or "" when it looks right."""
    configured = str(getattr(settings, "PUBLIC_BASE_URL", "") or "")
    if not configured:
        return "unset"
    host = (urlsplit(configured).hostname or "").lower()
    if host in LOCAL_HOSTS or host.startswith("127.") or host.endswith(".localhost"):
        return "local"
    return ""


def entry_path(token: str) -> str:
    try:
        return reverse(ENTRY_URL_NAME, args=[token])
    except NoReverseMatch:
        return f"/table/{token}/"


def score_sheets(
    tournament: Tournament,
    round_number: int | None = None,
    filled: bool = False,
    base_url: str | None = None,
    codes: bool = False,
) -> list[ScoreSheet]:
    """The round's score sheets, one per match table in table order (byes need none).
    ``codes``: each pair's code on its half of the sheet.

    ``filled``: only the confirmed tables, each with its deal lines and result boxes (the
    record of what was entered); otherwise every table, blank.
    """
    rnd = get_round(tournament, round_number)
    rules = tournament.rules
    infos = pair_infos(tournament)
    tables = [t for t in _tables(tournament, rnd.number) if not t.is_bye]
    if filled:
        tables = [t for t in tables if t.entry_status == Table.EntryStatus.CONFIRMED]
    tokens = _tokens(tournament, rnd.number) if filled else {}
    games = _games(tournament, rnd.number) if filled else {}
    base = site_url() if base_url is None else base_url.rstrip("/")
    rows = rules.for_stage(rnd.stage).max_deals or OPEN_FORMAT_ROWS
    fmt = round_format_label(rules.for_stage(rnd.stage))
    teams = team_of_pairs(tournament) if rules.event == "teams" else {}
    sheets = []
    for t in tables:
        lines: tuple[DealLine, ...] = ()
        summary = None
        confirmed = ""
        if filled:
            scored = _scored(t, tokens.get(t.pk, []), rules, games)
            if scored is not None:
                summary, lines = scored
            how = "桌边确认" if t.confirmed_via == "table" else (t.confirmed_by or "")
            confirmed = f"已确认 {_local(t.confirmed_at)} {how}".strip()
        sheets.append(
            ScoreSheet(
                tournament=tournament.name,
                round_number=rnd.number,
                table_number=t.number,
                ns=infos[t.ns_id],
                ew=infos[t.ew_id] if t.ew_id else PairInfo(0),
                entry_url=base + entry_path(t.entry_token),
                rows=max(rows, len(lines)),
                start_ns=_label(t.start_ns),
                start_ew=_label(t.start_ew),
                lines=lines,
                result=summary,
                confirmed=confirmed,
                round_format=fmt,
                codes=codes,
                hint=printed_sheet_hint(rules.for_stage(rnd.stage)),
                match_label=_match_label(t),
                ns_team=teams.get(t.ns_id, ("", ""))[0],
                ew_team=teams.get(t.ew_id or 0, ("", ""))[0],
            )
        )
    return sheets


# --- pairing lists ------------------------------------------------------------------------


def pairing_list(tournament: Tournament, round_number: int | None = None) -> PairingList:
    rnd = get_round(tournament, round_number)
    infos = pair_infos(tournament)
    tables = _tables(tournament, rnd.number)
    lines = tuple(
        PairingLine(t.number, infos[t.ns_id], infos[t.ew_id] if t.ew_id else None) for t in tables
    )
    if tournament.rules.event != "teams":
        return PairingList(tournament.name, rnd.number, lines)
    bye = Team.objects.filter(bye_rounds=rnd).values_list("name", flat=True).first() or ""
    matches = match_lines(tables, team_of_pairs(tournament))
    return PairingList(tournament.name, rnd.number, lines, matches, bye)


# --- standings ----------------------------------------------------------------------------


def standings_columns(rules: RuleSet) -> tuple[StandingsColumn, ...]:
    """场分 and every criterion of the preset that is a number on the row, each headed by the
    event's own label when it gives one (RULES.md §9 ``labels``)."""
    criteria = resolve_criteria(rules.tiebreak_preset or rules.tiebreaks)
    return tuple(
        StandingsColumn(key, printed_criterion(key, rules))
        for key in criteria
        if CRITERIA[key].attribute is not None
    )


def standings(
    tournament: Tournament,
    after_round: int | None = None,
    final: bool = False,
    pairs_view: bool = False,
) -> Standings:
    """The standings after a round (default the latest published), or the final ranking. A
    team event's are its teams' unless ``pairs_view`` (the pair ranking inside the event)."""
    from scoring.cache import cached_standings
    from scoring.results import latest_round_number

    rules = tournament.rules
    latest = latest_round_number(tournament)
    if after_round is None or final:
        after_round = latest
    after_round = max(0, min(after_round, latest))  # ?round=1000000 is the latest round
    teams = rules.event == "teams" and not pairs_view
    rows = cached_standings(tournament, after_round, teams=teams)
    if teams:  # the team standings: a team printed as its number, unit and name
        infos = team_infos(tournament)
    else:
        infos = {info.number: info for info in pair_infos(tournament).values()}
    columns = standings_columns(rules)
    lines = []
    for row in rows:
        values = {col.key: getattr(row, CRITERIA[col.key].attribute or "") for col in columns}
        decided = printed_criterion(row.decided_by, rules) if row.decided_by else ""
        lines.append(
            StandingLine(
                rank=row.rank,
                pair=infos.get(row.pair, PairInfo(row.pair)),
                values=values,
                wins=row.wins,
                draws=row.draws,
                losses=row.losses,
                deductions=row.deductions,
                decided_by=decided,
            )
        )
    preset = rules.tiebreak_preset
    if preset in PRESETS:
        preset_label = TIEBREAK_PRESETS.get(preset, preset)
    else:
        preset_label = CUSTOM_PRESET
    return Standings(
        tournament=tournament.name,
        after_round=after_round,
        final=final,
        columns=columns,
        lines=tuple(lines),
        preset=preset_label,
        criteria=tuple(
            printed_criterion(key, rules)
            for key in resolve_criteria(rules.tiebreak_preset or rules.tiebreaks)
        ),
        settings=settings_block(rules),
        notes=(PRINTED_UPGRADES_NOTE,)
        if "upgrades" in resolve_criteria(rules.tiebreak_preset or rules.tiebreaks)
        else (),
        teams=teams,
    )


def team_infos(tournament: Tournament) -> dict[int, PairInfo]:
    """A team event's teams by their standings number (``scoring.results.team_field``: 1…T in
    registration order) as printed: the team's code when a whole number, its unit and name."""
    from scoring.results import team_field

    field = team_field(tournament.pk)
    teams = Team.objects.filter(tournament=tournament).select_related("unit").in_bulk()
    infos = {}
    for number, pk in field.pks.items():
        team = teams[pk]
        code = int(team.code) if team.code.isascii() and team.code.isdigit() else number
        unit = (team.unit.name or team.unit.code) if team.unit else ""
        infos[number] = PairInfo(code, unit, (team.name,))
    return infos


# --- penalties ----------------------------------------------------------------------------


def penalty_report(tournament: Tournament, round_number: int | None = None) -> PenaltyReport:
    """Every penalty record of a round, or of the whole event (``round_number`` None)."""
    qs = Penalty.objects.filter(tournament=tournament, withdrawn_at=None)
    if round_number:
        qs = qs.filter(round__number=round_number)
    infos = pair_infos(tournament)
    lines = []
    for row in qs.order_by("round__number", "table__number", "created_at", "pk").values_list(
        "round__number",
        "table__number",
        "pair_id",
        "player__name",
        "kind",
        "deal",
        "jcf",
        "reason",
        "referee_name",
        "referee__username",
        "created_at",
    ):
        rnd, table, pair_id, player, kind, deal, jcf, reason, ref_name, ref_user, created = row
        lines.append(
            PenaltyLine(
                round_number=rnd,
                table_number=table,
                pair=infos[pair_id],
                player=player or "",
                kind=penalty_kind_label(kind),
                deal=deal,
                jcf=float(jcf) if jcf is not None else None,
                reason=reason,
                referee=ref_name or ref_user or "",
                time=_local(created),
            )
        )
    return PenaltyReport(tournament.name, round_number or None, tuple(lines))


# --- the workbook -------------------------------------------------------------------------


def registrations(tournament: Tournament) -> tuple[RegistrationLine, ...]:
    contacts: dict[int, dict[int, str]] = defaultdict(dict)
    for pair_id, position, contact in Player.objects.filter(
        pair__tournament=tournament
    ).values_list("pair_id", "position", "contact"):
        contacts[pair_id][position] = contact
    statuses = dict(Pair.Status.choices)
    infos = pair_infos(tournament)
    lines = []
    for pk, status in Pair.objects.filter(tournament=tournament).values_list("pk", "status"):
        info = infos[pk]
        lines.append(
            RegistrationLine(
                number=info.number,
                unit=info.unit,
                player1=info.player(0),
                player2=info.player(1),
                contact1=contacts[pk].get(1, ""),
                contact2=contacts[pk].get(2, ""),
                status=str(statuses.get(status, status)),
            )
        )
    lines.sort(key=lambda line: line.number)
    return tuple(lines)


def _results_and_deals(
    tournament: Tournament, infos: dict[int, PairInfo]
) -> tuple[tuple[tuple[int, tuple[ResultLine, ...]], ...], Iterator[DealRecord]]:
    rules = tournament.rules
    tokens = _tokens(tournament)
    games = _games(tournament)
    corrected = set(
        AuditEntry.objects.filter(
            tournament=tournament, action=AuditEntry.Action.CORRECT, table__isnull=False
        ).values_list("table_id", flat=True)
    )
    by_round: dict[int, list[ResultLine]] = defaultdict(list)
    deals: list[DealRecord] = []
    for t in _tables(tournament):
        ns = infos[t.ns_id]
        if t.is_bye:
            by_round[t.round_number].append(
                ResultLine(t.number, ns, None, printed_side("BYE"), None)
            )
            continue
        ew = infos[t.ew_id] if t.ew_id else PairInfo(0)
        table_tokens = tokens.get(t.pk, [])
        state = table_state(
            t.entry_status,
            is_bye=False,
            has_facts=bool(table_tokens or t.end_kind),
            corrected=t.pk in corrected,
        )
        # Only a confirmed (or corrected) table has a result: a table not played, or still
        # being entered, shows its state and empty result columns (never "2:2 平局").
        scored = _scored(t, table_tokens, rules, games) if state in RESULT_STATES else None
        summary = scored[0] if scored is not None else None
        by_round[t.round_number].append(
            ResultLine(t.number, ns, ew, printed_table_state(state), summary)
        )
        if scored is not None:
            for line, token in zip(scored[1], table_tokens, strict=False):
                deals.append(
                    DealRecord(t.round_number, t.number, ns.number, ew.number, line, token)
                )
    rounds = tuple((number, tuple(lines)) for number, lines in sorted(by_round.items()))
    return rounds, iter(deals)


def workbook(tournament: Tournament) -> Workbook:
    """Everything the Excel export holds (a few queries; the engine rescoring every table)."""
    infos = pair_infos(tournament)
    rounds, deals = _results_and_deals(tournament, infos)
    return Workbook(
        tournament=tournament.name,
        standings=standings(tournament),
        rounds=rounds,
        deals=tuple(deals),
        penalties=penalty_report(tournament),
        registrations=registrations(tournament),
        pair_standings=standings(tournament, pairs_view=True)
        if tournament.rules.event == "teams"
        else None,
        stages=tuple(stage_sheets(tournament)),
    )
