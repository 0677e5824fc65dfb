"""Server settings: the language a server admin chose stays until it is changed or
cleared, per server, across reopening."""

from __future__ import annotations

import storage
from storage import SqliteStorage
from tests.storage.conftest import FakeClock


async def test_a_servers_language_is_stored_changed_and_cleared(store: SqliteStorage) -> None:
    assert await store.guild_language(1) is None
    await store.set_guild_language(1, "de")
    await store.set_guild_language(2, "en")
    assert await store.guild_language(1) == "de"
    await store.set_guild_language(1, "en")
    assert (await store.guild_language(1), await store.guild_language(2)) == ("en", "en")
    await store.set_guild_language(1, None)
    assert await store.guild_language(1) is None
    assert await store.guild_language(2) == "en"


async def test_the_language_outlives_the_process(db_url: str, clock: FakeClock) -> None:
    async with await storage.open(db_url, clock=clock) as first:
        await first.set_guild_language(7, "de")
    async with await storage.open(db_url, clock=clock) as second:
        assert await second.guild_language(7) == "de"
