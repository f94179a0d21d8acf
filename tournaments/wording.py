"""The words for the game's things, once: sides, partner places, events, ends, penalty kinds, a
table's state on the referee desk, round formats, tiebreak presets and standings criteria.

Used by every layer above (the pages and their template filters, the score sheet, the forms, the
PDF and Excel documents, the command line). Two registers:

- the interface, in the active language (``side_label``, ``describe_event``, ``criterion_label``
  …): the Chinese text is the gettext msgid, translated when the label is asked for;
- the printed documents (``printed_side``, ``printed_place`` …): an official form is Chinese
  whatever the interface language, so they give the msgid itself.

The Chinese texts are written once, here; ``gettext_noop`` only marks them for ``makemessages``.
(A stage kind's name is its ``label`` in the stage-kind registry, ``rules.kinds``, marked there.)

May touch: the pure ``rules`` core; no database, no other app (it sits in the ``tournaments``
layer so that ``scoring``, ``pairing`` and ``reports`` can all use it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

from rules.errors import RuleError
from rules.events import PARTNER_PLACE_UPGRADE, Event, EventKind, parse_event
from rules.kinds import KINDS
from rules.levels import level_label
from rules.ruleset import CRITERION_KEYS, RuleSet

NO_ONE = "—"

# --------------------------------------------------------------------------------------------
# Sides and places

SIDES = {"NS": gettext_noop("南北"), "EW": gettext_noop("东西"), "BYE": gettext_noop("轮空")}

# The partner's finishing place (RULES.md §1: 上游's partner 二游 → +3, 三游 → +2, 末游 → +1).
PLACES = {2: gettext_noop("二游"), 3: gettext_noop("三游"), 4: gettext_noop("末游")}
_PLACE_OF_UPGRADE = {upgrade: place for place, upgrade in PARTNER_PLACE_UPGRADE.items()}


def _side_key(side: Any) -> str:
    return "" if side is None else str(side)


# The four seats (RULES.md §7): the NS pair's first player sits North, the second South; the EW
# pair's first player East, the second West.
SEATS = {
    ("NS", 1): gettext_noop("北"),
    ("NS", 2): gettext_noop("南"),
    ("EW", 1): gettext_noop("东"),
    ("EW", 2): gettext_noop("西"),
}


def seat_label(side: Any, position: int) -> str:
    """A player's own seat (北 / 南 / 东 / 西) from the pair's side and the player's position
    (1 or 2) in the active language; an em dash for a bye or an unknown position."""
    text = SEATS.get((_side_key(side), int(position)))
    return _(text) if text else NO_ONE


def side_label(side: Any) -> str:
    """南北 / 东西 / 轮空 (NS / EW / BYE, or a ``rules.events.Side``) in the active language; an
    em dash for nobody."""
    text = SIDES.get(_side_key(side))
    return _(text) if text else NO_ONE


def printed_side(side: Any) -> str:
    """南北 / 东西 / 轮空 on a printed document."""
    return SIDES.get(_side_key(side), NO_ONE)


def place_label(place: int) -> str:
    """The partner's finishing place: 二游 / 三游 / 末游, in the active language."""
    return _(PLACES[place])


def place_of_upgrade(upgrade: int) -> int:
    """The partner's place that gives a deal's upgrade (+3 → 2, +2 → 3, +1 → 4)."""
    return _PLACE_OF_UPGRADE[upgrade]


def printed_place(upgrade: int) -> str:
    """The partner's place of a deal worth ``upgrade`` levels, on a printed document."""
    return PLACES[place_of_upgrade(upgrade)]


# --------------------------------------------------------------------------------------------
# Events and ends


def describe_event(
    event: Event, upgrades: tuple[int, int, int] = (3, 2, 1), *, effect: bool = True
) -> str:
    """One event as a referee reads it: "南北上游，对家二游 +3", "东西犯规（南北 +3）",
    "南北本副判负（东西 +3）", "南北升级调整 +2" — the levels by the event's ``upgrades``
    (RULES.md §9: 3/2/1 by default, e.g. 5/3/1). ``effect=False`` leaves out a foul's or a
    deal loss's consequence (the public pages)."""
    if event.kind is EventKind.DEAL:
        return _("%(side)s上游，对家%(place)s +%(up)s") % {
            "side": side_label(event.side),
            "place": place_label(place_of_upgrade(event.upgrade)),
            "up": upgrades[3 - event.upgrade],
        }
    if event.kind is EventKind.FOUL:
        if not effect:
            return _("%(side)s犯规") % {"side": side_label(event.side)}
        # RULES.md §3: a foul ends the deal, scored as the innocent side's 双下.
        return _("%(side)s犯规（%(other)s +%(up)s）") % {
            "side": side_label(event.side),
            "other": side_label(event.side.other),
            "up": upgrades[0],
        }
    if event.kind is EventKind.LOSE:
        # RULES.md §3 本副判负: scored as the other side's 双下, not a 犯规.
        if not effect:
            return _("%(side)s本副判负") % {"side": side_label(event.side)}
        return _("%(side)s本副判负（%(other)s +%(up)s）") % {
            "side": side_label(event.side),
            "other": side_label(event.side.other),
            "up": upgrades[0],
        }
    return _("%(side)s升级调整 +%(up)s") % {"side": side_label(event.side), "up": event.upgrade}


def event_text(token: str) -> str:
    """A stored token in words (``describe_event`` without a foul's effect); a token the core
    does not read is shown as it is."""
    try:
        event = parse_event(str(token))
    except RuleError:
        return str(token)
    return describe_event(event, effect=False)


def printed_event_note(event: Event) -> str:
    """The note column of a printed deal line: "南北犯规", "南北本副判负", "东西升级调整"; ""
    for a deal (its side and place have their own columns)."""
    if event.kind is EventKind.DEAL:
        return ""
    if event.kind is EventKind.FOUL:
        return f"{printed_side(event.side)}犯规"
    if event.kind is EventKind.LOSE:
        return f"{printed_side(event.side)}本副判负"
    return f"{printed_side(event.side)}升级调整"


# The extra deal of a level tie (RULES.md §2 "Level tie", ``tie: extra_deal``).
EXTRA_DEAL = gettext_noop("加打一副")
PRINTED_EXTRA_DEAL = "加打"

# How a match ended other than by its deals (``scoring.engine.END_KINDS``).
END_KINDS = {
    "forfeit": gettext_noop("弃权"),
    "penalty_loss": gettext_noop("判负"),
    "late_sheet": gettext_noop("迟交记分表"),
}


def end_label(kind: str) -> str:
    """弃权 / 判负 / 迟交记分表 in the active language; an unknown kind as it is."""
    text = END_KINDS.get(kind)
    return _(text) if text else kind


def printed_end(kind: str) -> str:
    """弃权 / 判负 / 迟交记分表 on a printed document ("" for none)."""
    return END_KINDS.get(kind, kind)


# --------------------------------------------------------------------------------------------
# Penalties and table states

PENALTY_KINDS = {
    "warning": gettext_noop("警告"),
    "violation": gettext_noop("违例"),
    "foul": gettext_noop("犯规"),
    "penalty_loss": gettext_noop("判负"),
    "disqualification": gettext_noop("取消资格"),
    "deduction": gettext_noop("级差分扣分"),
    "level_award": gettext_noop("升级调整"),
}


def penalty_kind_label(kind: str) -> str:
    """A penalty kind (``scoring.models.Penalty.Kind``) in the active language."""
    text = PENALTY_KINDS.get(kind)
    return _(text) if text else kind


def printed_penalty_kind(kind: str) -> str:
    """A penalty kind on a printed document (Chinese)."""
    return PENALTY_KINDS.get(kind, kind)


# A table's state, the one definition for the desk, the public pages, the PDF and the Excel
# (issue 15): 未开始 (no fact entered) / 录入中 (facts, not submitted) / 待确认 (submitted) /
# 已确认 / 已更正 (confirmed, then corrected by the chief referee). The desk adds 有问题 (a sheet
# the engine refuses, ``scoring.sheet.table_status``); a bye is 轮空.
TABLE_STATES = {
    "not_started": gettext_noop("未开始"),
    "in_progress": gettext_noop("录入中"),
    "entered": gettext_noop("待确认"),
    "confirmed": gettext_noop("已确认"),
    "corrected": gettext_noop("已更正"),
    "problem": gettext_noop("有问题"),
    "bye": gettext_noop("轮空"),
}
# The states whose result counts (standings, result columns of the documents).
RESULT_STATES = frozenset({"confirmed", "corrected"})


def table_state(
    entry_status: str, *, is_bye: bool, has_facts: bool, corrected: bool = False
) -> str:
    """A table's state from its stored columns (``Table.entry_status`` "open" / "entered" /
    "confirmed", ``is_bye``), whether any fact is entered (an event, or an end such as a
    forfeit) and whether a confirmed result was corrected since."""
    if is_bye:
        return "bye"
    if entry_status == "confirmed":
        return "corrected" if corrected else "confirmed"
    if entry_status == "entered":
        return "entered"
    return "in_progress" if has_facts else "not_started"


def table_state_label(state: str) -> str:
    """The state in the active language."""
    return _(TABLE_STATES[state])


def printed_table_state(state: str) -> str:
    """The state on a printed document (Chinese whatever the interface language)."""
    return TABLE_STATES[state]


# --------------------------------------------------------------------------------------------
# Round formats, presets and standings criteria (printed documents and pages)

ROUND_FORMATS = {
    "deals": "计副制",
    "game": "计局制",
    "timed": "计时制",
    "timed_deals": "计时计副制",
    "deal_points": "积分制（每副打2）",
}
TIEBREAK_PRESETS = {"regulation": "竞赛规程", "jiangsu2017": "江苏2017"}
CUSTOM_PRESET = "自定义"

# The settings block of the printed standings and the Excel export (fixed Chinese): the preset
# the settings match (``rules.ruleset.PRESETS``) and each scoring setting's value.
PRINTED_PRESETS = {"regulation": "规程", "jiangsu2017": "江苏2017（26分制）"}
PRINTED_A_RULES = {"continue": "A必打，打A不过不降级", "reset_to_2": "打A{n}次未过降回2"}
PRINTED_A_FAIL_COUNTS = {
    "deal": "每打一副A未过计一次",
    "stage": "每次上台打A被推翻计一次",
}
PRINTED_A_PASSES = {
    "partner_2_or_3": "头游且对家二游或三游",
    "double_only": "只有对方双下才算过A",
}
PRINTED_TIES = {
    "draw": "平局",
    "extra_deal": "加打一副决定胜负",
    "first_to_level": "到时先升到该级者胜",
}
# RULES.md §9, printed when not the regulation's.
PRINTED_LATENESS = {"forfeit": "迟到即弃权"}
PRINTED_ESCALATION_SCOPES = {"match": "每场", "round": "每轮", "event": "全赛"}
# The hint printed above a score sheet's deal grid, by how A is passed (``a_pass``).
_UPGRADE_HINT = "上游方升级：对家二游 +3，三游 +2，末游 +1；"
PRINTED_SHEET_HINTS = {
    "partner_2_or_3": _UPGRADE_HINT + "A 必打，打 A 时对家二游或三游方可过 A",
    "double_only": _UPGRADE_HINT + "A 必打，打 A 时须对方双下（对家二游）方可过 A",
}


def printed_sheet_hint(rules: RuleSet) -> str:
    """The hint printed above a score sheet's deal grid, by the stage's rules: the upgrades
    (RULES.md §9: 3/2/1 or 5/3/1) and how A is passed; a deal-points match's points."""
    if rules.deal_points:
        return "每副打2；上游方得分：对家二游 3，三游 2，末游 1；积分高者胜，积分相同加打一副"
    hint = PRINTED_SHEET_HINTS[rules.a_pass]
    double, third, last = rules.upgrades.values
    return hint.replace(
        _UPGRADE_HINT, f"上游方升级：对家二游 +{double}，三游 +{third}，末游 +{last}；"
    )


# RULES.md §2 升级数, printed under a standings table that shows it.
PRINTED_UPGRADES_NOTE = (
    "升级数 = 每场最终级数 − 2（过A计13；迟到领先的级数计入，判负降级与打A失败降回2扣除；"
    "弃权、轮空计0）"
)

# Keyed by ``rules.ruleset.CRITERION_KEYS`` plus ``cf`` (match points, always first): Chinese,
# English. ``tests/core/test_wording.py`` checks that every key has both.
CRITERIA: dict[str, tuple[str, str]] = {
    "cf": ("场分", "Match points"),
    "jcf": ("级差分", "Level-difference points"),
    "head_to_head": ("相互间胜负", "Head-to-head"),
    "wins": ("胜场数", "Wins"),
    "draws": ("平场数", "Draws"),
    "level_difference": ("总级差", "Level difference"),
    "opponents_cf": ("对手分", "Opponents' match points"),
    "previous_rank": ("上轮名次", "Rank after the previous round"),
    "progressive": ("(去首)累进分", "Progressive score"),
    "upgrades": ("升级数", "Upgrades"),
    "head_to_head_two": ("两方相互间胜负", "Head-to-head (two tied only)"),
    "lot": ("抽签", "Drawing of lots"),
}
ALL_CRITERION_KEYS = ("cf", *CRITERION_KEYS)


def criterion_label(key: str | None, rules: RuleSet | None = None) -> str:
    """A standings criterion's (or column's) label in the current language ("" for none, the
    key itself for an unknown one) — or, given the rules of a stage (``RuleSet.for_stage``)
    whose ``labels`` name it (RULES.md §9: 总积分 for cf, 净积小分 for level_difference …), the
    event's own words, in every language: screens, PDFs and Excel say the same."""
    if not key:
        return ""
    own = rules.label(key) if rules is not None else None
    if own is not None:
        return own
    labels = CRITERIA.get(key)
    if labels is None:
        return key
    return labels[0] if (get_language() or "").startswith("zh") else labels[1]


def printed_criterion(key: str, rules: RuleSet | None = None) -> str:
    """A standings criterion's label on a printed document (the event's own, RULES.md §9,
    when ``rules`` names one)."""
    own = rules.label(key) if rules is not None else None
    return own if own is not None else CRITERIA[key][0]


# --------------------------------------------------------------------------------------------
# Stages (RULES.md §8)


def stage_kind_label(kind: str) -> str:
    """瑞士移位 / 小组循环赛 / 淘汰赛, in the interface language: the kind's ``label``
    (``rules.kinds``)."""
    return _(KINDS[kind].label) if kind in KINDS else kind


def knockout_round_label(
    meetings: int, third_place: bool = False, repechage: bool = False, entrants: int = 0
) -> str:
    """A knockout round by the meetings it has: 决赛 (1), 半决赛 (2), 1/4 决赛 (4), 1/8 决赛 …;
    the third-place match 三四名决赛; the repechage 附加赛; a round of a field that is no power
    of two (a stage with a repechage halves any field) "44 进 22" from its ``entrants``."""
    if third_place:
        return _("三四名决赛")
    if repechage:
        return _("附加赛")
    if entrants and meetings & (meetings - 1):
        return _("%(n)s 进 %(m)s") % {"n": entrants, "m": meetings}
    if meetings <= 1:
        return _("决赛")
    if meetings == 2:
        return _("半决赛")
    return _("1/%(n)s 决赛") % {"n": meetings}


# Audit entries as sentences (issue 15): the table history and the 操作日志 read
# "第5副：南北上游 对家二游 → 对家三游", not the stored JSON (which stays one click away).

PAIR_STATUSES = {
    "active": gettext_noop("参赛"),
    "withdrawn": gettext_noop("退赛"),
    "disqualified": gettext_noop("取消资格"),
}
ROLES = {
    "organizer": gettext_noop("组委会"),
    "chief_referee": gettext_noop("裁判长"),
    "referee": gettext_noop("裁判"),
}


def _deal_title(tokens: list[str], position: int) -> str:
    """第5副 (the deal an event at ``position`` belongs to), or 第5条 for a level award, which
    is not a deal (RULES.md §3)."""
    deals = 0
    for token in tokens[: position + 1]:
        try:
            deals += parse_event(str(token)).is_deal
        except RuleError:
            deals += 1
    try:
        is_deal = parse_event(str(tokens[position])).is_deal
    except (RuleError, IndexError):
        is_deal = True
    if is_deal:
        return _("第%(n)s副") % {"n": max(deals, 1)}
    return _("第%(n)s条") % {"n": position + 1}


def _event_words(token: str) -> str:
    """A deal as the sheet says it, without the upgrade: "南北上游 对家二游"; other events as
    ``event_text``."""
    try:
        event = parse_event(str(token))
    except RuleError:
        return str(token)
    if event.kind is EventKind.DEAL:
        return _("%(side)s上游 对家%(place)s") % {
            "side": side_label(event.side),
            "place": place_label(place_of_upgrade(event.upgrade)),
        }
    return describe_event(event, effect=False)


def _replaced_words(old: str, new: str) -> str:
    """The new event of a replaced one, short when only the partner's place changed: "南北上游
    对家二游 → 对家三游"."""
    try:
        before, after = parse_event(str(old)), parse_event(str(new))
    except RuleError:
        return f"{_event_words(old)} → {_event_words(new)}"
    if before.kind is after.kind is EventKind.DEAL and before.side is after.side:
        partner = _("对家%(place)s") % {"place": place_label(place_of_upgrade(after.upgrade))}
        return f"{_event_words(old)} → {partner}"
    return f"{_event_words(old)} → {_event_words(new)}"


def _levels_words(start: Any) -> str:
    try:
        return _("南北%(ns)s、东西%(ew)s") % {
            "ns": level_label(int(start["ns"])),
            "ew": level_label(int(start["ew"])),
        }
    except (KeyError, TypeError, ValueError, RuleError):
        return NO_ONE


def _end_words(end: Any) -> str:
    if not isinstance(end, dict) or not end:
        return _("正常结束")
    ((kind, side),) = list(end.items())[:1]
    return f"{side_label(str(side).upper())}{end_label(str(kind))}"


def table_changes(before: Any, after: Any, *, undo: bool = False) -> list[str]:
    """What changed between two snapshots of a table's facts (``scoring.facts.snapshot``), one
    clause each: "第5副：南北上游 对家二游 → 对家三游", "在第3副前插入：东西上游 对家末游",
    "删除第8副：南北上游 对家二游", "起始级：南北2、东西2 → 南北3、东西2", "结束方式：…"."""
    from difflib import SequenceMatcher

    if not isinstance(before, dict) or not isinstance(after, dict):
        return []
    changes = []
    old = [str(t) for t in before.get("deals") or []]
    new = [str(t) for t in after.get("deals") or []]
    for op, i1, i2, j1, j2 in SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                changes.append(
                    _("%(where)s：%(what)s")
                    % {
                        "where": _deal_title(new, j1 + k),
                        "what": _replaced_words(old[i1 + k], new[j1 + k]),
                    }
                )
            continue
        removed = _("撤销%(where)s：%(what)s") if undo else _("删除%(where)s：%(what)s")
        for k in range(i1, i2):
            changes.append(removed % {"where": _deal_title(old, k), "what": _event_words(old[k])})
        for k in range(j1, j2):
            if k == len(new) - 1 and k >= len(old) - (i2 - i1):
                sentence = _("录入%(where)s：%(what)s")
            else:
                sentence = _("插入%(where)s：%(what)s")
            changes.append(sentence % {"where": _deal_title(new, k), "what": _event_words(new[k])})
    if before.get("start") != after.get("start") and after.get("start") is not None:
        changes.append(
            _("起始级：%(before)s → %(after)s")
            % {"before": _levels_words(before.get("start")), "after": _levels_words(after["start"])}
        )
    if (before.get("end") or None) != (after.get("end") or None):
        changes.append(
            _("结束方式：%(before)s → %(after)s")
            % {"before": _end_words(before.get("end")), "after": _end_words(after.get("end"))}
        )
    return changes


def _join(parts: list[str], chinese: str, english: str) -> str:
    """Clauses joined with the language's punctuation (no full-width marks in English)."""
    return (chinese if (get_language() or "").startswith("zh") else english).join(parts)


def _deals_count(snapshot: Any) -> int:
    deals = snapshot.get("deals") if isinstance(snapshot, dict) else None
    return len(deals) if isinstance(deals, list) else 0


def _penalty_words(data: dict[str, Any]) -> str:
    parts = [_("第%(n)s对") % {"n": data.get("pair")}, penalty_kind_label(str(data.get("kind")))]
    if data.get("deal"):
        parts.append(_("第%(n)s副") % {"n": data["deal"]})
    if data.get("jcf") not in (None, ""):
        parts.append(_("扣%(n)s级差分") % {"n": data["jcf"]})
    if data.get("escalation"):
        parts.append(_("累计升级"))
    return " ".join(str(p) for p in parts)


def _pair_words(data: dict[str, Any]) -> str:
    players = data.get("players")
    names = "、".join(str(p) for p in players) if isinstance(players, list) else ""
    parts = [names or NO_ONE]
    if data.get("unit"):
        parts.append(_("单位 %(unit)s") % {"unit": data["unit"]})
    if data.get("seeding"):
        parts.append(_("种子 %(n)s") % {"n": data["seeding"]})
    return " · ".join(parts)


def _tables_words(tables: Any) -> str:
    if not isinstance(tables, list):
        return ""
    words = []
    for t in tables[:12]:
        if not isinstance(t, dict):
            continue
        if t.get("bye"):
            words.append(_("轮空：第%(ns)s对") % {"ns": t.get("ns")})
        else:
            words.append(
                _("第%(t)s桌 %(ns)s–%(ew)s")
                % {"t": t.get("table"), "ns": t.get("ns"), "ew": t.get("ew")}
            )
    if len(tables) > 12:
        words.append("…")
    return _join(words, "，", ", ")


def _status(value: Any) -> str:
    text = PAIR_STATUSES.get(str(value))
    return _(text) if text else str(value)


def _role(value: Any) -> str:
    text = ROLES.get(str(value))
    return _(text) if text else str(value)


def _override_words(data: dict[str, Any]) -> str:
    """RULES.md §7: a correction after its deadline, by the chief referee's override
    (``scoring.services._check_deadline``): who overrode, which deadline had passed."""
    until = timezone.localtime(datetime.fromisoformat(str(data["deadline"]))).strftime("%H:%M")
    params = {"by": data.get("by"), "minutes": data.get("minutes"), "time": until}
    if data.get("declared") == "published":
        template = _(
            "录入错误的更正期限已过（一轮结束后%(minutes)s分钟，至 %(time)s），"
            "由裁判长 %(by)s 作为公布成绩错误更正"
        )
    elif data.get("error") == "published":
        template = _(
            "更正期限已过（公布成绩错误：阶段结束后%(minutes)s分钟，至 %(time)s），"
            "由裁判长 %(by)s 决定更正"
        )
    else:
        template = _(
            "更正期限已过（录入错误：一轮结束后%(minutes)s分钟，至 %(time)s），"
            "由裁判长 %(by)s 决定更正"
        )
    return template % params


def _audit_sentence(action: str, before: Any, after: Any) -> str:
    b = before if isinstance(before, dict) else {}
    a = after if isinstance(after, dict) else {}
    table_actions = ("enter_event", "undo_event", "set_start", "set_end", "correct")
    if action in table_actions:
        changes = table_changes(before, after, undo=action == "undo_event")
        if action == "correct" and isinstance(a.get("overridden"), dict):
            changes.append(_override_words(a["overridden"]))
        return _join(changes, "；", "; ")
    if action in ("confirm", "mark_entered"):
        by = a.get("by_pair")
        n = _deals_count(a)
        if action == "confirm":
            text = _("确认成绩（%(n)s条记录）") % {"n": n}
        else:
            text = _("提交记分表（%(n)s条记录）") % {"n": n}
        if isinstance(by, dict):
            text += " · " + _("桌边：%(side)s第%(pair)s对") % {
                "side": side_label(by.get("side")),
                "pair": by.get("pair"),
            }
        return text
    if action == "penalty":
        if b and b.get("withdrawn") is False and a.get("withdrawn") is True:
            return _("撤销判罚：%(what)s") % {"what": _penalty_words(a)}
        return _penalty_words(a)
    if action == "pair_status":
        return _("第%(n)s对：%(before)s → %(after)s") % {
            "n": a.get("pair", b.get("pair")),
            "before": _status(b.get("status")),
            "after": _status(a.get("status")),
        }
    if action in ("grant_role", "revoke_role"):
        data = a or b
        template = (
            _("授予 %(user)s %(role)s角色")
            if action == "grant_role"
            else _("取消 %(user)s 的%(role)s角色")
        )
        role = data.get("role") or (b or {}).get("role")
        text = template % {"user": data.get("user"), "role": _role(role)}
        if a.get("deactivated"):  # its last role anywhere (issue 29)
            text += " · " + _("账号已停用")
        if a.get("reactivated"):
            text += " · " + _("账号已重新启用")
        return text
    if action == "edit_pair":
        return _("%(before)s → %(after)s") % {"before": _pair_words(b), "after": _pair_words(a)}
    if action == "generate_round" and a.get("matches") is not None:  # a team round
        return _("第%(round)s轮，%(n)s场团体赛") % {"round": a.get("round"), "n": a.get("matches")}
    if action == "generate_round":
        text = _("第%(round)s轮，%(n)s桌") % {"round": a.get("round"), "n": a.get("tables")}
        if a.get("bye"):
            text += " · " + _("轮空：第%(ns)s对") % {"ns": a["bye"]}
        return text
    if action == "check_in":
        template = (
            _("第%(n)s对签到（第%(round)s轮）") if a else _("撤销第%(n)s对的签到（第%(round)s轮）")
        )
        data = a or b
        return template % {"n": data.get("pair"), "round": data.get("round")}
    if action == "create_accounts":
        accounts = a.get("accounts") or []
        return _("%(n)s个%(role)s账号：%(users)s") % {
            "n": len(accounts),
            "role": _role(a.get("role")),
            "users": ", ".join(str(x.get("user")) for x in accounts[:12]),
        }
    if action == "reset_password":
        return _("重置 %(user)s 的密码（新登录条）") % {"user": a.get("user")}
    if action == "assign_tables":
        if a.get("first") is None:
            return _("%(user)s：不再限定桌号") % {"user": a.get("user")}
        return _("%(user)s：第%(first)s–%(last)s桌") % {
            "user": a.get("user"),
            "first": a.get("first"),
            "last": a.get("last"),
        }
    if action == "lineup":
        return _("%(team)s队第%(round)s轮：南北第%(ns)s对，东西第%(ew)s对") % {
            "team": a.get("team"),
            "round": a.get("round"),
            "ns": a.get("ns"),
            "ew": a.get("ew"),
        }
    if action == "swap_pairs":
        return _tables_words(a.get("tables"))
    if action == "delete_draft":
        return _tables_words(b.get("tables"))
    if action == "settings":
        old, new = b.get("settings") or {}, a.get("settings") or {}
        if isinstance(old, dict) and isinstance(new, dict):
            keys = sorted(k for k in {*old, *new} if old.get(k) != new.get(k))
            return _("修改：%(keys)s") % {"keys": ", ".join(keys)} if keys else ""
    return ""


def audit_sentence(action: str, before: Any, after: Any) -> str:
    """An audit entry's change in a sentence of the active language; "" when there is nothing
    to say beyond the action's name. Never fails: odd stored data gives a shorter sentence."""
    try:
        return _audit_sentence(action, before, after)
    except (AttributeError, KeyError, TypeError, ValueError, IndexError):
        return ""
