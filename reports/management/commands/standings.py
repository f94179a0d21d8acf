"""``manage.py standings SLUG [--after-round N] [--stage K] [--json] [--pairs]`` —
TOURNAMENT_FILE.md "Command line", "Team events" and "Stages".

The standings from confirmed results (``scoring.cache.cached_standings``). By default after the
last finished round (shared/examples/README.md: what the golden standings files hold).
``--json`` prints ``{"tournament", "after_round", "rows": [...]}`` with the file's pair ids and
``decided_by`` naming the criterion that placed each row below the one above. A team event's
rows are its teams' (``"team"``: the file's team id); ``--pairs`` prints its pairs' rows.

``--stage K`` of a round-robin stage prints ``{"stage", "groups": [{"group", "rows": [...]}]}``
(``reports.stages.group_tables``); of a Swiss stage, the standings after its last round with
``"stage"``; a knockout has no standings (``bracket`` prints its places).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from reports.fileformat import standings_payload
from reports.stages import group_tables
from scoring.cache import cached_standings
from scoring.results import team_field
from tournaments.messages import sentence
from tournaments.models import Pair, Round, Team
from tournaments.wording import criterion_label

from ._base import PlainCommand, get_tournament, plain, refusal, whole_number


def last_finished_round(tournament: Any) -> int:
    return (
        Round.objects.filter(tournament=tournament, status=Round.Status.FINISHED)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
        or 0
    )


class Command(PlainCommand):
    help = "Print the standings after a round (default: the last finished round)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--after-round", type=whole_number(0), default=None, dest="after_round")
        parser.add_argument("--stage", type=whole_number(1), default=None)
        parser.add_argument("--json", action="store_true", dest="as_json")
        parser.add_argument(
            "--pairs", action="store_true", help="a team event: the pairs' rows, not the teams'"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = get_tournament(options["slug"])
        after = options["after_round"]
        stage = options["stage"]
        if stage is not None:
            stages = tournament.rules.stage_list
            if stage > len(stages):
                raise CommandError(sentence("bad_stage", {"stage": stage, "stages": len(stages)}))
            kind = stages[stage - 1].type
            if kind.has_bracket:  # it places its entrants: ``bracket`` prints them
                raise CommandError(sentence("stage_is_knockout", {"stage": stage}))
            if kind.has_groups:
                self.groups(tournament, stage, options["as_json"])
                return
            after = (
                Round.objects.filter(tournament=tournament, stage=stage)
                .order_by("-number")
                .values_list("number", flat=True)
                .first()
                or 0
            )
        if after is None:
            after = last_finished_round(tournament)
        else:
            existing = Round.objects.filter(tournament=tournament).count()
            if not 0 <= after <= existing:
                raise CommandError(
                    sentence("bad_after_round", {"round": after, "rounds": existing})
                )
        teams = tournament.rules.event == "teams" and not options["pairs"]
        try:
            rows = cached_standings(tournament, after_round=after, teams=teams)
        except Exception as error:
            if getattr(error, "code", None) is None:
                raise
            raise refusal(error) from None
        codes = team_field(tournament.pk).codes if teams else None
        payload = standings_payload(tournament.slug, after, rows, codes)
        if stage is not None:
            payload = {"stage": stage, **payload}
        if options["as_json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=1))
            return
        self.stdout.write(self.table(tournament, payload, teams))

    def groups(self, tournament: Any, stage: int, as_json: bool) -> None:
        payload = group_tables(tournament, stage)
        if as_json:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=1))
            return
        parts = []
        for group in payload["groups"]:
            title = gettext("%(group)s组") % {"group": group["group"]}
            parts.append(title + "\n" + self.table(tournament, {**group, "after_round": None}))
        self.stdout.write("\n\n".join(parts))

    def table(self, tournament: Any, payload: dict[str, Any], teams: bool = False) -> str:
        names: dict[Any, str] = {}
        if teams:
            names = dict(Team.objects.filter(tournament=tournament).values_list("code", "name"))
        else:
            for pair in Pair.objects.filter(tournament=tournament).prefetch_related("players"):
                names[pair.number] = pair.player_names
        key = "team" if teams else "pair"
        title = tournament.name
        if payload["after_round"] is not None:
            title += " — " + gettext("第%(n)s轮后排名") % {"n": payload["after_round"]}
        lines = [
            title,
            "\t".join(
                [
                    gettext("名次"),
                    gettext("编号"),
                    gettext("选手"),
                    gettext("场分"),
                    gettext("级差分"),
                    gettext("胜"),
                    gettext("平"),
                    gettext("负"),
                    gettext("总级差"),
                    gettext("对手分"),
                    gettext("扣分"),
                    gettext("依据"),
                ]
            ),
        ]
        for row in payload["rows"]:
            lines.append(
                "\t".join(
                    str(plain(v))
                    for v in (
                        row["rank"],
                        row[key],
                        names.get(row[key], ""),
                        row["cf"],
                        row["jcf"],
                        row["wins"],
                        row["draws"],
                        row["losses"],
                        row["level_difference"],
                        row["opponents_cf"],
                        row["deductions"],
                        criterion_label(row["decided_by"]),
                    )
                )
            )
        return "\n".join(lines)
