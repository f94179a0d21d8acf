"""Playwright fixtures for the browser flows: Debian's Chromium against pytest-django's live server.

The flows of issue 5 run in a real browser (``/usr/bin/chromium``, installed by
``scripts/ensure_chromium.sh``); when it is missing every browser test is skipped with a visible
reason instead of failing. Playwright's sync API runs an asyncio event loop in this thread, so
Django's "async unsafe" guard is switched off for the test process (the ORM calls come from the
test body, never from inside the loop).

Fixtures: ``browser`` (session), ``desktop_page`` (1280×800), ``phone_page`` (390×844, touch),
``login_as(page, user)`` (puts a real session cookie into the page's context, no form typing),
``screenshot(page, name)`` (saves ``docs/screenshots/<name>.png``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import DESKTOP, PHONE

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test in this folder ``browser`` and skip them all when Chromium is missing."""
    here = Path(__file__).resolve().parent
    skip = pytest.mark.skip(
        reason=f"browser tests SKIPPED: {CHROMIUM} is missing (run scripts/ensure_chromium.sh)"
    )
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)
            # Under pytest-xdist (`make test`: ``--dist loadgroup``) the browser flows run one
            # after another on one worker, beside the rest of the suite on the others.
            item.add_marker(pytest.mark.xdist_group("browser"))
            if not CHROMIUM.exists():
                item.add_marker(skip)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests SKIPPED: {CHROMIUM} is missing")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()


def _new_page(browser: Any, **options: Any) -> Iterator[Any]:
    context = browser.new_context(locale="zh-CN", timezone_id="Asia/Shanghai", **options)
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def desktop_page(browser: Any, live_server: Any, transactional_db: None) -> Iterator[Any]:
    yield from _new_page(browser, viewport=DESKTOP, base_url=live_server.url)


@pytest.fixture
def phone_page(browser: Any, live_server: Any, transactional_db: None) -> Iterator[Any]:
    yield from _new_page(
        browser,
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        base_url=live_server.url,
    )


@pytest.fixture
def login_as(live_server: Any) -> Callable[[Any, Any], None]:
    """``login_as(page, user)``: a logged-in session cookie for ``user`` in the page's context."""
    from django.test import Client

    def login(page: Any, user: Any) -> None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies["sessionid"]
        page.context.add_cookies(
            [{"name": "sessionid", "value": cookie.value, "url": live_server.url}]
        )

    return login


@pytest.fixture
def screenshot(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``screenshot(page, "organizer-1-draft")`` → ``organizer-1-draft.png``: under
    ``docs/screenshots/`` when ``UPDATE_SCREENSHOTS=1`` (the README's pictures), else in a
    temporary folder, so that ``make test`` leaves the work tree as it found it."""
    folder = SCREENSHOTS if os.environ.get("UPDATE_SCREENSHOTS") == "1" else None
    folder = folder or tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)

    def shot(page: Any, name: str, full_page: bool = True) -> Path:
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return shot
