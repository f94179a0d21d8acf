"""The one message catalogue: every error code → one translated sentence (STYLE.md "Errors").

Nobody builds a user-facing sentence where an error is raised: the pure core, the file parser and
the services raise or return a stable ``code`` with ``params`` (every error derives from
``rules.errors.GuandanError``; problems are ``rules.errors.Problem`` and
``reports.fileformat.FileProblem``). This module words each code once, with ``gettext``: the
message ids are Chinese (the default language), English comes from the catalogue in ``locale/``.
``tests/web/test_error_catalogue.py`` fails when a code raised anywhere has no sentence here.

- ``sentence(code, params)``: the sentence for one code.
- ``describe_problem(problem)``: a sentence that starts with where the problem is, e.g.
  ``第3轮 第12桌 第5副: 过A后不能再有牌局``.
- ``describe_error(error)``: the sentence for any ``GuandanError`` (its problems, one a line,
  when it carries several); ``ServiceError.message`` is this.
- ``describe_problems(problems)``: every problem, one per line.

Wording conventions: detail that not every raise site knows goes last, in full-width brackets
(``（第%(first_round)s轮）``); ``sentence`` drops such a bracket when its parameter is missing.

May import Django's translation utilities and the pure core; no models, no database.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

# One sentence per code. Message ids are Chinese; params are %(name)s.
MESSAGES: dict[str, Any] = {
    # The file as a whole (TOURNAMENT_FILE.md "Shape")
    "malformed_json": _("文件不是有效的 JSON（第%(line)s行第%(column)s列：%(detail)s）"),
    "not_utf8": _("文件不是 UTF-8 编码（第%(position)s个字节）"),
    "not_finite": _("数值“%(value)s”无效（不是有限的数）"),
    "number_too_long": _("数字“%(value)s”位数过多"),
    # rules.text.check_text: names and text (issue 29 point 10)
    "nul_character": _("文字中有空字符（NUL），请删除后重试"),
    "lone_surrogate": _("文字中有无效的字符（单独的代理项），请删除后重试"),
    "control_character": _("文字中有控制字符，请删除后重试"),
    "invisible_character": _("文字中有不可见字符（如零宽空格），请删除后重试"),
    "bidi_control": _("文字中有改变书写方向的控制字符，请删除后重试"),
    "too_deep": _("文件嵌套层数过多，不是锦标赛文件"),
    "not_an_object": _("这里应是一个 JSON 对象"),
    "invalid_file": _("文件有错误"),
    "unknown_key": _("未知的键“%(key)s”"),
    "missing_key": _("缺少“%(key)s”"),
    "wrong_format": _("format 应为“%(expected)s”，而不是“%(value)s”"),
    "wrong_version": _("不支持的文件版本 %(value)s（应为 %(expected)s）"),
    "wrong_type": _("应为%(expected)s，而不是%(found)s"),
    "empty_text": _("不能为空"),
    "text_too_long": _("太长（最多 %(limit)s 个字符，现有 %(length)s 个）"),
    "not_positive": _("应为正整数，而不是 %(value)s"),
    "out_of_range": _("应为 %(min)s 到 %(max)s 之间的整数，而不是 %(value)s"),
    "not_one_of": _("“%(value)s”无效，可选：%(options)s"),
    # Tournaments, units, pairs, teams, roles
    "no_tournament": _("赛事“%(slug)s”不存在"),
    "name_required": _("请填写赛事名称"),
    "slug_taken": _("网址标识“%(slug)s”已被使用"),
    "bad_slug": _("网址标识“%(slug)s”无效（只能用字母、数字、连字符和下划线）"),
    "unknown_preset": _("未知的预设“%(preset)s”"),
    "settings_locked": _("已有公布的轮次，不能再修改赛事设置"),
    "forbidden": _("您没有执行此操作的权限"),
    "account_not_yours": _(
        "账号“%(user)s”由其他赛事的组委会创建：只有创建者或与其共同组织赛事的组委会成员才能授予角色或重置密码"
    ),
    "account_inactive": _("账号“%(user)s”已停用，只有创建它的组委会才能重新启用"),
    "bad_role": _("未知角色“%(role)s”"),
    "wrong_tournament": _("数据不属于本赛事"),
    "duplicate_unit": _("单位代码“%(id)s”重复"),
    "unknown_unit": _("单位“%(id)s”不存在"),
    "unit_not_found": _("单位“%(unit)s”不存在"),
    "unit_exists": _("单位代码“%(unit)s”已存在"),
    "duplicate_pair": _("对号 %(id)s 重复"),
    "players_not_two": _("每对须有两名选手（这里有 %(count)s 名）"),
    "bad_players": _("每对须有两名选手，姓名不能为空"),
    "unknown_pair": _("第%(id)s对不存在"),
    "pair_number_taken": _("编号 %(number)s 已被使用"),
    "pair_status_unchanged": _("该对状态未改变"),
    "duplicate_team": _("队代码“%(id)s”重复"),
    "pair_in_two_teams": _("第%(id)s对已属于队“%(other)s”"),
    "team_name_required": _("请填写队名"),
    "team_code_taken": _("队号“%(team)s”已被使用"),
    "team_size": _("每队须有两到三对（这里有 %(count)s 对）"),
    "unknown_team": _("队“%(id)s”不存在"),
    "two_team_byes": _("每轮最多一个轮空队"),
    "bye_team_plays": _("轮空队“%(id)s”本轮不能再有对局"),
    "pair_bye_in_team_event": _("团体赛中不能单独轮空一对（第%(id)s对），轮空的是整队（bye_team）"),
    "bad_match_table": _("第%(match)s场团体赛应在第2m−1和2m桌（m为场次）"),
    "match_one_table": _("第%(match)s场团体赛只有一桌，应有两桌"),
    "match_not_crossed": _(
        "第%(match)s场的两桌应由两队交叉就座（一队的两对一桌坐南北、一桌坐东西）"
    ),
    "registration_refused": _("报名表有 %(count)s 处问题，未导入"),
    # Staff accounts and check-in (tournaments.staff, tournaments.checkin)
    "account_count": _("账号数应为1到%(max)s"),
    "bad_username_prefix": _("用户名前缀“%(prefix)s”无效（只能用字母、数字和 @.+-_）"),
    "bad_table_range": _("桌号范围无效：起始桌号须不大于结束桌号"),
    "not_a_referee": _("%(user)s 不是本赛事的裁判或裁判长"),
    "cannot_remove_self": _("不能移除自己的权限"),
    "cannot_reset_own_password": _("不能在这里重置自己的密码"),
    "cannot_reset_password": _(
        "不能重置 %(user)s 的密码：该账号已停用，或在其他赛事也有权限（请由网站管理员处理）"
    ),
    "bad_checkin": _("签到方式无效"),
    "pair_not_active": _("第%(pair)s对已退赛或被取消资格，不能签到"),
    "not_checked_in": _("第%(pair)s对尚未签到"),
    "draw_exists": _("第%(round)s轮已有编排，请先删除草稿"),
    "nobody_checked_in": _("第%(round)s轮还没有任何参赛对签到，不能让全部参赛对退赛"),
    # Rounds and tables (TOURNAMENT_FILE.md "Deals"; pairing)
    "round_out_of_order": _("轮次应按顺序从1编号，这里应为 %(expected)s，而不是 %(value)s"),
    "round_after_unfinished": _("第%(unfinished)s轮尚未结束，其后不能再有轮次"),
    "duplicate_table": _("桌号 %(table)s 重复"),
    "pair_seated_twice": _("第%(id)s对在本轮已在第%(first_table)s桌入座"),
    "pair_seated_twice_bye": _("第%(id)s对在本轮已轮空"),
    "same_pair_both_sides": _("第%(id)s对不能与自己对阵"),
    "rematch": _("第%(a)s对与第%(b)s对已经交手过（第%(first_round)s轮），两对最多相遇一次"),
    "same_unit": _("第%(a)s对与第%(b)s对属于同一单位"),
    "unconfirmed_in_finished_round": _("已结束的轮次中各桌成绩都应已确认（这里是“%(value)s”）"),
    "round_in_progress": _("第%(number)s轮尚未结束，不能生成新一轮"),
    "rounds_complete": _("已达到计划轮数（%(rounds)s轮）"),
    "not_enough_pairs": _("参赛对不足，无法编排"),
    "too_few_pairs": _("参赛对不足，无法编排"),
    "not_enough_teams": _("参赛队不足，无法编排"),
    "team_cannot_field": _("队“%(team)s”不足两对可以出场，请先调整该队或将其退赛"),
    "same_team": _("请选择两个不同的队"),
    "team_not_in_round": _("队“%(team)s”不在本轮编排中"),
    "team_rematch": _("队“%(a)s”与队“%(b)s”已经交手过，两队最多相遇一次"),
    "team_same_unit": _("队“%(a)s”与队“%(b)s”属于同一单位"),
    "team_had_bye": _("队“%(team)s”已轮空过（第%(first_round)s轮），每队最多轮空一次"),
    "swap_whole_teams": _("团体赛只能整队调换（出场的两对由出场名单决定）"),
    # Line-ups (出场名单, RULES.md §6)
    "bad_captain_code": _("队长密码不正确"),
    "lineup_locked": _("第%(round)s轮已公布，出场名单不能再修改"),
    "lineup_same_pair": _("南北与东西须是两个不同的参赛对"),
    "lineup_pair_not_in_team": _("第%(pair)s对不属于队“%(team)s”"),
    "lineup_pair_inactive": _("第%(pair)s对已退赛或被取消资格，不能出场"),
    "team_withdrawn": _("队“%(team)s”已退赛"),
    "team_status_unchanged": _("该队状态未改变"),
    # Team standings (scoring.teams)
    "bad_team_scoring": _("团体赛计分方式“%(method)s”无效"),
    "pair_without_team": _("第%(pair)s对不属于任何队"),
    "bad_team_match": _("第%(round)s轮队“%(team)s”的两桌对阵不成一场团体赛"),
    "round_not_draft": _("只能修改草稿状态的轮次"),
    "round_not_published": _("该轮尚未公布或已结束"),
    "bad_round_minutes": _("本轮时长应在1到%(max)s分钟之间"),
    "round_not_finishable": _("还有 %(count)s 桌成绩未确认，不能结束本轮"),
    "round_has_results": _("第%(round)s轮已有 %(count)s 桌录入了成绩，不能撤回公布"),
    "round_has_penalties": _("第%(round)s轮已有判罚记录，不能撤回公布"),
    "pair_not_seated": _("第%(pair)s对不在进行中的轮次里"),
    "bad_table_choice": _("请选择该桌的处理方式：判弃权或照常比赛"),
    "pair_not_in_round": _("第%(pair)s对不在本轮编排中"),
    "same_pair": _("请选择两个不同的参赛对"),
    "no_bye_candidate": _("找不到可以轮空的参赛对"),
    "no_pairing_without_rematch": _("不存在避免重复交手的编排"),
    "bad_option": _("编排选项 %(option)s 的值“%(value)s”无效"),
    "bad_round": _("轮次 %(round)s 无效"),
    "unknown_round": _("第%(round)s轮不存在"),
    "no_rounds": _("本赛事还没有编排任何轮次"),
    "no_sheets": _("本轮没有需要记分的桌"),
    "no_filled_sheets": _("本轮没有已确认的桌，无法打印已填记分表"),
    # Tables at play (scoring services)
    "conflict": _("该桌成绩已被他人修改，请刷新后重试"),
    "table_is_bye": _("轮空桌无需录入成绩"),
    "table_confirmed": _("该桌成绩已确认，只能由裁判长更正"),
    "table_not_confirmed": _("该桌成绩尚未确认"),
    "table_not_open": _("该桌已提交录入，请先修改或确认"),
    "table_not_entered": _("该桌成绩尚未提交，不能确认"),
    "table_ended": _("该桌比赛已结束（弃权或判负），请先撤销结束方式"),
    "no_events": _("该桌还没有记录"),
    "same_person": _("确认人不能是录入人（须由另一人确认）"),
    "staff_not_a_pair": _(
        "您以本赛事工作人员的账号登录：请在裁判台以本人身份录入和确认，不能用参赛对的对号密码"
    ),
    "bad_pair_code": _("对号密码不正确"),
    "pair_code_required": _("请先输入您这一方的对号密码，再录入"),
    "table_link_read_only": _("裁判已提交本桌记分表，桌边链接只能查看"),
    "confirmer_entered": _("须由另一方确认：录入或提交的一方不能确认"),
    "penalty_withdrawn": _("该判罚已撤销"),
    # Appeals (申诉, RULES.md §3; scoring.appeals)
    "appeal_subject": _("申诉须针对本赛事的一桌或一项判罚"),
    "appeal_pair": _("申诉方须是该桌的一方或受罚的一方"),
    "appeal_text_required": _("请填写申诉内容"),
    "appeal_too_late": _(
        "第%(round)s轮已于 %(finished)s 结束，申诉须在结束后 %(minutes)s 分钟内提出"
    ),
    "appeal_decided": _("该申诉已裁决"),
    "appeal_decision_required": _("请填写裁决内容和仲裁委员会成员"),
    "bad_fee": _("申诉费无效"),
    "once_key_missing": _("表单缺少一次性校验码，没有保存：请刷新页面后重新提交"),
    "bad_once_key": _("表单已失效，请刷新页面后重试"),
    "no_table_for_pair": _("第%(pair)s对本轮没有对局，无法判负"),
    "reason_required": _("请填写更正原因"),
    # Correction deadlines (RULES.md §7; scoring.deadlines)
    "correction_too_late_round": _(
        "第%(round)s轮已于 %(finished)s 结束，录入错误须在结束后 %(minutes)s 分钟内更正；"
        "更正期限已过，仅裁判长可决定超过期限更正"
    ),
    "correction_too_late_stage": _(
        "第%(stage)s阶段已于 %(finished)s 结束，公布成绩错误须在结束后 %(minutes)s 分钟内更正；"
        "更正期限已过，仅裁判长可决定超过期限更正"
    ),
    "correction_minutes_malformed": _("更正时限应为 {round: 分钟, stage: 分钟}"),
    "bad_position": _("本桌没有这条记录，请刷新页面后重试"),
    "start_locked": _("已录入牌局，迟到起始级已锁定；如需修改请找裁判长"),
    "bad_end": _("结束方式无效，应为 forfeit、penalty_loss 或 late_sheet 之一"),
    "bad_end_side": _("“%(value)s”无效，应为 ns 或 ew"),
    # The scoring engine (rules.errors.ScoringError codes, RULES.md §1–§2)
    "bad_token": _("记录“%(token)s”无法识别"),
    "event_after_past_a": _("过A后不能再有牌局"),
    "extra_deal_without_tie": _("只有双方级数相同（现为 %(ns)s 与 %(ew)s）时才能加打一副"),
    "event_after_extra_deal": _("加打的一副已决定胜负，之后不能再有记录"),
    "penalty_loss_after_past_a": _("已有一方过A，比赛已结束，不能再判负"),
    "nothing_played": _("本桌没有任何牌局，也没有结束方式（弃权、判负或迟交记分表）"),
    "penalty_authority_malformed": _("判罚权限应为 {判罚类别: 角色}"),
    # Stages (RULES.md §8, TOURNAMENT_FILE.md "Stages")
    "stages_malformed": _("阶段设置应为 1 到 %(max)s 个阶段的列表，每个阶段是一个对象"),
    "stage_bad_value": _("第%(stage)s阶段：“%(key)s”的值“%(value)s”无效，可选：%(options)s"),
    "stage_unknown_key": _("第%(stage)s阶段：未知的键“%(key)s”"),
    "stage_unknown_setting": _(
        "第%(stage)s阶段的设置（settings）中不能有“%(key)s”（可设：%(options)s）"
    ),
    "stage_setting_twice": _("第%(stage)s阶段的“%(key)s”只能给出一次（阶段本身或其 settings 中）"),
    "stage_missing_key": _("第%(stage)s阶段：缺少“%(key)s”"),
    "stage_not_in_range": _(
        "第%(stage)s阶段：“%(key)s”应为 %(min)s 到 %(max)s 之间的整数，而不是 %(value)s"
    ),
    "stage_first_entrants": _("第%(stage)s阶段是第一个阶段，参赛者为全部报名者，不能设“entrants”"),
    "stage_after_knockout": _(
        "第%(stage)s阶段：前一个淘汰赛阶段没有设“until”（打到决赛），后面不能再有阶段"
    ),
    "stage_knockout_draw": _(
        "第%(stage)s阶段：淘汰赛不能有平局，级数相同时须加打一副（tie 应为 extra_deal）"
    ),
    "stage_until_last": _(
        "第%(stage)s阶段：设了“until”的淘汰赛在剩下 %(until)s 个参赛者时结束，后面须有下一阶段"
    ),
    "stage_until_third_place": _(
        "第%(stage)s阶段：设了“until”的淘汰赛不打到决赛，不能有三四名决赛（third_place）"
    ),
    "stage_until_power_of_two": _(
        "第%(stage)s阶段：没有附加赛时，“until”须是 2 的幂（2、4、8……），淘汰赛才会正好剩下这么多人"
    ),
    "stage_until_too_many": _(
        "第%(stage)s阶段：参赛者 %(entrants)s 个，须多于“until”（%(until)s 个）"
    ),
    "stage_repechage_impossible": _(
        "第%(stage)s阶段：附加赛无法编排。第%(round)s轮有 %(field)s 个参赛者，胜者 %(winners)s 个，"
        "进附加赛 %(pool)s 个；打一轮附加赛后人数在 %(low)s 到 %(high)s 之间，"
        "凑不成 %(until)s 乘以 2 的幂。请改附加赛的轮次或“until”"
    ),
    "stage_entrants_exceed_qualifiers": _(
        "第%(stage)s阶段：参赛者 %(entrants)s 个，超过上一阶段的出线数 %(qualifiers)s"
    ),
    "stage_groups_too_small": _(
        "第%(stage)s阶段：%(entrants)s 个参赛者不够分成 %(groups)s 个至少两人的小组"
    ),
    "stage_swiss_not_first": _("第%(stage)s阶段：瑞士移位只能是第一个阶段"),
    "stages_complete": _("所有 %(stages)s 个阶段都已结束"),
    "stage_too_few_entrants": _("第%(stage)s阶段只有 %(count)s 个参赛者，无法编排"),
    "knockout_undecided": _("第%(round)s轮还有未决出胜负的对阵"),
    "group_schedule_impossible": _("%(group)s组无法排出下一轮（剩余的对阵无法逐轮打完）"),
    "match_not_decided": _(
        "本场比赛尚未决出胜负（已打 %(games)s 局，%(best_of)s 局制；级数相同时须加打一副）"
    ),
    "match_decided": _("本场比赛已决出胜负，不能再有记录"),
    "not_best_of": _("本桌不是多局制的淘汰赛"),
    "game_not_decided": _("第%(game)s局尚未决出胜负"),
    "game_after_match": _("比赛已决出胜负，不能再有第%(game)s局"),
    "correct_games_split": _(
        "本场共 %(games)s 局：整场更正时记录条数不能改变，请逐局更正或按局给出成绩"
    ),
    "bad_game": _("没有第%(game)s局可以更正（本场共 %(games)s 局）"),
    "correct_bracket_drawn": _(
        "第%(round)s轮已经编排：这项更正会改变本场的胜方，不能更正"
        "（第%(round)s轮尚未开赛时，可先撤回发布并删除其编排）"
    ),
    "time_call_not_timed": _("只有计时制（级数相同时加打一副）的比赛可以记录到时加赛"),
    "time_already_called": _("本局已记录到时，请录入加打的一副"),
    "extra_deal_due": _("双方级数相同：须加打一副决定胜负，才能提交记分表"),
    "time_call_due": _("双方级数相同：请先记录“到时：加打一副”并录入加打的一副，才能提交记分表"),
    "time_levels_differ": _("双方级数不同，不须加赛：请结束本局或提交记分表"),
    "not_repechage_round": _(
        "“repechage”只能是 true，且只用于阶段设置的附加赛轮（这是本阶段第%(round)s轮）"
    ),
    "not_in_stage": _("本轮所在阶段不用“%(key)s”（group 用于小组赛，slot 和 games 用于淘汰赛）"),
    "games_instead": _("多局制淘汰赛的桌应在 games 中逐局给出“%(key)s”"),
    "stage_out_of_order": _("阶段不能倒退（这里是第%(value)s阶段，前一轮已是第%(last)s阶段）"),
    "no_knockout_stage": _("本赛事没有淘汰赛阶段"),
    "stage_not_knockout": _("第%(stage)s阶段不是淘汰赛阶段"),
    "bad_stage": _("阶段 %(stage)s 无效（本赛事共 %(stages)s 个阶段）"),
    "stage_is_knockout": _("第%(stage)s阶段是淘汰赛，没有积分排名，请查看对阵表（bracket）"),
    "stage_qualify_too_many": _(
        "第%(stage)s阶段：每组出线 %(qualify)s 个，应少于小组人数 %(size)s"
    ),
    "too_many_deals": _("超过本轮规定的 %(limit)s 副"),
    "too_few_deals": _("本轮须打满 %(required)s 副，只有 %(deals)s 副"),
    "game_not_finished": _("计局制比赛须打到一方过A（现有 %(deals)s 副）"),
    "bad_start": _("起始级数无效，应在2到A之间（%(level)s）"),
    "start_beyond_lateness": _(
        "起始级数 %(ns)s:%(ew)s 不符合本赛事的迟到规则：迟到方从2开始，守时方最多从%(top)s开始"
    ),
    "bad_level": _("级数“%(level)s”无效"),
    "bad_partner_place": _("同伴名次 %(place)s 无效（应为2、3或4）"),
    # Penalties (TOURNAMENT_FILE.md "Penalties"; scoring services)
    "table_without_round": _("给出了桌号却没有轮次"),
    "unknown_table": _("第%(round)s轮没有第%(table)s桌"),
    "pair_not_at_table": _("第%(id)s对不在第%(round)s轮第%(table)s桌"),
    "bad_deduction": _("扣分 %(value)s 无效（应大于0，最多两位小数）"),
    "jcf_not_deduction": _("只有级差分扣分（deduction）才能有 jcf"),
    "levels_not_award": _("只有升级调整（level_award）才能有 levels"),
    "bad_penalty": _("判罚信息不完整：%(detail)s"),
    "no_escalation": _("目前没有需要升级的判罚"),
    # Settings (rules.ruleset, TOURNAMENT_FILE.md "Settings")
    "invalid_settings": _("赛事设置无效"),
    "unknown_setting": _("未知的设置项“%(setting)s”"),
    "not_positive_integer": _("应为正整数，而不是 %(value)s"),
    "not_integer": _("应为整数，而不是 %(value)s"),
    "scale_malformed": _('级差分表应为 “26:0”、“28” 或 {"table": [[级差, 领先方, 落后方], …]}'),
    "scale_table_empty": _("级差分表不能为空"),
    "scale_row_malformed": _("级差分表第%(row)s行应为 [级差, 领先方得分, 落后方得分]"),
    "scale_not_consecutive": _("级差分表第%(row)s行的级差 %(jc)s 不连续（应从0起逐行加1）"),
    "scale_ahead_below_behind": _("级差分表中级差 %(jc)s 的领先方得分低于落后方"),
    "scale_draw_unequal": _("级差分表中级差 0 两方得分应相等（现为 %(ahead)s 与 %(behind)s）"),
    "scale_not_monotone": _("级差分表在级差 %(jc)s 处不是单调的"),
    "match_points_malformed": _("场分应为 win/draw/loss 三个数"),
    "match_points_order": _("场分应满足 胜 ≥ 平 ≥ 负（现为 %(win)s/%(draw)s/%(loss)s）"),
    "award_malformed": _('应为 {"cf": 场分, "jcf": 级差分}，两者都不能为负'),
    "award_absent_malformed": _(
        '缺席方得分应为 {"cf": 场分, "jcf": 级差分}：场分可以为负，级差分不能为负'
    ),
    "award_absent_above": _("缺席方的得分（%(absent)s）不能高于出席方（%(present)s）"),
    "bye_absent": _("轮空没有缺席方，不能设“absent”"),
    "upgrades_malformed": _(
        '升级数应为 {"double": 对家二游, "partner_3rd": 对家三游, "partner_4th": 对家末游}，'
        "每项为1到%(max)s的整数"
    ),
    "upgrades_order": _(
        "升级数应满足 对家二游 ≥ 对家三游 ≥ 对家末游"
        "（现为 %(double)s/%(partner_3rd)s/%(partner_4th)s）"
    ),
    "lateness_malformed": _(
        '迟到规则应为 "regulation"、"forfeit"、{"per_minutes": 分钟, "levels": 级数, '
        '"forfeit_after": 分钟} 或 {"loss_after": 分钟}'
    ),
    "escalation_malformed": _(
        '判罚升级应为 "regulation" 或 {"scope": "match"、"round" 或 "event", "steps": [步骤, …]}'
    ),
    "escalation_steps_count": _("判罚升级应有1到%(max)s步"),
    "escalation_step_kind": _("判罚升级第%(step)s步“%(value)s”无效，可选：%(options)s"),
    "escalation_step_levels": _("判罚升级第%(step)s步“判对手升级”须给出1到%(max)s级（levels）"),
    "escalation_step_no_levels": _("判罚升级第%(step)s步只有“判对手升级”才能给出级数（levels）"),
    "labels_malformed": _("列名应为 {排名依据: 名称}"),
    "label_bad": _("“%(key)s”的列名应为1到%(max)s个字"),
    "two_head_to_heads": _("“相互间胜负”与“两方相互间胜负”只能选一个"),
    "tie_first_to_level_untimed": _(
        "“先升到同一级者胜”只用于计时的赛制（计时制、计时计副制），这里的赛制是“%(format)s”"
    ),
    # rules.limits.number_problem: NaN, ±inf, 1e308, 5e-324 … (issue 29 point 7)
    "bad_number": _(
        "数值 %(value)s 无效：应为 %(min)s 到 %(max)s 之间、最多两位小数的数（级差分表第%(row)s行）"
    ),
    "unknown_criterion": _("未知的排名依据：%(keys)s"),
    "duplicate_criterion": _("排名依据重复"),
    "repeated_criterion": _("排名依据重复"),
    "cf_not_first": _("场分（cf）只能排在第一位"),
    "lot_not_last": _("抽签（lot）只能排在最后"),
    "tiebreaks_malformed": _("排名依据应为预设名称或依据列表"),
    # Standings input (scoring.standings.StandingsError)
    "repeated_pair": _("参赛对重复"),
    "bad_kind": _("比赛类型“%(kind)s”无效"),
    "bad_result": _("比赛结果“%(result)s”无效"),
    "bad_opponent": _("第%(round)s轮第%(pair)s对的对手“%(opponent)s”无效"),
    "repeated_outcome": _("第%(pair)s对在第%(round)s轮有两个结果"),
    # Commands
    "cannot_read": _("无法读取文件“%(path)s”：%(detail)s"),
    "import_refused": _("未导入：文件中有 %(count)s 处问题"),
    "cannot_write": _("无法写入文件“%(path)s”：%(detail)s"),
    "bad_after_round": _("第%(round)s轮不存在（本赛事共 %(rounds)s 轮）"),
}

# When a sentence names a parameter that a raise site calls differently (the file says ``id``
# where the standings say ``pair``), the other name is used.
_SAME_PARAM: dict[str, tuple[str, ...]] = {
    "id": ("pair",),
    "value": ("jcf",),
    "keys": ("criterion",),
}
# A trailing detail in brackets that names one parameter: dropped when the parameter is missing.
_OPTIONAL_DETAIL = r"\s*[（(][^（）()]*%\({name}\)s[^（）()]*[）)]"

# Names of JSON types in ``wrong_type``.
TYPE_NAMES: dict[str, Any] = {
    "object": _("对象"),
    "list": _("列表"),
    "string": _("文字"),
    "integer": _("整数"),
    "number": _("数字"),
    "null": _("空值（null）"),
    "boolean": _("真假值"),
}

# Settings keys as organizers know them (the settings page uses the same words).
SETTING_NAMES: dict[str, Any] = {
    "event": _("赛事类型"),
    "round_format": _("赛制"),
    "deals_per_round": _("每轮副数"),
    "rounds": _("轮数"),
    "scale": _("级差分表"),
    "match_points": _("场分"),
    "forfeit": _("弃权得分"),
    "bye": _("轮空得分"),
    "a_rule": _("打A规则"),
    "a_attempts": _("打A次数"),
    "tiebreaks": _("排名依据"),
    "same_unit": _("同单位回避"),
    "seed": _("随机种子"),
    "round1": _("第一轮编排"),
    "team_scoring": _("团体计分"),
    "stages": _("阶段"),
    "correction_minutes": _("更正时限"),
    "settings": _("赛事设置"),
    "minutes": _("每轮时长"),
    "upgrades": _("升级数"),
    "lateness": _("迟到"),
    "escalation": _("判罚升级"),
    "extra_deal_from": _("加打一副的级数"),
    "labels": _("列名"),
    "tie": _("级数相同"),
}


def _text(value: Any) -> str:
    """A param as it reads in a sentence (lists joined with 、, None as —)."""
    if value is None:
        return "—"
    if isinstance(value, list | tuple | set | frozenset):
        # The enumeration comma of the active language ("、" in Chinese, ", " in English).
        return pgettext("list separator", "、").join(_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class _Params(dict[str, str]):
    """A sentence's parameters; a missing one is looked up under its other name."""

    def __missing__(self, key: str) -> str:
        for other in _SAME_PARAM.get(key, ()):
            if other in self:
                return self[other]
        raise KeyError(key)


def sentence(code: str, params: Mapping[str, Any] | None = None) -> str:
    """The translated sentence for one code (no location)."""
    params = dict(params or {})
    if code == "pair_seated_twice" and params.get("first_table") is None:
        code = "pair_seated_twice_bye"
    if code == "wrong_type":
        for key in ("expected", "found"):
            name = TYPE_NAMES.get(str(params.get(key)))
            if name is not None:
                params[key] = str(name)
    template = MESSAGES.get(code)
    if template is None:
        return gettext("无法处理（%(code)s）") % {"code": code}
    text = gettext(str(template))
    values = _Params({key: _text(value) for key, value in params.items()})
    while "%(" in text:
        try:
            return text % values
        except KeyError as missing:
            # A raise site that knows less than the sentence: drop the bracketed detail.
            shorter = re.sub(
                _OPTIONAL_DETAIL.format(name=re.escape(str(missing.args[0]))), "", text
            )
            if shorter == text:
                return gettext("无法处理（%(code)s）") % {"code": code}
            text = shorter
        except (TypeError, ValueError):
            return gettext("无法处理（%(code)s）") % {"code": code}
    return text


def location(problem: Any) -> str:
    """Where a problem is, e.g. ``第3轮 第12桌 第5副`` (empty when nothing more specific)."""
    parts: list[str] = []
    get = getattr
    penalty = get(problem, "penalty", None)
    if penalty is not None:
        parts.append(gettext("第%(n)s条判罚") % {"n": penalty})
    round_number = get(problem, "round", None)
    if round_number is not None and penalty is None:
        parts.append(gettext("第%(n)s轮") % {"n": round_number})
    table = get(problem, "table", None)
    if table is not None and penalty is None:
        parts.append(gettext("第%(n)s桌") % {"n": table})
    deal = get(problem, "deal", None)
    event = get(problem, "event", None)
    if deal is not None:
        parts.append(gettext("第%(n)s副") % {"n": deal})
    elif event is not None:
        parts.append(gettext("第%(n)s条记录") % {"n": event})
    if not parts:
        pair = get(problem, "pair", None)
        unit = get(problem, "unit", None)
        team = get(problem, "team", None)
        setting = get(problem, "setting", None)
        if pair is not None:
            parts.append(gettext("第%(n)s对") % {"n": pair})
        elif unit is not None:
            parts.append(gettext("单位“%(id)s”") % {"id": unit})
        elif team is not None:
            parts.append(gettext("队“%(id)s”") % {"id": team})
        elif setting is not None:
            path_parts = str(setting).split(".")
            if len(path_parts) == 4 and path_parts[0] == "stages" and path_parts[2] == "settings":
                # A stage's own setting (RULES.md §9): "第2阶段 设置“场分”".
                parts.append(gettext("第%(n)s阶段") % {"n": path_parts[1]})
                path_parts = path_parts[3:]
            name = SETTING_NAMES.get(path_parts[0])
            parts.append(
                gettext("设置“%(name)s”")
                % {"name": str(name) if name is not None else ".".join(path_parts)}
            )
    path = get(problem, "path", "") or ""
    code = get(problem, "code", "")
    if not parts and path:
        parts.append(f"“{path}”")
    elif path and code in ("unknown_key", "missing_key", "wrong_type", "empty_text"):
        # The key path says which field of the table/pair/penalty is meant.
        return " ".join(parts) + f"（{path}）"
    return " ".join(parts)


def describe_problem(problem: Any) -> str:
    """One sentence for a ``FileProblem``, a settings ``Problem`` or anything with ``code`` and
    ``params``: its location, a colon, what is wrong."""
    code = getattr(problem, "code", str(problem))
    params = dict(getattr(problem, "params", None) or {})
    if code == "unknown_setting":
        code, params = "unknown_key", {"key": getattr(problem, "setting", params.get("key"))}
    where = location(problem)
    text = sentence(code, params)
    return f"{where}: {text}" if where else text


def describe_problems(problems: Iterable[Any]) -> str:
    """Every problem, one sentence a line."""
    return "\n".join(describe_problem(p) for p in problems)


def describe_error(error: Exception) -> str:
    """The sentence for an error: its problems, one a line, when it carries them (a settings or
    file error); else its code's sentence, after the record it is about when it has one."""
    problems = getattr(error, "problems", None)
    if problems:
        return describe_problems(problems)
    code = getattr(error, "code", None)
    if not isinstance(code, str):
        return str(error)
    params = dict(getattr(error, "params", None) or {})
    # ``position``: 0-based on a core error, 1-based in a service error's params.
    position = getattr(error, "position", None)
    number = position + 1 if isinstance(position, int) else params.pop("position", None)
    text = sentence(code, params)
    if isinstance(number, int):
        return gettext("第%(n)s条记录") % {"n": number} + f": {text}"
    return text


# The name the sheet, the forms and the commands know.
describe_rule_error = describe_error
