"""The golden playthroughs replay to the same events (byte for byte), log, outcome and
final state, in both modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from make_tonttu_golden import MODES, NAMES, SEED, build_golden, golden_path

from engine.records import Record, replay
from engine.tonttu import GAME
from engine.tonttu.models import PointMaterial


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


def before_t31_path(mode: str) -> Path:
    return golden_path(mode).with_name(f"before-t3.1-{mode}-4p-seed-{SEED}.json")


@pytest.mark.parametrize("mode", MODES)
def test_a_record_from_before_the_t31_choice_replays_identically(mode: str) -> None:
    """T-3.1: records stored before a material point carried ``face_down`` (these files
    are the golden playthroughs as the engine wrote them then, log lines left out) load
    with the default, face down, and replay to the very events, outcome and state."""
    data = json.loads(before_t31_path(mode).read_text(encoding="utf-8"))
    record = Record.model_validate(data)
    points = [a.action for a in record.actions if a.action["kind"] == "point_material"]
    assert points and all("face_down" not in point for point in points)
    state = GAME.new_game(record.players, record.seed, GAME.parse_options(record.options))
    for step, expected in zip(record.actions, data["events"], strict=True):
        action = GAME.parse_action(step.action)
        if action.kind == "point_material":
            assert action == PointMaterial(slot=step.action["slot"], face_down=True)
        state, events = GAME.apply(state, step.player, action)
        assert [event.model_dump_json() for event in events] == expected
    result = GAME.outcome(state)
    assert result is not None and result.model_dump(mode="json") == data["outcome"]
    assert state.model_dump_json() == json.dumps(data["final_state"], separators=(",", ":"))
    assert replay(GAME, record) == state
    # and the same record with the default written out replays the same
    explicit = record.model_copy(
        update={
            "actions": [
                a.model_copy(update={"action": GAME.parse_action(a.action).model_dump()})
                for a in record.actions
            ]
        }
    )
    assert any(a.action.get("face_down") is True for a in explicit.actions)
    assert replay(GAME, explicit) == state
