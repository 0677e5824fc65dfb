"""Numbered schema migrations, applied in order in one transaction at start-up.

The schema version lives in ``PRAGMA user_version`` (0 for an empty file).
Migration ``n`` takes a database from version ``n - 1`` to ``n``. Never edit a
migration once it has shipped: append a new one. A database from a newer
version of the bot is refused, unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from storage.errors import SchemaTooNew


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]


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
    ),
)

LATEST_VERSION = len(MIGRATIONS)


async def schema_version(db: aiosqlite.Connection) -> int:
    rows = list(await db.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(
    db: aiosqlite.Connection,
    where: str,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> tuple[int, int]:
    """Bring the schema up to date; returns ``(version before, version after)``.

    ``db`` must be in autocommit mode (``isolation_level=None``). All pending
    migrations and the new ``user_version`` commit together or not at all, so a
    crash mid-way leaves the previous version intact. ``BEGIN IMMEDIATE`` takes
    the write lock first, so two processes starting at once migrate only once.
    """
    for index, migration in enumerate(migrations, start=1):
        if migration.version != index:
            raise ValueError(f"Migration {migration.version} is out of order (expected {index}).")
    latest = len(migrations)
    before = await schema_version(db)
    if before > latest:
        raise SchemaTooNew(where, before, latest)
    if before == latest:
        return before, before
    await db.execute("BEGIN IMMEDIATE")
    try:
        before = await schema_version(db)  # another process may have migrated meanwhile
        if before > latest:
            raise SchemaTooNew(where, before, latest)
        for migration in migrations[before:]:
            for statement in migration.statements:
                await db.execute(statement)
        # PRAGMA takes no parameters; ``latest`` is an int we computed.
        await db.execute(f"PRAGMA user_version = {latest:d}")
        await db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            await db.execute("ROLLBACK")
        raise
    return before, latest
