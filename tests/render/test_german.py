"""The pictures in German: the language code reaches every label, plurals
follow the count, regions drawn in one language are never pasted into a picture in the
other, and a language without a catalogue draws English."""

from __future__ import annotations

from typing import Any

import pytest

import i18n
import render
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP
from render import tonttu, workshop
from render.canvas import TILES, fresh_drawing
from render.chart import draw_chart, score_title
from tests.render.layout import recording
from tests.render.states import CHARTS, POSITIONS, names

GERMAN = i18n.words("de")


def _labels(monkeypatch: pytest.MonkeyPatch, draw: Any, *args: object) -> list[str]:
    with recording(monkeypatch) as layouts:
        draw(*args)
    return layouts[0].texts


def test_a_workshop_board_in_german(monkeypatch: pytest.MonkeyPatch) -> None:
    game, state = POSITIONS["workshop-2p-start"]()
    view = game.view(state, None)
    german = _labels(monkeypatch, workshop.draw_board, view, names(2), GERMAN)
    english = _labels(monkeypatch, workshop.draw_board, view, names(2))
    for label in ("Santas Werkstatt", "Tag 1 von 6 · 19. Dezember"):
        assert label in german
    assert {"Poststelle", "Spendenzentrale", "Weihnachtsbaum", "Am Zug:", "Holz"} <= set(german)
    assert "einen Wichtel platzieren" in german  # what the player to act decides
    assert {"0 Pkt.", "Wichtel: 3 übrig · Rentiere 0 · Baum 0/6"} <= set(german)
    assert "frei" in german and "Elf" not in german  # an empty Elf space
    # the material letters: H(olz), M(etall), S(toff), Mo(ntage), as the text board
    assert {"H", "M", "S", "Mo"} <= set(german) and "W" not in german
    for label in ("Santa's Workshop", "Day 1 of 6 · December 19", "Mail Room", "0 pts", "W"):
        assert label in english and label not in german


def test_plurals_follow_the_count_in_both_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    """1 Karte / 2 Karten, 1 card / 2 cards; 1 Runde / 2 Runden ohne Geschenk."""
    game, state = POSITIONS["tonttu-3p-pick"]()
    view = game.view(state, None)
    seats = [
        view.seats[0].model_copy(update={"hand_size": 1, "score": 1}),
        view.seats[1].model_copy(update={"hand_size": 2, "score": 2}),
        *view.seats[2:],
    ]
    for without, english, german in (
        (1, "1 round without a gift", "1 Runde ohne Geschenk"),
        (2, "2 rounds without a gift", "2 Runden ohne Geschenk"),
    ):
        changed = view.model_copy(update={"seats": seats, "rounds_without_gift": without})
        drawn_en = " | ".join(_labels(monkeypatch, tonttu.draw_board, changed, names(3)))
        drawn_de = " | ".join(_labels(monkeypatch, tonttu.draw_board, changed, names(3), GERMAN))
        assert english in drawn_en and german in drawn_de
        assert "1 card" in drawn_en and "2 cards" in drawn_en
        assert "1 Karte" in drawn_de and "2 Karten" in drawn_de
        assert "1 pt" in drawn_en and "2 pts" in drawn_en
        assert "1 Pkt." in drawn_de and "2 Pkt." in drawn_de


def test_a_pending_choice_is_described_again_in_german() -> None:
    """The view carries the English menu label (the computer players read it back); the
    private picture draws the choice it stands for in German."""
    game, state = POSITIONS["tonttu-6p-pick"]()
    view = game.view(state, "p3")
    assert view.my_choice is not None and view.my_choice.startswith("Pick ")
    material = view.my_choice.removeprefix("Pick ")
    german = tonttu.MATERIAL_NAMES[material]
    assert tonttu.choice_label(view, GERMAN) == f"{GERMAN.gettext(german)} wählen"
    assert tonttu.choice_label(view, i18n.words("en")) == view.my_choice
    point = view.model_copy(update={"my_choice": "Point at face-down material 2"})
    assert tonttu.choice_label(point, i18n.words("en")) == "Point at face-down material 2"
    assert "2" in tonttu.choice_label(point, GERMAN)
    odd = view.model_copy(update={"my_choice": "something else"})
    assert tonttu.choice_label(odd, GERMAN) == "something else"  # never an error


def test_the_chart_in_german() -> None:
    timeline = CHARTS["chart-workshop-2p"]()
    figure = draw_chart(timeline, names(2), GERMAN)
    scores, bars = figure.axes
    assert scores.get_title(loc="left") == "Punktestand nach jedem Tag"
    assert scores.get_xlabel() == "Tag"
    assert bars.get_title(loc="left") == "Endwertung nach Herkunft"
    reasons = {t.get_text() for t in figure.legends[1].get_texts()}
    assert "Spielzeuge" in reasons and "toys" not in reasons
    assert score_title("Round", GERMAN) == "Punktestand nach jeder Runde"
    assert score_title("Round") == "Score after each round"


def test_the_language_code_reaches_the_drawing_and_unknown_ones_draw_english() -> None:
    game, state = POSITIONS["workshop-2p-mid"]()
    view = game.view(state, None)
    table = names(2)
    english = render.render_board(view, table)
    assert render.render_board(view, table, "en") == english
    assert render.render_board(view, table, "fr") == english  # no catalogue: English
    german = render.render_board(view, table, "de")
    assert german != english
    assert german == workshop.render_board(view, table, GERMAN)
    private = TONTTU.view(POSITIONS["tonttu-3p-pick"]()[1], "p1")
    assert render.render_private(private, names(3), "de") == tonttu.render_private(
        private, names(3), GERMAN
    )


@pytest.mark.parametrize(
    ("module", "key"), [(workshop, "workshop-5p-mid"), (tonttu, "tonttu-6p-pick")]
)
def test_tiles_of_one_language_never_reach_a_picture_in_the_other(module: Any, key: str) -> None:
    """The same regions drawn in turns in English and German, with the tiles: every
    picture is the one drawn from scratch in its own language."""
    TILES.clear()
    _, state = POSITIONS[key]()
    table = names(len(state.players))
    rules = WORKSHOP if key.startswith("workshop") else TONTTU
    views = [rules.view(state, None), rules.view(state, state.players[1])]
    for _ in range(2):
        for lang in ("en", "de", "en", "de"):
            words = i18n.words(lang)
            for draw, view in zip((module.draw_board, module.draw_private), views, strict=True):
                tiled = draw(view, table, words)
                with fresh_drawing():
                    fresh = draw(view, table, words)
                assert tiled.image.tobytes() == fresh.image.tobytes(), (lang, draw.__name__)
    assert TILES.hits > 0
