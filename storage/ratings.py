"""Ratings and player statistics in SQL: rating finished games once, rebuilding every
rating, and the queries of ``/stats`` and ``/leaderboard``. The rating math is
:mod:`engine.ratings` (pure); this module reads its inputs and stores its outputs.

Tables (migration 8): ``game_results`` holds one row per seat of a rated game (who,
score, place, won, favourite choice, and the game's server, channel and kind);
``player_totals`` and ``strategy_totals`` add those up per ``(server, identity, game
kind, channel)`` (and favourite), so ``/stats`` sums a few rows per channel and
``/leaderboard`` a few per player, however many games were played (the queries must
count only the channels the asker can see, so the totals are kept per channel);
``ratings`` holds ``mu``, ``sigma`` and the count of rated games per ``(server, game
kind, identity)``, server 0 being the global rating; ``games.rating_seq`` is the order
games were rated in (``NULL``: not yet). All of them change only in a rating pass.

When a game is rated
--------------------
Options weighed:

* **In the transaction that finishes the game.** The finishing move is written by
  the group-commit path (:mod:`storage.core`): one statement, or one ``executemany``
  for many games, holding the write lock for one round trip. Rating there means
  reading ratings and the game's seats (and log) inside that statement's
  transaction and running Python between statements: every other game's moves wait
  behind it, and a rating failure would refuse the move that finished the game.
* **Right after, in a transaction of its own, guarded so it happens once** (chosen).
  :meth:`RatingStore.rate_finished_games` rates every finished game whose
  ``rating_seq`` is ``NULL``, oldest finish first, in one transaction that sets it.
  ``submit`` calls it after committing a move that finished a game; the bot calls it
  at start, which also rates games finished before this table existed or while a
  process died between the two commits. Exactly once: the pass holds the database's
  write lock (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction-scoped advisory
  lock, so passes of several processes run one after another), reads which games are
  still unrated under it, and commits their results, new ratings and ``rating_seq``
  together; a second pass finds nothing left. An abandoned game never has
  ``status = 'finished'``, so it is never rated.

``python -m storage ratings --rebuild`` deletes the results and ratings and rates every
finished game again with the same function, in ``rating_seq`` order (then, for games
never rated, by finishing time): the order the incremental passes used, so the result
is equal, float for float. (Two processes finishing games at the same moment may rate
them in the other order than their ``finished_at``; keeping the order rated is what
makes a rebuild reproduce the incremental result.)
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from engine.ratings import (
    Rating,
    SeatResult,
    rate_game,
    seat_results,
    strategy_kind,
)
from engine.undo import effective_actions
from storage.core import SqlCore, Tx
from storage.errors import DatabaseUnavailable
from storage.models import FORGOTTEN_PREFIX, BoardEntry, KindStats

log = logging.getLogger(__name__)

GLOBAL = 0
"""The ``guild_id`` of global ratings (Discord ids are never 0)."""
RATE_BATCH = 200
"""Games rated per transaction, so a long backlog does not hold the write lock long."""
LEADERBOARD_MIN_GAMES = 3
"""A player appears on ``/leaderboard`` with at least this many counted games."""


@dataclass(frozen=True)
class _Finished:
    game_id: int
    guild_id: int
    channel_id: int
    kind: str
    result: str | None
    settings: str


@dataclass(frozen=True)
class _Logged:
    """An entry of a finished game's action log, for its favourite strategies."""

    seq: int
    player: str
    action: Mapping[str, Any]


RATING_TABLES = ("game_results", "player_totals", "strategy_totals", "ratings")
"""Everything derived from the finished games, which a rebuild computes again."""
FINISHED_COLUMNS = "g.id, g.guild_id, g.channel_id, g.kind, g.result, g.settings"


def _marks(values: Collection[Any]) -> str:
    return ", ".join("?" for _ in values)


class RatingStore(SqlCore):
    """The rating and statistics queries; :class:`storage.repository.SqlStorage` has them."""

    RATINGS_LOCK: ClassVar[str] = ""
    """A statement that makes rating passes of several processes take turns (PostgreSQL:
    an advisory lock); SQLite's ``BEGIN IMMEDIATE`` already does."""

    # ------------------------------------------------------------------ rating

    async def _after_finish(self) -> None:
        try:
            await self.rate_finished_games()
        except DatabaseUnavailable as error:  # a fault, not a bug: one line
            log.warning("rating finished games: %r; they stay queued for the next pass", error)
        except Exception:  # the move is saved; the next pass (or start) rates the game
            log.exception("rating finished games failed; they stay queued for the next pass")

    async def rate_finished_games(self) -> int:
        """Rate every finished game not rated yet, oldest finish first; how many."""
        rated = 0
        while True:
            async with self._write() as db:
                if self.RATINGS_LOCK:
                    await db.fetch(self.RATINGS_LOCK)
                rows = await db.fetch(
                    f"SELECT {FINISHED_COLUMNS} FROM games AS g"
                    " WHERE g.status = 'finished' AND g.rating_seq IS NULL"
                    " ORDER BY g.finished_at, g.id LIMIT ?",
                    (RATE_BATCH,),
                )
                if not rows:
                    return rated
                ((last,),) = await db.fetch("SELECT max(rating_seq) FROM games")
                await self._rate_games(db, [_Finished(*row) for row in rows], (last or 0) + 1)
                rated += len(rows)

    async def rebuild_ratings(self) -> int:
        """Delete every result and rating and rate every finished game again, in the
        order they were rated (then unrated ones by finishing time); how many games."""
        async with self._write() as db:
            if self.RATINGS_LOCK:
                await db.fetch(self.RATINGS_LOCK)
            rows = await db.fetch(
                f"SELECT {FINISHED_COLUMNS} FROM games AS g WHERE g.status = 'finished'"
                " ORDER BY CASE WHEN g.rating_seq IS NULL THEN 1 ELSE 0 END, g.rating_seq,"
                " g.finished_at, g.id"
            )
            for derived in RATING_TABLES:
                await db.execute(f"DELETE FROM {derived}")
            await db.execute("UPDATE games SET rating_seq = NULL WHERE rating_seq IS NOT NULL")
            for start in range(0, len(rows), RATE_BATCH):
                batch = [_Finished(*row) for row in rows[start : start + RATE_BATCH]]
                await self._rate_games(db, batch, start + 1)
        return len(rows)

    async def _rate_games(self, db: Tx, games: Sequence[_Finished], first_seq: int) -> None:
        """Rate ``games`` in this order, numbering them from ``first_seq``: a few statements
        for the whole batch (its seats, logs and ratings read at once, every row written
        with one ``executemany`` per table), the ratings carried from game to game here."""
        ids = [game.game_id for game in games]
        seats: dict[int, list[tuple[int, str, int | None, str | None]]] = {}
        for game_id, position, player, user_id, level in await db.fetch(
            "SELECT game_id, position, player, user_id, ai_level FROM seats"
            f" WHERE game_id IN ({_marks(ids)}) ORDER BY game_id, position",
            ids,
        ):
            seats.setdefault(int(game_id), []).append((position, player, user_id, level))
        logged = [g.game_id for g in games if (k := strategy_kind(g.kind)) and k.needs_log]
        entries: dict[int, list[_Logged]] = {}
        if logged:
            for game_id, seq, player, action in await db.fetch(
                "SELECT game_id, seq, player, action FROM actions"
                f" WHERE game_id IN ({_marks(logged)}) ORDER BY game_id, seq",
                logged,
            ):
                with contextlib.suppress(ValueError):  # `storage check` reports a bad log
                    entries.setdefault(int(game_id), []).append(
                        _Logged(seq, player, json.loads(action))
                    )
        actions: dict[int, list[tuple[str, Mapping[str, Any]]]] = {}
        for game_id, game_log in entries.items():
            with contextlib.suppress(ValueError):  # a damaged undo: `storage check` reports it
                actions[game_id] = [(e.player, e.action) for e in effective_actions(game_log)]
        results = {
            game.game_id: self._seat_results(
                game, seats.get(game.game_id, []), actions.get(game.game_id, [])
            )
            for game in games
        }
        current = await self._current_ratings(db, games, results)
        changed: set[tuple[int, str, str]] = set()
        for game in games:
            for scope in (game.guild_id, GLOBAL):
                table = current.setdefault((scope, game.kind), {})
                after = rate_game(results[game.game_id], table)
                table.update(after)
                changed.update((scope, game.kind, identity) for identity in after)
        await self._store_rated(db, games, first_seq, results, current, changed)

    @staticmethod
    def _seat_results(
        game: _Finished,
        seats: Sequence[tuple[int, str, int | None, str | None]],
        actions: Sequence[tuple[str, Mapping[str, Any]]],
    ) -> list[SeatResult]:
        """The seats of a finished game with score, place and favourite; none if its
        stored result cannot be read (logged: such a game is not rated)."""
        try:
            outcome = json.loads(game.result or "null")
            settings = json.loads(game.settings or "{}")
        except ValueError:
            outcome = None
        if not isinstance(outcome, dict):
            log.warning("game #%d: its result cannot be read; not rated", game.game_id)
            return []
        table_level = settings.get("ai_level") if isinstance(settings, dict) else None
        from engine.ai import LEVELS

        def level(seat_level: str | None) -> str | None:
            chosen = seat_level or table_level
            return chosen if chosen in LEVELS else None

        try:
            results = seat_results(
                game.kind,
                [(pos, player, uid, level(lvl)) for pos, player, uid, lvl in seats],
                outcome,
                actions,
            )
        except (ValueError, TypeError, AttributeError) as error:  # a result of another shape
            log.warning("game #%d: its result cannot be rated (%r); not rated", game.game_id, error)
            return []
        # A forgotten player (storage.forget) is rated as their placeholder, as before.
        forgotten = {pos: p for pos, p, _uid, _lvl in seats if p.startswith(FORGOTTEN_PREFIX)}
        return [
            replace(r, identity=forgotten[r.position]) if r.position in forgotten else r
            for r in results
        ]

    @staticmethod
    async def _current_ratings(
        db: Tx, games: Sequence[_Finished], results: Mapping[int, Sequence[SeatResult]]
    ) -> dict[tuple[int, str], dict[str, Rating]]:
        """The stored ratings of everyone in ``games``, by ``(scope, kind)``."""
        identities = sorted({r.identity for seats in results.values() for r in seats})
        scopes = {(scope, game.kind) for game in games for scope in (game.guild_id, GLOBAL)}
        current: dict[tuple[int, str], dict[str, Rating]] = {scope: {} for scope in scopes}
        if not identities:
            return current
        for guild_id, kind, identity, mu, sigma, count in await db.fetch(
            "SELECT guild_id, kind, identity, mu, sigma, games FROM ratings"
            f" WHERE identity IN ({_marks(identities)})",
            identities,
        ):
            if (int(guild_id), kind) in current:
                current[(int(guild_id), kind)][identity] = Rating(
                    float(mu), float(sigma), int(count)
                )
        return current

    @staticmethod
    async def _store_rated(
        db: Tx,
        games: Sequence[_Finished],
        first_seq: int,
        results: Mapping[int, Sequence[SeatResult]],
        current: Mapping[tuple[int, str], Mapping[str, Rating]],
        changed: set[tuple[int, str, str]],
    ) -> None:
        seated = [(game, r) for game in games for r in results[game.game_id]]
        if seated:
            await db.executemany(
                "INSERT INTO game_results (game_id, position, guild_id, channel_id, kind,"
                " identity, score, placement, won, strategy)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        g.game_id,
                        r.position,
                        g.guild_id,
                        g.channel_id,
                        g.kind,
                        r.identity,
                        r.score,
                        r.placement,
                        int(r.won),
                        r.strategy,
                    )
                    for g, r in seated
                ],
            )
            await db.executemany(
                "INSERT INTO player_totals (guild_id, kind, identity, channel_id, games, wins,"
                " score_sum, best_score) VALUES (?, ?, ?, ?, 1, ?, ?, ?)"
                " ON CONFLICT (guild_id, identity, kind, channel_id) DO UPDATE"
                " SET games = player_totals.games + 1, wins = player_totals.wins + excluded.wins,"
                " score_sum = player_totals.score_sum + excluded.score_sum,"
                " best_score = CASE WHEN excluded.best_score > player_totals.best_score"
                " THEN excluded.best_score ELSE player_totals.best_score END",
                [
                    (g.guild_id, g.kind, r.identity, g.channel_id, int(r.won), r.score, r.score)
                    for g, r in seated
                ],
            )
        favourites = [(g, r) for g, r in seated if r.strategy is not None]
        if favourites:
            await db.executemany(
                "INSERT INTO strategy_totals (guild_id, kind, identity, channel_id, strategy,"
                " games) VALUES (?, ?, ?, ?, ?, 1)"
                " ON CONFLICT (guild_id, identity, kind, channel_id, strategy) DO UPDATE"
                " SET games = strategy_totals.games + 1",
                [(g.guild_id, g.kind, r.identity, g.channel_id, r.strategy) for g, r in favourites],
            )
        if changed:
            rows = []
            for scope, kind, identity in sorted(changed):
                rating = current[(scope, kind)][identity]
                rows.append(
                    (scope, kind, identity, rating.mu, rating.sigma, rating.ordinal, rating.games)
                )
            await db.executemany(
                "INSERT INTO ratings (guild_id, kind, identity, mu, sigma, ordinal, games)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, kind, identity) DO UPDATE"
                " SET mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,"
                " games = excluded.games",
                rows,
            )
        # The pass holds the ratings lock, so no game here is rated by anyone else; the
        # unique index on rating_seq would refuse a second numbering anyway.
        await db.executemany(
            "UPDATE games SET rating_seq = ? WHERE id = ? AND rating_seq IS NULL",
            [(first_seq + n, game.game_id) for n, game in enumerate(games)],
        )

    async def all_ratings(self) -> dict[tuple[int, str, str], tuple[float, float, int]]:
        """Every stored rating, ``(guild_id, kind, identity) → (mu, sigma, games)``."""
        rows = await self._read("SELECT guild_id, kind, identity, mu, sigma, games FROM ratings")
        return {(int(g), k, i): (float(m), float(s), int(n)) for g, k, i, m, s, n in rows}

    # ------------------------------------------------------------------ reading

    async def player_stats(
        self,
        guild_id: int,
        identity: str,
        channel_ids: Collection[int],
        kind: str | None = None,
    ) -> list[KindStats]:
        """``identity``'s record per game kind on this server, counting only the games of
        ``channel_ids`` (the channels the asker can see); its ratings come from all games.
        Kinds with no visible game are left out."""
        if not channel_ids:
            return []
        channels = sorted(channel_ids)
        where = f"guild_id = ? AND identity = ? AND channel_id IN ({_marks(channels)})"
        params: list[Any] = [guild_id, identity, *channels]
        if kind is not None:
            where += " AND kind = ?"
            params.append(kind)
        counts = await self._read(
            "SELECT kind, sum(games), sum(wins), sum(score_sum), max(best_score)"
            f" FROM player_totals WHERE {where} GROUP BY kind ORDER BY kind",
            params,
        )
        if not counts:
            return []
        favourites: dict[str, str] = {}
        for row_kind, strategy, _uses in await self._read(
            "SELECT kind, strategy, sum(games) FROM strategy_totals"
            f" WHERE {where} GROUP BY kind, strategy ORDER BY kind, sum(games) DESC, strategy",
            params,
        ):
            favourites.setdefault(row_kind, strategy)
        ratings: dict[tuple[int, str], Rating] = {}
        for scope, row_kind, mu, sigma, games in await self._read(
            "SELECT guild_id, kind, mu, sigma, games FROM ratings"
            " WHERE guild_id IN (?, ?) AND identity = ?",
            (guild_id, GLOBAL, identity),
        ):
            ratings[(int(scope), row_kind)] = Rating(float(mu), float(sigma), int(games))
        return [
            KindStats(
                kind=row_kind,
                games=int(games),
                wins=int(wins or 0),
                average_score=int(score_sum or 0) / int(games),
                best_score=int(best or 0),
                favourite=favourites.get(row_kind),
                rating=ratings.get((guild_id, row_kind)),
                global_rating=ratings.get((GLOBAL, row_kind)),
            )
            for row_kind, games, wins, score_sum, best in counts
        ]

    async def leaderboard(
        self,
        guild_id: int,
        kind: str,
        channel_ids: Collection[int],
        *,
        limit: int = 10,
        min_games: int = LEADERBOARD_MIN_GAMES,
    ) -> list[BoardEntry]:
        """The server's best ``kind`` players by conservative rating (``mu − 3σ``), among
        those with at least ``min_games`` games in ``channel_ids`` (the channels the
        asker can see); games and wins count only those games."""
        if not channel_ids:
            return []
        channels = sorted(channel_ids)
        # Two range scans joined here rather than one join in SQL: with stale statistics
        # PostgreSQL chose to re-aggregate the counts once per rating (200 ms at 10,000
        # games); counted players and one server's ratings are a few hundred rows each.
        counted = {
            identity: (int(games), int(wins))
            for identity, games, wins in await self._read(
                "SELECT identity, sum(games), sum(wins) FROM player_totals"
                f" WHERE guild_id = ? AND kind = ? AND channel_id IN ({_marks(channels)})"
                " GROUP BY identity HAVING sum(games) >= ?",
                (guild_id, kind, *channels, min_games),
            )
        }
        if not counted:
            return []
        board = []
        for identity, mu, sigma, rated in await self._read(
            "SELECT identity, mu, sigma, games FROM ratings WHERE guild_id = ? AND kind = ?"
            " ORDER BY ordinal DESC, identity",
            (guild_id, kind),
        ):
            if identity in counted:
                games, wins = counted[identity]
                board.append(BoardEntry(identity, Rating(mu, sigma, rated), games, wins))
                if len(board) == limit:
                    break
        return board
