"""Plain rows for every printed or exported document (STYLE.md "Exports and printing").

Frozen dataclasses and nothing else: no Django, no reportlab, no openpyxl. ``reports.collect``
builds them from the database; ``reports.pdf`` and ``reports.xlsx`` turn them into files. Keeping
the rows plain lets the renderers be tested and benchmarked without a database, and keeps every
query in one place.

Every text field is already what is printed (Chinese labels, ``"过A"`` for level 15); numbers stay
numbers so the spreadsheet can sum them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Directions on a score sheet: the NS pair's first player sits North, the second South; the EW
# pair's first player sits East, the second West (RULES.md §7: West writes, North checks).
NORTH, SOUTH, EAST, WEST = "北", "南", "东", "西"


@dataclass(frozen=True, slots=True)
class PairInfo:
    """A pair as printed: number, unit name and the two players in file order."""

    number: int
    unit: str = ""
    players: tuple[str, ...] = ()
    code: str = ""  # the pair's code (对号密码), printed on its half of a score sheet

    @property
    def names(self) -> str:
        return "/".join(p for p in self.players if p)

    def player(self, index: int) -> str:
        return self.players[index] if index < len(self.players) else ""


@dataclass(frozen=True, slots=True)
class DealLine:
    """One line of the deal grid of a filled score sheet (one event of the match).

    ``first_side`` is "南北"/"东西" for a deal; for a foul it names the offender in ``note``; for a
    level award (升级调整) ``deal_number`` is None and ``note`` says who received it.
    """

    deal_number: int | None
    level_played: str  # "2" … "A"; "" for an award
    first_side: str  # "南北" / "东西" / ""
    partner_place: str  # "二游" / "三游" / "末游" / ""
    upgrade: int  # levels climbed by the beneficiary
    ns_level: str  # level after the event, "2" … "过A"
    ew_level: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """The result boxes of a score sheet and one line of a round's results."""

    ns_level: str
    ew_level: str
    jc: int  # 级差
    ns_jcf: float  # 级差分
    ew_jcf: float
    ns_cf: float  # 场分
    ew_cf: float
    note: str = ""  # "东西弃权", "南北判负", "南北迟交记分表（按弃权记分）", "南北过A" …
    end: str = ""  # how the match ended other than by its deals: 弃权 / 判负 / 迟交记分表
    extra_deal: bool = False  # decided by the extra deal of a level tie (加打一副)


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """One 记分表: a table of a round, blank (``result`` None) or filled after confirmation."""

    tournament: str
    round_number: int
    table_number: int
    ns: PairInfo
    ew: PairInfo
    entry_url: str = ""
    rows: int = 8  # deal lines to print (the round's deals, or more for 计局制)
    start_ns: str = "2"
    start_ew: str = "2"
    lines: tuple[DealLine, ...] = ()
    result: MatchSummary | None = None
    confirmed: str = ""  # "2026-11-29 14:05 裁判 王五" on a filled sheet
    round_format: str = ""  # "计副制 每轮8副" …
    codes: bool = False  # print each pair's code on its half of the sheet
    # The rule hint above the deal grid (how A is passed, ``tournaments.wording``).
    hint: str = "上游方升级：对家二游 +3，三游 +2，末游 +1；A 必打，打 A 时对家二游或三游方可过 A"
    # Team events (RULES.md §6): "团体赛 第3场 甲桌（另一桌：第6桌）" and each side's team.
    match_label: str = ""
    ns_team: str = ""
    ew_team: str = ""

    @property
    def filled(self) -> bool:
        return self.result is not None


@dataclass(frozen=True, slots=True)
class PairSlip:
    """One pair's slip (issue 15): what the pair is handed at registration — its number, players,
    code (对号密码, proves the pair at the table, RULES.md §7) and a QR code of its "find my
    table" page (``find_url``); ``checkin_url`` when the event checks pairs in by QR."""

    tournament: str
    pair: PairInfo
    find_url: str
    checkin_url: str = ""


@dataclass(frozen=True, slots=True)
class PairingLine:
    """One table of a round (``ew`` None: a bye, printed as 轮空)."""

    table_number: int
    ns: PairInfo
    ew: PairInfo | None

    @property
    def is_bye(self) -> bool:
        return self.ew is None


@dataclass(frozen=True, slots=True)
class MatchLine:
    """One team match of a round (RULES.md §6): ``home`` sits NS at 甲 (table 2m − 1)."""

    match: int
    home: str  # team names
    away: str
    tables: tuple[int, ...]
    home_unit: str = ""
    away_unit: str = ""


@dataclass(frozen=True, slots=True)
class PairingList:
    tournament: str
    round_number: int
    lines: tuple[PairingLine, ...]
    matches: tuple[MatchLine, ...] = ()  # a team event's matches
    bye_team: str = ""


@dataclass(frozen=True, slots=True)
class StandingsColumn:
    """A tiebreak column: the criterion key, its Chinese label and the ``StandingLine`` value."""

    key: str
    label: str


@dataclass(frozen=True, slots=True)
class StandingLine:
    rank: int
    pair: PairInfo
    values: dict[str, float | int | None]  # by criterion key (cf, jcf, wins, …)
    wins: int
    draws: int
    losses: int
    deductions: float
    decided_by: str  # the Chinese label of the criterion that separated it from the row above


@dataclass(frozen=True, slots=True)
class Standings:
    """The standings as printed; ``teams``: a team event's team standings (a line's ``pair``
    is then the team: its number, unit and name as the only "player")."""

    tournament: str
    after_round: int
    final: bool
    columns: tuple[StandingsColumn, ...]
    lines: tuple[StandingLine, ...]
    preset: str = ""  # "竞赛规程" / "江苏2017" / "自定义"
    criteria: tuple[str, ...] = ()  # every criterion's label in order, 场分 … 抽签
    # The scoring settings (label, value): preset, scale, A rules, tie, forfeit and bye awards.
    settings: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()  # footnotes, e.g. what 升级数 counts
    teams: bool = False


@dataclass(frozen=True, slots=True)
class PenaltyLine:
    round_number: int | None
    table_number: int | None
    pair: PairInfo
    player: str
    kind: str  # "警告" …
    deal: int | None
    jcf: float | None
    reason: str
    referee: str
    time: str  # "2026-11-29 14:05"


@dataclass(frozen=True, slots=True)
class PenaltyReport:
    tournament: str
    round_number: int | None  # None: the whole event
    lines: tuple[PenaltyLine, ...]


@dataclass(frozen=True, slots=True)
class ResultLine:
    """One table of a round's results (the Excel "第N轮" sheet)."""

    table_number: int
    ns: PairInfo
    ew: PairInfo | None
    status: str  # tournaments.wording.printed_table_state: "未开始" … "已更正", or "轮空"
    summary: MatchSummary | None  # None unless the table is confirmed (or corrected)


@dataclass(frozen=True, slots=True)
class DealRecord:
    """Every deal of the event (the Excel "牌局" sheet)."""

    round_number: int
    table_number: int
    ns_number: int
    ew_number: int
    line: DealLine
    token: str


@dataclass(frozen=True, slots=True)
class RegistrationLine:
    """A pair's registration as in the template (序号, 单位, 牌手1, 牌手2, contacts)."""

    number: int
    unit: str
    player1: str
    player2: str
    contact1: str = ""
    contact2: str = ""
    status: str = ""


@dataclass(frozen=True, slots=True)
class TeamRegistrationLine:
    """A team's registration as in the team template (序号, 队名, 单位, 牌手1…牌手6): its pairs
    are 牌手1+牌手2, 牌手3+牌手4 and (optional) 牌手5+牌手6, in that order; ``pairs`` the
    registered pairs' numbers on export."""

    number: int
    name: str
    unit: str
    players: tuple[tuple[str, str], ...]
    status: str = ""
    pair_numbers: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Workbook:
    """Everything the Excel export holds."""

    tournament: str
    standings: Standings
    rounds: tuple[tuple[int, tuple[ResultLine, ...]], ...]
    deals: tuple[DealRecord, ...]
    penalties: PenaltyReport
    registrations: tuple[RegistrationLine, ...] = field(default_factory=tuple)
    pair_standings: Standings | None = None  # a team event's pair ranking (the second view)
    # RULES.md §8: (sheet name, headers, rows) of the group tables, the knockout, the placings
    stages: tuple[tuple[str, list[str], list[list[Any]]], ...] = field(default_factory=tuple)
