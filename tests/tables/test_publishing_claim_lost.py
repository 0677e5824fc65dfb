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
from tables.publishing import PUBLISH_LEASE, ClaimLost, Publisher


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


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
        await first.confirm(7)  # just claimed: nothing to ask
        # its renewals fail (the database away); the lease runs out and another takes it
        first._held[7] -= 60
        clock.now += PUBLISH_LEASE + timedelta(seconds=1)
        await second._hold(7, "publish:7")
        with pytest.raises(ClaimLost):
            await first.confirm(7)
        await second.confirm(7)


async def test_a_round_whose_claim_ran_out_unclaimed_takes_it_again(tmp_path: Path) -> None:
    clock = Clock()
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db", clock=clock) as store:
        first, second = publisher(store, "first"), publisher(store, "second")
        await first._hold(7, "publish:7")
        first._held[7] -= 60
        clock.now += PUBLISH_LEASE + timedelta(seconds=1)
        await first.confirm(7)  # nobody showed anything meanwhile: it is ours again
        assert not await store.try_claim("publish:7", "second", PUBLISH_LEASE)
        del second
