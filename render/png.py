"""PNG encoding of the board pictures: one palette for every picture, and compressed row
bands reused from earlier pictures.

Options weighed. (a) Pillow's encoder on a palette built per picture (what the bot did
first): the palette (fast octree over every pixel, later over a sample) and the mapping
onto a new palette cost 10-30 ms, and zlib compresses all 2.4 million pixels of a
five-player board every time, though most of the board did not change. (b) One palette
for all pictures of both games (``render/palette.png``, chosen once by
``python -m tests.render.make_palette`` from a sample of many positions of every player
count, public and private): the mapping then keeps its cache of nearest colours warm
from picture to picture, and equal pixels give equal bytes in every picture, which
allows (c): the picture is compressed in bands of :data:`BAND_ROWS` rows, each band on
its own (a fresh deflate stream, ended by a sync flush, so no band refers to another's
bytes), and a band equal to one compressed before is not compressed again. A band's
bytes are its rows with PNG's filter byte 0 ("none": flat colours compress well
without a filter, and a filter would make a band depend on the row above it). The
bands, joined and closed with an empty final block and the Adler-32 of all the rows,
are one valid zlib stream in one IDAT chunk. Chosen: (b) and (c). A palette built from
the sample is as faithful as a per-picture one (the largest channel error on the
golden positions is 39 of 255 either way), and a band is cached by its length, hash and
CRC-32 (a false match would need both 64-bit hash and CRC-32 to collide).
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections import OrderedDict
from pathlib import Path

from PIL import Image

PALETTE_FILE = Path(__file__).with_name("palette.png")
BAND_ROWS = 32
"""Rows per compressed band: small enough that a change dirties little, large enough
that a band compresses well (a five-player board has 62 bands)."""
MAX_CACHED_BYTES = 24 * 1024 * 1024
"""Compressed bands kept, least recently used out first (a band is 1-8 KB)."""

_local = threading.local()


def palette() -> Image.Image:
    """The shared palette as a palette image, one per thread: Pillow keeps the mapping's
    cache of nearest colours on it, and the cache is not safe to fill from two threads."""
    image: Image.Image | None = getattr(_local, "palette", None)
    if image is None:
        with Image.open(PALETTE_FILE) as stored:
            image = stored.copy()
        image.load()
        _local.palette = image
    return image


def palette_bytes() -> bytes:
    """The 256 palette colours as R, G, B bytes."""
    colours = palette().getpalette() or []
    return bytes((colours + [0] * 768)[:768])


class Bands:
    """Compressed bands by content, bounded in bytes, shared by every picture."""

    def __init__(self, max_bytes: int = MAX_CACHED_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.hits = self.misses = 0
        self._bands: OrderedDict[tuple[int, int, int], tuple[bytes, int]] = OrderedDict()
        self._lock = threading.Lock()

    def compressed(self, rows: bytes) -> tuple[bytes, int]:
        """The band compressed, and the Adler-32 of its bytes."""
        key = (len(rows), hash(rows), zlib.crc32(rows))
        with self._lock:
            found = self._bands.get(key)
            if found is not None:
                self._bands.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        deflate = zlib.compressobj(1, zlib.DEFLATED, -15)
        packed = deflate.compress(rows) + deflate.flush(zlib.Z_SYNC_FLUSH), zlib.adler32(rows)
        with self._lock:
            if key not in self._bands:
                self._bands[key] = packed
                self.bytes += len(packed[0])
                while self.bytes > self.max_bytes:
                    _, (dropped, _) = self._bands.popitem(last=False)
                    self.bytes -= len(dropped)
        return packed

    def clear(self) -> None:
        with self._lock:
            self._bands.clear()
            self.bytes = self.hits = self.misses = 0


BANDS = Bands()

FINAL_EMPTY_BLOCK = b"\x03\x00"
"""A last deflate block with nothing in it (fixed Huffman codes, end of block)."""
ZLIB_HEADER = b"\x78\x01"
"""Deflate, 32 KB window, fastest compression (the header's check bits make it % 31)."""


ADLER_BASE = 65521


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs (zlib's
    ``adler32_combine``, which Python's zlib module does not offer)."""
    rem = second_length % ADLER_BASE
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % ADLER_BASE
    sum1 += (second & 0xFFFF) + ADLER_BASE - 1
    sum2 += ((first >> 16) & 0xFFFF) + ((second >> 16) & 0xFFFF) + ADLER_BASE - rem
    return (sum1 % ADLER_BASE) | ((sum2 % ADLER_BASE) << 16)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode(image: Image.Image) -> bytes:
    """PNG bytes of an RGB picture, mapped onto the shared palette (no dithering)."""
    mapped = image.quantize(palette=palette(), dither=Image.Dither.NONE)
    width, height = mapped.size
    # one column more on the left, all zeros: each row's bytes then start with PNG's
    # filter byte 0, so a band is one slice of the image's bytes
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(mapped, (1, 0))
    pixels = framed.tobytes()
    stride = width + 1
    parts = [ZLIB_HEADER]
    adler = 1
    for top in range(0, height, BAND_ROWS):
        rows = pixels[top * stride : min(height, top + BAND_ROWS) * stride]
        packed, band_adler = BANDS.compressed(rows)
        adler = adler32_combine(adler, band_adler, len(rows))
        parts.append(packed)
    parts.append(FINAL_EMPTY_BLOCK)
    parts.append(struct.pack(">I", adler))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette_bytes()),
            _chunk(b"IDAT", b"".join(parts)),
            _chunk(b"IEND", b""),
        )
    )
