"""cogs/helpers/common.py: error sentences in the reader's language, and views that
leave nothing to the garbage collector."""

from __future__ import annotations

import gc
import weakref

import pytest

import i18n
from cogs.helpers.common import components, sentence_for
from cogs.table.components import ActButton
from engine.core import IllegalAction
from engine.undo import GAME_OVER, CannotUndo
from storage import ChannelBusy, Conflict, GameNotFound
from storage.errors import AlreadySeated, LobbyFull, NotSeated, StorageError
from tables.service import BadChoice

DE = i18n.words("de")


@pytest.mark.parametrize(
    ("error", "german"),
    [
        (
            ChannelBusy(1, 5, "tonttu", "active"),
            "In diesem Kanal gibt es schon ein Spiel „Werkstatt-Tonttu“ (#5, läuft); "
            "beende es oder brich es ab, bevor du ein neues startest.",
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
        (CannotUndo(GAME_OVER), "Das Spiel ist vorbei; es lässt sich nichts mehr zurücknehmen."),
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


async def test_a_sent_view_is_freed_without_the_garbage_collector() -> None:
    """A panel's view and its items point at each other; once its JSON is made the view
    lets go of them, so it is freed as soon as the message is sent, not at the next
    garbage collection (collections pause every table's answers)."""
    view = components()
    for index in range(3):
        view.add_item(ActButton(7, 2, index, f"choice {index}"))
    sent = view.to_components()
    assert [b["custom_id"] for b in sent[0]["components"]] == [
        "act:7:2:0",
        "act:7:2:1",
        "act:7:2:2",
    ]
    assert view.to_components() == sent  # a retried send sends the same
    gone = weakref.ref(view)
    gc.disable()
    try:
        del view
        assert gone() is None
    finally:
        gc.enable()
