"""Numbered schema migrations, applied in order in one transaction at start-up.

Each migration holds its statements for both dialects. Migration ``n`` takes a
database from version ``n - 1`` to ``n``; never edit a migration once it has
shipped: append a new one. The PostgreSQL backend arrived with version 7, so its
migration 1 creates the whole schema of version 6 at once and 2 to 6 are empty
there; from 7 on both dialects move in step.

The bookkeeping is shared (:func:`migrate`): the version is read (SQLite:
``PRAGMA user_version``; PostgreSQL: the ``schema_version`` table), a database from
a newer bot is refused unchanged, and the pending migrations plus the new version
commit in one transaction that holds the database's migration lock (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: a transaction-scoped advisory lock), so a crash
mid-way leaves the previous version intact and processes starting at once migrate
only once. A backend supplies a :class:`MigrationTarget`.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Literal, Protocol

from storage.errors import SchemaTooNew

Dialect = Literal["sqlite", "postgres"]


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...] = ()

    def statements(self, dialect: Dialect) -> tuple[str, ...]:
        return self.sqlite if dialect == "sqlite" else self.postgres


class MigrationTarget(Protocol):
    """One database connection, as :func:`migrate` needs it."""

    dialect: Dialect

    async def version(self) -> int:
        """The schema version (0 for an empty database); changes nothing."""
        ...

    def locked(self) -> AbstractAsyncContextManager[None]:
        """A transaction holding the migration lock: committed on a normal exit,
        rolled back on an error."""
        ...

    async def execute(self, statement: str) -> None: ...

    async def set_version(self, version: int) -> None:
        """Record ``version`` inside the open transaction."""
        ...


async def migrate(
    db: MigrationTarget,
    where: str,
    migrations: Sequence[Migration] | None = None,
) -> tuple[int, int]:
    """Bring the schema up to date; returns ``(version before, version after)``.

    All pending migrations and the new version commit together or not at all.
    """
    migrations = MIGRATIONS if migrations is None else migrations
    for index, migration in enumerate(migrations, start=1):
        if migration.version != index:
            raise ValueError(f"Migration {migration.version} is out of order (expected {index}).")
    latest = len(migrations)
    before = await db.version()
    if before > latest:
        raise SchemaTooNew(where, before, latest)
    if before == latest:
        return before, before
    async with db.locked():
        before = await db.version()  # another process may have migrated meanwhile
        if before > latest:
            raise SchemaTooNew(where, before, latest)
        for migration in migrations[before:]:
            for statement in migration.statements(db.dialect):
                await db.execute(statement)
        await db.set_version(latest)
    return before, latest


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "games, seats and the append-only action log",
        (
            """
            CREATE TABLE games (
                id          INTEGER PRIMARY KEY,
                guild_id    INTEGER NOT NULL,
                channel_id  INTEGER NOT NULL,
                thread_id   INTEGER,
                host_id     INTEGER NOT NULL,
                kind        TEXT    NOT NULL,
                options     TEXT    NOT NULL DEFAULT '{}',
                seed        INTEGER,
                status      TEXT    NOT NULL DEFAULT 'lobby'
                            CHECK (status IN ('lobby', 'active', 'finished', 'abandoned')),
                snapshot    TEXT,
                version     INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
                result      TEXT,
                created_at  REAL    NOT NULL,
                updated_at  REAL    NOT NULL,
                started_at  REAL,
                finished_at REAL
            )
            """,
            # One lobby or active game per channel, enforced by the schema itself.
            """
            CREATE UNIQUE INDEX games_one_open_per_channel
                ON games (channel_id) WHERE status IN ('lobby', 'active')
            """,
            "CREATE INDEX games_by_thread ON games (thread_id) WHERE thread_id IS NOT NULL",
            """
            CREATE TABLE seats (
                game_id      INTEGER NOT NULL REFERENCES games (id),
                position     INTEGER NOT NULL,
                player       TEXT    NOT NULL,
                user_id      INTEGER,
                display_name TEXT    NOT NULL,
                PRIMARY KEY (game_id, position),
                UNIQUE (game_id, player)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE actions (
                game_id    INTEGER NOT NULL REFERENCES games (id),
                seq        INTEGER NOT NULL CHECK (seq >= 1),
                player     TEXT    NOT NULL,
                action     TEXT    NOT NULL,
                events     TEXT    NOT NULL,
                created_at REAL    NOT NULL,
                PRIMARY KEY (game_id, seq)
            )
            """,
            """
            CREATE TRIGGER actions_are_never_updated BEFORE UPDATE ON actions
            BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
            """,
            """
            CREATE TRIGGER actions_are_never_deleted BEFORE DELETE ON actions
            BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END
            """,
        ),
        postgres=(
            # The whole schema of version 6 (see the module doc). Times are UNIX seconds
            # and JSON is text, as on SQLite, so rows copy across unchanged.
            """
            CREATE TABLE games (
                id          BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                guild_id    BIGINT  NOT NULL,
                channel_id  BIGINT  NOT NULL,
                thread_id   BIGINT,
                host_id     BIGINT  NOT NULL,
                kind        TEXT    NOT NULL,
                options     TEXT    NOT NULL DEFAULT '{}',
                seed        BIGINT,
                status      TEXT    NOT NULL DEFAULT 'lobby'
                            CHECK (status IN ('lobby', 'active', 'finished', 'abandoned')),
                snapshot    TEXT,
                version     INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
                result      TEXT,
                created_at  DOUBLE PRECISION NOT NULL,
                updated_at  DOUBLE PRECISION NOT NULL,
                started_at  DOUBLE PRECISION,
                finished_at DOUBLE PRECISION,
                settings    TEXT    NOT NULL DEFAULT '{}'
            )
            """,
            """
            CREATE UNIQUE INDEX games_one_open_per_channel
                ON games (channel_id) WHERE status IN ('lobby', 'active')
            """,
            "CREATE INDEX games_by_thread ON games (thread_id) WHERE thread_id IS NOT NULL",
            """
            CREATE INDEX games_history
                ON games (guild_id, finished_at) WHERE status = 'finished'
            """,
            """
            CREATE TABLE seats (
                game_id      BIGINT  NOT NULL REFERENCES games (id),
                position     INTEGER NOT NULL,
                player       TEXT    NOT NULL,
                user_id      BIGINT,
                display_name TEXT    NOT NULL,
                ai_level     TEXT,
                PRIMARY KEY (game_id, position),
                UNIQUE (game_id, player)
            )
            """,
            """
            CREATE TABLE actions (
                game_id    BIGINT  NOT NULL REFERENCES games (id),
                seq        INTEGER NOT NULL CHECK (seq >= 1),
                player     TEXT    NOT NULL,
                action     TEXT    NOT NULL,
                events     TEXT    NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (game_id, seq)
            )
            """,
            """
            CREATE FUNCTION actions_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'the action log is append-only'; END $$
            """,
            """
            CREATE TRIGGER actions_are_never_changed BEFORE UPDATE OR DELETE ON actions
                FOR EACH ROW EXECUTE FUNCTION actions_are_append_only()
            """,
            """
            CREATE TRIGGER actions_are_never_truncated BEFORE TRUNCATE ON actions
                FOR EACH STATEMENT EXECUTE FUNCTION actions_are_append_only()
            """,
            """
            CREATE TABLE timers (
                id           BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                game_id      BIGINT NOT NULL REFERENCES games (id),
                kind         TEXT   NOT NULL,
                due_at       DOUBLE PRECISION NOT NULL,
                payload      TEXT   NOT NULL DEFAULT '{}',
                created_at   DOUBLE PRECISION NOT NULL,
                fired_at     DOUBLE PRECISION,
                cancelled_at DOUBLE PRECISION
            )
            """,
            """
            CREATE INDEX timers_pending
                ON timers (due_at) WHERE fired_at IS NULL AND cancelled_at IS NULL
            """,
            "CREATE INDEX timers_by_game ON timers (game_id)",
            """
            CREATE TABLE game_messages (
                game_id    BIGINT NOT NULL REFERENCES games (id),
                key        TEXT   NOT NULL,
                message_id BIGINT NOT NULL,
                PRIMARY KEY (game_id, key)
            )
            """,
        ),
    ),
    Migration(
        2,
        "scheduled timers (turn reminders, speed-round timers)",
        (
            """
            CREATE TABLE timers (
                id           INTEGER PRIMARY KEY,
                game_id      INTEGER NOT NULL REFERENCES games (id),
                kind         TEXT    NOT NULL,
                due_at       REAL    NOT NULL,
                payload      TEXT    NOT NULL DEFAULT '{}',
                created_at   REAL    NOT NULL,
                fired_at     REAL,
                cancelled_at REAL
            )
            """,
            """
            CREATE INDEX timers_pending
                ON timers (due_at) WHERE fired_at IS NULL AND cancelled_at IS NULL
            """,
            "CREATE INDEX timers_by_game ON timers (game_id)",
        ),
    ),
    Migration(
        3,
        "message ids the bot edits, and an index for per-guild history",
        (
            """
            CREATE TABLE game_messages (
                game_id    INTEGER NOT NULL REFERENCES games (id),
                key        TEXT    NOT NULL,
                message_id INTEGER NOT NULL,
                PRIMARY KEY (game_id, key)
            ) WITHOUT ROWID
            """,
            """
            CREATE INDEX games_history
                ON games (guild_id, finished_at) WHERE status = 'finished'
            """,
        ),
    ),
    Migration(
        4,
        "apply_action: one statement that checks the version, logs and replaces the snapshot",
        (
            # Inserting a row here applies one action. The trigger makes it a single
            # statement, hence atomic even in autocommit mode: the version guard, the
            # new snapshot (and result, when the game ends), the log row and the
            # cancelling of a finished game's timers happen together or not at all.
            """
            CREATE VIEW apply_action AS
            SELECT a.game_id, a.seq, a.player, a.action, a.events, a.created_at,
                   g.snapshot, g.result
              FROM actions AS a JOIN games AS g ON g.id = a.game_id
            """,
            """
            CREATE TRIGGER apply_action_insert INSTEAD OF INSERT ON apply_action
            BEGIN
                SELECT RAISE(ABORT, 'stale version')
                 WHERE NOT EXISTS (SELECT 1 FROM games WHERE id = NEW.game_id
                                   AND version = NEW.seq - 1 AND status = 'active');
                UPDATE games
                   SET snapshot = NEW.snapshot,
                       version = NEW.seq,
                       updated_at = NEW.created_at,
                       result = NEW.result,
                       status = CASE WHEN NEW.result IS NULL THEN 'active' ELSE 'finished' END,
                       finished_at = CASE WHEN NEW.result IS NULL THEN NULL
                                          ELSE NEW.created_at END
                 WHERE id = NEW.game_id;
                INSERT INTO actions (game_id, seq, player, action, events, created_at)
                VALUES (NEW.game_id, NEW.seq, NEW.player, NEW.action, NEW.events,
                        NEW.created_at);
                UPDATE timers SET cancelled_at = NEW.created_at
                 WHERE NEW.result IS NOT NULL AND game_id = NEW.game_id
                   AND fired_at IS NULL AND cancelled_at IS NULL;
            END
            """,
        ),
    ),
    Migration(
        5,
        "table settings of a game (reminder interval, turn limit, speed timer)",
        ("ALTER TABLE games ADD COLUMN settings TEXT NOT NULL DEFAULT '{}'",),
    ),
    Migration(
        6,
        "each computer seat's level (NULL: the table's, as before)",
        ("ALTER TABLE seats ADD COLUMN ai_level TEXT",),
    ),
    Migration(
        7,
        "work claimed across processes: timer leases, shown message versions, named claims",
        (
            # A process claims a due timer for a while (its lease) before firing it;
            # when the lease runs out unfinished (the process died), another may claim it.
            "ALTER TABLE timers ADD COLUMN claimed_by TEXT",
            "ALTER TABLE timers ADD COLUMN claimed_until REAL",
            # The version each public message shows, so no process edits it backwards;
            # a version can be claimed before the message exists (message_id NULL).
            """
            CREATE TABLE game_messages_7 (
                game_id       INTEGER NOT NULL REFERENCES games (id),
                key           TEXT    NOT NULL,
                message_id    INTEGER,
                shown_version INTEGER,
                PRIMARY KEY (game_id, key)
            ) WITHOUT ROWID
            """,
            "INSERT INTO game_messages_7 (game_id, key, message_id)"
            " SELECT game_id, key, message_id FROM game_messages",
            "DROP TABLE game_messages",
            "ALTER TABLE game_messages_7 RENAME TO game_messages",
            # Once-only work (e.g. syncing slash commands): a name held by one owner
            # until its lease runs out.
            """
            CREATE TABLE claims (
                name          TEXT PRIMARY KEY,
                owner         TEXT NOT NULL,
                claimed_until REAL NOT NULL
            ) WITHOUT ROWID
            """,
        ),
        postgres=(
            "ALTER TABLE timers ADD COLUMN claimed_by TEXT",
            "ALTER TABLE timers ADD COLUMN claimed_until DOUBLE PRECISION",
            "ALTER TABLE game_messages ALTER COLUMN message_id DROP NOT NULL",
            "ALTER TABLE game_messages ADD COLUMN shown_version INTEGER",
            """
            CREATE TABLE claims (
                name          TEXT PRIMARY KEY,
                owner         TEXT NOT NULL,
                claimed_until DOUBLE PRECISION NOT NULL
            )
            """,
        ),
    ),
    Migration(
        8,
        "ratings: each rated game's seats, players' totals per channel, and their ratings",
        (
            # The order games were rated in (NULL: not yet); a rebuild replays this order.
            "ALTER TABLE games ADD COLUMN rating_seq INTEGER",
            """
            CREATE UNIQUE INDEX games_rating_order
                ON games (rating_seq) WHERE rating_seq IS NOT NULL
            """,
            """
            CREATE INDEX games_unrated
                ON games (finished_at, id) WHERE status = 'finished' AND rating_seq IS NULL
            """,
            # One row per seat of a rated game: what /stats and /leaderboard count.
            """
            CREATE TABLE game_results (
                game_id    INTEGER NOT NULL REFERENCES games (id),
                position   INTEGER NOT NULL,
                guild_id   INTEGER NOT NULL,
                channel_id INTEGER NOT NULL,
                kind       TEXT    NOT NULL,
                identity   TEXT    NOT NULL,
                score      INTEGER NOT NULL,
                placement  INTEGER NOT NULL,
                won        INTEGER NOT NULL CHECK (won IN (0, 1)),
                strategy   TEXT,
                PRIMARY KEY (game_id, position)
            ) WITHOUT ROWID
            """,
            # What /stats and /leaderboard read: each player's totals per channel (and their
            # favourites' counts), so a query sums a few rows per player, not every game.
            """
            CREATE TABLE player_totals (
                guild_id   INTEGER NOT NULL,
                kind       TEXT    NOT NULL,
                identity   TEXT    NOT NULL,
                channel_id INTEGER NOT NULL,
                games      INTEGER NOT NULL,
                wins       INTEGER NOT NULL,
                score_sum  INTEGER NOT NULL,
                best_score INTEGER NOT NULL,
                PRIMARY KEY (guild_id, identity, kind, channel_id)
            ) WITHOUT ROWID
            """,
            """
            CREATE INDEX player_totals_by_kind
                ON player_totals (guild_id, kind, identity, channel_id, games, wins)
            """,
            """
            CREATE TABLE strategy_totals (
                guild_id   INTEGER NOT NULL,
                kind       TEXT    NOT NULL,
                identity   TEXT    NOT NULL,
                channel_id INTEGER NOT NULL,
                strategy   TEXT    NOT NULL,
                games      INTEGER NOT NULL,
                PRIMARY KEY (guild_id, identity, kind, channel_id, strategy)
            ) WITHOUT ROWID
            """,
            # guild_id 0 holds the global ratings (every server's games).
            """
            CREATE TABLE ratings (
                guild_id INTEGER NOT NULL,
                kind     TEXT    NOT NULL,
                identity TEXT    NOT NULL,
                mu       REAL    NOT NULL,
                sigma    REAL    NOT NULL,
                ordinal  REAL    NOT NULL,
                games    INTEGER NOT NULL,
                PRIMARY KEY (guild_id, kind, identity)
            ) WITHOUT ROWID
            """,
            "CREATE INDEX ratings_board ON ratings (guild_id, kind, ordinal)",
        ),
        postgres=(
            "ALTER TABLE games ADD COLUMN rating_seq INTEGER",
            """
            CREATE UNIQUE INDEX games_rating_order
                ON games (rating_seq) WHERE rating_seq IS NOT NULL
            """,
            """
            CREATE INDEX games_unrated
                ON games (finished_at, id) WHERE status = 'finished' AND rating_seq IS NULL
            """,
            """
            CREATE TABLE game_results (
                game_id    BIGINT  NOT NULL REFERENCES games (id),
                position   INTEGER NOT NULL,
                guild_id   BIGINT  NOT NULL,
                channel_id BIGINT  NOT NULL,
                kind       TEXT    NOT NULL,
                identity   TEXT    NOT NULL,
                score      INTEGER NOT NULL,
                placement  INTEGER NOT NULL,
                won        INTEGER NOT NULL CHECK (won IN (0, 1)),
                strategy   TEXT,
                PRIMARY KEY (game_id, position)
            )
            """,
            """
            CREATE TABLE player_totals (
                guild_id   BIGINT  NOT NULL,
                kind       TEXT    NOT NULL,
                identity   TEXT    NOT NULL,
                channel_id BIGINT  NOT NULL,
                games      INTEGER NOT NULL,
                wins       INTEGER NOT NULL,
                score_sum  BIGINT  NOT NULL,
                best_score INTEGER NOT NULL,
                PRIMARY KEY (guild_id, identity, kind, channel_id)
            )
            """,
            """
            CREATE INDEX player_totals_by_kind
                ON player_totals (guild_id, kind, identity, channel_id, games, wins)
            """,
            """
            CREATE TABLE strategy_totals (
                guild_id   BIGINT  NOT NULL,
                kind       TEXT    NOT NULL,
                identity   TEXT    NOT NULL,
                channel_id BIGINT  NOT NULL,
                strategy   TEXT    NOT NULL,
                games      INTEGER NOT NULL,
                PRIMARY KEY (guild_id, identity, kind, channel_id, strategy)
            )
            """,
            """
            CREATE TABLE ratings (
                guild_id BIGINT  NOT NULL,
                kind     TEXT    NOT NULL,
                identity TEXT    NOT NULL,
                mu       DOUBLE PRECISION NOT NULL,
                sigma    DOUBLE PRECISION NOT NULL,
                ordinal  DOUBLE PRECISION NOT NULL,
                games    INTEGER NOT NULL,
                PRIMARY KEY (guild_id, kind, identity)
            )
            """,
            "CREATE INDEX ratings_board ON ratings (guild_id, kind, ordinal)",
        ),
    ),
    Migration(
        9,
        "server settings: the language a server admin chose for public text",
        (
            """
            CREATE TABLE guild_settings (
                guild_id INTEGER PRIMARY KEY,
                language TEXT NOT NULL
            )
            """,
        ),
        postgres=(
            """
            CREATE TABLE guild_settings (
                guild_id BIGINT PRIMARY KEY,
                language TEXT NOT NULL
            )
            """,
        ),
    ),
    Migration(
        10,
        "game pages on the web: each game's page token, and the servers that turned links off",
        (
            # Made on first ask (storage.pages); unguessable, so the page needs no login.
            "ALTER TABLE games ADD COLUMN web_token TEXT",
            """
            CREATE UNIQUE INDEX games_by_web_token
                ON games (web_token) WHERE web_token IS NOT NULL
            """,
            # A row: the server turned its game pages off (no row: on, the default).
            # Apart from guild_settings, whose row goes when the language is reset.
            "CREATE TABLE guild_web_off (guild_id INTEGER PRIMARY KEY)",
        ),
        postgres=(
            "ALTER TABLE games ADD COLUMN web_token TEXT",
            """
            CREATE UNIQUE INDEX games_by_web_token
                ON games (web_token) WHERE web_token IS NOT NULL
            """,
            "CREATE TABLE guild_web_off (guild_id BIGINT PRIMARY KEY)",
        ),
    ),
    Migration(
        11,
        "named claims: the owner a claim was taken over from when its lease had run out",
        # NULL: the claim was free, or renewed by its owner. Another name: that owner died
        # or lost the database holding it, and what it did under it may be unrecorded
        # (a game's posts, which Discord still counts: storage.models.Claim).
        ("ALTER TABLE claims ADD COLUMN taken_from TEXT",),
        postgres=("ALTER TABLE claims ADD COLUMN taken_from TEXT",),
    ),
)

LATEST_VERSION = len(MIGRATIONS)
