"""The bot's metrics (tables/metrics.py): what each event counts, with a clock the test
moves; the heartbeat behind /healthz; and the table core's calls that feed them (a
submit timed, a conflict counted, a computer's decision and its CPU, storage's count of
the open games)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

import storage
from engine.workshop import GAME
from storage import Conflict, SqlStorage
from tables import metrics as metrics_module
from tables.computers import Computers, Decision
from tables.metrics import ROUTES_KEPT, Heartbeat, Metrics, mark, route_of
from tables.service import Tables


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def value(metrics: Metrics, name: str, **labels: str) -> float:
    found = metrics.registry.get_sample_value(name, labels)
    return 0.0 if found is None else found


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlStorage]:
    async with await storage.open(f"sqlite:///{tmp_path}/bot.db") as opened:
        yield opened


# --------------------------------------------------------------------------- labels


def test_a_route_label_carries_no_id_and_no_token() -> None:
    assert route_of("POST", "/channels/1234/messages") == "POST /channels/{id}/messages"
    token = "aW50ZXJhY3Rpb246OjEyMzQ1Njc4OTAxMjM0NTY3ODk6OkFiQ2RFZg"
    assert (
        route_of("PATCH", f"/webhooks/77/{token}/messages/@original?wait=true")
        == "PATCH /webhooks/{id}/{token}/messages/@original"
    )
    assert route_of("GET", "/users/@me/guilds") == "GET /users/@me/guilds"
    assert (
        route_of("PUT", "/channels/5/thread-members/@me") == "PUT /channels/{id}/thread-members/@me"
    )


def test_routes_beyond_the_bound_are_counted_as_other() -> None:
    metrics = Metrics()
    for n in range(ROUTES_KEPT + 5):
        metrics.rest_answered("GET", f"/route{n}", 200)
    assert value(metrics, "workshop_rest_requests_total", route="GET /route0", status="200") == 1
    assert value(metrics, "workshop_rest_requests_total", route="other", status="200") == 5


# --------------------------------------------------------------------------- interactions


async def test_an_interaction_counts_once_with_its_worst_outcome_when_its_handlers_end() -> None:
    metrics = Metrics()
    handling = metrics.arrived(1, "component")
    assert handling is not None
    gate = asyncio.Event()

    async def handler(outcome: str) -> None:
        await gate.wait()
        mark(outcome)  # what guarded does with an expected error

    entered = handling.enter()
    try:  # as the door parses: the tasks created now are the interaction's
        tasks = [asyncio.ensure_future(handler(o)) for o in ("refused", "ok")]
        for task in tasks:
            handling.track(task)
    finally:
        handling.leave(entered)
    mark("failed")  # outside any interaction's tasks: nothing
    await asyncio.sleep(0)
    assert value(metrics, "workshop_interactions_total", kind="component", outcome="refused") == 0
    gate.set()
    await asyncio.gather(*tasks)
    await asyncio.sleep(0)
    assert value(metrics, "workshop_interactions_total", kind="component", outcome="refused") == 1
    assert value(metrics, "workshop_interactions_total", kind="component", outcome="ok") == 0
    assert value(metrics, "workshop_interactions_total", kind="component", outcome="failed") == 0


def test_an_interaction_without_a_handler_counts_as_it_leaves_the_door() -> None:
    metrics = Metrics()
    handling = metrics.arrived(2, "command")
    assert handling is not None
    handling.leave(handling.enter())
    assert value(metrics, "workshop_interactions_total", kind="command", outcome="ok") == 1


def test_the_first_response_is_timed_from_arrival_to_the_callbacks_answer() -> None:
    clock = Clock()
    metrics = Metrics(clock=clock)
    metrics.arrived(42, "component")
    clock.now += 0.04
    metrics.rest_answered("POST", "/interactions/42/tok.en-X/callback", 204)
    clock.now += 5
    metrics.rest_answered("POST", "/interactions/42/tok.en-X/callback", 400)  # a second: not
    metrics.rest_answered("POST", "/interactions/43/tok.en-X/callback", 204)  # never arrived
    name = "workshop_interaction_first_response_seconds"
    assert value(metrics, f"{name}_count", kind="component") == 1
    assert value(metrics, f"{name}_sum", kind="component") == pytest.approx(0.04)
    assert value(metrics, f"{name}_bucket", kind="component", le="0.05") == 1
    route = "POST /interactions/{id}/{token}/callback"
    assert value(metrics, "workshop_rest_requests_total", route=route, status="204") == 2


def test_429s_are_counted_by_scope_and_failures_as_errors() -> None:
    metrics = Metrics()
    metrics.rest_answered("POST", "/channels/1/messages", 429, "user")
    metrics.rest_answered("POST", "/channels/1/messages", 429, "global")
    metrics.rest_answered("POST", "/channels/1/messages", 429, "something new")
    metrics.rest_answered("POST", "/channels/1/messages", None)
    assert value(metrics, "workshop_rest_rate_limited_total", scope="user") == 1
    assert value(metrics, "workshop_rest_rate_limited_total", scope="global") == 1
    assert value(metrics, "workshop_rest_rate_limited_total", scope="") == 1
    route = "POST /channels/{id}/messages"
    assert value(metrics, "workshop_rest_requests_total", route=route, status="429") == 3
    assert value(metrics, "workshop_rest_requests_total", route=route, status="error") == 1


def test_metrics_that_are_off_count_nothing() -> None:
    metrics = Metrics(enabled=False)
    assert metrics.arrived(1, "component") is None
    metrics.interaction("component", "ok")
    metrics.rest_answered("GET", "/gateway/bot", 200)
    metrics.submitted(1, 2, 0.1)
    metrics.shown(1, 0, 5)
    metrics.caught_up(3)
    metrics.decided("workshop", "greedy", 0.1)
    text = metrics.exposition().decode()
    assert "workshop_interactions_total{" not in text
    assert "workshop_catch_up_rounds_total 0.0" in text


# --------------------------------------------------------------------------- publishing


def test_a_move_is_timed_from_its_commit_to_the_round_that_shows_it() -> None:
    clock = Clock()
    metrics = Metrics(clock=clock)
    metrics.submitted(7, 3, 0.002)
    clock.now += 1
    metrics.submitted(7, 4, 0.003)
    clock.now += 1
    metrics.shown(7, 2, None)  # a round that showed no log (e.g. only the board)
    metrics.shown(7, 2, 3)  # the log up to move 3: move 4 still waits
    lag = "workshop_commit_to_thread_seconds"
    assert value(metrics, f"{lag}_count") == 1 and value(metrics, f"{lag}_sum") == 2
    clock.now += 0.5
    metrics.shown(7, 3, 4)
    assert value(metrics, f"{lag}_count") == 2 and value(metrics, f"{lag}_sum") == 3.5
    assert value(metrics, "workshop_db_submit_seconds_count") == 2
    # a move another process showed before this process's round began is not timed
    metrics.submitted(8, 5, 0.001)
    clock.now += 60
    metrics.shown(8, 5, 6)
    assert value(metrics, f"{lag}_count") == 2


async def test_submits_are_timed_and_a_conflict_counted(store: SqlStorage) -> None:
    metrics = Metrics()
    tables = Tables(store, metrics=metrics)
    lobby = await tables.open_lobby(
        guild_id=1, channel_id=1, kind="workshop", options=None, host_id=10, host_name="Aino"
    )
    await tables.join(lobby.id, 11, "Bo")
    game = (await tables.start(lobby.id)).game
    (player,) = GAME.to_act(game.state)
    played = await tables.choose(game.id, int(player), game.version, 0)
    assert value(metrics, "workshop_db_submit_seconds_count") == 1
    assert value(metrics, "workshop_db_conflicts_total") == 0
    stale = GAME.legal_actions(game.state, player)[0]  # made again at the old version
    with pytest.raises(Conflict):  # the version the move was made at is gone
        await tables._stored(game.id, store.submit(game.id, player, stale, game.version))
    assert value(metrics, "workshop_db_submit_seconds_count") == 2
    assert value(metrics, "workshop_db_conflicts_total") == 1
    assert [version for version, _ in metrics._moves[game.id]] == [played.game.version]


async def test_a_computers_decision_counts_its_cpu_and_its_wait() -> None:
    metrics = Metrics()
    computers = Computers(0)  # in a thread of this process: no worker to start
    computers.metrics = metrics
    state = GAME.new_game(["1", "2"], 5, GAME.parse_options({}))
    (player,) = GAME.to_act(state)
    action = await computers.choose(Decision(1, 0, "workshop", state, player, "greedy", 9))
    assert action in GAME.legal_actions(state, player)
    cpu = "workshop_computer_decision_cpu_seconds"
    assert value(metrics, f"{cpu}_count", kind="workshop", level="greedy") == 1
    assert value(metrics, f"{cpu}_sum", kind="workshop", level="greedy") >= 0
    assert value(metrics, "workshop_computer_decision_seconds_count", kind="workshop") == 1
    await computers.close()


# --------------------------------------------------------------------------- scraped


async def test_the_open_games_are_counted_by_storage_and_kept_a_few_seconds(
    store: SqlStorage,
) -> None:
    clock = Clock()
    metrics = Metrics(clock=clock)
    asked = []

    async def count() -> dict[tuple[str, str], int]:
        asked.append(clock.now)
        return await store.count_open_games()

    metrics.games = count
    await store.create_lobby(
        guild_id=1, channel_id=1, kind="tonttu", options=None, host_id=10, host_name="Aino"
    )
    running = await store.create_lobby(
        guild_id=1, channel_id=2, kind="workshop", options=None, host_id=10, host_name="Aino"
    )
    await store.join(running.id, 11, "Bo")
    await store.start(running.id, seed=1)
    ended = await store.create_lobby(
        guild_id=1, channel_id=3, kind="workshop", options=None, host_id=10, host_name="Aino"
    )
    await store.abandon(ended.id)
    await metrics.refresh()
    assert metrics.games_open == {("tonttu", "lobby"): 1, ("workshop", "active"): 1}
    clock.now += metrics_module.GAMES_EVERY - 1
    await metrics.refresh()
    assert len(asked) == 1
    clock.now += 2
    await metrics.refresh()
    assert len(asked) == 2
    metrics.shards = lambda: {0: True, 3: False}
    families = {f.name: f for f in text_string_to_metric_families(metrics.exposition().decode())}
    games = {
        (s.labels["kind"], s.labels["status"]): s.value
        for s in families["workshop_games_open"].samples
    }
    assert games == {("tonttu", "lobby"): 1.0, ("workshop", "active"): 1.0}
    shards = {s.labels["shard"]: s.value for s in families["workshop_gateway_shard_up"].samples}
    assert shards == {"0": 1.0, "3": 0.0}
    assert "process_cpu_seconds" in families  # the process's own, beside the bot's


# --------------------------------------------------------------------------- heartbeat


def test_the_heartbeat_is_alive_while_the_loop_beats_within_a_second() -> None:
    clock = Clock()
    lags: list[float] = []
    heart = Heartbeat(every=0.25, stale=1.0, clock=clock, lag=lags.append)
    assert not heart.alive() and heart.age() is None  # not started
    heart.beat()
    clock.now += 0.9
    assert heart.alive()
    heart.beat(slept_since=clock.now - 0.25)  # on time
    clock.now += 1.2  # the loop ran nothing for 1.2 s (blocked, or flooded)
    assert not heart.alive() and heart.age() == pytest.approx(1.2)
    heart.beat(slept_since=clock.now - 1.2)
    assert heart.alive()
    assert lags == [0.0, pytest.approx(0.95)]


async def test_the_heartbeat_task_beats_on_the_running_loop() -> None:
    heart = Heartbeat(every=0.01)
    task = asyncio.create_task(heart.run())
    try:
        for _ in range(100):
            await asyncio.sleep(0.01)
            if heart.alive():
                break
        assert heart.alive()
    finally:
        task.cancel()
