"""The golden playthrough replays to the same outcome, log and final state."""

from __future__ import annotations

import io
import json

from make_workshop_golden import GOLDEN, NAMES

from engine.__main__ import main
from engine.records import Record, replay
from engine.workshop import GAME


def test_golden_record_replays_exactly() -> None:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    record = Record.model_validate(data)
    state = GAME.new_game(record.players, record.seed, GAME.parse_options(record.options))
    log: list[str] = []
    for step in record.actions:
        state, events = GAME.apply(state, step.player, GAME.parse_action(step.action))
        log.extend(line for e in events if (line := GAME.describe_event(e, NAMES)))
    result = GAME.outcome(state)
    assert result is not None
    assert result.model_dump(mode="json") == data["outcome"]
    assert log == data["log"]
    assert state == GAME.parse_state(json.dumps(data["final_state"]))
    assert replay(GAME, record) == state


def test_golden_record_through_the_cli() -> None:
    out = io.StringIO()
    assert main(["replay", str(GOLDEN)], out=out) == 0
    assert "Replay matches the record." in out.getvalue()
