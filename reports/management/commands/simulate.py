"""``manage.py simulate SLUG --rounds N``: play N rounds with random realistic results.

For demos and benchmarks. Each round goes through the services as the system user: generated
(Swiss, from confirmed results), published, every table entered deal by deal (reports.demo),
marked entered, confirmed and the round finished. A round already published is completed first.
"""

from __future__ import annotations

import random
from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext

from tournaments.errors import ServiceError

from ._base import PlainCommand, get_tournament, refusal
from ._play import play_round


class Command(PlainCommand):
    help = "Play rounds with random realistic results (through the services)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--rounds", type=int, default=1)
        parser.add_argument("--seed", type=int, default=None, help="random seed for the results")

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = get_tournament(options["slug"])
        rng = random.Random(options["seed"])
        for _ in range(max(0, options["rounds"])):
            try:
                rnd = play_round(tournament, rng)
            except ServiceError as error:
                raise refusal(error) from None
            self.stdout.write(gettext("第%(n)s轮已完成") % {"n": rnd.number})
