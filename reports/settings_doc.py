"""The event's scoring settings as the printed standings and the Excel export show them: the
preset they match, the round format, the scale, the A rules, the tie rule, the forfeit and bye
awards actually used, and RULES.md §9's settings where they differ from the regulation (time
limit, upgrades, the extra deal at 2, lateness, the escalation ladder). Fixed Chinese, as every
printed document.
"""

from __future__ import annotations

from rules.ruleset import PRESETS as RULE_PRESETS
from rules.ruleset import RuleSet
from tournaments.wording import (
    CUSTOM_PRESET,
    PRINTED_A_FAIL_COUNTS,
    PRINTED_A_PASSES,
    PRINTED_A_RULES,
    PRINTED_ESCALATION_SCOPES,
    PRINTED_LATENESS,
    PRINTED_PRESETS,
    PRINTED_TIES,
    ROUND_FORMATS,
    printed_penalty_kind,
)


def round_format_label(rules: RuleSet) -> str:
    label = ROUND_FORMATS.get(rules.round_format, "")
    if rules.max_deals:
        label += f" 每轮 {rules.max_deals} 副"
    return label


_PRESET_KEYS = (
    "scale",
    "match_points",
    "forfeit",
    "bye",
    "a_rule",
    "a_attempts",
    "a_fail_count",
    "a_pass",
    "tie",
    "tiebreaks",
)


def preset_of(rules: RuleSet) -> str | None:
    """The preset (``rules.ruleset.PRESETS``) whose scoring settings ``rules`` has — the scale,
    match points, forfeit and bye, the A rules, the tie rule and the tiebreaks; the number of
    deals and rounds, the seed and the pairing options do not matter. ``None``: custom."""
    for key, preset in RULE_PRESETS.items():
        if all(getattr(rules, k) == getattr(preset.rules, k) for k in _PRESET_KEYS):
            return key
    return None


def _award(cf: float, jcf: float) -> str:
    return f"{_plain(cf)} 场分 + {_plain(jcf)} 级差分"


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def settings_block(rules: RuleSet) -> tuple[tuple[str, str], ...]:
    """The tournament's scoring settings as printed under the standings and in the Excel export
    (label, value): the preset they match, the format, the scale, the A rules, the tie rule and
    the forfeit and bye awards actually used (the scale's 4-level win unless set: 18 on 28)."""
    preset = preset_of(rules)
    a_rule = PRINTED_A_RULES[rules.a_rule].format(n=rules.a_attempts)
    lines = [
        ("规则", PRINTED_PRESETS[preset] if preset else CUSTOM_PRESET),
        ("赛制", round_format_label(rules)),
        (
            "级差分",
            "自定义级差分表" if rules.scale.key == "custom" else f"{rules.scale.key} 级差分表",
        ),
        ("打A", a_rule),
    ]
    if rules.a_rule == "reset_to_2":
        lines.append(("打A失败计数", PRINTED_A_FAIL_COUNTS[rules.a_fail_count]))
    lines += [
        ("过A", PRINTED_A_PASSES[rules.a_pass]),
        ("级数相同", PRINTED_TIES[rules.tie]),
        (
            "弃权",
            "出席方 "
            + _award(rules.forfeit.cf, rules.forfeit.jcf)
            + "，弃权方 "
            + (
                _award(rules.forfeit.absent_cf, rules.forfeit.absent_jcf)
                if rules.forfeit.absent_given
                else "0"
            ),
        ),
        ("轮空", _award(rules.bye.cf, rules.bye.jcf)),
    ]
    lines += variant_lines(rules)
    return tuple(lines)


def variant_lines(rules: RuleSet) -> list[tuple[str, str]]:
    """RULES.md §9's settings that differ from the regulation, as printed (label, value)."""
    lines: list[tuple[str, str]] = []
    if rules.timed:
        lines.append(("每轮时长", f"{rules.minutes} 分钟"))
    if rules.upgrades.values != (3, 2, 1):
        double, third, last = rules.upgrades.values
        lines.append(("升级", f"对家二游 +{double}，三游 +{third}，末游 +{last}"))
    if rules.extra_from_two and rules.plays_extra_deal:
        lines.append(("加打一副", "双方从2打"))
    lateness = rules.lateness
    if lateness.kind == "forfeit":
        lines.append(("迟到", PRINTED_LATENESS["forfeit"]))
    elif lateness.kind == "loss_after":
        lines.append(("迟到", f"迟到超过 {lateness.loss_after} 分钟判负"))
    elif lateness.kind == "per_minutes":
        text = f"每迟到 {lateness.per_minutes} 分钟守时方多升 {lateness.levels} 级"
        if lateness.forfeit_after is not None:
            text += f"，超过 {lateness.forfeit_after} 分钟弃权"
        lines.append(("迟到", text))
    if rules.escalation is not None:
        steps = "→".join(
            printed_penalty_kind(step.kind) + (f" {step.levels} 级" if step.levels else "")
            for step in rules.escalation.steps
        )
        scope = PRINTED_ESCALATION_SCOPES[rules.escalation.scope]
        lines.append(("判罚升级", f"{scope}：{steps}"))
    return lines
