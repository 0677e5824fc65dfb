"""``python -m engine`` with Santa's Workshop: simulate, replay (and its mismatch exit
code), a scripted terminal ``play`` session."""

from __future__ import annotations

import io
import json
from pathlib import Path

from engine.__main__ import main


def test_simulate_writes_records_that_replay(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(
        [
            "simulate",
            "--game",
            "workshop",
            "--players",
            "3",
            "--games",
            "2",
            "--seed",
            "5",
            "--records",
            str(tmp_path),
        ],
        out=out,
    )
    assert code == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 3 and lines[-1]["totals"]["games"] == 2
    assert all(set(line["scores"]) == {"p1", "p2", "p3"} for line in lines[:2])
    files = sorted(tmp_path.glob("workshop-*.json"))
    assert len(files) == 2
    record = json.loads(files[0].read_text())
    assert record["game"] == "workshop" and record["options"] == {}
    assert record["players"] == ["p1", "p2", "p3"]
    outcome = record["outcome"]
    assert set(outcome) >= {"scores", "winners", "players"}
    detail = outcome["players"]["p1"]
    assert set(detail["breakdown"]) == {
        "toy",
        "cooperation",
        "donation",
        "ornament",
        "tree",
        "inspection",
        "unfinished",
        "reindeer",
    }
    assert len(detail["cheer"]) == 2 and isinstance(detail["unfinished_tokens"], int)
    assert all(isinstance(name, str) for name in detail["reindeer"])
    assert record["actions"][0]["action"]["kind"] == "place_elf"

    replayed = io.StringIO()
    assert main(["replay", str(files[0])], out=replayed) == 0
    assert "Replay matches" in replayed.getvalue()


def test_replay_mismatch_exits_non_zero(tmp_path: Path) -> None:
    main(
        [
            "simulate",
            "--game",
            "workshop",
            "--players",
            "2",
            "--games",
            "1",
            "--seed",
            "9",
            "--records",
            str(tmp_path),
        ],
        out=io.StringIO(),
    )
    path = next(tmp_path.glob("workshop-*.json"))
    record = json.loads(path.read_text())
    record["outcome"]["scores"]["p1"] += 1
    path.write_text(json.dumps(record))
    out = io.StringIO()
    assert main(["replay", str(path)], out=out) == 1
    assert "MISMATCH" in out.getvalue()
    # an action that is not legal where it stands also fails
    record["actions"][0]["action"] = {"kind": "take_reindeer", "stall": 0}
    path.write_text(json.dumps(record))
    out = io.StringIO()
    assert main(["replay", str(path)], out=out) == 1
    assert "Replay failed" in out.getvalue()


def test_scripted_terminal_play_to_the_end() -> None:
    # always choose the first listed option: a whole game from the human seat
    inp = io.StringIO("oops\n" + "1\n" * 2000)
    out = io.StringIO()
    assert (
        main(["play", "--game", "workshop", "--players", "3", "--seed", "4"], out=out, inp=inp) == 0
    )
    text = out.getvalue()
    assert "Please type a number" in text
    assert "Day 1 of 6 (December 19)" in text and "Game over" in text
    assert "Winner(s):" in text
    assert "To act: You, to place an Elf" in text
    assert text.count("places an Elf at the") == 3 * 18  # every Elf of the game is logged


def test_play_quits_on_q() -> None:
    out = io.StringIO()
    code = main(
        ["play", "--game", "workshop", "--players", "2", "--seed", "1"],
        out=out,
        inp=io.StringIO("q\n"),
    )
    assert code == 0 and "Bye." in out.getvalue()
    assert "1. Wood Shop, 1st space: 2 Wood" in out.getvalue()
