"""``manage.py demo [--if-empty]``: a realistic demo tournament, built through the services.

48 pairs from 12 units with Chinese names, 7 rounds planned (regulation preset, 26:0), rounds 1–5
finished with realistic deals, fouls, a 判负 or forfeit now and then, warnings and deductions;
one pair withdraws after round 3; round 6 is published and partly entered (some tables
confirmed, some entered and waiting for confirmation, some in the middle of play, some not
started). A second event (RULES.md §8, ``demo-ko``): 24 pairs, 5 Swiss rounds, then the top 8
in a knockout played best of three with a third-place match — the quarter-finals played, the
semi-finals published, one of them in its second game. Accounts: an organizer, a chief
referee and a referee of the tournaments, and a superuser for the Django admin; their password
is printed. ``make run`` calls it with
``--if-empty`` so a fresh database shows something at once.
"""

from __future__ import annotations

import random
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandParser
from django.db import transaction
from django.utils.translation import gettext

from pairing import services as pairing_services
from reports.demo import CITIES, CITY_CODES, person_name
from rules.ruleset import preset_settings
from scoring import services as scoring_services
from tournaments import services as tournament_services
from tournaments.errors import ServiceError
from tournaments.models import Pair, Tournament

from ._base import PlainCommand, refusal
from ._play import play_round, play_table, round_tables

PASSWORD = "guandan-demo"  # noqa: S105 - a demo account, printed on purpose
SLUG = "demo"
NAME = "2026 秋季掼蛋公开赛（演示）"
# (username, role in the tournament or None, description)
ACCOUNTS = (
    ("organizer", "organizer", "组委会/编排"),
    ("chief", "chief_referee", "裁判长"),
    ("referee", "referee", "裁判"),
    ("admin", None, "系统管理员（Django admin）"),
)
UNITS = 12
PAIRS = 48
ROUNDS = 7
FINISHED = 5
SEED = 20261129
# The team event (复式/团体, RULES.md §6): 12 teams of two units each, 4 rounds played, round 5
# drawn with a line-up set by a captain.
TEAM_SLUG = "demo-teams"
TEAM_NAME = "2026 单位掼蛋团体赛（演示）"
TEAMS = 12
TEAM_ROUNDS = 5
TEAM_PLAYED = 4


class Command(PlainCommand):
    help = "Create a realistic demo tournament and demo accounts, and print how to log in."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing if any tournament exists"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["if_empty"] and Tournament.objects.exists():
            self.stdout.write(gettext("数据库中已有赛事，未创建演示赛事。"))
            self.print_accounts()
            return
        if Tournament.objects.filter(slug=SLUG).exists():
            self.stdout.write(gettext("演示赛事“%(slug)s”已存在。") % {"slug": SLUG})
            self.print_accounts()
            return
        try:
            users = self.accounts()
            # One transaction each: all or nothing, and one commit instead of thousands (SQLite).
            for build in (build_demo, build_stage_demo, build_team_demo):
                with transaction.atomic():
                    tournament = build(users, self.stdout.write)
                self.stdout.write(
                    gettext("演示赛事已创建：%(name)s（/t/%(slug)s/）")
                    % {"name": tournament.name, "slug": tournament.slug}
                )
        except ServiceError as error:
            raise refusal(error) from None
        self.print_accounts()

    def accounts(self) -> dict[str, Any]:
        User = get_user_model()
        users = {}
        with transaction.atomic():
            for username, _role, _label in ACCOUNTS:
                user, created = User.objects.get_or_create(username=username)
                if created:
                    user.set_password(PASSWORD)
                    if username == "admin":
                        user.is_staff = user.is_superuser = True
                    user.save()
                users[username] = user
        return users

    def print_accounts(self) -> None:
        User = get_user_model()
        existing = set(
            User.objects.filter(username__in=[a[0] for a in ACCOUNTS]).values_list(
                "username", flat=True
            )
        )
        if not existing:
            return
        self.stdout.write(gettext("登录（/accounts/login/），密码均为 %(password)s：")
                          % {"password": PASSWORD})  # fmt: skip
        for username, _role, label in ACCOUNTS:
            if username in existing:
                self.stdout.write(f"  {username:<10} {gettext(label)}")


def build_demo(users: dict[str, Any], say: Any = print) -> Tournament:
    """The demo tournament, through the services (each step is its own transaction)."""
    rng = random.Random(SEED)
    organizer, chief, referee = users["organizer"], users["chief"], users["referee"]
    settings = preset_settings("regulation")
    settings.update({"rounds": ROUNDS, "seed": SEED})
    tournament = tournament_services.create_tournament(NAME, SLUG, organizer, settings=settings)
    tournament_services.grant_role(tournament, chief, "chief_referee", organizer)
    tournament_services.grant_role(tournament, referee, "referee", organizer)
    for code, name in zip(CITY_CODES[:UNITS], CITIES[:UNITS], strict=True):
        tournament_services.add_unit(tournament, code, name + "队", organizer)
    for number in range(1, PAIRS + 1):
        unit = CITY_CODES[(number - 1) % UNITS]
        players = [person_name(rng), person_name(rng)]
        tournament_services.register_pair(tournament, players, organizer, unit=unit)
    for number in range(1, FINISHED + 1):
        if number == 4:
            pair = Pair.objects.get(tournament=tournament, number=rng.randint(1, PAIRS))
            tournament_services.withdraw_pair(pair, organizer, reason="家中有事，退出比赛")
        rnd = play_round(tournament, rng, organizer, chief, referee)
        say(gettext("第%(n)s轮已完成") % {"n": rnd.number})
    # Round 6: published and partly entered — what a referee sees in the middle of a round.
    rnd = pairing_services.generate_round(tournament, organizer)
    rnd = pairing_services.publish_round(rnd, organizer)
    seed = tournament.rules.seed or 0
    for k, table in enumerate(round_tables(rnd)):
        if k % 4 in (0, 1):  # half the tables: entered and confirmed
            play_table(table, rng, chief, referee, seed=seed)
        elif k % 8 == 2:  # entered, waiting for the second person's confirmation
            play_table(table, rng, chief, referee, seed=seed, enter_only=True)
        elif k % 8 in (3, 6):  # still playing: a few deals so far
            play_table(table, rng, chief, referee, seed=seed, deals=rng.randint(2, 5))
        # the rest: not started
    say(gettext("第%(n)s轮已公布，部分桌已录入") % {"n": rnd.number})
    return tournament


def build_team_demo(users: dict[str, Any], say: Any = print) -> Tournament:
    """The demo team event, through the same services: ``tournaments.teams.register_team``
    (as the team sheet import does), the team Swiss of ``pairing.services``, a captain's
    line-up (``tournaments.lineups.set_lineup``) and the tables played as in ``build_demo``."""
    from tournaments.lineups import set_lineup, team_pairs
    from tournaments.teams import register_team

    rng = random.Random(SEED + 1)
    organizer, chief, referee = users["organizer"], users["chief"], users["referee"]
    settings = preset_settings("regulation")
    settings.update({"event": "teams", "rounds": TEAM_ROUNDS, "seed": SEED + 1})
    tournament = tournament_services.create_tournament(
        TEAM_NAME, TEAM_SLUG, organizer, settings=settings
    )
    tournament_services.grant_role(tournament, chief, "chief_referee", organizer)
    tournament_services.grant_role(tournament, referee, "referee", organizer)
    units = TEAMS // 2
    for code, name in zip(CITY_CODES[:units], CITIES[:units], strict=True):
        tournament_services.add_unit(tournament, code, name + "公司", organizer)
    for number in range(1, TEAMS + 1):
        size = 3 if number % 4 == 0 else 2  # every fourth team registers a third pair
        pairs = [[person_name(rng), person_name(rng)] for _ in range(size)]
        city = CITIES[(number - 1) % units]
        register_team(
            tournament,
            f"{city}{(number - 1) // units + 1}队",
            pairs,
            organizer,
            unit=CITY_CODES[(number - 1) % units],
        )
    for _number in range(1, TEAM_PLAYED + 1):
        rnd = play_round(tournament, rng, organizer, chief, referee)
        say(gettext("第%(n)s轮已完成") % {"n": rnd.number})
    # Round 5: a captain fields the third pair, then the round is drawn and published.
    from tournaments.models import Team

    team = Team.objects.filter(tournament=tournament).order_by("pk")[3]
    members = team_pairs(team)
    set_lineup(team, TEAM_PLAYED + 1, members[2], members[0], captain_code=team.captain_code)
    rnd = pairing_services.generate_round(tournament, organizer)
    rnd = pairing_services.publish_round(rnd, organizer)
    seed = tournament.rules.seed or 0
    for k, table in enumerate(round_tables(rnd)):
        if k < 4:  # two matches: both tables confirmed
            play_table(table, rng, chief, referee, seed=seed)
        elif k == 4:  # one table of a match confirmed, the other still playing
            play_table(table, rng, chief, referee, seed=seed)
        elif k == 5:
            play_table(table, rng, chief, referee, seed=seed, deals=3)
    say(gettext("第%(n)s轮已公布，部分桌已录入") % {"n": rnd.number})
    return tournament


STAGE_SLUG = "demo-ko"
STAGE_NAME = "2026 冬季掼蛋邀请赛（分阶段演示）"
STAGE_PAIRS = 24
STAGE_UNITS = 8
STAGES = [
    {"kind": "swiss", "rounds": 5},
    {"kind": "knockout", "entrants": 8, "best_of": 3, "third_place": True, "deals_per_round": 4},
]
# The first semi-final so far: game 1 (four deals, North–South 8 : 4), game 2's first deal.
SEMI_FINAL_SO_FAR = ("NS3", "EW2", "NS2", "NS1", "EW2")


def build_stage_demo(users: dict[str, Any], say: Any = print) -> Tournament:
    """The staged demo (RULES.md §8): 5 Swiss rounds, then a top-8 knockout, best of three,
    in progress — what the bracket page and a knockout sheet look like during the semi-finals."""
    rng = random.Random(SEED + 1)
    organizer, chief, referee = users["organizer"], users["chief"], users["referee"]
    settings = preset_settings("regulation")
    settings.update({"seed": SEED + 1, "stages": STAGES})
    tournament = tournament_services.create_tournament(
        STAGE_NAME, STAGE_SLUG, organizer, settings=settings
    )
    tournament_services.grant_role(tournament, chief, "chief_referee", organizer)
    tournament_services.grant_role(tournament, referee, "referee", organizer)
    for code, name in zip(CITY_CODES[:STAGE_UNITS], CITIES[:STAGE_UNITS], strict=True):
        tournament_services.add_unit(tournament, code, name + "队", organizer)
    for number in range(1, STAGE_PAIRS + 1):
        unit = CITY_CODES[(number - 1) % STAGE_UNITS]
        players = [person_name(rng), person_name(rng)]
        tournament_services.register_pair(tournament, players, organizer, unit=unit)
    for _swiss_round in range(STAGES[0]["rounds"]):
        play_round(tournament, rng, organizer, chief, referee)
    quarter = play_round(tournament, rng, organizer, chief, referee)
    say(gettext("第%(n)s轮已完成") % {"n": quarter.number})
    semi = pairing_services.publish_round(
        pairing_services.generate_round(tournament, organizer), organizer
    )
    table = round_tables(semi)[0]
    for token in SEMI_FINAL_SO_FAR:
        table = scoring_services.enter_event(table, token, referee, table.version)
    say(gettext("第%(n)s轮已公布，部分桌已录入") % {"n": semi.number})
    return tournament
