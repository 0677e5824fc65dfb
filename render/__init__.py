"""Board pictures for both games: a view model in, PNG bytes out; and the chart of how
a finished game went (``render/chart.py``).

Only views are drawn (never a raw state), so a picture can show no more than its
viewer may see. The chart is the one exception, and only for a finished game: it shows
the scores after each day or round (public all game long, W-7.1, T-6) and the final
breakdown that the final scores list anyway. No Discord here: the bot wraps the bytes
in an attachment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import PlayerId


def render_board(view: Any, names: Mapping[PlayerId, str], lang: str = "en") -> bytes:
    """The public table (PNG) of a :class:`WorkshopView` or :class:`TonttuView`, its
    labels in ``lang`` (a language code of :mod:`i18n`)."""
    if view.game == "workshop":
        from render import workshop

        return workshop.render_board(view, names)
    if view.game == "tonttu":
        from render import tonttu

        return tonttu.render_board(view, names)
    raise ValueError(f"No picture for the game {view.game!r}.")


def render_private(view: Any, names: Mapping[PlayerId, str], lang: str = "en") -> bytes:
    """The viewer's own area with their secrets (PNG); ``view`` must be a player's own."""
    if view.game == "workshop":
        from render import workshop

        return workshop.render_private(view, names)
    if view.game == "tonttu":
        from render import tonttu

        return tonttu.render_private(view, names)
    raise ValueError(f"No picture for the game {view.game!r}.")


def render_game_chart(
    game: str,
    players: Sequence[PlayerId],
    seed: int,
    options: Mapping[str, Any],
    decisions: Sequence[tuple[PlayerId, Any]],
    names: Mapping[PlayerId, str],
    lang: str = "en",
) -> bytes:
    """The chart of how a finished game went (PNG, ``render/chart.py``), from its seed and
    its decisions in the order they were applied. matplotlib is imported on first use
    (about a second), in whichever process draws: never the bot's event loop's."""
    from render import chart

    return chart.render_game_chart(game, players, seed, options, decisions, names)


def warm() -> None:
    """Import both games' renderers, open the fonts and the palette, ahead of the first
    picture."""
    from render import canvas, png, tonttu, workshop  # noqa: F401

    for bold in (False, True):
        canvas.font(20, bold)
    png.palette()


__all__ = ["render_board", "render_game_chart", "render_private", "warm"]
