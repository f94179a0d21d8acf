"""Issue 29 finding H (point 7): every number a user gives — a form, a JSON body, the settings
— goes through the one bounded helper (``rules.limits``, ``tournaments.bounds``): NaN, ±inf,
huge and tiny floats (1e308, 5e-324) and huge integers are refused with a message, never a
500 (``DataError … type json`` on PostgreSQL when a NaN reached the settings column)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from rules.errors import RuleError
from rules.limits import (
    SCORE_MAX,
    BadNumber,
    json_number,
    loads_bounded,
    number_problem,
    whole_problem,
)
from rules.ruleset import RuleSet, preset_settings
from tests.support.pages import form_data
from tournaments.forms import preset_initial
from tournaments.models import Tournament

BAD_FLOATS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e308", "-1e308", "5e-324", "1e-7"]


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    client.raise_request_exception = False
    return client


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, 1e308, 5e-324, 10**5000],
    ids=["nan", "inf", "-inf", "1e308", "5e-324", "10^5000"],
)
def test_the_helper_names_the_problem(value: Any) -> None:
    assert number_problem(value, minimum=0, maximum=SCORE_MAX, places=2) is not None
    assert number_problem(17, minimum=0, maximum=SCORE_MAX, places=2) is None
    assert number_problem(12.5, minimum=0, maximum=SCORE_MAX, places=2) is None
    assert number_problem(True, minimum=0, maximum=SCORE_MAX) == "not_a_number"
    assert whole_problem(10**5000, minimum=0, maximum=10) == "out_of_range"
    assert whole_problem(1.0, minimum=0, maximum=10) == "not_integer"


@pytest.mark.parametrize(
    "text, code",
    [
        ("1" * 5000, "number_too_long"),
        ("-" + "9" * 400, "number_too_long"),
        ("NaN", "not_finite"),
        ("-Infinity", "not_finite"),
        ("1e400", "not_finite"),
    ],
)
def test_json_numbers_are_refused_before_python_reads_them(text: str, code: str) -> None:
    with pytest.raises(BadNumber) as caught:
        loads_bounded('{"x": ' + text + "}")
    assert caught.value.code == code
    assert json_number("12") == 12 and loads_bounded('{"x": 1.5}') == {"x": 1.5}


@pytest.mark.parametrize("bad", BAD_FLOATS)
def test_settings_refuse_non_finite_huge_and_tiny_scale_values(bad: str) -> None:
    value = float(bad)
    scale = {"table": [[0, 13, 13], [1, value, 12]]}
    with pytest.raises(RuleError):
        RuleSet.from_dict({**preset_settings("regulation"), "scale": scale})
    for key in ("forfeit", "bye"):
        with pytest.raises(RuleError):
            RuleSet.from_dict({**preset_settings("regulation"), key: {"cf": 2, "jcf": value}})
    with pytest.raises(RuleError):
        settings = {**preset_settings("regulation"), "match_points": {"win": value}}
        RuleSet.from_dict(settings)


def test_ordinary_settings_still_pass() -> None:
    scale = {"table": [[0, 13, 13], [1, 13.5, 12.5], [2, 15, 11]]}
    rules = RuleSet.from_dict(
        {**preset_settings("regulation"), "scale": scale, "forfeit": {"cf": 2, "jcf": 17.25}}
    )
    assert rules.scale.rows[1] == (1, 13.5, 12.5) and rules.forfeit.jcf == 17.25


ROWS = ["1 nan 12", "1 inf 12", "1 1e308 12", "1 14 -inf", "1 14 5e-324", "1 14 -1e308"]


@pytest.mark.django_db
@pytest.mark.parametrize("row", ROWS)
def test_new_tournament_with_a_bad_custom_scale_is_a_message(cast: Any, row: str) -> None:
    """The replay: a custom scale with NaN on ``/new/`` was a 500 (DataError on PostgreSQL)."""
    cast["organizer"].user_permissions.add(Permission.objects.get(codename="add_tournament"))
    client = _client(cast["organizer"])
    data = form_data(
        preset_initial("regulation"),
        name="NaN杯",
        slug="nan-cup",
        scale="custom",
        scale_table=f"0 13 13\n{row}",
    )
    response = client.post(reverse("tournaments:create"), data)
    assert response.status_code == 200, response.status_code
    assert not Tournament.objects.filter(slug="nan-cup").exists()
    page = response.content.decode()
    assert "级差分表" in page


@pytest.mark.django_db
@pytest.mark.parametrize("row", ROWS)
def test_settings_page_with_a_bad_custom_scale_is_a_message(
    cast: Any, tournament: Tournament, row: str
) -> None:
    client = _client(cast["organizer"])
    url = reverse("tournaments:settings", args=[tournament.slug])
    before = dict(tournament.settings)
    data = form_data(preset_initial("regulation"), scale="custom", scale_table=f"0 13 13\n{row}")
    response = client.post(url, data)
    assert response.status_code == 200, response.status_code
    tournament.refresh_from_db()
    assert tournament.settings == before
    json.dumps(tournament.settings, allow_nan=False)
