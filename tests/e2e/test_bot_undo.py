"""/undo and the panel's Undo button (``engine/undo.py``) on the fake Discord:
a Santa's Workshop decision taken back and shown in the thread, and every refusal (a
spectator, the other player, after another player moved, after a card was drawn, a
stale or forged button, Workshop Tonttu after a reveal) changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import storage
from bot import WorkshopBot
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME
from engine.workshop.models import PlaceElf, TakeToy
from storage import LoadedGame

from .bot_helpers import make_bot, open_panel, open_table, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser
from .tonttu_helpers import choose_by_dm, open_tonttu

ASSEMBLY = PlaceElf(station="assembly")  # W-3: every toy needs Assembly: tokens wait


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> WorkshopBot:
    return await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=11))


async def stored(bot: WorkshopBot, fake: FakeDiscord) -> LoadedGame:
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    return game


async def table(fake: FakeDiscord) -> tuple[FakeUser, FakeUser, FakeUser, Any]:
    """Alice and Bob play; Eve watches. Returns (acting, waiting, eve, thread)."""
    alice, bob, eve = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("eve")
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    first = turn_prompts(fake, thread)[-1]
    acting, waiting = (alice, bob) if str(alice.id) in first.content else (bob, alice)
    return acting, waiting, eve, thread


def undo_buttons(message: FakeMessage) -> list[str]:
    return [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("undo:")]


async def play(
    fake: FakeDiscord, bot: WorkshopBot, user: FakeUser, panel: FakeMessage, action: Any
) -> FakeMessage:
    """Click the panel's button for ``action`` (found in the stored game's legal list)."""
    game = await stored(bot, fake)
    index = list(GAME.legal_actions(game.state, str(user.id))).index(action)
    result = await fake.click(user, panel, f"act:{game.id}:{game.version}:{index}")
    assert result.callback_type == 7 and result.message is not None, result.text
    return result.message


async def test_a_decision_is_taken_back_with_the_button_and_shown_in_the_thread(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    acting, _waiting, _eve, thread = await table(fake)
    start = await stored(bot, fake)
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None and undo_buttons(panel) == []  # nothing to take back yet

    panel = await play(fake, bot, acting, panel, ASSEMBLY)
    assert undo_buttons(panel) == [f"undo:{start.id}:1"]
    result = await fake.click(acting, panel, f"undo:{start.id}:1")
    assert result.callback_type == 7 and result.ephemeral
    assert "You took back: place an Elf at the Assembly Hall (1st space)" in result.content
    game = await stored(bot, fake)
    assert (game.version, game.state) == (2, start.state)  # the version only grows
    log = await bot.store.log(game.id)
    assert [dict(e.action) for e in log][-1] == {"kind": "undo", "seq": 1}
    assert all(r.ok for r in await bot.store.check_all())
    await fake.wait_for(
        lambda: any(
            "alice took back: places an Elf at the Assembly Hall" in m.content
            or "bob took back: places an Elf at the Assembly Hall" in m.content
            for m in fake.messages(thread)
        ),
        timeout=10,
        what="the public 'took back' line",
    )
    assert result.message is not None and undo_buttons(result.message) == []

    # /undo does the same by typing
    panel = await play(fake, bot, acting, result.message, ASSEMBLY)
    typed = await fake.slash(acting, thread, "undo")
    assert typed.ephemeral and "You took back: place an Elf" in typed.content
    assert (await stored(bot, fake)).version == 4


async def test_refusals_change_nothing(fake: FakeDiscord, bot: WorkshopBot) -> None:
    acting, waiting, eve, thread = await table(fake)
    nothing = await fake.slash(acting, thread, "undo")
    assert nothing.ephemeral and "Nothing has been played yet" in nothing.content

    first = (await open_panel(fake, acting, thread)).message
    assert first is not None
    await play(fake, bot, acting, first, ASSEMBLY)
    # two panels drawn at version 1, both with the Undo button
    panel_a = (await open_panel(fake, acting, thread)).message
    panel_b = (await open_panel(fake, acting, thread)).message
    assert panel_a is not None and panel_b is not None
    game = await stored(bot, fake)
    assert undo_buttons(panel_a) == undo_buttons(panel_b) == [f"undo:{game.id}:1"]

    spectator = await fake.slash(eve, thread, "undo")
    assert spectator.ephemeral and "not playing in this game" in spectator.content
    other = await fake.slash(waiting, thread, "undo")
    assert other.ephemeral and "Another player has moved since" in other.content
    assert (await stored(bot, fake)).version == 1

    # a forged Undo button (on a panel the user can see) and a garbled one
    forged = await fake.forge_click(acting, panel_a, f"undo:{game.id}:notanumber")
    assert forged.ephemeral and "don't recognise that button" in forged.content
    assert (await stored(bot, fake)).version == 1

    await fake.click(acting, panel_a, f"undo:{game.id}:1")
    assert (await stored(bot, fake)).version == 2
    stale = await fake.click(acting, panel_b, f"undo:{game.id}:1")
    assert stale.message is not None and "The board has changed" in stale.message.content
    assert (await stored(bot, fake)).version == 2

    # the turn passes: nothing to take back, for either player
    panel = await play(fake, bot, acting, stale.message, ASSEMBLY)
    game = await stored(bot, fake)
    while GAME.to_act(game.state) == {str(acting.id)}:
        panel = await play(
            fake, bot, acting, panel, GAME.legal_actions(game.state, str(acting.id))[0]
        )
        game = await stored(bot, fake)
    passed = await fake.slash(acting, thread, "undo")
    assert passed.ephemeral and "Your turn has passed" in passed.content

    # after another player acted
    other_panel = (await open_panel(fake, waiting, thread)).message
    assert other_panel is not None
    await play(fake, bot, waiting, other_panel, ASSEMBLY)
    after = await fake.slash(acting, thread, "undo")
    assert after.ephemeral and "Another player has moved since" in after.content
    assert (await stored(bot, fake)).version == game.version + 1


async def test_a_toy_card_drawn_cannot_be_taken_back(fake: FakeDiscord, bot: WorkshopBot) -> None:
    acting, _waiting, _eve, thread = await table(fake)
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    panel = await play(fake, bot, acting, panel, PlaceElf(station="mail3"))
    assert undo_buttons(panel)  # placing the Elf itself drew nothing
    panel = await play(fake, bot, acting, panel, TakeToy(slot=0))  # W-3.3: the slot refills
    assert undo_buttons(panel) == []
    version = (await stored(bot, fake)).version
    refused = await fake.slash(acting, thread, "undo")
    assert refused.ephemeral and "drew or revealed a card" in refused.content
    assert (await stored(bot, fake)).version == version


async def test_workshop_tonttu_refuses_an_undo_before_and_after_the_reveal(
    fake: FakeDiscord, bot: WorkshopBot
) -> None:
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    thread = await open_tonttu(fake, users[0], users[1:])
    game = await stored(bot, fake)
    state = game.state
    await choose_by_dm(fake, users[0], state, TONTTU.legal_actions(state, str(users[0].id))[0])
    before = await fake.slash(users[0], thread, "undo")
    assert before.ephemeral and "choosing again until everyone has chosen" in before.content
    for user in users[1:]:  # T-2.1: the last pick reveals them all
        await choose_by_dm(fake, user, state, TONTTU.legal_actions(state, str(user.id))[0])
    game = await stored(bot, fake)
    assert game.state.phase != state.phase or game.state.round != state.round
    after = await fake.slash(users[2], thread, "undo")
    assert after.ephemeral and "once they are revealed nothing can be taken back" in after.content
    assert (await stored(bot, fake)).version == game.version


async def test_an_undo_button_drawn_before_a_restart_works_after_it(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path}/restart.db"
    bot = await fake.start_bot(make_bot(fake, url, seed=11))
    acting, _waiting, _eve, thread = await table(fake)
    start = await stored(bot, fake)
    panel = (await open_panel(fake, acting, thread)).message
    assert panel is not None
    panel = await play(fake, bot, acting, panel, ASSEMBLY)
    await fake.stop_bot(bot)

    # a new process: no caches; the history is replayed from the stored log
    bot = await fake.start_bot(make_bot(fake, url, seed=11))
    result = await fake.click(acting, panel, f"undo:{start.id}:1")
    assert result.callback_type == 7 and "You took back" in result.content
    game = await stored(bot, fake)
    assert (game.version, game.state) == (2, start.state)
    await fake.wait_for(
        lambda: any("took back: places an Elf" in m.content for m in fake.messages(thread)),
        timeout=10,
        what="the public 'took back' line",
    )
    for _ in range(200):  # the board is edited a moment after the move (BOARD_DELAY)
        if (await bot.store.info(game.id)).shown_versions.get("board") == 2:
            break
        await asyncio.sleep(0.05)
    await fake.stop_bot(bot)
    async with await storage.open(url) as store:
        info = await store.info(game.id)
        assert info.shown_versions["board"] == 2 and info.shown_versions["log"] == 2
        assert all(r.ok for r in await store.check_all())
