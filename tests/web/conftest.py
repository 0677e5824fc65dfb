"""Fixtures for the web tests: a headless Chromium (``tests/web/browser.py``).

One Chromium per test process (each xdist worker has its own, with its own profile),
started by the first test that asks for it: starting one takes about 0.6 s, handing it
clean to the next test (a new tab at the phone size, no cookies, cache, storage or log
of the pages before) about 0.1 s. A Chromium that stopped answering is replaced.

If Chromium or chromedriver is missing, every test that needs it FAILS with the reason
(never skipped): CI must not pass without having run the browser tests.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

import storage
from storage import SqlStorage
from tables.pictures import Pictures
from tests.web.browser import AsyncBrowser, Browser, ChromiumMissing
from web.server import WebServer


class _Chromium:
    """The process's Chromium, started when first needed."""

    def __init__(self) -> None:
        self.browser: Browser | None = None

    def clean(self) -> Browser:
        if self.browser is not None and not self.browser.alive():
            with contextlib.suppress(Exception):  # gone already: only its profile is left
                self.close()
        if self.browser is None:
            self.browser = Browser.start()
        else:
            self.browser.reset()
        return self.browser

    def close(self) -> None:
        if self.browser is not None:
            browser, self.browser = self.browser, None
            browser.close()


@pytest.fixture(scope="session")
def _chromium() -> Iterator[_Chromium]:
    chromium = _Chromium()
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def sync_browser(_chromium: _Chromium) -> Browser:
    """A clean headless Chromium, its viewport 390×844 (a phone), for a test without an
    event loop."""
    try:
        return _chromium.clean()
    except ChromiumMissing as missing:
        pytest.fail(str(missing))


@pytest.fixture
def browser(sync_browser: Browser) -> AsyncBrowser:
    """A clean headless Chromium, its viewport 390×844 (a phone), each call awaited (in a
    thread): ``await browser.open(url)``, ``await browser.wait_for_text("#score", "12")``."""
    return AsyncBrowser(sync_browser)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStorage]:
    """A new SQLite database."""
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as opened:
        yield opened


@pytest.fixture
async def server(store: SqlStorage) -> AsyncIterator[WebServer]:
    """The pages over ``store``, on a free port (``server.port``), looking for changes
    often."""
    web = WebServer(store, Pictures(), port=0)
    web.live.poll = 0.02
    await web.start()
    try:
        yield web
    finally:
        await web.stop()
