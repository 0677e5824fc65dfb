"""A whole game of Santa's Workshop played only through what users can do, and checked
against the engine playing the same choices on its own (W-1 … W-6 end to end)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from engine.core import Rng
from engine.workshop import COMPONENTS, GAME
from engine.workshop.models import WorkshopState

from .bot_helpers import make_bot, open_panel, open_table, shown_scores, turn_prompts
from .fake_discord import FakeDiscord, FakeMessage, FakeUser

SEED = 20261201


def panel_choices(message: FakeMessage) -> list[str]:
    """The custom_ids of a private panel's choices, in the order the bot listed them."""
    buttons = [b["custom_id"] for b in message.buttons() if b["custom_id"].startswith("act:")]
    if buttons:
        return buttons
    return [
        f"{select['custom_id']}={option['value']}"
        for select in message.selects()
        for option in select["options"]
    ]


async def choose(fake: FakeDiscord, user: FakeUser, panel: FakeMessage, choice: str) -> FakeMessage:
    if "=" in choice:
        custom_id, value = choice.split("=")
        result = await fake.select(user, panel, custom_id, [value])
    else:
        result = await fake.click(user, panel, choice)
    assert result.callback_type == 7 and result.ephemeral, result.text
    assert result.message is not None
    return result.message


async def play_to_the_end(
    fake: FakeDiscord,
    thread: Any,
    by_player: dict[str, FakeUser],
    seed: int,
    rng: Rng,
    open_own_panel: Callable[[FakeDiscord, FakeUser, Any], Awaitable[FakeMessage]],
) -> tuple[WorkshopState, int]:
    """Every seat makes random legal choices on its private panel (opened with
    ``open_own_panel``) while the engine, on its own and from the bot's ``seed``, follows
    the same choices; returns the engine's final state and the number of moves."""
    state = GAME.new_game(list(by_player), seed, GAME.parse_options({}))
    panels: dict[str, FakeMessage] = {}
    moves = 0
    while GAME.outcome(state) is None:
        (player,) = GAME.to_act(state)
        user = by_player[player]
        panel = panels.get(player)
        if panel is None or not panel_choices(panel):
            panel = await open_own_panel(fake, user, thread)
        choices = panel_choices(panel)
        legal = GAME.legal_actions(state, player)
        assert len(choices) == len(legal), panel.text()
        index = rng.below(len(legal))
        panels[player] = await choose(fake, user, panel, choices[index])
        state, _events = GAME.apply(state, player, legal[index])
        moves += 1
    return state, moves


async def open_english_panel(fake: FakeDiscord, user: FakeUser, thread: Any) -> FakeMessage:
    opened = await open_panel(fake, user, thread)  # "Take your turn", by its label
    assert opened.ephemeral
    assert opened.message is not None
    return opened.message


def assert_reindeer_names_stay_private(
    fake: FakeDiscord, by_player: dict[str, FakeUser], results: dict[str, Any]
) -> None:
    """W-7.2: until the final scores, no public text names a held reindeer. The stalls
    are public (W-7.1), so the board's Stables line is the one place names may appear."""
    names = set(COMPONENTS.reindeer_names)
    for text in fake.public_texts():
        if "final scores" in text:
            continue
        public = "\n".join(line for line in text.splitlines() if not line.startswith("Stables:"))
        leaked = {name for name in names if name in public}
        assert not leaked, f"reindeer names {leaked} in a public message: {public[:300]}"
    # while each owner was shown their own (in their private panel)
    for player, user in by_player.items():
        held = results[player]["reindeer"]
        if held:
            seen = "\n".join(fake.texts_seen_by(user))
            assert all(name in seen for name in held)


async def test_a_three_player_game_from_newgame_to_final_scores(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    users = [fake.add_user(name) for name in ("alice", "bob", "carol")]
    by_player = {str(user.id): user for user in users}
    await open_table(fake, users[0], users[1:])
    (thread,) = fake.threads(fake.channel)

    # The engine, on its own, follows the same choices.
    state, moves = await play_to_the_end(fake, thread, by_player, SEED, Rng(99), open_english_panel)

    outcome = GAME.outcome(state)
    assert outcome is not None and moves > 100
    assert_reindeer_names_stay_private(fake, by_player, outcome.model_dump()["players"])
    await fake.wait_for(
        lambda: any("final scores" in m.text() for m in fake.messages(thread)),
        timeout=10,
        what="the final scores",
    )
    final = next(m for m in fake.messages(thread) if "final scores" in m.text())
    shown = shown_scores(final)
    assert shown == {by_player[p].name: score for p, score in outcome.scores.items()}
    winners = ", ".join(f"**{by_player[p].name}**" for p in outcome.winners)
    assert winners in final.text()
    # the final board stays, as the board message and with the final scores;
    # with the chart of how the game went (tests/e2e/test_bot_chart.py)
    attachment, chart = final.attachments
    assert final.embeds[0]["image"]["url"] == f"attachment://{attachment['filename']}"
    assert fake.files[int(attachment["id"])].startswith(b"\x89PNG")
    assert final.embeds[1]["image"]["url"] == f"attachment://{chart['filename']}"
    assert fake.files[int(chart["id"])].startswith(b"\x89PNG")
    board = next(m for m in fake.messages(thread) if m.embeds and "Move" in m.text())
    assert "Game over" in board.text() and board.attachments
    # the channel is free again
    again = await fake.slash(users[1], fake.channel, "newgame", game="workshop")
    assert not again.ephemeral


async def test_answered_panels_are_not_kept_by_discord_py(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Every button is dispatched by its custom_id, so no view of an answer stays in
    discord.py's view store. One that did (an ephemeral panel's: 15 minutes, with a task
    sleeping until then) piled up at tens of thousands on a busy bot, slowing every
    garbage collection, which pauses all tables. The panels still work after it."""
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    by_player = {str(alice.id): alice, str(bob.id): bob}
    await open_table(fake, alice, [bob])
    (thread,) = fake.threads(fake.channel)
    for _ in range(6):  # a panel opened, and a choice made on it, six times
        mentioned = turn_prompts(fake, thread)[-1].content.splitlines()[-1]
        (user,) = [u for p, u in by_player.items() if f"<@{p}>" in mentioned]
        opened = await open_panel(fake, user, thread)
        assert opened.ephemeral and opened.message is not None
        await choose(fake, user, opened.message, panel_choices(opened.message)[0])
        await fake.settle()
    store = bot._connection._view_store
    assert not store._views and not store._synced_message_views
    waiting = [t for t in asyncio.all_tasks() if "timeout_task" in repr(t.get_coro())]
    assert not waiting, f"{len(waiting)} views kept with a timeout task"


async def test_what_the_bot_loaded_is_left_out_of_garbage_collections(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Once started, the bot moves what it loaded (modules, classes, catalogues: most of
    what Python's garbage collector tracks) out of the collector's generations, so a
    full collection, a pause of every table, walks only what the games create."""
    gc.unfreeze()  # what an earlier test's bot froze
    await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=SEED))
    assert gc.get_freeze_count() > 10_000
