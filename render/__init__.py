"""Board pictures for both games: a view model in, PNG bytes out; and the chart of how
a finished game went (``render/chart.py``).

Only views are drawn (never a raw state), so a picture can show no more than its
viewer may see. The chart is the one exception, and only for a finished game: it shows
the scores after each day or round (public all game long, W-7.1, T-6) and the final
breakdown that the final scores list anyway. No Discord here: the bot wraps the bytes
in an attachment.

Every label is drawn in the language asked for: the functions here take a language code
(``"de"``, ``"en"``; they run in the drawing process, across a process boundary) and
draw with :func:`i18n.words` of it; below them, the drawing takes the translator itself
(``words``, English by default), as the engine's text does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.core import PlayerId
from engine.words import Words


def render_board(view: Any, names: Mapping[PlayerId, str], lang: str = "en") -> bytes:
    """The public table (PNG) of a :class:`WorkshopView` or :class:`TonttuView`, its
    labels in ``lang`` (a language code of :mod:`i18n`)."""
    if view.game == "workshop":
        from render import workshop

        return workshop.render_board(view, names, words(lang))
    if view.game == "tonttu":
        from render import tonttu

        return tonttu.render_board(view, names, words(lang))
    raise ValueError(f"No picture for the game {view.game!r}.")


def render_private(view: Any, names: Mapping[PlayerId, str], lang: str = "en") -> bytes:
    """The viewer's own area with their secrets (PNG); ``view`` must be a player's own;
    its labels in ``lang``."""
    if view.game == "workshop":
        from render import workshop

        return workshop.render_private(view, names, words(lang))
    if view.game == "tonttu":
        from render import tonttu

        return tonttu.render_private(view, names, words(lang))
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

    return chart.render_game_chart(game, players, seed, options, decisions, names, words(lang))


def words(lang: str) -> Words:
    """The translator of a language code (:func:`i18n.words`; English for an unknown one)."""
    import i18n

    return i18n.words(lang)


def warm() -> None:
    """Import both games' renderers, open the fonts and the palette, and compile the
    catalogues, ahead of the first picture."""
    import i18n
    from render import canvas, png, tonttu, workshop  # noqa: F401

    for bold in (False, True):
        for condensed in (False, True):
            canvas.font(20, bold, condensed)
    png.palette()
    for lang in i18n.LANGUAGES:
        i18n.words(lang)


__all__ = ["render_board", "render_game_chart", "render_private", "warm"]
