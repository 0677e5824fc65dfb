"""Forgetting a player on request: ``python -m storage forget-user`` and ``/forget-me``.

A player's Discord id and display name are replaced, everywhere the database holds
them, by a placeholder: the player id ``forgotten:<n>`` (``n`` numbers the forgotten
players of this database, so it collides neither with a Discord id, which is all
digits, nor with a computer seat's ``ai:<n>``) and the display name "Player 3 of game
812" (the seat's number and the game's). What changes:

* each seat of theirs (``player``, ``display_name``; ``user_id`` becomes ``NULL``), and
  ``games.host_id`` (``0``, never a Discord id) of the games they opened;
* every JSON text that names their player id, as a string value or an object key: the
  engine's snapshot, the stored result, the options and settings, the action log's
  ``player``, ``action`` and ``events``, the timers' payloads, and the keys of the
  shown messages (``dm_closed:<player>``);
* their rows of ``game_results``, ``player_totals``, ``strategy_totals`` and
  ``ratings`` (the identity).

Every game still replays: the engine never reads what a player id says, only whether
two are equal, so the seed and the renamed log give the renamed snapshot
(``python -m storage check`` passes). One placeholder per player, not per game, keeps
their rating and the others' exactly what they were, and what a rebuild computes
again (:mod:`storage.ratings` rates a forgotten seat as its placeholder); it links
their games to each other, but no longer to them.

Open games (a lobby or a running game they sit in or host) are refused
(:class:`StillPlaying`): a running bot keeps an open game's state in memory, and the
next move would write the old id back; a lobby is theirs to leave. Finished and
abandoned games never change again, so they are rewritten while the bot runs.

It is one transaction: all or nothing. The action log is append-only (its triggers
refuse an update); the transaction lifts that guard for its own rewrite and puts it
back before it commits (:attr:`ForgetStore.LOG_UNGUARD`, :attr:`ForgetStore.LOG_GUARD`),
so no other writer ever sees the log unguarded. A second run finds nothing left to
change. Messages already posted on Discord are Discord's, not the database's: they
stay as they were.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from storage.core import SqlCore, Tx
from storage.errors import StorageError
from storage.models import FORGOTTEN_PREFIX, OPEN_STATUSES

FORGOTTEN_HOST = 0
"""``games.host_id`` of a game whose host was forgotten (Discord ids are never 0)."""
RATED_TABLES = ("game_results", "player_totals", "strategy_totals", "ratings")
"""The tables of ratings and statistics, each with an ``identity`` column."""
OPEN = ", ".join(f"'{status}'" for status in OPEN_STATUSES)


def placeholder_name(position: int, game_id: int) -> str:
    """A forgotten player's display name in one game (``position`` counts from 0).

    >>> placeholder_name(2, 812)
    'Player 3 of game 812'
    """
    return f"Player {position + 1} of game {game_id}"


class StillPlaying(StorageError):
    """The player sits in (or hosts) a lobby or a running game: nothing was forgotten."""

    def __init__(self, user_id: int, game_ids: Sequence[int]) -> None:
        games = ", ".join(f"#{game_id}" for game_id in game_ids)
        super().__init__(
            f"User {user_id} still plays in game {games}: they must leave the lobby, or the"
            " game must finish or be abandoned, before they can be forgotten. Nothing was"
            " changed."
        )
        self.user_id = user_id
        self.game_ids = tuple(game_ids)


@dataclass(frozen=True)
class Forgotten:
    """What :meth:`ForgetStore.forget_user` changed (all zero: nothing was left)."""

    user_id: int
    placeholder: str | None
    """The player id that replaced theirs (``None``: nothing to forget)."""
    games: tuple[int, ...] = ()
    """The games rewritten: seated in, or hosted."""
    seats: int = 0
    log_entries: int = 0
    rating_rows: int = 0
    """Rows of ratings and statistics renamed."""

    @property
    def changed(self) -> bool:
        return self.placeholder is not None


def renamed(value: Any, old: str, new: str) -> Any:
    """``value`` (decoded JSON) with every string ``old``, value or key, made ``new``.

    >>> renamed({"players": ["7", "ai:1"], "scores": {"7": 3}, "n": 7}, "7", "forgotten:1")
    {'players': ['forgotten:1', 'ai:1'], 'scores': {'forgotten:1': 3}, 'n': 7}
    """
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [renamed(item, old, new) for item in value]
    if isinstance(value, dict):
        return {(new if k == old else k): renamed(v, old, new) for k, v in value.items()}
    return value


def renamed_json(text: str | None, old: str, new: str) -> str | None:
    """The JSON text with ``old`` renamed, or ``None`` when it does not name ``old``
    (then it stays exactly as stored)."""
    if text is None or json.dumps(old) not in text:
        return None
    value = json.loads(text)
    after = renamed(value, old, new)
    if after == value:
        return None
    return json.dumps(after, ensure_ascii=False, separators=(",", ":"))


def renamed_key(key: str, old: str, new: str) -> str:
    """A shown message's key with a ``:``-separated part ``old`` renamed.

    >>> renamed_key("dm_closed:7", "7", "forgotten:1")
    'dm_closed:forgotten:1'
    """
    return ":".join(new if part == old else part for part in key.split(":"))


class ForgetStore(SqlCore):
    """Forgetting a player, for :class:`storage.repository.SqlStorage`."""

    LOG_UNGUARD: ClassVar[tuple[str, ...]] = ("DROP TRIGGER actions_are_never_updated",)
    """Statements that let this transaction update the action log (SQLite: drop the
    trigger, which a transaction may do and roll back)."""
    LOG_GUARD: ClassVar[tuple[str, ...]] = (
        """
        CREATE TRIGGER actions_are_never_updated BEFORE UPDATE ON actions
        BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
        """,
    )
    """Statements that make the log append-only again, before the commit (migration 1's
    trigger, as it created it)."""
    FORGET_LOCKS: ClassVar[tuple[str, ...]] = ()
    """Taken first: no rating pass runs while a player is forgotten (SQLite's ``BEGIN
    IMMEDIATE`` already holds the whole file)."""

    async def open_games_of(self, user_id: int) -> list[int]:
        """The lobbies and running games ``user_id`` sits in or hosts, by id."""
        rows = await self._read(OPEN_GAMES, (user_id, str(user_id), user_id))
        return [int(row[0]) for row in rows]

    async def forget_user(self, user_id: int) -> Forgotten:
        """Replace ``user_id``'s id and name everywhere (module doc); raises
        :class:`StillPlaying` (nothing changed) while they are in an open game."""
        old = str(user_id)
        async with self._write() as db:
            for statement in self.FORGET_LOCKS:
                await db.fetch(statement)
            open_games = await db.fetch(OPEN_GAMES, (user_id, old, user_id))
            if open_games:
                raise StillPlaying(user_id, [int(row[0]) for row in open_games])
            seats = await db.fetch(
                "SELECT s.game_id, s.position FROM seats AS s JOIN games AS g ON g.id = s.game_id"
                f" WHERE (s.player = ? OR s.user_id = ?) AND g.status NOT IN ({OPEN})"
                " ORDER BY s.game_id",
                (old, user_id),
            )
            hosted = await db.fetch("SELECT id FROM games WHERE host_id = ?", (user_id,))
            rated = 0
            for table in RATED_TABLES:
                rows = await db.fetch(f"SELECT count(*) FROM {table} WHERE identity = ?", (old,))
                rated += int(rows[0][0])
            if not seats and not hosted and not rated:
                return Forgotten(user_id, None)
            new = await self._placeholder(db)
            entries = []
            for game_id, position in seats:
                entries += await self._forget_in_game(db, int(game_id), int(position), old, new)
            await db.execute(
                "UPDATE games SET host_id = ? WHERE host_id = ?", (FORGOTTEN_HOST, user_id)
            )
            for table in RATED_TABLES:
                await db.execute(f"UPDATE {table} SET identity = ? WHERE identity = ?", (new, old))
            if entries:
                for statement in self.LOG_UNGUARD:
                    await db.execute(statement)
                await db.executemany(
                    "UPDATE actions SET player = ?, action = ?, events = ?"
                    " WHERE game_id = ? AND seq = ?",
                    entries,
                )
                for statement in self.LOG_GUARD:
                    await db.execute(statement)
        games = sorted({int(row[0]) for row in seats} | {int(row[0]) for row in hosted})
        return Forgotten(user_id, new, tuple(games), len(seats), len(entries), rated)

    async def _placeholder(self, db: Tx) -> str:
        """The next ``forgotten:<n>`` of this database."""
        pattern = re.compile(re.escape(FORGOTTEN_PREFIX) + r"([0-9]+)")
        taken = [0]
        for table, column in (("seats", "player"), *((t, "identity") for t in RATED_TABLES)):
            for (name,) in await db.fetch(
                f"SELECT DISTINCT {column} FROM {table} WHERE {column} LIKE ?",
                (FORGOTTEN_PREFIX + "%",),
            ):
                if found := pattern.fullmatch(str(name)):
                    taken.append(int(found[1]))
        return f"{FORGOTTEN_PREFIX}{max(taken) + 1}"

    async def _forget_in_game(
        self, db: Tx, game_id: int, position: int, old: str, new: str
    ) -> list[tuple[str, str, str, int, int]]:
        """Rewrite one game's seat, JSON, timers and message keys; its log entries to
        rewrite, as ``(player, action, events, game_id, seq)``."""
        await db.execute(
            "UPDATE seats SET player = ?, user_id = NULL, display_name = ?"
            " WHERE game_id = ? AND position = ?",
            (new, placeholder_name(position, game_id), game_id, position),
        )
        ((snapshot, result, options, settings),) = await db.fetch(
            "SELECT snapshot, result, options, settings FROM games WHERE id = ?", (game_id,)
        )
        columns = {"snapshot": snapshot, "result": result, "options": options, "settings": settings}
        changes = {
            column: after
            for column, text in columns.items()
            if (after := renamed_json(text, old, new)) is not None
        }
        if changes:
            assignments = ", ".join(f"{column} = ?" for column in changes)
            await db.execute(
                f"UPDATE games SET {assignments} WHERE id = ?", (*changes.values(), game_id)
            )
        for timer_id, payload in await db.fetch(
            "SELECT id, payload FROM timers WHERE game_id = ?", (game_id,)
        ):
            if (after := renamed_json(payload, old, new)) is not None:
                await db.execute("UPDATE timers SET payload = ? WHERE id = ?", (after, timer_id))
        for (key,) in await db.fetch("SELECT key FROM game_messages WHERE game_id = ?", (game_id,)):
            if (after_key := renamed_key(key, old, new)) != key:
                await db.execute(
                    "UPDATE game_messages SET key = ? WHERE game_id = ? AND key = ?",
                    (after_key, game_id, key),
                )
        entries = []
        for seq, player, action, events in await db.fetch(
            "SELECT seq, player, action, events FROM actions WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ):
            new_action = renamed_json(action, old, new)
            new_events = renamed_json(events, old, new)
            if player == old or new_action is not None or new_events is not None:
                who = new if player == old else player
                entries.append((who, new_action or action, new_events or events, game_id, seq))
        return entries


OPEN_GAMES = (
    "SELECT g.id FROM games AS g"
    f" WHERE g.status IN ({OPEN}) AND (g.host_id = ? OR EXISTS ("
    " SELECT 1 FROM seats AS s WHERE s.game_id = g.id AND (s.player = ? OR s.user_id = ?)))"
    " ORDER BY g.id"
)
