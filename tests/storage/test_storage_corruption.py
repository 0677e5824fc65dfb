"""Unreadable or tampered games are reported by id; every other game keeps working."""

from __future__ import annotations

import logging

import pytest

import storage
from storage import SqliteStorage, UnreadableGame
from tests.storage.conftest import FakeClock, allow_tampering, raw, started, to_act
from tests.storage.race_game import Roll


async def tamper(url: str, sql: str, *params: object) -> None:
    await allow_tampering(url)
    await raw(url, sql, *params)


def json_set(url: str, column: str, path: str, value: str) -> str:
    """SQL for ``column`` with the JSON value at ``path`` (``a.b.0``) replaced."""
    if storage.is_postgres_url(url):
        return f"jsonb_set({column}::jsonb, '{{{path.replace('.', ',')}}}', '{value}')::text"
    sqlite_path = "$" + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in path.split("."))
    return f"json_set({column}, '{sqlite_path}', {value})"


async def three_games(db_url: str, clock: FakeClock) -> list[int]:
    async with await storage.open(db_url, clock=clock) as store:
        ids = []
        for channel in (10, 11, 12):
            game = await started(store, channel)
            for _ in range(3):
                await store.submit(game.id, to_act(game), Roll(), game.version)
                game = await store.load(game.id)
            ids.append(game.id)
        return ids


async def test_a_truncated_snapshot_is_reported_and_the_others_keep_working(
    db_url: str, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    bad, good, _ = await three_games(db_url, clock)
    await tamper(db_url, "UPDATE games SET snapshot = substr(snapshot, 1, 40) WHERE id = ?", bad)
    async with await storage.open(db_url, clock=clock) as store:  # a restarted bot
        for attempt in (store.load(bad), store.find_open(10), store.submit(bad, "100", Roll(), 3)):
            with pytest.raises(UnreadableGame) as caught:
                await attempt
            assert caught.value.game_id == bad and f"#{bad}" in str(caught.value)
        game = await store.load(good)
        await store.submit(good, to_act(game), Roll(), game.version)
        assert (await store.info(bad)).status == "active"  # left alone for inspection
        assert [g.id for g in await store.list_games()] == [1, 2, 3]
        (problem,) = await store.unreadable_games()
        assert problem.game_id == bad and "does not parse" in problem.reason
        reports = {report.game_id: report for report in await store.check_all()}
        assert not reports[bad].ok and "does not parse" in reports[bad].problem
        assert reports[good].ok and reports[3].ok
        await store.abandon(bad)  # the admin's way out frees the channel
        assert await store.find_open(10) is None
        assert (await store.info(bad)).status == "abandoned"


async def test_a_hand_edited_snapshot_fails_the_replay_audit(db_url: str, clock: FakeClock) -> None:
    ids = await three_games(db_url, clock)
    edited = json_set(db_url, "snapshot", "scores.0", "11")
    await tamper(db_url, f"UPDATE games SET snapshot = {edited} WHERE id = ?", ids[1])
    async with await storage.open(db_url, clock=clock) as store:
        report = await store.replay(ids[1])
        assert not report.ok and report.actions == 3
        assert "differs from the snapshot in: scores" in report.problem
        assert (await store.replay(ids[0])).ok


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        (
            'UPDATE actions SET action = \'{"kind":"skip"}\' WHERE seq = 2 AND game_id = ?',
            "action 2",
        ),
        ("UPDATE actions SET events = '[]' WHERE seq = 1 AND game_id = ?", "other events"),
        ("DELETE FROM actions WHERE seq = 2 AND game_id = ?", "gap"),
        ("DELETE FROM actions WHERE seq = 3 AND game_id = ?", "log holds 2"),
        (
            "UPDATE games SET options = {target_13} WHERE id = ?",
            "differs from the snapshot in: target",
        ),
        ("UPDATE games SET status = 'finished' WHERE id = ?", "not over"),
        ("UPDATE games SET kind = 'chess' WHERE id = ?", "unknown game kind"),
        ("UPDATE games SET options = '{\"target\": 1' WHERE id = ?", "options"),
    ],
)
async def test_a_tampered_log_or_row_is_reported_by_replay(
    db_url: str, clock: FakeClock, sql: str, problem: str
) -> None:
    ids = await three_games(db_url, clock)
    sql = sql.replace("{target_13}", json_set(db_url, "options", "target", "13"))
    await tamper(db_url, sql, ids[2])
    async with await storage.open(db_url, clock=clock) as store:
        reports = await store.check_all()
        assert [r.ok for r in reports] == [True, True, False]
        assert reports[2].game_id == ids[2] and problem in reports[2].problem


async def test_unreadable_rows_are_left_out_of_lists_with_a_warning(
    db_url: str, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    ids = await three_games(db_url, clock)
    await tamper(db_url, "UPDATE games SET options = 'not json' WHERE id = ?", ids[0])
    async with await storage.open(db_url, clock=clock) as store:
        with caplog.at_level(logging.WARNING, logger="storage"):
            assert [g.id for g in await store.list_games()] == ids[1:]
        assert f"#{ids[0]}" in caplog.text
        with pytest.raises(UnreadableGame):
            await store.load(ids[0])
        ok = await store.schedule(ids[1], "reminder", clock.now)
        broken = await store.schedule(ids[2], "reminder", clock.now)
        await tamper(db_url, "UPDATE timers SET payload = '{' WHERE id = ?", broken.id)
        with caplog.at_level(logging.WARNING, logger="storage"):
            assert [t.id for t in await store.due_timers()] == [ok.id]
        assert f"timer {broken.id}" in caplog.text


async def test_a_cached_game_is_reread_when_another_connection_changed_it(
    store: SqliteStorage, db_url: str
) -> None:
    game = await started(store, 10)
    async with await storage.open(db_url) as other:
        await other.submit(game.id, to_act(game), Roll(), 0)
    loaded = await store.load(game.id)  # our cache holds version 0; the row says 1
    assert loaded.version == 1 and loaded.state.moves == 1
