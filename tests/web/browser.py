"""A headless Chromium driven through Selenium, for the web tests.

Debian's ``chromium`` and its ``chromedriver`` (packages ``chromium`` and
``chromium-driver``, which ``./dev test`` installs) are started directly: Selenium is
given both programs, so its Selenium Manager never looks for (or downloads) a browser.
The background services (updates, sync, QUIC) are off, which also keeps Chromium fast
on a machine without a network.

``Browser`` is synchronous. The bot and the web server of a test run on the test's event
loop, so an async test uses ``AsyncBrowser``: the same methods, awaited, each run in a
thread (a blocking Selenium call on the loop would stall the very server it waits for).
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import JavascriptException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

PHONE = (390, 844)
"""The default viewport (CSS pixels): a phone held upright."""

FALLBACK = {"chromium": "/usr/bin/chromium", "chromedriver": "/usr/bin/chromedriver"}
"""Where Debian puts the two programs, if they are not on the PATH."""

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",  # a container's small /dev/shm would crash a tab
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
)

POLL_SECONDS = 0.05
PAGE_LOAD_SECONDS = 30.0
RESIZE_SECONDS = 5.0

KEYS = {
    "ArrowLeft": Keys.ARROW_LEFT,
    "ArrowRight": Keys.ARROW_RIGHT,
    "ArrowUp": Keys.ARROW_UP,
    "ArrowDown": Keys.ARROW_DOWN,
    "Enter": Keys.ENTER,
    "Escape": Keys.ESCAPE,
    "Tab": Keys.TAB,
    "Space": Keys.SPACE,
    " ": Keys.SPACE,
    "Backspace": Keys.BACKSPACE,
    "Delete": Keys.DELETE,
    "Home": Keys.HOME,
    "End": Keys.END,
    "PageUp": Keys.PAGE_UP,
    "PageDown": Keys.PAGE_DOWN,
}
"""``press`` takes the DOM's key names (``KeyboardEvent.key``) or a single character."""

HORIZONTAL_OVERFLOW_JS = """
const width = document.documentElement.clientWidth;
let overflow = document.documentElement.scrollWidth - width;
const page = new Set([document.documentElement, document.body]);
for (const element of document.querySelectorAll("body *")) {
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) continue;
  let left = box.left + scrollX, right = box.right + scrollX;
  // clipped by a scrolling (or clipping) box inside the page: only what shows counts;
  // the page's own clipping (overflow-x: hidden on html or body) hides nothing here
  for (let up = element.parentElement; up && !page.has(up); up = up.parentElement) {
    if (getComputedStyle(up).overflowX !== "visible") {
      const clip = up.getBoundingClientRect();
      left = Math.max(left, clip.left + scrollX);
      right = Math.min(right, clip.right + scrollX);
    }
  }
  if (right <= left) continue;
  overflow = Math.max(overflow, right - width, -left);
}
return Math.max(0, Math.round(overflow));
"""

SMALLEST_FONT_JS = """
let smallest = null;
const consider = (element, text) => {
  if (!text.trim() || !element.checkVisibility({opacityProperty: true,
                                               visibilityProperty: true})) return;
  const size = parseFloat(getComputedStyle(element).fontSize);
  if (smallest === null || size < smallest[0]) smallest = [size, text.trim().slice(0, 60)];
};
const walker = document.createTreeWalker(document.body || document, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const range = document.createRange();
  range.selectNodeContents(node);
  const drawn = [...range.getClientRects()].some(r => r.width > 0 && r.height > 0);
  if (drawn && node.parentElement) consider(node.parentElement, node.data);
}
for (const field of document.querySelectorAll("input, textarea, select")) {
  const box = field.getBoundingClientRect();
  if (field.type !== "hidden" && box.width > 0 && box.height > 0)
    consider(field, field.value || field.placeholder || "");
}
return smallest;
"""

SETTLED_JS = """
const done = arguments[arguments.length - 1];
document.fonts.ready.then(() => requestAnimationFrame(() => requestAnimationFrame(done)));
"""
"""Calls back once the page's fonts are loaded and two frames have been drawn."""

FIRST_PAINT_JS = """
const paint = performance.getEntriesByName("first-contentful-paint")[0];
return paint ? paint.startTime : null;
"""


class ChromiumMissing(RuntimeError):
    """Chromium or its chromedriver is not installed."""


def programs() -> tuple[str, str]:
    """The paths of ``chromium`` and ``chromedriver``: on the PATH, else Debian's."""
    found = {name: shutil.which(name) or path for name, path in FALLBACK.items()}
    missing = [name for name, path in found.items() if not Path(path).is_file()]
    if missing:
        raise ChromiumMissing(
            f"{' and '.join(missing)} not found: the web tests need a headless Chromium; "
            "install chromium and chromium-driver: ./dev test does it"
        )
    return found["chromium"], found["chromedriver"]


class Browser:
    """One headless Chromium with one tab; every method waits for its answer.

    CSS selectors name elements; a script given to ``wait_until`` is an expression, one
    given to ``run`` a function body (``return …`` for a value)."""

    def __init__(self, driver: webdriver.Chrome, profile: Path) -> None:
        self.driver = driver
        self._profile = profile
        self._log: list[dict[str, Any]] = []
        self._origins: set[str] = set()
        self._size = PHONE

    @classmethod
    def start(
        cls, width: int = PHONE[0], height: int = PHONE[1], flags: Sequence[str] = ()
    ) -> Browser:
        """A new Chromium with a fresh profile of its own, its viewport ``width×height``;
        ``flags`` are added to the usual ones (the Activity's harness maps Discord's
        names to this machine with them)."""
        chromium, chromedriver = programs()
        profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in (*FLAGS, *flags):
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        try:
            driver = webdriver.Chrome(
                service=Service(executable_path=chromedriver), options=options
            )
        except BaseException:
            shutil.rmtree(profile, ignore_errors=True)
            raise
        browser = cls(driver, profile)
        try:
            driver.set_page_load_timeout(PAGE_LOAD_SECONDS)
            browser.resize(width, height)
        except BaseException:
            browser.close()
            raise
        return browser

    # -- pages -------------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its ``load`` event."""
        parts = urlsplit(url)
        if parts.scheme in ("http", "https"):
            self._origins.add(f"{parts.scheme}://{parts.netloc}")
        self.driver.get(url)

    def resize(self, width: int, height: int) -> None:
        """Make the viewport (``innerWidth × innerHeight``) ``width × height`` CSS pixels:
        the window is sized so that what is left beside the browser's frame is that."""
        self._size = (width, height)
        self.driver.set_window_size(width, height)
        deadline = time.monotonic() + RESIZE_SECONDS
        while True:
            inner = self.run("return [innerWidth, innerHeight]")
            if inner == [width, height] or time.monotonic() >= deadline:
                break
            # the frame's size, from the window as it is now: a busy machine's Chromium
            # may show the last size for a moment yet (seen in CI: 1280×757 for 1280×900)
            outer = self.driver.get_window_size()
            frame = (outer["width"] - inner[0], outer["height"] - inner[1])
            self.driver.set_window_size(width + frame[0], height + frame[1])
            time.sleep(POLL_SECONDS)
        assert inner == [width, height], f"asked for a {width}×{height} viewport, got {inner}"

    def enter_frame(self, css: str, timeout: float = 10.0) -> None:
        """Make the document of the iframe matching ``css`` (in the current document)
        the one every later call reads and clicks, once the iframe is there."""
        self.wait_until(f"document.querySelector({json.dumps(css)})", timeout)
        self.driver.switch_to.frame(self.driver.find_element("css selector", css))

    def leave_frame(self) -> None:
        """Back to the tab's own document after ``enter_frame``."""
        self.driver.switch_to.default_content()

    def run(self, script: str, *args: Any) -> Any:
        """Run a function body in the page (``arguments[i]`` are ``args``); its return."""
        return self.driver.execute_script(script, *args)

    def wait_until(self, expression: str, timeout: float = 10.0) -> Any:
        """Evaluate the JavaScript ``expression`` until it is truthy; that value. An
        expression that throws (an element not there yet) counts as not yet."""
        deadline = time.monotonic() + timeout
        last: Any = None
        while True:
            try:
                last = self.run(f"return ({expression});")
            except JavascriptException as error:
                last = f"an error: {error.msg}"
            else:
                if last:
                    return last
            if time.monotonic() >= deadline:
                raise AssertionError(f"waited {timeout:g} s for {expression}; last: {last!r}")
            time.sleep(POLL_SECONDS)

    def wait_for_text(self, css: str, text: str, timeout: float = 10.0) -> str:
        """Wait until an element matching ``css`` shows ``text`` (a part of its rendered
        text); that element's whole text."""
        found = json.dumps([css, text])  # as JSON literals: any quote in them is safe
        expression = (
            f"(([css, text]) => [...document.querySelectorAll(css)]"
            f".map(e => e.innerText).find(t => t.includes(text)))({found})"
        )
        try:
            return str(self.wait_until(expression, timeout))
        except AssertionError:
            shown = self.texts(css)
            raise AssertionError(
                f"waited {timeout:g} s for {css!r} to show {text!r}; it shows {shown!r}"
            ) from None

    def text(self, css: str) -> str:
        """The rendered text (``innerText``) of the first element matching ``css``."""
        texts = self.texts(css)
        assert texts, f"no element matches {css!r}"
        return texts[0]

    def texts(self, css: str) -> list[str]:
        """The rendered text of every element matching ``css``, in document order."""
        return list(
            self.run(
                "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText)", css
            )
        )

    def click(self, css: str, timeout: float = 10.0) -> None:
        """Click the first element matching ``css`` like a person would (in view, on
        top), once it is shown and enabled (waiting up to ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            elements = self.driver.find_elements("css selector", css)
            if elements and elements[0].is_displayed() and elements[0].is_enabled():
                elements[0].click()
                return
            if time.monotonic() >= deadline:
                state = "hidden or disabled" if elements else "not on the page"
                raise AssertionError(f"could not click {css!r} in {timeout:g} s: {state}")
            time.sleep(POLL_SECONDS)

    def press(self, key: str) -> None:
        """Press one key on the focused element (the page if none): a DOM key name such
        as ``ArrowLeft``, ``Enter``, ``Escape``, or a single character."""
        if len(key) != 1 and key not in KEYS:
            raise ValueError(f"unknown key {key!r}; known: {', '.join(KEYS)} or a character")
        ActionChains(self.driver).send_keys(KEYS.get(key, key)).perform()

    # -- measurements ------------------------------------------------------------------

    def horizontal_overflow(self) -> int:
        """How many CSS pixels the page is wider than the viewport: the document's
        scroll width, or any element sticking out left or right even where the page
        hides it (``overflow-x: hidden``); 0 when everything fits. What a scrolling
        box inside the page clips away does not count."""
        return int(self.run(HORIZONTAL_OVERFLOW_JS))

    def smallest_text(self) -> tuple[float, str] | None:
        """The smallest computed font size (px) of any visible, non-blank text, with
        the start of that text; None if the page shows no text."""
        found = self.run(SMALLEST_FONT_JS)
        return None if found is None else (float(found[0]), str(found[1]))

    def smallest_font_px(self) -> float:
        """The smallest computed font size (px) among the elements showing text."""
        found = self.smallest_text()
        assert found is not None, "the page shows no text"
        return found[0]

    def first_contentful_paint_ms(self) -> float | None:
        """When the page first drew text or an image, in ms after navigation started
        (the Performance API); None if it has not yet."""
        found = self.run(FIRST_PAINT_JS)
        return None if found is None else float(found)

    def screenshot(self, full_page: bool = False) -> bytes:
        """A PNG of the viewport, or of the whole document (``full_page``), drawn once
        the page's fonts are loaded. The whole document is captured beyond the viewport
        without resizing it, so ``vh`` units keep their size."""
        self.driver.execute_async_script(SETTLED_JS)
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            size = metrics["cssContentSize"]
            params["captureBeyondViewport"] = True
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": size["height"],
                "scale": 1,
            }
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", params)
        return base64.b64decode(shot["data"])

    def console_errors(self) -> list[str]:
        """The browser log's errors (level SEVERE) since the test began: uncaught
        exceptions, ``console.error``, Content Security Policy violations, failed loads.
        Chromium's own unasked-for ``/favicon.ico`` request is left out (whether its
        404 is logged yet depends on timing)."""
        self._log.extend(self._read_log())
        return [
            entry["message"]
            for entry in self._log
            if entry["level"] == "SEVERE"
            and not (
                entry.get("source") == "network"
                and "/favicon.ico - Failed to load resource" in entry["message"]
            )
        ]

    def _read_log(self) -> list[dict[str, Any]]:
        """The browser log's entries since it was last read (reading empties it)."""
        entries: list[dict[str, Any]] = self.driver.get_log("browser")  # type: ignore[no-untyped-call]
        return entries

    # -- life --------------------------------------------------------------------------

    def reset(self) -> None:
        """A clean start for the next test: one new tab at the default size, no
        cookies, cache or storage of the pages opened, an empty log."""
        for origin in self._origins:
            self.driver.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
            )
        self._origins.clear()
        self.driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
        self.driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        old = self.driver.window_handles
        self.driver.switch_to.new_window("tab")
        fresh = self.driver.current_window_handle
        for handle in old:
            self.driver.switch_to.window(handle)
            self.driver.close()
        self.driver.switch_to.window(fresh)
        self._read_log()
        self._log.clear()
        if self._size != PHONE:  # the new tab has the window's size
            self.resize(*PHONE)

    def alive(self) -> bool:
        """Whether Chromium still answers."""
        try:
            self.driver.execute_script("return 1")
        except Exception:  # a WebDriverException, or chromedriver gone (connection refused)
            return False
        return True

    def close(self) -> None:
        """End Chromium and its chromedriver; remove the profile."""
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self._profile, ignore_errors=True)


P = ParamSpec("P")
R = TypeVar("R")


def _in_thread(
    method: Callable[Concatenate[Browser, P], R],
) -> Callable[Concatenate[AsyncBrowser, P], Coroutine[Any, Any, R]]:
    """``Browser.method`` as a coroutine method of ``AsyncBrowser``, run in a thread."""

    async def threaded(self: AsyncBrowser, /, *args: P.args, **kwargs: P.kwargs) -> R:
        def call() -> R:
            with self._lock:  # one command at a time, even from gathered tasks
                return method(self.sync, *args, **kwargs)

        return await asyncio.to_thread(call)

    threaded.__name__ = method.__name__
    threaded.__doc__ = method.__doc__
    return threaded


class AsyncBrowser:
    """``Browser`` for a test on an event loop: every method is awaited and runs in a
    thread, so the servers on the loop keep answering the browser meanwhile."""

    def __init__(self, sync: Browser) -> None:
        self.sync = sync
        self._lock = threading.Lock()

    open = _in_thread(Browser.open)
    resize = _in_thread(Browser.resize)
    enter_frame = _in_thread(Browser.enter_frame)
    leave_frame = _in_thread(Browser.leave_frame)
    run = _in_thread(Browser.run)
    wait_until = _in_thread(Browser.wait_until)
    wait_for_text = _in_thread(Browser.wait_for_text)
    text = _in_thread(Browser.text)
    texts = _in_thread(Browser.texts)
    click = _in_thread(Browser.click)
    press = _in_thread(Browser.press)
    horizontal_overflow = _in_thread(Browser.horizontal_overflow)
    smallest_text = _in_thread(Browser.smallest_text)
    smallest_font_px = _in_thread(Browser.smallest_font_px)
    first_contentful_paint_ms = _in_thread(Browser.first_contentful_paint_ms)
    screenshot = _in_thread(Browser.screenshot)
    console_errors = _in_thread(Browser.console_errors)
    close = _in_thread(Browser.close)
