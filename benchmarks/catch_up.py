"""Catching up after a stop: the real bot restarts over many stored active games, some of
whose last moves were never shown (the process died between commit and post).

    python -m benchmarks.catch_up [--games 1000] [--behind 100]

``--games`` Santa's Workshop games (three human seats each, one channel each) are stored
with their threads fully shown; then, with no bot running, the turn passes once in
``--behind`` of them (committed straight into storage). The bot starts; the figures are
the time from the start to the gateway being ready, and from ready to every game's
thread showing its stored state (its board edited, the log and the prompt posted), with
the REST requests that took and the most made in any one second (Discord allows 50 per
second per bot, interaction callbacks aside). The fake Discord shares this process and
its event loop with the bot; its validation of every body is off (it would time itself).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from pathlib import Path

import storage
from engine import get_game
from engine.core import Rng
from tables.publishing import Publisher
from tests.e2e.bot_helpers import make_bot
from tests.e2e.fake_discord import FakeDiscord


async def store_games(fake: FakeDiscord, url: str, games: int, behind: int) -> list[int]:
    """``games`` started games, shown up to date; the turn then passes in ``behind``."""
    users = [fake.add_user(f"player{i}") for i in range(3)]
    rng = Rng(7)
    ids = []
    async with await storage.open(url) as store:
        for i in range(games):
            channel = fake.add_channel(f"table-{i}")
            game = await store.create_lobby(
                guild_id=fake.guild.id,
                channel_id=channel.id,
                kind="workshop",
                options=None,
                host_id=users[0].id,
                host_name=users[0].name,
            )
            for user in users[1:]:
                await store.join(game.id, user.id, user.name)
            game = await store.start(game.id, 1000 + i)
            await store.set_thread(game.id, channel.id)
            board = fake._new_message(channel, {"content": "", "embeds": [{"title": "board"}]})
            await store.set_marks(
                game.id,
                {"board": (int(board["id"]), 0), "log": (None, 0), "prompt": (None, 0)},
            )
            ids.append(game.id)
        for game_id in ids[:behind]:  # the turn passes; its posts were lost
            game = await store.load(game_id)
            rules = get_game(game.kind)
            first = rules.to_act(game.state)
            while rules.to_act(game.state) & first:
                player = sorted(rules.to_act(game.state))[0]
                legal = rules.legal_actions(game.state, player)
                await store.submit(game_id, player, legal[rng.below(len(legal))], game.version)
                game = await store.load(game_id)
    return ids


async def run(games: int, behind: int) -> None:
    folder = Path(tempfile.mkdtemp())
    url = f"sqlite:///{folder}/catch_up.db"
    async with FakeDiscord(validate_spec=False) as fake:
        setup = time.perf_counter()
        await store_games(fake, url, games, behind)
        print(
            f"stored {games} active games ({behind} behind) in {time.perf_counter() - setup:.1f} s"
        )
        first_request = len(fake.requests)
        loop = asyncio.get_running_loop()
        start = loop.time()
        bot = await fake.start_bot(make_bot(fake, url, seed=1))
        ready = loop.time()
        while True:
            infos = await bot.store.list_games(statuses=["active"])
            late = sum(map(Publisher.behind, infos))
            if not late:
                break
            if loop.time() - ready > 300:
                raise SystemExit(f"{late} games still behind after 300 s")
            await asyncio.sleep(0.05)
        done = loop.time()
        requests = [
            r
            for r in fake.requests[first_request:]
            if not r.path.startswith(("/interactions/", "/webhooks/"))
            and r.at >= ready
            and r.at <= done
        ]
        per_second = Counter(int(r.at - ready) for r in requests)
        limited = sum(1 for r in requests if r.status == 429)
        posts = sum(1 for r in requests if r.method == "POST" and r.path.endswith("/messages"))
        edits = sum(1 for r in requests if r.method == "PATCH")
        await fake.stop_bot(bot)
    print(f"start → gateway ready:        {ready - start:6.2f} s")
    print(f"ready → every table caught up: {done - ready:6.2f} s")
    print(
        f"REST requests while catching up: {len(requests)} ({posts} posts, {edits} edits), "
        f"at most {max(per_second.values(), default=0)} in one second, {limited} answered 429"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--behind", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.behind))


if __name__ == "__main__":
    main()
