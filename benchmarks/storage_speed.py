"""Storage speed on each backend: committed submits per second, latency, database time
per submit, and opening a large database.

    python benchmarks/storage_speed.py                       # both backends, the race game
    python benchmarks/storage_speed.py --backends sqlite     # SQLite only
    python benchmarks/storage_speed.py --game workshop       # a real game

PostgreSQL runs on a throwaway server started for the run (``tests/postgres_server.py``,
with ``fsync`` on, as in production), or on ``TEST_POSTGRES_URL``'s server.

Prints, in one run, a column per backend:
  * committed ``submit`` calls per second on one game, and across 100 games at once;
  * database time per submit: a submit's latency minus the engine's share, on one
    game (one submit at a time: the round trips and the commit), and the writer's
    time per submit with 100 games (group commit shares one commit among many);
  * the same machine's raw baseline: the driver alone, one INSERT + one UPDATE per
    transaction, same row sizes (target: storage >= half of it);
  * submit latency (p50/p99) with 100 games submitting concurrently: closed loop
    (every game always has a submit waiting: the worst case) and open loop (each
    game submits at random moments, a fixed total rate);
  * the time to open a database holding 10,000 finished and 1,000 active games
    and serve the first requests (target: under 1 s).
Engine time is included in storage's figures (the baseline has none); the line
``engine`` shows how much of each submit it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiosqlite

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import storage  # noqa: E402
from engine import get_game  # noqa: E402
from engine.core import Game, Rng  # noqa: E402
from engine.records import pick_random  # noqa: E402
from storage import SqlStorage  # noqa: E402


class Table:
    """One game kept going: a random legal action each time; a new game when it ends."""

    def __init__(self, store: SqlStorage, game: Game, channel: int, seed: int) -> None:
        self.store, self.game, self.channel = store, game, channel
        self.rng = Rng(seed)
        self.game_id = 0
        self.version = 0
        self.state: Any = None

    async def begin(self) -> None:
        lobby = await self.store.create_lobby(
            guild_id=1,
            channel_id=self.channel,
            kind=self.game.name,
            options=OPTIONS.get(self.game.name),
            host_id=1,
            host_name="P1",
        )
        for user in range(2, self.game.min_players + 2):
            if len(lobby.seats) < self.game.max_players:
                lobby = await self.store.join(lobby.id, user, f"P{user}")
        started = await self.store.start(lobby.id, self.rng.next64() >> 1)
        self.game_id, self.version, self.state = started.id, started.version, started.state

    async def step(self) -> float:
        """One committed submit of a random legal action; returns its latency in seconds."""
        if self.state is None:
            await self.begin()
        player, action = pick_random(self.game, self.state, self.rng)
        started = time.perf_counter()
        state, _events, version = await self.store.submit(
            self.game_id, player, action, self.version
        )
        latency = time.perf_counter() - started
        self.version, self.state = version, state
        if self.game.outcome(state) is not None:
            self.state = None
        return latency


OPTIONS: dict[str, dict[str, Any]] = {"race": {"target": 200}}


async def submits_per_second(url: str, game: Game, tables: int, seconds: float) -> dict[str, Any]:
    async with await storage.open(url) as store:
        group = [Table(store, game, 1000 + n, n) for n in range(tables)]
        for table in group:
            await table.begin()
        latencies: list[float] = []
        deadline = time.perf_counter() + seconds

        async def run(table: Table) -> None:
            while time.perf_counter() < deadline:
                latencies.append(await table.step())

        started = time.perf_counter()
        await asyncio.gather(*(run(table) for table in group))
        elapsed = time.perf_counter() - started
    return {"rate": len(latencies) / elapsed, "latencies": latencies, "elapsed": elapsed}


async def open_loop(url: str, game: Game, tables: int, rate: float, seconds: float) -> list[float]:
    """Each game submits at random moments (Poisson), ``rate`` submits/s in total."""
    async with await storage.open(url) as store:
        group = [Table(store, game, 5000 + n, n) for n in range(tables)]
        for table in group:
            await table.begin()
        latencies: list[float] = []
        deadline = time.perf_counter() + seconds
        rng = random.Random(1)

        async def run(table: Table) -> None:
            while True:
                await asyncio.sleep(rng.expovariate(rate / tables))
                if time.perf_counter() >= deadline:
                    return
                latencies.append(await table.step())

        await asyncio.gather(*(run(table) for table in group))
    return latencies


async def engine_cost(game: Game, count: int) -> float:
    """Seconds per apply + model_dump_json (the part of a submit that is not SQL)."""
    table_rng = Rng(5)
    state = game.new_game(
        [str(n) for n in range(1, game.min_players + 2)][: game.max_players],
        1,
        game.parse_options(OPTIONS.get(game.name)),
    )
    start = state
    spent = 0.0
    for _ in range(count):
        if game.outcome(state) is not None:
            state = start
        player, action = pick_random(game, state, table_rng)
        t0 = time.perf_counter()
        state, events = game.apply(state, player, action)
        state.model_dump_json()
        action.model_dump_json()
        [event.model_dump_json() for event in events]
        spent += time.perf_counter() - t0
    return spent / count


async def raw_baseline(path: Path, snapshot: str, seconds: float, explicit: bool) -> float:
    """aiosqlite alone, one INSERT + one UPDATE per transaction, same pragmas.

    ``explicit=False`` is the plain aiosqlite idiom (the sqlite3 module opens the
    transaction implicitly; three awaits); ``explicit=True`` adds
    ``BEGIN IMMEDIATE`` in autocommit mode (four awaits).
    """
    db = await aiosqlite.connect(path, isolation_level=None if explicit else "DEFERRED")
    for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"):
        await db.execute(f"PRAGMA {pragma}")
    await db.execute("PRAGMA busy_timeout = 5000")
    await db.execute("CREATE TABLE g (id INTEGER PRIMARY KEY, snapshot TEXT, version INTEGER)")
    await db.execute(
        "CREATE TABLE a (game_id INTEGER REFERENCES g (id), seq INTEGER, player TEXT,"
        " action TEXT, events TEXT, created_at REAL, PRIMARY KEY (game_id, seq))"
    )
    await db.execute("INSERT INTO g VALUES (1, ?, 0)", (snapshot,))
    await db.commit()
    action, events = '{"kind":"roll"}', '[{"kind":"rolled","player":"1","value":2}]'
    count = 0
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        count += 1
        if explicit:
            await db.execute("BEGIN IMMEDIATE")
        await db.execute(
            "INSERT INTO a VALUES (1, ?, '1', ?, ?, ?)", (count, action, events, time.time())
        )
        await db.execute(
            "UPDATE g SET snapshot = ?, version = version + 1 WHERE id = 1 AND version = ?",
            (snapshot, count - 1),
        )
        if explicit:
            await db.execute("COMMIT")
        else:
            await db.commit()
    elapsed = time.perf_counter() - started
    await db.close()
    return count / elapsed


def build_big_database(path: Path, game: Game, finished: int, active: int) -> None:
    """Fill a database through plain SQL, fast: games replayed from a few real templates."""
    asyncio.run(_create_empty(path))
    templates_finished, templates_active = [], []
    for n in range(20):
        players = [str(p) for p in range(1, game.min_players + 1)]
        state = game.new_game(players, n, game.parse_options(OPTIONS.get(game.name)))
        rng = Rng(n)
        log: list[tuple[str, str, str]] = []
        while game.outcome(state) is None:
            player, action = pick_random(game, state, rng)
            state, events = game.apply(state, player, action)
            log.append((player, action.model_dump_json(), _events(events)))
            if n % 2 and len(log) == 10:
                templates_active.append((n, players, state.model_dump_json(), list(log), None))
                break
        if game.outcome(state) is not None:
            outcome = game.outcome(state)
            assert outcome is not None
            templates_finished.append(
                (n, players, state.model_dump_json(), log, outcome.model_dump_json())
            )
    options = game.parse_options(OPTIONS.get(game.name)).model_dump_json()
    with sqlite3.connect(path) as db:
        games, seats, actions = [], [], []
        for game_id in range(1, finished + active + 1):
            is_active = game_id > finished
            pool = templates_active if is_active else templates_finished
            seed, players, snapshot, log, result = pool[game_id % len(pool)]
            now = 1_700_000_000.0 + game_id
            games.append(
                (
                    game_id,
                    game_id % 50,
                    100_000 + game_id,
                    1,
                    game.name,
                    options,
                    seed,
                    "active" if is_active else "finished",
                    snapshot,
                    len(log),
                    result,
                    now,
                    now,
                    now,
                    None if is_active else now,
                )
            )
            seats.extend((game_id, i, p, int(p), f"P{p}") for i, p in enumerate(players))
            actions.extend(
                (game_id, seq, player, action, events, now)
                for seq, (player, action, events) in enumerate(log, 1)
            )
        db.executemany(
            "INSERT INTO games (id, guild_id, channel_id, host_id, kind, options, seed, status,"
            " snapshot, version, result, created_at, updated_at, started_at, finished_at)"
            f" VALUES ({', '.join('?' * 15)})",
            games,
        )
        db.executemany(
            "INSERT INTO seats (game_id, position, player, user_id, display_name)"
            " VALUES (?, ?, ?, ?, ?)",
            seats,
        )
        db.executemany(
            "INSERT INTO actions (game_id, seq, player, action, events, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            actions,
        )


def _events(events: Any) -> str:
    return "[" + ",".join(event.model_dump_json() for event in events) + "]"


async def _create_empty(path: Path) -> None:
    async with await storage.open(f"sqlite:///{path}"):
        pass


async def open_and_serve(url: str, finished: int, active: int) -> dict[str, float]:
    t0 = time.perf_counter()
    store = await storage.open(url)
    t1 = time.perf_counter()
    # What the bot does first: timers due, then a click in some channel.
    await store.due_timers()
    await store.next_due_at()
    channel = 100_000 + finished + active // 2
    game = await store.find_open(channel)
    assert game is not None and game.status == "active"
    await store.history(7, limit=20)
    t2 = time.perf_counter()
    await store.close()
    return {"open": t1 - t0, "open+first requests": t2 - t0}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def timed(label: str, work: Callable[[], Awaitable[Any]]) -> Any:
    print(f"... {label}", file=sys.stderr, flush=True)
    return await work()


async def raw_postgres_baseline(url: str, snapshot: str, seconds: float) -> float:
    """asyncpg alone, one INSERT + one UPDATE per transaction (BEGIN … COMMIT), with the
    storage's durability setting (commits do not wait for the disk)."""
    import asyncpg

    db = await asyncpg.connect(url, server_settings={"synchronous_commit": "off"})
    await db.execute("CREATE TABLE g (id BIGINT PRIMARY KEY, snapshot TEXT, version INTEGER)")
    await db.execute(
        "CREATE TABLE a (game_id BIGINT REFERENCES g (id), seq INTEGER, player TEXT,"
        " action TEXT, events TEXT, created_at DOUBLE PRECISION, PRIMARY KEY (game_id, seq))"
    )
    await db.execute("INSERT INTO g VALUES (1, $1, 0)", snapshot)
    action, events = '{"kind":"roll"}', '[{"kind":"rolled","player":"1","value":2}]'
    count = 0
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        count += 1
        async with db.transaction():
            await db.execute(
                "INSERT INTO a VALUES (1, $1, '1', $2, $3, $4)", count, action, events, time.time()
            )
            await db.execute(
                "UPDATE g SET snapshot = $1, version = version + 1 WHERE id = 1 AND version = $2",
                snapshot,
                count - 1,
            )
    elapsed = time.perf_counter() - started
    await db.close()
    return count / elapsed


def copy_to(source_url: str, target_url: str) -> float:
    """``python -m storage copy`` (in-process); returns the seconds it took."""
    import io

    from storage.__main__ import copy

    out = io.StringIO()
    started = time.perf_counter()
    status = asyncio.run(copy(source_url, target_url, out))
    assert status == 0, out.getvalue()
    return time.perf_counter() - started


def measure(
    backend: str, new_url: Callable[[str], str], game: Game, args: argparse.Namespace
) -> dict[str, str]:
    """Every figure for one backend; ``new_url(name)`` makes an empty database."""
    one = asyncio.run(
        timed(
            f"{backend}: one game",
            lambda: submits_per_second(new_url("one"), game, 1, args.seconds),
        )
    )
    many = asyncio.run(
        timed(
            f"{backend}: 100 games",
            lambda: submits_per_second(new_url("many"), game, 100, args.seconds),
        )
    )
    snapshot = game.new_game(
        [str(p) for p in range(1, game.min_players + 1)],
        1,
        game.parse_options(OPTIONS.get(game.name)),
    ).model_dump_json()
    if backend == "sqlite":
        raw = asyncio.run(
            timed(
                "raw",
                lambda: raw_baseline(Path(new_url("raw")[10:]), snapshot, args.seconds, False),
            )
        )
        raw_label = f"{round(raw)} (aiosqlite)"
    else:
        raw = asyncio.run(
            timed("raw", lambda: raw_postgres_baseline(new_url("raw"), snapshot, args.seconds))
        )
        raw_label = f"{round(raw)} (asyncpg)"
    engine = asyncio.run(engine_cost(game, 2000))
    paced = asyncio.run(
        timed(
            f"{backend}: open loop",
            lambda: open_loop(new_url("paced"), game, 100, args.open_rate, args.seconds),
        )
    )
    finished, active = args.finished, max(1, args.finished // 10)
    big = new_url("big")
    print(f"... {backend}: {finished:,} finished + {active:,} active games", file=sys.stderr)
    build_started = time.perf_counter()
    if backend == "sqlite":
        build_big_database(Path(big[10:]), game, finished, active)
        built = f"built in {time.perf_counter() - build_started:.1f} s"
    else:
        staging = new_url("staging")  # an SQLite file, copied with `storage copy`
        build_big_database(Path(staging[10:]), game, finished, active)
        built = f"storage copy from SQLite (with its check) {copy_to(staging, big):.1f} s"
    opened = asyncio.run(open_and_serve(big, finished, active))

    closed = many["latencies"]
    one_mean = statistics.fmean(one["latencies"])
    return {
        "submits/s, one game": f"{one['rate']:.0f}",
        "submits/s, 100 games at once": f"{many['rate']:.0f}",
        "database time per submit, one game (latency - engine)": ms(one_mean - engine),
        "wall time per submit, 100 games (1 / rate)": ms(1 / many["rate"]),
        "engine (apply + JSON) per submit": ms(engine),
        "raw driver baseline (INSERT + UPDATE per transaction)/s": raw_label,
        "storage / baseline, one game": f"{one['rate'] / raw:.2f}",
        "storage / baseline, 100 games": f"{many['rate'] / raw:.2f}",
        "latency, one game p50 / p99": f"{ms(percentile(one['latencies'], 0.5))} / "
        f"{ms(percentile(one['latencies'], 0.99))}",
        "latency, 100 games closed loop p50 / p99": f"{ms(percentile(closed, 0.5))} / "
        f"{ms(percentile(closed, 0.99))}",
        f"latency, 100 games open loop at {args.open_rate:g}/s p50 / p99": (
            f"{ms(percentile(paced, 0.5))} / {ms(percentile(paced, 0.99))}"
        ),
        "big database": f"{finished + active:,} games, {built}",
        f"open {finished:,} finished + {active:,} active": ms(opened["open"]),
        "open + first requests (timers, find_open, history)": ms(opened["open+first requests"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="race", help="race (the tests' fake game) or a real one")
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each rate run")
    parser.add_argument("--open-rate", type=float, default=500.0, help="open-loop submits/s")
    parser.add_argument(
        "--finished", type=int, default=10_000, help="finished games in the big database"
    )
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated")
    args = parser.parse_args()
    if args.game == "race":
        import tests.storage.race_game  # noqa: F401 - registers the fake game
    game = get_game(args.game)

    columns: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)

        def sqlite_url(name: str) -> str:
            return f"sqlite:///{base}/{name}.db"

        for backend in args.backends.split(","):
            if backend == "sqlite":
                columns["sqlite"] = measure("sqlite", sqlite_url, game, args)
                continue
            from tests import postgres_server

            try:
                server = postgres_server.start(durable=True)
            except postgres_server.ServerUnavailable as error:
                print(f"postgres: not measured ({error})")
                continue
            try:

                def pg_url(name: str, server: postgres_server.PostgresServer = server) -> str:
                    return sqlite_url(name) if name == "staging" else server.new_database()

                columns["postgres"] = measure("postgres", pg_url, game, args)
            finally:
                server.stop()

    print(f"game: {game.name}; each rate run {args.seconds:g} s; same machine, same run")
    keys = list(next(iter(columns.values())))
    width = max(len(key) for key in keys)
    print(f"{'':<{width}}  " + "  ".join(f"{name:<24}" for name in columns))
    for key in keys:
        print(f"{key:<{width}}  " + "  ".join(f"{col[key]:<24}" for col in columns.values()))
    print(json.dumps(columns), file=sys.stderr)


if __name__ == "__main__":
    main()
