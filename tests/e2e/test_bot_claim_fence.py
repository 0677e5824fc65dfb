"""A round that lost its game's publishing claim writes nothing more, not even the
attempt discord.py makes again after a 429 or a 5xx (found by the chaos soak,
``benchmarks/chaos.py``: a board went back from move 33 to 32, and the Tonttu status
line's edit was not fenced at all)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine import get_game
from engine.tonttu import GAME
from tables.publishing import ClaimLost

from .bot_helpers import make_bot, open_table
from .fake_discord import FakeDiscord
from .tonttu_helpers import choose_by_dm, open_tonttu, status_message


async def test_a_round_that_lost_its_claim_does_not_edit_the_status(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db", seed=77))
    alice, bob, carol = (fake.add_user(name) for name in ("alice", "bob", "carol"))
    thread = await open_tonttu(fake, alice, [bob, carol])
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    status = status_message(fake, thread)
    versions = len(status.history)

    async def lost(game_id: int, version: int) -> None:
        raise ClaimLost(game_id)

    monkeypatch.setattr(bot.publisher, "confirm", lost)
    a = str(alice.id)
    await choose_by_dm(fake, alice, game.state, GAME.legal_actions(game.state, a)[0])
    with pytest.raises(ClaimLost):
        await bot.publisher.sync(game.id, flush=True)
    assert len(status.history) == versions and "Chosen: alice" not in status.content

    monkeypatch.undo()  # the claim is back: the next round shows the choice
    await bot.publisher.sync(game.id, flush=True)
    await fake.settle()
    assert "Chosen: alice" in status.content


async def test_an_edit_sent_again_after_a_429_is_not_sent_once_a_newer_move_was_shown(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await fake.start_bot(make_bot(fake, f"sqlite:///{tmp_path}/bot.db"))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, board = await open_table(fake, alice, [bob])
    game = await bot.store.find_open(fake.channel.id)
    assert game is not None
    rules = get_game(game.kind)
    (player,) = rules.to_act(game.state)
    await bot.store.submit(game.id, player, rules.legal_actions(game.state, player)[0], 0)
    # the board's edit to move 1 is answered 429: discord.py sends it again in 1 s
    fake.inject("rate_limit", method="PATCH", route=f"/channels/{{c}}/messages/{board.id}",
                retry_after=1.0, times=1)  # fmt: skip
    edits = len(board.history)
    syncing = asyncio.ensure_future(bot.publisher.sync(game.id, flush=True))
    await fake.wait_for(lambda: fake.failed_requests(), what="the 429")
    # meanwhile its claim lapsed (renewals that failed) and another process showed move 2
    bot.publisher._held[game.id] -= 60
    bot.publisher._gaps.add(game.id)
    await bot.store.set_marks(game.id, {"board": (None, 2)})
    with pytest.raises(ClaimLost):
        await syncing
    await asyncio.sleep(1.5)  # past discord.py's wait: no second attempt came
    assert len(board.history) == edits
