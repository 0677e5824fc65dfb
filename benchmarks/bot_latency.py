"""The real bot under load through the fake Discord: 50 Santa's Workshop games at once.

    python -m benchmarks.bot_latency [--games 50] [--decisions 20] [--think 1.0]

Every game has two human seats. Two runs, each printing p50/p95/p99 of the time from
INTERACTION_CREATE dispatch to the bot's first response (the panel update) and the REST
calls the bot makes per player action (callback, board edit, log/prompt):
- paced: each game's players decide after a think time drawn from 0.2 s to 2 × --think,
  independently of the other games (how 50 live tables behave);
- burst: every game's acting player decides at the same instant, round after round
  (the worst case: the last of 50 simultaneous clicks waits for the other 49).
The fake Discord shares the event loop, so its own work is inside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from engine.core import Rng
from tests.e2e.bot_helpers import make_bot, turn_prompts
from tests.e2e.fake_discord import FakeDiscord, FakeMessage, FakeUser


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def act_buttons(message: FakeMessage) -> list[str]:
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]


class Table:
    def __init__(self, fake: FakeDiscord, thread: int, seated: dict[str, FakeUser]) -> None:
        self.fake, self.thread, self.seated = fake, thread, seated
        self.panels: dict[str, FakeMessage] = {}

    async def decide(self, rng: Rng) -> float | None:
        """One decision by whoever must act; returns the click's latency."""
        fake = self.fake
        prompt = turn_prompts(fake, self.thread)[-1]
        mentioned = prompt.content.splitlines()[-1]
        (player,) = [p for p in self.seated if f"<@{p}>" in mentioned]
        user = self.seated[player]
        panel = self.panels.get(player)
        if panel is None or not act_buttons(panel):
            opened = await fake.click(user, prompt, "Take your turn")
            panel = opened.message
            assert panel is not None
        choices = act_buttons(panel)
        if not choices:
            return None
        result = await fake.click(user, panel, choices[rng.below(len(choices))])
        assert result.message is not None
        self.panels[player] = result.message
        return result.latency


async def run(games: int, decisions: int, think: float) -> None:
    folder = Path(tempfile.mkdtemp())
    # The fake runs in this process and event loop; its OpenAPI validation of every body
    # (about half its CPU) is a test-time check, so it is off here to time the bot.
    async with FakeDiscord(validate_spec=False) as fake:
        await fake.start_bot(make_bot(fake, f"sqlite:///{folder}/bench.db", seed=1))
        tables = []
        for i in range(games):
            channel = fake.add_channel(f"table-{i}")
            host, guest = fake.add_user(f"host{i}"), fake.add_user(f"guest{i}")
            lobby = (await fake.slash(host, channel, "newgame", game="workshop")).message
            assert lobby is not None
            await fake.click(guest, lobby, "Join")
            await fake.click(host, lobby, "Start")
            (thread,) = fake.threads(channel)
            tables.append(Table(fake, thread.id, {str(host.id): host, str(guest.id): guest}))
        await fake.settle()
        rng = Rng(7)

        async def paced(table: Table) -> list[float]:
            out = []
            for _ in range(decisions):
                await asyncio.sleep(0.2 + rng.below(int(think * 2000)) / 1000)
                latency = await table.decide(rng)
                if latency is not None:
                    out.append(latency)
            return out

        async def burst() -> list[float]:
            out = []
            for _ in range(decisions):
                results = await asyncio.gather(*(table.decide(rng) for table in tables))
                await fake.settle()
                out += [latency for latency in results if latency is not None]
            return out

        for name in ("paced", "burst"):
            before = len(fake.requests)
            started = time.perf_counter()
            if name == "paced":
                latencies = [x for xs in await asyncio.gather(*map(paced, tables)) for x in xs]
            else:
                latencies = await burst()
            await fake.settle()
            elapsed = time.perf_counter() - started
            report(name, games, latencies, fake.requests[before:], elapsed)
        fake.check_no_violations()


def report(
    name: str, games: int, latencies: list[float], requests: list[Any], seconds: float
) -> None:
    actions = len(latencies)
    ms = [x * 1000 for x in latencies]
    callbacks = sum(1 for r in requests if r.path.endswith("/callback"))
    rest = len(requests) - (callbacks - actions)  # panel openings are not actions
    print(f"{name}: {games} concurrent games, {actions} player actions in {seconds:.1f} s")
    print(
        f"  dispatch -> first response: p50 {percentile(ms, 50):.1f} ms, "
        f"p95 {percentile(ms, 95):.1f} ms, p99 {percentile(ms, 99):.1f} ms, "
        f"mean {statistics.mean(ms):.1f} ms"
    )
    print(f"  REST calls per player action: {rest / actions:.2f} (panel openings excluded)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--think", type=float, default=1.0, help="mean think time, seconds")
    args = parser.parse_args()
    asyncio.run(run(args.games, args.decisions, args.think))


if __name__ == "__main__":
    main()
