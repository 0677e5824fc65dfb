"""The lobby through the table core (``Tables.open_lobby``, ``join``, ``add_computer``,
``leave``, ``end``): what any front end does before a game starts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import storage
from storage import ChannelBusy
from tables.service import BadChoice, Tables

HOST, GUEST = 100, 200


@pytest.fixture
async def tables(tmp_path: Path) -> AsyncIterator[Tables]:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as opened:
        yield Tables(opened)


async def test_a_lobby_fills_and_empties(tables: Tables) -> None:
    lobby = await tables.open_lobby(
        guild_id=1, channel_id=5, kind="tonttu", options=None, host_id=HOST, host_name="Aino"
    )
    with pytest.raises(ChannelBusy):  # one open game per channel
        await tables.open_lobby(
            guild_id=1, channel_id=5, kind="workshop", options=None, host_id=GUEST, host_name="B"
        )
    joined = await tables.join(lobby.id, GUEST, "Bo")
    with_computer = await tables.add_computer(lobby.id, "strong")
    assert [s.display_name for s in joined.seats] == ["Aino", "Bo"]
    assert [s.level for s in with_computer.seats] == [None, None, "strong"]
    with pytest.raises(BadChoice):
        await tables.add_computer(lobby.id, "grandmaster")
    assert len((await tables.store.info(lobby.id)).seats) == 3  # nothing added
    left = await tables.leave(lobby.id, str(GUEST))
    assert [s.player for s in left.seats] == [str(HOST), with_computer.seats[2].player]
    ended = await tables.end(lobby.id)
    assert ended.status == "abandoned"
    reopened = await tables.open_lobby(  # the channel is free again
        guild_id=1, channel_id=5, kind="workshop", options=None, host_id=GUEST, host_name="Bo"
    )
    assert reopened.id != lobby.id


async def test_a_running_game_ends_for_everyone(tables: Tables) -> None:
    lobby = await tables.open_lobby(
        guild_id=1, channel_id=6, kind="workshop", options=None, host_id=HOST, host_name="Aino"
    )
    await tables.add_computer(lobby.id, "greedy")
    played = await tables.start(lobby.id)
    assert played.game.status == "active"
    assert (await tables.end(lobby.id)).status == "abandoned"
