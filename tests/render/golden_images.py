"""Drawing the fixed positions and comparing pictures within a small tolerance.

A key ending in ``-de`` is the same picture with German labels."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image, ImageChops

import i18n
from render import render_board, render_private
from render.chart import render_chart
from tests.render.states import CHARTS, POSITIONS, PRIVATE, names

GOLDEN = Path(__file__).with_name("golden")
CHANNEL_TOLERANCE = 48
"""A pixel differs when a colour channel moves by more than this (anti-aliasing noise
from another FreeType build stays below it)."""
MAX_DIFFERING_PIXELS = 32
"""At most this many pixels may differ: a one-digit change of a score moves about 100,
an "Elves left" count about 50, so any change of what the board says is caught."""


GERMAN = [
    "workshop-2p-start",
    "workshop-5p-mid",
    "workshop-5p-end",
    "workshop-5p-mid-private",
    "tonttu-3p-reveal",
    "tonttu-6p-pick",
    "tonttu-6p-pick-private",
    "chart-workshop-5p",
    "chart-tonttu-6p",
]
"""The pictures also kept with German labels: both boards at the start, mid-game and at
the end, an odd player count's legend, both private pictures and both charts."""


def draw(key: str) -> bytes:
    """The picture of one position: ``<position>`` public, ``<position>-private`` private;
    or a chart of how a game went (``chart-…``); ``…-de`` in German."""
    lang = "de" if key.endswith("-de") else "en"
    key = key.removesuffix("-de")
    if key in CHARTS:
        timeline = CHARTS[key]()
        return render_chart(timeline, names(len(timeline.players)), i18n.words(lang))
    position = key.removesuffix("-private")
    game, state = POSITIONS[position]()
    table = names(len(state.players))
    if key.endswith("-private"):
        return render_private(game.view(state, PRIVATE[position]), table, lang)
    return render_board(game.view(state, None), table, lang)


def keys() -> list[str]:
    english = [*POSITIONS, *(f"{p}-private" for p in PRIVATE), *CHARTS]
    return [*english, *(f"{key}-de" for key in GERMAN)]


def difference(a: bytes, b: bytes) -> tuple[tuple[int, int], tuple[int, int], int]:
    """(size a, size b, number of pixels that differ by more than the tolerance)."""
    first = Image.open(io.BytesIO(a)).convert("RGB")
    second = Image.open(io.BytesIO(b)).convert("RGB")
    if first.size != second.size:
        return first.size, second.size, first.width * first.height
    diff = ImageChops.difference(first, second)
    worst = ImageChops.lighter(
        ImageChops.lighter(diff.getchannel(0), diff.getchannel(1)), diff.getchannel(2)
    )
    over = worst.point(lambda v: 255 if v > CHANNEL_TOLERANCE else 0).histogram()[255]
    return first.size, second.size, over


def save(key: str, png: bytes) -> Path:
    """Store ``png`` as the golden picture of ``key``, compressed hard (pixels unchanged)."""
    GOLDEN.mkdir(exist_ok=True)
    path = GOLDEN / f"{key}.png"
    Image.open(io.BytesIO(png)).save(path, optimize=True)
    return path
