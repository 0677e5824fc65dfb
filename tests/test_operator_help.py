"""``./dev storage --help`` and ``./dev i18n --help`` speak to an operator: plain
sentences naming the commands as typed, not a developer's docstring; storage's help
follows the terminal's language as ``./dev play --help`` does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import i18n.__main__ as i18n_cli
import storage.__main__ as storage_cli

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def storage_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, lang: str, *argv: str
) -> str:
    for name in LOCALE:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang)
    with pytest.raises(SystemExit) as exit_:
        storage_cli.main(["--prog", "./dev storage", *argv, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_storage_help_is_for_an_operator(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = storage_help(capsys, monkeypatch, "en_GB.UTF-8")
    assert text.startswith("usage: ./dev storage ")
    assert "The bot's database: check that every game replays as stored" in text
    assert "./dev storage check" in text and "./dev storage ratings --rebuild" in text
    assert "``" not in text and "python -m" not in text and "Command line:" not in text


def test_storage_help_follows_the_terminals_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = storage_help(capsys, monkeypatch, "de_DE.UTF-8")
    assert text.startswith("Aufruf: ./dev storage ")  # argparse's own words too
    assert "Die Datenbank des Bots: prüfen, dass jedes Spiel" in text
    assert "jedes Spiel in eine leere Datenbank kopieren" in text  # copy's summary
    assert "Jeder Befehl nennt seine eigenen Optionen: ./dev storage check --help" in text
    for english in ("usage:", "options", "The bot's database", "examples:"):
        assert english not in text, english
    check = storage_help(capsys, monkeypatch, "de_DE.UTF-8", "check")
    assert "Aufruf: ./dev storage check " in check
    flowing = " ".join(check.split())  # argparse wraps the lines
    assert "die Datenbank: sqlite:///pfad/zur/datei.db" in flowing and "(Standard: " in flowing


def test_dev_storage_help_in_a_german_terminal() -> None:
    env = {k: v for k, v in os.environ.items() if k not in LOCALE} | {"LANG": "de_DE.UTF-8"}
    shown = subprocess.run(
        ["./dev", "storage", "--help"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("Aufruf: ./dev storage ") and "Datenbank" in shown.stdout


def test_i18n_help_is_for_an_operator(capsys: pytest.CaptureFixture[str]) -> None:
    assert i18n_cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: ./dev i18n update [LANG]\n")
    assert "Updates the translation catalogues" in text and "./dev i18n update de" in text
    assert "``" not in text and "python -m i18n" not in text
    assert i18n_cli.main(["translate"]) == 2  # a mistake: the same help, on stderr
    assert "usage: ./dev i18n update [LANG]" in capsys.readouterr().err
