"""A refused DM is not tried again for the rest of the game (each refusal is
a 403 that Discord counts against the bot), the player is told once in the thread,
and can ask for DMs again from their private panel."""

from __future__ import annotations

from pathlib import Path

from engine.tonttu import GAME

from .bot_helpers import make_bot
from .fake_discord import FakeDiscord, FakeUser
from .tonttu_helpers import (
    choice_select,
    choose_by_dm,
    choose_privately,
    open_tonttu,
    status_message,
)

SEED = 20261201
DMS_CLOSED = 50007


def refused_dms(fake: FakeDiscord, user: FakeUser) -> int:
    """DM posts to ``user`` that Discord refused."""
    channel = fake.dm_channel(user)
    if channel is None:
        return 0
    return sum(
        1
        for r in fake.failed_requests()
        if r.method == "POST" and r.path == f"/channels/{channel.id}/messages"
    )


async def play_phase(fake: FakeDiscord, bot: object, users: list[FakeUser], thread: object) -> None:
    game = await bot.store.find_open(fake.channel.id)  # type: ignore[attr-defined]
    state = game.state
    for user in users:
        player = str(user.id)
        action = GAME.legal_actions(state, player)[0]
        if choice_select_dm(fake, user, state):
            await choose_by_dm(fake, user, state, action)
        else:
            await choose_privately(fake, user, thread, state, action)
    await fake.settle()


def choice_select_dm(fake: FakeDiscord, user: FakeUser, state: object) -> bool:
    return any(
        choice_select(m, state.round, state.phase)  # type: ignore[attr-defined]
        for m in fake.dm_messages(user)
    )


async def test_a_refused_dm_is_tried_once_told_once_and_can_be_asked_for_again(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path}/bot.db"
    bot = await fake.start_bot(make_bot(fake, url, seed=SEED))
    users = [fake.add_user(n, dms_open=n != "dave") for n in ("alice", "bob", "carol", "dave")]
    dave = users[-1]
    thread = await open_tonttu(fake, users[0], users[1:])
    await fake.settle()
    assert refused_dms(fake, dave) == 1
    assert "I could not send a DM to dave" in status_message(fake, thread).content

    # three more phases (and a restart): no more attempts, and no more telling
    for phase in range(3):
        await play_phase(fake, bot, users, thread)
        if phase == 1:
            await fake.stop_bot(bot)
            bot = await fake.start_bot(make_bot(fake, url, seed=SEED))
            await fake.settle()
        assert "could not send a DM" not in status_message(fake, thread).content
    assert refused_dms(fake, dave) == 1

    # dave asks for DMs again while they are still closed: told how to open them
    opened = await fake.click(dave, status_message(fake, thread), "Choose privately")
    assert opened.message is not None
    again = await fake.click(dave, opened.message, "Send my choices by DM again")
    assert "I still cannot send you a DM" in again.text
    assert refused_dms(fake, dave) == 2
    # then opens them and asks again: the current choices come by DM, and so do the next
    fake.set_dms_open(dave, True)
    opened = await fake.click(dave, status_message(fake, thread), "Choose privately")
    assert opened.message is not None
    again = await fake.click(dave, opened.message, "Send my choices by DM again")
    assert "I sent your choices by DM" in again.text
    game = await bot.store.find_open(fake.channel.id)
    assert choice_select_dm(fake, dave, game.state)
    await play_phase(fake, bot, users, thread)
    game = await bot.store.find_open(fake.channel.id)
    assert choice_select_dm(fake, dave, game.state)  # the next phase's DM
    assert refused_dms(fake, dave) == 2
    # the panel of a player whose DMs work has no such button
    opened = await fake.click(users[0], status_message(fake, thread), "Choose privately")
    assert opened.message is not None
    assert "Send my choices by DM again" not in opened.message.button_labels()
    await fake.stop_bot(bot)
