"""How to play, on Discord: the button on a player's panel (Santa's Workshop), on the
Tonttu panel and in the Tonttu DM answers, for the clicker alone and in their language,
with the legend of the game and its current phase (``engine.guide``); a guide button
forged onto a message gets a sentence."""

from __future__ import annotations

from pathlib import Path

import i18n
from engine.guide import FIRST_PICK

from .bot_helpers import make_bot, open_panel, open_table, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .tonttu_helpers import dm_panel, open_tonttu, status_message

SEED = 20261201


def guide_of(message: FakeMessage) -> str:
    """The custom_id of the message's How to play button (there is exactly one)."""
    (found,) = [b for b in message.buttons() if b["custom_id"].startswith("guide:")]
    return str(found["custom_id"])


async def open_own_panel(
    fake: FakeDiscord, users: list[FakeUser], thread: object
) -> tuple[FakeUser, FakeMessage]:
    """The panel of whoever is to act (the first player is drawn from the seed)."""
    prompt = turn_prompts(fake, thread)[-1].content
    acting = next(u for u in users if str(u.id) in prompt)
    opened = await open_panel(fake, acting, thread)
    assert opened.ephemeral and opened.message is not None
    return acting, opened.message


async def test_the_workshop_panel_explains_the_game_to_its_player_alone(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice, bob, eve = (fake.add_user(n) for n in ("alice", "bob", "eve"))
    hans = fake.add_user("hans", locale="de")
    await open_table(fake, alice, [bob, hans])
    (thread,) = fake.threads(fake.channel)
    acting, panel = await open_own_panel(fake, [alice, bob, hans], thread)

    answer = await fake.click(acting, panel, guide_of(panel))
    assert answer.ephemeral and answer.message is not None
    (embed,) = answer.message.embeds
    words = i18n.words("de" if acting is hans else "en")
    assert embed["title"] == words.gettext("How to play Santa's Workshop")
    if acting is not hans:
        text = embed["description"]
        assert "Now: place an Elf" in text  # the phase the player is in
        assert "Inspections after Day 3 and Day 6" in text
        assert "different names" in text and "first player (\\*)" in text  # "*" escaped

    # a player waiting for another sees it too, in their own language
    waiting = next(u for u in (alice, bob, hans) if u is not acting)
    theirs = (await open_panel(fake, waiting, thread)).message
    assert theirs is not None and "Waiting for" in theirs.text()
    told = await fake.click(waiting, theirs, guide_of(theirs))
    assert told.ephemeral and told.message is not None
    lang = "de" if waiting is hans else "en"
    title = i18n.words(lang).gettext("How to play Santa's Workshop")
    assert told.message.embeds[0]["title"] == title

    # a guide button for another game, or one never on the message: a sentence
    for user, message, custom_id in (
        (acting, panel, "guide:999"),
        (eve, turn_prompts(fake, thread)[-1], guide_of(panel)),
    ):
        forged = await fake.forge_click(user, message, custom_id)
        assert forged.ephemeral and "don't recognise that button" in forged.content


async def test_the_tonttu_dm_and_panel_explain_the_game(fake: FakeDiscord, tmp_path: Path) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    users = [fake.add_user(n) for n in ("aino", "bo", "cai")]
    thread = await open_tonttu(fake, users[0], users[1:])
    await fake.settle()
    dm = dm_panel(fake, users[0], 1, "pick", dms_only=True)
    assert dm is not None
    assert FIRST_PICK in dm.content  # round 1: what a pick is for, once
    answer = await fake.click(users[0], dm, guide_of(dm))
    assert answer.ephemeral and answer.message is not None
    (embed,) = answer.message.embeds
    assert embed["title"] == "How to play Workshop Tonttu"
    assert "Now: pick one card of your hand" in embed["description"]
    assert "\\[1:#\\]" in embed["description"] or "[1:#]" in embed["description"]

    opened = await fake.click(users[1], status_message(fake, thread), "Choose privately")
    assert opened.ephemeral and opened.message is not None
    told = await fake.click(users[1], opened.message, guide_of(opened.message))
    assert told.ephemeral and told.message is not None
    assert told.message.embeds[0]["title"] == "How to play Workshop Tonttu"
