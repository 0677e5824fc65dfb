"""Taking back a decision: the storage side of ``engine.undo``.

The engine decides what may be taken back (:class:`engine.undo.History`); storage
keeps the log append-only. An undo is written like any action: one row in
``actions`` (``{"kind": "undo", "seq": N}`` with its ``took_back`` event), the
snapshot replaced by the state before entry N, and the version bumped ``WHERE
version = ?``, through the same write path as ``submit`` (group commit, the guard in
SQL, the state cache). A stale version is a clean :class:`Conflict`.

Where the states before each step come from: a replay of the game from its seed
through its log, kept per game in memory (:attr:`UndoStore._histories`) and brought
up to date with the log entries after the version it was built at; like the state
cache it is an accelerator keyed by version, rebuilt from the database when missing
(another process, a restart). A :class:`History` keeps only the steps an undo may
still reach (those after the last step that closed the undo window), so it stays
small.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from engine.core import PlayerId, RuleError
from engine.undo import History, Undo
from storage.core import Clock, SqlCore, Write, dump_events, json_object, utc_now
from storage.errors import Conflict, GameNotFound, UnreadableGame, WrongStatus
from storage.models import Submitted

HISTORY_CACHE_SIZE = 256
"""Games whose replayed history this process keeps (the most recently used)."""


class UndoStore(SqlCore):
    """``undo_window`` and ``undo`` for :class:`storage.repository.SqlStorage`."""

    def __init__(self, clock: Clock = utc_now) -> None:
        super().__init__(clock)
        self._histories: OrderedDict[int, History] = OrderedDict()

    def _applied(
        self,
        game_id: int,
        version: int,
        player: PlayerId,
        action: Any,
        state: Any,
        events: Sequence[Any],
        finished: bool,
    ) -> None:
        """A submit committed: the game's history (if kept) takes the step as it was
        applied, so the next panel needs no read of the log."""
        history = self._histories.get(game_id)
        if history is None or history.version < version:
            return  # it reads the log when next asked
        if finished or history.version > version:
            self._histories.pop(game_id, None)
            return
        history.record(version + 1, player, action, state, events)

    async def _history(self, game_id: int, version: int | None = None) -> tuple[str, History]:
        """The game's kind and its history, up to date with the committed log; with
        ``version`` (of a game just loaded, active), a history at that version is
        taken as it is, without reading anything."""
        known = self._histories.get(game_id)
        if version is not None and known is not None and known.version == version:
            self._histories.move_to_end(game_id)
            return known.game.name, known
        rows = await self._lookup(
            "SELECT kind, status, seed, options FROM games WHERE id = ?", (game_id,)
        )
        if not rows:
            raise GameNotFound(game_id)
        kind, status, seed, options_json = rows[0]
        if status != "active":
            raise WrongStatus(game_id, status, "active")
        history = self._histories.get(game_id)
        try:
            if history is None:
                game = self._engine(game_id, kind)
                seats = await self._lookup(
                    "SELECT player FROM seats WHERE game_id = ? ORDER BY position", (game_id,)
                )
                options = game.parse_options(json_object(game_id, options_json, "options"))
                history = History(game, game.new_game([r[0] for r in seats], seed, options))
            entries = await self._lookup(
                "SELECT seq, player, action FROM actions WHERE game_id = ? AND seq > ?"
                " ORDER BY seq",
                (game_id, history.version),
            )
            for seq, player, action_json in entries:
                if seq == history.version + 1:  # another task may have gone further meanwhile
                    history.apply_logged(seq, player, json.loads(action_json))
        except ValueError as error:  # a RuleError too: the log does not replay
            self._histories.pop(game_id, None)
            raise UnreadableGame(game_id, f"its log does not replay ({error}).") from None
        self._histories[game_id] = history
        self._histories.move_to_end(game_id)
        while len(self._histories) > HISTORY_CACHE_SIZE:
            self._histories.popitem(last=False)
        return kind, history

    async def undo_window(self, game_id: int, player: PlayerId, version: int | None = None) -> int:
        """How many of their latest decisions ``player`` may take back now (0: none);
        ``version``: the version of the game as just loaded (saves reads)."""
        _kind, history = await self._history(game_id, version)
        if version is not None and history.version != version:
            return 0  # the game moved on since it was loaded: that panel is stale anyway
        return history.window(player)

    async def undo_refusal(self, game_id: int, player: PlayerId) -> str | None:
        """Why ``player`` cannot take anything back now (a sentence), or ``None``."""
        _kind, history = await self._history(game_id)
        return history.refusal(player)

    async def undo(self, game_id: int, player: PlayerId, expected_version: int | None) -> Submitted:
        """Take back ``player``'s latest decision: append the undo entry, replace the
        snapshot with the state before that decision, bump the version.

        ``expected_version``: the version the player saw (a button), or ``None`` for
        the latest (a typed command). Raises :class:`engine.undo.CannotUndo` (a
        ``RuleError``: nothing to take back, another player acted since, a reveal, …)
        or :class:`Conflict`; nothing is written then."""
        kind, history = await self._history(game_id)
        version = history.version
        if expected_version is not None and expected_version != version:
            raise Conflict(game_id, expected_version, version)
        try:
            entry, state, event = history.undo_entry(player)
        except RuleError as error:
            error.naming(player=player, version=version, game_id=game_id)
            raise
        row = (state.model_dump_json(), entry.model_dump_json(), dump_events([event]), None)
        write = Write(game_id, player, version, expected_version, row, kind=kind, state=state)
        try:
            await self._group_commit(write)
        except Conflict:
            self._histories.pop(game_id, None)
            raise
        if history.version == version:  # nothing else applied to it meanwhile
            history.apply(version + 1, player, Undo(seq=entry.seq))
        else:  # another task read our entry from the log meanwhile: rebuild next time
            self._histories.pop(game_id, None)
        return Submitted(state, (event,), version + 1)
