"""``python -m engine`` with Santa's Workshop: simulate, replay (and its mismatch exit
code), a scripted terminal ``play`` session."""

from __future__ import annotations

import io
import json
import re
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
    assert "To act: You, to place an Elf; 3 Elves left today" in text
    assert text.count("places an Elf at the") + text.count("You place an Elf at the") == 3 * 18
    # the winners once: in the game's last log line and marked in the final scores
    final = text[text.index("Final scores:") :].splitlines()[1:]
    assert len(final) == 3 and text.count("★ winner") >= 1
    assert all(line.strip().split(":")[0] in {"You", "Bot 1", "Bot 2"} for line in final)
    assert "(toy " in text or "(cooperation " in text  # the breakdown by source


def test_play_quits_on_q() -> None:
    out = io.StringIO()
    code = main(
        ["play", "--game", "workshop", "--players", "2", "--seed", "1"],
        out=out,
        inp=io.StringIO("q\n"),
    )
    assert code == 0 and "Bye." in out.getvalue()
    assert "1. Wood Shop, 1st space: 2 Wood" in out.getvalue()
    assert "[1-9, ? help, b board, q quit]> " in out.getvalue()  # the prompt names the keys


def play_text(answers: str, seed: int = 7) -> str:
    out = io.StringIO()
    main(
        ["play", "--game", "workshop", "--players", "3", "--seed", str(seed)],
        out=out,
        inp=io.StringIO(answers),
    )
    return out.getvalue()


def test_the_board_is_reprinted_only_where_it_changed_and_whole_on_b() -> None:
    # seed 7: You place an Elf in the Mail Room (6), take the first toy (1) twice
    text = play_text("6\n1\nq\n")
    turns = text.split("=== Santa's Workshop")[1:]
    assert len(turns) == 3
    first, second, third = turns
    assert "Stations:" in first and "Legend:" in first and "Bot 1: 0 points" in first
    # after the placement: the stations changed, the other players' areas did not
    assert "Stations:" in second and "Bot 2:" not in second and "Legend:" not in second
    # after taking a toy, the stations are as they were
    assert "Stations:" not in third and "You: 0 points" in third
    # b prints the whole board again, then the same menu
    again = play_text("6\n1\nb\nq\n").split("=== Santa's Workshop")[1:]
    assert len(again) == 4 and "Stations:" in again[3] and "Bot 2:" in again[3]
    assert again[3].count("Take the top card of the toy deck") == 1


def test_the_toy_list_is_shown_once_while_taking_toys() -> None:
    second = play_text("6\nq\n").split("=== Santa's Workshop")[2]
    assert "Mail Room (deck 31, sleigh 0): its toys are your choices below" in second
    assert second.count("Wooden Blocks") == 1  # in the menu only
    assert "1. Take Wooden Blocks (W2 A1, 4 points) from slot 1" in second


def test_w2_2_elves_left_right_after_a_placement() -> None:
    second = play_text("1\nq\n").split("=== Santa's Workshop")[2]
    assert "To act: You, to place or donate tokens; 2 Elves left today" in second
    assert " You: 0 points, 2 Elves left" in second


def test_grammar_of_the_terminal_game() -> None:
    text = play_text("1\n1\n" * 4 + "q\n")
    assert "You place an Elf at the Wood Shop" in text and "You places" not in text
    assert "You receive 2 Wood." in text and "You receives" not in text
    assert "Bot 2 scores 1 point (" in text and "+1 (" not in text
    assert not re.search(r"(?<!\d)1 points", text) and " pts" not in text
    assert text.count("Legend: * first player · W Wood, M Metal, F Fabric, A Assembly") == 1
