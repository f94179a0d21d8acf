"""What a kind of stage is (RULES.md §8), as pure data and checks: the base of the stage-kind
registry (``rules.kinds``).

A kind — ``swiss``, ``round_robin``, ``knockout`` … — is one ``StageKind``, defined in a module of
its own under ``rules/kinds/`` and registered in ``rules.kinds.KINDS``. That module is the one
place for the kind's settings keys (``fields``: in the file's order, each with how it is read),
its checks (its own settings, what it asks of the stage after it, what its entrants allow), its
defaults (seeding, tie rule) and its capabilities. The layers above ask the capabilities
(``stage.type.series``, ``stage.type.has_groups`` …) and never compare the kind's name; what a
kind does there is in one module a layer (docs/architecture.md "Stage kinds").

Pure: the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rules.errors import Problem

if TYPE_CHECKING:
    from rules.stages import Stage

MAX_STAGE_NUMBER = 100_000  # rounds, groups, entrants: far beyond any event, inside every column


def gettext_noop(message: str) -> str:
    """Marks a kind's name for the message catalogue (``makemessages`` finds it by this name);
    ``tournaments.wording.stage_kind_label`` translates it. The pure core imports no Django."""
    return message


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Reader:
    """Reads one stage object's values, adding a problem for each wrong one."""

    def __init__(
        self,
        item: Mapping[str, Any],
        number: int,
        problems: list[Problem],
        round_formats: tuple[str, ...],
        ties: tuple[str, ...],
    ) -> None:
        self.item, self.number, self.problems = item, number, problems
        self.round_formats, self.ties = round_formats, ties
        self.where = f"stages.{number}"

    def count(self, key: str, required: bool = False, minimum: int = 1) -> int | None:
        if key not in self.item:
            if required:
                params = {"stage": self.number, "key": key}
                self.problems.append(Problem(self.where, "stage_missing_key", params))
            return None
        value = self.item[key]
        if not _is_int(value) or not minimum <= value <= MAX_STAGE_NUMBER:
            params = {"stage": self.number, "key": key, "value": value, "min": minimum}
            params["max"] = MAX_STAGE_NUMBER
            self.problems.append(Problem(self.where, "stage_not_in_range", params))
            return None
        return int(value)

    def option(self, key: str, options: tuple[Any, ...]) -> Any:
        if key not in self.item:
            return None
        value = self.item[key]
        # True == 1: a boolean is an answer only where booleans are the options.
        if value not in options or isinstance(value, bool) != isinstance(options[0], bool):
            params = {"stage": self.number, "key": key, "value": value, "options": options}
            self.problems.append(Problem(self.where, "stage_bad_value", params))
            return None
        return value


# How one key is read: the value, or None (not given, or wrong: then a problem is added).
FieldReader = Callable[[Reader], Any]


def count(key: str, *, required: bool = False, minimum: int = 1) -> FieldReader:
    """A whole number of ``minimum`` … ``MAX_STAGE_NUMBER``."""
    return lambda read: read.count(key, required, minimum)


def option(key: str, options: tuple[Any, ...]) -> FieldReader:
    """One of ``options``."""
    return lambda read: read.option(key, options)


# The keys every kind of stage accepts: which entrants (after the first stage) …
ENTRANT_FIELDS: dict[str, FieldReader] = {
    "entrants": count("entrants", minimum=2),
    "per_unit": count("per_unit"),
}
# … and the tournament's settings a stage may override (``RuleSet.for_stage``), with its own
# correction deadline (RULES.md §7). Each kind lists them last, in this order.
COMMON_FIELDS: dict[str, FieldReader] = {
    "round_format": lambda read: read.option("round_format", read.round_formats),
    "deals_per_round": count("deals_per_round"),
    "tie": lambda read: read.option("tie", read.ties),
    "correction_minutes": count("correction_minutes", minimum=0),
}


class StageKind:
    """One kind of stage. A subclass a kind (``rules/kinds/<name>.py``); the defaults below are
    a stage that asks nothing of its neighbours."""

    name: str  # the file's ``kind``
    label: str  # its name in Chinese, the catalogue's msgid (``gettext_noop``)
    # Its keys besides ``kind``, in the order ``Stage.to_dict`` writes them, each with its reader.
    fields: Mapping[str, FieldReader]
    # The ``seeding`` options; ``default_seeding`` when the stage gives none.
    seedings: tuple[str, ...] = ()
    default_seeding: str = ""
    # The tie rule when the stage gives none (None: the tournament's; RULES.md §2, §8).
    default_tie: str | None = None

    # Capabilities: what the layers above ask instead of the kind's name.
    # Its rounds are paired by the Swiss engine on the event's standings (``pairing.swiss``).
    swiss_paired: bool = False
    # Its entrants play in groups (``Table.group``): group tables on the pages, PDF and Excel.
    has_groups: bool = False
    # It is a bracket that places its entrants: bracket page, PDF, score sheets, placings.
    has_bracket: bool = False
    # Its matches are best-of-n series, scored game by game (``Stage.games``; ``Game`` rows,
    # ``scoring.games``), never a draw.
    series: bool = False
    # Its tables give standings points (a bracket's decide places only).
    gives_points: bool = True

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key a stage of this kind accepts, ``kind`` first."""
        return ("kind", *self.fields)

    def planned_rounds(self, stage: Stage) -> int | None:
        """How many rounds the stage plays when its settings say it (None: its results say
        when it is over)."""
        return None

    def passes_on(self, stage: Stage) -> int | None:
        """How many entrants the stage passes to the next, when its settings say it."""
        return None

    # -- checks (RULES.md §8), each problem naming the stage ----------------------------------

    def later_problems(self, stage: Stage, number: int) -> list[Problem]:
        """What is wrong with the stage as stage ``number`` > 1 (after another stage)."""
        return []

    def follower_problems(self, stage: Stage, follower: Stage, number: int) -> list[Problem]:
        """What is wrong with ``follower`` (stage ``number``) coming after this stage."""
        return []

    def settings_problems(self, stage: Stage, number: int) -> list[Problem]:
        """The stage's own settings, on their own."""
        return []

    def field_problems(self, stage: Stage, number: int, entrants: int | None) -> list[Problem]:
        """The stage with its entrants (``entrants``: their number when the settings say it)."""
        return []

    def last_problems(self, stage: Stage, number: int) -> list[Problem]:
        """What is wrong with the stage as the event's last."""
        return []


def exceed_problem(follower: Stage, number: int, qualifiers: int) -> list[Problem]:
    """``stage_entrants_exceed_qualifiers`` when stage ``number`` asks for more entrants than
    the stage before it passes on."""
    if follower.entrants is None or follower.entrants <= qualifiers:
        return []
    params = {"stage": number, "entrants": follower.entrants, "qualifiers": qualifiers}
    return [Problem(f"stages.{number}", "stage_entrants_exceed_qualifiers", params)]
