"""Pictures drawn from reused tiles (``Canvas.reuse``) are the pictures drawn from
scratch, pixel for pixel: along random games of both kinds, where regions change,
move and come back, every public and private picture is drawn both ways and compared."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import Rng
from engine.records import pick_random
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP
from render import tonttu, workshop
from render.canvas import TILES, Canvas, fresh_drawing
from tests.render.states import names, players


def both_ways(draw: Any, view: Any, table: dict[str, str]) -> tuple[Canvas, Canvas]:
    tiled = draw(view, table)
    with fresh_drawing():
        fresh = draw(view, table)
    return tiled, fresh


@pytest.mark.parametrize(
    ("game", "module", "count", "options"),
    [
        (WORKSHOP, workshop, 2, {}),
        (WORKSHOP, workshop, 5, {}),
        (TONTTU, tonttu, 3, {}),
        (TONTTU, tonttu, 6, {"mode": "speed"}),
    ],
)
def test_tiled_pictures_equal_pictures_drawn_from_scratch(
    game: Any, module: Any, count: int, options: dict[str, str]
) -> None:
    TILES.clear()
    seats = players(count)
    table = names(count)
    state = game.new_game(seats, 5, game.parse_options(options))
    rng = Rng(5)
    drawn = 0
    while True:
        viewer = seats[drawn % count]
        for draw, view in (
            (module.draw_board, game.view(state, None)),
            (module.draw_private, game.view(state, viewer)),
        ):
            tiled, fresh = both_ways(draw, view, table)
            assert tiled.image.tobytes() == fresh.image.tobytes(), (drawn, draw.__name__)
            assert tiled.smallest_text == fresh.smallest_text
            assert tiled.smallest_symbol == fresh.smallest_symbol
        drawn += 1
        if game.outcome(state) is not None or drawn >= 120:
            break
        for _ in range(rng.below(3) + 1):  # sometimes several decisions between pictures
            if game.outcome(state) is None:
                player, action = pick_random(game, state, rng)
                state, _ = game.apply(state, player, action)
    # the tiles were used, not only drawn: in the chat's pictures a seat's row changes
    # with nearly every choice (its "chosen" mark), so a Tonttu board hits about one
    # lookup in three; benchmarks/render_speed.py measures what that saves
    assert 2 * TILES.hits > TILES.misses


def test_the_tile_cache_stays_within_its_budget() -> None:
    TILES.clear()
    budget = TILES.max_bytes
    try:
        TILES.max_bytes = 2_000_000
        game, state = WORKSHOP, WORKSHOP.new_game(players(5), 3, WORKSHOP.parse_options({}))
        rng = Rng(3)
        for _ in range(60):
            workshop.draw_board(game.view(state, None), names(5))
            assert TILES.bytes <= TILES.max_bytes
            player, action = pick_random(game, state, rng)
            state, _ = game.apply(state, player, action)
    finally:
        TILES.max_bytes = budget
        TILES.clear()
