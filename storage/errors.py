"""Errors the repository raises. ``str(error)`` is a sentence the bot may show.

Rule errors from the engine (``engine.core.RuleError`` and its subclasses) are
not wrapped: they pass through unchanged, and nothing is written when they do.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base of every error this package raises on purpose."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot."""

    def __init__(self, path: str, found: int, known: int) -> None:
        super().__init__(
            f"The database {path} has schema version {found}, but this version of the bot "
            f"only knows versions up to {known}. Run a newer version of the bot, or restore "
            f"a backup made by this version; the database was not changed."
        )
        self.found = found
        self.known = known


class BadDatabaseUrl(StorageError):
    """``DATABASE_URL`` is not a URL this package can open."""


class GameNotFound(StorageError, LookupError):
    def __init__(self, game_id: int) -> None:
        super().__init__(f"There is no game #{game_id}.")
        self.game_id = game_id


class ChannelBusy(StorageError):
    """The channel already holds a lobby or an active game (one per channel)."""

    def __init__(self, channel_id: int, game_id: int, kind: str, status: str) -> None:
        super().__init__(
            f"This channel already has a {kind} game (#{game_id}, {status}); "
            f"finish or abandon it before starting another."
        )
        self.channel_id = channel_id
        self.game_id = game_id
        self.kind = kind
        self.status = status


class WrongStatus(StorageError):
    """The operation needs the game in another status (e.g. joining a started game)."""

    def __init__(self, game_id: int, status: str, needed: str) -> None:
        super().__init__(f"Game #{game_id} is {status}; this needs it to be {needed}.")
        self.game_id = game_id
        self.status = status
        self.needed = needed


class SeatError(StorageError):
    """A lobby seat change that cannot be made, in game ``game_id``: the subclass's
    ``sentence`` with the game and the error's other ``fields`` (the bot translates it
    from them)."""

    sentence = "That seat change cannot be made in game #{game}."

    def __init__(self, game_id: int, **fields: int) -> None:
        super().__init__(self.sentence.format(game=game_id, **fields))
        self.game_id = game_id
        self.fields = fields


class AlreadySeated(SeatError):
    sentence = "You already have a seat in game #{game}."


class NotSeated(SeatError):
    sentence = "That player has no seat in game #{game}."


class LobbyFull(SeatError):
    """``seats``: how many the game seats at most."""

    sentence = "Game #{game} is full: it seats at most {seats} players."


class Conflict(StorageError):
    """The game moved on since the caller's ``expected_version``; nothing was written."""

    def __init__(self, game_id: int, expected: int | None, current: int | None) -> None:
        super().__init__(
            f"Game #{game_id} has changed since you looked at it; look again and retry."
        )
        self.game_id = game_id
        self.expected = expected
        self.current = current


class UnreadableGame(StorageError):
    """The stored data of one game cannot be read (hand-edited, truncated, unknown kind).

    Only this game is affected; it is left as it is, so an admin can inspect it,
    and ``abandon`` still works on it to free its channel.
    """

    def __init__(self, game_id: int, reason: str) -> None:
        super().__init__(f"The saved data of game #{game_id} cannot be read: {reason}")
        self.game_id = game_id
        self.reason = reason


class UnknownGame(StorageError, LookupError):
    """A lobby was asked for a game kind the engine does not know."""

    def __init__(self, kind: str, known: str) -> None:
        super().__init__(f"There is no game called {kind!r}; known games: {known}.")
        self.kind = kind
