"""``manage.py pair_round SLUG [--publish] [--json]`` — TOURNAMENT_FILE.md "Command line".

Pairs the next round (round 1 by lot, later rounds Swiss from confirmed results) through
``pairing.services.generate_round`` as a draft, and publishes it with ``--publish``.
``--json`` prints ``{"round", "tables": [{"table", "ns", "ew"}], "bye": pair_id or null}``;
for a team event ``{"round", "matches": [{"match", "teams": [x, y], "tables": [{"table", "ns",
"ew"}, …]}], "bye_team": team_id or null}`` (TOURNAMENT_FILE.md "Team events"), the tables
seated from the teams' line-ups.
With stages (TOURNAMENT_FILE.md "Stages") it pairs the next round of the current stage (a new
stage begins when the previous one is finished) and prints ``"stage"`` too; a group table
carries ``"group"``, a knockout table ``"slot"``, and ``"byes"`` lists every bye of a round
that has several (groups of odd size, a knockout's first round). A knockout's repechage round
(附加赛) is marked ``"repechage": true``, and so is each of its tables.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext

from pairing import services as pairing_services
from pairing.kinds.knockout import is_repechage_round
from tournaments.errors import ServiceError
from tournaments.models import Table

from ._base import PlainCommand, get_tournament, refusal


class Command(PlainCommand):
    help = "Pair the next round (a draft; --publish to publish it)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--publish", action="store_true")
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = get_tournament(options["slug"])
        try:
            rnd = pairing_services.generate_round(tournament)
            if options["publish"]:
                rnd = pairing_services.publish_round(rnd)
        except ServiceError as error:
            raise refusal(error) from None
        if tournament.rules.event == "teams":
            self.team_round(rnd, options)
            return
        rows = list(
            Table.objects.filter(round=rnd)
            .order_by("number")
            .values_list("number", "is_bye", "ns__number", "ew__number", "group", "slot")
        )
        repechage = is_repechage_round(tournament, rnd)
        tables = []
        for n, is_bye, ns, ew, group, slot in rows:
            if is_bye:
                continue
            table: dict[str, Any] = {"table": n, "ns": ns, "ew": ew}
            if group:
                table["group"] = group
            if slot is not None:
                table["slot"] = slot
            if repechage:
                table["repechage"] = True
            tables.append(table)
        byes = [ns for _n, is_bye, ns, *_rest in rows if is_bye]
        bye = byes[0] if byes else None
        staged = bool(tournament.rules.stages)
        if options["as_json"]:
            payload: dict[str, Any] = {"round": rnd.number}
            if staged:
                payload["stage"] = rnd.stage
            if repechage:
                payload["repechage"] = True
            payload.update({"tables": tables, "bye": bye})
            if staged and len(byes) > 1:
                payload["byes"] = byes
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=1))
            return
        status = gettext("已公布") if options["publish"] else gettext("草稿")
        lines = [gettext("第%(n)s轮（%(status)s）") % {"n": rnd.number, "status": status}]
        for table in tables:
            lines.append(
                gettext("第%(t)s桌  南北 %(ns)s  东西 %(ew)s")
                % {"t": table["table"], "ns": table["ns"], "ew": table["ew"]}
            )
        if staged:
            lines[0] += " " + gettext("第%(n)s阶段") % {"n": rnd.stage}
        if repechage:
            lines[0] += " " + gettext("附加赛")
        for pair in byes:
            lines.append(gettext("轮空  %(pair)s") % {"pair": pair})
        self.stdout.write("\n".join(lines))

    def team_round(self, rnd: Any, options: dict[str, Any]) -> None:
        payload = pairing_services.round_matches(rnd)
        if options["as_json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=1))
            return
        status = gettext("已公布") if options["publish"] else gettext("草稿")
        lines = [gettext("第%(n)s轮（%(status)s）") % {"n": rnd.number, "status": status}]
        for match in payload["matches"]:
            x, y = match["teams"]
            lines.append(
                gettext("第%(m)s场  %(x)s 对 %(y)s") % {"m": match["match"], "x": x, "y": y}
            )
            for table in match["tables"]:
                lines.append(
                    "  "
                    + gettext("第%(t)s桌  南北 %(ns)s  东西 %(ew)s")
                    % {"t": table["table"], "ns": table["ns"], "ew": table["ew"]}
                )
        if payload["bye_team"] is not None:
            lines.append(gettext("轮空队  %(team)s") % {"team": payload["bye_team"]})
        self.stdout.write("\n".join(lines))
