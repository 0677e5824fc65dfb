"""Scale-out: the real bot in one or two processes, on SQLite or PostgreSQL, under paced
load through the fake Discord.

    python -m benchmarks.scale_out [--games 24] [--seconds 20] [--think 1.0]

Three set-ups, measured one after the other in this run and printed side by side:
SQLite with one bot process, PostgreSQL with one, and PostgreSQL with two (two shards,
one per process, half the servers on each). In each, ``--games`` Santa's Workshop games
(two human seats each, spread over one server per shard) are played at once for
``--seconds``: each game's acting player clicks their next choice after a think time
drawn from 0.2 s to 2 × ``--think`` s (paced arrivals, like live tables). Figures:
actions per second completed, and p50/p99 of the time from INTERACTION_CREATE dispatch
to the bot's answer ("> 3 s": answers later than Discord allows). "DB ms/submit" is the
database alone: ``Storage.submit`` timed in this process, one game at a time, on a fresh
database of the same backend. "REST/act": requests per action that count against
Discord's global 50 requests/s per bot (interaction callbacks and webhooks do not).

CPU per action while playing, in ms: of the bot processes' event loops ("loop"), of their
child processes ("workers": the board pictures), of this process ("fake": the fake
Discord and the simulated players) and of the PostgreSQL server ("db"); "cores" is how
many of the machine's cores all of them kept busy. The last lines set each measured rate
beside the two ceilings that work implies: one process cannot exceed what its event
loop's core allows (1000 / loop ms), and no set-up can exceed what the machine's cores
allow (cores × 1000 / all the CPU ms of an action). Two processes beat one only where one
process is held by its loop while the machine still has cores to spare.

PostgreSQL is a throwaway server started here the way the tests start theirs
(``tests/postgres_server.py``, durable as in production); the bots run as their own
processes (``FakeDiscord.start_bot_process``). The fake Discord runs in this process,
with request bodies not checked against Discord's spec (the tests do that; here it would
be the harness's CPU on the bots' cores), and its work competes with the bots for CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import storage
from engine import get_game
from engine.core import Rng
from tests import postgres_server
from tests.e2e.bot_helpers import turn_prompts
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, FakeUser, ViolationError

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else 0.0


@dataclass
class Table:
    thread: Any
    seated: dict[str, FakeUser]
    panels: dict[str, FakeMessage] = field(default_factory=dict)


@dataclass
class Figures:
    processes: int = 1
    actions: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    late: int = 0
    """Interactions not answered within Discord's 3 s (the user saw a failure)."""
    rest: int = 0
    """REST requests under the global 50/s limit (not interaction callbacks/webhooks)."""
    fake_cpu: float = 0.0
    """CPU seconds of this process (the fake Discord and the players) while playing."""
    loop_cpu: float = 0.0
    """CPU seconds of the bot processes themselves (their event loops) while playing."""
    worker_cpu: float = 0.0
    """CPU seconds of the bot processes' children (the drawing workers) while playing."""
    db_cpu: float = 0.0
    """CPU seconds of the PostgreSQL server while playing (0 for SQLite: in the bots)."""
    db_ms: float = 0.0

    @property
    def rate(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    def per_action(self, cpu: float) -> float:
        """CPU ms per action."""
        return 1000 * cpu / max(1, self.actions)

    @property
    def all_cpu(self) -> float:
        return self.loop_cpu + self.worker_cpu + self.fake_cpu + self.db_cpu

    def row(self, name: str) -> str:
        ms = [x * 1000 for x in self.latencies]
        cpu = [self.loop_cpu, self.worker_cpu, self.fake_cpu, self.db_cpu]
        return (
            f"{name:<24} {self.rate:>9.1f} {percentile(ms, 50):>7.0f} {percentile(ms, 99):>7.0f}"
            f" {self.late:>6} {self.rest / max(1, self.actions):>8.2f} {self.db_ms:>6.2f}"
            + "".join(f" {self.per_action(c):>7.1f}" for c in cpu)
            + f" {self.all_cpu / self.seconds if self.seconds else 0.0:>6.2f}"
        )


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (Linux /proc; 0 elsewhere or once it is gone)."""
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks
    return 0.0


def children(pid: int) -> list[int]:
    with contextlib.suppress(OSError, ValueError):
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def postmaster(server: postgres_server.PostgresServer) -> int | None:
    """The PostgreSQL server's first process (None for a server elsewhere)."""
    if server.folder is None:
        return None  # TEST_POSTGRES_URL
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int((server.folder / "data" / "postmaster.pid").read_text().split()[0])
    return None


@dataclass
class CpuMeter:
    """CPU seconds spent since it was made, by kind of process (see :class:`Figures`)."""

    bots: list[int]
    database: int | None
    """The PostgreSQL server's postmaster: it and the backends it forks (read each time)."""

    def __post_init__(self) -> None:
        self.start = self.read()

    def read(self) -> tuple[float, float, float, float]:
        workers = [c for pid in self.bots for c in children(pid)]
        database = [] if self.database is None else [self.database, *children(self.database)]
        return (
            sum(map(cpu_seconds, self.bots)),
            sum(map(cpu_seconds, workers)),
            time.process_time(),
            sum(map(cpu_seconds, database)),
        )

    def spent(self) -> tuple[float, float, float, float]:
        now = self.read()
        return (now[0] - self.start[0], now[1] - self.start[1], now[2] - self.start[2],
                now[3] - self.start[3])  # fmt: skip


def act_buttons(message: FakeMessage) -> list[str]:
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]


async def decide(fake: FakeDiscord, table: Table, rng: Rng) -> float | None:
    """One choice by whoever must act (the panel, once open, shows the next choices)."""
    prompts = turn_prompts(fake, table.thread)
    if not prompts:
        return None
    mentioned = prompts[-1].content.splitlines()[-1]
    acting = [p for p in table.seated if f"<@{p}>" in mentioned]
    if len(acting) != 1:
        return None
    player = acting[0]
    user = table.seated[player]
    panel = table.panels.get(player)
    if panel is None or not act_buttons(panel):
        opened = await fake.click(user, prompts[-1], "Take your turn")
        if opened.message is None or not act_buttons(opened.message):
            return None
        panel = opened.message
    buttons = act_buttons(panel)
    result = await fake.click(user, panel, buttons[rng.below(len(buttons))])
    if result.message is not None:
        table.panels[player] = result.message
    if result.content.startswith("The board has changed"):
        return None  # a stale panel: not an action
    return result.latency


async def open_table(fake: FakeDiscord, guild: Any, index: int) -> Table:
    channel = fake.add_channel(f"table-{index}", guild=guild)
    host = fake.add_user(f"host{index}", guild=guild)
    guest = fake.add_user(f"guest{index}", guild=guild)
    lobby = (await fake.slash(host, channel, "newgame", game="workshop")).message
    assert lobby is not None
    await fake.click(guest, lobby, "Join")
    await fake.click(host, lobby, "Start")
    await fake.wait_for(lambda: fake.threads(channel), timeout=30, what="the thread")
    (thread,) = fake.threads(channel)
    await fake.wait_for(lambda: turn_prompts(fake, thread), timeout=30, what="the first prompt")
    return Table(thread, {str(host.id): host, str(guest.id): guest})


async def through_discord(
    database_url: str, database: int | None, processes: int, games: int, seconds: float,
    think: float,
) -> Figures:  # fmt: skip
    """``database``: the PostgreSQL server's postmaster (None for SQLite)."""
    figures = Figures(processes)
    async with FakeDiscord(
        shard_count=processes, max_concurrency=processes, validate_spec=False
    ) as fake:
        fake.settle_after_interaction = False
        # FLOOD_BURST=0: the load's players are scripts, faster than any person
        env = {"DATABASE_URL": database_url, "TIMER_POLL_SECONDS": "3600", "FLOOD_BURST": "0"}
        started = [
            fake.start_bot_process(
                ROOT / "bot.py",
                env={**env, "SHARD_COUNT": str(processes), "SHARD_IDS": str(shard)},
                shards=[shard],
                timeout=90,
            )
            for shard in range(processes)
        ]
        bots = await asyncio.gather(*started)
        guilds = [
            fake.add_guild(f"Server {s}", owner=fake.owner, shard=s) for s in range(processes)
        ]
        await asyncio.sleep(0.5)  # GUILD_CREATE reaches the bots
        tables = []
        for start in range(0, games, 4):  # a few lobbies at a time
            batch = range(start, min(games, start + 4))
            tables += await asyncio.gather(
                *(open_table(fake, guilds[i % processes], i) for i in batch)
            )
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds

        async def play(table: Table, rng: Rng) -> None:
            while True:
                await asyncio.sleep(0.2 + rng.below(1000) / 1000 * (2 * think - 0.2))
                if loop.time() >= end:
                    return
                try:
                    latency = await decide(fake, table, rng)
                except ViolationError:  # answered after 3 s: overloaded
                    figures.late += 1
                    table.panels.clear()
                    continue
                if latency is not None and loop.time() < end:
                    figures.actions += 1
                    figures.latencies.append(latency)

        begun = loop.time()
        requests_before = len(fake.requests)
        meter = CpuMeter([b.pid for b in bots], database)
        await asyncio.gather(*(play(t, Rng(i)) for i, t in enumerate(tables)))
        figures.seconds = loop.time() - begun
        figures.loop_cpu, figures.worker_cpu, figures.fake_cpu, figures.db_cpu = meter.spent()
        figures.rest = sum(
            1
            for r in fake.requests[requests_before:]
            if not r.path.startswith(("/interactions/", "/webhooks/"))
        )
        fake.take_violations()  # counted in ``late``
    return figures


async def submit_ms(database_url: str, submits: int) -> float:
    """The median time of one ``Storage.submit`` (a two-player Workshop game)."""
    rules = get_game("workshop")
    times: list[float] = []
    rng = Rng(7)
    async with await storage.open(database_url) as store:
        channel = 1
        while len(times) < submits:
            lobby = await store.create_lobby(
                guild_id=1,
                channel_id=channel,
                kind="workshop",
                options={},
                host_id=1,
                host_name="a",
            )
            await store.join(lobby.id, 2, "b")
            game = await store.start(lobby.id, seed=channel)
            channel += 1
            while rules.outcome(game.state) is None and len(times) < submits:
                (player,) = rules.to_act(game.state)
                legal = rules.legal_actions(game.state, player)
                action = legal[rng.below(len(legal))]
                began = time.perf_counter()
                submitted = await store.submit(game.id, player, action, game.version)
                times.append(time.perf_counter() - began)
                game = await store.load(game.id)
                assert game.version == submitted.version
    return statistics.median(times) * 1000


async def run(games: int, seconds: float, think: float, submits: int) -> None:
    server = postgres_server.start(durable=True)
    try:
        with tempfile.TemporaryDirectory() as folder:
            setups = [
                ("SQLite, 1 process", f"sqlite:///{folder}/bot.db", 1),
                ("PostgreSQL, 1 process", server.new_database(), 1),
                ("PostgreSQL, 2 processes", server.new_database(), 2),
            ]
            results = []
            for name, url, processes in setups:
                database = None if url.startswith("sqlite") else postmaster(server)
                figures = await through_discord(url, database, processes, games, seconds, think)
                db_url = f"sqlite:///{folder}/submits.db" if url.startswith("sqlite") else None
                figures.db_ms = await submit_ms(db_url or server.new_database(), submits)
                results.append((name, figures))
                print(f"measured {name}", flush=True)
    finally:
        server.stop()
    cores = os.cpu_count() or 1
    print(f"\n{games} Workshop games at once, {seconds:.0f} s each, think 0.2-{2 * think:.1f} s")
    print(
        f"{'':<24} {'':>9} {'':>7} {'':>7} {'':>6} {'':>8} {'DB ms':>6}"
        f" {'CPU ms per action':-^31} {'':>6}"
    )
    print(
        f"{'set-up':<24} {'actions/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'> 3 s':>6}"
        f" {'REST/act':>8} {'/subm.':>6} {'loop':>7} {'workers':>7} {'fake':>7} {'db':>7}"
        f" {'cores':>6}"
    )
    for name, figures in results:
        print(figures.row(name))
    print(f"\nceilings on this machine's {cores} cores, from the CPU each action took:")
    for name, figures in results:
        loop_bound = figures.processes * 1000 / max(figures.per_action(figures.loop_cpu), 1e-9)
        machine = cores * 1000 / max(figures.per_action(figures.all_cpu), 1e-9)
        print(
            f"{name:<24} measured {figures.rate:5.1f}/s; its event loops allow {loop_bound:5.1f}/s,"
            f" the cores {machine:5.1f}/s"
        )
    sqlite_rate, pg_rate, pg2_rate = (f.rate for _, f in results)
    if pg_rate and sqlite_rate:
        print(f"PostgreSQL / SQLite, 1 process: {pg_rate / sqlite_rate:.2f}x")
    if pg_rate:
        print(f"PostgreSQL, 2 processes / 1 process: {pg2_rate / pg_rate:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--submits", type=int, default=300)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.seconds, args.think, args.submits))


if __name__ == "__main__":
    main()
