"""Bad input, generated (hypothesis): the tournament-file importer, every form that takes input,
the public pages' query strings and the registration Excel upload.

The promise (issue 7): random or malformed data gets a refusal with a message — never a 500 —
and leaves the database unchanged. Forms follow post/redirect/get, so a refused POST is a
redirect back to the page, which then shows the message; that is checked too.
"""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reports.fileformat import TournamentFileError, load_json
from reports.fileio import import_tournament
from scoring.once import new_once_key
from tests.support.golden import EXAMPLES
from tests.support.site import build_site, snapshot
from tests.support.urls import all_urls

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,  # no example database under .hypothesis/ in CI: every run is fresh
)


# --------------------------------------------------------------------------------------------
# The tournament-file importer

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
KEYS = [
    "format", "version", "name", "settings", "units", "pairs", "teams", "rounds", "penalties",
    "id", "players", "unit", "status", "number", "tables", "table", "ns", "ew", "deals", "bye",
    "start", "end", "kind", "jcf", "deal", "pair", "round", "seed", "entry", "match",
]  # fmt: skip


def _example(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += _paths(child, (*prefix, index))
    return out


@st.composite
def mutated_files(draw: st.DrawFn) -> dict[str, Any]:
    """A real file with one to three things broken: a value replaced, a key deleted or added,
    a list entry duplicated."""
    data = copy.deepcopy(_example(draw(st.sampled_from(["eleven-pairs.json", "jiangsu-28.json"]))))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        path = draw(st.sampled_from(paths))
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        action = draw(st.sampled_from(["replace", "delete", "add", "duplicate"]))
        if action == "replace":
            parent[last] = draw(json_values)
        elif action == "delete":
            del parent[last]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(KEYS))] = draw(json_values)
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
    return data


class Rollback(Exception):
    pass


def _import_refused_or_consistent(data: Any) -> None:
    """Either a ``TournamentFileError`` with nothing written, or a complete tournament."""
    before = snapshot()
    try:
        with transaction.atomic():
            try:
                tournament = import_tournament(data, slug="fuzzed")
            except TournamentFileError as error:
                assert error.problems  # every refusal says what and where
                assert snapshot() == before
                return
            # Accepted: it must be a whole tournament that exports to a valid file again.
            from reports.fileio import export_tournament

            again = export_tournament(tournament)
            assert again["format"] == "guandan-tournament"
            raise Rollback
    except Rollback:
        pass
    assert snapshot() == before


@pytest.mark.django_db
@FUZZ
@given(data=json_values)
def test_importer_refuses_arbitrary_json_with_problems_and_writes_nothing(data: Any) -> None:
    _import_refused_or_consistent(data)


@pytest.mark.django_db
@FUZZ
@given(data=mutated_files())
def test_importer_refuses_broken_real_files_or_imports_them_whole(data: dict[str, Any]) -> None:
    _import_refused_or_consistent(data)


@pytest.mark.django_db
@settings(max_examples=60, deadline=None, database=None)
@given(raw=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_malformed_bytes_are_a_file_error_not_a_crash(raw: bytes) -> None:
    try:
        data = load_json(raw)
    except TournamentFileError as error:
        assert error.problems
        return
    _import_refused_or_consistent(data)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"[" * 100_000, id="deep-array"),  # deeper than Python's recursion limit
        pytest.param(b'{"a":' * 50_000 + b"1" + b"}" * 50_000, id="deep-object"),
        pytest.param(b"[NaN, Infinity]", id="not-json-numbers"),
        b"\xef\xbb\xbf{}",  # a byte-order mark
        b'{"format": "guandan-tournament", "version": 1e400}',
        b"\x00" * 100,
        b"",
    ],
)
def test_pathological_json_is_refused_with_a_message(raw: bytes) -> None:
    before = snapshot()
    with pytest.raises(TournamentFileError) as refused:
        import_tournament(load_json(raw), slug="pathological")
    assert refused.value.problems
    assert snapshot() == before


def test_the_import_command_refuses_a_broken_file_with_one_message(tmp_path: Path, db: Any) -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    path = tmp_path / "broken.json"
    path.write_bytes(b'{"format": "guandan-tournament", "version": 1, "pairs": [')
    before = snapshot()
    with pytest.raises(CommandError) as refused:
        call_command("import_tournament", str(path))
    assert str(refused.value).strip()
    assert "Traceback" not in str(refused.value)
    assert snapshot() == before


# --------------------------------------------------------------------------------------------
# Every form that takes input


@pytest.fixture
def site(db: Any) -> dict[str, Any]:
    return build_site()


def _post_endpoints(site: dict[str, Any]) -> list[tuple[str, str]]:
    """Every non-admin URL that accepts a POST (found by asking each one)."""
    table = site["table"]
    client = Client()
    client.force_login(site["boss"])
    client.raise_request_exception = False
    out = []
    for name, url in all_urls(site["tournament"].slug, table.entry_token):
        if name.startswith("admin:") or name in ("logout", "set_language", "login"):
            continue
        out.append((name, url))
    return out


FIELD_NAMES = [
    "token", "version", "reason", "code", "name", "q", "side", "kind", "pair", "round", "table",
    "number", "player", "player1", "player2", "unit", "seeding", "status", "deal", "jcf", "ns",
    "ew", "start_ns", "start_ew", "minutes", "late_side", "end", "end_kind", "end_side", "role",
    "username", "user", "pair_a", "pair_b", "a", "b", "deals", "next", "preset", "slug",
    "settings", "rounds", "confirm", "escalation", "referee_name", "upgrade", "levels", "file",
    # the organizer forms' real prefixes (PairForm prefix "pair", UnitForm prefix "unit")
    "pair-number", "pair-seeding", "pair-player1", "pair-player2", "pair-unit", "pair-contact1",
    "unit-code", "unit-name", "user_id", "pair_number", "offset", "show", "action", "seed",
]  # fmt: skip
# Column and 64-bit boundaries (PostgreSQL integer/bigint), as text and around zero.
BOUNDARY_INTEGERS = [
    str(n) for n in (2**31 - 1, 2**31, -(2**31) - 1, 2**53, 2**63 - 1, 2**63, 2**64, -(2**63) - 1)
]
nasty_text = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "NS9",
        "EW0",
        "foul:XX",
        "adjust:NS+99",
        "-1",
        "0",
        "999999999999999999999",
        "1e308",
        "NaN",
        "null",
        "<script>alert(1)</script>",
        "' OR 1=1 --",
        "第3轮",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
        "a" * 5000,
        "../../etc/passwd",
        "%00",
        "\r\n",
        "[]",
        "{}",
        "true",
        "//evil.example/",
        "a\x00b",
        "²",
        *BOUNDARY_INTEGERS,
    ]
) | st.text(max_size=40)
form_data = st.dictionaries(
    st.sampled_from(FIELD_NAMES) | st.text(max_size=10), nasty_text, max_size=8
)


def _assert_refused_cleanly(response: Any, name: str, data: Any) -> None:
    assert response.status_code < 500, (name, data, response.status_code)


@pytest.mark.django_db
@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.data())
def test_no_form_endpoint_answers_500_to_random_input(site: dict[str, Any], data: Any) -> None:
    endpoints = site.setdefault("_endpoints", _post_endpoints(site))
    name, url = data.draw(st.sampled_from(endpoints), label="endpoint")
    payload = data.draw(form_data, label="form")
    client = Client()
    if data.draw(st.booleans(), label="logged in"):
        client.force_login(site["boss"])
    client.raise_request_exception = False
    with transaction.atomic():  # each example starts from the same database
        response = client.post(url, payload)
        _assert_refused_cleanly(response, name, payload)
        transaction.set_rollback(True)


TABLE_ENDPOINTS = ("event", "award", "undo", "start", "end", "submit", "confirm", "correct")


@pytest.mark.django_db
@FUZZ
@given(
    action=st.sampled_from(TABLE_ENDPOINTS),
    payload=st.dictionaries(st.sampled_from(FIELD_NAMES), nasty_text, max_size=6),
    bad_version=st.sampled_from(["", "abc", "-1", "99999", "1.5", "\x00", "0x1"]),
)
def test_malformed_table_entry_changes_nothing_and_says_why(
    site: dict[str, Any], action: str, payload: dict[str, str], bad_version: str
) -> None:
    """Referee pages: a malformed or stale version can never write (compare-and-swap), and the
    page the referee lands on says what went wrong."""
    table, rnd = site["table"], site["round"]
    url = reverse(
        f"referee:table_{action}", args=[site["tournament"].slug, rnd.number, table.number]
    )
    client = Client()
    client.force_login(site["boss"])
    client.raise_request_exception = False
    before = snapshot()
    response = client.post(url, {**payload, "version": bad_version}, follow=True)
    assert response.status_code < 500
    assert snapshot() == before
    if response.status_code == 200:
        page = response.content.decode()
        assert 'class="error"' in page or "error" in page, page[:500]


@pytest.mark.django_db
@FUZZ
@given(
    action=st.sampled_from(["event", "undo", "submit", "confirm"]),
    payload=st.dictionaries(st.sampled_from(FIELD_NAMES), nasty_text, max_size=6),
)
def test_malformed_table_side_entry_changes_nothing(
    site: dict[str, Any], action: str, payload: dict[str, str]
) -> None:
    table = site["table"]
    url = reverse(f"tableside:tableside_{action}", args=[table.entry_token])
    payload = {**payload, "version": "stale-" + payload.get("version", "")}
    before = snapshot()
    response = Client().post(url, payload)
    assert response.status_code < 500
    assert snapshot() == before


@pytest.mark.django_db
@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    path=st.sampled_from(["", "find/", "standings/", "rounds/", "rounds/1/", "pairs/1/",
                          "projector/", "projector/?show=standings&", "pairs/2147483648/",
                          "rounds/9223372036854775808/"]),
    query=st.dictionaries(
        st.sampled_from(["q", "page", "round", "sort", "per_page", "after", "lang", "pair",
                         "offset", "show", "\x00"]),
        nasty_text,
        max_size=4,
    ),
)  # fmt: skip
def test_public_pages_survive_any_query_string(
    site: dict[str, Any], path: str, query: dict[str, str]
) -> None:
    client = Client()
    client.raise_request_exception = False
    response = client.get(f"/t/{site['tournament'].slug}/{path}", query)
    assert response.status_code < 500, (path, query)


@pytest.mark.django_db
@settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    path=st.sampled_from(["manage/pairs/", "manage/audit/", "referee/", "referee/penalties/",
                          "reports/", "reports/standings.pdf", "manage/pairs/2147483648/"]),
    query=st.dictionaries(
        st.sampled_from(["q", "page", "round", "table", "pair", "action", "sort", "all",
                         "show", "filled", "final"]),
        nasty_text,
        max_size=3,
    ),
)  # fmt: skip
def test_organizer_and_referee_pages_survive_any_query_string(
    site: dict[str, Any], path: str, query: dict[str, str]
) -> None:
    client = Client()
    client.force_login(site["boss"])
    client.raise_request_exception = False
    response = client.get(f"/t/{site['tournament'].slug}/{path}", query)
    assert response.status_code < 500, (path, query)


@pytest.mark.django_db
@pytest.mark.parametrize("offset", ["0", "-1", *BOUNDARY_INTEGERS, "1e400", "\x00"])
def test_projector_offset_is_never_a_500(site: dict[str, Any], offset: str) -> None:
    client = Client()
    client.raise_request_exception = False
    for show in ("pairings", "standings"):
        response = client.get(
            f"/t/{site['tournament'].slug}/projector/", {"show": show, "offset": offset}
        )
        assert response.status_code in (200, 400), (show, offset, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("sort", ["", "zzz", "-rank", "rank", "-", "\x00"])
def test_standings_sort_parameter_is_not_a_500(site: dict[str, Any], sort: str) -> None:
    client = Client()
    client.raise_request_exception = False
    response = client.get(f"/t/{site['tournament'].slug}/standings/", {"sort": sort})
    assert response.status_code < 500


# --------------------------------------------------------------------------------------------
# Registration Excel upload (helper-5's importer, through its page)


def _upload(site: dict[str, Any], content: bytes, name: str = "报名表.xlsx") -> Any:
    client = Client()
    client.force_login(site["boss"])
    client.raise_request_exception = False
    url = reverse("reports:import", args=[site["tournament"].slug])
    return client.post(url, {"once": new_once_key(), "file": SimpleUploadedFile(name, content)})


def _zip_bomb() -> bytes:
    """A small .xlsx-shaped zip whose sheet expands to ~80 MB."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/worksheets/sheet1.xml", b"<a>" + b"0" * (80 * 1024 * 1024) + b"</a>")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("label", "content"),
    [
        ("empty", b""),
        ("not a zip", b"this is not a spreadsheet at all"),
        ("truncated zip", b"PK\x03\x04" + b"\x00" * 200),
        ("a zip without a workbook", b"PK\x05\x06" + b"\x00" * 18),
        ("oversized", b"PK" + b"\x00" * (6 * 1024 * 1024)),
        ("zip bomb", None),
    ],
)
def test_corrupt_or_oversized_excel_is_refused_with_a_message(
    site: dict[str, Any], label: str, content: bytes | None
) -> None:
    before = snapshot()
    response = _upload(site, _zip_bomb() if content is None else content)
    assert 400 <= response.status_code < 500, (label, response.status_code)
    page = response.content.decode()
    assert "problem" in page or "错误" in page or "无法" in page or "过大" in page or "文件" in page
    assert snapshot() == before


@pytest.mark.django_db
@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(content=st.binary(min_size=0, max_size=2000))
def test_random_bytes_as_excel_are_refused(site: dict[str, Any], content: bytes) -> None:
    before = snapshot()
    response = _upload(site, content)
    assert 400 <= response.status_code < 500
    assert snapshot() == before
