"""The live pages' news: which watched game changed, and the table each page must show.

A page follows its game over Server-Sent Events (``web/server.py``). Every stream of a
game waits on its own :class:`Watch`; one loop per process (:meth:`Live.run`) asks
storage for the version, status and turn limit of all watched games in one query
(``Storage.versions``) every ``POLL_SECONDS``, and at once when this process stored a
move or finished publishing one (the publisher's ``watchers``: "look now"), so a move
committed by any process reaches every open page. Only a game whose watched values
changed wakes its pages; what a page shows then (:class:`Frame`) is drawn once per
change and language, however many pages show it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

from storage import Watched

log = logging.getLogger(__name__)

POLL_SECONDS = 0.1
KEEPALIVE_SECONDS = 15.0
"""A stream with nothing to say sends a comment this often (proxies close idle ones)."""
FAILURE_DELAY = 2.0
FRAMES_KEPT = 256
GONE = Watched(-1, "gone")


@dataclass(frozen=True)
class Frame:
    """What a live page shows of its game: the table's HTML at a version, in a language,
    and the Server-Sent Event that carries it (encoded once for every page)."""

    id: str
    """Names what is shown: the version, status and turn limit (``Last-Event-ID``)."""
    html: str
    over: bool
    """The game has ended: the page stops listening."""
    event: bytes = b""

    @classmethod
    def of(cls, id: str, html: str, over: bool) -> Frame:
        data = json.dumps({"html": html, "over": over}, ensure_ascii=False)
        return cls(id, html, over, f"id: {id}\nevent: table\ndata: {data}\n\n".encode())


@dataclass(eq=False)
class Watch:
    """One page's stream: woken when its game changed, when it should say something to
    keep its connection, and when the server stops."""

    woken: asyncio.Event = field(default_factory=asyncio.Event)
    keepalive: bool = False


Versions = Callable[[list[int]], Awaitable[dict[int, Watched]]]
Draw = Callable[[int, str, Watched | None, int | None], Awaitable[Frame | None]]


class Live:
    """The watched games of this process and their frames; see the module doc."""

    def __init__(self, versions: Versions, draw: Draw, *, poll: float = POLL_SECONDS) -> None:
        self._versions = versions
        self._draw = draw
        """Draws a game's frame in a language, as last watched, after the frame of a
        version (``None``: the first; draws ``None``: the page is gone)."""
        self.poll = poll
        self._watches: dict[int, set[Watch]] = {}
        self._seen: dict[int, Watched] = {}
        self._changes = itertools.count(1)
        self._generation: dict[int, int] = {}
        """By watched game: the number of its last change (unique in the process)."""
        self._frames: OrderedDict[tuple[int, str], tuple[object, asyncio.Future[Frame | None]]]
        self._frames = OrderedDict()
        """By game and language (least recently used first): what the frame was drawn
        for (a watched game's change, or an unwatched game's version) and its drawing."""
        self._wake = asyncio.Event()
        self.closing = asyncio.Event()
        """Set when the server stops: every stream ends."""

    @property
    def streams(self) -> int:
        return sum(len(watches) for watches in self._watches.values())

    @contextmanager
    def watch(self, game_id: int) -> Iterator[Watch]:
        watch = Watch()
        if game_id not in self._watches:
            self._generation[game_id] = next(self._changes)
        self._watches.setdefault(game_id, set()).add(watch)
        try:
            yield watch
        finally:
            watches = self._watches.get(game_id, set())
            watches.discard(watch)
            if not watches:
                self._watches.pop(game_id, None)
                self._seen.pop(game_id, None)
                self._generation.pop(game_id, None)

    def seen(self, game_id: int) -> Watched | None:
        """A watched game's version, status and turn limit as last read (``None``: not
        read yet)."""
        return self._seen.get(game_id)

    def poke(self, game_id: int) -> None:
        """This process stored a move of the game, or published one: look now."""
        if game_id in self._watches:
            self._wake.set()

    async def frame(self, game_id: int, lang: str) -> Frame | None:
        """The game's frame now, drawn once per change and language. A game no page
        follows yet is looked at first (one read of its version)."""
        if game_id in self._watches:
            stamp: object = self._generation[game_id]
            watched = self._seen.get(game_id)
        else:
            watched = (await self._versions([game_id])).get(game_id)
            stamp = watched
        kept = self._frames.pop((game_id, lang), None)
        if kept is None or kept[0] != stamp or (kept[1].done() and kept[1].exception()):
            after = _version_of(kept[1]) if kept is not None else None
            kept = (stamp, asyncio.ensure_future(self._draw(game_id, lang, watched, after)))
        self._frames[(game_id, lang)] = kept
        while len(self._frames) > FRAMES_KEPT:
            self._frames.popitem(last=False)
        return await asyncio.shield(kept[1])

    def close(self) -> None:
        """The server stops: every stream ends."""
        self.closing.set()
        self._wake_all()

    async def keep_alive(self) -> None:
        """Wake every stream with nothing to say every ``KEEPALIVE_SECONDS``."""
        while not self.closing.is_set():
            await asyncio.sleep(KEEPALIVE_SECONDS)
            for watches in self._watches.values():
                for watch in watches:
                    watch.keepalive = True
            self._wake_all()

    def _wake_all(self) -> None:
        for watches in self._watches.values():
            for watch in watches:
                watch.woken.set()

    async def run(self) -> None:
        """Look for changes until the server stops (a task of the server's)."""
        while not self.closing.is_set():
            with suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll)
            self._wake.clear()
            watched = list(self._watches)
            if not watched:
                continue
            try:
                found = await self._versions(watched)
            except Exception as error:  # the database is away: pages keep what they show
                log.warning("live pages: could not read the games' versions (%r)", error)
                await asyncio.sleep(FAILURE_DELAY)
                continue
            for game_id in watched:
                now = found.get(game_id, GONE)
                if self._seen.get(game_id) != now:
                    self._seen[game_id] = now
                    self._changed(game_id)

    def _changed(self, game_id: int) -> None:
        self._generation[game_id] = next(self._changes)
        for watch in self._watches.get(game_id, ()):
            watch.woken.set()


def _version_of(drawn: asyncio.Future[Frame | None]) -> int | None:
    """The version a drawn frame shows (its id begins with it), if it was drawn."""
    if not drawn.done() or drawn.cancelled() or drawn.exception() is not None:
        return None
    frame = drawn.result()
    version = frame.id.split("-", 1)[0] if frame is not None else ""
    return int(version) if version.isdigit() else None
