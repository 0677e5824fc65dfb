"""What a table must show (``tables/surfaces.py``): the news since a ledger's marks or
since a version, and a seat's private surface, from real storage."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import storage
from engine.workshop import GAME
from storage import LoadedGame, SqlStorage
from tables.service import Tables
from tables.surfaces import changes, news, seat_surface

HUMAN = 100


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStorage]:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as opened:
        yield opened


async def two_humans(store: SqlStorage) -> LoadedGame:
    lobby = await store.create_lobby(
        guild_id=1, channel_id=1, kind="workshop", options=None, host_id=HUMAN, host_name="A"
    )
    await store.join(lobby.id, HUMAN + 1, "B")
    return await store.start(lobby.id, seed=3)


async def play(store: SqlStorage, game: LoadedGame, moves: int) -> LoadedGame:
    for _ in range(moves):
        (player,) = GAME.to_act(game.state)
        await store.submit(game.id, player, GAME.legal_actions(game.state, player)[0], game.version)
        game = await store.load(game.id)
    return game


async def test_changes_since_a_version_are_the_logged_events_and_who_acts(
    store: SqlStorage,
) -> None:
    game = await two_humans(store)
    since = game.version
    game = await play(store, game, 3)
    now, new = await changes(store, game.id, since)
    logged = await store.log(game.id, after=since)
    expected = [GAME.parse_event(e) for entry in logged for e in entry.events]
    assert list(new.events) == expected and len(expected) >= 3
    assert new.version == now.version == since + 3
    assert new.acting == frozenset(GAME.to_act(now.state)) and not new.ended
    assert new.board_behind == 3 and new.target == now.version and not new.recovering
    _, none = await changes(store, game.id, now.version)
    assert none.events == () and none.acting == new.acting


async def test_a_round_that_died_after_its_intent_is_caught_up_first(
    store: SqlStorage,
) -> None:
    game = await play(store, await two_humans(store), 4)
    marks = {"board": 1, "log": 1, "prompt": 1, "log_intent": 3}
    told = news(game, marks, await store.log(game.id, after=1))
    assert told.recovering and told.target == 3
    assert told.acting == frozenset()  # the old turn's lines first, no prompt yet
    assert not told.prompt_due
    logged = await store.log(game.id, after=1)
    assert list(told.events) == [
        GAME.parse_event(e) for entry in logged if entry.seq <= 3 for e in entry.events
    ]


async def test_a_seat_surface_offers_the_choices_and_names_who_it_waits_for(
    store: SqlStorage,
) -> None:
    game = await two_humans(store)
    (acting,) = GAME.to_act(game.state)
    other = next(p for p in game.players if p != acting)
    mine = seat_surface(game, acting, can_undo=True)
    assert [c.action for c in mine.choices] == list(GAME.legal_actions(game.state, acting))
    assert mine.can_undo and mine.waiting_for == ()
    assert mine.suggested is None or 0 <= mine.suggested < len(mine.choices)
    theirs = seat_surface(game, other)
    assert theirs.choices == () and theirs.waiting_for == (acting,)
    assert theirs.suggested is None
    ended = await Tables(store).end(game.id)
    assert ended.status == "abandoned"
    assert seat_surface(await store.load(game.id), acting).choices == ()
