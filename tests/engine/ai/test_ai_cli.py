"""``python -m engine simulate --seats …`` and ``play --opponents …``."""

from __future__ import annotations

import io
import json
from pathlib import Path

from engine.__main__ import main


def test_simulate_with_seats_writes_records_that_replay(tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["simulate", "--game", "tonttu", "--seats", "greedy,random,random", "--games", "3"]
    assert main([*argv, "--records", str(tmp_path)], out=out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    games, totals = lines[:-1], lines[-1]["totals"]
    assert len(games) == 3 and totals["games"] == 3
    assert all(g["seats"] == {"p1": "greedy", "p2": "random", "p3": "random"} for g in games)
    assert sum(totals["wins"].values()) == 3
    for path in tmp_path.glob("tonttu-*.json"):
        replayed = io.StringIO()
        assert main(["replay", str(path)], out=replayed) == 0
        assert "Replay matches" in replayed.getvalue()


def test_simulate_seats_set_the_player_count() -> None:
    out = io.StringIO()
    argv = ["simulate", "--game", "workshop", "--players", "4", "--seats", "greedy,random"]
    assert main([*argv, "--games", "1"], out=out) == 0
    first = json.loads(out.getvalue().splitlines()[0])
    assert first["players"] == ["p1", "p2"]


def test_simulate_rejects_an_unknown_level() -> None:
    out = io.StringIO()
    err = io.StringIO()
    assert main(["simulate", "--seats", "greedy,genius"], out=out, err=err) == 2
    assert "Unknown level(s) genius" in err.getvalue() and not out.getvalue()


def test_play_against_greedy_opponents() -> None:
    out = io.StringIO()
    answers = io.StringIO("1\n" * 400)
    argv = ["play", "--game", "tonttu", "--players", "3", "--seed", "4", "--opponents", "greedy"]
    assert main(argv, out, answers) == 0
    text = out.getvalue()
    assert "computer players at level greedy" in text
    assert "Final scores" in text and "★ Winner" in text
