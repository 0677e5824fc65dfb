"""The board picture is made for a phone's chat: scaled to 400 px wide, as
Discord shows it on a phone, its smallest text is at least 9 px, no symbol a player must
tell apart (a token, a dot, a chip, a star, a card's back, an ornament) is under 8 px,
and it is at most 1.3 times as tall as it is wide.

Measured from the drawing code's own sizes: the canvas records the smallest font size
and the smallest symbol it draws (pasted tiles carry theirs), so this cannot drift from
the drawing. Text size is the font's em size, the size the picture asks the font for
(a 20 px font at 1200 px wide is the "7 px" text the issue measured)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

import i18n
from render import render_board, render_private, tonttu, workshop
from render.canvas import (
    CHAT_MAX_ASPECT,
    CHAT_MIN_SYMBOL,
    CHAT_MIN_TEXT,
    CHAT_WIDTH,
    Canvas,
    fresh_drawing,
)
from tests.render.states import POSITIONS, names

MID_GAME = ["workshop-2p-mid", "workshop-5p-mid", "tonttu-3p-pick", "tonttu-6p-pick"]
"""Both games mid-game with the fewest and the most players the test positions have
(Santa's Workshop 2 and 5, Workshop Tonttu 3 and 6: its fewest)."""


def _check(canvas: Canvas, what: str) -> None:
    text, symbol, aspect = canvas.at_chat_width()
    assert text >= CHAT_MIN_TEXT, f"{what}: smallest text {text:.1f} px at {CHAT_WIDTH} px wide"
    assert symbol >= CHAT_MIN_SYMBOL, f"{what}: smallest symbol {symbol:.1f} px"
    assert aspect <= CHAT_MAX_ASPECT, f"{what}: {canvas.width}x{canvas.height}"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("key", list(POSITIONS))
def test_the_board_reads_at_400_px_wide(key: str, lang: str) -> None:
    game, state = POSITIONS[key]()
    module = workshop if game.name == "workshop" else tonttu
    table = names(len(state.players))
    with fresh_drawing():  # every region drawn, none pasted
        canvas = module.draw_board(game.view(state, None), table, i18n.words(lang))
    _check(canvas, f"{key} {lang}")
    assert canvas.smallest_symbol < 10_000  # symbols were recorded at all


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("key", MID_GAME)
def test_every_players_panel_picture_reads_at_400_px_wide(key: str, lang: str) -> None:
    """Each player's whole area, in their own panel picture, follows the same rule."""
    game, state = POSITIONS[key]()
    module = workshop if game.name == "workshop" else tonttu
    table = names(len(state.players))
    for player in state.players:
        canvas = module.draw_private(game.view(state, player), table, i18n.words(lang))
        _check(canvas, f"{key} {player} {lang}")


@pytest.mark.parametrize("key", MID_GAME)
def test_the_posted_png_has_the_measured_size(key: str) -> None:
    """The bytes the bot posts are the canvas measured above (no scaling after it)."""
    game, state = POSITIONS[key]()
    module = workshop if game.name == "workshop" else tonttu
    table = names(len(state.players))
    view = game.view(state, None)
    canvas = module.draw_board(view, table)
    posted = Image.open(io.BytesIO(render_board(view, table)))
    assert posted.size == (canvas.width, canvas.height)
    own = game.view(state, state.players[0])
    private = Image.open(io.BytesIO(render_private(own, table)))
    assert private.size[1] <= private.size[0] * CHAT_MAX_ASPECT


def test_the_canvas_records_a_symbol_too_small_for_the_chat() -> None:
    """The check sees what is drawn: dots of 3 px radius on an 800 px picture are 3 px
    across at 400 px wide, and a 14 px font is 7 px."""
    canvas = Canvas(800, 600)
    canvas.pips(10, 10, 1, 3, (0, 0, 0), r=3)
    assert canvas.at_chat_width()[1] == 3
    canvas.text(10, 40, "small", 14)  # raised to the smallest font size drawn
    assert canvas.at_chat_width()[0] == 10
    assert canvas.at_chat_width()[2] == 0.75


@pytest.mark.parametrize(
    ("kind", "count"),
    [("workshop", n) for n in (2, 3, 4, 5)] + [("tonttu", n) for n in (3, 4, 5, 6)],
)
def test_random_games_fit_the_chat_in_every_language(
    kind: str, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Along a random game of each player count (every 10th decision and the end), the
    board keeps the 400 px rule, and no label of the board or of a panel picture is cut,
    leaves the picture or lies on another, in every language."""
    from engine.core import Rng
    from engine.records import pick_random
    from engine.tonttu import GAME as TONTTU
    from engine.workshop import GAME as WORKSHOP
    from tests.render.layout import problems, recording
    from tests.render.states import players

    game: Any = WORKSHOP if kind == "workshop" else TONTTU
    module: Any = workshop if kind == "workshop" else tonttu
    seats, table = players(count), names(count)
    state = game.new_game(seats, 3, game.parse_options({}))
    rng = Rng(3)
    decision = 0
    while True:
        if decision % 10 == 0 or game.outcome(state) is not None:
            for lang in i18n.LANGUAGES:
                words = i18n.words(lang)
                with recording(monkeypatch) as layouts:
                    board = module.draw_board(game.view(state, None), table, words)
                    viewer = seats[decision % count]
                    module.draw_private(game.view(state, viewer), table, words)
                _check(board, f"{kind} {count} players, decision {decision}, {lang}")
                for layout in layouts:
                    assert problems(layout, table.values()) == [], (decision, lang)
        if game.outcome(state) is not None:
            break
        player, action = pick_random(game, state, rng)
        state, _ = game.apply(state, player, action)
        decision += 1
