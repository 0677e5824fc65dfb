"""Golden screenshots of the pages: a screenshot taken now must match the stored PNG
``tests/web/golden/<name>.png`` within a small pixel tolerance, as the board pictures
match theirs (``tests/render/golden_images.py``).

On a mismatch (or with no golden yet) the new screenshot is written beside the golden as
``<name>.new.png``, with ``<name>.diff.png`` showing the differing pixels in red over
the golden; both are git-ignored (``tests/web/golden/.gitignore``). Then, after looking
at them::

    python -m tests.web.golden                      # list the pending new screenshots
    python -m tests.web.golden accept               # make every one the golden
    python -m tests.web.golden accept table-start   # or only these

Or write every golden a test run takes, on purpose: ``WEB_GOLDEN=write`` in the
environment (``WEB_GOLDEN=write ./dev test tests/web``). Look at the pictures before
committing them: the tests compare against these.

The screenshots depend on the Chromium build and the fonts the page uses: a page that
brings its own fonts (``@font-face``) looks the same on every machine with Debian's
Chromium; one that falls back to the system's fonts does not.
"""

from __future__ import annotations

import io
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageChops

GOLDEN = Path(__file__).with_name("golden")
WRITE = "WEB_GOLDEN"
"""``WEB_GOLDEN=write``: every compared screenshot becomes its golden (and passes)."""

CHANNEL_TOLERANCE = 48
"""A pixel differs when a colour channel moves by more than this: the anti-aliasing of
text may shift a little; a changed glyph moves whole pixels from paper to ink."""
MAX_DIFFERING_PIXELS = 8
"""At most this many pixels may differ. The same Chromium draws a page identically
twice (0 pixels); one digit changed in 10 px text moves about 18, a word in 12 px text
about 170, so any change of what the page says is caught."""

NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True)
class Difference:
    """How a screenshot differs from its golden."""

    size: tuple[int, int]
    golden_size: tuple[int, int]
    pixels: int
    """Pixels differing by more than ``CHANNEL_TOLERANCE`` (all of them if the sizes do)."""
    box: tuple[int, int, int, int] | None
    """The (left, top, right, bottom) bounding box of those pixels; None if none."""

    @property
    def within_tolerance(self) -> bool:
        return self.size == self.golden_size and self.pixels <= MAX_DIFFERING_PIXELS

    def __str__(self) -> str:
        if self.size != self.golden_size:
            (width, height), (golden_width, golden_height) = self.size, self.golden_size
            return f"taken {width}×{height}, golden {golden_width}×{golden_height}"
        where = f" within {self.box}" if self.box else ""
        return f"{self.pixels} pixels differ{where} (at most {MAX_DIFFERING_PIXELS} may)"


def _image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def _differing(first: Image.Image, second: Image.Image) -> Image.Image:
    """A mask: 255 where a channel of the two pictures differs by more than the tolerance."""
    diff = ImageChops.difference(first, second)
    worst = ImageChops.lighter(
        ImageChops.lighter(diff.getchannel(0), diff.getchannel(1)), diff.getchannel(2)
    )
    return worst.point(lambda v: 255 if v > CHANNEL_TOLERANCE else 0)


def difference(png: bytes, golden: bytes) -> Difference:
    """How the screenshot ``png`` differs from ``golden`` (both PNG bytes)."""
    taken, stored = _image(png), _image(golden)
    if taken.size != stored.size:
        return Difference(taken.size, stored.size, taken.width * taken.height, None)
    mask = _differing(taken, stored)
    return Difference(taken.size, stored.size, mask.histogram()[255], mask.getbbox())


def same(png: bytes, other: bytes) -> bool:
    """Whether two screenshots match within the golden tolerance."""
    return difference(png, other).within_tolerance


def save(name: str, png: bytes, directory: Path = GOLDEN) -> Path:
    """Store ``png`` as the golden of ``name``, compressed hard (pixels unchanged)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.png"
    _image(png).save(path, optimize=True)
    for leftover in (_new(path), _diff(path)):
        leftover.unlink(missing_ok=True)
    return path


def _new(golden: Path) -> Path:
    return golden.with_suffix(".new.png")


def _diff(golden: Path) -> Path:
    return golden.with_suffix(".diff.png")


def _draw_difference(png: bytes, golden: bytes, path: Path) -> None:
    """The golden faded, with the pixels that differ from ``png`` in red."""
    taken, stored = _image(png), _image(golden)
    picture = Image.blend(stored, Image.new("RGB", stored.size, "white"), 0.7)
    picture.paste((230, 0, 0), mask=_differing(taken, stored))
    picture.save(path)


def assert_matches_golden(name: str, png: bytes, directory: Path = GOLDEN) -> None:
    """Fail unless the screenshot ``png`` matches ``<directory>/<name>.png`` within the
    tolerance; then ``<name>.new.png`` (and ``<name>.diff.png``) are written beside it.
    With ``WEB_GOLDEN=write`` the screenshot becomes the golden instead."""
    assert NAME.fullmatch(name), f"a golden's name is lowercase words joined by '-': {name!r}"
    path = directory / f"{name}.png"
    if os.environ.get(WRITE) == "write":
        save(name, png, directory)
        return
    accept = f"look at it, then: python -m tests.web.golden accept {name}"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        _new(path).write_bytes(png)
        raise AssertionError(f"no golden screenshot {name}: wrote {_new(path)}; {accept}")
    golden = path.read_bytes()
    found = difference(png, golden)
    if found.within_tolerance:
        _new(path).unlink(missing_ok=True)
        _diff(path).unlink(missing_ok=True)
        return
    _new(path).write_bytes(png)
    if found.size == found.golden_size:
        _draw_difference(png, golden, _diff(path))
    else:
        _diff(path).unlink(missing_ok=True)
    raise AssertionError(
        f"screenshot {name} differs from its golden: {found}; wrote {_new(path)}"
        f"{' and ' + _diff(path).name if _diff(path).exists() else ''}; if the change is "
        f"meant, {accept}"
    )


def pending(directory: Path = GOLDEN) -> list[str]:
    """The names with a new screenshot waiting beside their golden."""
    return sorted(path.name.removesuffix(".new.png") for path in directory.glob("*.new.png"))


def main(argv: list[str]) -> int:
    waiting = pending()
    if not argv:
        print("\n".join(waiting) if waiting else "no new screenshots wait")
        return 0
    if argv[0] != "accept":
        print(__doc__)
        return 2
    wanted = argv[1:] or waiting
    unknown = sorted(set(wanted) - set(waiting))
    if unknown:
        print(f"no new screenshot for: {', '.join(unknown)}; waiting: {', '.join(waiting)}")
        return 2
    for name in wanted:
        path = save(name, (GOLDEN / f"{name}.new.png").read_bytes())
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
