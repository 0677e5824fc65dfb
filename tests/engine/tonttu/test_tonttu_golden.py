"""The golden playthroughs replay to the same events (byte for byte), log, outcome and
final state, in both modes."""

from __future__ import annotations

import json

import pytest
from make_tonttu_golden import MODES, NAMES, build_golden, golden_path

from engine.records import Record, replay
from engine.tonttu import GAME


@pytest.mark.parametrize("mode", MODES)
def test_golden_record_replays_exactly(mode: str) -> None:
    data = json.loads(golden_path(mode).read_text(encoding="utf-8"))
    record = Record.model_validate(data)
    state = GAME.new_game(record.players, record.seed, GAME.parse_options(record.options))
    log: list[str] = []
    for step, expected in zip(record.actions, data["events"], strict=True):
        state, events = GAME.apply(state, step.player, GAME.parse_action(step.action))
        assert [event.model_dump_json() for event in events] == expected
        log.extend(line for e in events if (line := GAME.describe_event(e, NAMES)))
    result = GAME.outcome(state)
    assert result is not None
    assert result.model_dump(mode="json") == data["outcome"]
    assert log == data["log"]
    assert state.model_dump_json() == json.dumps(data["final_state"], separators=(",", ":"))
    assert replay(GAME, record) == state


@pytest.mark.parametrize("mode", MODES)
def test_golden_file_is_what_the_engine_writes(mode: str) -> None:
    """The same seed and choices still make the very same file."""
    written = json.dumps(build_golden(mode), indent=1) + "\n"
    assert written == golden_path(mode).read_text(encoding="utf-8")
