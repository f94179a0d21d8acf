"""``manage.py pair_round SLUG [--publish] [--json]`` — TOURNAMENT_FILE.md "Command line".

Pairs the next round (round 1 by lot, later rounds Swiss from confirmed results) through
``pairing.services.generate_round`` as a draft, and publishes it with ``--publish``.
``--json`` prints ``{"round", "tables": [{"table", "ns", "ew"}], "bye": pair_id or null}``;
for a team event ``{"round", "matches": [{"match", "teams": [x, y], "tables": [{"table", "ns",
"ew"}, …]}], "bye_team": team_id or null}`` (TOURNAMENT_FILE.md "Team events"), the tables
seated from the teams' line-ups.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext

from pairing import services as pairing_services
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
            .values_list("number", "is_bye", "ns__number", "ew__number")
        )
        tables = [{"table": n, "ns": ns, "ew": ew} for n, is_bye, ns, ew in rows if not is_bye]
        bye = next((ns for _n, is_bye, ns, _ew in rows if is_bye), None)
        if options["as_json"]:
            payload = {"round": rnd.number, "tables": tables, "bye": bye}
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=1))
            return
        status = gettext("已公布") if options["publish"] else gettext("草稿")
        lines = [gettext("第%(n)s轮（%(status)s）") % {"n": rnd.number, "status": status}]
        for table in tables:
            lines.append(
                gettext("第%(t)s桌  南北 %(ns)s  东西 %(ew)s")
                % {"t": table["table"], "ns": table["ns"], "ew": table["ew"]}
            )
        if bye is not None:
            lines.append(gettext("轮空  %(pair)s") % {"pair": bye})
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
