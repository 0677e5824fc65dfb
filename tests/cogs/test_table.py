"""The table's and the lobby's slash commands in German."""

from __future__ import annotations

from discord import app_commands

import i18n
from cogs.lobby import Lobby
from cogs.table import Table
from engine.words import ENGLISH

DE = i18n.words("de")


def texts(command: app_commands.Command[object, ..., object]) -> list[str]:
    """A command's description, its options' descriptions and its choices' names (but
    /rules' topics: ``cogs/helpers/rules_text.py``'s)."""
    out = [str(command.description)]
    for parameter in command.parameters:
        out.append(str(parameter.description))
        if command.name != "rules":
            out += [str(choice.name) for choice in parameter.choices]
    return out


def test_every_command_text_has_a_german_translation_within_discords_limit() -> None:
    commands = [*Table.__cog_app_commands__, *Lobby.__cog_app_commands__]
    assert {c.name for c in commands} >= {"newgame", "play", "undo", "me", "board", "abandon"}
    for command in commands:
        assert isinstance(command, app_commands.Command)
        for text in texts(command):
            german = DE.gettext(text)
            assert german != text, text
            assert 1 <= len(german) <= 100, german
            assert ENGLISH.gettext(text) == text
