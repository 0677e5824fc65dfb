"""``python -m engine simulate --seats …`` and ``play --opponents …``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engine.__main__ import main


def test_simulate_with_seats_writes_records_that_replay(tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["simulate", "--game", "tonttu", "--seats", "greedy,random,random", "--games", "3"]
    assert main([*argv, "--records", str(tmp_path)], out=out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    games, totals = lines[:-1], lines[-1]["totals"]
    assert len(games) == 3 and totals["games"] == 3
    # the levels by the names players know them by
    assert all(g["seats"] == {"p1": "normal", "p2": "easy", "p3": "easy"} for g in games)
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


def test_simulate_rejects_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_:  # argparse's mistake: the usage, then one line
        main(["simulate", "--seats", "hard,genius"], out=out)
    assert exit_.value.code == 2 and not out.getvalue()
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == (
        "python -m engine simulate: error: argument --seats: there is no level 'genius':"
        " the levels are easy, normal and hard"
    )


def test_the_levels_are_named_as_on_discord_and_the_old_names_still_work() -> None:
    out = io.StringIO()
    argv = ["simulate", "--game", "tonttu", "--seats", "Hard,normal,easy", "--games", "1"]
    assert main([*argv, "--seed", "3"], out=out) == 0
    assert json.loads(out.getvalue().splitlines()[0])["seats"] == {
        "p1": "hard",  # as players know them, not strong, greedy, random
        "p2": "normal",
        "p3": "easy",
    }
    old = io.StringIO()
    argv = ["simulate", "--game", "tonttu", "--seats", "strong,greedy,random", "--games", "1"]
    assert main([*argv, "--seed", "3"], out=old) == 0
    assert old.getvalue().splitlines()[0] == out.getvalue().splitlines()[0]


def test_play_against_greedy_opponents() -> None:
    out = io.StringIO()
    answers = io.StringIO("1\n" * 400)
    argv = ["play", "tonttu", "3", "--seed", "4", "--opponents", "greedy"]
    assert main(argv, out, answers) == 0
    text = out.getvalue()
    assert "computer players at level normal" in text  # greedy is the normal level
    assert "Final scores" in text and "★ Winner" in text
