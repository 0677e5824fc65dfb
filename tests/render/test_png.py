"""The PNG encoder (``render/png.py``): what it writes decodes to exactly the picture
mapped onto the shared palette, whether its bands were compressed now or reused, and
the shared palette holds every colour the pictures are drawn with."""

from __future__ import annotations

import io
import struct
import zlib
from typing import Any

from PIL import Image

from engine.core import Rng
from engine.records import pick_random
from engine.workshop import GAME as WORKSHOP
from render import canvas, png, tonttu, workshop
from tests.render.states import names, players


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def idat(data: bytes) -> bytes:
    """The joined IDAT chunks of a PNG."""
    found, at = b"", 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        if data[at + 4 : at + 8] == b"IDAT":
            found += data[at + 8 : at + 8 + length]
        at += 12 + length
    return found


def test_adler32_combine_is_zlibs() -> None:
    a, b = b"Santa's Workshop" * 999, bytes(range(256)) * 300
    assert png.adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)
    assert png.adler32_combine(1, zlib.adler32(b), len(b)) == zlib.adler32(b)


def test_the_png_decodes_to_the_picture_on_the_palette_with_reused_bands() -> None:
    png.BANDS.clear()
    state = WORKSHOP.new_game(players(3), 4, WORKSHOP.parse_options({}))
    rng = Rng(4)
    for _ in range(12):
        image = workshop.draw_board(WORKSHOP.view(state, None), names(3)).image
        data = png.encode(image)
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        shown = decoded(data)
        assert shown.mode == "P" and shown.size == image.size
        expected = image.quantize(palette=png.palette(), dither=Image.Dither.NONE)
        assert shown.tobytes() == expected.tobytes()
        assert (shown.getpalette() or [])[:768] == list(png.palette_bytes())
        assert png.encode(image) == data  # the second time entirely from reused bands
        assert zlib.decompress(idat(data))  # checks the stream's Adler-32 too
        for _ in range(3):
            player, action = pick_random(WORKSHOP, state, rng)
            state, _ = WORKSHOP.apply(state, player, action)
    assert png.BANDS.hits > png.BANDS.misses


def test_a_picture_of_odd_size_and_a_single_band() -> None:
    image = Image.new("RGB", (7, 3), canvas.RED)
    image.putpixel((6, 2), canvas.INK)
    shown = decoded(png.encode(image)).convert("RGB")
    assert shown.getpixel((0, 0)) == shown.getpixel((5, 2)) != shown.getpixel((6, 2))


def flat_colours() -> dict[str, Any]:
    named: dict[str, Any] = {
        name: getattr(canvas, name)
        for name in ("PAPER", "CARD", "INK", "MUTED", "LINE", "RED", "GREEN", "GOLD", "WHITE")
    }
    named["HIGHLIGHT (a player to act)"] = canvas.mix(canvas.CARD, canvas.HIGHLIGHT, 0.6)
    for k, colour in enumerate(canvas.PLAYER_COLOURS):
        named[f"player {k + 1}"] = colour
        named[f"player {k + 1} heading"] = canvas.mix(colour, canvas.WHITE, 0.55)
    for module in (workshop, tonttu):
        for table in ("MATERIAL_COLOURS", "ORNAMENT_COLOURS", "CATEGORY_COLOURS"):
            for key, colour in getattr(module, table, {}).items():
                named[f"{module.__name__} {key}"] = colour
    named["card back"] = tonttu.BACK
    return named


def test_the_palette_holds_every_flat_colour_of_the_pictures() -> None:
    """A new colour in the drawing needs ``python -m tests.render.make_palette``."""
    colours = png.palette_bytes()
    entries = [tuple(colours[i : i + 3]) for i in range(0, 768, 3)]
    for name, colour in flat_colours().items():
        nearest = min(max(abs(a - b) for a, b in zip(colour, e, strict=True)) for e in entries)
        assert nearest <= 12, f"{name} {colour}: nearest palette colour is {nearest} away"
