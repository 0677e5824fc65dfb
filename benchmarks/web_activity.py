"""Clicks through the Discord Activity, for ``benchmarks/web_load.py``: how soon the
clicking player's board shows their move, and the other player's.

Each table's two players are Activity pages as ``web/activity/src/main.js`` behaves,
over HTTP (no browser: 40 pages at once would measure Chromium, not the bot):

- signed in through the fake Discord's OAuth2 (``POST /activity/api/token`` with a code
  the fake issued for the user, as the SDK's ``authorize`` gets it);
- the table of its channel (``GET /activity/api/table``, by the Activity's instance
  there), then its event stream (the address the table gives, its ticket naming the
  player) and, at each event, the table again, as the page refetches its own view;
- the player to act, after a think time drawn from 0.2 s to 2 × ``think`` (as the paced
  players of ``benchmarks/bot_latency.py``), clicks one of the choices their page shows
  at random: ``POST /activity/api/move`` with the version the page shows.

Per click, from the moment its request is sent (``time.perf_counter()`` of this process,
which also notes each arrival):

- **click → board in the clicking page**: the move's answer, which carries the new table
  (the page draws it at once);
- **click → event at the clicking page**: the first event of that version (or a later
  one) on the clicking page's stream;
- **click → the other player's board**: the event at the other page, and the table it
  then fetched.

Every request goes to the bot's real web server (in the bot's process); the move is the
same call a button makes, and the thread then shows it as after a button (the board's
picture drawn, the log line posted), all within the measured bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from tests.e2e.fake_discord import FakeDiscord, FakeUser

ActivityTable = Any
"""A table as the Activity's API answers it (``web/activity.py``): a JSON object."""


@dataclass
class Click:
    table: int
    by: int
    """Which of the table's two pages clicked."""
    version: int
    """The version the move made."""
    sent: float
    answered: float = float("nan")
    refused: str = ""


@dataclass
class Page:
    """One player's Activity page."""

    user: FakeUser
    session: str = ""
    table: ActivityTable = None
    events: list[tuple[int, float]] = field(default_factory=list)
    """(version, arrival) of each event of its stream."""
    shown: list[tuple[int, float]] = field(default_factory=list)
    """(version, when its table had come) of each table the page fetched after an event."""
    fetching: asyncio.Task[None] | None = None
    again: bool = False

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.session}"}


@dataclass
class Result:
    clicks: list[Click] = field(default_factory=list)
    pages: list[list[Page]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu: list[float] = field(default_factory=lambda: [0.0, 0.0])
    """Share of one core (%) while clicking: the bot's process, its drawing worker."""

    def answered(self) -> list[float]:
        return [c.answered - c.sent for c in self.clicks if not c.refused]

    def own_events(self) -> list[float]:
        return self._arrivals(lambda pages, click: pages[click.by], events=True)

    def others_boards(self) -> list[float]:
        return self._arrivals(lambda pages, click: pages[1 - click.by], events=False)

    def missed(self) -> int:
        """Clicks whose event never reached the clicking page's stream."""
        total = sum(not c.refused for c in self.clicks)
        return total - len(self.own_events())

    def _arrivals(
        self, page_of: Callable[[list[Page], Click], Page], *, events: bool
    ) -> list[float]:
        out = []
        for click in self.clicks:
            if click.refused:
                continue
            page = page_of(self.pages[click.table], click)
            seen = page.events if events else page.shown
            arrived = next((at for v, at in seen if v >= click.version and at >= click.sent), None)
            if arrived is not None:
                out.append(arrived - click.sent)
        return out


class Activities:
    """The Activity pages of ``tables`` (each a channel id and its two users)."""

    def __init__(
        self, fake: FakeDiscord, base: str, tables: list[tuple[int, list[FakeUser]]]
    ) -> None:
        self.fake = fake
        self.base = base.rstrip("/") + "/activity/"
        self.tables = tables
        self.result = Result()
        self.clicked_by: dict[int, Page] = {}
        self._streams: list[asyncio.Task[None]] = []
        self._http: aiohttp.ClientSession | None = None

    @property
    def http(self) -> aiohttp.ClientSession:
        assert self._http is not None
        return self._http

    async def __aenter__(self) -> Activities:
        self._http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=10),
        )
        for channel, users in self.tables:
            pages = [Page(user) for user in users]
            self.result.pages.append(pages)
            # both players in the Activity's instance of that channel, as Discord tells
            instance = self.fake.oauth.start_activity(channel, *(user.id for user in users))
            for page in pages:
                await self.sign_in(page)
                page.table = await self.get(page, f"api/table?instance={instance}")
                self._streams.append(asyncio.create_task(self.follow(page)))
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._streams:
            task.cancel()
        for task in self._streams:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for pages in self.result.pages:
            for page in pages:
                if page.fetching is not None:
                    page.fetching.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await page.fetching
        await self.http.close()

    # ---------------------------------------------------------------- a page

    async def sign_in(self, page: Page) -> None:
        code = self.fake.oauth.authorize(page.user)
        async with self.http.post(self.base + "api/token", json={"code": code}) as answer:
            signed = await answer.json()
            if answer.status != 200:
                raise RuntimeError(f"the Activity's sign-in was refused: {signed}")
        page.session = signed["session"]

    async def get(self, page: Page, path: str) -> ActivityTable:
        async with self.http.get(self.base + path, headers=page.auth) as answer:
            table = await answer.json()
            if answer.status != 200:
                raise RuntimeError(f"{path}: HTTP {answer.status} {table}")
        return table

    async def follow(self, page: Page) -> None:
        """The page's event stream: each event noted, then its table fetched again (one
        fetch at a time, one more after it if events came meanwhile, as the page does)."""
        url = self.base + page.table["events"]
        while True:
            try:
                async with self.http.get(url) as stream:
                    if stream.status != 200:
                        self.result.errors.append(f"events: HTTP {stream.status}")
                        await asyncio.sleep(1)
                        continue
                    async for raw in stream.content:
                        line = raw.decode().strip()
                        if line.startswith("data:"):
                            data = json.loads(line.removeprefix("data:"))
                            if "version" in data:
                                page.events.append((int(data["version"]), time.perf_counter()))
                                self.refetch(page)
            except (aiohttp.ClientError, ConnectionError) as error:
                self.result.errors.append(f"events: {type(error).__name__}")
                await asyncio.sleep(1)

    def refetch(self, page: Page) -> None:
        if page.fetching is not None and not page.fetching.done():
            page.again = True
            return

        async def fetch() -> None:
            page.again = True
            while page.again:
                page.again = False
                table = await self.get(page, f"api/table?game={page.table['game']}")
                page.table = table
                page.shown.append((int(table["version"]), time.perf_counter()))

        page.fetching = asyncio.create_task(fetch())

    # ---------------------------------------------------------------- clicking

    async def click(self, index: int, by: int, chance: random.Random) -> Click:
        page = self.result.pages[index][by]
        table = page.table
        choice = chance.choice(table["choices"])
        click = Click(index, by, int(table["version"]) + 1, time.perf_counter())
        body = {"game": table["game"], "version": table["version"], "index": choice["index"]}
        async with self.http.post(self.base + "api/move", json=body, headers=page.auth) as answer:
            played = await answer.json()
            click.answered = time.perf_counter()
        if answer.status != 200:
            click.refused = played.get("error", f"HTTP {answer.status}")
        if played.get("table"):
            page.table = played["table"]
        return click

    async def play(self, seconds: float, think: float) -> Result:
        """Every table's acting player clicks, after thinking, for ``seconds``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        began = time.perf_counter()

        async def table(index: int, chance: random.Random) -> None:
            pages = self.result.pages[index]
            while loop.time() < end:
                await asyncio.sleep(0.2 + chance.uniform(0, 2 * max(think, 0.05)))
                acting = await self.acting(pages, end)
                if acting is None:
                    return
                self.result.clicks.append(await self.click(index, acting, chance))

        await asyncio.gather(*(table(i, random.Random(100 + i)) for i in range(len(self.tables))))
        self.result.seconds = time.perf_counter() - began
        return self.result

    async def acting(self, pages: list[Page], end: float) -> int | None:
        """Which page shows choices (its player's turn), once one does (and knows the
        latest version of the two)."""
        loop = asyncio.get_running_loop()
        while loop.time() < end + 5:
            for by, page in enumerate(pages):
                table = page.table
                if table["status"] != "active":
                    return None
                if table["choices"] and all(
                    int(table["version"]) >= int(p.table["version"]) for p in pages
                ):
                    return by
            await asyncio.sleep(0.01)
        return None


async def clicks_through_the_activity(
    fake: FakeDiscord,
    base: str,
    open_table: Callable[[int], Awaitable[tuple[int, list[FakeUser]]]],
    tables: int,
    seconds: float,
    think: float,
) -> Result:
    """Open ``tables`` tables (``open_table(i)``: the channel and its two users), then
    play them through the Activity for ``seconds``."""
    opened = [await open_table(i) for i in range(tables)]
    async with Activities(fake, base, opened) as activities:
        return await activities.play(seconds, think)
