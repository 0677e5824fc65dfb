"""Readable on a phone (issue 8): text at least 14 px high at the posted size, and player
identity shown by shape and seat number as well as colour."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops

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
from tests.render.states import POSITIONS, PRIVATE, names


@pytest.mark.parametrize("key", ["workshop-5p-mid", "workshop-2p-end", "tonttu-6p-pick"])
def test_no_text_is_smaller_than_14_px(key: str) -> None:
    game, state = POSITIONS[key]()
    module = workshop if game.name == "workshop" else tonttu
    table = names(len(state.players))
    drawn = [
        module.draw_board(game.view(state, None), table),
        module.draw_private(game.view(state, PRIVATE.get(key, state.players[0])), table),
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
