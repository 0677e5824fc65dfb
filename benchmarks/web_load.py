"""The live web pages under load: what 1,000 spectators cost the tables, and what they see.

    python -m benchmarks.web_load [--spectators 1000] [--tables 50] [--seconds 15]
        [--rounds 3] [--think 1.0] [--loads 5] [--activity-tables 20]
        [--activity-seconds 20] [--quick]

The real bot in its own process (``bot.py`` through ``FakeDiscord.start_bot_process``,
SQLite, pictures drawn as in production, its web pages on a free port with
``WEB_BASE_URL`` set as in production), ``--tables`` Santa's Workshop tables (two human
seats each) played by the simulated players of ``benchmarks/bot_latency.py``: each
table's acting player decides after a think time drawn from 0.2 s to 2 × ``--think``
("paced", as there). In one run, side by side:

1. The bot's paced first response (from INTERACTION_CREATE dispatch to the bot's first
   answer, the players' choice clicks), p50/p99, in phases of ``--seconds`` with no
   spectator and with ``--spectators`` spread evenly over the tables, each an open
   Server-Sent Events stream reading every event. The spectators are aiohttp clients in
   a process of their own (``benchmarks/web_spectators.py``), so their CPU is not the
   bot's (the machine's cores are shared all the same: the CPU of every process is
   printed). Each spectator loads its table's page, then follows it, from an address of
   its own (the server's allowance is per client address). ``--rounds`` rounds of both
   phases, in the order ABBA... so a drift over the run falls on both alike; the same
   clicking in every phase. Target: p99 with spectators at most 1.2 × p99 without.
2. Commit → page update, p50/p99 over every (spectator, move) pair of the spectators'
   phases: from the move's commit (the time the bot's storage stored with it, taken as
   its transaction began, so a little early: the figure errs long) to the arrival of the
   first event whose id names that version or a later one at that spectator. Both clocks
   are this machine's ``time.time()``. Target: p99 < 300 ms.
3. Page weight: the bytes of ``/g/<token>`` and of the stylesheets and script it links
   (``/static/...``), images left out, for a 5-player Santa's Workshop and a 6-player
   Workshop Tonttu table in mid-game (random legal moves, ``tests/web/games.py``, in a
   database of their own: stored in the bot's, they would be tables it must publish).
   They are served by the bot's web server (``web.server.WebServer``) in this process.
   Target: < 150 KB (1 KB = 1,000 bytes); the gzip'd size (level 6, each file on its
   own, as a compressing proxy would send it) is for information.
4. Chromium's first contentful paint of those two pages (Debian's headless Chromium
   through ``tests/web/browser.py``, a phone's viewport, a cold cache each load), the
   median of ``--loads`` loads each, once the tables are at rest. Target: < 1 s.

5. Clicks through the Discord Activity (``benchmarks/web_activity.py``), the bot's
   Activity on (``DISCORD_CLIENT_ID`` and ``DISCORD_CLIENT_SECRET``, signed in through
   the fake Discord's OAuth2): ``--activity-tables`` more tables of two players, each
   player an Activity page over HTTP (its event stream, its table fetched again at each
   event), the acting one clicking after the same think times for
   ``--activity-seconds`` (the other tables at rest). Click → board in the clicking
   page (the move's answer carries the new table), p50/p99; target: p99 < 200 ms. Also
   click → the event on the clicking page's stream, and → the other player's board
   (their event, then their table fetched).

No figure is asserted on; ``--quick`` runs everything with tiny sizes (the benchmarks'
test runs it to prove it still works).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import json
import os
import platform
import re
import resource
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import yarl

import storage
from benchmarks.bot_latency import (
    ROOT,
    Action,
    Players,
    Table,
    cpu_seconds,
    in_batches,
    paced,
    percentile,
    quiet,
)
from benchmarks.web_activity import Result, clicks_through_the_activity
from tables.pictures import Pictures
from tests.e2e.fake_discord import FakeDiscord, FakeUser, HarnessError
from tests.web.browser import AsyncBrowser, Browser, ChromiumMissing
from tests.web.games import new_game, play
from web.server import WebServer

QUICK = {
    "spectators": 10,
    "tables": 2,
    "seconds": 1.0,
    "rounds": 1,
    "think": 0.05,
    "loads": 1,
    "activity_tables": 2,
    "activity_seconds": 1.0,
}
CLICK_TO_BOARD_P99 = 0.2
RATIO_TARGET = 1.2
COMMIT_TO_PAGE_P99 = 0.3
WEIGHT_TARGET = 150_000
FIRST_PAINT_TARGET = 1000.0
PAGES = {  # name: (game, seats, moves played: about half a game)
    "Santa's Workshop, 5 players": ("workshop", 5, 140),
    "Workshop Tonttu, 6 players": ("tonttu", 6, 100),
}
SETTLE = 1.5
"""Seconds the spectators keep listening after the last click of their phase."""
BETWEEN_LOADS = 1.0
"""Seconds between two of Chromium's loads: each load is about six requests from one
address, and the server allows 10 per second (a burst of 40) per address."""
NONE, WATCHED = "none", "spectators"


# --------------------------------------------------------------------------- spectators


class Spectators:
    """The load generator's process (``benchmarks/web_spectators.py``)."""

    def __init__(self, process: asyncio.subprocess.Process, ready: dict[str, Any]) -> None:
        self.process = process
        self.ready = ready

    @classmethod
    async def start(
        cls, base: str, tokens: list[str], count: int, max_seconds: float
    ) -> Spectators:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.web_spectators",
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 28,  # the closing line carries every event of every stream
        )
        assert process.stdin is not None and process.stdout is not None
        config = {"base": base, "tokens": tokens, "count": count}
        process.stdin.write(json.dumps({**config, "max_seconds": max_seconds}).encode() + b"\n")
        await process.stdin.drain()
        line = await asyncio.wait_for(process.stdout.readline(), 120)
        if not line:
            await process.wait()
            raise HarnessError(f"the spectators' process ended ({process.returncode})")
        return cls(process, json.loads(line))

    async def stop(self) -> list[dict[str, Any]]:
        """Close every stream; each stream's events."""
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"stop\n")
        await process.stdin.drain()
        line = await asyncio.wait_for(process.stdout.readline(), 120)
        await process.wait()
        streams: list[dict[str, Any]] = json.loads(line)["streams"] if line else []
        return streams

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


# --------------------------------------------------------------------------- phases


@dataclass
class Phase:
    kind: str
    round: int
    latencies: list[float] = field(default_factory=list)
    """Dispatch -> first response, seconds, as the fake Discord accepted it."""
    sent: list[float] = field(default_factory=list)
    """... and until the bot had sent it (the fake's own delay left out)."""
    seconds: float = 0.0
    began: float = 0.0
    ended: float = 0.0
    """``time.time()`` when the clicking began and ended."""
    cpu: list[float] = field(default_factory=list)
    """Share of one core (%) while clicking: bot, its drawing worker, this process (the
    fake Discord and the players), the spectators' process."""
    late: int = 0
    streams: list[dict[str, Any]] = field(default_factory=list)
    ready: dict[str, Any] = field(default_factory=dict)
    delays: list[float] = field(default_factory=list)
    """Commit -> page update, seconds, per (spectator, move)."""
    missed: int = 0
    """Moves that never reached a spectator's stream."""


@dataclass
class Bench:
    """What every phase plays on: the players, their tables, the bot's pages."""

    args: argparse.Namespace
    players: Players
    tables: list[Table]
    games: dict[str, int]
    """The tables' games by page token."""
    base: str
    bot_pid: int
    sent_log: Path
    """``FAKE_DISCORD_SENT_LOG``: when the bot sent each first response."""


async def run_phase(bench: Bench, kind: str, number: int) -> Phase:
    args, players = bench.args, bench.players
    phase = Phase(kind, number)
    spectators = None
    if kind == WATCHED:
        spectators = await Spectators.start(
            bench.base, list(bench.games), args.spectators, max_seconds=args.seconds + 120
        )
        phase.ready = spectators.ready
    try:
        late = players.late
        bot_before = cpu_seconds(bench.bot_pid)
        mine_before = time.process_time()
        spectators_before = cpu_seconds(spectators.process.pid)[0] if spectators else 0.0
        phase.began = time.time()
        started = time.perf_counter()
        run = await paced(players, bench.tables, args.seconds, args.think)
        phase.seconds = time.perf_counter() - started
        phase.ended = time.time()
        bot_after = cpu_seconds(bench.bot_pid)
        phase.cpu = [
            (bot_after[0] - bot_before[0]) / phase.seconds * 100,
            (bot_after[1] - bot_before[1]) / phase.seconds * 100,
            (time.process_time() - mine_before) / phase.seconds * 100,
            (cpu_seconds(spectators.process.pid)[0] - spectators_before) / phase.seconds * 100
            if spectators
            else 0.0,
        ]
        phase.latencies = [action.latency for action in run.actions]
        phase.sent = sent_latencies(run.actions, bench.sent_log)
        phase.late = players.late - late
        if spectators is not None:
            await asyncio.sleep(SETTLE)
            phase.streams = await spectators.stop()
            phase.delays, phase.missed = page_delays(
                phase, await committed(players.store, bench.games)
            )
    finally:
        if spectators is not None:
            await spectators.kill()
    with contextlib.suppress(HarnessError):
        await quiet(players.fake, 0.5, timeout=10)
    return phase


def sent_latencies(actions: list[Action], log: Path) -> list[float]:
    """Each action's time from dispatch until the bot had sent its first response (the
    last chunk's ``time.monotonic()`` in ``FAKE_DISCORD_SENT_LOG``, the clock of the
    fake's dispatch stamp too), as ``benchmarks/ai_load.py`` reads it."""
    sent: dict[int, float] = {}
    for line in log.read_text().splitlines():
        interaction, at = line.split()
        sent[int(interaction)] = float(at)
    return [
        sent[a.interaction] - a.dispatched if a.interaction in sent else a.latency
        for a in actions
        if a.interaction is not None
    ]


def page_delays(
    phase: Phase, commits: dict[str, list[tuple[int, float]]]
) -> tuple[list[float], int]:
    """Per spectator and move committed while it clicked (after the stream showed its
    first event): seconds until the stream had an event of that version or a later one.
    And how many such moves never reached their stream."""
    delays: list[float] = []
    missed = 0
    for stream in phase.streams:
        events = stream["events"]
        if not events:
            continue
        shown, opened = events[0]
        for version, at in commits.get(stream["token"], ()):
            if version <= shown or at < opened or not phase.began <= at <= phase.ended:
                continue
            arrived = next((t for v, t in events if v >= version), None)
            if arrived is None:
                missed += 1
            else:
                delays.append(max(0.0, arrived - at))
    return delays, missed


async def committed(store: Any, games: dict[str, int]) -> dict[str, list[tuple[int, float]]]:
    """Per token: (version, when it was stored) of each move of its game."""
    return {
        token: [(a.seq, a.created_at.timestamp()) for a in await store.log(game_id)]
        for token, game_id in games.items()
    }


# --------------------------------------------------------------------------- page weight


@dataclass
class Weight:
    name: str
    url: str
    files: dict[str, bytes] = field(default_factory=dict)
    images: int = 0

    @property
    def size(self) -> int:
        return sum(map(len, self.files.values()))

    @property
    def gzipped(self) -> int:
        return sum(len(gzip.compress(body, 6)) for body in self.files.values())


LINKED = re.compile(r'<(?:link|script)\b[^>]*?(?:href|src)="([^"]+)"')


async def weigh(session: aiohttp.ClientSession, name: str, url: str) -> Weight:
    """The page and the stylesheets and scripts it links; its pictures counted only."""
    weight = Weight(name, url)
    async with session.get(url) as response:
        response.raise_for_status()
        html = await response.read()
    weight.files["page"] = html
    text = html.decode()
    weight.images = len(re.findall(r"<img\b", text))
    for link in LINKED.findall(text):
        async with session.get(yarl.URL(url).join(yarl.URL(link))) as response:
            response.raise_for_status()
            weight.files[link.split("?")[0].rsplit("/", 1)[-1]] = await response.read()
    return weight


@contextlib.asynccontextmanager
async def page_server(folder: Path) -> AsyncIterator[dict[str, str]]:
    """A game of each of ``PAGES`` in mid-game, served by the web pages' own server
    (``web.server.WebServer``, the bot's) in this process over a database of their own,
    so that the bot does not take them for tables to publish; their pages' addresses."""
    store = await storage.open(f"sqlite:///{folder}/pages.db")
    server = WebServer(store, Pictures(), port=0)
    try:
        port = await server.start()
        urls = {}
        for channel, (name, (kind, seats, moves)) in enumerate(PAGES.items(), start=1):
            game = await play(store, await new_game(store, kind, seats, channel=channel), moves)
            urls[name] = f"http://127.0.0.1:{port}/g/{await store.web_token(game.id)}"
        yield urls
    finally:
        await server.stop()
        await store.close()


# --------------------------------------------------------------------------- first paint


async def first_paints(urls: dict[str, str], loads: int) -> dict[str, list[float]] | str:
    """Per page, Chromium's first contentful paint (ms) of ``loads`` cold loads; the
    reason instead when Chromium cannot be started."""
    try:
        sync = await asyncio.to_thread(Browser.start)
    except ChromiumMissing as missing:
        return str(missing)
    browser = AsyncBrowser(sync)
    paints: dict[str, list[float]] = {}
    try:
        for number, name in enumerate([name for name in urls for _ in range(loads)]):
            if number:
                await asyncio.sleep(BETWEEN_LOADS)  # the allowance per address refills
            await asyncio.to_thread(sync.reset)  # a new tab, nothing cached
            await browser.open(urls[name])
            paint = None
            for _ in range(50):  # drawn by the load event as a rule; else soon after
                paint = await browser.first_contentful_paint_ms()
                if paint is not None:
                    break
                await asyncio.sleep(0.1)
            if paint is not None:
                paints.setdefault(name, []).append(paint)
    finally:
        await browser.close()
    return paints


# --------------------------------------------------------------------------- the run


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def more_files() -> None:
    """Raise this process's open-file limit to its maximum (the bot process inherits it):
    a thousand streams are a thousand sockets on each side."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def ms(values: list[float], p: float) -> float:
    return percentile(values, p) * 1000


async def run(args: argparse.Namespace) -> None:
    more_files()
    with tempfile.TemporaryDirectory(prefix="web-load-") as folder:
        await run_in(args, Path(folder))


async def run_in(args: argparse.Namespace, folder: Path) -> None:
    url = f"sqlite:///{folder}/bench.db"
    sent_log = folder / "sent.log"
    sent_log.touch()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with FakeDiscord(validate_spec=False) as fake:
        fake.settle_after_interaction = False
        began = time.perf_counter()
        env = {
            "DATABASE_URL": url,
            "TIMER_POLL_SECONDS": "1",
            "FLOOD_BURST": "0",  # the players are scripts, faster than any person
            "WEB_PORT": str(port),
            "WEB_BASE_URL": base,
            "FAKE_DISCORD_SENT_LOG": str(sent_log),
            "DISCORD_CLIENT_ID": str(fake.application_id),  # the Activity on
            "DISCORD_CLIENT_SECRET": fake.oauth.client_secret,
        }
        process = await fake.start_bot_process(ROOT / "bot.py", env=env, timeout=90)
        store = await storage.open(url)
        players = Players(fake, store)
        try:
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
            print(
                f"web_load: {os.cpu_count()} cores, Python {platform.python_version()}, "
                f"load average {load:.1f} before the run; bot process started in "
                f"{time.perf_counter() - began:.1f} s",
                flush=True,
            )
            tables = await in_batches(args.tables, 5, lambda i: players.open_table(i, "workshop-2"))
            games: dict[str, int] = {}
            for table in tables:
                game = await players.state(table)
                assert game is not None
                games[await store.web_token(game.id)] = game.id
            bench = Bench(args, players, tables, games, base, process.pid, sent_log)
            await quiet(fake, 0.5)
            print(
                f"{len(tables)} Santa's Workshop tables (2 human seats) open; phases of "
                f"{args.seconds:g} s of paced clicks (think 0.2-{2 * args.think:.1f} s), with no "
                f"spectator and with {args.spectators} ({args.spectators / len(tables):g} per "
                "table), each following its table's page",
                flush=True,
            )
            print(
                f"{'phase':<16} {'round':>5} {'actions':>7} {'p50 ms':>7} {'p99 ms':>7} "
                f"{'sent p99':>8} "
                f"{'>3 s':>4} {'bot CPU':>8} {'drawing':>8} {'harness':>8} {'spectators':>10}"
                f" {'connected':>9} {'events/s':>8} {'MB/s':>5} {'page p50/p99 ms':>15}"
            )
            phases: list[Phase] = []
            for number in range(1, args.rounds + 1):
                order = (NONE, WATCHED) if number % 2 else (WATCHED, NONE)
                for kind in order:
                    phase = await run_phase(bench, kind, number)
                    phases.append(phase)
                    print_phase(phase)
            activity = await activity_clicks(bench)
            async with page_server(folder) as urls:
                async with aiohttp.ClientSession() as session:
                    weights = [await weigh(session, name, page) for name, page in urls.items()]
                paints = await first_paints(urls, args.loads)
            ended = sum([await players.state(table) is None for table in tables])
            summary(phases, weights, paints, ended, activity)
        finally:
            await store.close()
            await fake.stop_bot_process(process)


async def activity_clicks(bench: Bench) -> Result:
    """Clicks through the Activity at ``--activity-tables`` tables of their own."""
    args, players = bench.args, bench.players

    async def open_table(index: int) -> tuple[int, list[FakeUser]]:
        table = await players.open_table(index, "workshop-2", prefix="activity")
        return table.channel.id, list(table.seated.values())

    print(
        f"\nthe Activity: {args.activity_tables} more tables of 2, each player's page over "
        f"HTTP, {args.activity_seconds:g} s of paced clicks",
        flush=True,
    )
    bot_before = cpu_seconds(bench.bot_pid)
    result = await clicks_through_the_activity(
        players.fake,
        bench.base,
        open_table,
        args.activity_tables,
        args.activity_seconds,
        args.think,
    )
    bot_after = cpu_seconds(bench.bot_pid)
    result.cpu = [
        (after - before) / max(result.seconds, 1e-9) * 100
        for before, after in zip(bot_before, bot_after, strict=True)
    ]
    with contextlib.suppress(HarnessError):
        await quiet(players.fake, 0.5, timeout=10)
    return result


def print_phase(phase: Phase) -> None:
    name = "no spectators" if phase.kind == NONE else "spectators"
    streams = phase.streams
    events = sum(len(s["events"]) for s in streams)
    megabytes = sum(s["bytes"] for s in streams) / 1e6
    connected = f"{phase.ready.get('ready', 0)}/{len(streams)}" if streams else "-"
    rate = f"{events / phase.seconds:8.0f}" if streams else f"{'-':>8}"
    volume = f"{megabytes / phase.seconds:5.1f}" if streams else f"{'-':>5}"
    cpu = phase.cpu
    spectators = f"{cpu[3]:9.0f}%" if streams else f"{'-':>10}"
    page = f"{ms(phase.delays, 50):.0f} / {ms(phase.delays, 99):.0f}" if phase.delays else "-"
    print(
        f"{name:<16} {phase.round:>5} {len(phase.latencies):>7} {ms(phase.latencies, 50):>7.0f} "
        f"{ms(phase.latencies, 99):>7.0f} {ms(phase.sent, 99):>8.0f} {phase.late:>4} "
        f"{cpu[0]:>7.0f}% {cpu[1]:>7.0f}% {cpu[2]:>7.0f}% {spectators} {connected:>9} {rate} "
        f"{volume} {page:>15}",
        flush=True,
    )


def summary(
    phases: list[Phase],
    weights: list[Weight],
    paints: dict[str, list[float]] | str,
    ended: int,
    activity: Result | None = None,
) -> None:
    nan = float("nan")
    delays = [x for p in phases for x in p.delays]
    missed = sum(p.missed for p in phases)
    count = sum(len(p.streams) for p in phases if p.kind == WATCHED) // max(
        1, sum(p.kind == WATCHED for p in phases)
    )
    reconnects = sum(s["reconnects"] for p in phases for s in p.streams)
    refused = sum(s["refused"] for p in phases for s in p.streams)

    rows: list[tuple[str, str, str, bool | None]] = []
    for how, field_name in (("as the fake saw it", "latencies"), ("as the bot sent it", "sent")):
        alone = [x for p in phases if p.kind == NONE for x in getattr(p, field_name)]
        watched = [x for p in phases if p.kind == WATCHED for x in getattr(p, field_name)]
        ratio = percentile(watched, 99) / percentile(alone, 99) if alone and watched else nan
        rows += [
            (
                f"paced first response {how}, no spectators: p50 / p99",
                f"{ms(alone, 50):.0f} / {ms(alone, 99):.0f} ms ({len(alone)} clicks)",
                "",
                None,
            ),
            (
                f"paced first response {how}, {count} spectators: p50 / p99",
                f"{ms(watched, 50):.0f} / {ms(watched, 99):.0f} ms ({len(watched)} clicks)",
                "",
                None,
            ),
            (
                f"  p99 with spectators / without ({how})",
                f"{ratio:.2f}x",
                f"<= {RATIO_TARGET}x",
                ratio <= RATIO_TARGET,
            ),
        ]
    rows += [
        (
            "commit -> page update: p50 / p99",
            f"{ms(delays, 50):.0f} / {ms(delays, 99):.0f} ms ({len(delays)} updates, "
            f"{missed} never came)",
            f"p99 < {COMMIT_TO_PAGE_P99 * 1000:.0f} ms",
            bool(delays) and percentile(delays, 99) < COMMIT_TO_PAGE_P99 and not missed,
        ),
    ]
    for weight in weights:
        rows.append(
            (
                f"page weight, {weight.name}",
                f"{weight.size / 1000:.1f} KB (gzip'd {weight.gzipped / 1000:.1f} KB)",
                f"< {WEIGHT_TARGET // 1000} KB",
                weight.size < WEIGHT_TARGET,
            )
        )
    if activity is not None:
        rows += activity_rows(activity)
    if isinstance(paints, str):
        rows.append(("Chromium first contentful paint", f"not measured: {paints}", "< 1 s", None))
    for weight in weights:
        if isinstance(paints, str):
            break
        found = paints.get(weight.name, [])
        median = statistics.median(found) if found else float("nan")
        rows.append(
            (
                f"Chromium first contentful paint, {weight.name}",
                f"median {median:.0f} ms of {len(found)} load{'s' * (len(found) != 1)}"
                + (f" ({min(found):.0f}-{max(found):.0f})" if found else ""),
                f"< {FIRST_PAINT_TARGET:.0f} ms",
                bool(found) and median < FIRST_PAINT_TARGET,
            )
        )
    width, measured = max(len(r[0]) for r in rows), max(len(r[1]) for r in rows)
    print(f"\n{'figure':<{width}}  {'measured':<{measured}}  {'target':<16}  met")
    for label, value, target, met in rows:
        mark = "" if met is None else ("yes" if met else "NO")
        print(f"{label:<{width}}  {value:<{measured}}  {target:<16}  {mark}".rstrip())
    notes = [
        f"page weight of {weight.name} (KB): "
        + ", ".join(f"{name} {len(body) / 1000:.1f}" for name, body in weight.files.items())
        + f"; {weight.images} pictures left out"
        for weight in weights
    ]
    notes += [
        f"{os.cpu_count()} cores, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.machine()}",
        "CPU: share of one core while clicking (bot: its process, web pages included; "
        "drawing: its picture worker; harness: the fake Discord and the players; "
        "spectators: their own process)",
    ]
    if reconnects or refused:
        notes.append(f"spectators' streams: {reconnects} reconnects, {refused} refused")
    if ended:
        notes.append(f"{ended} tables had ended by the last phase")
    if activity is not None:
        refused = [c.refused for c in activity.clicks if c.refused]
        notes.append(
            f"the Activity: {len(activity.clicks)} clicks in {activity.seconds:.1f} s at "
            f"{len(activity.pages)} tables, {len(refused)} refused"
            + (f" ({refused[0]!r}…)" if refused else "")
            + f"; bot CPU {activity.cpu[0]:.0f}%, drawing {activity.cpu[1]:.0f}% of a core"
            + (
                f"; stream errors: {', '.join(sorted(set(activity.errors)))}"
                if activity.errors
                else ""
            )
        )
    for note in notes:
        print(f"  {note}")


def activity_rows(activity: Result) -> list[tuple[str, str, str, bool | None]]:
    answered, events, others = activity.answered(), activity.own_events(), activity.others_boards()
    return [
        (
            "Activity click -> board in the clicking page: p50 / p99",
            f"{ms(answered, 50):.0f} / {ms(answered, 99):.0f} ms ({len(answered)} clicks)",
            f"p99 < {CLICK_TO_BOARD_P99 * 1000:.0f} ms",
            bool(answered) and percentile(answered, 99) < CLICK_TO_BOARD_P99,
        ),
        (
            "  click -> event on the clicking page's stream: p50 / p99",
            f"{ms(events, 50):.0f} / {ms(events, 99):.0f} ms ({activity.missed()} never came)",
            "",
            None,
        ),
        (
            "  click -> the other player's board (event, then table): p50 / p99",
            f"{ms(others, 50):.0f} / {ms(others, 99):.0f} ms ({len(others)} clicks)",
            "",
            None,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=1000, help="in all, over the tables")
    parser.add_argument("--tables", type=int, default=50, help="Santa's Workshop tables")
    parser.add_argument("--seconds", type=float, default=15.0, help="of clicking per phase")
    parser.add_argument("--rounds", type=int, default=3, help="of both phases")
    parser.add_argument("--think", type=float, default=1.0, help="mean think time, seconds")
    parser.add_argument("--loads", type=int, default=5, help="Chromium loads of each page")
    parser.add_argument(
        "--activity-tables", type=int, default=20, help="tables played through the Activity"
    )
    parser.add_argument(
        "--activity-seconds", type=float, default=20.0, help="of clicking in the Activity"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: check that it runs")
    args = parser.parse_args()
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    if min(args.spectators, args.tables, args.rounds) < 1:
        parser.error("--spectators, --tables and --rounds must be at least 1")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
