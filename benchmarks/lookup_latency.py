"""A game's load while the event loop is busy, on SQLite: read on the loop's thread (the
looker, ``storage/sqlite.py``) and through the reader's thread (as before), in one run.

    python -m benchmarks.lookup_latency [--loads 2000] [--busy 0.11]

A click's handler loads its game before it answers, and so does every update of a thread.
Beside busy tables the bot's event loop is busy part of the time (about 11 % beside 8
tables of thinking computers, ``docs/rules-notes.md``); here background tasks keep it
busy about ``--busy`` of the time, in steps of 0.5-3 ms. Printed for each way: a load's
time (p50/p99, from the call to its return), alone and beside the busy tasks, and the
process's CPU time per load (loads one after the other, both threads counted).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import storage
from benchmarks.bot_latency import percentile
from storage import SqliteStorage

STEPS = (0.0005, 0.003)
"""Seconds of CPU in one step of a background task (uniform in this range)."""


def spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def busy_task(share: float, rng: random.Random, running: asyncio.Event) -> None:
    """Steps of CPU with pauses between them, so the loop is busy ``share`` of the time."""
    mean_step = sum(STEPS) / 2
    while running.is_set():
        spin(rng.uniform(*STEPS))
        await asyncio.sleep(rng.expovariate(share / mean_step / (1 - share)) if share else 1)


async def loads(store: SqliteStorage, game_id: int, count: int, rng: random.Random) -> list[float]:
    took = []
    for _ in range(count):
        await asyncio.sleep(rng.uniform(0.0005, 0.002))
        started = time.perf_counter()
        await store.load(game_id)
        took.append((time.perf_counter() - started) * 1000)
    return took


async def measure(store: SqliteStorage, game_id: int, count: int, busy: float) -> dict[str, Any]:
    rng = random.Random(7)
    figures: dict[str, Any] = {}
    cpu = time.process_time()
    for _ in range(count):  # one after the other
        await store.load(game_id)
    figures["cpu"] = (time.process_time() - cpu) / count * 1e6
    figures["alone"] = await loads(store, game_id, count, rng)
    running = asyncio.Event()
    running.set()
    background = asyncio.create_task(busy_task(busy, random.Random(1), running))
    figures["beside"] = await loads(store, game_id, count, rng)
    running.clear()
    await background
    return figures


async def run(count: int, busy: float) -> None:
    folder = Path(tempfile.mkdtemp())
    async with await storage.open_sqlite(f"sqlite:///{folder}/lookup.db") as store:
        lobby = await store.create_lobby(
            guild_id=1, channel_id=1, kind="workshop", options=None, host_id=1, host_name="P1"
        )
        for user in (2, 3, 4):
            lobby = await store.join(lobby.id, user, f"P{user}")
        game = await store.start(lobby.id, 7)
        print(
            f"lookup_latency: {count} loads of a 4-player Santa's Workshop game each way;"
            f" the loop kept busy {busy:.0%} of the time beside; ms"
        )
        print(f"  {'':<28}{'alone p50 / p99':>18}{'beside p50 / p99':>20}{'CPU per load':>15}")
        ways = [("on the loop (looker)", None), ("through the reader thread", store._read)]
        for _ in range(2):  # each way twice, alternating: the first pass warms up
            rows = []
            for name, lookup in ways:
                if lookup is not None:
                    store._lookup = lookup  # type: ignore[method-assign]
                else:
                    vars(store).pop("_lookup", None)
                rows.append((name, await measure(store, game.id, count, busy)))
        for name, f in rows:
            alone = f"{percentile(f['alone'], 50):.2f} / {percentile(f['alone'], 99):.2f}"
            beside = f"{percentile(f['beside'], 50):.2f} / {percentile(f['beside'], 99):.2f}"
            cpu = f"{f['cpu']:.0f} us"
            print(f"  {name:<28}{alone:>18}{beside:>20}{cpu:>15}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=2000, help="loads per figure")
    parser.add_argument("--busy", type=float, default=0.11, help="busy share of the loop, 0-0.9")
    args = parser.parse_args()
    if args.loads < 1 or not 0 <= args.busy <= 0.9:
        parser.error("--loads: at least 1; --busy: between 0 and 0.9")
    asyncio.run(run(args.loads, args.busy))


if __name__ == "__main__":
    main()
