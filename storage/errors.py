"""Errors the repository raises. ``str(error)`` is a sentence the bot may show.

Each error also names its input, for logs and developers: its attributes (the game's
id, the versions, …), which ``repr(error)`` and ``error.detail`` list, e.g.
``Conflict('Game #4 has changed …', game_id=4, expected=3, current=5)``.

Rule errors from the engine (``engine.core.RuleError`` and its subclasses) are
not wrapped: they pass through with their type and sentence unchanged, and nothing
is written when they do; a refused action also gets named, with the game's id and
the version it was judged at (``RuleError.naming``: ``error.game_id``,
``error.version``, ``error.detail``).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit


def shown_url(database_url: str) -> str:
    """The URL without its password, for messages and logs (whatever its scheme: a URL
    the bot cannot use is shown back too).

    >>> shown_url("postgresql://bot:secret@db.example:5432/games")
    'postgresql://bot@db.example:5432/games'
    >>> shown_url("mysql://bot:secret@[db/games")  # not even a URL: still no password
    'mysql://bot@[db/games'
    """
    try:
        parts = urlsplit(database_url)
        password = parts.password
    except ValueError:
        return re.sub(r"(//[^/@:]*):[^/@]*@", r"\1@", database_url)
    if password is None:
        return database_url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=user + netloc))


class StorageError(Exception):
    """Base of every error this package raises on purpose.

    ``str(error)`` stays the sentence; :attr:`detail` and ``repr(error)`` add the
    input the error is about: its public attributes, as ``__init__`` set them.

    >>> error = GameNotFound(7)
    >>> error
    GameNotFound('There is no game #7.', game_id=7)
    >>> error.detail
    'There is no game #7. (game_id=7)'
    """

    @property
    def inputs(self) -> dict[str, object]:
        """The input this error names: its public attributes, by name."""
        return {name: value for name, value in vars(self).items() if not name.startswith("_")}

    @property
    def detail(self) -> str:
        """The sentence and the input it is about, for a log line."""
        named = ", ".join(f"{name}={value!r}" for name, value in self.inputs.items())
        return f"{self} ({named})" if named else str(self)

    def __repr__(self) -> str:
        named = "".join(f", {name}={value!r}" for name, value in self.inputs.items())
        return f"{type(self).__name__}({str(self)!r}{named})"


class DatabaseUnavailable(StorageError):
    """The database server cannot be reached (restarting, down, the network): nothing
    was read; a write may or may not have been stored (its commit's answer was lost)."""

    def __init__(self, reason: str = "") -> None:
        super().__init__("The database cannot be reached just now; try again soon.")
        self._reason = reason

    def __repr__(self) -> str:
        return f"DatabaseUnavailable({self._reason!r})"


class SchemaTooNew(StorageError):
    """The database was written by a newer version of the bot."""

    def __init__(self, path: str, found: int, known: int) -> None:
        super().__init__(
            f"The database {path} has schema version {found}, but this version of the bot "
            f"only knows versions up to {known}. Run a newer version of the bot, or restore "
            f"a backup made by this version; the database was not changed."
        )
        self.path = path
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
    """The game moved on since the caller's ``expected_version``; nothing was written.

    ``expected``: the version the caller judged the action at (``None``: the latest);
    ``current``: the version found instead (``None`` when another write won the race,
    at a version not read here).

    >>> Conflict(4, 3, 5).detail  # doctest: +ELLIPSIS
    'Conflict in game #4: expected version 3, found version 5. (Game #4 has changed ...)'
    >>> Conflict(4, None, None).detail  # doctest: +ELLIPSIS
    'Conflict in game #4: expected the latest version, another write won. (Game #4 ...)'
    """

    def __init__(self, game_id: int, expected: int | None, current: int | None) -> None:
        super().__init__(
            f"Game #{game_id} has changed since you looked at it; look again and retry."
        )
        self.game_id = game_id
        self.expected = expected
        self.current = current

    @property
    def detail(self) -> str:
        expected = "the latest version" if self.expected is None else f"version {self.expected}"
        found = "another write won" if self.current is None else f"found version {self.current}"
        return f"Conflict in game #{self.game_id}: expected {expected}, {found}. ({self})"


class TimerLost(StorageError):
    """A write made for a timer's work stood on a claim of it that no longer stands:
    another process claimed the timer since (this one stalled past its lease), or it
    ended. Nothing was written; the work is the new owner's, or done."""

    def __init__(self, game_id: int, timer_id: int) -> None:
        super().__init__(f"Timer {timer_id} of game #{game_id} is no longer this process's.")
        self.game_id = game_id
        self.timer_id = timer_id


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
