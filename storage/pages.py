"""Game pages on the web: the storage side of a table's page (``/g/<token>``).

Each game gets a *page token* the first time one is asked for (:meth:`PageStore.web_token`):
``secrets.token_urlsafe`` of :data:`TOKEN_BYTES` bytes (128 random bits, 22 characters),
stored in ``games.web_token`` (migration 10) under a unique index, and the same for
ever after. The link is the only key to the page, so it must not be guessable; a
game's number would be. Two processes asking at once agree: the token is written by
one guarded statement (``WHERE web_token IS NULL``), and whoever finds it written
already reads the winner's.

A server may turn its pages off (``/settings``): a row in ``guild_web_off`` (no row:
on). It is a table of its own rather than a column of ``guild_settings``, whose row
holds a language that is not null and is deleted when the language is reset.

A live page's watcher asks, several times a second, for the version and status of
every game it shows: :meth:`PageStore.versions`, one indexed query for all of them.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Collection

from storage.core import SqlCore, dt, info_from_row
from storage.errors import GameNotFound, UnreadableGame
from storage.models import GameInfo, Watched

log = logging.getLogger(__name__)

TOKEN_BYTES = 16
"""Random bytes in a page token: 128 bits, 22 characters of URL-safe base64."""
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{22,128}")
"""What a page token can look like; anything else is not looked up at all."""
VERSIONS_AT_ONCE = 1024
"""Games one query of :meth:`PageStore.versions` asks for (far below both databases'
limits on parameters); more take one query per this many."""


def _padded(ids: list[int]) -> list[int]:
    """``ids`` (sorted, not empty) lengthened to a power of two by repeating the last,
    so the ``IN (…)`` lists of the watcher's queries come in a few lengths only: each
    length is a statement of its own in the databases' caches of prepared statements."""
    size = 1 << (len(ids) - 1).bit_length()
    return ids + [ids[-1]] * (size - len(ids))


class PageStore(SqlCore):
    """Page tokens, the servers' switch and the watched versions, for
    :class:`storage.repository.SqlStorage`."""

    async def web_token(self, game_id: int) -> str:
        """The game's page token, made and stored on the first ask; raises
        :class:`GameNotFound` for an unknown game."""
        rows = await self._lookup("SELECT web_token FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise GameNotFound(game_id)
        if rows[0][0] is not None:
            return str(rows[0][0])
        # A clash with another game's token (2**-128) would fail on the unique index.
        token = secrets.token_urlsafe(TOKEN_BYTES)
        made = await self._write_statement(
            "UPDATE games SET web_token = ? WHERE id = ? AND web_token IS NULL RETURNING web_token",
            (token, game_id),
        )
        if made:
            return token
        rows = await self._lookup("SELECT web_token FROM games WHERE id = ?", (game_id,))
        if not rows or rows[0][0] is None:
            raise GameNotFound(game_id)
        return str(rows[0][0])  # another process made it first

    async def game_of_token(self, token: str) -> GameInfo | None:
        """The game whose page token is ``token``; ``None`` for any other text (unknown,
        malformed, or of a game whose row cannot be read, which is logged)."""
        if not isinstance(token, str) or not TOKEN_SHAPE.fullmatch(token):
            return None
        rows = await self._lookup(
            f"SELECT {self.INFO} FROM games AS g WHERE g.web_token = ?", (token,)
        )
        if not rows:
            return None
        try:
            return info_from_row(rows[0])
        except UnreadableGame as error:
            log.warning("%s", error)
            return None

    async def set_guild_web_links(self, guild_id: int, on: bool) -> None:
        if on:
            await self._write_statement(
                "DELETE FROM guild_web_off WHERE guild_id = ? RETURNING guild_id", (guild_id,)
            )
        else:
            await self._write_statement(
                "INSERT INTO guild_web_off (guild_id) VALUES (?)"
                " ON CONFLICT (guild_id) DO NOTHING RETURNING guild_id",
                (guild_id,),
            )

    async def guild_web_links(self, guild_id: int) -> bool:
        rows = await self._lookup("SELECT 1 FROM guild_web_off WHERE guild_id = ?", (guild_id,))
        return not rows

    async def versions(self, game_ids: Collection[int]) -> dict[int, Watched]:
        """Version, status and pending turn limit of each game found, by id, in one
        query (per :data:`VERSIONS_AT_ONCE` games): the primary key's index, and the
        timers' index by game (a turn limit is written a moment after its move)."""
        ids = sorted({int(game_id) for game_id in game_ids})
        found: dict[int, Watched] = {}
        for start in range(0, len(ids), VERSIONS_AT_ONCE):
            chunk = _padded(ids[start : start + VERSIONS_AT_ONCE])
            rows = await self._lookup(
                "SELECT g.id, g.version, g.status, (SELECT MIN(t.due_at) FROM timers AS t"
                " WHERE t.game_id = g.id AND t.kind = 'turn_limit' AND t.fired_at IS NULL"
                " AND t.cancelled_at IS NULL) FROM games AS g"
                f" WHERE g.id IN ({', '.join('?' for _ in chunk)})",
                chunk,
            )
            for game_id, version, status, limit in rows:
                due = None if limit is None else dt(limit)
                found[int(game_id)] = Watched(int(version), str(status), due)
        return found
