"""The chaos soak: many games across several bot processes through kills, a database
restart, a Discord outage and gateway drops; afterwards, nothing lost, done twice, wrong,
stuck or leaked.

    python -m benchmarks.chaos [--games 1000] [--minutes 20] [--processes 3] [--seed 1]
                               [--backend postgres|sqlite] [--players 40]

It starts PostgreSQL (a throwaway server, as the tests do, durable as in production),
the fake Discord (one shard per bot process) and the bot processes (``bot.py`` with a
clock that reads one offset file, ``tests/e2e/clocked_bot.py``). Scripted players
(``benchmarks/chaos_play.py``) open and play games: Santa's Workshop with undo against
computers of every level, Workshop Tonttu tactical and speed with picks by DM and in the
thread, some with closed DMs; a third play to the end, half abandon after a few moves,
the rest fall silent and leave the game to the turn limits. While they play, the faults
of a schedule drawn from ``--seed`` (printed first) hit the bot:

* a random bot process SIGKILLed every 20-40 s and started again 2-5 s later;
* once, a process stopped with SIGTERM in the middle of a burst (every player clicking
  without thinking);
* PostgreSQL stopped with ``pg_ctl stop -m immediate`` once, started again 5 s later;
* 20 % of the rate-limited REST calls answered 429 and 5 % 502, all the time; one REST
  outage (30 s in a full run);
* the gateway closed on every shard at least once (alternately a RESUME and a new
  IDENTIFY);
* the clock jumped past every reminder and turn limit every few seconds;
* one player clicking as fast as a script can, the whole time.

Then the faults stop, the players who play to the end finish their games, and the
checks of ``benchmarks/chaos_verdict.py`` print the verdict table. The exit status is 1
if any verdict failed. ``--backend sqlite``: one process on a SQLite file, kills only
(no database restart; SQLite has no server).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.chaos_play import JUMP_SECONDS, Players
from benchmarks.chaos_verdict import Verdict, check
from engine.core import Rng
from storage import Storage
from storage import open as open_storage
from tables.publishing import Publisher
from tests import postgres_server
from tests.e2e.fake_discord import FakeDiscord
from tests.e2e.fake_discord.model import HarnessError

ROOT = Path(__file__).resolve().parents[1]
CHAOS_BOT = Path(__file__).with_name("chaos_bot.py")


@dataclass(order=True)
class Fault:
    at: float
    """Seconds after the players started."""
    kind: str
    """kill, sigterm, database, outage, gateway-resume, gateway-identify."""
    target: int = -1
    """The bot process (kill, sigterm) or shard (gateway)."""
    seconds: float = 0.0
    """How long it lasts (a kill's restart delay, the outage, the database's gap)."""

    def describe(self) -> str:
        what = {
            "kill": f"SIGKILL bot process {self.target}, start it again {self.seconds:.1f} s later",
            "sigterm": f"burst of clicks; SIGTERM bot process {self.target} in it, start it again",
            "database": f"pg_ctl stop -m immediate, start again {self.seconds:.0f} s later",
            "outage": f"REST outage (every call 503) for {self.seconds:.0f} s",
            "gateway-resume": f"close the gateway of shard {self.target} (code 4000: RESUME)",
            "gateway-identify": f"close the gateway of shard {self.target} (4009: IDENTIFY)",
        }[self.kind]
        return f"{self.at:7.1f} s  {what}"


def schedule(seed: int, seconds: float, processes: int, backend: str, outage: float) -> list[Fault]:
    """The faults of a run, drawn from ``seed``: every kind at least once."""
    rng = Rng(seed)

    def between(low: float, high: float) -> float:
        return low + rng.below(1000) / 1000 * (high - low)

    faults = []
    at = between(20, 40) if seconds > 60 else between(0.2, 0.4) * seconds
    while at < seconds - 5:
        faults.append(Fault(at, "kill", rng.below(processes), between(2, 5)))
        at += between(20, 40)
    if backend == "postgres":
        faults.append(
            Fault(between(0.3, 0.5) * seconds, "sigterm", rng.below(processes), between(2, 4))
        )
        faults.append(Fault(between(0.55, 0.75) * seconds, "database", seconds=5))
        faults.append(Fault(between(0.1, 0.3) * seconds, "outage", seconds=outage))
        for shard in range(processes):
            kind = ("gateway-resume", "gateway-identify")[shard % 2]
            faults.append(Fault(between(0.05, 0.9) * seconds, kind, shard))
        if processes == 1:
            faults.append(Fault(between(0.05, 0.9) * seconds, "gateway-identify", 0))
    return sorted(faults)


class Cluster:
    """The bot processes (process i runs shard i) and their shared clock."""

    def __init__(self, fake: FakeDiscord, url: str, folder: Path, count: int) -> None:
        self.fake = fake
        self.url = url
        self.count = count
        self.offset_file = folder / "clock-offset"
        self.offset = 0.0
        self.jumps: list[tuple[float, float]] = []
        """When (real time) the clock's offset changed, and to what."""
        self.jump(0)
        self.processes: dict[int, asyncio.subprocess.Process] = {}
        self.pids: list[int] = []
        self.refused: list[int] = []
        """Processes that exited as they started (their logs say why)."""

    def jump(self, seconds: float) -> None:
        self.offset += seconds
        temporary = self.offset_file.with_suffix(".tmp")
        temporary.write_text(str(self.offset))
        os.replace(temporary, self.offset_file)
        self.jumps.append((time.time(), self.offset))

    def real_time(self, moment: float) -> float:
        """The first real time at which the bots' clock read ``moment`` or later."""
        ends = [until for until, _ in self.jumps[1:]] + [float("inf")]
        for (since, offset), until in zip(self.jumps, ends, strict=True):
            if moment - offset < until:
                return max(since, moment - offset)
        return float("inf")

    async def start(self, index: int) -> None:
        env = {
            "DATABASE_URL": self.url,
            "SHARD_COUNT": str(self.count),
            "SHARD_IDS": str(index),
            "TIMER_POLL_SECONDS": "0.5",
            "BOT_CLOCK_OFFSET_FILE": str(self.offset_file),
            "REST_BUDGET_PER_SECOND": str(45 // self.count),
        }
        for _attempt in range(30):  # as a service manager does: again until it runs
            before = set(self.fake.process_logs)
            try:
                process = await self.fake.start_bot_process(
                    CHAOS_BOT, env=env, shards=[index], timeout=90, settle=False
                )
            except HarnessError:  # it exited: say, the database was away as it started
                self.refused += sorted(set(self.fake.process_logs) - before)
                await asyncio.sleep(2)
                continue
            self.processes[index] = process
            self.pids.append(process.pid)
            return
        raise HarnessError(f"bot process {index} did not start in 30 attempts")

    async def kill(self, index: int) -> None:
        process = self.processes.pop(index, None)
        if process is not None:
            await self.fake.kill_bot_process(process)

    async def terminate(self, index: int) -> int | None:
        """SIGTERM, as a service manager stops the bot; its exit status."""
        process = self.processes.pop(index, None)
        if process is None:
            return None
        process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            await self.fake.kill_bot_process(process)
            return None


class Database:
    """The soak's PostgreSQL server, stopped (immediate: a crash) and started again."""

    def __init__(self, server: postgres_server.PostgresServer) -> None:
        self.server = server

    def _pg_ctl(self, *args: str) -> None:
        assert self.server.folder is not None
        pg_ctl = str(postgres_server.find_bin() / "pg_ctl")
        data = str(self.server.folder / "data")
        subprocess.run(
            self.server._command(pg_ctl, "-D", data, *args),
            capture_output=True,
            timeout=120,
            check=True,
        )

    def crash(self) -> None:
        self._pg_ctl("-m", "immediate", "stop")

    def start(self) -> None:
        assert self.server.folder is not None
        port = self.server.admin_url.rsplit(":", 1)[1].split("/")[0]
        sockets = self.server.folder / "sockets"
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c max_connections=300"
        log = str(self.server.folder / "server.log")
        self._pg_ctl("-l", log, "-w", "-t", "60", "-o", options, "start")


@dataclass
class Run:
    """What happened while the soak ran, for the verdict."""

    faults: dict[str, int] = field(default_factory=dict)
    windows: list[tuple[float, float, str]] = field(default_factory=list)
    """(from, to, what) in the fake's loop time: when a fault was under way."""
    sigterm_status: list[int | None] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)
    """Loop times at which a stopped process was running again."""
    last_fault_over: float = 0.0
    fast_clicks: int = 0
    jumps: int = 0
    timers_settled: float = 0.0
    """Seconds the bots took, after the drain, to fire the timers the clock's last jump
    made due (hundreds at once: compressed time, not a fault)."""
    burst_until: float = 0.0
    longest_stale: float = 0.0
    """The longest a game's thread was seen behind its stored state (sampled)."""

    def note(self, kind: str, began: float, ended: float) -> None:
        self.faults[kind] = self.faults.get(kind, 0) + 1
        self.windows.append((began, ended, kind))
        self.last_fault_over = max(self.last_fault_over, ended)


async def inject(
    fault: Fault, fake: FakeDiscord, cluster: Cluster, database: Database | None, run: Run,
    players: Players,
) -> None:  # fmt: skip
    """Carry out one fault of the schedule (and undo it: restart, start, end)."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    print(f"[{time.strftime('%H:%M:%S')}] {fault.describe()}", flush=True)
    if fault.kind == "kill":
        if fault.target not in cluster.processes:
            return  # already down (the SIGTERM's restart is under way)
        await cluster.kill(fault.target)
        await asyncio.sleep(fault.seconds)
        await cluster.start(fault.target)
        run.restarts.append(loop.time())
    elif fault.kind == "sigterm":
        run.burst_until = loop.time() + 6
        await asyncio.sleep(2)  # the burst is under way
        target = fault.target
        while target not in cluster.processes:  # down (a kill's restart is under way)
            running = sorted(cluster.processes)
            if running:
                target = running[0]
                print(f"  (process {fault.target} is down: process {target} instead)", flush=True)
            else:
                await asyncio.sleep(0.5)
        run.sigterm_status.append(await cluster.terminate(target))
        await asyncio.sleep(fault.seconds)
        if target not in cluster.processes:
            await cluster.start(target)
        run.restarts.append(loop.time())
    elif fault.kind == "database":
        if database is None:  # TEST_POSTGRES_URL: a server that is not the soak's to stop
            print("  (skipped: the database server is not this soak's own)", flush=True)
            return
        await asyncio.to_thread(database.crash)
        await asyncio.sleep(fault.seconds)
        await asyncio.to_thread(database.start)
    elif fault.kind == "outage":
        fake.rest_outage(True)
        await asyncio.sleep(fault.seconds)
        fake.rest_outage(False)
    else:
        for _ in range(20):  # the shard's process may be down just now: try again soon
            try:
                if fault.kind == "gateway-resume":
                    await fake.drop_gateway(shard=fault.target)
                else:
                    await fake.reconnect_gateway(resume=False, shard=fault.target)
                break
            except HarnessError:
                await asyncio.sleep(1)
        else:
            players.count(f"{fault.kind}: shard {fault.target} never connected")
            return
    run.note(fault.kind, began, loop.time() + (5 if fault.kind != "outage" else 2))


async def soak(args: argparse.Namespace, url: str, database: Database | None) -> Verdict:
    seconds = args.minutes * 60
    processes = 1 if args.backend == "sqlite" else args.processes
    faults = schedule(args.seed, seconds, processes, args.backend, args.outage)
    print(f"chaos soak: seed {args.seed}, {args.games} games, {args.minutes:g} min of play,")
    print(f"{processes} bot process(es) on {args.backend}, {args.players} players at once")
    print("faults all the time: 20 % of rate-limited REST calls 429, 5 % 502; one player")
    print(f"clicking without pause; the clock jumps {JUMP_SECONDS / 3600:.1f} h every")
    print(f"{args.jump:g} s (every reminder and turn limit falls due)")
    print("the schedule (seconds after the players start):")
    for fault in faults:
        print("  " + fault.describe())
    print(flush=True)
    run = Run()
    with tempfile.TemporaryDirectory(prefix="chaos-") as folder:
        async with FakeDiscord(
            shard_count=processes,
            max_concurrency=processes,
            validate_spec=False,
            fault_seed=args.seed,
        ) as fake:
            fake.settle_after_interaction = False
            store = await open_storage(url)
            cluster = Cluster(fake, url, Path(folder), processes)
            try:
                await asyncio.gather(*(cluster.start(i) for i in range(processes)))
                guilds = [
                    fake.add_guild(f"Server {s}", owner=fake.owner, shard=s)
                    for s in range(processes)
                ]
                await asyncio.sleep(0.5)
                loop = asyncio.get_running_loop()
                started = loop.time()
                play_until = started + seconds

                def stop_opening() -> bool:
                    over = loop.time() >= play_until
                    enough = len(players.games) >= int(args.games)
                    return over and (enough or loop.time() > hard_end)

                hard_end = started + 2 * seconds
                players = Players(
                    fake,
                    store,
                    guilds,
                    args.seed,
                    args.games,
                    stop_opening,
                    lambda: loop.time() < run.burst_until,
                )
                players.full_until = started + seconds * args.full_share
                fake.inject("rate_limit", rate=0.2, retry_after=0.3)
                fake.inject("server_error", rate=0.05 / 0.8, status=502)  # 5 % of all
                tasks = [asyncio.create_task(players.run_player(i)) for i in range(args.players)]
                clicker = asyncio.create_task(
                    players.fast_clicker(lambda: stop_opening() or players.draining)
                )

                async def scheduled(fault: Fault) -> None:
                    await asyncio.sleep(max(0.0, started + fault.at - loop.time()))
                    await inject(fault, fake, cluster, database, run, players)

                async def clock() -> None:
                    while not stop_opening():
                        await asyncio.sleep(args.jump)
                        cluster.jump(JUMP_SECONDS)
                        run.jumps += 1

                async def stale() -> None:
                    """Sample every open game's ledger: how long was a thread behind?"""
                    since: dict[int, tuple[float, int]] = {}  # behind since, board shown
                    while True:
                        for game in [g for g in players.games if g.game_id and not g.ended]:
                            try:
                                info = await store.info(game.game_id)
                            except Exception:  # the database is down
                                await asyncio.sleep(1)
                                break
                            board = info.shown_versions.get("board", -1)
                            first, shown = since.get(game.game_id, (loop.time(), board))
                            if not Publisher.behind(info) or board > shown:
                                since.pop(game.game_id, None)  # caught up, or moving on
                            else:
                                since[game.game_id] = (first, shown)
                                run.longest_stale = max(run.longest_stale, loop.time() - first)
                        await asyncio.sleep(2)

                chaos = [asyncio.create_task(scheduled(f)) for f in faults]
                jumps = asyncio.create_task(clock())
                sampler = asyncio.create_task(stale())
                await asyncio.gather(*chaos)
                while not stop_opening():  # noqa: ASYNC110 - a deadline and a count
                    await asyncio.sleep(1)
                # the faults are over: the players who play to the end finish
                fake.clear_faults()
                jumps.cancel()
                sampler.cancel()
                players.draining = True
                run.fast_clicks = await clicker
                print(
                    f"[{time.strftime('%H:%M:%S')}] play over: {len(players.games)} games"
                    " opened; the players who play to the end finish theirs",
                    flush=True,
                )
                done, pending = await drain(tasks, players, args.drain)
                for task in pending:
                    task.cancel()
                for task in done:
                    if task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
                for game in players.games:
                    if not game.ended:
                        game.ended = "stopped"
                run.timers_settled = await settle_timers(store, cluster)
                print(f"[{time.strftime('%H:%M:%S')}] checking", flush=True)
                verdict = await check(fake, store, url, cluster, players, run, started)
                kept = keep_logs(args.logs, fake.process_logs, verdict.details)
                verdict.figures.append(("the bot processes' logs; findings.txt", str(kept)))
                return verdict
            finally:
                with contextlib.suppress(Exception):
                    await store.close()
                for index in list(cluster.processes):
                    with contextlib.suppress(Exception, HarnessError):
                        await fake.stop_bot_process(cluster.processes.pop(index))


TIMERS_SETTLE_CAP = 180.0


async def settle_timers(store: Storage, cluster: Cluster) -> float:
    """Wait until the bots have fired every timer due on their clock (the clock's last
    jump makes every game's reminder and turn limit due at once, hundreds of posts that
    Discord's 50 requests a second take many seconds to carry: load, not a fault), at
    most :data:`TIMERS_SETTLE_CAP` seconds; how long it took. The catch-up after the
    faults is measured from then."""
    began = time.monotonic()
    while time.monotonic() - began < TIMERS_SETTLE_CAP:
        now = datetime.fromtimestamp(time.time() + cluster.offset, UTC)
        with contextlib.suppress(Exception):  # a read that failed: look again
            if not await store.due_timers(now):
                break
        await asyncio.sleep(0.5)
    return time.monotonic() - began


DRAIN_CAP = 3
"""The drain lasts at most this many times ``--drain``, however the games move on."""


async def drain(
    tasks: list[asyncio.Task[None]], players: Players, patience: float
) -> tuple[set[asyncio.Task[None]], set[asyncio.Task[None]]]:
    """Wait for the player tasks while the games to be played to the end still move on:
    until every one is done, or none of their games moved for ``patience`` seconds (one
    left waiting is the verdict's to find), or :data:`DRAIN_CAP` times that passed (a
    Workshop Tonttu game opened late takes over 10 minutes on a loaded machine)."""
    loop = asyncio.get_running_loop()
    began = moved = loop.time()
    seen: dict[int, int] = {}
    done: set[asyncio.Task[None]] = set()
    pending = set(tasks)
    while pending and loop.time() - moved < patience and loop.time() - began < patience * DRAIN_CAP:
        finished, pending = await asyncio.wait(pending, timeout=5)
        done |= finished
        playing = [g.game_id for g in players.games if g.behaviour == "full" and g.game_id]
        versions = {i: (await players.store.info(i)).version for i in playing}
        if versions != seen:
            seen, moved = versions, loop.time()
    return done, pending


def keep_logs(folder: str | None, logs: dict[int, Path], details: list[str]) -> Path:
    """Copy the bot processes' logs (the fake removes its own) and the findings."""
    kept = Path(folder or tempfile.mkdtemp(prefix="chaos-logs-"))
    kept.mkdir(parents=True, exist_ok=True)
    for number, (pid, path) in enumerate(logs.items(), 1):
        shutil.copy(path, kept / f"bot-{number}-pid{pid}.log")
    (kept / "findings.txt").write_text("\n".join(details) + "\n")
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games to open at least")
    parser.add_argument("--minutes", type=float, default=20.0, help="minutes of play, faults")
    parser.add_argument("--processes", type=int, default=3, help="bot processes (PostgreSQL)")
    parser.add_argument("--seed", type=int, default=1, help="the schedule's and players' seed")
    parser.add_argument("--backend", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--players", type=int, default=40, help="player tasks at once")
    parser.add_argument("--outage", type=float, default=30.0, help="seconds of REST outage")
    parser.add_argument("--jump", type=float, default=10.0, help="seconds between clock jumps")
    parser.add_argument(
        "--drain",
        type=float,
        default=300.0,
        help="seconds the last games may stand still before the check (the players who"
        " play to the end finish theirs while they move on)",
    )
    parser.add_argument("--logs", help="a folder to keep the bot processes' logs in")
    parser.add_argument(
        "--full-share",
        type=float,
        default=0.6,
        help="share of the play time in which games to be played to the end are opened",
    )
    args = parser.parse_args(argv)
    began = time.monotonic()
    if args.backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="chaos-db-") as folder:
            verdict = asyncio.run(soak(args, f"sqlite:///{folder}/bot.db", None))
    else:
        server = postgres_server.start(durable=True)
        try:
            own = Database(server) if server.folder is not None else None
            verdict = asyncio.run(soak(args, server.new_database(), own))
        finally:
            server.stop()
    print(verdict.table(time.monotonic() - began))
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
