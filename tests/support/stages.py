"""Events in stages (docs/stages.md): the hand-computed files under ``tests/db/data/stages``, a
file of the given stages, the stage set-up form's POST, the stage pages and documents."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from pypdf import PdfReader

from reports.fileio import import_tournament
from tournaments.services import grant_role

DATA = Path(__file__).resolve().parents[1] / "db" / "data" / "stages"


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def staged_file(pairs: int, stages: list[dict[str, Any]], units: int = 0) -> dict[str, Any]:
    return {
        "format": "guandan-tournament",
        "version": 1,
        "name": "分阶段赛",
        "settings": {"deals_per_round": 4, "seed": 2026, "stages": stages},
        "units": [{"id": f"U{u}", "name": f"单位{u}"} for u in range(units)],
        "pairs": [
            {
                "id": i,
                "players": [f"甲{i}", f"乙{i}"],
                "unit": f"U{i % units}" if units else None,
                "status": "active",
            }
            for i in range(1, pairs + 1)
        ],
        "teams": [],
        "rounds": [],
        "penalties": [],
    }


def page(client: Any, name: str, slug: str, **kwargs: Any) -> str:
    response = client.get(reverse(f"public:{name}", args=[slug, *kwargs.values()]))
    assert response.status_code == 200
    return response.content.decode()


FIELDS = (
    "kind rounds groups qualify entrants per_unit seeding best_of third_place until repechage "
    "round_format deals_per_round correction_minutes"
).split()


def post_data(stages: list[dict[str, Any]], delete: tuple[int, ...] = ()) -> dict[str, Any]:
    """The formset's POST: one form per stage (an empty kind is an empty row); a stage's other
    keys (its own rules' fields, RULES.md §9) are posted as given."""
    data: dict[str, Any] = {
        "form-TOTAL_FORMS": str(len(stages)),
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "10",
    }
    for index, stage in enumerate(stages):
        for field in [*FIELDS, *(key for key in stage if key not in FIELDS)]:
            value = stage.get(field, "")
            if value is True:
                value = "on"
            if value is False:
                continue
            data[f"form-{index}-{field}"] = str(value)
        if index in delete:
            data[f"form-{index}-DELETE"] = "on"
    return data


def url(tournament: Any) -> str:
    return reverse("pairing:stages", args=[tournament.slug])


def organizer_for(name: str, slug: str) -> Client:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    tournament = import_tournament(data, slug=slug)
    user = get_user_model().objects.create_user(username="org", password="pw")
    grant_role(tournament, user, "organizer")
    client = Client()
    client.force_login(user)
    return client


def pdf_text(response: Any) -> tuple[PdfReader, str]:
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    reader = PdfReader(io.BytesIO(response.content))
    return reader, "\n".join(page.extract_text() for page in reader.pages)


def doc(slug: str, name: str) -> str:
    return reverse("reports:stage_document", args=[slug, name])
