"""Computer seats at a Discord table: added from the lobby's menu, each
plays at the level chosen for it, from its own view only, after the human's answer, and
a game with them replays exactly (their moves are seeded by the game's seed and version)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import engine.ai
from engine.core import Rng, derive_seed
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP

from .bot_helpers import add_computer, make_bot, open_panel, shown_scores
from .fake_discord import FakeDiscord
from .tonttu_helpers import choose_privately

SEED = 424242


def act_buttons(message) -> list[dict]:  # type: ignore[no-untyped-def]
    return [b for b in message.buttons() if b["custom_id"].startswith("act:")]


async def test_a_workshop_game_against_a_computer_matches_the_engine(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice = fake.add_user("alice")
    lobby = (await fake.slash(alice, fake.channel, "newgame", game="workshop")).message
    assert lobby is not None
    await add_computer(fake, alice, lobby, "greedy")
    await add_computer(fake, alice, lobby, "random")
    assert "2. AI 1 (computer, normal)" in lobby.text()
    assert "3. AI 2 (computer, easy)" in lobby.text()
    await fake.click(alice, lobby, "Start")
    (thread,) = fake.threads(fake.channel)

    levels = {"ai:1": "greedy", "ai:2": "random"}
    players = [str(alice.id), *levels]
    state = WORKSHOP.new_game(players, SEED, WORKSHOP.parse_options({}))
    rng = Rng(5)
    version = 0
    suggested_seen = 0
    panel = None
    while WORKSHOP.outcome(state) is None:
        (player,) = WORKSHOP.to_act(state)
        if player in levels:  # the bot's computer seat, replayed here at its own level
            seed = derive_seed(SEED, version, player)
            action = engine.ai.choose(WORKSHOP, state, player, levels[player], seed)
        else:
            if panel is None or not act_buttons(panel):
                await fake.wait_for(
                    lambda: any(
                        f"<@{alice.id}>: it's your turn" in m.content
                        for m in fake.messages(thread)[-3:]
                    ),
                    timeout=10,
                    what="alice's turn prompt",
                )
                panel = (await open_panel(fake, alice, thread)).message
                assert panel is not None
            buttons = act_buttons(panel)
            legal = WORKSHOP.legal_actions(state, player)
            assert len(buttons) == len(legal), panel.text()
            suggested_seen += sum(1 for b in buttons if b["label"].startswith("★"))
            index = rng.below(len(legal))
            panel = (await fake.click(alice, panel, buttons[index]["custom_id"])).message
            action = legal[index]
        state, _ = WORKSHOP.apply(state, player, action)
        version += 1

    outcome = WORKSHOP.outcome(state)
    assert outcome is not None and suggested_seen > 10  # the one-click default is offered
    await fake.wait_for(
        lambda: any("final scores" in m.text() for m in fake.messages(thread)),
        timeout=20,
        what="the final scores",
    )
    final = next(m for m in fake.messages(thread) if "final scores" in m.text())
    shown = shown_scores(final)
    assert shown["alice"] == outcome.scores[players[0]]
    assert shown["AI 1"] == outcome.scores["ai:1"]
    assert shown["AI 2"] == outcome.scores["ai:2"]


async def poll(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait until the stored game says so (the computers move after the human's answer)."""
    deadline = asyncio.get_running_loop().time() + 15
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_computers_choose_in_tonttu_and_only_the_human_is_waited_for(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice = fake.add_user("alice", dms_open=False)
    result = await fake.slash(alice, fake.channel, "newgame", game="tonttu")
    lobby = result.message
    assert lobby is not None
    await add_computer(fake, alice, lobby, "random")
    await add_computer(fake, alice, lobby, "random")
    assert lobby.text().count("(computer, easy)") == 2
    await fake.click(alice, lobby, "Start")
    (thread,) = fake.threads(fake.channel)
    me = str(alice.id)

    async def waiting() -> set[str]:
        game = await bot.store.find_open(fake.channel.id)
        assert game is not None
        return set(TONTTU.to_act(game.state))

    async def only_alice_waits() -> bool:
        return await waiting() == {me}

    for _ in range(6):  # three rounds of a pick and a point: each time the computers
        await poll(only_alice_waits, "the computers' choices")  # have chosen already
        game = await bot.store.find_open(fake.channel.id)
        assert game is not None
        state = game.state
        heading = f"Round {state.round} {'picks' if state.phase == 'pick' else 'points'}"
        await choose_privately(fake, alice, thread, state, TONTTU.legal_actions(state, me)[0])
        await fake.wait_for(
            lambda heading=heading: any(heading in m.content for m in fake.messages(thread)),
            timeout=15,
            what=heading,
        )
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None and game.version >= 18  # 3 rounds × 2 phases × 3 seats
