"""cogs.helpers.visibility: the channels a member can see, from the bot's gateway cache."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot import WorkshopBot
from cogs.helpers.visibility import visible_channel_ids

from .bot_helpers import make_bot
from .fake_discord import FakeDiscord, FakeUser


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[WorkshopBot]:
    yield await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))


def asking(bot: WorkshopBot, fake: FakeDiscord, user: FakeUser) -> Any:
    """What an interaction of ``user`` in the fake's guild carries: the guild and the member."""
    guild = bot.get_guild(fake.guild.id)
    assert guild is not None
    member = discord.Member(
        data=fake._member_payload(user, fake.guild),  # type: ignore[arg-type]
        guild=guild,
        state=bot._connection,
    )
    return SimpleNamespace(guild=guild, user=member)


async def test_a_private_channel_is_visible_to_its_members_only(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    hideout = fake.add_channel("hideout")
    fake.make_private(hideout, alice)
    await fake.settle()
    assert visible_channel_ids(asking(bot, fake, alice)) >= {fake.channel.id, hideout.id}
    seen_by_bob = visible_channel_ids(asking(bot, fake, bob))
    assert fake.channel.id in seen_by_bob and hideout.id not in seen_by_bob


async def test_an_administrator_sees_every_channel(fake: FakeDiscord, bot: WorkshopBot) -> None:
    admin = fake.add_user("admin", roles=[fake.add_role("admins", administrator=True)])
    hideout = fake.add_channel("hideout")
    fake.make_private(hideout)
    await fake.settle()
    assert hideout.id in visible_channel_ids(asking(bot, fake, admin))


async def test_outside_a_server_no_channel_is_visible() -> None:
    assert visible_channel_ids(SimpleNamespace(guild=None, user=None)) == frozenset()  # type: ignore[arg-type]
