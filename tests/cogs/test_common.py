"""Error sentences in the reader's language (issue 16)."""

from __future__ import annotations

import pytest

import i18n
from cogs.common import sentence_for
from cogs.service import BadChoice
from engine.core import IllegalAction
from engine.undo import GAME_OVER, CannotUndo
from storage import ChannelBusy, Conflict, GameNotFound
from storage.errors import AlreadySeated, LobbyFull, NotSeated, StorageError

DE = i18n.words("de")


@pytest.mark.parametrize(
    ("error", "german"),
    [
        (
            ChannelBusy(1, 5, "tonttu", "active"),
            "In diesem Kanal gibt es schon ein Spiel „Werkstatt-Tonttu“ (#5, läuft); "
            "beende oder verwirf es, bevor du ein neues startest.",
        ),
        (
            Conflict(5, 3, 4),
            "Spiel #5 hat sich geändert, seit du es angesehen hast; sieh noch einmal nach "
            "und versuche es erneut.",
        ),
        (
            AlreadySeated(5),
            "Du hast schon einen Platz in Spiel #5.",
        ),
        (
            LobbyFull(5, seats=6),
            "Spiel #5 ist voll: Es hat höchstens 6 Plätze.",
        ),
        (
            NotSeated(5),
            "Dieser Spieler hat keinen Platz in Spiel #5.",
        ),
        (GameNotFound(5), "Dieses Spiel gibt es nicht mehr."),
        (
            BadChoice("That choice is not on the list; open the panel again."),
            "Diese Wahl steht nicht auf der Liste; öffne das Menü noch einmal.",
        ),
        (CannotUndo(GAME_OVER), "Das Spiel ist vorbei; nichts kann mehr zurückgenommen werden."),
    ],
)
def test_an_expected_error_in_german_and_unchanged_in_english(
    error: Exception, german: str
) -> None:
    english = sentence_for(error)
    if not isinstance(error, GameNotFound):
        assert english == str(error)
    assert sentence_for(error, DE) == german


def test_a_storage_sentence_the_table_does_not_know_stays_english() -> None:
    error = StorageError("The database is read-only.")
    assert sentence_for(error, DE) == "The database is read-only."

    class Changed(AlreadySeated):
        sentence = "You already sit at table #{game}."  # storage's wording changed

    changed = Changed(5)
    assert sentence_for(changed, DE) == "You already sit at table #5."


def test_a_bug_has_no_sentence() -> None:
    assert sentence_for(KeyError("x"), DE) is None
    assert sentence_for(IllegalAction("That is not a move."), DE) == "That is not a move."
