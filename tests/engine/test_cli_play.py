"""The terminal game of ``python -m engine play``, both games: the "is thinking" notice
of a slow computer player, and Ctrl-C."""

from __future__ import annotations

import io
import threading
from typing import Any

import pytest

import engine.__main__ as cli
from engine.__main__ import main, thinking
from i18n import words


class NotifyingOut(io.StringIO):
    """Output that tells a waiting thread when the thinking notice was written."""

    def __init__(self) -> None:
        super().__init__()
        self.noticed = threading.Event()

    def write(self, text: str) -> int:
        if "is thinking" in text:
            self.noticed.set()
        return super().write(text)


def test_a_decision_slower_than_the_threshold_shows_that_the_computer_is_thinking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli, "THINKING_NOTICE_SECONDS", 0.0)
    out = NotifyingOut()

    def slow() -> str:
        # a decision that lasts until the notice is out: no clock in the test
        assert out.noticed.wait(30)
        return "decided"

    assert thinking(out, "Bot 2", slow) == "decided"
    assert out.getvalue() == "  Bot 2 is thinking…\n"


def test_a_quick_decision_says_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "THINKING_NOTICE_SECONDS", 3600.0)
    out = io.StringIO()
    assert thinking(out, "Bot 2", lambda: 7) == 7
    assert out.getvalue() == ""


@pytest.mark.parametrize("game", ["workshop", "tonttu"])
def test_computer_opponents_that_think_long_say_so(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    monkeypatch.setattr(cli, "THINKING_NOTICE_SECONDS", 0.0)
    out = NotifyingOut()
    real_choose = cli.choose

    def slow_choose(*args: Any, **kwargs: Any) -> Any:
        assert out.noticed.wait(30)
        out.noticed.clear()
        return real_choose(*args, **kwargs)

    monkeypatch.setattr(cli, "choose", slow_choose)
    argv = ["play", "--game", game, "--players", "3", "--seed", "3", "--opponents", "random"]
    assert main(argv, out, io.StringIO("1\n" * 3 + "q\n")) == 0
    assert "  Bot 1 is thinking…\n" in out.getvalue() or "  Bot 2 is thinking…\n" in out.getvalue()


class InterruptedInput(io.StringIO):
    def readline(self, size: int | None = -1) -> str:
        raise KeyboardInterrupt


@pytest.mark.parametrize("game", ["workshop", "tonttu"])
def test_ctrl_c_says_bye_and_exits_130(game: str) -> None:
    out = io.StringIO()
    argv = ["play", "--game", game, "--players", "3", "--seed", "1"]
    assert main(argv, out, InterruptedInput()) == 130
    assert out.getvalue().endswith("\nBye.\n")


# --------------------------------------------------------------------------- in German


def play_tonttu(argv: list[str], answers: str = "1\n" * 400) -> str:
    out = io.StringIO()
    assert (
        main(["play", "--game", "tonttu", "--players", "3", *argv], out, io.StringIO(answers)) == 0
    )
    return out.getvalue()


def test_a_german_tonttu_game_is_german_from_start_to_end() -> None:
    text = play_tonttu(["--seed", "5", "--lang", "de"])
    assert text.startswith(
        "Werkstatt-Tonttu, Seed 5. Tippe die Nummer deiner Wahl; ? erklärt das Spiel, "
        "b zeigt den ganzen Spielplan, q beendet.\n"
    )
    assert "[1-3, ? Hilfe, b Spielplan, q beenden]> " in text  # the prompt
    assert "   1. Holz wählen\n" in text  # a menu
    assert " · fehlt: " in text and " · du kannst bezahlen" in text  # the point notes
    assert "  · Du hast verdeckt eine Karte gewählt.\n" in text  # the log, in the second person
    assert "  · Auswahl der Runde 1: Du Holz, Bot 1 Holz, Bot 2 Farbe.\n" in text
    assert "    Schaukelpferd (Spielzeug), gezeigt von dir: " in text  # a reveal
    assert "Deine Hand: " in text and "Werktisch" in text  # the board
    assert "  · Spielende: der Geschenkstapel ist aufgebraucht.\n" in text
    assert "Endwertung (das k-te Geschenk" in text and " Punkte = " in text
    assert text.rstrip().endswith("★ Sieger: Bot 2")
    english = play_tonttu(["--seed", "5", "--lang", "en"])
    assert english.rstrip().endswith("★ Winner: Bot 2")
    for word in ("Pick Wood", "You picked in secret.", "Round 1 picks", "Your hand", "Winner"):
        assert word in english and word not in text


def test_german_answers_to_a_wrong_key_and_q() -> None:
    text = play_tonttu(["--seed", "1", "--lang", "de"], answers="x\nq\n")
    assert (
        "Bitte gib eine Zahl von 1 bis 4 ein, ? für Hilfe, b für den Spielplan oder q zum"
        " Beenden.\n" in text
    )
    assert text.endswith("Tschüss.\n")


def test_lang_defaults_to_the_language_lang_names(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert cli.default_language() == "de"
    assert play_tonttu(["--seed", "1"], answers="q\n").startswith("Werkstatt-Tonttu, Seed 1.")
    assert play_tonttu(["--seed", "1", "--lang", "en"], answers="q\n").startswith(
        "Workshop Tonttu, seed 1."
    )
    for other in ("en_US.UTF-8", "C.UTF-8", "fr_FR.UTF-8", "", "deu"):
        monkeypatch.setenv("LANG", other)
        assert cli.default_language() == "en", other
    monkeypatch.delenv("LANG")
    assert cli.default_language() == "en"


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "en_US.UTF-8"}, "en"),  # LC_MESSAGES over LANG
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "de_AT.UTF-8"}, "de"),
        ({"LC_MESSAGES": "en_US.UTF-8", "LC_ALL": "de_CH.UTF-8"}, "de"),  # LC_ALL over both
        ({"LANG": "de_DE.UTF-8", "LC_ALL": "C"}, "en"),  # C or POSIX: English, whatever else
        ({"LANG": "de_DE.UTF-8", "LC_ALL": "POSIX", "LANGUAGE": "de"}, "en"),
        ({"LANG": "C.UTF-8", "LANGUAGE": "de"}, "en"),
        ({"LANG": "en_GB.UTF-8", "LANGUAGE": "de"}, "de"),  # LANGUAGE first...
        ({"LANG": "en_GB.UTF-8", "LANGUAGE": "fr:de_DE:en"}, "de"),  # ...its first we speak
        ({"LANG": "de_DE.UTF-8", "LANGUAGE": "en_GB:de"}, "en"),
        ({"LANG": "de_DE.UTF-8", "LANGUAGE": "fr"}, "de"),  # none spoken: the locale's
        ({"LANG": "de_DE.UTF-8", "LANGUAGE": ""}, "de"),  # empty is unset
        ({"LANGUAGE": "de"}, "de"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_is_read_from_the_environment_as_gettext_reads_it(
    environ: dict[str, str], lang: str
) -> None:
    assert cli.default_language(environ) == lang


def test_question_mark_shows_how_to_play_then_the_same_menu() -> None:
    out = io.StringIO()
    argv = ["play", "workshop", "2", "--seed", "1"]
    assert main(argv, out, io.StringIO("?\nhelp\nq\n")) == 0
    text = out.getvalue()
    assert "? explains the game" in text.splitlines()[0]
    assert text.count("How to play Santa's Workshop") == 2  # ? and help alike
    legend_at = text.index("How to play Santa's Workshop")
    assert "Now: place an Elf" in text[legend_at:]  # the legend of the phase at hand
    assert text[legend_at:].count("1. Wood Shop, 1st space") == 2  # the menu after each
    assert text.rstrip().endswith("Bye.")


def test_a_decision_met_the_first_time_is_explained_once() -> None:
    """Tonttu's first pick says what a pick is for, before the menu, and only then."""
    text = play_tonttu(["--seed", "2"])
    first = text.index("» Your first pick: the cards on your workbench pay for gifts")
    assert first < text.index("   1. Pick")  # before the first menu
    assert text.count("» Your first pick") == 1
    assert text.count("» Your first point") == 1


class GermanNotifyingOut(NotifyingOut):
    def write(self, text: str) -> int:
        if "denkt nach" in text:
            self.noticed.set()
        return super().write(text)


def test_a_german_thinking_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "THINKING_NOTICE_SECONDS", 0.0)
    out = GermanNotifyingOut()
    release = threading.Event()

    def slow() -> int:
        release.wait(30)
        return 1

    def wait_then_release() -> None:
        out.noticed.wait(30)
        release.set()

    threading.Thread(target=wait_then_release, daemon=True).start()
    assert thinking(out, "Bot 1", slow, words("de")) == 1
    assert out.getvalue() == "  Bot 1 denkt nach …\n"


def test_a_german_ctrl_c_and_a_german_mistake() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["play", "--game", "tonttu", "--players", "3", "--seed", "1", "--lang", "de"]
    assert main(argv, out, InterruptedInput()) == 130
    assert out.getvalue().endswith("\nTschüss.\n")
    argv = ["play", "--game", "tonttu", "--players", "7", "--lang", "de"]
    assert main(argv, io.StringIO(), io.StringIO(), err) == 2
    assert err.getvalue() == "Werkstatt-Tonttu spielen 3 bis 6 Spieler, nicht 7.\n"


@pytest.mark.parametrize("typed", ["hilfe", "Hilfe", "?", "help"])
def test_a_german_player_may_type_the_prompts_word_for_help(typed: str) -> None:
    """The German prompt reads "? Hilfe": ``hilfe`` shows the legend as ``?`` and ``help`` do."""
    out = io.StringIO()
    argv = ["play", "workshop", "2", "--seed", "1", "--lang", "de"]
    assert main(argv, out, io.StringIO(f"{typed}\nspielplan\nbeenden\n")) == 0
    text = out.getvalue()
    assert "? Hilfe, b Spielplan, q beenden]> " in text
    assert "So spielst du Santas Werkstatt" in text
    assert "Bitte gib eine Zahl" not in text  # nothing refused: spielplan and beenden too
    assert text.rstrip().endswith("Tschüss.")
