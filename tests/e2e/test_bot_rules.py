"""/rules on the fake Discord: the menu Discord shows holds every topic, each answer is
one private embed within Discord's limits (the fake refuses anything over them), in a
server channel and in a game's thread."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cogs.helpers.rules_text import RULE_TOPICS, rules_summary

from .bot_helpers import make_bot, open_table
from .fake_discord import FakeDiscord


def synced_topics(fake: FakeDiscord) -> dict[str, str]:
    """The /rules topic menu as Discord stores it after the bot's sync: value → name."""
    commands: list[dict[str, Any]] = list(fake.global_commands)
    for stored in fake.guild_commands.values():
        commands += stored
    (rules,) = [c for c in commands if c["name"] == "rules"]
    (topic,) = rules["options"]
    assert topic["name"] == "topic" and not topic.get("required")
    return {choice["value"]: choice["name"] for choice in topic["choices"]}


async def test_rules_answers_every_topic_privately_in_one_embed(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))
    alice = fake.add_user("alice")
    topics = synced_topics(fake)
    assert topics == RULE_TOPICS

    listing = await fake.slash(alice, fake.channel, "rules")
    assert listing.callback_type == 4 and listing.ephemeral and listing.message is not None
    (embed,) = listing.message.embeds
    assert embed["title"] == "Rules"
    for name in topics.values():
        assert name.split(": ", 1)[1] in embed["description"]

    for value, name in topics.items():
        answer = await fake.slash(alice, fake.channel, "rules", topic=value)
        assert answer.callback_type == 4 and answer.ephemeral and answer.message is not None
        (embed,) = answer.message.embeds
        assert embed["title"] == name
        assert embed["description"] == rules_summary(value)
        assert not re.search(r"\b[WT]-\d", answer.text)  # no rule ids anywhere on screen


async def test_rules_in_a_game_thread_is_private_and_leaves_the_game_alone(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=3))
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await open_table(fake, alice, [bob, carol], game="tonttu")
    (thread,) = fake.threads(fake.channel)
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    posts = len(fake.messages(thread))

    answer = await fake.slash(bob, thread, "rules", topic="resolve")
    assert answer.ephemeral and answer.message is not None
    (embed,) = answer.message.embeds
    assert "face down by default" in embed["description"]
    assert "you may instead choose face up" in embed["description"]
    assert len(fake.messages(thread)) == posts  # nothing posted for everyone
    after = await bot.store.find_open(fake.channel.id)
    assert after is not None and after.version == game.version
