"""The addresses of a table's pages (``tables/pages.py``), from real storage: the same
links for a game every time, none without a public address or on a server that turned
its pages off."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

import storage
from storage import GameNotFound, SqlStorage
from tables.pages import PageLinks, page_links, page_url, replay_url

BASE = "https://games.example.org"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStorage]:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as opened:
        yield opened


def test_the_addresses() -> None:
    assert page_url(BASE, "tok") == f"{BASE}/g/tok"
    assert replay_url(BASE, "tok") == f"{BASE}/g/tok/replay"
    assert replay_url(BASE, "tok", step=0) == f"{BASE}/g/tok/replay?step=0"
    assert replay_url(f"{BASE}/workshop", "tok", 7) == f"{BASE}/workshop/g/tok/replay?step=7"


async def test_a_games_links_use_its_stored_token(store: SqlStorage) -> None:
    game = await store.create_lobby(
        guild_id=5, channel_id=1, kind="workshop", options=None, host_id=100, host_name="A"
    )
    assert await page_links(store, game, None) is None  # no public address: no links
    links = await page_links(store, game, BASE)
    token = await store.web_token(game.id)
    assert links == PageLinks(live=f"{BASE}/g/{token}", replay=f"{BASE}/g/{token}/replay")
    assert await page_links(store, game, BASE) == links

    await store.set_guild_web_links(5, False)
    assert await page_links(store, game, BASE) is None
    await store.set_guild_web_links(5, True)
    assert await page_links(store, game, BASE) == links

    with pytest.raises(GameNotFound):
        await page_links(store, replace(game, id=999), BASE)
