"""Readable on a phone: text at least 14 px high at the posted size, and player
identity shown by shape and seat number as well as colour. In every language (the
German words are longer): labels stay whole, inside the picture and clear of each other.
"""

from __future__ import annotations

from typing import Any

import pytest
from matplotlib.text import Text
from PIL import Image, ImageChops

import i18n
from engine.words import Words
from render import tonttu, workshop
from render.canvas import (
    MIN_TEXT_PX,
    PAPER,
    PLAYER_COLOURS,
    Canvas,
    drawable,
    font,
    player_name,
)
from render.chart import draw_chart
from tests.render.layout import problems, recording
from tests.render.states import CHARTS, POSITIONS, PRIVATE, names

LANGUAGES = i18n.LANGUAGES


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("key", ["workshop-5p-mid", "workshop-2p-end", "tonttu-6p-pick"])
def test_no_text_is_smaller_than_14_px(key: str, lang: str) -> None:
    game, state = POSITIONS[key]()
    module = workshop if game.name == "workshop" else tonttu
    table = names(len(state.players))
    words = i18n.words(lang)
    drawn = [
        module.draw_board(game.view(state, None), table, words),
        module.draw_private(game.view(state, PRIVATE.get(key, state.players[0])), table, words),
    ]
    for canvas in drawn:
        assert canvas.smallest_text >= MIN_TEXT_PX
    _, top, _, bottom = font(MIN_TEXT_PX).getbbox("H")
    assert bottom - top >= 14  # a capital letter of the smallest text


def silhouette(seat: int) -> Image.Image:
    """A token drawn in black and white: what is left without colour."""
    canvas = Canvas(60, 60, PAPER)
    canvas.token(30, 30, seat, r=20)
    shape = canvas.image.convert("L")
    return shape.point(lambda v: 255 if v < 200 else 0)


def test_every_seat_has_its_own_shape_and_number() -> None:
    shapes = [silhouette(seat) for seat in range(len(PLAYER_COLOURS))]
    for a in range(len(shapes)):
        for b in range(a + 1, len(shapes)):
            diff = ImageChops.difference(shapes[a], shapes[b]).histogram()[255]
            assert diff > 100, f"seats {a + 1} and {b + 1} look alike without colour"


def _deuteranope(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    """Machado et al. (2009) deuteranopia simulation, severity 1 (on linear-ish values)."""
    r, g, b = (v / 255 for v in rgb)
    return (
        0.367 * r + 0.861 * g - 0.228 * b,
        0.280 * r + 0.673 * g + 0.047 * b,
        -0.012 * r + 0.043 * g + 0.969 * b,
    )


def test_player_colours_stay_apart_for_a_deuteranope() -> None:
    seen = [_deuteranope(c) for c in PLAYER_COLOURS]
    for a in range(len(seen)):
        for b in range(a + 1, len(seen)):
            distance = sum((x - y) ** 2 for x, y in zip(seen[a], seen[b], strict=True)) ** 0.5
            assert distance > 0.2, (PLAYER_COLOURS[a], PLAYER_COLOURS[b])


def test_names_lose_the_characters_the_font_cannot_draw_instead_of_showing_boxes() -> None:
    assert drawable("Santa 🎅") == "Santa"
    assert drawable("🎄 Łukasz  Ærø 🎄") == "Łukasz Ærø"  # accents and other scripts stay
    assert drawable("Ζωή ☃") == "Ζωή ☃"
    assert player_name({"p1": "🎅🎄"}, "p1") == "Player"  # nothing drawable is left
    # and the board drawn with the emoji names is the board drawn without them
    game, state = POSITIONS["workshop-5p-mid"]()
    plain = names(len(state.players))
    festive = {player: f"{name} 🎅" for player, name in plain.items()}
    view = game.view(state, None)
    assert workshop.render_board(view, festive) == workshop.render_board(view, plain)


def _drawn_names(game: str, table: dict[str, str], words: Words) -> list[str]:
    """Names a picture may cut to their room: players' only (a toy's or a gift's name is
    wrapped or drawn in the condensed font, never cut)."""
    return list(table.values())


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("key", list(POSITIONS))
def test_every_label_fits_whole_inside_the_picture_and_clear_of_the_others(
    key: str, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """German labels are longer, yet none is cut short, leaves the picture or
    lies on another text or a row of dots; public and every player's private picture."""
    game, state = POSITIONS[key]()
    module = workshop if game.name == "workshop" else tonttu
    table = names(len(state.players))
    words = i18n.words(lang)
    with recording(monkeypatch) as layouts:
        module.draw_board(game.view(state, None), table, words)
        for player in state.players:
            module.draw_private(game.view(state, player), table, words)
    assert len(layouts) == 1 + len(state.players)
    known = _drawn_names(game.name, table, words)
    for layout in layouts:
        assert len(layout.texts) > 10
        assert problems(layout, known) == []


def test_the_layout_check_catches_a_label_too_long_for_its_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A translation twice as long as the Mail Room's deck line runs into its Elf spaces;
    one far longer than a player's counts runs into what their toys need."""

    class Long:
        def gettext(self, message: str) -> str:
            if message == "deck {deck} · sleigh {sleigh}":
                return "Kartenstapel {deck} · Schlitten {sleigh} · noch mehr Text hier"
            if message == "Elves left {n}":
                return "Wichtel, die noch übrig sind und Geschenke machen wollen: {n}"
            return message

        def ngettext(self, singular: str, plural: str, n: int) -> str:
            return singular if n == 1 else plural

    game, state = POSITIONS["workshop-2p-mid"]()
    with recording(monkeypatch) as layouts:
        workshop.draw_board(game.view(state, None), names(2), Long())
    found = problems(layouts[0], names(2).values())
    assert any(p.startswith("cut: 'Kartenstapel") for p in found), found
    assert any(p.startswith("cut: 'Wichtel, die") for p in found), found


def _chart_texts(figure: Any) -> list[Text]:
    """The texts matplotlib draws: titles, axis labels, legends, the bars' numbers, and the
    tick labels of the ticks inside each axis's limits."""
    texts: list[Text] = []
    for axes in figure.axes:
        texts += [axes.title, axes.xaxis.label, *axes.texts]
        for axis, (low, high) in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
            for tick in axis.get_major_ticks():
                if min(low, high) <= tick.get_loc() <= max(low, high):
                    texts.append(tick.label1)
    for legend in figure.legends:
        texts += legend.get_texts()
    return [t for t in texts if t.get_visible() and t.get_text()]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("key", list(CHARTS))
def test_every_chart_label_is_inside_the_chart_and_clear_of_the_others(key: str, lang: str) -> None:
    timeline = CHARTS[key]()
    figure = draw_chart(timeline, names(len(timeline.players)), i18n.words(lang))
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in _chart_texts(figure)]
    assert len(boxes) > 20
    width, height = figure.bbox.width, figure.bbox.height
    for text, box in boxes:
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height, text
    for k, (text, box) in enumerate(boxes):
        for other, second in boxes[k + 1 :]:
            assert not box.overlaps(second), (text, other)
