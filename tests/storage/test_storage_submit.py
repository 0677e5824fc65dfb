"""submit: one transaction per action; conflicts and rule errors write nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Sequence

import asyncpg
import pytest

import storage
from engine.core import TIMER, IllegalAction, NotInGame, NotYourTurn
from storage import Conflict, GameNotFound, LoadedGame, SqliteStorage, WrongStatus
from storage.core import Write
from storage.postgres import APPLY
from tests.storage.conftest import FakeClock, lobby, raw, started, to_act
from tests.storage.race_game import GAME, Play, RaceState, Roll, Skip


async def snapshot_row(store: SqliteStorage, game_id: int) -> tuple[object, ...]:
    rows = await store._read("SELECT version, snapshot, status FROM games WHERE id = ?", (game_id,))
    return tuple(rows[0])


async def log_seqs(store: SqliteStorage, game_id: int) -> list[int]:
    return [entry.seq for entry in await store.log(game_id)]


async def test_submit_appends_to_the_log_and_replaces_the_snapshot(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10)
    player = to_act(game)
    card = game.state.hands[game.state.turn][0]
    clock.advance(minutes=3)
    state, events, version = await store.submit(game.id, player, Play(card=card), 0)
    expected_state, expected_events = GAME.apply(game.state, player, Play(card=card))
    assert (state, tuple(events), version) == (expected_state, expected_events, 1)
    (entry,) = await store.log(game.id)
    assert (entry.seq, entry.player, entry.action) == (1, player, {"kind": "play", "card": card})
    assert entry.events == [event.model_dump(mode="json") for event in expected_events]
    assert entry.created_at == clock.now
    loaded = await store.load(game.id)
    assert (loaded.version, loaded.state, loaded.updated_at) == (1, expected_state, clock.now)
    # An action may also arrive as the JSON dict a button carried.
    state, _events, version = await store.submit(game.id, to_act(loaded), {"kind": "roll"}, 1)
    assert version == 2 and await log_seqs(store, game.id) == [1, 2]


async def test_a_stale_version_is_a_conflict_and_writes_nothing(store: SqliteStorage) -> None:
    game = await started(store, 10)
    await store.submit(game.id, to_act(game), Roll(), 0)
    before = await snapshot_row(store, game.id)
    loaded = await store.load(game.id)
    for stale in (0, 5):
        with pytest.raises(Conflict) as caught:
            await store.submit(game.id, to_act(loaded), Roll(), stale)
        assert caught.value.current == 1 and "has changed" in str(caught.value)
    assert await snapshot_row(store, game.id) == before
    assert await log_seqs(store, game.id) == [1]


@pytest.mark.parametrize(
    ("who", "action", "error"),
    [
        ("not-seated", Roll(), NotInGame),
        ("waiting", Roll(), NotYourTurn),
        ("acting", Play(card=99), IllegalAction),
        ("acting", {"kind": "fly"}, IllegalAction),
        (TIMER, Roll(), IllegalAction),
    ],
)
async def test_rule_errors_propagate_and_write_nothing(
    store: SqliteStorage, who: str, action: object, error: type[Exception]
) -> None:
    game = await started(store, 10)
    acting = to_act(game)
    player = {
        "not-seated": "31337",
        "waiting": next(p for p in game.players if p != acting),
        "acting": acting,
    }.get(who, who)
    before = await snapshot_row(store, game.id)
    with pytest.raises(error):
        await store.submit(game.id, player, action, 0)
    assert await snapshot_row(store, game.id) == before
    assert await log_seqs(store, game.id) == []
    await store.submit(game.id, acting, Roll(), 0)  # and the game goes on


async def test_only_active_games_take_actions(store: SqliteStorage) -> None:
    game = await lobby(store, 10)
    with pytest.raises(WrongStatus, match="lobby"):
        await store.submit(game.id, "100", Roll(), 0)
    with pytest.raises(GameNotFound):
        await store.submit(999, "100", Roll(), 0)
    game = await store.start(game.id, 1)
    await store.abandon(game.id)
    with pytest.raises(WrongStatus, match="abandoned"):
        await store.submit(game.id, to_act(game), Roll(), 0)


async def test_the_outcome_finishes_the_game_and_records_the_result(
    store: SqliteStorage, clock: FakeClock
) -> None:
    game = await started(store, 10, players=2, options={"target": 6})
    timer = await store.schedule(game.id, "reminder", clock.advance(hours=1))
    state = game.state
    while GAME.outcome(state) is None:
        (player,) = GAME.to_act(state)
        state, events, version = await store.submit(game.id, player, Roll(), game.version)
        game = await store.load(game.id)
        assert game.version == version
    assert events[-1].kind == "ended"
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert game.status == "finished" and game.finished_at == clock.now
    assert game.result == json.loads(outcome.model_dump_json())
    assert game.state == state  # the final board stays readable
    assert await store.find_open(10) is None
    assert await store.due_timers(clock.advance(days=1)) == []  # its timers were cancelled
    assert not await store.mark_fired(timer.id)
    with pytest.raises(WrongStatus, match="finished"):
        await store.submit(game.id, player, Roll(), version)
    assert (await store.replay(game.id)).ok


async def test_twenty_racing_submits_at_one_version_apply_exactly_once(
    store: SqliteStorage,
) -> None:
    game = await started(store, 10)
    await store.submit(game.id, to_act(game), Roll(), 0)
    game = await store.load(game.id)
    player = to_act(game)

    async def attempt() -> str:
        try:
            await store.submit(game.id, player, Roll(), 1)
        except Conflict:
            return "conflict"
        return "applied"

    results = await asyncio.gather(*(attempt() for _ in range(20)))
    assert sorted(results).count("applied") == 1 and results.count("conflict") == 19
    assert await log_seqs(store, game.id) == [1, 2]
    assert (await store.load(game.id)).version == 2
    assert (await store.replay(game.id)).ok


async def test_racing_submits_from_two_connections_apply_exactly_once(db_url: str) -> None:
    # Like two bot processes on one file: the SQL version guard decides.
    first, second = await storage.open(db_url), await storage.open(db_url)
    try:
        game = await started(first, 10)
        player = to_act(game)
        await second.load(game.id)  # warm the second one's state cache at version 0

        async def attempt(store: SqliteStorage) -> bool:
            try:
                await store.submit(game.id, player, Roll(), 0)
            except Conflict:
                return False
            return True

        results = await asyncio.gather(*(attempt(s) for s in (first, second) * 10))
        assert results.count(True) == 1
        assert await log_seqs(first, game.id) == [1]
        # The loser's cache never serves a stale state: it moves on with the winner.
        moved = await second.load(game.id)
        assert moved.version == 1
        await second.submit(game.id, to_act(moved), Roll(), 1)
        assert (await first.replay(game.id)).ok
    finally:
        await first.close()
        await second.close()


async def test_a_group_commit_with_one_stale_write_applies_the_others(db_url: str) -> None:
    # Submits waiting for the writer share one transaction (group commit). When another
    # process has won one of them, that one is a Conflict and the rest still apply.
    first, second = await storage.open(db_url), await storage.open(db_url)
    try:
        games = [await started(first, channel) for channel in (10, 11, 12)]
        for game in games:
            await second.load(game.id)  # the second's cache: every game at version 0
        await first.submit(games[1].id, to_act(games[1]), Roll(), 0)  # it wins game 2

        async def attempt(game: LoadedGame) -> str:
            try:
                await second.submit(game.id, to_act(game), Roll(), 0)
            except Conflict:
                return "conflict"
            return "applied"

        results = await asyncio.gather(*(attempt(game) for game in games))
        assert results == ["applied", "conflict", "applied"]
        for game in games:
            assert await log_seqs(first, game.id) == [1]
            assert (await first.replay(game.id)).ok
    finally:
        await first.close()
        await second.close()


async def test_many_games_submitting_at_once_all_commit_in_order(store: SqliteStorage) -> None:
    games = [await started(store, channel) for channel in range(100, 140)]
    for version in range(3):
        loaded = [await store.load(game.id) for game in games]
        results = await asyncio.gather(
            *(store.submit(game.id, to_act(game), Roll(), version) for game in loaded)
        )
        assert [result.version for result in results] == [version + 1] * len(games)
    for game in games:
        assert await log_seqs(store, game.id) == [1, 2, 3]
        assert (await store.replay(game.id)).ok


async def test_without_an_expected_version_racing_actions_all_apply_in_commit_order(
    store: SqliteStorage,
) -> None:
    # T-4: simultaneous choices are applied in the order storage commits them.
    game = await started(store, 10, options={"target": 50})
    results = await asyncio.gather(*(store.submit(game.id, TIMER, Skip(), None) for _ in range(20)))
    assert sorted(result.version for result in results) == list(range(1, 21))
    assert await log_seqs(store, game.id) == list(range(1, 21))
    assert (await store.load(game.id)).state.turn == (game.state.turn + 20) % 3
    assert (await store.replay(game.id)).ok


async def test_simultaneous_choices_of_many_games_share_the_writers_transactions(
    store: SqliteStorage,
) -> None:
    # T-4 choices (no expected version) wait for the writer like any move, each computed
    # after the same process's uncommitted ones: 8 games x 3 choices take 3 transactions
    # of one choice per game, not 24 one after another.
    games = [await started(store, channel, options={"target": 50}) for channel in range(10, 18)]
    layers: list[list[int]] = []
    apply = store._apply

    async def counted(writes: Sequence[Write], now: float) -> dict[int, Exception | None]:
        layers.append([write.game_id for write in writes])
        return await apply(writes, now)

    store._apply = counted  # type: ignore[method-assign]
    results = await asyncio.gather(
        *(store.submit(game.id, TIMER, Skip(), None) for _ in range(3) for game in games)
    )
    ids = sorted(game.id for game in games)
    assert [sorted(layer) for layer in layers] == [ids, ids, ids]
    assert sorted(result.version for result in results) == [1] * 8 + [2] * 8 + [3] * 8
    for game in games:
        loaded = await store.load(game.id)
        assert loaded.version == 3 and loaded.state.turn == (game.state.turn + 3) % 3
        assert await log_seqs(store, game.id) == [1, 2, 3]
        assert (await store.replay(game.id)).ok


@pytest.mark.parametrize("refused", [False, True])
async def test_a_choice_chained_behind_a_lost_write_is_applied_again_on_the_winner(
    db_url: str, refused: bool
) -> None:
    # The second choice was computed after the first, not yet committed. Another process
    # wins the first's version: the second must not be written on top of that winner's
    # move as it was computed (the version guard alone would let it through). Nor may it
    # be refused for what the first did (``refused``: its precondition refuses the state
    # after the first, which never was): it is judged again on the latest state.
    first, second = await storage.open(db_url), await storage.open(db_url)
    try:
        game = await started(first, 10, options={"target": 50})

        def after_the_first_only(state: RaceState) -> None:
            if refused and state.moves == 1 and state.scores == game.state.scores:
                raise IllegalAction("judged on the first choice, which lost")

        apply = first._apply
        won = False

        async def beaten(writes: Sequence[Write], now: float) -> dict[int, Exception | None]:
            nonlocal won
            if not won:
                won = True
                await second.submit(game.id, to_act(game), Roll(), 0)
            return await apply(writes, now)

        first._apply = beaten  # type: ignore[method-assign]
        results = await asyncio.gather(
            first.submit(game.id, TIMER, Skip(), None),
            first.submit(game.id, TIMER, Skip(), None, precondition=after_the_first_only),
        )
        assert sorted(result.version for result in results) == [2, 3]
        assert await log_seqs(first, game.id) == [1, 2, 3]
        kinds = [entry.action["kind"] for entry in await first.log(game.id)]
        assert kinds == ["roll", "skip", "skip"]
        assert (await first.replay(game.id)).ok
    finally:
        await first.close()
        await second.close()


async def test_the_action_log_is_append_only(store: SqliteStorage, db_url: str) -> None:
    game = await started(store, 10)
    await store.submit(game.id, to_act(game), Roll(), 0)
    refused = (sqlite3.IntegrityError, asyncpg.RaiseError)
    with pytest.raises(refused, match="append-only"):
        await raw(db_url, "UPDATE actions SET player = 'x'")
    with pytest.raises(refused, match="append-only"):
        await raw(db_url, "DELETE FROM actions")
    if storage.is_postgres_url(db_url):
        with pytest.raises(refused, match="append-only"):
            await raw(db_url, "TRUNCATE actions")
    assert await log_seqs(store, game.id) == [1]


async def test_a_cancelled_submit_leaves_no_open_transaction(store: SqliteStorage) -> None:
    game = await started(store, 10, options={"target": 100})
    tasks = [asyncio.create_task(store.submit(game.id, TIMER, Skip(), None)) for _ in range(10)]
    await asyncio.sleep(0)
    for task in tasks[::2]:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    applied = sum(1 for t in tasks if not t.cancelled() and t.exception() is None)
    loaded = await store.load(game.id)
    assert loaded.version == len(await log_seqs(store, game.id)) >= applied
    await store.submit(game.id, TIMER, Skip(), loaded.version)  # the writer still works
    assert (await store.replay(game.id)).ok


async def test_the_schema_refuses_an_action_row_at_a_stale_version(
    store: SqliteStorage, db_url: str
) -> None:
    # The version guard lives in SQL (SQLite: the apply_action trigger; PostgreSQL: the
    # UPDATE … WHERE version = seq - 1 that the log row depends on), not only in Python.
    game = await started(store, 10)

    async def apply_at(seq: int) -> bool:
        if storage.is_postgres_url(db_url):
            connection = await asyncpg.connect(db_url)
            try:
                rows = await connection.fetch(
                    APPLY, [game.id], [seq], ["100"], ["{}"], ["[]"], ["{}"], [None], 0.0
                )
            finally:
                await connection.close()
            return bool(rows)
        try:
            await raw(
                db_url,
                "INSERT INTO apply_action (game_id, seq, player, action, events, created_at,"
                " snapshot, result) VALUES (?, ?, '100', '{}', '[]', 0, '{}', NULL)",
                game.id,
                seq,
            )
        except sqlite3.IntegrityError as error:
            assert "stale version" in str(error)
            return False
        return True

    for seq in (2, 0):
        assert not await apply_at(seq)
    await store.abandon(game.id)
    assert not await apply_at(1)  # the right version, but not an active game
    assert await log_seqs(store, game.id) == []
    assert (await store.info(game.id)).version == 0


async def test_a_precondition_runs_on_the_latest_state_inside_the_submit(
    store: SqliteStorage,
) -> None:
    # Simultaneous choices judged by phase, not version (the bot's Tonttu choices, T-2.1):
    # the check sees the state the action is applied to, and a refusal writes nothing.
    game = await started(store, 10, options={"target": 50})
    seen: list[int] = []

    def only_at_turn_of(turn: int) -> object:
        def check(state: object) -> None:
            seen.append(state.turn)  # type: ignore[attr-defined]
            if state.turn != turn:  # type: ignore[attr-defined]
                raise NotYourTurn("That choice was for an earlier turn.")

        return check

    turn = game.state.turn
    results = await asyncio.gather(
        *(
            store.submit(game.id, TIMER, Skip(), None, precondition=only_at_turn_of(turn))
            for _ in range(5)
        ),
        return_exceptions=True,
    )
    applied = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, NotYourTurn)]
    assert len(applied) == 1 and len(refused) == 4  # each check saw the state after the first
    assert seen == [turn] + [(turn + 1) % 3] * 4
    assert await log_seqs(store, game.id) == [1]
    before = await snapshot_row(store, game.id)
    with pytest.raises(NotYourTurn):
        await store.submit(game.id, TIMER, Skip(), 1, precondition=only_at_turn_of(turn))
    assert await snapshot_row(store, game.id) == before


async def test_a_choice_refused_after_an_uncommitted_one_is_refused_once_that_one_commits(
    store: SqliteStorage,
) -> None:
    # T-4's speed race: the loser's point is refused on the state after the winner's,
    # chained behind it before it commits. The refusal waits for that commit, so the
    # loser's answer can read who won from the log (it read a log without the winner).
    game = await started(store, 10, options={"target": 50})
    order: list[str] = []
    apply = store._apply

    async def logged(writes: Sequence[Write], now: float) -> dict[int, Exception | None]:
        await asyncio.sleep(0.05)  # a busy writer: the second is judged long before
        results = await apply(writes, now)
        order.append("committed")
        return results

    def taken(state: RaceState) -> None:
        if state.moves:
            raise IllegalAction("Too late: someone already took it.")

    store._apply = logged  # type: ignore[method-assign]
    first = asyncio.create_task(store.submit(game.id, TIMER, Skip(), None))
    second = asyncio.create_task(store.submit(game.id, TIMER, Skip(), None, precondition=taken))
    second.add_done_callback(lambda _: order.append("refused"))
    with pytest.raises(IllegalAction):
        await second
    assert (await first).version == 1
    assert order == ["committed", "refused"]
    assert await log_seqs(store, game.id) == [1]
