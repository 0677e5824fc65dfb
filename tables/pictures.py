"""A table's pictures, drawn off the event loop and kept while they are current.

Every front end shows the same public board picture of a version in a language, so it
is drawn once per move (in the drawing process, ``tables/drawing.py``) and reused by the
board edit, the final scores and ``/board``; a finished game's chart is replayed from
its log and drawn there too.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

import render
from engine.core import PlayerId
from storage import GameInfo, LoadedGame, LoggedAction
from storage.errors import DatabaseUnavailable
from storage.export import decision_log
from tables import drawing
from tables.service import view_of

log = logging.getLogger("bot.table")

RECENT_PICTURES = 64
CHART_TIMEOUT = 30.0
"""Seconds the final scores wait for their chart (the first chart of a drawing process
imports matplotlib, about a second on an idle machine) before going without it."""


async def render_board_png(game: LoadedGame, lang: str = "en") -> bytes:
    """Draw the public picture in the drawing process, so the event loop keeps answering;
    ``lang``: the table's language."""
    return await drawing.draw(render.render_board, view_of(game, None), game.names, lang)


async def render_private_png(game: LoadedGame, player: PlayerId, lang: str = "en") -> bytes:
    """Draw ``player``'s own area (their private view) in the drawing process."""
    return await drawing.draw(render.render_private, view_of(game, player), game.names, lang)


async def render_chart_png(
    game: GameInfo, actions: Sequence[LoggedAction], lang: str = "en"
) -> bytes:
    """The chart of how a finished game went, replayed and drawn in the drawing process
    (``render/chart.py``); ``actions``: the game's whole log."""
    if game.seed is None:
        raise ValueError(f"game {game.id} has no seed: it never started")
    return await drawing.draw_chart(
        game.kind,
        game.players,
        game.seed,
        game.options,
        [(entry.player, entry.action) for entry in decision_log(actions)],
        game.names,
        lang,
    )


class Pictures:
    """Recent board pictures by (game id, version, language)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[int, int, str], bytes] = OrderedDict()
        self.draw_board = render_board_png
        self.draw_chart = render_chart_png
        """How this table core draws (a test may watch or hold one bot's drawings)."""

    async def board(self, game: LoadedGame, lang: str = "en") -> bytes:
        """The public picture of the game's board, labelled in ``lang``."""
        key = (game.id, game.version, lang)
        png = self._kept.get(key)
        if png is None:
            png = await self.draw_board(game, lang)
            self._kept[key] = png
            while len(self._kept) > RECENT_PICTURES:
                self._kept.popitem(last=False)
        return png

    async def chart(
        self,
        game: GameInfo,
        actions: Callable[[], Awaitable[Sequence[LoggedAction]]],
        lang: str = "en",
    ) -> bytes | None:
        """The chart of the finished game, or ``None`` if it cannot be had (logged): the
        final scores are shown without it rather than not at all. ``actions``: reads the
        game's whole log."""
        try:
            log_ = await actions()
            return await asyncio.wait_for(self.draw_chart(game, log_, lang), CHART_TIMEOUT)
        except DatabaseUnavailable as error:  # an outage, not a bug: one line
            log.warning("game %s: no chart of the game this time (%r)", game.id, error)
            return None
        except Exception:
            log.exception("game %s: the chart of the game could not be drawn", game.id)
            return None
