"""What a table's page shows, as HTML fragments drawn from the public view and the
public log: the live table at one version, and one step of its replay.

Never more than the thread shows: the board is drawn from ``view(state, None)`` (no
hand, no secret pick, no reindeer name), the log from the log's public events (the
thread's lines, ``tables.texts``), the names are escaped by the templates; no seed, no
user id, no Discord id reaches a fragment.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from markupsafe import Markup

import i18n
from engine import get_game, undo
from engine.words import Words
from storage import GameInfo, LoadedGame, LoggedAction, Storage
from tables.replays import Replayed
from tables.texts import breakdown, event_lines
from web.boards import board_html, status_html
from web.templating import render

LOG_MOVES = 40
"""The live page's log: the lines of the last this many moves, newest first."""
REPLAYS_KEPT = 16


def title(info: GameInfo, words: Words) -> str:
    return words.gettext(get_game(info.kind).title)


def move_lines(info: GameInfo, entry: LoggedAction, words: Words) -> list[str]:
    """What happened at one move, as the thread's log said it (Tonttu's "has chosen"
    lines are left out there too: the board shows who has chosen)."""
    rules = get_game(info.kind)
    events = [e for e in undo.parse_events_json(rules, entry.events_json) if e.kind != "chose"]
    return event_lines(info, events, words)


def since(game: LoadedGame, log: Sequence[LoggedAction]) -> datetime | None:
    """When the turn being played began: the last move of someone who is not to act
    now (or the start, or the last move when everyone acts, as in Tonttu's picks)."""
    if game.status != "active":
        return None
    acting = get_game(game.kind).to_act(game.state)
    for entry in reversed(log):
        if entry.player not in acting:
            return entry.created_at
    return log[-1].created_at if log and len(acting) > 1 else game.started_at


@dataclass(frozen=True)
class Final:
    """A finished game's final scores, as the thread's final message gives them."""

    rows: list[tuple[str, int, str, bool]]
    """(name, points, breakdown, won) by rank."""


def final_of(info: GameInfo, words: Words) -> Final | None:
    result = info.result
    if info.status != "finished" or not result:
        return None
    scores: dict[str, int] = result.get("scores", {})
    winners = set(result.get("winners", []))
    names = info.names
    rows = [
        (
            names.get(player, player),
            scores[player],
            breakdown(result.get("players", {}).get(player, {}), words),
            player in winners,
        )
        for player in sorted(scores, key=lambda p: -scores[p])
    ]
    return Final(rows)


REVEALS_BACK = 8
"""How many moves back a board looks for the cards they turned up, for a reader who has
not seen them (a computer's pick right after a reveal must not hide its animation)."""


def unseen_events(
    kind: str, log: Sequence[LoggedAction], version: int, shown: int | None
) -> list[Any]:
    """The events of the moves up to ``version`` that a reader showing version ``shown``
    has not seen (``None``: a new reader, who sees the last move's), at most
    :data:`REVEALS_BACK` of them: what the board marks as just turned up."""
    first = version - 1
    if shown is not None and 0 <= shown <= version:
        first = max(shown, version - REVEALS_BACK)
    rules = get_game(kind)
    return [
        event
        for entry in log
        if first < entry.seq <= version
        for event in undo.parse_events_json(rules, entry.events_json)
    ]


def live_html(
    game: LoadedGame,
    log: list[LoggedAction],
    lang: str,
    token: str,
    deadline: datetime | None,
    shown: int | None = None,
) -> str:
    """The live table at the game's version: status, board (the cards a reveal turned
    up since the version ``shown`` before animated), log (``log``: its last entries), the
    end; ``token``: the page's, for its links. Pure CPU, run in the
    drawing process (``tables.drawing``) like the board pictures, so the event loop
    keeps answering the tables."""
    words = i18n.words(lang)
    moves = [(entry, _lines(game, entry, lang)) for entry in reversed(log)]
    rules = get_game(game.kind)
    view = rules.view(game.state, None) if game.state is not None else None
    events = unseen_events(game.kind, log, game.version, shown)
    html = render(
        "table.html",
        words,
        game=game,
        title=title(game, words),
        lang=lang,
        token=token,
        board=(
            board_html(game.kind, view, game.names, words, events=events)
            if view is not None
            else None
        ),
        status=status_html(game.kind, view, game.names, words) if view is not None else None,
        since=since(game, log),
        deadline=deadline if game.status == "active" else None,
        moves=[(entry, lines) for entry, lines in moves if lines],
        final=final_of(game, words),
    )
    return str(html)


_described: OrderedDict[tuple[int, int, int, str], list[str]] = OrderedDict()
LINES_KEPT = 4096


def _lines(game: GameInfo, entry: LoggedAction, lang: str) -> list[str]:
    """:func:`move_lines`, kept: a page shows the last moves' lines at every move."""
    key = (game.id, entry.seq, hash(entry.events_json), lang)
    lines = _described.pop(key, None)
    if lines is None:
        lines = move_lines(game, entry, i18n.words(lang))
    _described[key] = lines
    while len(_described) > LINES_KEPT:
        _described.popitem(last=False)
    return lines


class Replays:
    """Games being replayed lately (least recently used first), by id and version: a
    running game's replay is read again once it has moved on."""

    def __init__(self, store: Storage) -> None:
        self.store = store
        self._kept: OrderedDict[tuple[int, int], Replayed] = OrderedDict()

    async def of(self, info: GameInfo) -> Replayed:
        key = (info.id, info.version)
        found = self._kept.pop(key, None)
        if found is None:
            found = Replayed.of(info, await self.store.log(info.id))
        self._kept[key] = found
        while len(self._kept) > REPLAYS_KEPT:
            self._kept.popitem(last=False)
        return found

    async def fragment(self, info: GameInfo, step: int, lang: str) -> Replay:
        """The board after ``step`` moves (clamped to the game's), the lines of that
        move, and at the end of a finished game its final scores."""
        replayed = await self.of(info)
        step = max(0, min(step, replayed.moves))
        html = await asyncio.to_thread(replay_html, info, replayed, step, lang)  # CPU
        return Replay(step, replayed.moves, html)


def replay_html(info: GameInfo, replayed: Replayed, step: int, lang: str) -> Markup:
    words = i18n.words(lang)
    view: Any = get_game(info.kind).view(replayed.state_at(step), None)
    entry = replayed.log[step - 1] if step else None
    return render(
        "replay_step.html",
        words,
        game=info,
        title=title(info, words),
        lang=lang,
        step=step,
        steps=replayed.moves,
        board=board_html(info.kind, view, info.names, words),
        status=status_html(info.kind, view, info.names, words),
        lines=move_lines(info, entry, words) if entry is not None else None,
        final=final_of(info, words) if step == replayed.moves else None,
    )


@dataclass(frozen=True)
class Replay:
    step: int
    steps: int
    html: Markup
