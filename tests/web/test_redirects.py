"""A ``next`` parameter is followed only when it stays on this site and is a well-formed URL."""

import pytest
from django.test import Client, RequestFactory

from tests.support.site import build_site
from tournaments.redirects import safe_next


@pytest.fixture
def site(db):
    """The fuzz tests' small open tournament and a user holding every role in it."""
    return build_site()


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/t/x/standings/", "/t/x/standings/"),
        ("a\x00b", "/fallback/"),  # a NUL would make the Location header invalid
        ("/t/\r\nSet-Cookie:x", "/fallback/"),
        ("https://evil.example/", "/fallback/"),
        ("//evil.example/", "/fallback/"),
        ("", "/fallback/"),
        (None, "/fallback/"),
        ("NS9", "/fallback/"),  # not a path: redirect() would take it for a view name (a 500)
        ("standings/", "/fallback/"),
    ],
)
def test_safe_next(target, expected):
    request = RequestFactory().get("/")
    assert safe_next(request, target, "/fallback/") == expected


@pytest.mark.django_db
def test_penalty_form_with_a_control_character_in_next_is_not_a_500(site):
    client = Client()
    client.raise_request_exception = False
    client.force_login(site["boss"])
    url = f"/t/{site['tournament'].slug}/referee/penalties/new/"
    response = client.post(url, {"next": "a\x00b"})
    assert response.status_code == 302
    assert "\x00" not in response["Location"]


@pytest.mark.django_db
def test_language_switch_ignores_a_malformed_next():
    # A control character in a query string is refused before any view (issue 11: a 400 page).
    response = Client().get("/lang/en/", {"next": "a\x00b"})
    assert response.status_code == 400
    assert "Location" not in response
    response = Client().get("/lang/en/", {"next": "//evil.example/"})
    assert response.status_code == 302
    assert response["Location"] == "/"
