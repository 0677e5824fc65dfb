"""What the repository returns: plain frozen dataclasses, independent of the backend."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from functools import cached_property
from typing import Any, Literal, NamedTuple

from engine.core import PlayerId
from engine.ratings import Rating, is_computer

Status = Literal["lobby", "active", "finished", "abandoned"]
OPEN_STATUSES: tuple[Status, ...] = ("lobby", "active")
"""A channel holds at most one game in one of these statuses."""

AI_PREFIX = "ai:"
"""AI seats have player ids ``ai:1``, ``ai:2`` …; human seats the Discord user id."""
FORGOTTEN_PREFIX = "forgotten:"
"""A forgotten player's seats have the player id ``forgotten:<n>`` (:mod:`storage.forget`)."""


def human_player(user_id: int) -> PlayerId:
    """The engine's player id for a Discord user."""
    return str(user_id)


@dataclass(frozen=True)
class Seat:
    """One seat at the table, in seat order (W-1.2: the order of joining)."""

    player: PlayerId
    display_name: str
    user_id: int | None
    """The Discord user id; ``None`` for an AI seat."""
    level: str | None = None
    """How a computer seat plays (e.g. ``"strong"``); ``None``: the table's level."""

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True)
class GameInfo:
    """A game's row without its engine state (cheap to list)."""

    id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    host_id: int
    kind: str
    options: Mapping[str, Any]
    seed: int | None
    status: Status
    version: int
    """Number of actions applied; also the ``seq`` of the last action in the log."""
    seats: tuple[Seat, ...]
    messages: Mapping[str, int]
    """Message ids the bot edits later, by key (e.g. ``board``, ``lobby``, ``prompt``)."""
    shown_versions: Mapping[str, int]
    """The game version each public message shows, by key, as last claimed with
    ``claim_message_version`` (a message never goes back to an older version)."""
    settings: Mapping[str, Any]
    """The table's settings chosen at ``create_lobby`` (not the engine's options)."""
    result: Mapping[str, Any] | None
    """The engine's ``Outcome`` as JSON once the game is finished."""
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return tuple(seat.player for seat in self.seats)

    @property
    def names(self) -> dict[PlayerId, str]:
        """Display names by player id, for ``describe_event`` and ``render_text``."""
        return {seat.player: seat.display_name for seat in self.seats}

    def seat_of(self, player: PlayerId) -> Seat | None:
        return next((seat for seat in self.seats if seat.player == player), None)


@dataclass(frozen=True)
class LoadedGame(GameInfo):
    """A game with its current engine state (``None`` while it is a lobby)."""

    state: Any


class Watched(NamedTuple):
    """What a live page watches of a game (``Storage.versions``): a change of any of
    these is a change of what the page shows."""

    version: int
    status: str
    turn_limit: datetime | None = None
    """When the pending turn limit ends, if one is set."""


class Submitted(NamedTuple):
    """What ``submit`` returns: ``state, events, version = await store.submit(...)``."""

    state: Any
    events: Sequence[Any]
    version: int


@dataclass(frozen=True)
class Timer:
    """A scheduled wake-up for one game (turn reminder, speed-round timer …)."""

    id: int
    game_id: int
    kind: str
    due_at: datetime
    payload: Mapping[str, Any]
    created_at: datetime


class Claim(Enum):
    """What a named claim (``Storage.claim``) found."""

    REFUSED = "refused"
    """Another owner holds it."""
    HELD = "held"
    """It was free, or the owner's already (renewed): now the owner's."""
    TAKEN_OVER = "taken over"
    """Another owner's lease had run out without giving it back (that owner died, or
    could not reach the database): now the owner's. What that one did under it may be
    unrecorded."""


@dataclass(frozen=True)
class TimerClaim:
    """A due timer claimed by ``owner`` (``claim_due_timers``): a write made for its work
    stands on it (``submit(..., claim=...)``)."""

    timer_id: int
    owner: str


@dataclass(frozen=True)
class NewTimer:
    """A timer to schedule with ``set_marks(..., timers=[...])``: it replaces the game's
    pending timers of its kind (except one being fired right now)."""

    kind: str
    due_at: datetime
    payload: Mapping[str, Any]


@dataclass(frozen=True)
class LoggedAction:
    """One entry of a game's append-only action log.

    Its events stay the JSON text the log stores until they are read: a front end
    parses them straight to the engine's models (``engine.undo.parse_events_json``),
    in one step; :attr:`events` decodes them to JSON data for readers that want that."""

    seq: int
    player: PlayerId
    action: Mapping[str, Any]
    events_json: str
    created_at: datetime

    @cached_property
    def events(self) -> Sequence[Mapping[str, Any]]:
        """The events as JSON data (decoded once, when first read)."""
        decoded: list[Mapping[str, Any]] = json.loads(self.events_json)
        return decoded


@dataclass(frozen=True)
class ReplayReport:
    """The audit of one game: replaying seed + log must give the stored snapshot."""

    game_id: int
    ok: bool
    actions: int
    problem: str = ""
    """Empty when ``ok``; otherwise a sentence saying what differs or what cannot be read."""


@dataclass(frozen=True)
class KindStats:
    """One player's record in one game kind, over the games the asker can see."""

    kind: str
    games: int
    wins: int
    average_score: float
    best_score: int
    favourite: str | None
    """The stored key of the choice they favoured in most of those games, if any."""
    rating: Rating | None
    """Their rating on this server (from all its games), if rated."""
    global_rating: Rating | None

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class BoardEntry:
    identity: str
    rating: Rating
    games: int
    """Counted (visible) games."""
    wins: int

    @property
    def is_computer(self) -> bool:
        return is_computer(self.identity)
