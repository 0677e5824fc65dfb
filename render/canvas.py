"""Drawing primitives shared by both games' pictures: fonts, palette, player tokens.

Everything is drawn with the fonts shipped in ``render/fonts`` (DejaVu Sans, see its
LICENSE there) and Pillow's basic text layout, so a picture looks the same on every
machine: no system font lookup, no optional shaping library.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).with_name("fonts")
MIN_TEXT_PX = 20
"""The smallest font size used. DejaVu Sans capitals are 0.73 em high, so even a capital
letter is at least 14 px high at the posted size (phone readability, issue 8)."""

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
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONT_DIR / name), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=4096)
def text_mask(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    """A label drawn once as a mask, and its offset from the anchor point.

    Boards repeat the same labels (station names, "+2", player names) on every move,
    so the bot draws most text from this cache."""
    f = font(size, bold)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


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

    ``smallest_text`` is the smallest font size drawn so far (tests check it).
    """

    def __init__(self, width: int, height: int, background: RGB = PAPER) -> None:
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)
        self.width, self.height = width, height
        self.smallest_text = 10_000

    # ------------------------------------------------------------------ text

    def text_width(self, text: str, size: int = MIN_TEXT_PX, bold: bool = False) -> int:
        return int(font(size, bold).getlength(text))

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
        f = font(size, bold)
        if max_width is not None and f.getlength(text) > max_width:
            while text and f.getlength(text + "…") > max_width:
                text = text[:-1]
            text = text.rstrip() + "…"
        mask, left, top = text_mask(text, size, bold, anchor)
        self.draw.bitmap((round(x + left), round(y + top)), mask, fill=fill)
        return int(f.getlength(text))

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
    ) -> int:
        """A rounded label in ``colour``; returns its width."""
        width = self.text_width(label, size, bold) + 14
        self.draw.rounded_rectangle((x, y, x + width, y + height), radius=height // 3, fill=colour)
        self.text(
            x + width / 2, y + height / 2, label, size, bold=bold, fill=ink_on(colour), anchor="mm"
        )
        return width

    def pips(self, x: float, y: float, filled: int, total: int, colour: RGB, r: int = 7) -> int:
        """``total`` dots, the first ``filled`` solid, the rest hollow; returns the width."""
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
        self.draw.polygon(points, fill=fill, outline=outline)

    def png(self) -> bytes:
        """PNG bytes: reduced to a 256-colour palette first (the pictures are flat colours
        and anti-aliased text), which is faster to encode and a third of the size."""
        out = io.BytesIO()
        palette = self.image.quantize(
            colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
        palette.save(out, format="PNG", compress_level=1)
        return out.getvalue()


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
