"""The web server inside the bot's process (aiohttp): every table's page.

| path | what |
|---|---|
| ``/g/<token>`` | the live table (HTML), following the game over ``/g/<token>/events`` |
| ``/g/<token>/events`` | Server-Sent Events: the table's HTML at each change |
| ``/g/<token>/replay?step=N`` | the replay at move N; ``/g/<token>/replay/<N>.json`` one step |
| ``/g/<token>/chart.png`` | a finished game's score chart |
| ``/static/<file>`` | the pages' stylesheets and script |
| ``/activity/…`` | the Discord Activity: its page and API (``web/activity.py``) |
| ``/healthz``, ``/readyz``, ``/metrics`` | health, readiness, metrics (``web/health.py``) |

Server-Sent Events rather than a WebSocket: the page only listens (a move is made in
Discord), the browser's ``EventSource`` reconnects by itself and sends the last event's
id so the server can tell whether the page is behind, and it is plain HTTP that every
reverse proxy passes.

Every response carries a strict Content-Security-Policy (nothing but this server's own
stylesheets, script and pictures; no inline script or style) and the other security
headers; no page may be framed, but the Activity's, by Discord's own origins only
(:func:`headers_for`). Each client address has an allowance of requests (``RATE``/``BURST``) and of
open streams (``STREAMS_PER_ADDRESS``): beyond it the answer is a cheap 429, so a flood
from one address is slowed and the tables are not. Behind a reverse proxy on this
machine (a loopback peer), the address is the last one the proxy added to
``X-Forwarded-For``. Probes and scrapes have an allowance of their own, and none at all
from this machine directly (``web/health.py``). Without ``WEB_PORT``, ``METRICS_PORT``
serves those three alone (:class:`ProbeServer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import json
import logging
import re
import resource
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

import i18n
from storage import GameInfo, GameNotFound, LoadedGame, LoggedAction, Storage, Watched
from tables import drawing
from tables.pictures import Pictures
from web.activity import FRAME_ANCESTORS, Activity, ActivityOptions
from web.activity import PREFIX as ACTIVITY
from web.health import PATHS, Health, local
from web.live import Frame, Live
from web.page import LOG_MOVES, Replays, live_html, title
from web.templating import render

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
RATE = 10.0
"""Requests per second one client address may send on average …"""
BURST = 40
"""… and at once."""
STREAMS_PER_ADDRESS = 20
ACTIVITY_RATE = 100.0
ACTIVITY_BURST = 400
"""The Activity's requests without a session (its page, files, sign-in) by address:
they all come through a few of Discord's proxy addresses, which hide the players'
(those with a session have each their own allowance, as an address has)."""
RETRY_MS = 1000
"""How soon a page's ``EventSource`` tries again after losing its stream."""
CHARTS_KEPT = 16
TOKENS_KEPT = 10_000
LOGS_KEPT = 256
LINKS_SECONDS = 10.0
"""How long a server's "pages on/off" answer is kept."""

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
}
ACTIVITY_HEADERS = {
    **{k: v for k, v in SECURITY_HEADERS.items() if k != "X-Frame-Options"},
    "Content-Security-Policy": SECURITY_HEADERS["Content-Security-Policy"].replace(
        "frame-ancestors 'none'", f"frame-ancestors {FRAME_ANCESTORS}"
    ),
}
"""The Activity's: framed by Discord (``X-Frame-Options`` cannot name an origin, and
``frame-ancestors`` overrides it where both are known), by nobody else."""


def is_activity(path: str) -> bool:
    return path == ACTIVITY or path.startswith(f"{ACTIVITY}/")


def headers_for(path: str) -> dict[str, str]:
    """The security headers of a response to ``path``."""
    return ACTIVITY_HEADERS if is_activity(path) else SECURITY_HEADERS


def asset_version(files: dict[str, bytes]) -> str:
    """A hash of the static files, appended to their links so a browser never keeps
    an old stylesheet or script after an update."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + files[name])
    return digest.hexdigest()[:10]


def client_address(request: web.Request) -> str:
    peer = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For", "")
    try:
        loopback = ipaddress.ip_address(peer).is_loopback
    except ValueError:
        loopback = False
    if loopback and forwarded:
        return forwarded.split(",")[-1].strip()
    return peer


class Allowance:
    """Token buckets by client address, and open streams by address."""

    def __init__(self, rate: float = RATE, burst: int = BURST) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self.streams: dict[str, int] = {}

    def take(self, address: str) -> bool:
        now = time.monotonic()
        tokens, last = self._buckets.pop(address, (float(self.burst), now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1
        self._buckets[address] = (tokens - 1 if allowed else tokens, now)
        while len(self._buckets) > 10_000:  # addresses not seen lately are forgotten
            self._buckets.popitem(last=False)
        return allowed


def probe_allowed(request: web.Request, probes: Allowance) -> bool:
    """A probe or a scrape: never limited from this machine, else by its own allowance."""
    return local(request) or probes.take(client_address(request))


async def answer(
    request: web.Request,
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]] | None,
) -> web.StreamResponse:
    """The handler's response (``None``: over the allowance, a cheap 429) with the
    security headers; an error is a response too, never a traceback to the client."""
    if handler is None:
        response: web.StreamResponse = web.Response(
            status=429, text="Too many requests: slow down.", headers={"Retry-After": "2"}
        )
    else:
        try:
            response = await handler(request)
        except web.HTTPException as error:  # a 404 page: answered as a response
            response = web.Response(status=error.status, body=error.body, headers=error.headers)
        except Exception:
            log.exception("web: %s %s failed", request.method, request.path)
            response = web.Response(status=500, text="Something went wrong; try again.")
    for name, value in headers_for(request.path).items():
        response.headers.setdefault(name, value)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


async def listen(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve ``app`` on ``host:port``; the runner and the port (``0``: a free one)."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, reuse_address=True)
    await site.start()
    server = getattr(site, "_server", None)
    sockets = getattr(server, "sockets", None) or []
    return runner, int(sockets[0].getsockname()[1]) if sockets else port


class ProbeServer:
    """``/healthz``, ``/readyz`` and ``/metrics`` alone (``METRICS_PORT``, when no page
    is served): the probes' allowance, the security headers, nothing else."""

    def __init__(self, health: Health, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.health = health
        self.host, self.port = host, port
        self.probes = Allowance()
        self.app = web.Application(middlewares=[self._guard])
        self.app.add_routes(health.routes())
        self._runner: web.AppRunner | None = None

    async def start(self) -> int:
        """Listen; returns the port (``port=0``: a free one was chosen)."""
        self._runner, self.port = await listen(self.app, self.host, self.port)
        self.health.start()
        log.info("health and metrics at http://%s:%s/metrics", self.host, self.port)
        return self.port

    async def stop(self) -> None:
        await self.health.stop()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        return await answer(request, handler if probe_allowed(request, self.probes) else None)


class WebServer:
    """The pages of every table, over this process's storage and pictures."""

    def __init__(
        self,
        store: Storage,
        pictures: Pictures,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        language_of: Callable[[int], Awaitable[str | None]] | None = None,
        health: Health | None = None,
        activity: ActivityOptions | None = None,
    ) -> None:
        self.store = store
        self.pictures = pictures
        self.host, self.port = host, port
        self._language_of = language_of or store.guild_language
        self.live = Live(store.versions, self._frame)
        self.replays = Replays(store)
        self.allowance = Allowance()
        self.activity_allowance = Allowance(ACTIVITY_RATE, ACTIVITY_BURST)
        self.probes = Allowance()
        """Probes' and scrapes' own (``web/health.py``)."""
        self.health = health
        self.files = {path.name: path.read_bytes() for path in STATIC.iterdir()}
        self.version = asset_version(self.files)
        self._charts: OrderedDict[tuple[int, str], bytes] = OrderedDict()
        self._links: dict[int, tuple[float, bool]] = {}
        self._tokens: dict[int, str] = {}
        """Page tokens by game (a token never changes)."""
        self._logs: OrderedDict[int, list[LoggedAction]] = OrderedDict()
        """By game (least recently drawn first): its last log entries."""
        self._runner: web.AppRunner | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.activity = Activity(self, activity)
        """The Discord Activity (off without ``activity``: its page says so)."""
        self.app = web.Application(middlewares=[self._guard])
        self.app.add_routes(
            [
                web.get("/g/{token}", self.table_page),
                web.get("/g/{token}/events", self.events),
                web.get("/g/{token}/replay", self.replay_page),
                web.get(r"/g/{token}/replay/{step:\d{1,7}}.json", self.replay_step),
                web.get("/g/{token}/chart.png", self.chart),
                web.get("/static/{name}", self.static),
                *self.activity.routes(),
                *(health.routes() if health is not None else ()),
            ]
        )

    # ------------------------------------------------------------ running

    async def start(self) -> int:
        """Listen; returns the port (``port=0``: a free one was chosen). Each open page
        holds a connection: the process may open as many files as its hard limit allows
        (often 1,024 by default, a few hundred pages short of a busy night)."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != hard:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        self._runner, self.port = await listen(self.app, self.host, self.port)
        self._tasks = [
            asyncio.create_task(self.live.run(), name="web-live"),
            asyncio.create_task(self.live.keep_alive(), name="web-keepalive"),
        ]
        if self.health is not None:
            self.health.start()
        log.info("web pages at http://%s:%s", self.host, self.port)
        return self.port

    async def stop(self) -> None:
        if self.health is not None:
            await self.health.stop()
        self.live.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.activity.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ------------------------------------------------------------ every request

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path in PATHS:
            allowed = probe_allowed(request, self.probes)
        elif is_activity(request.path):
            user = self.activity.user_key(request)
            if user is not None:
                allowed = self.allowance.take(user)
            else:
                allowed = self.activity_allowance.take(client_address(request))
            if not allowed:  # the page reads a sentence
                return await answer(request, self.activity.too_many)
        else:
            allowed = self.allowance.take(client_address(request))
        return await answer(request, handler if allowed else None)

    def language(self, request: web.Request, default: str | None) -> str:
        asked = request.query.get("lang", "")
        return asked if asked in i18n.LANGUAGES else i18n.language(default)

    async def game(self, request: web.Request) -> GameInfo:
        """The game of the path's token, if its server shows pages; else 404."""
        token = request.match_info["token"]
        info = await self.store.game_of_token(token) if TOKEN.fullmatch(token) else None
        if info is None or not await self.links_on(info.guild_id):
            raise self.missing(request)
        return info

    async def links_on(self, guild_id: int) -> bool:
        now = time.monotonic()
        kept = self._links.get(guild_id)
        if kept is None or now - kept[0] > LINKS_SECONDS:
            kept = (now, await self.store.guild_web_links(guild_id))
            self._links[guild_id] = kept
        return kept[1]

    def missing(self, request: web.Request) -> web.HTTPNotFound:
        lang = self.language(request, None)
        page = render(
            "missing.html",
            i18n.words(lang),
            lang=lang,
            root=self.root(request),
            assets=self.version,
        )
        return web.HTTPNotFound(text=page, content_type="text/html")

    def root(self, request: web.Request) -> str:
        """The relative way from this page back to the server's root (links stay right
        behind a reverse proxy that serves the pages under a path of its own)."""
        return "../" * (request.path.count("/") - 1)

    # ------------------------------------------------------------ the live table

    async def _frame(
        self, game_id: int, lang: str, watched: Watched | None, after: int | None
    ) -> Frame | None:
        """Read what the table shows (here) and draw it (in the drawing process), the
        cards turned up since the frame of version ``after`` marked."""
        try:
            game = await self.store.load(game_id)
        except GameNotFound:
            return None
        if not await self.links_on(game.guild_id):
            return None
        deadline = watched.turn_limit if watched is not None else None
        entries = await self.recent_log(game)
        token = self._tokens.get(game.id)
        if token is None:
            if len(self._tokens) > TOKENS_KEPT:
                self._tokens.clear()
            token = self._tokens[game.id] = await self.store.web_token(game.id)
        html = await drawing.POOL.run(live_html, game, entries, lang, token, deadline, after)
        stamp = int(deadline.timestamp()) if deadline else 0
        over = game.status in ("finished", "abandoned")
        return Frame.of(f"{game.version}-{game.status}-{stamp}", html, over)

    async def recent_log(self, game: LoadedGame) -> list[LoggedAction]:
        """The game's last ``LOG_MOVES`` log entries: those read before are kept (the
        log is append-only; an undo is an entry of its own), only newer ones read."""
        first = game.version - LOG_MOVES
        kept = [e for e in self._logs.pop(game.id, []) if first < e.seq <= game.version]
        after = max(first, kept[-1].seq if kept else 0, 0)
        if after < game.version:
            kept += await self.store.log(game.id, after=after)
        self._logs[game.id] = kept
        while len(self._logs) > LOGS_KEPT:
            self._logs.popitem(last=False)
        return kept

    async def table_page(self, request: web.Request) -> web.Response:
        info, lang = await self.game_in_language(request)
        frame = await self.live.frame(info.id, lang)
        if frame is None:
            raise self.missing(request)
        return self.page(request, "page.html", info, lang, frame=frame)

    def page(
        self, request: web.Request, template: str, info: GameInfo, lang: str, **context: Any
    ) -> web.Response:
        """A whole page of a game: ``template`` with what every page has."""
        words = i18n.words(lang)
        html = render(
            template,
            words,
            title=title(info, words),
            lang=lang,
            root=self.root(request),
            assets=self.version,
            token=request.match_info["token"],
            **context,
        )
        return web.Response(text=html, content_type="text/html")

    async def game_in_language(self, request: web.Request) -> tuple[GameInfo, str]:
        """:meth:`game`, and the language its page speaks (its server's, or ``?lang=``)."""
        info = await self.game(request)
        return info, self.language(request, await self._language_of(info.guild_id))

    async def events(self, request: web.Request) -> web.StreamResponse:
        info, lang = await self.game_in_language(request)

        async def stream(response: web.StreamResponse, shown: str | None) -> None:
            await self._stream(response, info.id, lang, shown)

        return await self._event_stream(request, stream)

    async def _event_stream(
        self,
        request: web.Request,
        stream: Callable[[web.StreamResponse, str | None], Awaitable[None]],
    ) -> web.StreamResponse:
        """A Server-Sent Events response written by ``stream`` (given what the page
        shows: the last event it had, else what it was loaded with), within the
        address's allowance of open streams."""
        address = client_address(request)
        if is_activity(request.path):  # the player's own, not Discord's proxy's
            address = self.activity.user_key(request) or address
        streams = self.allowance.streams
        if streams.get(address, 0) >= STREAMS_PER_ADDRESS:
            return web.Response(status=429, text="Too many open pages from one address.")
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
        )
        for name, value in headers_for(request.path).items():
            response.headers[name] = value
        response.headers["Cache-Control"] = "no-store"
        streams[address] = streams.get(address, 0) + 1
        try:
            await response.prepare(request)
            await response.write(f"retry: {RETRY_MS}\n\n".encode())
            shown = request.headers.get("Last-Event-ID") or request.query.get("shown")
            await stream(response, shown)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            streams[address] -= 1
            if not streams[address]:
                del streams[address]
        return response

    async def stream_changes(self, request: web.Request, info: GameInfo) -> web.StreamResponse:
        """The Activity's stream of a game: ``event: table`` with its version and status
        at each change (no HTML: each page asks for its own view), ``event: gone``."""

        async def stream(response: web.StreamResponse, shown: str | None) -> None:
            live = self.live
            with live.watch(info.id) as watch:
                while not live.closing.is_set():
                    watch.woken.clear()
                    now = live.seen(info.id)  # read by the live loop for every page
                    if now is None:  # not read yet
                        now = (await self.store.versions([info.id])).get(info.id)
                    if now is None or now.status == "gone":
                        await response.write(b"event: gone\ndata: {}\n\n")
                        return
                    over = now.status in ("finished", "abandoned")
                    stamp = f"{now.version}-{now.status}"
                    if stamp != shown:
                        data = json.dumps(
                            {"version": now.version, "status": now.status, "over": over}
                        )
                        await response.write(
                            f"id: {stamp}\nevent: table\ndata: {data}\n\n".encode()
                        )
                        shown = stamp
                    elif watch.keepalive:
                        await response.write(b": keepalive\n\n")
                    watch.keepalive = False
                    if over:
                        return
                    await watch.woken.wait()

        return await self._event_stream(request, stream)

    async def _stream(
        self, response: web.StreamResponse, game_id: int, lang: str, shown: str | None
    ) -> None:
        live = self.live
        with live.watch(game_id) as watch:
            while not live.closing.is_set():
                watch.woken.clear()
                frame = await live.frame(game_id, lang)
                if frame is None:
                    await response.write(b"event: gone\ndata: {}\n\n")
                    return
                if frame.id != shown:
                    await response.write(frame.event)
                    shown = frame.id
                elif watch.keepalive:
                    await response.write(b": keepalive\n\n")
                watch.keepalive = False
                await watch.woken.wait()

    # ------------------------------------------------------------ the replay

    async def replay_page(self, request: web.Request) -> web.Response:
        info, lang = await self.game_in_language(request)
        if info.status == "lobby":
            raise self.missing(request)
        step = request.query.get("step", "")
        at = int(step) if step.isdigit() and len(step) < 8 else 1 << 30  # none: the end
        shown = await self.replays.fragment(info, at, lang)
        return self.page(request, "replay.html", info, lang, replay=shown)

    async def replay_step(self, request: web.Request) -> web.Response:
        info, lang = await self.game_in_language(request)
        if info.status == "lobby":
            raise self.missing(request)
        shown = await self.replays.fragment(info, int(request.match_info["step"]), lang)
        return web.json_response(
            {"step": shown.step, "steps": shown.steps, "html": str(shown.html)}
        )

    async def chart(self, request: web.Request) -> web.Response:
        info, lang = await self.game_in_language(request)
        if info.status != "finished":
            raise self.missing(request)
        png = self._charts.get((info.id, lang))
        if png is None:
            png = await self.pictures.chart(info, lambda: self.store.log(info.id), lang)
            if png is None:
                raise self.missing(request)
            self._charts[(info.id, lang)] = png
            while len(self._charts) > CHARTS_KEPT:
                self._charts.popitem(last=False)
        headers = {"Cache-Control": "public, max-age=86400"}
        return web.Response(body=png, content_type="image/png", headers=headers)

    # ------------------------------------------------------------ files

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        body = self.files.get(name)
        if body is None:
            raise self.missing(request)
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        headers = {"Cache-Control": "public, max-age=31536000, immutable"}
        return web.Response(body=body, content_type=kind, charset="utf-8", headers=headers)
