"""Speed of ``/stats`` and ``/leaderboard``'s queries with 10,000 finished games stored,
on each backend (target: p99 under 50 ms).

    python benchmarks/stats_speed.py                      # SQLite and PostgreSQL
    python benchmarks/stats_speed.py --backends sqlite    # SQLite only
    python benchmarks/stats_speed.py --games 2000 --queries 100   # a quick look

The database is filled through storage's own write transaction: one server holding
every game (the worst case: each query scans one server's rows), 20 channels, 300
members, both game kinds, 2 to 4 seats of which some are computers, synthetic scores,
and a few Elf placements per seat so Santa's Workshop has a favourite station. The
games are then rated by the bot's own pass (``rate_finished_games``, as at the first
start after the upgrade), which is timed too, as is ``python -m storage ratings
--rebuild``'s work (``rebuild_ratings``).

Each query runs as the cog runs it, with the channels the asking member can see (18 of
the 20): ``/stats`` for a random member, for the most-played identity (the "greedy"
computer, in about half of all games: the worst case), with and without a game;
``/leaderboard`` for one game and for both. Printed: p50, p99 and max per query, in ms.
The queries run after ``VACUUM ANALYZE`` (PostgreSQL) or ``ANALYZE`` (SQLite), as on a
database autovacuum or ``PRAGMA optimize`` has seen; ``--fresh`` skips that.
PostgreSQL runs on a throwaway server (``tests/postgres_server.py``, ``fsync`` on).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import storage  # noqa: E402
from engine.workshop.models import STATIONS  # noqa: E402
from storage import SqlStorage  # noqa: E402

GUILD = 1
CHANNELS = [1000 + n for n in range(20)]
VISIBLE = frozenset(CHANNELS[:18])
MEMBERS = 300
LEVELS = ("random", "greedy", "strong")
KINDS = ("workshop", "tonttu")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def fill(store: SqlStorage, games: int, rng: random.Random) -> None:
    """``games`` finished games, inserted in batches through storage's write path."""
    batch = 500
    for start in range(1, games + 1, batch):
        rows, seats, actions = [], [], []
        for game_id in range(start, min(games, start + batch - 1) + 1):
            kind = KINDS[game_id % 2]
            humans = rng.sample(range(1, MEMBERS + 1), rng.randint(1, 3))
            computers = [rng.choice(LEVELS) for _ in range(rng.randint(0, 4 - len(humans)))]
            if len(humans) + len(computers) < 2:
                computers.append("greedy")
            players = [str(h) for h in humans] + [f"ai:{n}" for n in range(1, len(computers) + 1)]
            scores = {p: rng.randint(5, 60) for p in players}
            best = max(scores.values())
            result = {
                "scores": scores,
                "winners": [p for p in players if scores[p] == best],
                "players": {
                    p: {"gifts": [{"name": "Gift", "category": rng.choice(["Toys", "Clothing"])}]}
                    for p in players
                },
            }
            now = 1_700_000_000.0 + game_id * 60
            rows.append(
                (
                    game_id,
                    GUILD,
                    rng.choice(CHANNELS),
                    int(humans[0]),
                    kind,
                    "{}",
                    game_id,
                    "finished",
                    None,
                    0,
                    json.dumps(result),
                    now,
                    now,
                    now,
                    now,
                )
            )
            for position, player in enumerate(players):
                is_ai = player.startswith("ai:")
                level = computers[int(player[3:]) - 1] if is_ai else None
                seats.append(
                    (game_id, position, player, None if is_ai else int(player), player, level)
                )
                if kind == "workshop":
                    for seq in range(rng.randint(2, 5)):
                        action = {"kind": "place_elf", "station": rng.choice(STATIONS)}
                        actions.append(
                            (
                                game_id,
                                position * 10 + seq + 1,
                                player,
                                json.dumps(action),
                                "[]",
                                now,
                            )
                        )
        async with store._write() as db:
            await db.executemany(
                "INSERT INTO games (id, guild_id, channel_id, host_id, kind, options, seed,"
                " status, snapshot, version, result, created_at, updated_at, started_at,"
                " finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            await db.executemany(
                "INSERT INTO seats (game_id, position, player, user_id, display_name, ai_level)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                seats,
            )
            await db.executemany(
                "INSERT INTO actions (game_id, seq, player, action, events, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                actions,
            )


async def timed(runs: int, make: Callable[[], Awaitable[Any]]) -> list[float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        await make()
        times.append((time.perf_counter() - t0) * 1000)
    return times


async def measure(url: str, games: int, queries: int, analyze: bool) -> dict[str, str]:
    rng = random.Random(14)
    out: dict[str, str] = {}
    async with await storage.open(url) as store:
        t0 = time.perf_counter()
        await fill(store, games, rng)
        out["fill (SQL inserts)"] = f"{time.perf_counter() - t0:.1f} s"
        t0 = time.perf_counter()
        rated = await store.rate_finished_games()
        assert rated == games, rated
        out[f"rate {games:,} unrated games"] = f"{time.perf_counter() - t0:.1f} s"
        t0 = time.perf_counter()
        await store.rebuild_ratings()
        out["ratings --rebuild"] = f"{time.perf_counter() - t0:.1f} s"
        if analyze:  # what autovacuum (PostgreSQL) or PRAGMA optimize (SQLite) do in time
            postgres = storage.is_postgres_url(url)
            await store._write_statement("VACUUM ANALYZE" if postgres else "ANALYZE")
        cases: dict[str, Callable[[], Awaitable[Any]]] = {
            "/stats member": lambda: store.player_stats(
                GUILD, str(rng.randint(1, MEMBERS)), VISIBLE
            ),
            "/stats member game": lambda: store.player_stats(
                GUILD, str(rng.randint(1, MEMBERS)), VISIBLE, rng.choice(KINDS)
            ),
            "/stats ai:greedy (most games)": lambda: store.player_stats(
                GUILD, "ai:greedy", VISIBLE
            ),
            "/leaderboard game": lambda: store.leaderboard(GUILD, rng.choice(KINDS), VISIBLE),
            "/leaderboard (both games)": lambda: asyncio.gather(
                *(store.leaderboard(GUILD, kind, VISIBLE) for kind in KINDS)
            ),
        }
        for name, make in cases.items():
            await timed(5, make)  # warm the caches
            times = await timed(queries, make)
            out[name] = (
                f"p50 {statistics.median(times):.1f} p99 {percentile(times, 0.99):.1f}"
                f" max {max(times):.1f} ms"
            )
        stats = await store.player_stats(GUILD, "ai:greedy", VISIBLE)
        out["(ai:greedy seats counted)"] = f"{sum(s.games for s in stats):,}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="finished games stored")
    parser.add_argument("--queries", type=int, default=300, help="runs of each query")
    parser.add_argument("--backends", default="sqlite,postgres", help="comma-separated")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="query at once, without the statistics and visibility map a database has once"
        " autovacuum (PostgreSQL) or PRAGMA optimize (SQLite) ran",
    )
    args = parser.parse_args()
    columns: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for backend in args.backends.split(","):
            if backend == "sqlite":
                url = f"sqlite:///{folder}/stats.db"
                columns["sqlite"] = asyncio.run(
                    measure(url, args.games, args.queries, not args.fresh)
                )
                continue
            from tests import postgres_server

            try:
                server = postgres_server.start(durable=True)
            except postgres_server.ServerUnavailable as error:
                print(f"postgres: not measured ({error})")
                continue
            try:
                url = server.new_database()
                columns["postgres"] = asyncio.run(
                    measure(url, args.games, args.queries, not args.fresh)
                )
            finally:
                server.stop()
    state = "just filled" if args.fresh else "after VACUUM ANALYZE / ANALYZE"
    print(f"{args.games:,} finished games on one server ({state}); {args.queries} runs per query")
    keys = list(next(iter(columns.values())))
    width = max(len(key) for key in keys)
    print(f"{'':<{width}}  " + "  ".join(f"{name:<30}" for name in columns))
    for key in keys:
        print(f"{key:<{width}}  " + "  ".join(f"{col[key]:<30}" for col in columns.values()))


if __name__ == "__main__":
    main()
