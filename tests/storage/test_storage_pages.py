"""Game pages on the web: a game's page token is made once and kept, is unguessable and
the same whoever asks first; a token finds its game and nothing else does; a server's
switch for its pages; the versions a live page watches, in one query; and a database
from before the pages upgrades with its games."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import storage
from storage import GameNotFound, NewTimer, SqliteStorage
from storage.__main__ import copy
from storage.migrations import MIGRATIONS
from tests.storage.conftest import FakeClock, lobby, started, to_act
from tests.storage.race_game import Roll
from tests.storage.test_storage_migrations import _write_data_of_version, schema_version

URL_SAFE = re.compile(r"[A-Za-z0-9_-]+")


async def test_a_games_token_is_made_once_and_kept(db_url: str, clock: FakeClock) -> None:
    async with await storage.open(db_url, clock=clock) as store:
        games = [await started(store, channel) for channel in range(10, 15)]
        waiting = await lobby(store, 20)
        tokens = [await store.web_token(game.id) for game in [*games, waiting]]
        assert all(len(token) >= 22 and URL_SAFE.fullmatch(token) for token in tokens)
        assert len(set(tokens)) == len(tokens)
        assert [await store.web_token(game.id) for game in games] == tokens[:-1]
        # a move, the end of a game: the token stays
        await store.submit(games[0].id, to_act(games[0]), Roll(), games[0].version)
        await store.abandon(games[1].id)
        assert await store.web_token(games[0].id) == tokens[0]
        assert await store.web_token(games[1].id) == tokens[1]
        with pytest.raises(GameNotFound):
            await store.web_token(999)
    async with await storage.open(db_url, clock=clock) as again:
        assert await again.web_token(games[2].id) == tokens[2]


async def test_first_asks_at_once_agree(
    db_url: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several stores (each its own connections, as processes have) ask for the tokens of
    the same new games at once; and one that read the game before another wrote its
    token takes the other's."""
    async with await storage.open(db_url, clock=clock) as first:
        games = [await started(first, channel) for channel in range(10, 16)]
        others = [await storage.open(db_url, clock=clock) for _ in range(3)]
        try:
            stores = [first, *others]
            asked = await asyncio.gather(
                *(store.web_token(game.id) for game in games for store in stores)
            )
            n = len(stores)
            per_game = [set(asked[i : i + n]) for i in range(0, len(asked), n)]
            assert all(len(tokens) == 1 for tokens in per_game)
            assert len(set(asked)) == len(games)

            late = await lobby(first, 20)
            looker = others[0]
            read = looker._lookup
            stale = [True]

            async def before_the_other_wrote(sql: str, params: Sequence[Any] = ()) -> list[Any]:
                if stale and "web_token" in sql:
                    stale.clear()
                    token = await first.web_token(late.id)  # the other process wins
                    assert token
                    return [(None,)]  # what this one read just before
                return await read(sql, params)

            monkeypatch.setattr(looker, "_lookup", before_the_other_wrote)
            assert await looker.web_token(late.id) == await first.web_token(late.id)
            assert not stale
        finally:
            for store in others:
                await store.close()


async def test_a_token_finds_its_game_and_nothing_else_does(store: SqliteStorage) -> None:
    game = await started(store, 10)
    other = await started(store, 11)
    token = await store.web_token(game.id)
    await store.web_token(other.id)
    found = await store.game_of_token(token)
    assert found is not None and found.id == game.id
    assert found == await store.info(game.id)
    unknown = "A" * len(token)
    for text in (
        unknown,
        token[:-1],
        token + "x",
        token.swapcase(),
        "",
        "1",
        str(game.id),
        "' OR 1=1 --",
        token[:-1] + "'",
        token[:-1] + "%",
        token[:11] + "\x00" + token[12:],
        token[:-1] + "é",
        "x" * 5000,
        "../" + token,
        f" {token}",
    ):
        assert await store.game_of_token(text) is None, text
    assert await store.game_of_token(None) is None  # type: ignore[arg-type]
    assert await store.game_of_token(12) is None  # type: ignore[arg-type]


async def test_a_servers_pages_are_on_until_turned_off(store: SqliteStorage) -> None:
    assert await store.guild_web_links(1) and await store.guild_web_links(2)
    await store.set_guild_web_links(1, False)
    await store.set_guild_web_links(1, False)  # twice is the same
    assert not await store.guild_web_links(1)
    assert await store.guild_web_links(2)
    # the language is another setting: choosing and resetting it changes nothing here
    await store.set_guild_language(1, "de")
    await store.set_guild_language(1, None)
    assert not await store.guild_web_links(1)
    await store.set_guild_web_links(1, True)
    await store.set_guild_web_links(1, True)
    assert await store.guild_web_links(1)
    await store.set_guild_web_links(2, True)  # on already: stays on
    assert await store.guild_web_links(2)


async def test_the_switch_outlives_the_process(db_url: str, clock: FakeClock) -> None:
    async with await storage.open(db_url, clock=clock) as first:
        await first.set_guild_web_links(7, False)
    async with await storage.open(db_url, clock=clock) as second:
        assert not await second.guild_web_links(7)
        assert await second.guild_web_links(8)


async def test_versions_of_many_games_in_one_query(
    store: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [await started(store, channel) for channel in range(10, 15)]
    waiting = await lobby(store, 20)
    moved = await store.submit(games[0].id, to_act(games[0]), Roll(), 0)
    await store.abandon(games[1].id)
    queries: list[str] = []
    read = store._lookup

    async def counted(sql: str, params: Sequence[Any] = ()) -> list[Any]:
        queries.append(sql)
        return await read(sql, params)

    monkeypatch.setattr(store, "_lookup", counted)
    asked = [g.id for g in games] + [waiting.id, 999, games[2].id]
    assert await store.versions(asked) == {
        games[0].id: (moved.version, "active", None),
        games[1].id: (0, "abandoned", None),
        **{g.id: (0, "active", None) for g in games[2:]},
        waiting.id: (0, "lobby", None),
    }
    assert len(queries) == 1
    assert await store.versions([]) == {}
    assert await store.versions({999, 1000}) == {}
    assert await store.versions((games[3].id,)) == {games[3].id: (0, "active", None)}
    assert len(queries) == 3  # nothing asked for: no query


async def test_versions_show_a_pending_turn_limit(store: SqliteStorage) -> None:
    """A turn limit is written by the round that publishes a move, a moment after it:
    the watched versions carry it, so a page sees it come and go."""
    game = await started(store, 30)
    due = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    limit = NewTimer("turn_limit", due, {"version": 0})
    reminder = NewTimer("remind", due - timedelta(hours=1), {"version": 0})
    await store.set_marks(game.id, {"board": (None, 0)}, timers=[reminder, limit])
    assert await store.versions([game.id]) == {game.id: (0, "active", due)}
    await store.set_marks(game.id, {"board": (None, 0)}, cancel=["turn_limit"])
    assert await store.versions([game.id]) == {game.id: (0, "active", None)}


async def test_a_database_from_before_the_pages_upgrades_with_its_games(
    db_url: str, clock: FakeClock
) -> None:
    pages = next(m for m in MIGRATIONS if "web_token" in " ".join(m.sqlite))
    before = pages.version - 1  # the schema before the pages
    game_id = await _write_data_of_version(db_url, before)
    async with await storage.open(db_url, clock=clock) as store:
        assert await schema_version(db_url) == len(MIGRATIONS)
        old_lobby = await store.find_open(11)
        assert old_lobby is not None
        tokens = {await store.web_token(game_id), await store.web_token(old_lobby.id)}
        assert len(tokens) == 2
        for token in tokens:
            found = await store.game_of_token(token)
            assert found is not None and found.id in (game_id, old_lobby.id)
        assert await store.versions([game_id, old_lobby.id]) == {
            game_id: (1, "active", None),
            old_lobby.id: (0, "lobby", None),
        }
        assert await store.guild_web_links(1)


async def test_copy_keeps_the_tokens_and_the_switch(
    tmp_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    sqlite_url = f"sqlite:///{tmp_path}/bot.db"
    async with await storage.open(sqlite_url, clock=clock) as source:
        game = await started(source, 10)
        await started(source, 11)  # no token asked for yet
        token = await source.web_token(game.id)
        await source.set_guild_web_links(5, False)
    out = io.StringIO()
    assert await copy(sqlite_url, postgres_url, out) == 0, out.getvalue()
    async with await storage.open(postgres_url, clock=clock) as target:
        found = await target.game_of_token(token)
        assert found is not None and found.id == game.id
        assert await target.web_token(game.id) == token
        assert not await target.guild_web_links(5)
        assert await target.guild_web_links(1)
