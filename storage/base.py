"""The repository interface the bot programs against.

SQLite (:mod:`storage.sqlite`) implements it today. The interface speaks only in
game ids, Discord ids, engine models and the dataclasses of :mod:`storage.models`,
so a PostgreSQL backend (asyncpg) can implement the same methods for a
multi-process deployment: its ``submit`` would use the same
``UPDATE … WHERE version = $expected`` guard.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Protocol, Self

from engine.core import PlayerId
from storage.errors import UnreadableGame
from storage.forget import Forgotten
from storage.models import (
    BoardEntry,
    Claim,
    GameInfo,
    KindStats,
    LoadedGame,
    LoggedAction,
    NewTimer,
    ReplayReport,
    Submitted,
    Timer,
    TimerClaim,
    Watched,
)


class Storage(Protocol):
    """Every game the bot runs, persisted.

    Lobby: ``create_lobby`` → ``join`` / ``leave`` / ``add_ai`` → ``start``.
    Play: ``load`` → ``submit`` (repeat); the game finishes by itself when the
    engine reports an outcome, or ``abandon`` ends it. Each returns fresh data.
    """

    # ------------------------------------------------------------------ lifecycle
    async def close(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...

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
        """A new lobby with the host in seat 1; raises ``ChannelBusy`` naming the open game.

        ``options`` are the engine's (validated by it); ``settings`` are the table's own
        (reminder interval, turn limit, …), stored as given and returned with the game.
        """
        ...

    async def join(self, game_id: int, user_id: int, display_name: str) -> LoadedGame: ...

    async def add_ai(
        self, game_id: int, display_name: str | None = None, level: str | None = None
    ) -> LoadedGame: ...

    async def leave(self, game_id: int, player: PlayerId) -> LoadedGame:
        """Remove a human (``str(user_id)``) or AI (``ai:N``) seat from a lobby."""
        ...

    async def start(self, game_id: int, seed: int) -> LoadedGame:
        """The engine's ``new_game`` over the seated players, in seat order."""
        ...

    async def set_thread(self, game_id: int, thread_id: int | None) -> None: ...

    async def set_message(self, game_id: int, key: str, message_id: int | None) -> None:
        """Remember (or with ``None`` forget) a message the bot edits later."""
        ...

    async def claim_message_version(self, game_id: int, key: str, version: int) -> bool:
        """Compare-and-set the version message ``key`` shows: True (and stored) when it
        showed nothing or an older version; False: leave the message as it is."""
        ...

    async def shown_version(self, game_id: int, key: str) -> int | None: ...

    async def set_marks(
        self,
        game_id: int,
        marks: Mapping[str, tuple[int | None, int]],
        *,
        release: tuple[str, str] | None = None,
        timers: Sequence[NewTimer] = (),
        cancel: Sequence[str] = (),
    ) -> None:
        """Per key: a message id (``None`` keeps the stored one) and a version that only
        grows, atomically; then ``release=(name, owner)`` gives back that claim. With
        ``timers`` (each replacing the pending ones of its kind) and ``cancel`` (kinds
        whose pending timers end), one transaction holds the marks and the timers."""
        ...

    async def try_claim(self, name: str, owner: str, lease: timedelta) -> bool:
        """Hold ``name`` for ``lease`` (once-only work across processes); True when free,
        expired, or already ``owner``'s (renewed)."""
        ...

    async def claim(self, name: str, owner: str, lease: timedelta) -> Claim:
        """:meth:`try_claim`, telling apart a claim taken over from another owner whose
        lease had run out (``Claim.TAKEN_OVER``)."""
        ...

    async def set_guild_language(self, guild_id: int, language: str | None) -> None:
        """The language a server's public text uses (``None``: Discord's server locale)."""
        ...

    # ------------------------------------------------------------------ reading
    async def load(self, game_id: int) -> LoadedGame: ...

    async def reload(self, game: LoadedGame) -> LoadedGame:
        """The game as stored now, knowing ``game`` (loaded, or returned by a submit):
        ``game`` itself with its marks read again when no move was stored since (one
        light read: its version, status and marks), else a full :meth:`load`."""
        ...

    async def guild_language(self, guild_id: int) -> str | None:
        """What :meth:`set_guild_language` stored for the server, if anything."""
        ...

    async def info(self, game_id: int) -> GameInfo:
        """The game's row without parsing its state (works for unreadable states)."""
        ...

    async def find_open(self, channel_id: int) -> LoadedGame | None:
        """The lobby or active game in a channel or in its game thread, if any."""
        ...

    async def list_games(
        self, *, guild_id: int | None = None, statuses: Sequence[str] | None = None
    ) -> list[GameInfo]: ...

    async def count_open_games(self) -> dict[tuple[str, str], int]:
        """How many lobbies and running games there are, by (kind, status): one
        aggregate query, no game read (the metrics' gauge)."""
        ...

    async def history(
        self,
        guild_id: int,
        *,
        kind: str | None = None,
        limit: int = 50,
        channel_ids: Collection[int] | None = None,
    ) -> list[GameInfo]:
        """Finished games of a guild, newest first, with their results (for stats);
        ``channel_ids``: only games opened in one of these channels (those the asking
        member can see; ``None``: every channel)."""
        ...

    async def log(self, game_id: int, after: int = 0) -> list[LoggedAction]:
        """The action log, oldest first; ``after``: only the actions that made versions
        after it (an action's ``seq`` is the version it made)."""
        ...

    # ------------------------------------------------------------------ play
    async def submit(
        self,
        game_id: int,
        player: PlayerId,
        action: Any,
        expected_version: int | None,
        *,
        precondition: Callable[[Any], None] | None = None,
        claim: TimerClaim | None = None,
    ) -> Submitted:
        """Apply one action through the engine and persist it, all or nothing.

        ``precondition(state)`` runs on the state the action is applied to, as part of
        the same step; what it raises propagates and nothing is written. ``claim``: the
        action is that claimed timer's work, written only while the claim stands (else
        ``TimerLost``, nothing written).
        """
        ...

    async def undo_window(self, game_id: int, player: PlayerId, version: int | None = None) -> int:
        """How many of their latest decisions ``player`` may take back now (``engine.undo``);
        ``version``: the game's as just loaded (0 if it moved on since)."""
        ...

    async def undo_refusal(self, game_id: int, player: PlayerId) -> str | None:
        """Why ``player`` cannot take anything back now (a sentence), or ``None``."""
        ...

    async def undo(self, game_id: int, player: PlayerId, expected_version: int | None) -> Submitted:
        """Take back ``player``'s latest decision: an undo entry appended to the log, the
        snapshot replaced by the state before it, the version bumped (``None``: at the
        latest version). Raises ``engine.undo.CannotUndo`` or ``Conflict``, writing nothing."""
        ...

    async def abandon(self, game_id: int) -> None:
        """End a lobby or active game without a result; frees the channel."""
        ...

    # ------------------------------------------------------------------ timers
    async def schedule(
        self,
        game_id: int,
        kind: str,
        due_at: datetime,
        payload: Mapping[str, Any] | None = None,
        *,
        replace: bool = False,
    ) -> Timer: ...

    async def cancel_timer(self, timer_id: int) -> bool: ...

    async def cancel_timers(self, game_id: int, kind: str | None = None) -> int: ...

    async def due_timers(self, now: datetime | None = None) -> list[Timer]: ...

    async def pending_timers(self, game_id: int) -> list[Timer]: ...

    async def next_due_at(self) -> datetime | None: ...

    async def mark_fired(self, timer_id: int) -> bool: ...

    async def claim_due_timers(
        self, owner: str, lease: timedelta, now: datetime | None = None, limit: int = 100
    ) -> list[Timer]:
        """Due timers, each claimed by ``owner`` alone until its lease runs out."""
        ...

    async def finish_timer(self, timer_id: int, owner: str, *, fired: bool = True) -> bool:
        """Mark a timer fired (``fired``) or cancelled (it had nothing to do) if ``owner``
        still holds its claim."""
        ...

    async def retry_timer(self, timer_id: int, owner: str, delay: timedelta) -> bool:
        """Give a claimed timer back, due again after ``delay`` (its work had to wait)."""
        ...

    # ------------------------------------------------------------------ audit
    async def replay(self, game_id: int) -> ReplayReport: ...

    async def check_all(self) -> list[ReplayReport]: ...

    async def unreadable_games(self) -> list[UnreadableGame]:
        """Open games whose stored data cannot be read (cheap; no replay)."""
        ...

    # ------------------------------------------------------------------ web pages
    async def web_token(self, game_id: int) -> str:
        """The game's page token (``/g/<token>``): 128 random bits, made on the first ask
        and the same for ever after, whichever process asks; raises ``GameNotFound``."""
        ...

    async def game_of_token(self, token: str) -> GameInfo | None:
        """The game of a page token; ``None`` for any unknown or malformed text."""
        ...

    async def set_guild_web_links(self, guild_id: int, on: bool) -> None:
        """Turn a server's game pages (and the links to them) on or off."""
        ...

    async def guild_web_links(self, guild_id: int) -> bool:
        """Whether a server's game pages are on (the default)."""
        ...

    async def versions(self, game_ids: Collection[int]) -> dict[int, Watched]:
        """Each game's version, status and pending turn limit by id, in one query (a
        live page's watcher polls it); games not found are left out."""
        ...

    # ------------------------------------------------------------------ ratings
    async def rate_finished_games(self) -> int:
        """Rate every finished game not rated yet, once (storage.ratings); how many."""
        ...

    async def rebuild_ratings(self) -> int:
        """Compute every rating again from the finished games; how many games."""
        ...

    async def player_stats(
        self,
        guild_id: int,
        identity: str,
        channel_ids: Collection[int],
        kind: str | None = None,
    ) -> list[KindStats]:
        """A player's record per game kind, counting the games of ``channel_ids`` only."""
        ...

    async def leaderboard(
        self,
        guild_id: int,
        kind: str,
        channel_ids: Collection[int],
        *,
        limit: int = 10,
        min_games: int = ...,
    ) -> list[BoardEntry]:
        """The best players by rating with enough games in ``channel_ids``."""
        ...

    # ------------------------------------------------------------------ privacy
    async def open_games_of(self, user_id: int) -> list[int]:
        """The lobbies and running games a user sits in or hosts (storage.forget)."""
        ...

    async def forget_user(self, user_id: int) -> Forgotten:
        """Replace a user's id and name everywhere with a placeholder (storage.forget);
        raises ``StillPlaying`` while they are in an open game."""
        ...
