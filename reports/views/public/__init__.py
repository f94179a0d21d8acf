"""The public pages players use without logging in: the site's home and language switch, a
tournament's page, "find my table", standings, a pair's history, the projector, the published
rounds' pairings, a team event's teams and a staged event's bracket, groups and placings.

They sit in ``reports`` (the top layer) because they read everything below: registrations,
rounds, results and standings. Views are thin (STYLE.md) and read only, with bounded queries
(every list is paginated or limited). One module per family of pages:

- ``common``: the page cache (``public_page``), the rounds that count, the default standings;
- ``site``: the list of tournaments and the language switch;
- ``tournament``: a tournament's home page and "find my seat";
- ``standings``: the standings and a pair's page;
- ``projector``: the projector's pairings and standings;
- ``rounds``: the published rounds and their pairings;
- ``teams``: a team event's teams and a team's page;
- ``stages``: the bracket, the group tables and the final placings.

``reports/urls/public.py`` names the views from here.
"""

from .common import PUBLIC_CACHE_SECONDS, PUBLIC_MAX_AGE, public_page, standings_round
from .projector import projector
from .rounds import round_public, rounds
from .site import home, language
from .stages import bracket, groups, placings, placings_done
from .standings import pair_detail, pair_history, standings
from .teams import team_detail, teams
from .tournament import FIND_LIMIT, detail, find, search_pairs

__all__ = [
    "FIND_LIMIT",
    "PUBLIC_CACHE_SECONDS",
    "PUBLIC_MAX_AGE",
    "bracket",
    "detail",
    "find",
    "groups",
    "home",
    "language",
    "pair_detail",
    "pair_history",
    "placings",
    "placings_done",
    "projector",
    "public_page",
    "round_public",
    "rounds",
    "search_pairs",
    "standings",
    "standings_round",
    "team_detail",
    "teams",
]
