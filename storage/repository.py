"""Every query of :class:`storage.base.Storage` except the write path, written once for
both SQL dialects.

:class:`SqlStorage` extends :class:`storage.core.SqlCore` (the lock, the state cache,
``submit`` and group commit) with the lobby, reading, timers, claims and the audit.
A backend (:mod:`storage.sqlite`, :mod:`storage.postgres`) subclasses it and
supplies only what differs between dialects (see ``SqlCore``).

Options weighed for writing the queries once:

* **An SQL toolkit (SQLAlchemy Core) generating each dialect.** One more large
  dependency and a second language for queries that are short and fixed; the
  dialect differences that matter here (JSON aggregates, row locks, the action
  statement) would still need hand-written branches.
* **Portable SQL with ``?`` placeholders, a few named dialect fragments**
  (chosen). SQLite and PostgreSQL share ``INSERT … ON CONFLICT … DO UPDATE …
  WHERE``, ``RETURNING``, partial indexes and ``UPDATE … WHERE id IN (SELECT …
  LIMIT ?)``; the PostgreSQL backend numbers the placeholders (``$1``, ``$2`` …).
  What differs is named on the backend: the JSON aggregates of ``INFO_COLUMNS``,
  ``FOR_UPDATE`` (PostgreSQL locks the game row a write transaction decides on;
  SQLite's ``BEGIN IMMEDIATE`` already holds the whole file), and which error
  is a unique violation.

Times are stored as UNIX seconds (``REAL`` / ``DOUBLE PRECISION``) and JSON as text
on both, so a row means the same in either database and ``storage copy`` moves it
unchanged.

Why each write is safe between processes: every multi-statement write runs in one
transaction that first reads (and on PostgreSQL locks) the game row; every
once-only decision is a single guarded statement: timer claims (``claimed_until
<= now``, ``FOR UPDATE SKIP LOCKED`` on PostgreSQL), ``finish_timer`` (``claimed_by
= owner``), message versions (``shown_version < new``) and named claims (expired or
already ours).

One class in one file, about 800 lines, on purpose: its queries share the dialect
fragments, the row helpers and the transaction discipline above, and several write
several tables in one transaction (a lobby's seats, a submit's log and timers, the
marks with the claim's release); a split by table would split those transactions'
code, and a split by feature would repeat the fragments.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from engine import GAME_MODULES, get_game
from engine.core import AnyGame, IllegalAction, PlayerId
from engine.undo import History
from storage.core import (
    SNAPSHOT,
    Tx,
    dt,
    dump_events,
    info_from_row,
    json_object,
    loaded,
    opt_dt,
    ts,
)
from storage.errors import (
    AlreadySeated,
    ChannelBusy,
    GameNotFound,
    LobbyFull,
    NotSeated,
    UnknownGame,
    UnreadableGame,
    WrongStatus,
)
from storage.forget import ForgetStore
from storage.models import (
    AI_PREFIX,
    Claim,
    GameInfo,
    LoadedGame,
    LoggedAction,
    NewTimer,
    ReplayReport,
    Timer,
    human_player,
)
from storage.pages import PageStore
from storage.ratings import RatingStore
from storage.undo import UndoStore

log = logging.getLogger(__name__)


class SqlStorage(UndoStore, RatingStore, PageStore, ForgetStore):
    """Games, seats, the action log, timers and claims in SQL (taking back a decision,
    ratings, the game pages and forgetting a player in the mixins). See the module doc."""

    # ------------------------------------------------------------------ lobby

    async def create_lobby(
        self,
        *,
        guild_id: int,
        channel_id: int,
        kind: str,
        options: Mapping[str, Any] | None,
        host_id: int,
        host_name: str,
        settings: Mapping[str, Any] | None = None,
    ) -> LoadedGame:
        try:
            game = get_game(kind)
        except (KeyError, ImportError):  # unknown name, or its engine is not installed
            raise UnknownGame(kind, ", ".join(sorted(GAME_MODULES))) from None
        options_json = game.parse_options(options).model_dump_json()  # InvalidSetup propagates
        settings_json = json.dumps(dict(settings or {}))
        now = self._now()
        try:
            async with self._write() as db:
                ((game_id,),) = await db.fetch(
                    "INSERT INTO games (guild_id, channel_id, host_id, kind, options, settings,"
                    " status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'lobby', ?, ?)"
                    " RETURNING id",
                    (guild_id, channel_id, host_id, kind, options_json, settings_json, now, now),
                )
                await db.execute(
                    "INSERT INTO seats (game_id, position, player, user_id, display_name)"
                    " VALUES (?, 0, ?, ?, ?)",
                    (game_id, human_player(host_id), host_id, host_name),
                )
        except self.UNIQUE_VIOLATION:
            # The partial unique index refused a second open game in this channel.
            rows = await self._read(
                "SELECT id, kind, status FROM games"
                " WHERE channel_id = ? AND status IN ('lobby', 'active')",
                (channel_id,),
            )
            if not rows:
                raise
            raise ChannelBusy(channel_id, rows[0][0], rows[0][1], rows[0][2]) from None
        return await self.load(game_id)

    async def _add_seat(
        self,
        game_id: int,
        player: PlayerId | None,
        user_id: int | None,
        name: str | None,
        level: str | None = None,
    ) -> None:
        async with self._write() as db:
            kind = await self._lobby_kind(db, game_id)
            seats = await db.fetch(
                "SELECT position, player FROM seats WHERE game_id = ?", (game_id,)
            )
            taken = {row[1] for row in seats}
            if player in taken:
                raise AlreadySeated(game_id)
            maximum = self._engine(game_id, kind).max_players
            if len(seats) >= maximum:
                raise LobbyFull(game_id, seats=maximum)
            if player is None:  # an AI seat: the lowest free number
                number = next(n for n in range(1, len(seats) + 2) if f"{AI_PREFIX}{n}" not in taken)
                player = f"{AI_PREFIX}{number}"
                name = name or f"AI {number}"
            position = max((row[0] for row in seats), default=-1) + 1
            await db.execute(
                "INSERT INTO seats (game_id, position, player, user_id, display_name, ai_level)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, position, player, user_id, name, level),
            )
            await db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (self._now(), game_id))

    async def join(self, game_id: int, user_id: int, display_name: str) -> LoadedGame:
        await self._add_seat(game_id, human_player(user_id), user_id, display_name)
        return await self.load(game_id)

    async def add_ai(
        self, game_id: int, display_name: str | None = None, level: str | None = None
    ) -> LoadedGame:
        """A computer seat ("AI n" unless named); ``level`` is how it plays (stored as
        given: the bot knows the levels, storage does not)."""
        await self._add_seat(game_id, None, None, display_name, level)
        return await self.load(game_id)

    async def leave(self, game_id: int, player: PlayerId) -> LoadedGame:
        async with self._write() as db:
            await self._lobby_kind(db, game_id)
            removed = await db.execute(
                "DELETE FROM seats WHERE game_id = ? AND player = ?", (game_id, player)
            )
            if removed != 1:
                raise NotSeated(game_id)
            await db.execute("UPDATE games SET updated_at = ? WHERE id = ?", (self._now(), game_id))
        return await self.load(game_id)

    async def start(self, game_id: int, seed: int) -> LoadedGame:
        async with self._write() as db:
            rows = await db.fetch(
                f"SELECT kind, status, options FROM games WHERE id = ?{self.FOR_UPDATE}",
                (game_id,),
            )
            if not rows:
                raise GameNotFound(game_id)
            kind, status, options_json = rows[0]
            if status != "lobby":
                raise WrongStatus(game_id, status, "a lobby")
            seats = await db.fetch(
                "SELECT player FROM seats WHERE game_id = ? ORDER BY position", (game_id,)
            )
            game = self._engine(game_id, kind)
            options = game.parse_options(json_object(game_id, options_json, "options"))
            # InvalidSetup (e.g. too few players) propagates and rolls back: nothing written.
            state = game.new_game([row[0] for row in seats], seed, options)
            now = self._now()
            await db.execute(
                "UPDATE games SET status = 'active', seed = ?, snapshot = ?, version = 0,"
                " started_at = ?, updated_at = ? WHERE id = ?",
                (seed, state.model_dump_json(), now, now, game_id),
            )
        self._remember(game_id, 0, kind, state)
        return await self.load(game_id)

    async def set_thread(self, game_id: int, thread_id: int | None) -> None:
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE games SET thread_id = ?, updated_at = ? WHERE id = ?",
                (thread_id, self._now(), game_id),
            )
            if changed != 1:
                raise GameNotFound(game_id)

    async def set_message(self, game_id: int, key: str, message_id: int | None) -> None:
        async with self._write() as db:
            await self._status(db, game_id)
            if message_id is None:  # the shown version stays: it must never go back
                await db.execute(
                    "UPDATE game_messages SET message_id = NULL WHERE game_id = ? AND key = ?",
                    (game_id, key),
                )
                await db.execute(
                    "DELETE FROM game_messages"
                    " WHERE game_id = ? AND key = ? AND shown_version IS NULL",
                    (game_id, key),
                )
            else:
                await db.execute(
                    "INSERT INTO game_messages (game_id, key, message_id) VALUES (?, ?, ?)"
                    " ON CONFLICT (game_id, key) DO UPDATE SET message_id = excluded.message_id",
                    (game_id, key, message_id),
                )

    async def claim_message_version(self, game_id: int, key: str, version: int) -> bool:
        """Record that message ``key`` is about to show ``version``: True (and stored)
        when it showed nothing yet or an older version, False otherwise (do not edit).

        An atomic compare-and-set in SQL, so of two processes publishing the same
        game, the one with the older version loses, whichever order they arrive in.
        """
        async with self._write() as db:
            await self._status(db, game_id)
            rows = await db.fetch(
                "INSERT INTO game_messages (game_id, key, shown_version) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id, key) DO UPDATE SET shown_version = excluded.shown_version"
                " WHERE game_messages.shown_version IS NULL"
                " OR game_messages.shown_version < excluded.shown_version"
                " RETURNING key",
                (game_id, key, version),
            )
            return bool(rows)

    MARKS = (
        "INSERT INTO game_messages (game_id, key, message_id, shown_version) VALUES {rows}"
        " ON CONFLICT (game_id, key) DO UPDATE SET"
        " message_id = COALESCE(excluded.message_id, game_messages.message_id),"
        " shown_version = CASE WHEN game_messages.shown_version IS NULL"
        " OR game_messages.shown_version < excluded.shown_version"
        " THEN excluded.shown_version ELSE game_messages.shown_version END"
    )

    async def set_marks(
        self,
        game_id: int,
        marks: Mapping[str, tuple[int | None, int]],
        *,
        release: tuple[str, str] | None = None,
        timers: Sequence[NewTimer] = (),
        cancel: Sequence[str] = (),
    ) -> None:
        """Record, per key, a message id (``None``: keep the stored one) and a version
        that only grows (a lower one than stored is ignored); with ``release=(name,
        owner)``, give back that claim afterwards (if ``owner`` holds it).

        ``timers`` and ``cancel`` (timer kinds whose pending timers end; each of
        ``timers`` replaces its kind's) are written in one transaction with the marks,
        while the game is open (a game that ended meanwhile has no timers: they are left
        out). A timer a process is firing (under a live claim) is left to it to finish:
        its own effect may be what ends it (a race closed by its timer starts the phase
        that cancels the close). Without them the marks are one
        statement and the release another: a process that dies between the two holds
        the claim until its lease ends, having recorded what it posted."""
        statement = self.MARKS.format(rows=", ".join(["(?, ?, ?, ?)"] * len(marks)))
        params = [x for key, (mid, version) in marks.items() for x in (game_id, key, mid, version)]
        try:
            if timers or cancel:
                await self._marks_and_timers(game_id, statement, params, timers, cancel)
            elif marks:
                await self._write_statement(statement, params)
        except Exception:
            if not await self._read("SELECT 1 FROM games WHERE id = ?", (game_id,)):
                raise GameNotFound(game_id) from None
            raise
        if release is not None:
            await self._write_statement("DELETE FROM claims WHERE name = ? AND owner = ?", release)

    async def _marks_and_timers(
        self,
        game_id: int,
        statement: str,
        params: Sequence[Any],
        timers: Sequence[NewTimer],
        cancel: Sequence[str],
    ) -> None:
        now = self._now()
        rows = [
            (game_id, t.kind, ts(t.due_at), json.dumps(dict(t.payload), separators=(",", ":")), now)
            for t in timers
        ]
        async with self._write() as db:
            _kind, status = await self._status(db, game_id)
            if params:
                await db.execute(statement, params)
            if status not in ("lobby", "active"):
                return
            ending = sorted({t.kind for t in timers} | set(cancel))
            if ending:  # but not a timer being fired: its process finishes it
                await self._cancel_pending(db, game_id, now, ending, spare_claimed=True)
            if rows:
                await db.executemany(
                    "INSERT INTO timers (game_id, kind, due_at, payload, created_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    rows,
                )

    async def shown_version(self, game_id: int, key: str) -> int | None:
        """The version message ``key`` was last claimed to show (``None``: never)."""
        rows = await self._lookup(
            "SELECT shown_version FROM game_messages WHERE game_id = ? AND key = ?",
            (game_id, key),
        )
        return rows[0][0] if rows else None

    async def try_claim(self, name: str, owner: str, lease: timedelta) -> bool:
        """Hold ``name`` for ``lease``: True when it was free, its lease had run out, or
        ``owner`` already held it (the lease is renewed); False while another holds it.

        For work exactly one process should do (e.g. syncing slash commands for
        one command tree: ``try_claim(f"sync:{tree_hash}", owner, timedelta(days=1))``).
        One statement, so one round trip under the write lock.
        """
        return await self.claim(name, owner, lease) is not Claim.REFUSED

    async def claim(self, name: str, owner: str, lease: timedelta) -> Claim:
        """:meth:`try_claim`, telling apart a claim taken over from another owner whose
        lease had run out (it never gave the name back: it died, or lost the database)."""
        now = self._now()
        rows = await self._write_statement(
            "INSERT INTO claims (name, owner, claimed_until) VALUES (?, ?, ?)"
            " ON CONFLICT (name) DO UPDATE"
            " SET owner = excluded.owner, claimed_until = excluded.claimed_until,"
            " taken_from = CASE WHEN claims.owner = excluded.owner THEN NULL"
            " ELSE claims.owner END"
            " WHERE claims.claimed_until <= ? OR claims.owner = excluded.owner"
            " RETURNING taken_from",
            (name, owner, now + lease.total_seconds(), now),
        )
        if not rows:
            return Claim.REFUSED
        return Claim.HELD if rows[0][0] is None else Claim.TAKEN_OVER

    async def set_guild_language(self, guild_id: int, language: str | None) -> None:
        if language is None:
            await self._write_statement(
                "DELETE FROM guild_settings WHERE guild_id = ? RETURNING guild_id", (guild_id,)
            )
            return
        await self._write_statement(
            "INSERT INTO guild_settings (guild_id, language) VALUES (?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET language = excluded.language"
            " RETURNING guild_id",
            (guild_id, language),
        )

    # ------------------------------------------------------------------ reading

    async def guild_language(self, guild_id: int) -> str | None:
        rows = await self._lookup(
            "SELECT language FROM guild_settings WHERE guild_id = ?", (guild_id,)
        )
        return str(rows[0][0]) if rows else None

    async def info(self, game_id: int) -> GameInfo:
        rows = await self._lookup(f"SELECT {self.INFO} FROM games AS g WHERE g.id = ?", (game_id,))
        if not rows:
            raise GameNotFound(game_id)
        return info_from_row(rows[0])

    async def load(self, game_id: int) -> LoadedGame:
        rows = await self._lookup(
            f"SELECT {self.INFO}, g.snapshot FROM games AS g WHERE g.id = ?", (game_id,)
        )
        if not rows:
            raise GameNotFound(game_id)
        return self._loaded_from_row(rows[0])

    async def reload(self, game: LoadedGame) -> LoadedGame:
        cached = self._cache.get(game.id)
        if cached is not None and cached.version != game.version:  # this process knows
            return await self.load(game.id)  # of a newer move: no light read first
        rows = await self._lookup(
            f"SELECT {self.RELOAD} FROM games AS g WHERE g.id = ?", (game.id,)
        )
        if not rows:
            raise GameNotFound(game.id)
        version, status, messages, shown = rows[0]
        if version != game.version or status != game.status:
            return await self.load(game.id)
        return replace(game, messages=json.loads(messages), shown_versions=json.loads(shown))

    def _loaded_from_row(self, row: Sequence[Any]) -> LoadedGame:
        info = info_from_row(row)
        if info.status == "lobby" or (info.status == "abandoned" and info.seed is None):
            return loaded(info, None)
        cached = self._cache.get(info.id)
        if cached is not None and cached.version == info.version:
            return loaded(info, cached.state)
        state = self._parse_state(info.id, info.kind, row[SNAPSHOT])
        if info.status == "active":
            self._remember(info.id, info.version, info.kind, state)
        return loaded(info, state)

    async def find_open(self, channel_id: int) -> LoadedGame | None:
        rows = await self._lookup(
            f"SELECT {self.INFO}, g.snapshot FROM games AS g"
            " WHERE g.channel_id = ? AND g.status IN ('lobby', 'active')"
            " UNION ALL "
            f"SELECT {self.INFO}, g.snapshot FROM games AS g"
            " WHERE g.thread_id = ? AND g.status IN ('lobby', 'active')",
            (channel_id, channel_id),
        )
        return self._loaded_from_row(rows[0]) if rows else None

    async def list_games(
        self, *, guild_id: int | None = None, statuses: Sequence[str] | None = None
    ) -> list[GameInfo]:
        """Games by id; unreadable ones are logged and left out (``check`` reports them)."""
        where, params = ["TRUE"], list[Any]()
        if guild_id is not None:
            where.append("g.guild_id = ?")
            params.append(guild_id)
        if statuses is not None:
            where.append(f"g.status IN ({', '.join('?' for _ in statuses)})")
            params.extend(statuses)
        rows = await self._read(
            f"SELECT {self.INFO} FROM games AS g WHERE {' AND '.join(where)} ORDER BY g.id",
            params,
        )
        return self._readable(rows)

    async def count_open_games(self) -> dict[tuple[str, str], int]:
        rows = await self._read(
            "SELECT kind, status, COUNT(*) FROM games"
            " WHERE status IN ('lobby', 'active') GROUP BY kind, status"
        )
        return {(str(kind), str(status)): int(count) for kind, status, count in rows}

    def _readable(self, rows: Sequence[Sequence[Any]]) -> list[GameInfo]:
        games = []
        for row in rows:
            try:
                games.append(info_from_row(row))
            except UnreadableGame as error:
                log.warning("%s", error)
        return games

    async def history(
        self,
        guild_id: int,
        *,
        kind: str | None = None,
        limit: int = 50,
        channel_ids: Collection[int] | None = None,
    ) -> list[GameInfo]:
        if channel_ids is not None and not channel_ids:
            return []  # a member who sees no channel sees no game
        sql = f"SELECT {self.INFO} FROM games AS g WHERE g.guild_id = ? AND g.status = 'finished'"
        params: list[Any] = [guild_id]
        if kind is not None:
            sql += " AND g.kind = ?"
            params.append(kind)
        if channel_ids is not None:
            # A server has at most 500 channels: one placeholder each stays far below
            # both databases' limits on parameters (32766 / 32767).
            sql += f" AND g.channel_id IN ({', '.join('?' for _ in channel_ids)})"
            params.extend(sorted(channel_ids))
        sql += " ORDER BY g.finished_at DESC, g.id DESC LIMIT ?"
        params.append(limit)
        return self._readable(await self._read(sql, params))

    async def log(self, game_id: int, after: int = 0) -> list[LoggedAction]:
        rows = await self._lookup(
            "SELECT seq, player, action, events, created_at FROM actions"
            " WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after),
        )
        if not rows and not after:
            await self.info(game_id)  # GameNotFound for an unknown id
        try:
            return [
                LoggedAction(seq, player, json.loads(action), events, dt(created))
                for seq, player, action, events, created in rows
            ]
        except ValueError as error:
            raise UnreadableGame(game_id, f"its action log is not valid JSON ({error}).") from None

    async def abandon(self, game_id: int) -> None:
        """End a lobby or active game without a result; frees the channel, cancels timers.

        Works on a game whose stored state cannot be read.
        """
        now = self._now()
        async with self._write() as db:
            _kind, status = await self._status(db, game_id)
            if status not in ("lobby", "active"):
                raise WrongStatus(game_id, status, "a lobby or active")
            await db.execute(
                "UPDATE games SET status = 'abandoned', finished_at = ?, updated_at = ?"
                " WHERE id = ?",
                (now, now, game_id),
            )
            await self._cancel_pending(db, game_id, now)
        self._cache.pop(game_id, None)

    # ------------------------------------------------------------------ timers

    @staticmethod
    async def _cancel_pending(
        db: Tx,
        game_id: int,
        now: float,
        kinds: Sequence[str] | None = None,
        *,
        spare_claimed: bool = False,
    ) -> int:
        """Cancel a game's pending timers (of ``kinds``); ``spare_claimed`` leaves those a
        process is firing right now (under a live claim) to be finished by it."""
        sql = (
            "UPDATE timers SET cancelled_at = ? WHERE game_id = ?"
            " AND fired_at IS NULL AND cancelled_at IS NULL"
        )
        params: list[Any] = [now, game_id]
        if kinds is not None:
            sql += f" AND kind IN ({', '.join('?' * len(kinds))})"
            params.extend(kinds)
        if spare_claimed:
            sql += " AND (claimed_until IS NULL OR claimed_until <= ?)"
            params.append(now)
        return await db.execute(sql, params)

    async def schedule(
        self,
        game_id: int,
        kind: str,
        due_at: datetime,
        payload: Mapping[str, Any] | None = None,
        *,
        replace: bool = False,
    ) -> Timer:
        """A timer for an open game; ``replace`` first cancels its pending timers of ``kind``
        (but not one being fired: a reminder that posts a prompt schedules the next reminder,
        and must still be finished as fired, not found cancelled)."""
        payload_json = json.dumps(dict(payload or {}), separators=(",", ":"))
        due = ts(due_at)
        now = self._now()
        async with self._write() as db:
            _kind, status = await self._status(db, game_id)
            if status not in ("lobby", "active"):
                raise WrongStatus(game_id, status, "a lobby or active")
            if replace:
                await self._cancel_pending(db, game_id, now, [kind], spare_claimed=True)
            ((timer_id,),) = await db.fetch(
                "INSERT INTO timers (game_id, kind, due_at, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?) RETURNING id",
                (game_id, kind, due, payload_json, now),
            )
        return Timer(timer_id, game_id, kind, dt(due), json.loads(payload_json), dt(now))

    async def cancel_timer(self, timer_id: int) -> bool:
        """True if the timer was pending (and now is not)."""
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE timers SET cancelled_at = ?"
                " WHERE id = ? AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id),
            )
            return changed == 1

    async def cancel_timers(self, game_id: int, kind: str | None = None) -> int:
        async with self._write() as db:
            kinds = None if kind is None else [kind]
            return await self._cancel_pending(db, game_id, self._now(), kinds)

    async def due_timers(self, now: datetime | None = None) -> list[Timer]:
        """Pending timers due at ``now`` (default: the clock), oldest first, claimed or not.

        This includes every timer that came due while the bot was down. A timer
        whose payload cannot be read is logged and left out. Several processes
        should use ``claim_due_timers`` instead, so that each timer fires once.
        """
        moment = self._now() if now is None else ts(now)
        return await self._pending("due_at <= ?", (moment,))

    async def pending_timers(self, game_id: int) -> list[Timer]:
        """One game's pending timers, soonest first (e.g. to show when a turn limit ends)."""
        return await self._pending("game_id = ?", (game_id,))

    async def _pending(self, where: str, params: Sequence[Any]) -> list[Timer]:
        rows = await self._read(
            "SELECT id, game_id, kind, due_at, payload, created_at FROM timers"
            f" WHERE fired_at IS NULL AND cancelled_at IS NULL AND {where}"
            " ORDER BY due_at, id",
            params,
        )
        return self._timers(rows)

    @staticmethod
    def _timers(rows: Sequence[Sequence[Any]]) -> list[Timer]:
        timers = []
        for timer_id, game_id, kind, due, payload, created in rows:
            try:
                payload_object = json_object(game_id, payload, f"timer {timer_id} payload")
            except UnreadableGame as error:
                log.warning("%s", error)
                continue
            timers.append(Timer(timer_id, game_id, kind, dt(due), payload_object, dt(created)))
        return timers

    async def next_due_at(self) -> datetime | None:
        """When the next pending timer is due, so the bot can sleep until then."""
        rows = await self._read(
            "SELECT MIN(due_at) FROM timers WHERE fired_at IS NULL AND cancelled_at IS NULL"
        )
        return opt_dt(rows[0][0])

    CLAIM_DUE = (
        "UPDATE timers SET claimed_by = ?, claimed_until = ? WHERE id IN ("
        " SELECT id FROM timers AS t WHERE fired_at IS NULL AND cancelled_at IS NULL"
        " AND due_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)"
        " AND NOT EXISTS (SELECT 1 FROM timers AS busy WHERE busy.game_id = t.game_id"
        " AND busy.id <> t.id AND busy.fired_at IS NULL AND busy.cancelled_at IS NULL"
        " AND busy.claimed_until > ?)"
        " ORDER BY due_at, id LIMIT ?{lock})"
        " RETURNING id, game_id, kind, due_at, payload, created_at"
    )

    async def claim_due_timers(
        self, owner: str, lease: timedelta, now: datetime | None = None, limit: int = 100
    ) -> list[Timer]:
        """Claim up to ``limit`` due timers for ``owner`` for ``lease``, oldest first.

        Only this owner gets them until the lease runs out: fire each, then
        ``finish_timer``. A timer whose lease ran out unfinished (its process died)
        is due again and can be claimed by another owner. A timer whose payload
        cannot be read is logged and left out (it stays claimed until its lease ends).
        On PostgreSQL the candidates are locked ``FOR UPDATE SKIP LOCKED``, so
        processes claiming at once take different timers instead of waiting.

        A game's timers fire one at a time, in due order, whichever process fires them:
        a timer is not claimed while another timer of its game is (say a reminder and
        the turn limit that fell due together: the reminder is asked for, then the
        limit plays; two processes must not do both at once). On PostgreSQL two claims
        in the same instant can still take two timers of one game (neither statement
        sees the other's claim); from then on the game waits.
        """
        moment = self._now() if now is None else ts(now)
        lock = " FOR UPDATE SKIP LOCKED" if self.FOR_UPDATE else ""
        async with self._write() as db:
            rows = await db.fetch(
                self.CLAIM_DUE.format(lock=lock),
                (owner, moment + lease.total_seconds(), moment, moment, moment, limit),
            )
        return self._timers(sorted(rows, key=lambda row: (row[3], row[0])))

    async def finish_timer(self, timer_id: int, owner: str, *, fired: bool = True) -> bool:
        """Mark a claimed timer fired, or (``fired=False``: it found nothing to do, say its
        turn had ended) cancelled; False if ``owner`` no longer holds it (its lease ran
        out and another claimed it), or it was cancelled or already fired."""
        column = "fired_at" if fired else "cancelled_at"
        async with self._write() as db:
            changed = await db.execute(
                f"UPDATE timers SET {column} = ? WHERE id = ? AND claimed_by = ?"
                " AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id, owner),
            )
            return changed == 1

    async def retry_timer(self, timer_id: int, owner: str, delay: timedelta) -> bool:
        """Give back a claimed timer that could not do its work now (a service out of
        reach): due again after ``delay``, for any owner. False if ``owner`` no longer
        holds it, or it was finished meanwhile."""
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE timers SET claimed_until = ? WHERE id = ? AND claimed_by = ?"
                " AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now() + delay.total_seconds(), timer_id, owner),
            )
            return changed == 1

    async def mark_fired(self, timer_id: int) -> bool:
        """Record that a timer fired; False if it already had (or was cancelled).

        Act first, then mark: if the bot dies in between, the timer fires again
        after the restart, and a timer action submitted with the version from
        its payload is refused as a ``Conflict`` the second time.
        """
        async with self._write() as db:
            changed = await db.execute(
                "UPDATE timers SET fired_at = ?"
                " WHERE id = ? AND fired_at IS NULL AND cancelled_at IS NULL",
                (self._now(), timer_id),
            )
            return changed == 1

    # ------------------------------------------------------------------ audit

    async def replay(self, game_id: int) -> ReplayReport:
        """Rebuild the state from seed, options, seats and log; compare with the snapshot."""
        try:
            return await self._replay(game_id)
        except (UnreadableGame, ValueError) as error:  # RuleError is a ValueError
            return ReplayReport(game_id, False, 0, str(error))

    async def _replay(self, game_id: int) -> ReplayReport:
        rows = await self._read(
            "SELECT kind, status, seed, options, snapshot, version, result FROM games WHERE id = ?",
            (game_id,),
        )
        if not rows:
            raise GameNotFound(game_id)
        kind, status, seed, options_json, snapshot, version, result = rows[0]
        log_rows = await self._read(
            "SELECT seq, player, action, events FROM actions WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )

        def bad(problem: str) -> ReplayReport:
            return ReplayReport(game_id, False, len(log_rows), problem)

        if seed is None:  # never started
            if log_rows or version != 0 or snapshot is not None:
                return bad("it was never started but has actions or a state.")
            return ReplayReport(game_id, True, 0)
        game = self._engine(game_id, kind)
        stored = self._parse_state(game_id, kind, snapshot)
        seats = await self._read(
            "SELECT player FROM seats WHERE game_id = ? ORDER BY position", (game_id,)
        )
        players = [row[0] for row in seats]
        options = game.parse_options(json_object(game_id, options_json, "options"))
        state = game.new_game(players, seed, options)
        if [row[0] for row in log_rows] != list(range(1, len(log_rows) + 1)):
            return bad("its action log has a gap or a duplicate seq.")
        if len(log_rows) != version:
            return bad(f"its version is {version} but its log holds {len(log_rows)} actions.")
        history = History(game, state)  # engine.undo: undo entries replay too, checked
        for seq, player, action_json, events_json in log_rows:
            try:
                events = history.apply_logged(
                    seq, player, json_object(game_id, action_json, "action")
                )
            except ValueError as error:  # a RuleError, or an undo not allowed where it stands
                return bad(f"action {seq} is refused on replay: {error}")
            if json.loads(dump_events(events)) != json.loads(events_json):
                return bad(f"action {seq} gives other events on replay than were logged.")
        state = history.state
        replayed = state.model_dump(mode="json")
        saved = stored.model_dump(mode="json")
        if replayed != saved:
            keys = sorted(
                k for k in replayed.keys() | saved.keys() if replayed.get(k) != saved.get(k)
            )
            return bad(f"the replayed state differs from the snapshot in: {', '.join(keys)}.")
        outcome = game.outcome(state)
        if (outcome is not None) != (status == "finished"):
            over = "over" if outcome is not None else "not over"
            return bad(f"it is {status}, but the engine says the game is {over}.")
        if outcome is not None and json.loads(outcome.model_dump_json()) != json.loads(
            result or "null"
        ):
            return bad("its stored result differs from the engine's outcome.")
        return ReplayReport(game_id, True, len(log_rows))

    async def unreadable_games(self) -> list[UnreadableGame]:
        """Lobbies and active games whose stored data cannot be read, by id.

        Cheaper than ``check_all`` (no replay): the bot can call it at start-up
        and log what it finds; the rest of the games are unaffected either way.
        """
        rows = await self._read(
            f"SELECT {self.INFO}, g.snapshot FROM games AS g"
            " WHERE g.status IN ('lobby', 'active') ORDER BY g.id"
        )
        problems = []
        for row in rows:
            try:
                self._loaded_from_row(row)
            except UnreadableGame as error:
                problems.append(error)
        return problems

    async def check_all(self) -> list[ReplayReport]:
        """``replay`` for every game, in id order; one bad game never stops the rest."""
        reports = []
        for (game_id,) in await self._read("SELECT id FROM games ORDER BY id"):
            try:
                reports.append(await self.replay(game_id))
            except Exception as error:  # report it with its id, carry on
                reports.append(ReplayReport(game_id, False, 0, f"{type(error).__name__}: {error}"))
        return reports


def logged_action(game: AnyGame, action_json: str) -> dict[str, Any]:
    """A logged action's JSON object; for anything else the game's own refusal."""
    try:
        logged = json.loads(action_json)
    except ValueError:
        logged = None
    if not isinstance(logged, dict):
        game.parse_action(action_json)  # raises the game's sentence for what it is not
        raise IllegalAction(f"{action_json[:40]!r} is not an action.").naming(action=action_json)
    return logged
