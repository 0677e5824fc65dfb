"""The fake Discord's sharding: shard count from GET /gateway/bot, IDENTIFY bound to a
shard, a guild's events only to its shard, DMs to shard 0, several bots at once."""

from __future__ import annotations

import contextlib
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from .fake_discord import FakeDiscord


class ShardBot(commands.AutoShardedBot):
    """Answers /where with its name; records which guilds each of its shards was sent."""

    def __init__(self, name: str, *, sync: bool, **shards: Any) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), **shards)
        self.name, self.sync = name, sync
        self.seen_guilds: set[int] = set()

    async def setup_hook(self) -> None:
        @self.tree.command(name="where", description="Which bot process answers")
        @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
        async def where(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"{self.name}", ephemeral=True)

        if self.sync:
            await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return  # the fake has no identify rate limit worth waiting 5 s for

    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.seen_guilds.add(guild.id)

    async def on_guild_available(self, guild: discord.Guild) -> None:
        self.seen_guilds.add(guild.id)


async def test_guild_events_go_to_their_shard_and_dms_to_shard_zero() -> None:
    async with FakeDiscord(shard_count=3) as fake:
        guilds = [fake.add_guild(f"g{s}", owner=fake.owner, shard=s) for s in range(3)]
        assert [fake.shard_of(g) for g in guilds] == [0, 1, 2]
        zero = await fake.start_bot(ShardBot("zero", sync=True, shard_count=3, shard_ids=[0]))
        rest = await fake.start_bot(ShardBot("rest", sync=False, shard_count=3, shard_ids=[1, 2]))
        assert fake.readies == {0: 1, 1: 1, 2: 1}
        # READY and GUILD_CREATE only for the guilds of each connection's shard
        assert guilds[0].id in zero.seen_guilds and not zero.seen_guilds & {
            guilds[1].id,
            guilds[2].id,
        }
        assert {guilds[1].id, guilds[2].id} <= rest.seen_guilds
        assert guilds[0].id not in rest.seen_guilds
        for shard, guild in enumerate(guilds):
            user = fake.add_user(f"u{shard}", guild=guild)
            channel = fake.add_channel("general", guild=guild)
            answer = await fake.slash(user, channel, "where")
            assert answer.content == ("zero" if shard == 0 else "rest")
            # the same user in a DM: always shard 0
            assert (await fake.slash(user, fake.open_dm(user), "where")).content == "zero"
        # a guild that joins later goes to its shard's connection only
        late = fake.add_guild("late", owner=fake.owner, shard=2)
        await fake.settle()
        assert late.id in rest.seen_guilds and late.id not in zero.seen_guilds
        sent = {(shard, data.get("id")) for shard, event, data in fake.dispatched}
        assert (2, str(late.id)) in sent and (0, str(late.id)) not in sent


async def test_an_unsharded_auto_sharded_bot_runs_every_recommended_shard() -> None:
    async with FakeDiscord(shard_count=2, max_concurrency=2) as fake:
        bot = await fake.start_bot(ShardBot("all", sync=True))
        assert bot.shard_count == 2 and sorted(bot.shards) == [0, 1]
        assert fake.readies == {0: 1, 1: 1}
        await fake.stop_bot(bot)


async def test_identify_with_the_wrong_shard_count_is_refused() -> None:
    async with FakeDiscord(shard_count=2) as fake:
        bot = ShardBot("wrong", sync=False, shard_count=3, shard_ids=[0])
        with pytest.raises(discord.ConnectionClosed) as closed:  # 4010 Invalid shard
            await fake.start_bot(bot, timeout=5)
        assert closed.value.code == 4010
        with contextlib.suppress(discord.ConnectionClosed):  # its task ended with that error
            await fake.stop_bot(bot)
        (violation,) = fake.take_violations()
        assert violation.kind == "gateway" and "[0, 3]" in violation.message
