"""A round that lost its game's publishing claim writes nothing more (found by the chaos
soak, ``benchmarks/chaos.py``: a round stalled by ``pg_ctl stop`` could not renew its
claim, another process took it and showed move 14, and the stalled round then edited
the board back to move 13, where it stayed)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import storage
from engine import get_game
from tables.publishing import PUBLISH_LEASE, ClaimLost, Publisher


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


async def new_game(store: Any, channel: int = 1) -> int:
    lobby = await store.create_lobby(
        guild_id=1, channel_id=channel, kind="workshop", options={}, host_id=1, host_name="a"
    )
    await store.join(lobby.id, 2, "b")
    return int((await store.start(lobby.id, seed=3)).id)


def publisher(store: Any, owner: str) -> Publisher:
    async def english(guild: int | None) -> str:
        return "en"

    return Publisher(
        store, owner=owner, spawn=lambda work, name: work.close(), stopping=asyncio.Event(),
        lang_of=english,
    )  # fmt: skip


async def test_a_round_whose_claim_another_process_took_may_not_write(tmp_path: Path) -> None:
    clock = Clock()
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db", clock=clock) as store:
        first, second = publisher(store, "first"), publisher(store, "second")
        await first._hold(7, "publish:7")
        await first.confirm(7, 0)  # just claimed: nothing to ask
        # its renewals fail (the database away); the lease runs out and another takes it
        first._held[7] -= 60
        clock.now += PUBLISH_LEASE + timedelta(seconds=1)
        await second._hold(7, "publish:7")
        with pytest.raises(ClaimLost):
            await first.confirm(7, 0)
        await second.confirm(7, 0)


async def test_a_round_whose_claim_ran_out_unclaimed_takes_it_again(tmp_path: Path) -> None:
    clock = Clock()
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db", clock=clock) as store:
        game_id = await new_game(store)
        first = publisher(store, "first")
        await first._hold(game_id, f"publish:{game_id}")
        first._held[game_id] -= 60
        clock.now += PUBLISH_LEASE + timedelta(seconds=1)
        await first.confirm(game_id, 0)  # nobody showed anything meanwhile: ours again
        assert not await store.try_claim(f"publish:{game_id}", "second", PUBLISH_LEASE)


async def test_a_round_that_stalled_past_its_lease_may_not_show_an_older_version(
    tmp_path: Path,
) -> None:
    """Its process stalled (a starved event loop): another took the claim, showed a
    newer board and gave the claim back; the stalled round's renewal then succeeded."""
    clock = Clock()
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db", clock=clock) as store:
        game_id = await new_game(store)
        first = publisher(store, "first")
        await first._hold(game_id, f"publish:{game_id}")
        first._gaps.add(game_id)  # what _renew notes after a renewal that came too late
        await store.set_marks(game_id, {"board": (None, 15)})  # another process's round
        with pytest.raises(ClaimLost):
            await first.confirm(game_id, 14)
        await first.confirm(game_id, 15)  # the same version: nothing goes back
        # another game: a newer move stored, whose round showed it but could not write
        # its marks (the database went away right after its edit)
        other = await new_game(store, channel=2)
        await first._hold(other, f"publish:{other}")
        rules = get_game("workshop")
        game = await store.load(other)
        (player,) = rules.to_act(game.state)
        await store.submit(other, player, rules.legal_actions(game.state, player)[0], 0)
        first._gaps.add(other)
        with pytest.raises(ClaimLost):
            await first.confirm(other, 0)
