"""A Workshop Tonttu round that lost its game's publishing claim leaves the phase's
status message alone (found by the chaos soak, ``benchmarks/chaos.py``: the board's
edit was fenced, the status line's was not, so a round stalled past its lease could show
an older "Chosen:" over a newer one another process had shown)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.tonttu import GAME
from tables.publishing import ClaimLost

from .bot_helpers import make_bot
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
