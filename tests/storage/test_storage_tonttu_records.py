"""T-3.1 added ``face_down`` to Workshop Tonttu's material points. A database written
before holds ``{"kind": "point_material", "slot": N}``: its games still load, replay to
their snapshots, and go on."""

from __future__ import annotations

import json

from engine.core import Rng
from engine.records import pick_random
from engine.tonttu import GAME
from storage import SqliteStorage
from tests.storage.conftest import allow_tampering, raw

OLD_POINT = '{"kind":"point_material","slot":'


async def test_material_points_stored_without_face_down_replay_and_play_on(
    store: SqliteStorage, db_url: str
) -> None:
    lobby = await store.create_lobby(
        guild_id=1, channel_id=10, kind="tonttu", options=None, host_id=100, host_name="Host"
    )
    for n in (1, 2):
        await store.join(lobby.id, 100 + n, f"Player {n}")
    loaded = await store.start(lobby.id, 2024)
    state, version, rng = loaded.state, loaded.version, Rng(5)
    points = 0
    while points < 6 and GAME.outcome(state) is None:
        player, action = pick_random(GAME, state, rng)
        if action.kind == "point_material":
            if not action.face_down:
                continue  # only what an old bot could have sent
            points += 1
        state, _events, version = await store.submit(loaded.id, player, action, version)
    assert points == 6
    # as a database from before T-3.1's choice holds them
    await allow_tampering(db_url)
    await raw(
        db_url,
        "UPDATE actions SET action = REPLACE(action, ',\"face_down\":true', '') WHERE game_id = ?",
        loaded.id,
    )
    stored = [json.loads(row[0]) for row in await raw(db_url, "SELECT action FROM actions")]
    old = [a for a in stored if a["kind"] == "point_material"]
    assert len(old) == 6 and all("face_down" not in a for a in old)

    report = await store.replay(loaded.id)
    assert report.ok, report.problem
    reloaded = await store.load(loaded.id)
    assert reloaded.state == state and reloaded.version == version
    player, action = pick_random(GAME, state, rng)
    expected, _ = GAME.apply(state, player, action)
    after, _events, _version = await store.submit(loaded.id, player, action, version)
    assert after == expected
