"""``python -m engine`` for a person's mistakes: one sentence on stderr, a
non-zero exit status, never a traceback; Ctrl-C in the terminal game says "Bye.".

Every case runs the real command line as a subprocess (``sys.executable -m engine``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str, stdin: str = "", lang: str | None = None) -> subprocess.CompletedProcess[str]:
    env = None
    if lang is not None:  # LANG alone names the language: LC_ALL and the others would win
        others = {"LC_ALL", "LC_MESSAGES", "LANGUAGE"}
        env = {**{k: v for k, v in os.environ.items() if k not in others}, "LANG": lang}
    return subprocess.run(
        [sys.executable, "-m", "engine", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=env,
    )


@pytest.mark.parametrize(
    ("argv", "sentence"),
    [
        (
            ["play", "--game", "workshop", "--players", "6"],
            "Santa's Workshop is played by 2 to 5 players, not 6.",
        ),
        (["simulate", "--players", "7"], "Santa's Workshop is played by 2 to 5 players, not 7."),
        (
            ["play", "--game", "tonttu", "--players", "2"],
            "Workshop Tonttu is played by 3 to 6 players, not 2.",
        ),
        (
            ["play", "--game", "tonttu", "--players", "7"],
            "Workshop Tonttu is played by 3 to 6 players, not 7.",
        ),
        (
            ["simulate", "--game", "tonttu", "--seats", "greedy,random"],
            "Workshop Tonttu is played by 3 to 6 players, not 2.",
        ),
        (["bench", "--players", "1"], "Santa's Workshop is played by 2 to 5 players, not 1."),
        (["simulate", "--seats", "greedy,genius"], "argument --seats: there is no level 'genius'"),
        (["play", "--game", "workshop", "--mode", "speed"], "Santa's Workshop has no options"),
        (["replay", "no-such-record.json"], "Cannot read no-such-record.json"),
        (["replay", "pyproject.toml"], "pyproject.toml is not a game record"),
        (["simulate", "--games", "0"], "argument --games: 0 is not a positive number"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_a_mistake_is_a_sentence_and_a_non_zero_status(argv: list[str], sentence: str) -> None:
    result = run(*argv)
    assert result.returncode == 2, result
    assert sentence in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert sentence in lines[-1]
    if not sentence.startswith("argument "):  # argparse's own: the usage, then the error
        assert len(lines) == 1, result.stderr


def test_q_says_bye_and_exits_0() -> None:
    result = run("play", "--game", "workshop", "--players", "2", "--seed", "1", stdin="q\n")
    assert result.returncode == 0
    assert result.stdout.rstrip().endswith("Bye.") and not result.stderr


def test_ctrl_c_at_the_prompt_says_bye_and_exits_130() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "engine", "play", "--game", "workshop", "--players", "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    seen = b""
    prompted = threading.Event()

    def read_until_prompt() -> None:
        nonlocal seen
        assert process.stdout is not None
        while b"q quit]> " not in seen:
            chunk = process.stdout.read1(4096)
            if not chunk:
                return
            seen += chunk
        prompted.set()

    reader = threading.Thread(target=read_until_prompt, daemon=True)
    reader.start()
    try:
        assert prompted.wait(60), seen.decode()
        reader.join(5)
        process.send_signal(signal.SIGINT)
        rest, errors = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert (seen + rest).decode().rstrip().endswith("Bye.")
    assert b"Traceback" not in errors and b"KeyboardInterrupt" not in errors


def test_help_is_plain_text_with_every_command_and_the_defaults() -> None:
    result = run("--help")
    assert result.returncode == 0
    text = result.stdout
    assert "``" not in text and ":func:" not in text and ":class:" not in text
    for command, does in [
        ("play", "in the terminal"),
        ("simulate", "one JSON line per game"),
        ("replay", "check their outcomes"),
        ("bench", "games per second"),
    ]:
        assert any(line.split()[:1] == [command] and does in line for line in text.splitlines())
    simulate = run("simulate", "--help").stdout
    assert "--seats" in simulate and "(default: 10)" in simulate  # --games
    assert "(default: workshop)" in simulate and "(default: 4)" in simulate
    play = run("play", "--help").stdout
    assert "--opponents {easy,normal,hard}" in play and "b to see the whole board" in play
    assert "[game] [players]" in play and "you included; without it, 3" in play


# --------------------------------------------------------------------------- in German


def test_a_german_lang_makes_the_command_line_german() -> None:
    result = run(
        "play", "--game", "tonttu", "--players", "3", "--seed", "2", stdin="q\n", lang="de_DE.UTF-8"
    )
    assert result.returncode == 0, result
    assert result.stdout.startswith("Werkstatt-Tonttu, Seed 2. Tippe die Nummer deiner Wahl")
    assert result.stdout.rstrip().endswith("Tschüss.")
    mistake = run("play", "--game", "tonttu", "--players", "2", lang="de_DE.UTF-8")
    assert mistake.returncode == 2
    assert mistake.stderr == "Werkstatt-Tonttu spielen 3 bis 6 Spieler, nicht 2.\n"
    english = run("play", "--game", "tonttu", "--players", "2", "--lang", "en", lang="de_DE.UTF-8")
    assert english.stderr == "Workshop Tonttu is played by 3 to 6 players, not 2.\n"


def test_the_help_is_german_with_lang_de() -> None:
    result = run("--help", lang="de_DE.UTF-8")
    assert result.returncode == 0
    assert "Die Spiele ohne Discord: im Terminal spielen" in result.stdout
    assert "Beispiele:" in result.stdout
    play = run("play", "--help", "--lang", "de").stdout
    assert "Im Terminal spielen: du hast den ersten Platz" in play
    assert "--lang {en,de}" in play and "die Sprache der Texte" in play
    assert "welches Spiel (Vorgabe: workshop)" not in play  # --game: the older way, not shown
    assert "(default: " not in play
    # argparse's own words are German too: the help is in one language
    assert play.startswith("Aufruf: python -m engine play [-h]")
    for english in ("usage:", "options:", "positional arguments", "show this help"):
        assert english not in play and english not in result.stdout, english
    assert "Optionen:" in play and "diese Hilfe zeigen und beenden" in play
    assert "(default: en)" in " ".join(run("play", "--help", lang="C").stdout.split())  # English
    bad = run("simulate", "--games", "0", "--lang", "de")
    assert bad.returncode == 2 and "0 ist keine positive Zahl" in bad.stderr
    assert "Aufruf: " in bad.stderr and "Fehler: Argument --games: " in bad.stderr
    game = run("play", "Schach", lang="de_DE.UTF-8")
    assert game.stderr.splitlines()[-1] == (
        "python -m engine play: Fehler: Argument game: Ein Spiel 'Schach' gibt es nicht:"
        " die Spiele sind workshop (Santas Werkstatt) und tonttu (Werkstatt-Tonttu)"
    )
