"""Start and stop a discord.py client against a :class:`FakeDiscord`.

discord.py 2.7 reaches Discord through two class attributes only, which
``FakeDiscord.patch_discord`` points at the fake: ``discord.http.Route.BASE`` (every REST
call, webhooks and interaction callbacks included) and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` (``Client.connect`` goes straight to
it; ``/gateway/bot`` is only asked by ``AutoShardedClient``; the resume URL comes from
READY's ``resume_gateway_url``, which is the fake too).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, TypeVar

import discord

if TYPE_CHECKING:
    from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)

# discord.py waits this long after the last GUILD_CREATE before "ready" (default 2 s);
# the fake sends every guild at once, so a short wait keeps bot start-up fast.
FAST_GUILD_READY_TIMEOUT = 0.05

_tasks: dict[int, asyncio.Task[None]] = {}


async def start_bot(fake: FakeDiscord, bot: ClientT, *, timeout: float = 10.0) -> ClientT:  # noqa: ASYNC109
    """Run ``bot.start(token)`` in a task and wait until the bot is ready (or fails)."""
    if fake.api_base != discord.http.Route.BASE:
        raise RuntimeError("discord.py is not pointed at this fake: use `async with FakeDiscord()`")
    state = bot._connection
    if state.guild_ready_timeout == 2.0:  # the library default: nobody chose a value
        state.guild_ready_timeout = FAST_GUILD_READY_TIMEOUT
    task = asyncio.create_task(bot.start(fake.token), name=f"bot-{id(bot)}")
    _tasks[id(bot)] = task
    fake._bots.append(bot)
    ready = asyncio.create_task(bot.wait_until_ready())
    done, _ = await asyncio.wait(
        {task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
    )
    if ready not in done:
        ready.cancel()
        if task in done:
            task.result()  # raises the start-up error
        await stop_bot(bot)
        raise TimeoutError(f"the bot was not ready after {timeout} s")
    await fake.settle()
    return bot


async def stop_bot(bot: discord.Client) -> None:
    """Close the bot (as Ctrl-C would) and wait for its task to end."""
    await bot.close()
    task = _tasks.pop(id(bot), None)
    if task is not None:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=10)
