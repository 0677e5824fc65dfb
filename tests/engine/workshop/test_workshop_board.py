"""Santa's Workshop's board as text in German, and English unchanged (the
golden playthroughs hold the English boards)."""

from __future__ import annotations

from workshop_positions import ornament, start, toy, with_seat

from engine.workshop import GAME
from engine.workshop.text import YOU as YOU_NAME
from i18n import words

DE = words("de")
EN = words("en")
NAMES = {"ann": "Anna", "bob": "Ben", "cat": "Cat"}
YOU = {**NAMES, "ann": YOU_NAME}


def test_german_board_text() -> None:
    state = start(players=2, first=0)
    state = with_seat(state, 0, toys=(toy("Kite", 1, 0, 0, 0), toy("Toy Boat")))
    state = with_seat(state, 1, tree=(ornament("red", "points3"), -1, -1, -1, -1, -1), cheer=(3,))
    board = GAME.render_text(GAME.view(state, "ann"), NAMES, DE)
    lines = board.split("\n")
    assert lines[0] == "=== Santas Werkstatt: Tag 1 von 6 (19. Dezember), Startspieler Anna ==="
    assert lines[1] == "Am Zug: Anna, einen Wichtel platzieren; heute noch 3 Wichtel übrig"
    assert "Stationen:" in lines
    assert any(line.startswith("  Holzwerkstatt ") and "0/4" in line for line in lines)
    assert any(line.startswith("  Spendenzentrale ") and "offen" in line for line in lines)
    assert "*Anna: 0 Punkte, 3 Wichtel übrig, 0 Rentiere" in lines
    assert "    in Arbeit: Drachen [H1/1 S0/1 Mo0/1] 4 Punkte" in lines
    assert " Ben: 0 Punkte, 3 Wichtel übrig, 0 Rentiere, Freude 3" in lines
    assert "    Baum 1/6: Stern: 3 Punkte: rot (3 Punkte)" in lines
    assert "Spendenzentrale: H0 M0 S0 Mo0 | Vorrat: " in board
    assert "Übrige Kugeln: rot 5, gold 5, silber 5, blau 5, grün 5" in lines
    assert lines[-1].startswith("Legende: * Startspieler · H Holz, M Metall, S Stoff, Mo Montage")
    english = GAME.render_text(GAME.view(state, "ann"), NAMES)
    assert english.split("\n")[0] == (
        "=== Santa's Workshop: Day 1 of 6 (December 19), first player Anna ==="
    )
    assert english == GAME.render_text(GAME.view(state, "ann"), NAMES, EN)


def test_german_terminal_board_while_taking_toys() -> None:
    state = start(players=2, first=0).model_copy(update={"phase": 1, "station": 5, "mail_left": 3})
    board = GAME.terminal_board(GAME.view(state, "ann"), YOU, DE)
    deck = len(state.deck)
    assert (
        f"Poststelle (Stapel {deck}, Schlitten 0): ihre Spielzeuge stehen unten zur Wahl" in board
    )
    assert "Am Zug: Du, eine Spielzeugkarte nehmen; heute noch 2 Wichtel übrig" in board
