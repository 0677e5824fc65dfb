"""Choose the one palette of every board picture (``render/palette.png``) on purpose,
after a change of the pictures' colours.

    python -m tests.render.make_palette

Plays seeded random games of both games at every player count (Tonttu in both modes),
draws the public board and a player's private picture every 25 decisions and at the
end, and chooses 256 colours (fast octree, as Pillow does for one picture) from a
sample of all of them: every flat colour and the anti-aliased edges of text on each
background. Then run the golden tests: they compare pictures mapped onto it.
"""

from __future__ import annotations

import sys
from typing import Any

from PIL import Image

from engine.core import Rng
from engine.records import pick_random
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP
from render import tonttu, workshop
from render.canvas import PAPER, fresh_drawing
from render.png import PALETTE_FILE
from tests.render.states import names, players

EVERY = 25
SAMPLE_STEP = 4


def pictures() -> list[Image.Image]:
    """The sampled pictures (every ``SAMPLE_STEP``-th pixel of every such row)."""
    drawn: list[Image.Image] = []

    def keep(canvas: Any) -> None:
        image = canvas.image
        size = (image.width // SAMPLE_STEP, image.height // SAMPLE_STEP)
        drawn.append(image.resize(size, Image.Resampling.NEAREST))

    games: list[tuple[Any, Any, tuple[int, ...], tuple[dict[str, str], ...]]] = [
        (WORKSHOP, workshop, (2, 3, 4, 5), ({},)),
        (TONTTU, tonttu, (3, 4, 5, 6), ({}, {"mode": "speed"})),
    ]
    for game, module, counts, option_sets in games:
        for count in counts:
            for options in option_sets:
                seats, table = players(count), names(count)
                state = game.new_game(seats, 900 + count, game.parse_options(options))
                rng = Rng(900 + count)
                decisions = 0
                while game.outcome(state) is None:
                    if decisions % EVERY == 0:
                        keep(module.draw_board(game.view(state, None), table))
                        viewer = seats[decisions % count]
                        keep(module.draw_private(game.view(state, viewer), table))
                    player, action = pick_random(game, state, rng)
                    state, _ = game.apply(state, player, action)
                    decisions += 1
                keep(module.draw_board(game.view(state, None), table))
    return drawn


def choose() -> Image.Image:
    with fresh_drawing():
        drawn = pictures()
    sheet = Image.new("RGB", (max(p.width for p in drawn), sum(p.height for p in drawn)), PAPER)
    y = 0
    for picture in drawn:
        sheet.paste(picture, (0, y))
        y += picture.height
    chosen = sheet.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    swatch = Image.new("P", (16, 16))
    swatch.putpalette((chosen.getpalette() or [])[:768])
    swatch.putdata(list(range(256)))
    return swatch


def main(argv: list[str]) -> int:
    swatch = choose()
    swatch.save(PALETTE_FILE, optimize=False)
    print(f"wrote {PALETTE_FILE} ({len(swatch.getpalette() or []) // 3} colours)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
