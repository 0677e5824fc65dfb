"""engine.records: the record format (docs/records.md) stays compatible, and a running
game's partial record is refused by ``replay`` with a sentence, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import get_game
from engine.records import PartialRecord, Record, random_playout, replay

ROOT = Path(__file__).resolve().parents[2]


def run_replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_a_record_written_before_the_export_fields_still_loads_and_replays() -> None:
    game = get_game("workshop")
    state, record = random_playout(game, ["a", "b"], seed=3)
    old = {k: v for k, v in json.loads(record.model_dump_json()).items() if k in {
        "game", "seed", "players", "options", "actions", "outcome"}}  # fmt: skip
    loaded = Record.model_validate(old)
    assert loaded.replayable and loaded.names == {} and loaded.format == 1
    assert replay(game, loaded).model_dump() == state.model_dump()


def test_replay_stops_after_the_moves_asked_for() -> None:
    game = get_game("tonttu")
    _state, record = random_playout(game, ["a", "b", "c"], seed=5)
    expected = game.new_game(record.players, 5, game.parse_options(record.options))
    for step in record.actions[:7]:
        expected, _ = game.apply(expected, step.player, game.parse_action(step.action))
    assert replay(game, record, upto=7).model_dump() == expected.model_dump()
    assert (
        replay(game, record, upto=0).model_dump()
        == game.new_game(record.players, 5, game.parse_options(record.options)).model_dump()
    )


def test_a_partial_record_cannot_be_replayed(tmp_path: Path) -> None:
    partial = Record(
        game="tonttu",
        players=["a", "b", "c"],
        options={"mode": "tactical"},
        finished=False,
        moves=12,
        public_log=[],
        board={},
    )
    with pytest.raises(PartialRecord, match=r"exported \(at move 12\)"):
        replay(get_game("tonttu"), partial)
    path = tmp_path / "running.json"
    path.write_text(partial.model_dump_json(exclude_none=True))
    done = run_replay(path)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "still running when it was exported (at move 12)" in done.stderr
    assert "Export the game again once it has finished" in done.stderr


def test_an_exported_record_with_names_replays_on_the_command_line(tmp_path: Path) -> None:
    _state, record = random_playout(get_game("workshop"), ["1", "ai:1"], seed=9)
    named = record.model_copy(update={"names": {"1": "Aino", "ai:1": "Elf"}, "game_id": 4})
    path = tmp_path / "workshop-game-4-final.json"
    path.write_text(named.model_dump_json(indent=1, exclude_none=True))
    done = run_replay(path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("Replay matches the record.\n")
