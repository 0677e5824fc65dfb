"""The browser the web tests drive (``tests/web/browser.py``) measures what they rely on:
tiny pages served by an aiohttp app on this test's event loop (so every awaited browser
call must leave the loop free to answer) show that overflow, the smallest text, Content
Security Policy violations, text arriving late, clicks, keys and screenshots are seen,
and that each would be seen to go wrong.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from PIL import Image

from tests.web import browser as browser_module
from tests.web.browser import AsyncBrowser
from tests.web.golden import MAX_DIFFERING_PIXELS, assert_matches_golden, difference, same

CSP = {"Content-Security-Policy": "script-src 'self'"}


def page(body: str, style: str = "") -> str:
    return (
        '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">'
        f"<style>body {{ font: 16px sans-serif; margin: 8px }} {style}</style></head>"
        f"<body>{body}</body></html>"
    )


WIDE = '<div style="width: 600px">a board too wide for a phone</div>'
PAGES: dict[str, tuple[str, dict[str, str]]] = {
    "/fits": (page("<p>Everything fits on a phone.</p>"), {}),
    "/wide": (page(WIDE), {}),
    "/wide-hidden": (page(WIDE, "html, body { overflow-x: hidden }"), {}),
    "/scroller": (page(f'<div style="overflow-x: auto">{WIDE}</div>'), {}),
    "/fonts": (
        page(
            "<h1>Table</h1><p>Score <small style='font-size: 10px'>(10 px)</small></p>"
            "<p style='display: none; font-size: 6px'>not shown</p>"
            "<p style='visibility: hidden; font-size: 7px'>not shown</p>"
            "<p><span style='font-size: 5px; white-space: pre'>   </span>.</p>"
        ),
        {},
    ),
    "/inline-script": (page("<p>x</p><script>document.title = 'ran'</script>"), CSP),
    "/late": (page('<main></main><script src="/late.js"></script>'), CSP),
    "/late.js": (
        "setTimeout(() => { document.querySelector('main').innerHTML ="
        " '<p id=\"late\">Your turn</p>'; }, 150);",
        {"Content-Type": "text/javascript"},
    ),
    "/controls": (
        page(
            '<button id="add">+1</button> <output id="count">0</output> '
            '<output id="key"></output><script src="/controls.js"></script>'
        ),
        CSP,
    ),
    "/controls.js": (
        "const count = document.getElementById('count');"
        "document.getElementById('add').onclick = () => count.textContent = +count.textContent + 1;"
        "addEventListener('keydown', e => document.getElementById('key').textContent = e.key);",
        {"Content-Type": "text/javascript"},
    ),
    "/tall": (page("<div style='height: 100vh; background: #c00'></div><p>below</p>"), {}),
}


async def serve(request: web.Request) -> web.Response:
    if request.path == "/score":  # ?n=11: "Score 11"
        body = page(f"<h1>Table</h1><p>Score {request.query['n']}</p><p>Elves left: 3</p>")
        return web.Response(text=body, content_type="text/html")
    if request.path not in PAGES:
        raise web.HTTPNotFound()
    body, headers = PAGES[request.path]
    headers = {"Content-Type": "text/html; charset=utf-8", **headers}
    return web.Response(text=body, headers=headers)


@pytest.fixture
async def site() -> AsyncIterator[str]:
    """The pages above at ``http://127.0.0.1:<a free port>``."""
    app = web.Application()
    app.router.add_get("/{path:.*}", serve)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        await runner.cleanup()


async def test_a_page_wider_than_the_phone_overflows_and_one_that_fits_does_not(
    browser: AsyncBrowser, site: str
) -> None:
    """600 px at a 390 px viewport sticks out, even where the page hides the scroll bar
    (overflow-x: hidden); a box that scrolls it inside the page is fine."""
    await browser.open(f"{site}/fits")
    assert await browser.horizontal_overflow() == 0
    await browser.open(f"{site}/wide")
    assert await browser.horizontal_overflow() == 8 + 600 - 390  # body's margin + board
    await browser.open(f"{site}/wide-hidden")
    assert await browser.horizontal_overflow() == 8 + 600 - 390
    await browser.open(f"{site}/scroller")
    assert await browser.horizontal_overflow() == 0
    await browser.resize(700, 500)
    await browser.open(f"{site}/wide")
    assert await browser.horizontal_overflow() == 0


async def test_the_smallest_text_is_the_smallest_shown(browser: AsyncBrowser, site: str) -> None:
    """10 px text is found among 16 px and 32 px text; text not shown (display: none,
    visibility: hidden, only spaces) is not counted."""
    await browser.open(f"{site}/fonts")
    assert await browser.smallest_font_px() == 10
    assert await browser.smallest_text() == (10, "(10 px)")
    paint = await browser.first_contentful_paint_ms()
    assert paint is not None and 0 < paint < 5000


async def test_a_content_security_policy_violation_is_a_console_error(
    browser: AsyncBrowser, site: str
) -> None:
    """With ``script-src 'self'`` an inline script is blocked, and the log says so; a
    page that keeps the policy has no console error."""
    await browser.open(f"{site}/controls")  # its script comes from the page's origin
    await browser.click("#add")
    assert await browser.console_errors() == []
    await browser.open(f"{site}/inline-script")
    assert await browser.run("return document.title") != "ran"
    errors = await browser.console_errors()
    assert len(errors) == 1 and "Content Security Policy" in errors[0], errors


async def test_text_a_script_adds_later_is_waited_for(browser: AsyncBrowser, site: str) -> None:
    """A script from the page's own origin puts "Your turn" there 0.15 s after loading:
    ``wait_for_text`` returns it; waiting for text that never comes fails, saying what
    is there."""
    await browser.open(f"{site}/late")
    assert await browser.texts("#late") == []
    assert await browser.wait_for_text("#late", "turn", timeout=5) == "Your turn"
    assert await browser.text("#late") == "Your turn"
    with pytest.raises(AssertionError, match="'Your turn'"):
        await browser.wait_for_text("#late", "Game over", timeout=0.2)
    with pytest.raises(AssertionError, match="no element matches"):
        await browser.text("#missing")


async def test_a_click_and_a_key_reach_the_page(browser: AsyncBrowser, site: str) -> None:
    """A click runs the button's handler; an arrow key arrives as ``ArrowLeft``."""
    await browser.open(f"{site}/controls")
    await browser.click("#add")
    await browser.click("#add")
    assert await browser.text("#count") == "2"
    await browser.press("ArrowLeft")
    assert await browser.wait_until("document.getElementById('key').textContent") == "ArrowLeft"
    with pytest.raises(ValueError, match="unknown key"):
        await browser.press("Left")


async def test_a_screenshot_matches_itself_and_not_a_changed_score(
    browser: AsyncBrowser, site: str, tmp_path: Path
) -> None:
    """The golden comparison passes the same page drawn again and catches one digit of
    a score changed; a mismatch leaves the new picture and its difference beside the
    golden. A full-page screenshot holds the whole document, a 100vh box at its height."""
    await browser.open(f"{site}/score?n=11")
    first = await browser.screenshot()
    assert first.startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(AssertionError, match="no golden screenshot"):
        assert_matches_golden("score", first, tmp_path)
    assert (tmp_path / "score.new.png").read_bytes() == first

    (tmp_path / "score.png").write_bytes(first)
    await browser.open(f"{site}/score?n=11")
    assert_matches_golden("score", await browser.screenshot(), tmp_path)
    assert not (tmp_path / "score.new.png").exists()

    await browser.open(f"{site}/score?n=17")
    changed = await browser.screenshot()
    assert not same(changed, first)
    assert difference(changed, first).pixels > MAX_DIFFERING_PIXELS
    with pytest.raises(AssertionError, match="pixels differ"):
        assert_matches_golden("score", changed, tmp_path)
    assert (tmp_path / "score.new.png").read_bytes() == changed
    assert (tmp_path / "score.diff.png").exists()

    await browser.open(f"{site}/tall")
    whole = Image.open(io.BytesIO(await browser.screenshot(full_page=True))).convert("RGB")
    height = await browser.run("return document.documentElement.scrollHeight")
    assert whole.size == (390, height) and height > 844
    red = (0xCC, 0, 0)
    assert whole.getpixel((100, 8)) == whole.getpixel((100, 8 + 843)) == red  # 844 px tall
    assert whole.getpixel((100, 8 + 844)) != red


def test_without_chromium_the_failure_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No chromium on the PATH nor where Debian puts it: a sentence naming the packages
    and ``./dev test``, never a skip."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(
        browser_module,
        "FALLBACK",
        {"chromium": "/nowhere/chromium", "chromedriver": "/nowhere/chromedriver"},
    )
    with pytest.raises(browser_module.ChromiumMissing, match=r"chromium-driver: \./dev test"):
        browser_module.programs()
