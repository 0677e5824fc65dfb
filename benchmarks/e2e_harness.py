"""Overhead of the fake Discord: the demo bot answering many concurrent interactions.

    python -m benchmarks.e2e_harness [--users 50] [--rounds 10]

Prints p50/p95/p99 of the time from INTERACTION_CREATE dispatch to the accepted initial
response, and REST requests per interaction. A template for benchmarks/bot_latency.py.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from tests.e2e.demo_bot import DemoBot
from tests.e2e.fake_discord import FakeDiscord


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def run(users: int, rounds: int) -> None:
    async with FakeDiscord() as fake:
        await fake.start_bot(DemoBot())
        fake.settle_after_interaction = False
        people = [fake.add_user(f"user{i}") for i in range(users)]
        channels = [fake.add_channel(f"table-{i}") for i in range(max(1, users // 3))]
        lobbies = []
        for i, user in enumerate(people[: len(channels)]):
            result = await fake.slash(user, channels[i], "newgame", game="workshop")
            assert result.message is not None
            lobbies.append(result.message)
        await fake.settle()
        before = len(fake.requests)
        latencies: list[float] = []
        started = time.perf_counter()
        for _ in range(rounds):
            results = await asyncio.gather(
                *(
                    fake.click(user, lobbies[i % len(lobbies)], "Join")
                    if i % 2
                    else fake.slash(user, channels[i % len(channels)], "secret")
                    for i, user in enumerate(people)
                )
            )
            latencies += [r.latency for r in results if r.latency is not None]
        await fake.settle()
        elapsed = time.perf_counter() - started
        interactions = users * rounds
        ms = [x * 1000 for x in latencies]
        print(f"{interactions} interactions, {users} at a time, in {elapsed:.2f} s")
        print(
            f"dispatch -> callback: p50 {percentile(ms, 50):.1f} ms, "
            f"p95 {percentile(ms, 95):.1f} ms, p99 {percentile(ms, 99):.1f} ms, "
            f"mean {statistics.mean(ms):.1f} ms"
        )
        print(f"REST requests per interaction: {(len(fake.requests) - before) / interactions:.2f}")
        fake.check_no_violations()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    asyncio.run(run(args.users, args.rounds))


if __name__ == "__main__":
    main()
