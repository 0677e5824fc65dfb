"""Undo in storage (``storage/undo.py``): an undo is an appended log entry,
the version only grows, the audit replays it, and a restarted process (or another
one) sees the state it left. Runs on both backends."""

from __future__ import annotations

import pytest

import storage
from engine import get_game
from engine.undo import CannotUndo, effective_actions
from engine.workshop.models import PlaceElf
from storage import Conflict, LoadedGame, SqliteStorage
from tests.storage.conftest import allow_tampering, raw

WORKSHOP = get_game("workshop")
ASSEMBLY = PlaceElf(station="assembly")  # W-3: every toy needs Assembly: tokens wait to be placed


async def workshop_game(store: SqliteStorage, channel: int = 40) -> LoadedGame:
    game = await store.create_lobby(
        guild_id=1, channel_id=channel, kind="workshop", options=None, host_id=100, host_name="Aino"
    )
    game = await store.join(game.id, 101, "Bruno")
    return await store.start(game.id, seed=5)


def acting(game: LoadedGame) -> str:
    (player,) = WORKSHOP.to_act(game.state)
    return player


async def test_an_undo_is_a_log_entry_and_gives_the_state_before(store: SqliteStorage) -> None:
    game = await workshop_game(store)
    player = acting(game)
    other = next(p for p in game.players if p != player)
    placed, _events, version = await store.submit(game.id, player, ASSEMBLY, 0)
    assert version == 1
    assert await store.undo_window(game.id, player) == 1
    assert await store.undo_window(game.id, other) == 0
    # with the version of a game just loaded (a panel): the same answer; a stale one: 0
    assert await store.undo_window(game.id, player, 1) == 1
    assert await store.undo_window(game.id, player, 0) == 0
    with pytest.raises(CannotUndo, match="Another player"):
        await store.undo(game.id, other, 1)

    state, events, version = await store.undo(game.id, player, 1)
    assert version == 2  # the version only grows
    assert state == game.state
    assert [e.kind for e in events] == ["took_back"]
    log = await store.log(game.id)
    assert [(e.seq, e.player, dict(e.action)) for e in log][1] == (
        2,
        player,
        {"kind": "undo", "seq": 1},
    )
    assert log[1].events[0]["kind"] == "took_back" and log[1].events[0]["seq"] == 1
    assert [e.seq for e in effective_actions(log)] == []
    loaded = await store.load(game.id)
    assert (loaded.version, loaded.state) == (2, game.state)
    (report,) = [r for r in await store.check_all() if r.game_id == game.id]
    assert report.ok and report.actions == 2, report.problem

    # nothing left to take back; a stale panel is a conflict; nothing was written
    with pytest.raises(CannotUndo):
        await store.undo(game.id, player, 2)
    with pytest.raises(Conflict):
        await store.undo(game.id, player, 1)
    assert (await store.load(game.id)).version == 2

    # the same decision again gives the same state as the first time
    again, _events, version = await store.submit(game.id, player, ASSEMBLY, 2)
    assert version == 3 and again == placed


async def test_a_restarted_process_sees_the_undone_state_and_can_go_on(
    store: SqliteStorage, db_url: str
) -> None:
    game = await workshop_game(store)
    player = acting(game)
    await store.submit(game.id, player, ASSEMBLY, 0)
    async with await storage.open(db_url) as other:  # another process, no caches
        assert await other.undo_window(game.id, player) == 1
        await other.undo(game.id, player, None)  # the latest version (a typed /undo)
    # this process's caches were built at version 1: they catch up with the log
    assert await store.undo_window(game.id, player) == 0
    loaded = await store.load(game.id)
    assert (loaded.version, loaded.state) == (2, game.state)
    with pytest.raises(Conflict):
        await store.submit(game.id, player, ASSEMBLY, 1)
    await store.submit(game.id, player, ASSEMBLY, 2)
    await store.close()
    async with await storage.open(db_url) as restarted:
        loaded = await restarted.load(game.id)
        assert loaded.version == 3
        assert await restarted.undo_window(game.id, player) == 1
        assert all(r.ok for r in await restarted.check_all())


async def test_an_undo_after_a_reveal_is_refused_and_writes_nothing(store: SqliteStorage) -> None:
    game = await workshop_game(store)
    player = acting(game)
    state, _events, version = await store.submit(game.id, player, PlaceElf(station="tree1"), 0)
    colour = WORKSHOP.legal_actions(state, player)[0]
    await store.submit(game.id, player, colour, version)  # W-3.5: a random ornament, revealed
    with pytest.raises(CannotUndo, match="chance"):
        await store.undo(game.id, player, 2)
    assert (await store.load(game.id)).version == 2
    assert len(await store.log(game.id)) == 2


async def test_the_audit_refuses_an_undo_that_was_not_allowed_where_it_stands(
    db_url: str, store: SqliteStorage
) -> None:
    game = await workshop_game(store)
    player = acting(game)
    other = next(p for p in game.players if p != player)
    await store.submit(game.id, player, ASSEMBLY, 0)
    await store.undo(game.id, player, 1)
    assert all(r.ok for r in await store.check_all())
    await store.close()
    await allow_tampering(db_url)  # a hand edit: the other player took it back
    await raw(db_url, "UPDATE actions SET player = ? WHERE game_id = ? AND seq = 2", other, game.id)
    async with await storage.open(db_url) as reopened:
        (report,) = await reopened.check_all()
        assert not report.ok
        assert "action 2 is refused on replay" in report.problem
        assert "Another player has moved since" in report.problem
