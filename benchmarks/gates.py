"""The gates measured: REST pacing under a flood of posts, and how long a stop takes.

    python -m benchmarks.gates [--posts 200] [--channels 20] [--budget 45] [--stops 3]

1. REST pacing: the real bot (in this process, through the fake Discord) sends
   ``--posts`` channel messages at once, spread over ``--channels`` channels, first
   with ``REST_BUDGET_PER_SECOND=0`` (unpaced), then with ``--budget``. Prints, for each,
   the most requests the fake received in any sliding second, and the time the flood
   took (Discord would answer a global 429 above 50 per second per token).
2. Stopping: ``bot.py`` in its own process, Ctrl-C (SIGINT) ``--stops`` times right
   after it connected (its worker processes still starting: the case that used to take
   10 s and more on a busy machine), and once during a burst of moves on three tables.
   Prints the time from the signal to the exit, and the exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import tempfile
import time
from pathlib import Path

from bot import Settings, WorkshopBot
from tests.e2e.bot_helpers import Clock, turn_prompts
from tests.e2e.fake_discord import FakeDiscord


def most_in_a_second(times: list[float]) -> int:
    times = sorted(times)
    return max((sum(1 for t in times[i:] if t < s + 1.0) for i, s in enumerate(times)), default=0)


async def flood(posts: int, channels: int, budget: float, folder: Path) -> tuple[int, float]:
    async with FakeDiscord(validate_spec=False) as fake:
        settings = Settings(
            token=fake.token,
            database_url=f"sqlite:///{folder}/flood-{budget}.db",
            timer_poll_seconds=3600,
            rest_budget_per_second=budget,
        )
        bot = await fake.start_bot(WorkshopBot(settings, clock=Clock()))
        targets = [fake.add_channel(f"c{n}") for n in range(channels)]
        await fake.settle()
        first = len(fake.requests)
        started = time.perf_counter()
        await asyncio.gather(
            *(
                bot.get_partial_messageable(targets[n % channels].id).send(f"post {n}")
                for n in range(posts)
            )
        )
        took = time.perf_counter() - started
        seen = [r.at for r in fake.requests[first:] if r.method == "POST"]
        await fake.stop_bot(bot)
        return most_in_a_second(seen), took


async def stop_times(stops: int, folder: Path) -> None:
    async with FakeDiscord(validate_spec=False) as fake:
        env = {"DATABASE_URL": f"sqlite:///{folder}/stop.db", "DISCORD_GUILD_ID": ""}
        for n in range(stops):
            process = await fake.start_bot_process("bot.py", env=env)
            started = time.perf_counter()
            status = await fake.stop_bot_process(process, timeout=120)
            print(
                f"  just connected #{n + 1}: {time.perf_counter() - started:.2f} s, exit {status}"
            )
        process = await fake.start_bot_process("bot.py", env={**env, "FLOOD_BURST": "0"})
        fake.settle_after_interaction = False
        players = []
        for n in range(3):
            channel = fake.add_channel(f"table-{n}")
            host, guest = fake.add_user(f"h{n}"), fake.add_user(f"g{n}")
            lobby = (await fake.slash(host, channel, "newgame", game="workshop")).message
            assert lobby is not None
            await fake.click(guest, lobby, "Join")
            await fake.click(host, lobby, "Start")
            await fake.wait_for(
                lambda c=channel: fake.threads(c) and turn_prompts(fake, fake.threads(c)[0]),
                timeout=30,
            )
            thread = fake.threads(channel)[0]
            prompt = turn_prompts(fake, thread)[-1]
            players.append((host if str(host.id) in prompt.content else guest, prompt))

        async def play(index: int) -> None:
            user, prompt = players[index]
            panel = (await fake.click(user, prompt, "Take your turn")).message
            while panel is not None:
                choices = [b["custom_id"] for b in panel.buttons() if b["custom_id"][:4] == "act:"]
                if not choices:
                    return
                result = await fake.click(user, panel, choices[0])
                panel = result.message if result.callback_type == 7 else None

        burst = [asyncio.create_task(play(i)) for i in range(3)]
        await asyncio.sleep(0.3)
        process.send_signal(signal.SIGINT)
        started = time.perf_counter()
        status = await asyncio.wait_for(process.wait(), 120)
        print(f"  during a burst of moves: {time.perf_counter() - started:.2f} s, exit {status}")
        await asyncio.gather(*burst, return_exceptions=True)


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        print(f"REST pacing: {args.posts} posts at once over {args.channels} channels")
        for budget in (0, args.budget):
            most, took = await flood(args.posts, args.channels, budget, folder)
            label = "unpaced" if not budget else f"REST_BUDGET_PER_SECOND={budget:g}"
            print(f"  {label}: at most {most} requests in a second, flood took {took:.2f} s")
        print("Stopping bot.py with Ctrl-C (signal to exit)")
        await stop_times(args.stops, folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--channels", type=int, default=20)
    parser.add_argument("--budget", type=float, default=45)
    parser.add_argument("--stops", type=int, default=3)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
