"""Who may do what, walked on both sides (issue 27 "One authority"): every role × every action,
on the pages (is the button, the form or the choice offered?) and on the services (does the
service let the user through?). They must agree, and with the defaults they must give the table
of RULES.md §3 and ``tournaments.permissions`` (``EXPECTED``, docs/architecture.md "Who may do
what"): a page never offers what the service refuses, nor hides what it allows.

One scene per role (``scene``): an event of 8 pairs, round 1 played, confirmed and finished 11
minutes ago (its entry-error deadline has passed: the chief referee's override), round 2 in
play with a table open (two deals), one submitted, one confirmed and one whose last event is a
foul; two violations of one pair and two warnings of the other at the open table (the
escalations), an appeal-able confirmed table, a pair checked in for round 3. Every service call
runs in a transaction rolled back afterwards, so each probe sees the same scene.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from pairing import services as pairing_services
from rules.ruleset import DEFAULT_PENALTY_AUTHORITY, PENALTY_ROLES, preset_settings
from scoring import appeals, clock, penalties, penalty_records
from scoring import services as scoring_services
from scoring.corrections import Edit
from scoring.models import Penalty
from tests.support.pages import EIGHT
from tests.support.tournament import build_tournament, enter_tokens, make_user, play_table
from tournaments import checkin
from tournaments import services as tournament_services
from tournaments.errors import ForbiddenError, ServiceError
from tournaments.models import Pair, Round, Table, Tournament
from tournaments.permissions import (
    ACTION_ROLES,
    PENALTY_ACTIONS,
    Action,
    Role,
    action_roles,
    may,
)

ACTORS = (
    "organizer",
    "chief",
    "referee",
    "organizer_referee",
    "outsider",
    "anonymous",
    "superuser",
)
RECORD_KINDS = tuple(Penalty.Kind.values)


# --------------------------------------------------------------------------------------------
# The scene


@dataclass
class Scene:
    tournament: Tournament
    users: dict[str, Any]
    finished: Table  # round 1, confirmed, the entry-error deadline passed
    open: Table  # round 2, two deals entered, open
    submitted: Table  # round 2, eight deals, submitted by another referee
    confirmed: Table  # round 2, confirmed (within its deadline: the round is on)
    fouled: Table  # round 2, its last event the chief referee's foul
    warned: Pair  # two warnings in round 2: a violation is suggested
    violated: Pair  # two violations in round 2: a foul is suggested
    penalty: Penalty  # one of the warnings (to withdraw)
    pages: dict[tuple[str, str], str]  # (actor, url) → the page's HTML ("" when refused)

    def fresh(self, table: Table) -> Table:
        return Table.objects.select_related("round__tournament", "ns", "ew").get(pk=table.pk)

    def event(self) -> Tournament:
        return Tournament.objects.get(pk=self.tournament.pk)


def build_scene(settings: dict[str, Any] | None = None) -> Scene:
    users = {name: make_user(name) for name in ("organizer", "chief", "referee", "outsider")}
    users["organizer_referee"] = make_user("organizer_referee")
    users["superuser"] = get_user_model().objects.create_superuser("root", password="pw-root")
    users["anonymous"] = AnonymousUser()
    enterer, confirmer = make_user("enterer"), make_user("confirmer")
    settings = {**preset_settings("regulation"), "rounds": 7, "seed": 20261129, **(settings or {})}
    organizer, chief = users["organizer"], users["chief"]
    tournament = build_tournament(
        organizer, chief, [users["referee"], enterer, confirmer], settings=settings
    )
    both = users["organizer_referee"]
    tournament_services.grant_role(tournament, both, Role.ORGANIZER, organizer)
    tournament_services.grant_role(tournament, both, Role.REFEREE, organizer)

    round1 = pairing_services.generate_round(tournament, organizer)
    round1 = pairing_services.publish_round(round1, organizer)
    for table in round1.tables.filter(is_bye=False):
        play_table(table, EIGHT, enterer, confirmer)
    round1 = pairing_services.finish_round(round1, organizer)
    Round.objects.filter(pk=round1.pk).update(finished_at=timezone.now() - timedelta(minutes=11))
    round2 = pairing_services.generate_round(tournament, organizer)
    round2 = pairing_services.publish_round(round2, organizer)
    open_, submitted, confirmed, fouled = round2.tables.filter(is_bye=False).order_by("number")
    enter_tokens(open_, ["NS3", "EW2"], enterer)
    play_table(submitted, EIGHT, enterer, confirmer, confirm=False)
    play_table(confirmed, EIGHT, enterer, confirmer)
    enter_tokens(fouled, ["NS3", "foul:EW"], chief)
    for kind, pair in (("violation", open_.ns), ("warning", open_.ew)):
        for _ in range(2):
            penalty = penalties.record_penalty(tournament, pair, kind, None, table=open_)
    checkin.check_in(Pair.objects.get(pk=open_.ns_id), organizer)
    return Scene(
        tournament=Tournament.objects.get(pk=tournament.pk),
        users=users,
        finished=round1.tables.filter(is_bye=False).order_by("number").first(),
        open=open_,
        submitted=submitted,
        confirmed=confirmed,
        fouled=fouled,
        warned=open_.ew,
        violated=open_.ns,
        penalty=penalty,
        pages={},
    )


# --------------------------------------------------------------------------------------------
# The pages: what each one offers


def page(scene: Scene, actor: str, url: str) -> str:
    """The page as ``actor`` gets it (read once per scene): "" when it is refused or redirects
    (to the login page), so nothing on it is offered."""
    if (actor, url) not in scene.pages:
        client = Client()
        if actor != "anonymous":
            client.force_login(scene.users[actor])
        response = client.get(url)
        html = response.content.decode() if response.status_code == 200 else ""
        scene.pages[actor, url] = html
    return scene.pages[actor, url]


def table_page(scene: Scene, actor: str, table: Table) -> str:
    args = [scene.tournament.slug, table.round.number, table.number]
    return page(scene, actor, reverse("referee:table", args=args))


def form(html: str, testid: str) -> str:
    """The form (or section) marked ``data-testid=testid``, to its end: "" when not there."""
    if f'data-testid="{testid}"' not in html:
        return ""
    return html.split(f'data-testid="{testid}"', 1)[1].split("</form>", 1)[0]


def options(html: str, name: str) -> set[str]:
    """The values of the ``<select name=name>`` in ``html``."""
    match = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    return set(re.findall(r'<option value="([^"]*)"', match.group(1))) if match else set()


def penalty_kinds_offered(scene: Scene, actor: str) -> set[str]:
    return options(form(table_page(scene, actor, scene.open), "penalty-form"), "kind")


def escalation_offered(scene: Scene, actor: str, pair: Pair) -> bool:
    html = table_page(scene, actor, scene.open)
    forms = [part.split("</form>")[0] for part in html.split("<form")[1:]]
    hidden = f'name="pair" value="{pair.number}"'
    return any(hidden in f and 'data-testid="escalate"' in f for f in forms)


def pair_page(scene: Scene, actor: str) -> str:
    return page(scene, actor, reverse("tournaments:pair_edit", args=[scene.tournament.slug, 1]))


def slug_page(scene: Scene, actor: str, name: str, *args: Any) -> str:
    return page(scene, actor, reverse(name, args=[scene.tournament.slug, *args]))


# --------------------------------------------------------------------------------------------
# The services: does each let the user through?


class Rollback(Exception):
    pass


def service_allows(call: Callable[[], Any]) -> bool:
    """Run ``call`` and undo whatever it wrote: False when it answers ``ForbiddenError``. Any
    other refusal is a scene that does not test what it should (the test says so)."""
    try:
        with transaction.atomic():
            call()
            raise Rollback
    except Rollback:
        return True
    except ForbiddenError:
        return False


def record(kind: str) -> Callable[[Scene, Any], Any]:
    def call(scene: Scene, user: Any) -> Any:
        table = scene.fresh(scene.open)
        jcf = 1 if kind == "deduction" else None
        pair = Pair.objects.get(pk=table.ns_id)
        return penalties.record_penalty(
            scene.event(), pair, kind, user, round=table.round, table=table, jcf=jcf
        )

    return call


def at(
    table_of: Callable[[Scene], Table], write: Callable[..., Any]
) -> Callable[[Scene, Any], Any]:
    """A table write with the table as it is now (its current version)."""

    def call(scene: Scene, user: Any) -> Any:
        table = scene.fresh(table_of(scene))
        return write(table, user, table.version)

    return call


def escalate(pair_of: Callable[[Scene], Pair]) -> Callable[[Scene, Any], Any]:
    def call(scene: Scene, user: Any) -> Any:
        table = scene.fresh(scene.open)
        pair = Pair.objects.get(pk=pair_of(scene).pk)
        return penalties.apply_escalation(
            pair, table.round, user, table=table, expected_version=table.version
        )

    return call


def set_late_start(table: Table, user: Any, version: int) -> Table:
    """Lateness once a deal is entered: the service answers a refusal by the map with its own
    code (``start_locked``: "ask the chief referee"), which is a refusal here."""
    try:
        return scoring_services.set_start_levels(table, 3, 2, user, version)
    except ServiceError as error:
        if error.code == "start_locked":
            raise ForbiddenError from error
        raise


def finished(scene: Scene) -> Table:
    return scene.finished


def open_table(scene: Scene) -> Table:
    return scene.open


FIX = Edit.replace(4, "NS2")  # deal 5 of EIGHT: partner last → partner third

# name → (the action of the map, is it offered on its page, the service call)
Probe = tuple[Action, Callable[[Scene, str], bool], Callable[[Scene, Any], Any]]
PROBES: dict[str, Probe] = {
    **{
        f"record {kind}": (
            Action(kind),
            lambda scene, actor, kind=kind: kind in penalty_kinds_offered(scene, actor),
            record(kind),
        )
        for kind in RECORD_KINDS
    },
    "foul at the table": (
        Action.FOUL,
        lambda scene, actor: bool(form(table_page(scene, actor, scene.open), "foul-form")),
        at(open_table, lambda t, user, v: penalties.record_foul(t, "NS", user, v)),
    ),
    "deal loss at the table": (
        Action.DEAL_LOSS,
        lambda scene, actor: bool(form(table_page(scene, actor, scene.open), "lose-form")),
        at(open_table, lambda t, user, v: scoring_services.enter_event(t, "lose:NS", user, v)),
    ),
    "level award at the table": (
        Action.LEVEL_AWARD,
        lambda scene, actor: bool(form(table_page(scene, actor, scene.open), "award-form")),
        at(open_table, lambda t, user, v: scoring_services.enter_event(t, "adjust:NS+1", user, v)),
    ),
    "判负 as the table's end": (
        Action.PENALTY_LOSS,
        lambda scene, actor: (
            "penalty_loss"
            in options(form(table_page(scene, actor, scene.open), "end-form"), "kind")
        ),
        at(
            open_table,
            lambda t, user, v: scoring_services.set_end(t, "penalty_loss", "NS", user, v),
        ),
    ),
    "undo of a foul": (
        Action.FOUL,
        lambda scene, actor: 'data-testid="undo"' in table_page(scene, actor, scene.fouled),
        at(lambda scene: scene.fouled, scoring_services.undo_last_event),
    ),
    "escalation to a violation": (
        Action.VIOLATION,
        lambda scene, actor: escalation_offered(scene, actor, scene.warned),
        escalate(lambda scene: scene.warned),
    ),
    "escalation to a foul at the table": (
        Action.FOUL,
        lambda scene, actor: escalation_offered(scene, actor, scene.violated),
        escalate(lambda scene: scene.violated),
    ),
    # The pair's status 取消资格 (the organizer's pair page), or a disqualification penalty
    # (the desk's penalty form: the same pair disqualified, with a penalty record).
    "disqualify a pair": (
        Action.DISQUALIFICATION,
        lambda scene, actor: (
            '<option value="disqualify">' in pair_page(scene, actor)
            or "disqualification" in penalty_kinds_offered(scene, actor)
        ),
        lambda scene, user: tournament_services.disqualify_pair(
            Pair.objects.get(tournament=scene.tournament, number=1), user
        ),
    ),
    "withdraw a pair": (
        Action.REGISTRATION,
        lambda scene, actor: '<option value="withdraw">' in pair_page(scene, actor),
        lambda scene, user: tournament_services.withdraw_pair(
            Pair.objects.get(tournament=scene.tournament, number=1), user
        ),
    ),
    "enter a deal": (
        Action.ENTER_RESULT,
        lambda scene, actor: 'data-testid="tap-NS3"' in table_page(scene, actor, scene.open),
        at(open_table, lambda t, user, v: scoring_services.enter_event(t, "NS1", user, v)),
    ),
    "confirm": (
        Action.CONFIRM,
        lambda scene, actor: 'data-testid="confirm"' in table_page(scene, actor, scene.submitted),
        at(lambda scene: scene.submitted, scoring_services.confirm_table),
    ),
    "lateness after a deal": (
        Action.CORRECT,
        lambda scene, actor: (
            'data-testid="lateness"' in table_page(scene, actor, scene.open)
            and 'data-testid="lateness-locked"' not in table_page(scene, actor, scene.open)
        ),
        at(open_table, set_late_start),
    ),
    "correct a confirmed result": (
        Action.CORRECT,
        lambda scene, actor: 'id="correct-h"' in table_page(scene, actor, scene.confirmed),
        at(
            lambda scene: scene.confirmed,
            lambda t, user, v: scoring_services.correct_table(t, FIX, user, "录错", v),
        ),
    ),
    "override the correction deadline": (
        Action.OVERRIDE_DEADLINE,
        lambda scene, actor: 'data-testid="override"' in table_page(scene, actor, scene.finished),
        at(
            finished,
            lambda t, user, v: scoring_services.correct_table(
                t, FIX, user, "申诉成立", v, override=True
            ),
        ),
    ),
    "withdraw a penalty": (
        Action.WITHDRAW_PENALTY,
        lambda scene, actor: (
            'data-testid="withdraw-penalty"' in slug_page(scene, actor, "penalties:penalties")
        ),
        lambda scene, user: penalty_records.withdraw_penalty(
            Penalty.objects.get(pk=scene.penalty.pk), user, "记错了"
        ),
    ),
    "lodge an appeal": (
        Action.APPEAL,
        lambda scene, actor: 'id="appeal-form"' in slug_page(scene, actor, "appeals:appeals"),
        lambda scene, user: appeals.lodge_appeal(
            scene.event(), scene.confirmed.ns, "对判罚有异议", user, table=scene.confirmed
        ),
    ),
    "start the round's clock": (
        Action.ROUND_CONTROL,
        lambda scene, actor: (
            'data-testid="start-round"' in slug_page(scene, actor, "referee:round_dashboard", 2)
        ),
        lambda scene, user: clock.start_round(
            Round.objects.select_related("tournament").get(tournament=scene.tournament, number=2),
            user,
        ),
    ),
    "check a pair in": (
        Action.CHECK_IN,
        lambda scene, actor: (
            'class="checkin-button"' in slug_page(scene, actor, "tournaments:checkin")
        ),
        lambda scene, user: checkin.check_in(
            Pair.objects.get(tournament=scene.tournament, number=scene.open.ew.number), user
        ),
    ),
    "withdraw the pairs not checked in": (
        Action.REGISTRATION,
        lambda scene, actor: (
            'id="withdraw-absent"' in slug_page(scene, actor, "tournaments:checkin")
        ),
        lambda scene, user: checkin.withdraw_absent(scene.event(), user, "未签到"),
    ),
}

# RULES.md §3 with the seed's defaults, and the fixed entries of the map (docs/architecture.md).
REFEREES = {"referee", "chief", "organizer_referee", "superuser"}
CHIEF = {"chief", "superuser"}
ORGANIZERS = {"organizer", "organizer_referee", "superuser"}
ROUND_STAFF = {"organizer", "chief", "organizer_referee", "superuser"}
EXPECTED: dict[str, set[str]] = {
    "record warning": REFEREES,
    "record violation": REFEREES,
    "record foul": CHIEF,
    "record penalty_loss": CHIEF,
    "record disqualification": ORGANIZERS,
    "record deduction": CHIEF,
    "record level_award": CHIEF,
    "foul at the table": CHIEF,
    "deal loss at the table": CHIEF,
    "level award at the table": CHIEF,
    "判负 as the table's end": CHIEF,
    "undo of a foul": CHIEF,
    "escalation to a violation": REFEREES,
    "escalation to a foul at the table": CHIEF,
    "disqualify a pair": ORGANIZERS,
    "withdraw a pair": ORGANIZERS,
    "enter a deal": REFEREES,
    "confirm": REFEREES,
    "lateness after a deal": CHIEF,
    "correct a confirmed result": CHIEF,
    "override the correction deadline": CHIEF,
    "withdraw a penalty": CHIEF,
    "lodge an appeal": ROUND_STAFF,
    "start the round's clock": ROUND_STAFF,
    "check a pair in": REFEREES | ORGANIZERS,
    "withdraw the pairs not checked in": ORGANIZERS,
}


def walk(scene: Scene, actor: str) -> dict[str, tuple[bool, bool]]:
    """Per probe: (offered on the page, allowed by the service) for ``actor``."""
    user = scene.users[actor]
    return {
        name: (offered(scene, actor), service_allows(lambda call=call: call(scene, user)))
        for name, (_action, offered, call) in PROBES.items()
    }


@pytest.fixture
def scene(db: Any) -> Scene:
    return build_scene()


@pytest.mark.parametrize("actor", ACTORS)
def test_pages_and_services_agree_with_the_rules(scene: Scene, actor: str) -> None:
    """With seed 003's defaults (RULES.md §3) every role gets on the pages exactly what the
    services allow, and that is the documented table."""
    seen = walk(scene, actor)
    disagree = {name: both for name, both in seen.items() if both[0] != both[1]}
    assert disagree == {}, f"{actor}: (page offers, service allows) {disagree}"
    wrong = {name for name, (_page, allows) in seen.items() if allows != (actor in EXPECTED[name])}
    assert wrong == set(), f"{actor} is not allowed what RULES.md §3 says: {sorted(wrong)}"


# Another tournament's setting (RULES.md §3 "configurable per tournament"): the pages follow it.
CUSTOM = {
    "penalty_authority": {
        "warning": "organizer",
        "foul": "referee",
        "deal_loss": "referee",
        "deduction": "organizer",
        "disqualification": "chief_referee",
    }
}


@pytest.mark.parametrize("actor", ("organizer", "chief", "referee", "organizer_referee"))
def test_pages_and_services_agree_on_a_tournaments_own_setting(db: Any, actor: str) -> None:
    scene = build_scene(CUSTOM)
    seen = walk(scene, actor)
    disagree = {name: both for name, both in seen.items() if both[0] != both[1]}
    assert disagree == {}, f"{actor}: (page offers, service allows) {disagree}"
    event = scene.event()
    for name, (action, _offered, _call) in PROBES.items():
        if name.startswith("record "):  # a penalty record needs the kind's authority alone
            assert seen[name][1] == may(scene.users[actor], event, action), name
    changed = {
        name for name, (_page, allows) in seen.items() if allows != (actor in EXPECTED[name])
    }
    assert changed, "the setting changed nothing"


def test_every_action_of_the_map_is_walked_or_is_a_page_of_its_own() -> None:
    """The walk covers every action a page offers as a button; the rest (the desk's pages, the
    audit log, line-ups) are pages whose access ``test_permissions_matrix`` and the team pages'
    tests check by role."""
    walked = {action for action, _offered, _call in PROBES.values()}
    assert set(Action) - walked == {Action.VIEW_DESK, Action.AUDIT_LOG, Action.LINEUP}
    # Every action has its roles in one place: the fixed entries, or the tournament's setting
    # for the penalty kinds (whose keys and roles are those of the one role check).
    assert set(ACTION_ROLES) | PENALTY_ACTIONS == set(Action)
    assert not set(ACTION_ROLES) & PENALTY_ACTIONS
    assert {a.value for a in PENALTY_ACTIONS} == set(DEFAULT_PENALTY_AUTHORITY)
    assert {a.value for a in PENALTY_ACTIONS} == set(RECORD_KINDS) | {"deal_loss"}
    assert {Role(role) for role in PENALTY_ROLES} <= set(Role)


def test_the_penalty_roles_come_from_the_tournaments_setting(db: Any) -> None:
    scene = build_scene(CUSTOM)
    event = scene.event()
    assert action_roles(event, Action.FOUL) == (Role.REFEREE,)
    assert action_roles(event, Action.VIOLATION) == (Role.REFEREE,)  # the default kept
    assert action_roles(event, Action.DISQUALIFICATION) == (Role.CHIEF_REFEREE,)
    with pytest.raises(ValueError):
        action_roles(event, "nap")
