"""Where a picture's labels land: every text drawn (as it was cut, and its box) and every
row of dots, recorded while a board is drawn from scratch, so tests can require that
labels stay whole, inside the picture and clear of each other, in every language."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from render.canvas import MIN_TEXT_PX, Canvas, fitted, fresh_drawing, text_layout

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class Drawn:
    text: str
    """The text asked for ("" for a row of dots)."""
    cut: bool
    """Shortened with "…" to fit its room (even in the condensed font)."""
    box: Box


@dataclass
class Layout:
    width: int = 0
    height: int = 0
    items: list[Drawn] | None = None

    @property
    def texts(self) -> list[str]:
        return [item.text for item in self.items or [] if item.text]


@contextmanager
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Layout]]:
    """Record every picture drawn inside the block (one :class:`Layout` per canvas);
    no tiles are used, so every label is really drawn."""
    layouts: list[Layout] = []
    text, pips = Canvas.text, Canvas.pips
    created: dict[int, tuple[Canvas, Layout]] = {}  # the canvas kept: its id stays its own

    def layout_of(canvas: Canvas) -> Layout:
        found = created.get(id(canvas))
        if found is None:
            found = created[id(canvas)] = (canvas, Layout(canvas.width, canvas.height, []))
            layouts.append(found[1])
        return found[1]

    def record_text(
        self: Canvas, x: float, y: float, label: str, size: int = MIN_TEXT_PX, **kw: Any
    ) -> int:
        size_px = max(size, MIN_TEXT_PX)
        bold, anchor, room = kw.get("bold", False), kw.get("anchor", "la"), kw.get("max_width")
        mask, left, top, _ = text_layout(label, size_px, bold, anchor, room)
        cut = fitted(label, size_px, bold, room)[2]
        x0, y0 = round(x + left), round(y + top)
        box = (x0, y0, x0 + mask.width, y0 + mask.height)
        items = layout_of(self).items
        assert items is not None
        items.append(Drawn(label, cut, box))
        return text(self, x, y, label, size, **kw)

    def record_pips(
        self: Canvas, x: float, y: float, filled: int, total: int, colour: Any, r: int = 8
    ) -> int:
        width = pips(self, x, y, filled, total, colour, r)
        if total:
            items = layout_of(self).items
            assert items is not None
            items.append(Drawn("", False, (round(x), round(y - r), round(x + width), round(y + r))))
        return width

    monkeypatch.setattr(Canvas, "text", record_text)
    monkeypatch.setattr(Canvas, "pips", record_pips)
    with fresh_drawing():
        yield layouts
    monkeypatch.undo()


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def only_names(text: str, names: Iterable[str]) -> bool:
    """``text`` says nothing but names (a toy's, a gift's, a player's), joined by commas:
    such a text may be cut to its room, a label of ours may not."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, "")
    return not text.strip(" ,✓-")


def problems(layout: Layout, names: Iterable[str]) -> list[str]:
    """Labels cut short (names excepted), outside the picture, or on top of another."""
    found = []
    items = layout.items or []
    known = list(names)
    for item in items:
        if item.cut and not only_names(item.text, known):
            found.append(f"cut: {item.text!r}")
        x0, y0, x1, y1 = item.box
        if x0 < 0 or y0 < 0 or x1 > layout.width or y1 > layout.height:
            found.append(f"outside the picture: {item.text!r} {item.box}")
    for i, first in enumerate(items):
        for second in items[i + 1 :]:
            if overlaps(first.box, second.box):
                found.append(f"overlap: {first.text or 'dots'!r} and {second.text or 'dots'!r}")
    return found
