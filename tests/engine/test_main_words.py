"""``python -m engine``'s command line speaks to people: a mistake names what they typed
under the usage of the command they typed it after (``./dev play`` when ``./dev`` runs
it), the levels have the names they have on Discord, and ``--help`` is in one language:
argparse's own words go through the same translator as the rest.
"""

from __future__ import annotations

import argparse
import io
import json
import re

import pytest

import engine.__main__ as cli
from engine.__main__ import main


def mistake(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    """The lines a mistake on the command line prints (it exits with status 2)."""
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert not captured.out and "Traceback" not in captured.err
    return captured.err.splitlines()


def test_a_mistake_names_what_was_typed_under_dev_plays_own_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = mistake(capsys, "--prog", "./dev", "play", "chess", "3")
    assert lines[0].startswith("usage: ./dev play ") and "[game] [players]" in " ".join(lines)
    assert lines[-1] == (
        "./dev play: error: argument game: there is no game 'chess': the games are"
        " workshop (Santa's Workshop) and tonttu (Workshop Tonttu)"
    )
    assert "--game" not in " ".join(lines) and "python -m" not in " ".join(lines)
    extra = mistake(capsys, "--prog", "./dev", "play", "workshop", "3", "extra")
    assert extra[0].startswith("usage: ./dev play ")  # play's usage, not the program's
    assert extra[-1] == "./dev play: error: unrecognized arguments: extra"
    level = mistake(capsys, "--prog", "./dev", "play", "--opponents", "genius")
    assert level[-1] == (
        "./dev play: error: argument --opponents: there is no level 'genius': the levels"
        " are easy, normal and hard"
    )
    count = mistake(capsys, "--prog", "./dev", "play", "tonttu", "three")
    assert count[-1] == "./dev play: error: argument players: 'three' is not a whole number"
    plain = mistake(capsys, "play", "chess")  # without --prog: the module's own name
    assert plain[-1].startswith("python -m engine play: error: argument game: there is no game")


@pytest.mark.parametrize(
    ("typed", "level"),
    [("easy", "random"), ("Normal", "greedy"), ("HARD", "strong"), ("greedy", "greedy")],
)
def test_the_opponents_level_by_its_discord_name_or_its_old_one(typed: str, level: str) -> None:
    args = cli.parse(["play", "tonttu", "4", "--opponents", typed])
    assert (args.game, args.players, args.opponents) == ("tonttu", 4, level)


def test_simulate_prints_each_seats_level_by_the_name_players_know(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = io.StringIO()
    seats = "normal,easy,greedy,random"  # the names, and the old ids still accepted
    assert main(["simulate", "--seats", seats, "--games", "1", "--seed", "3"], out=out) == 0
    line = json.loads(out.getvalue().splitlines()[0])
    assert line["seats"] == {"p1": "normal", "p2": "easy", "p3": "normal", "p4": "easy"}
    assert not set(out.getvalue().split('"')) & {"random", "greedy", "strong"}
    assert not capsys.readouterr().err


def test_the_opponents_level_is_named_as_players_know_it() -> None:
    out = io.StringIO()
    moves = io.StringIO("q\n")
    assert main(["play", "workshop", "2", "--opponents", "greedy", "--lang", "en"], out, moves) == 0
    assert "computer players at level normal." in out.getvalue()
    assert "greedy" not in out.getvalue()


def test_the_old_options_still_choose_the_game_and_players() -> None:
    args = cli.parse(["play", "--game", "tonttu", "--players", "5"])
    assert (args.game, args.players) == ("tonttu", 5)
    assert (cli.parse(["play"]).game, cli.parse(["play"]).players) == ("workshop", 3)


class Marking:
    """A translator that marks every text it was asked for: «text»."""

    def gettext(self, message: str, /) -> str:
        return f"«{message}»"

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return f"«{singular if n == 1 else plural}»"


def test_argparses_own_words_go_through_the_translator(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("i18n.words", lambda lang: Marking())
    with pytest.raises(SystemExit):
        main(["--prog", "./dev", "play", "--help"])
    shown = capsys.readouterr().out
    for words_of_argparse in ("usage: ", "positional arguments", "options"):
        assert f"«{words_of_argparse}»" in shown
    assert "«show this help message and exit»" in shown
    rest = shown
    while re.search("«[^«»]*»", rest):  # without every text the translator gave...
        rest = re.sub("«[^«»]*»", "", rest)
    # ...only the command line's own syntax is left: names, options, metavars
    assert set(rest.split()) <= {
        "./dev",
        "play",
        "game",
        "players",
        "-h,",
        "--help",
        "--lang",
        "--mode",
        "--seed",
        "--opponents",
        "SEED",
        "[-h]",
        "[--lang",
        "{en,de}]",
        "{en,de}",
        "[--mode",
        "{tactical,speed}]",
        "{tactical,speed}",
        "[--opponents",
        "{easy,normal,hard}]",
        "{easy,normal,hard}",
        "[--seed",
        "SEED]",
        "[game]",
        "[players]",
        ":",
    }, rest
    lines = mistake(capsys, "--prog", "./dev", "play", "--mode", "fast")
    assert lines[0].startswith("«usage: »./dev play")
    error = "«./dev play: error: «argument --mode: «invalid choice: 'fast'"
    assert error in "\n".join(lines)
    # afterwards argparse speaks its own English again, for anyone else
    assert argparse.ArgumentParser(prog="x").format_usage() == "usage: x [-h]\n"
