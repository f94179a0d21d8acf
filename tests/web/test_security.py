"""Security: CSRF on every POST, login throttling, an append-only audit log, no GET that writes,
and no secret in the repository (issue 7 "Bad input and security").

The URL walks below enumerate the project's real URLconf, so a page added later is covered
without anyone remembering to add it here.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import reverse

from scoring.models import Penalty, TableEvent
from tests.support.urls import all_urls
from tournaments import throttle
from tournaments.models import AuditEntry, Pair, Round, Table, Tournament

ROOT = Path(__file__).resolve().parents[2]


def csrf_refused(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Stands in for Django's CSRF failure view, so the test knows *which* check refused."""
    return HttpResponse(b"csrf-refused", status=403)


def _counts() -> dict[str, int]:
    return {
        "tournaments": Tournament.objects.count(),
        "pairs": Pair.objects.count(),
        "rounds": Round.objects.count(),
        "events": TableEvent.objects.count(),
        "penalties": Penalty.objects.count(),
        "audit": AuditEntry.objects.count(),
        "versions": sum(Table.objects.values_list("version", flat=True)),
        "round_states": hash(tuple(Round.objects.order_by("pk").values_list("status", flat=True))),
    }


@pytest.fixture
def superuser(db: Any) -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.org", "pw-root")


def test_every_post_needs_a_csrf_token(
    round1: Round, cast: dict[str, Any], superuser: Any, settings: Any
) -> None:
    settings.CSRF_FAILURE_VIEW = f"{__name__}.csrf_refused"
    table = Table.objects.filter(round=round1, is_bye=False).first()
    urls = all_urls(round1.tournament.slug, table.entry_token)
    assert len(urls) > 30, urls  # the walk found the site
    before = _counts()
    unprotected = []
    for user in (None, cast["organizer"], superuser):
        client = Client(enforce_csrf_checks=True)
        if user is not None:
            client.force_login(user)
        for name, url in urls:
            response = client.post(url, {"token": "NS3", "version": 0, "reason": "x"})
            if response.status_code == 405:  # GET-only: nothing to protect
                continue
            if response.content != b"csrf-refused":
                unprotected.append((name, url, response.status_code))
    assert not unprotected, f"POST accepted without a CSRF token: {unprotected}"
    assert _counts() == before


def test_no_get_request_changes_the_database(
    round1: Round, cast: dict[str, Any], superuser: Any
) -> None:
    """State changes are POST-only (so CSRF covers them): every page, fetched by the most
    powerful users, leaves the database as it was."""
    table = Table.objects.filter(round=round1, is_bye=False).first()
    urls = all_urls(round1.tournament.slug, table.entry_token)
    skip = ("logout", "set_language", "public:language")
    before = _counts()
    errors = []
    for user in (cast["organizer"], superuser):
        client = Client()
        client.force_login(user)
        client.raise_request_exception = False
        for name, url in urls:
            if name.endswith(skip) or name.startswith("admin:"):
                continue  # Django's admin writes on POST only; it is ours that need checking
            response = client.get(url)
            if response.status_code >= 500:
                errors.append((name, url, response.status_code))
    assert not errors, errors
    assert _counts() == before


# --------------------------------------------------------------------------------------------
# Login throttling


@pytest.fixture
def account(db: Any) -> Any:
    cache.clear()
    return get_user_model().objects.create_user("referee-zhang", password="right-password-1")


def _login(client: Client, username: str, password: str, url: str = "") -> Any:
    return client.post(url or reverse("login"), {"username": username, "password": password})


def test_login_is_throttled_after_five_failures(
    account: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(5):
        response = _login(client, "referee-zhang", "wrong")
        assert response.status_code == 200  # the form again, with its error
    response = _login(client, "referee-zhang", "right-password-1")
    assert response.status_code == 429  # even the right password: the window is closed
    assert "登录失败次数过多" in response.content.decode()
    assert response["Retry-After"]
    assert "_auth_user_id" not in client.session
    # Another address is not punished for this one's guesses…
    other = Client(REMOTE_ADDR="198.51.100.9")
    assert _login(other, "referee-zhang", "right-password-1").status_code == 302
    # …and once the window has passed (the counters expire) the account works again.
    later = time.time() + 15 * 60 + 1
    monkeypatch.setattr(throttle.time, "time", lambda: later)
    assert _login(client, "referee-zhang", "right-password-1").status_code == 302


def test_one_address_guessing_many_accounts_is_throttled(account: Any, settings: Any) -> None:
    settings.LOGIN_FAILURES_PER_CLIENT_LIMIT = 8
    client = Client(REMOTE_ADDR="203.0.113.8")
    for i in range(8):
        assert _login(client, f"user{i}", "guess").status_code == 200
    assert _login(client, "referee-zhang", "right-password-1").status_code == 429


def test_a_success_resets_the_account_counter(account: Any) -> None:
    client = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(4):
        _login(client, "referee-zhang", "wrong")
    assert _login(client, "referee-zhang", "right-password-1").status_code == 302
    client.logout()
    for _ in range(4):
        assert _login(client, "referee-zhang", "wrong").status_code == 200
    assert _login(client, "referee-zhang", "right-password-1").status_code == 302


def test_the_admin_login_is_throttled_too(account: Any) -> None:
    client = Client(REMOTE_ADDR="203.0.113.10")
    url = reverse("admin:login")
    for _ in range(5):
        _login(client, "referee-zhang", "wrong", url)
    assert _login(client, "referee-zhang", "wrong", url).status_code == 429


def test_throttling_behind_a_proxy_uses_the_forwarded_address(account: Any, settings: Any) -> None:
    settings.NUM_PROXIES = 1
    for i in range(5):
        # A client may forge the left part of X-Forwarded-For; our proxy appends the right part.
        client = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"10.9.9.{i}, 203.0.113.11")
        _login(client, "referee-zhang", "wrong")
    blocked = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.11")
    assert _login(blocked, "referee-zhang", "right-password-1").status_code == 429
    elsewhere = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.12")
    assert _login(elsewhere, "referee-zhang", "right-password-1").status_code == 302


# --------------------------------------------------------------------------------------------
# The audit log is append-only


def _an_audit_entry(round1: Round) -> AuditEntry:
    entry = AuditEntry.objects.filter(tournament=round1.tournament).order_by("pk").first()
    assert entry is not None
    return entry


def test_the_admin_cannot_change_add_or_delete_audit_entries(round1: Round, superuser: Any) -> None:
    entry = _an_audit_entry(round1)
    snapshot = list(AuditEntry.objects.order_by("pk").values())
    client = Client()
    client.force_login(superuser)
    changelist = reverse("admin:tournaments_auditentry_changelist")
    assert client.get(changelist).status_code == 200  # it can be read
    change = reverse("admin:tournaments_auditentry_change", args=[entry.pk])
    page = client.get(change)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()  # a view-only page
    assert client.post(change, {"reason": "改掉", "actor": "nobody"}).status_code == 403
    delete = reverse("admin:tournaments_auditentry_delete", args=[entry.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    add = reverse("admin:tournaments_auditentry_add")
    assert client.post(add, {"action": "confirm", "actor": "x"}).status_code == 403
    bulk = client.post(
        changelist, {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"}
    )
    assert bulk.status_code in (200, 302, 403)
    assert list(AuditEntry.objects.order_by("pk").values()) == snapshot


def test_the_audit_page_has_no_way_to_change_an_entry(
    round1: Round, cast: dict[str, Any], superuser: Any
) -> None:
    snapshot = list(AuditEntry.objects.order_by("pk").values())
    url = reverse("tournaments:audit", args=[round1.tournament.slug])
    for user in (cast["organizer"], superuser):
        client = Client()
        client.force_login(user)
        page = client.get(url)
        assert page.status_code == 200
        forms = re.findall(r"<form[^>]*>", page.content.decode())
        assert not [
            f
            for f in forms
            if "post" in f.lower()
            and "logout" not in f.lower()
            and "i18n" not in f.lower()
            and "lang" not in f.lower()
        ], forms
        assert client.post(url, {"reason": "x", "action": "confirm"}).status_code < 500
    assert list(AuditEntry.objects.order_by("pk").values()) == snapshot


def test_the_model_refuses_updates_and_deletes(round1: Round) -> None:
    entry = _an_audit_entry(round1)
    entry.reason = "改掉"
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(pk=entry.pk).update(reason="改掉")
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    assert AuditEntry.objects.get(pk=entry.pk).reason == ""


def test_deleting_a_tournament_in_the_admin_does_not_erase_its_audit_log(
    round1: Round, superuser: Any
) -> None:
    """A tournament with a history cannot be deleted through the admin (the cascade would take
    its audit log with it)."""
    count = AuditEntry.objects.filter(tournament=round1.tournament).count()
    client = Client()
    client.force_login(superuser)
    url = reverse("admin:tournaments_tournament_delete", args=[round1.tournament.pk])
    response = client.post(url, {"post": "yes"})
    assert response.status_code in (403, 200)
    assert AuditEntry.objects.filter(tournament=round1.tournament).count() == count


# --------------------------------------------------------------------------------------------
# No secret in the repository

SECRET_PATTERNS = {
    "private key": re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP )?PRIVATE KEY"),
    "AWS access key": re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),
    "Slack token": re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}"),
    "Google API key": re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    # user:password@ in a URL; an upper-case placeholder (PASSWORD) is documentation.
    "password in a URL": re.compile(
        r"\b[a-z][a-z0-9+.-]*://[^/\s:@'\"]+:(?![A-Z_]+@)[^/\s@'\"{}$<]{3,}@"
    ),
    "Django secret key": re.compile(
        r"SECRET_KEY[ \t]*[=:][ \t]*['\"]?(?!insecure-development-key-only-for-debug)[^\s'\"]{30,}"
    ),
    "assigned password": re.compile(
        r"(?i)\b(?:password|passwd|pwd)\s*=\s*['\"](?!pw-|right-password|wrong|guess)[^'\"\s]{8,}['\"]"
    ),
}
# Public on purpose: the demo accounts' password, printed by `make run` for anyone to try.
ALLOWED_VALUES = ("guandan-demo",)
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".pdf", ".xlsx", ".ico", ".woff", ".woff2"}


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_secret_is_committed() -> None:
    findings = []
    files = _tracked_files()
    for path in files:
        if path.suffix.lower() in BINARY_SUFFIXES or not path.is_file():
            continue
        if path.name in {".env", "id_rsa", "id_ed25519"} or path.suffix in {".pem", ".key"}:
            findings.append((str(path.relative_to(ROOT)), "secret-looking file"))
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for label, pattern in SECRET_PATTERNS.items():
            for match in pattern.finditer(text):
                if path.name == Path(__file__).name:
                    continue  # the patterns themselves
                if any(value in match.group(0) for value in ALLOWED_VALUES):
                    continue
                findings.append((str(path.relative_to(ROOT)), label, match.group(0)[:40]))
    assert len(files) > 20
    assert not findings, findings


def test_the_secret_scanner_finds_what_it_should() -> None:
    """The patterns above are worth something: each catches its example."""
    examples = {
        "private key": "-----BEGIN RSA PRIVATE KEY-----",
        "AWS access key": "aws = AKIAABCDEFGHIJKLMNOP",
        "GitHub token": "token ghp_" + "a" * 36,
        "password in a URL": "DATABASE_URL=postgres://gt:hunter2secret@db:5432/gt",
        "Django secret key": "SECRET_KEY=" + "k" * 50,
        "assigned password": 'password = "correct-horse-battery"',
    }
    for label, text in examples.items():
        assert SECRET_PATTERNS[label].search(text), label
    assert not SECRET_PATTERNS["password in a URL"].search("postgres://postgres@127.0.0.1/test")
    assert not SECRET_PATTERNS["Django secret key"].search("SECRET_KEY=\nALLOWED_HOSTS=x")
    assert not SECRET_PATTERNS["password in a URL"].search("postgres://gt:PASSWORD@db/gt")
