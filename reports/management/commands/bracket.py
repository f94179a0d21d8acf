"""``manage.py bracket SLUG [--stage K] [--json]`` — TOURNAMENT_FILE.md "Stages".

A knockout stage's bracket (``--stage K``, else the event's last knockout stage; 初赛/复赛/决赛
are three): every round's matches (a bye has ``"b": null``), each game's final
levels, the winners, and the placings (``reports.stages.bracket``). ``--json`` prints
``{"stage", "rounds": [{"round", "matches": [{"a", "b", "winner", "games"}]}], "placings":
[{"place", "entrant"}]}`` (the repechage round and its matches ``"repechage": true``; a stage
with ``until``, once finished, ``"qualifiers"``); without it, one line a match.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from reports.stages import bracket, knockout_stage
from tournaments.messages import sentence

from ._base import PlainCommand, get_tournament


class Command(PlainCommand):
    help = "Print the knockout bracket and the placings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--stage", type=int, default=None)
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = get_tournament(options["slug"])
        wanted = options["stage"]
        stage = knockout_stage(tournament, wanted)
        if stage is None and wanted is not None:
            raise CommandError(sentence("stage_not_knockout", {"stage": wanted}))
        if stage is None:
            raise CommandError(sentence("no_knockout_stage", {}))
        payload = bracket(tournament, stage)
        if options["as_json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=1))
            return
        lines = []
        for played in payload["rounds"]:
            title = gettext("第%(n)s轮") % {"n": played["round"]}
            if played.get("repechage"):
                title += " " + gettext("附加赛")
            lines.append(title)
            for match in played["matches"]:
                games = " ".join(f"{a}:{b}" for a, b in match["games"])
                b = match["b"] if match["b"] is not None else gettext("轮空")
                winner = match["winner"] if match["winner"] is not None else "—"
                lines.append(f"  {match['a']} — {b}  {games}  → {winner}")
        if payload["placings"]:
            lines.append(gettext("名次"))
            lines.extend(f"  {p['place']}  {p['entrant']}" for p in payload["placings"])
        self.stdout.write("\n".join(lines))
