"""Drawing primitives shared by both games' pictures: fonts, palette, player tokens.

Everything is drawn with the fonts shipped in ``render/fonts`` (DejaVu Sans, see its
LICENSE there) and Pillow's basic text layout, so a picture looks the same on every
machine: no system font lookup, no optional shaping library.

Speed. The bot draws a board for every decision, so a picture must be cheap. Three
things make it so, none of which changes a pixel:

- Text is laid out once per (text, size, weight, anchor, width): its mask, offset and
  width are cached (:func:`text_layout`), so a repeated label costs one paste.
- Regions of a picture that repeat from one picture to the next (a player's area,
  a toy card, an Elf space, the calendar) are kept as tiles: :meth:`Canvas.reuse`
  pastes the tile drawn last time the same thing stood at the same place, and
  draws (then keeps) it otherwise. A decision changes a few regions of a board, so
  most of the next picture is pasted. The tiles live in one bounded cache per
  process (:data:`TILES`, least recently used out first). The rule that keeps this
  exact: a region's key names everything drawn in it *and* what lies under it (the
  page, or a box's fill), and the drawing stays inside the region.
  ``tests/render/test_reuse.py`` draws many positions with and without the tiles and
  requires identical pixels.
- PNG encoding (:meth:`Canvas.png`, ``render/png.py``): one 256-colour palette for
  every picture, so the mapping onto it stays warm, and the compressed bands of rows
  that did not change are reused.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).with_name("fonts")
MIN_TEXT_PX = 20
"""The smallest font size used. DejaVu Sans capitals are 0.73 em high, so even a capital
letter is at least 14 px high at the drawn size."""

CHAT_WIDTH = 400
"""The width a phone's chat shows a posted picture at (about 390 px on a phone)."""
CHAT_MIN_TEXT = 9
"""At :data:`CHAT_WIDTH`, no font smaller than this many pixels (its em size, the size
the fonts are asked for)."""
CHAT_MIN_SYMBOL = 8
"""At :data:`CHAT_WIDTH`, no symbol a player must tell apart (a token, a dot, a chip, a
star, a card's back) smaller than this many pixels across."""
CHAT_MAX_ASPECT = 1.3
"""A posted picture is at most this many times as tall as it is wide (a taller one
shrinks to a thumbnail in a desktop chat, which bounds pictures by their height)."""

RGB = tuple[int, int, int]

# Page colours
PAPER: RGB = (246, 241, 230)
CARD: RGB = (255, 253, 248)
INK: RGB = (33, 33, 38)
MUTED: RGB = (96, 96, 104)
LINE: RGB = (196, 186, 166)
RED: RGB = (150, 28, 36)
GREEN: RGB = (28, 92, 58)
GOLD: RGB = (214, 168, 40)
WHITE: RGB = (255, 255, 255)
HIGHLIGHT: RGB = (255, 240, 170)

# Player identity: the Okabe–Ito palette (distinguishable with the common colour-vision
# deficiencies), and in addition a shape and the seat number, so colour is never the
# only cue.
PLAYER_COLOURS: tuple[RGB, ...] = (
    (0, 114, 178),  # blue
    (230, 159, 0),  # orange
    (0, 158, 115),  # bluish green
    (204, 121, 167),  # reddish purple
    (213, 94, 0),  # vermillion
    (86, 180, 233),  # sky blue
)
PLAYER_SHAPES = ("circle", "square", "triangle", "diamond", "hexagon", "star")


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False, condensed: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans, or DejaVu Sans Condensed (about 10 % narrower, same height)."""
    family = "DejaVuSansCondensed" if condensed else "DejaVuSans"
    name = f"{family}-Bold.ttf" if bold else f"{family}.ttf"
    return ImageFont.truetype(str(FONT_DIR / name), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=4096)
def text_mask(
    text: str, size: int, bold: bool, anchor: str, condensed: bool = False
) -> tuple[Image.Image, int, int]:
    """A label drawn once as a mask, and its offset from the anchor point.

    Boards repeat the same labels (station names, "+2", player names) on every move,
    so the bot draws most text from this cache."""
    f = font(size, bold, condensed)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


@lru_cache(maxsize=8192)
def fitted(text: str, size: int, bold: bool, max_width: int | None) -> tuple[str, bool, bool, bool]:
    """How ``text`` is drawn in ``max_width``: (the text, in the condensed font, cut,
    bold).

    A text too wide for its room is drawn in the condensed font (a bold one, if need
    be, in the condensed regular weight); only if even that is too wide is it cut with
    an ellipsis (the pictures' layout tests allow that for players' names only)."""
    if max_width is None or font(size, bold).getlength(text) <= max_width:
        return text, False, False, bold
    for weight in (bold, False) if bold else (False,):
        if font(size, weight, True).getlength(text) <= max_width:
            return text, True, False, weight
    narrow = font(size, False, True)
    while text and narrow.getlength(text + "…") > max_width:
        text = text[:-1]
    return text.rstrip() + "…", True, True, False


@lru_cache(maxsize=8192)
def text_layout(
    text: str, size: int, bold: bool, anchor: str, max_width: int | None
) -> tuple[Image.Image, int, int, int]:
    """``text`` fitted to ``max_width`` (:func:`fitted`): its mask, offset and drawn width."""
    text, condensed, _, bold = fitted(text, size, bold, max_width)
    mask, left, top = text_mask(text, size, bold, anchor, condensed)
    return mask, left, top, int(font(size, bold, condensed).getlength(text))


def wrap(text: str, width: float, size: int = MIN_TEXT_PX, bold: bool = False) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` pixels (a word wider than
    that stays whole on its own line: drawn with ``max_width`` it is condensed)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if line and text_width(trial, size, bold) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return lines


@lru_cache(maxsize=8192)
def text_width(
    text: str, size: int = MIN_TEXT_PX, bold: bool = False, condensed: bool = False
) -> int:
    return int(font(size, bold, condensed).getlength(text))


class Tiles:
    """Regions drawn before, by key, up to ``max_bytes`` of pixels (least recently used
    out first). One per process: pictures of every game share it, from any thread (the
    bot draws in threads when its drawing process is gone)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.enabled = True
        self.bytes = 0
        self.hits = self.misses = 0
        self._tiles: OrderedDict[Hashable, tuple[Image.Image, tuple[int, int]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> tuple[Image.Image, tuple[int, int]] | None:
        if not self.enabled:
            return None
        with self._lock:
            found = self._tiles.get(key)
            if found is None:
                self.misses += 1
                return None
            self._tiles.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: Hashable, tile: Image.Image, smallest: tuple[int, int]) -> None:
        if not self.enabled:
            return
        size = _bytes(tile)
        if size > self.max_bytes // 8:
            return  # a tile this big would push out many others
        with self._lock:
            old = self._tiles.pop(key, None)
            if old is not None:
                self.bytes -= _bytes(old[0])
            self._tiles[key] = (tile, smallest)
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (dropped, _) = self._tiles.popitem(last=False)
                self.bytes -= _bytes(dropped)

    def clear(self) -> None:
        with self._lock:
            self._tiles.clear()
            self.bytes = self.hits = self.misses = 0


def _bytes(tile: Image.Image) -> int:
    return tile.width * tile.height * len(tile.getbands())


TILES = Tiles(64 * 1024 * 1024)
"""The drawing process's tiles: about 100 player areas, or thousands of small regions."""


@contextmanager
def fresh_drawing() -> Iterator[None]:
    """Draw everything from scratch inside this block (no tile used or kept): the
    reference that tests compare tiled pictures with."""
    TILES.enabled = False
    try:
        yield
    finally:
        TILES.enabled = True


NO_GLYPH = "\U0010fffd"
"""A private-use code point no font here draws: it shows the "missing glyph" box."""


@lru_cache(maxsize=4096)
def _has_glyph(char: str) -> bool:
    drawn, _, _ = text_mask(char, MIN_TEXT_PX, False, "la")
    missing, _, _ = text_mask(NO_GLYPH, MIN_TEXT_PX, False, "la")
    return drawn.size != missing.size or drawn.tobytes() != missing.tobytes()


def drawable(text: str) -> str:
    """``text`` without the characters the shipped font lacks (emoji, most CJK): a
    display name like "Santa 🎅" is drawn "Santa", not "Santa □"."""
    kept = "".join(char for char in text if char.isspace() or _has_glyph(char))
    return " ".join(kept.split())


def player_name(names: Mapping[str, str], player: str) -> str:
    """A player's display name as the pictures draw it ("Player" if nothing is left)."""
    return drawable(names.get(player, player)) or "Player"


def ink_on(colour: RGB) -> RGB:
    """Black or white text, whichever reads better on ``colour``."""
    r, g, b = colour
    return INK if (0.299 * r + 0.587 * g + 0.114 * b) > 150 else WHITE


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


class Canvas:
    """An RGB image with the drawing helpers both games use.

    It records what it draws: ``smallest_text`` is the smallest font size drawn so far,
    ``smallest_symbol`` the smallest symbol (across, in pixels: a token, a dot, a chip,
    a star, a card's back, an ornament). :meth:`at_chat_width` scales both to the width
    a phone's chat shows the picture at; tests check them against the rules above.
    """

    def __init__(self, width: int, height: int, background: RGB = PAPER) -> None:
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)
        self.width, self.height = width, height
        self.smallest_text = 10_000
        self.smallest_symbol = 10_000

    def symbol(self, size: float) -> None:
        """Record a symbol ``size`` pixels across (its smaller side)."""
        self.smallest_symbol = min(self.smallest_symbol, math.floor(size))

    def at_chat_width(self) -> tuple[float, float, float]:
        """(smallest font, smallest symbol, height / width) with the picture scaled to
        :data:`CHAT_WIDTH` pixels wide."""
        scale = CHAT_WIDTH / self.width
        return (
            self.smallest_text * scale,
            self.smallest_symbol * scale,
            self.height / self.width,
        )

    # ------------------------------------------------------------------ text

    def text_width(self, text: str, size: int = MIN_TEXT_PX, bold: bool = False) -> int:
        return text_width(text, size, bold)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: int = MIN_TEXT_PX,
        *,
        bold: bool = False,
        fill: RGB = INK,
        anchor: str = "la",
        max_width: int | None = None,
    ) -> int:
        """Draw ``text`` (cut with an ellipsis to ``max_width``); returns its width."""
        size = max(size, MIN_TEXT_PX)
        self.smallest_text = min(self.smallest_text, size)
        mask, left, top, width = text_layout(text, size, bold, anchor, max_width)
        self.draw.bitmap((round(x + left), round(y + top)), mask, fill=fill)
        return width

    # ------------------------------------------------------------------ tiles

    def reuse(self, key: Hashable, box: Sequence[float], draw: Callable[[], object]) -> None:
        """``draw()`` the region ``box`` (x0, y0, x1, y1, edges included), or paste the
        tile of the last time ``key`` was drawn at this place.

        ``key`` must name everything ``draw`` draws and what lies under the region
        before it (the page, a box's fill); ``draw`` must stay inside ``box``."""
        x0, y0 = max(0, math.floor(box[0])), max(0, math.floor(box[1]))
        x1 = min(self.width, math.ceil(box[2]) + 1)
        y1 = min(self.height, math.ceil(box[3]) + 1)
        placed = (key, x0, y0, x1, y1)
        found = TILES.get(placed)
        if found is not None:
            tile, (text, symbol) = found
            self.image.paste(tile, (x0, y0))
            self.smallest_text = min(self.smallest_text, text)
            self.smallest_symbol = min(self.smallest_symbol, symbol)
            return
        outside = (self.smallest_text, self.smallest_symbol)
        self.smallest_text = self.smallest_symbol = 10_000
        draw()
        inside = (self.smallest_text, self.smallest_symbol)
        self.smallest_text = min(outside[0], inside[0])
        self.smallest_symbol = min(outside[1], inside[1])
        TILES.put(placed, self.image.crop((x0, y0, x1, y1)), inside)

    # ------------------------------------------------------------------ shapes

    def box(
        self,
        box: Sequence[float],
        fill: RGB | None = CARD,
        outline: RGB | None = LINE,
        radius: int = 10,
        width: int = 2,
    ) -> None:
        self.draw.rounded_rectangle(
            tuple(box), radius=radius, fill=fill, outline=outline, width=width
        )

    def chip(
        self,
        x: float,
        y: float,
        label: str,
        colour: RGB,
        *,
        size: int = MIN_TEXT_PX,
        height: int = 28,
        bold: bool = True,
        condensed: bool = False,
        pad: int = 7,
    ) -> int:
        """A rounded label in ``colour`` (in the condensed font if asked), ``pad`` pixels
        each side; returns its width."""
        width = text_width(label, size, bold, condensed) + 2 * pad
        self.symbol(height)
        self.draw.rounded_rectangle((x, y, x + width, y + height), radius=height // 3, fill=colour)
        self.text(
            x + width / 2,
            y + height / 2,
            label,
            size,
            bold=bold,
            fill=ink_on(colour),
            anchor="mm",
            max_width=width - 2 * pad + 1 if condensed else None,
        )
        return width

    def pips(self, x: float, y: float, filled: int, total: int, colour: RGB, r: int = 7) -> int:
        """``total`` dots, the first ``filled`` solid, the rest hollow; returns the width."""
        if total:
            self.symbol(2 * r)
        for i in range(total):
            cx = x + r + i * (2 * r + 4)
            box = (cx - r, y - r, cx + r, y + r)
            if i < filled:
                self.draw.ellipse(box, fill=colour, outline=mix(colour, INK, 0.4), width=2)
            else:
                self.draw.ellipse(box, fill=CARD, outline=mix(colour, INK, 0.2), width=2)
        return total * (2 * r + 4) - 4 if total else 0

    def token(self, cx: float, cy: float, seat: int, r: int = 17) -> None:
        """A player's token: their colour, their shape and their seat number."""
        colour = PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]
        self.symbol(2 * r)
        edge = mix(colour, INK, 0.55)
        points = shape_points(PLAYER_SHAPES[seat % len(PLAYER_SHAPES)], cx, cy, r)
        if points is None:
            self.draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=edge, width=2)
        else:
            self.draw.polygon(points, fill=colour, outline=edge, width=2)
        dy = r * 0.18 if PLAYER_SHAPES[seat % len(PLAYER_SHAPES)] == "triangle" else 0
        self.text(
            cx, cy + dy, str(seat + 1), MIN_TEXT_PX, bold=True, fill=ink_on(colour), anchor="mm"
        )

    def star(self, cx: float, cy: float, r: float, fill: RGB, outline: RGB | None = None) -> None:
        points = shape_points("star", cx, cy, r)
        assert points is not None
        self.symbol(2 * r)
        self.draw.polygon(points, fill=fill, outline=outline)

    def png(self) -> bytes:
        """PNG bytes: the picture on the shared 256-colour palette (the pictures are flat
        colours and anti-aliased text), compressed in bands reused from earlier
        pictures where they did not change (``render/png.py``)."""
        from render import png

        return png.encode(self.image)


def shape_points(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]] | None:
    """The polygon of a token shape (``None`` for a circle)."""
    if shape == "circle":
        return None
    if shape == "square":
        s = r * 0.9
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    if shape == "triangle":
        return [(cx, cy - r * 1.1), (cx + r * 1.1, cy + r * 0.8), (cx - r * 1.1, cy + r * 0.8)]
    if shape == "diamond":
        return [(cx, cy - r * 1.15), (cx + r * 1.15, cy), (cx, cy + r * 1.15), (cx - r * 1.15, cy)]
    if shape == "hexagon":
        return [
            (cx + r * math.cos(math.pi / 3 * k), cy + r * math.sin(math.pi / 3 * k))
            for k in range(6)
        ]
    # star: five points
    points = []
    for k in range(10):
        radius = r * 1.2 if k % 2 == 0 else r * 0.62
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return points
