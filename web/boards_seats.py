"""The seats on the HTML boards (``web/boards.py``): who each token stands for, with the
colour, the shape and the number of ``render/canvas.py``'s tokens (``seat-0`` …
``seat-5`` in ``web/static/board.css``), as on the pictures."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.core import PlayerId
from render.canvas import PLAYER_COLOURS, PLAYER_SHAPES, shape_points

TOKEN_RADIUS = 17
"""A token's size inside its SVG box (``viewBox`` -22 … 22), as ``render/canvas.py``
draws it at 17 px."""


@dataclass(frozen=True)
class Seat:
    """Who a token stands for: the seat (0-based, as on the pictures), the display name,
    and the token's shape (``points`` of its polygon; ``None`` for the circle)."""

    seat: int
    name: str
    shape: str
    points: str | None

    @property
    def number(self) -> int:
        return self.seat + 1

    @property
    def colour(self) -> int:
        """The seat's colour class (``seat-0`` …), wrapping after six seats."""
        return self.seat % len(PLAYER_COLOURS)


def _polygon(seat: int) -> tuple[str, str | None]:
    shape = PLAYER_SHAPES[seat % len(PLAYER_SHAPES)]
    points = shape_points(shape, 0, 0, TOKEN_RADIUS)
    if points is None:
        return shape, None
    return shape, " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _seat(seat: int, player: PlayerId, names: Mapping[PlayerId, str]) -> Seat:
    shape, points = _polygon(seat)
    return Seat(seat=seat, name=names.get(player) or player, shape=shape, points=points)


def seats_of(players: list[PlayerId], names: Mapping[PlayerId, str]) -> dict[PlayerId, Seat]:
    return {player: _seat(k, player, names) for k, player in enumerate(players)}
