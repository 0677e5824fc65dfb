"""The real bot under load through the fake Discord: 50 Santa's Workshop games at once,
then Workshop Tonttu's reveals in 6-player games.

    python -m benchmarks.bot_latency [--games 50] [--decisions 20] [--think 1.0]
                                     [--tonttu-games 20] [--tonttu-phases 8] [--only tonttu]

Every game has two human seats. Two runs, each printing p50/p95/p99 of the time from
INTERACTION_CREATE dispatch to the bot's first response (the panel update) and the REST
calls the bot makes per player action (callback, board edit, log/prompt):
- paced: each game's players decide after a think time drawn from 0.2 s to 2 × --think,
  independently of the other games (how 50 live tables behave);
- burst: every game's acting player decides at the same instant, round after round
  (the worst case: the last of 50 simultaneous clicks waits for the other 49).
The fake Discord shares the event loop, so its own work is inside the figures.

Tonttu runs: --tonttu-games games of 6 human seats play at once, every choice by DM
select; the figure is the time from the dispatch of a phase's last choice to the reveal
posted in the thread (T-2.1, T-2.2). paced: each player chooses after their own think
time (0.2 s to 2 × --think); burst: all six players of every table choose in the same
instant, phase after phase (the worst case).
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


async def wait_for_post(fake: FakeDiscord, start: int, channel_id: int, text: str) -> Any:
    """The first message posted in ``channel_id`` since request ``start`` containing ``text``."""

    def find() -> Any:
        return next(
            (
                r
                for r in fake.requests[start:]
                if r.method == "POST"
                and r.path == f"/channels/{channel_id}/messages"
                and text in str((r.json or {}).get("content"))
            ),
            None,
        )

    await fake.wait_for(lambda: find() is not None, timeout=30, what=text)
    return find()


async def run_tonttu(games: int, phases: int, think: float) -> None:
    from engine.tonttu import GAME
    from tests.e2e.tonttu_helpers import choose_by_dm, open_tonttu

    folder = Path(tempfile.mkdtemp())
    async with FakeDiscord(validate_spec=False) as fake:
        bot = await fake.start_bot(make_bot(fake, f"sqlite:///{folder}/tonttu.db", seed=2))
        tables = []
        for i in range(games):
            channel = fake.add_channel(f"tonttu-{i}")
            fake.channel = channel  # open_tonttu plays in fake.channel
            users = [fake.add_user(f"t{i}p{n}") for n in range(6)]
            thread = await open_tonttu(fake, users[0], users[1:])
            tables.append((channel, thread, {str(u.id): u for u in users}))
        await fake.settle()
        fake.settle_after_interaction = False
        latencies: list[float] = []
        rng = Rng(3)

        async def play(channel: Any, thread: Any, seated: dict[str, FakeUser], pace: bool) -> None:
            async def choose(user: FakeUser, state: Any, action: Any) -> Any:
                if pace:  # each player after their own think time
                    await asyncio.sleep(0.2 + rng.below(int(think * 2000)) / 1000)
                return await choose_by_dm(fake, user, state, action)

            for _ in range(phases):
                game = await bot.store.find_open(channel.id)
                assert game is not None
                state = game.state
                kind = "picks" if state.phase == "pick" else "points"
                headline = f"Round {state.round} {kind}:"
                acting = sorted(GAME.to_act(state), key=state.players.index)
                marker = len(fake.requests)
                results = await asyncio.gather(
                    *(
                        choose(seated[p], state, rng.choice(GAME.legal_actions(state, p)))
                        for p in acting
                    )
                )
                last = max(r.record.dispatched_at for r in results)

                found = await wait_for_post(fake, marker, thread.id, headline)
                latencies.append(found.at - last)
                nxt = await bot.store.find_open(channel.id)
                if nxt is None:
                    return
                header = f"**Round {nxt.state.round} · {nxt.state.phase}**"
                await fake.wait_for(
                    lambda h=header: any(m.content.startswith(h) for m in fake.messages(thread)),
                    timeout=30,
                    what="the next phase",
                )

        for name in ("paced", "burst"):
            latencies.clear()
            before = len(fake.requests)
            started = time.perf_counter()
            await asyncio.gather(*(play(*table, name == "paced") for table in tables))
            await fake.settle()
            elapsed = time.perf_counter() - started
            ms = [x * 1000 for x in latencies]
            choices = sum(1 for r in fake.requests[before:] if r.path.endswith("/callback"))
            print(
                f"tonttu {name}: {games} concurrent 6-player games, {len(ms)} reveals "
                f"({choices} DM choices) in {elapsed:.1f} s"
            )
            print(
                f"  last choice dispatched -> reveal posted: p50 {percentile(ms, 50):.1f} ms, "
                f"p95 {percentile(ms, 95):.1f} ms, p99 {percentile(ms, 99):.1f} ms, "
                f"mean {statistics.mean(ms):.1f} ms"
            )
            print(
                f"  REST calls per choice: {(len(fake.requests) - before) / choices:.2f} "
                "(callback, status edit; per phase: reveal, board, status, 6 DMs)"
            )
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
    parser.add_argument("--tonttu-games", type=int, default=20, help="6-player games")
    parser.add_argument("--tonttu-phases", type=int, default=8, help="per run")
    parser.add_argument("--only", choices=("workshop", "tonttu"))
    args = parser.parse_args()
    if args.only != "tonttu":
        asyncio.run(run(args.games, args.decisions, args.think))
    if args.only != "workshop" and args.tonttu_games:
        asyncio.run(run_tonttu(args.tonttu_games, args.tonttu_phases, args.think))


if __name__ == "__main__":
    main()
