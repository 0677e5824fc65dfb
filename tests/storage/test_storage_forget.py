"""Forgetting a player (``storage.forget``, ``python -m storage forget-user``): their id
and name leave every row of every table, every game still replays, the others' data
stays as it was, ratings rebuild to the same numbers, a second run changes nothing,
and a player still in an open game is refused with nothing changed."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest

import storage
from engine import get_game
from storage import LoadedGame, SqlStorage
from storage.__main__ import check, forget_user, main
from storage.forget import StillPlaying
from tests.storage.conftest import FakeClock, raw

FORGOTTEN = 918273645546372819
"""The player forgotten: a Discord id no other number of the tests contains."""
NAME = "Zelda Quux"
OTHER, OTHER_NAME = 818273645546372810, "Other Olli"
THIRD = 718273645546372811


async def game(
    store: SqlStorage,
    kind: str,
    channel: int,
    seats: list[tuple[int, str] | None],
    seed: int,
    moves: int | None = None,
) -> LoadedGame:
    """A real game of ``kind`` (``None``: a computer seat), played with random legal
    moves to its end or for ``moves`` moves."""
    rules = get_game(kind)
    host = seats[0]
    assert host is not None
    found = await store.create_lobby(
        guild_id=1, channel_id=channel, kind=kind, options=None, host_id=host[0], host_name=host[1]
    )
    for seat in seats[1:]:
        if seat is None:
            await store.add_ai(found.id, level="greedy")
        else:
            await store.join(found.id, *seat)
    found = await store.start(found.id, seed)
    rng = random.Random(seed)
    played = 0
    while found.status == "active" and (moves is None or played < moves):
        player = sorted(rules.to_act(found.state))[0]
        action = rng.choice(list(rules.legal_actions(found.state, player)))
        await store.submit(found.id, player, action, found.version)
        found = await store.load(found.id)
        played += 1
    return found


async def columns(url: str) -> list[tuple[str, str]]:
    """Every (table, column) of the database."""
    if storage.is_postgres_url(url):
        rows = await raw(
            url,
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
        )
        return [(str(table), str(column)) for table, column in rows]
    found = []
    for (table,) in await raw(url, "SELECT name FROM sqlite_master WHERE type = 'table'"):
        for row in await raw(url, f"SELECT name FROM pragma_table_info('{table}')"):
            found.append((str(table), str(row[0])))
    return found


async def everything(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, as text, sorted."""
    tables: dict[str, list[str]] = {}
    for table, column in await columns(url):
        tables.setdefault(table, []).append(column)
    dump = {}
    for table, names in tables.items():
        text = ", ".join(f"CAST({name} AS TEXT)" for name in names)
        rows = await raw(url, f"SELECT {text} FROM {table}")
        dump[table] = sorted(rows, key=repr)
    return dump


def holding(dump: dict[str, list[tuple[Any, ...]]], *needles: str) -> list[str]:
    return [
        f"{table}: {row}"
        for table, rows in dump.items()
        for row in rows
        if any(needle in str(value) for value in row for needle in needles)
    ]


async def test_a_forgotten_player_leaves_no_trace_and_every_game_still_replays(
    db_url: str, clock: FakeClock
) -> None:
    async with await storage.open(db_url, clock=clock) as store:
        finished = await game(
            store, "workshop", 10, [(FORGOTTEN, NAME), (OTHER, OTHER_NAME), None], 1
        )
        tonttu = await game(
            store, "tonttu", 11, [(OTHER, OTHER_NAME), (THIRD, "T"), (FORGOTTEN, NAME)], 2
        )
        running = await game(
            store, "tonttu", 12, [(THIRD, "T"), (FORGOTTEN, NAME), (OTHER, OTHER_NAME)], 3, moves=12
        )
        theirs = await game(store, "workshop", 13, [(OTHER, OTHER_NAME), (THIRD, "T")], 4, moves=9)
        await store.set_message(running.id, f"dm_closed:{FORGOTTEN}", 55)
        assert finished.status == tonttu.status == "finished"
        assert await store.open_games_of(FORGOTTEN) == [running.id]
        # Still playing: refused, nothing changed.
        before = await everything(db_url)
        with pytest.raises(StillPlaying) as refused:
            await store.forget_user(FORGOTTEN)
        assert refused.value.game_ids == (running.id,) and f"#{running.id}" in str(refused.value)
        assert await everything(db_url) == before
        await store.abandon(running.id)
        ratings = await store.all_ratings()
        before = await everything(db_url)
        assert holding(before, str(FORGOTTEN), NAME)

        done = await store.forget_user(FORGOTTEN)

        assert done.placeholder == "forgotten:1"
        assert done.games == (finished.id, tonttu.id, running.id) and done.seats == 3
        assert done.log_entries > 0 and done.rating_rows > 0
        after = await everything(db_url)
        assert holding(after, str(FORGOTTEN), NAME) == []
        # Every row that did not hold them is still there, unchanged: the others' seats,
        # results, totals and ratings, and the game they were not in.
        untouched = {
            t: [r for r in rows if not holding({t: [r]}, str(FORGOTTEN), NAME)]
            for t, rows in before.items()
        }
        for table, rows in untouched.items():
            assert set(rows) <= set(after[table]), table
        assert await store.load(theirs.id) == theirs
        # Their seats carry the placeholder; the games replay.
        for each in (finished, tonttu, running):
            seats = (await store.load(each.id)).seats
            (seat,) = [s for s in seats if s.player == "forgotten:1"]
            position = seats.index(seat)
            assert seat.display_name == f"Player {position + 1} of game {each.id}"
            assert seat.user_id is None
        assert all(report.ok for report in await store.check_all())
        # Their ratings go on under the placeholder; a rebuild gives the same numbers.
        renamed = {
            (g, k, "forgotten:1" if i == str(FORGOTTEN) else i): value
            for (g, k, i), value in ratings.items()
        }
        assert await store.all_ratings() == renamed
        await store.rebuild_ratings()
        assert await store.all_ratings() == renamed
        # A second run finds nothing; a second player gets the next placeholder.
        again = await store.forget_user(FORGOTTEN)
        assert not again.changed and again.games == () and again.rating_rows == 0
        await store.abandon(theirs.id)
        assert (await store.forget_user(THIRD)).placeholder == "forgotten:2"
    out = io.StringIO()
    assert await check(db_url, out) == 0, out.getvalue()
    # The log is append-only again.
    with pytest.raises(Exception, match="append-only"):
        await raw(db_url, "UPDATE actions SET player = 'x' WHERE seq = 1")


async def test_forget_user_on_the_command_line(db_url: str, clock: FakeClock) -> None:
    async with await storage.open(db_url, clock=clock) as store:
        lobby = await store.create_lobby(
            guild_id=1,
            channel_id=9,
            kind="workshop",
            options=None,
            host_id=FORGOTTEN,
            host_name=NAME,
        )
        finished = await game(store, "workshop", 10, [(OTHER, OTHER_NAME), (FORGOTTEN, NAME)], 5)
    out = io.StringIO()
    assert await forget_user(db_url, FORGOTTEN, out) == 1
    assert f"still plays in game #{lobby.id}" in out.getvalue()
    assert "Nothing was changed" in out.getvalue()
    async with await storage.open(db_url, clock=clock) as store:
        await store.abandon(lobby.id)
    out = io.StringIO()
    assert await forget_user(db_url, FORGOTTEN, out) == 0
    said = out.getvalue()
    assert f"Forgot user {FORGOTTEN}" in said and "now forgotten:1" in said
    assert "in 2 games (2 seats," in said and "0 do not match" in said
    rows = await raw(db_url, "SELECT host_id FROM games ORDER BY id")
    assert rows == [(0,), (OTHER,)]
    assert (finished.id,) in await raw(
        db_url, "SELECT game_id FROM seats WHERE player = ?", "forgotten:1"
    )
    out = io.StringIO()
    assert await forget_user(db_url, FORGOTTEN, out) == 0
    assert "Nothing to forget" in out.getvalue()


def test_forget_user_wants_a_discord_id(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["forget-user", "sqlite:///nowhere.db", "ai:1"])
    assert exited.value.code == 2
    assert "is not a Discord user id" in capsys.readouterr().err
