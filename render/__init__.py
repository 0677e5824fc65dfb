"""Board pictures for both games: a view model in, PNG bytes out.

Only views are drawn (never a raw state), so a picture can show no more than its
viewer may see. No Discord here: the bot wraps the bytes in an attachment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import PlayerId


def render_board(view: Any, names: Mapping[PlayerId, str]) -> bytes:
    """The public table (PNG) of a :class:`WorkshopView` or :class:`TonttuView`."""
    if view.game == "workshop":
        from render import workshop

        return workshop.render_board(view, names)
    if view.game == "tonttu":
        from render import tonttu

        return tonttu.render_board(view, names)
    raise ValueError(f"No picture for the game {view.game!r}.")


def render_private(view: Any, names: Mapping[PlayerId, str]) -> bytes:
    """The viewer's own area with their secrets (PNG); ``view`` must be a player's own."""
    if view.game == "workshop":
        from render import workshop

        return workshop.render_private(view, names)
    if view.game == "tonttu":
        from render import tonttu

        return tonttu.render_private(view, names)
    raise ValueError(f"No picture for the game {view.game!r}.")


def warm() -> None:
    """Import both games' renderers, open the fonts and the palette, ahead of the first
    picture."""
    from render import canvas, png, tonttu, workshop  # noqa: F401

    for bold in (False, True):
        canvas.font(20, bold)
    png.palette()


__all__ = ["render_board", "render_private", "warm"]
