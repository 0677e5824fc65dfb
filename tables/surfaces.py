"""What a table must show, as data any front end can draw: its *surfaces*.

A table has public surfaces (the board at a version, the log of what happened, whose
turn it is, the end) and one private surface per seat (their choices, with what each
gives now, and whether they may take a decision back). The core decides what changed;
a front end only draws it: Discord posts it in the game's thread
(``cogs/table/``'s presenter), a web page would send it to its readers.

"What changed since version N". :func:`news` compares what a front end's surfaces show
(its marks in the ledger, ``tables/publishing.py``) with the stored game and its log:
the public events not shown yet (parsed to the engine's models once), who must act now,
whether a new turn began since the last prompt, how far the board is behind, whether
the game ended. A front end that keeps no marks (a page that knows only the version it
shows) asks :func:`changes` with that version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import PlayerId
from engine.words import ENGLISH, Words
from storage import LoadedGame, LoggedAction, Storage
from tables.publishing import logged_events
from tables.service import Choice, choices_for, engine_of, suggested_index


def turn_passed(prompt_v: int, acting: set[PlayerId], actions: Sequence[LoggedAction]) -> bool:
    """Whether a new turn began since the turn prompt shown at version ``prompt_v``
    (none yet: -1): someone other than the players to act now moved since."""
    return prompt_v < 0 or any(a.player not in acting for a in actions if a.seq > prompt_v)


@dataclass(frozen=True)
class News:
    """What a table's public surfaces must show that they do not show yet."""

    version: int
    """The stored game's version."""
    board: int
    """The version the board shows (-1: none yet)."""
    log: int
    """The version the log is shown up to."""
    target: int
    """The version the log is to be shown up to now: the game's, or an earlier one that
    a front end recorded its intent to show up to and may not have finished."""
    events: tuple[Any, ...]
    """The public events after :attr:`log`, up to :attr:`target` (the engine's models)."""
    acting: frozenset[PlayerId]
    """The humans who must act now (none while an earlier intent is caught up)."""
    prompt_due: bool
    """A new turn began since the last prompt: whose turn it is must be shown."""
    ended: bool
    """The game is over (finished or abandoned)."""
    recovering: bool
    """What an earlier round intended to show is shown first (a round that died, or
    failed, after recording its intent)."""

    @property
    def board_behind(self) -> int:
        """Decisions the board is behind."""
        return self.version - self.board


FIRST_SHOWN = {"log": 0, "prompt": -1}
"""The marks a table's first round records with its first board: nothing logged, no turn
prompted yet. A game without them counts as one from before these marks, shown up to its
board's version: a first round that failed after its board (its marks are written
anyway) would otherwise leave its turn prompt unposted for good."""


def shown_from(shown: Mapping[str, int]) -> tuple[int, int, int, int]:
    """(board, log, prompt, intent): the public marks of a table's ledger. A game from
    before the log and prompt marks counts as shown up to its board's version."""
    board = shown.get("board", -1)
    log = shown.get("log", max(board, 0))
    return board, log, shown.get("prompt", board), shown.get("log_intent", -1)


def log_from(shown: Mapping[str, int]) -> int:
    """The version after which :func:`news` needs the log: the earlier of what the log
    shows and the last prompt (to tell whether a new turn began since)."""
    _, log, prompt, _ = shown_from(shown)
    return min(log, prompt) if prompt >= 0 else log


def news(game: LoadedGame, shown: Mapping[str, int], actions: Sequence[LoggedAction]) -> News:
    """What changed since ``shown`` (a ledger's marks); ``actions``: the log after
    :func:`log_from` of them."""
    board, log, prompt, intent = shown_from(shown)
    version = game.version
    target = intent if intent > log else version
    events = logged_events(game, [a for a in actions if a.seq > log], target)
    acting: frozenset[PlayerId] = frozenset()
    if game.status == "active" and target == version:
        humans = {s.player for s in game.seats if not s.is_ai}
        acting = frozenset(engine_of(game).to_act(game.state)) & humans
    due = bool(acting) and turn_passed(prompt, set(acting), actions) and prompt < version
    return News(
        version=version,
        board=board,
        log=log,
        target=target,
        events=tuple(events),
        acting=acting,
        prompt_due=due,
        ended=game.status != "active",
        recovering=intent > log,
    )


async def changes(store: Storage, game_id: int, since: int) -> tuple[LoadedGame, News]:
    """The game now and what changed since version ``since``, for a front end that
    shows one version of a table and keeps no ledger (a page catching up)."""
    game = await store.load(game_id)
    shown = {"board": since, "log": since, "prompt": since}
    return game, news(game, shown, await store.log(game_id, after=since))


@dataclass(frozen=True)
class Seat:
    """One player's private surface: what they may do now, as their panel shows it."""

    player: PlayerId
    version: int
    choices: tuple[Choice, ...]
    """Their legal choices, numbered as a button's ``custom_id`` carries them."""
    suggested: int | None
    """The choice a careful player would make (the greedy computer's), if they have two
    or more."""
    can_undo: bool
    """Whether they may take back their latest decision now."""
    waiting_for: tuple[PlayerId, ...]
    """Who must act, when they have nothing to choose (in seat order)."""


def seat_surface(
    game: LoadedGame, player: PlayerId, *, can_undo: bool = False, words: Words = ENGLISH
) -> Seat:
    """``player``'s private surface of ``game``, labelled in ``words``' language."""
    choices = tuple(choices_for(game, player, words)) if game.status == "active" else ()
    waiting: tuple[PlayerId, ...] = ()
    if game.status == "active" and not choices:
        waiting = tuple(sorted(engine_of(game).to_act(game.state)))
    return Seat(
        player=player,
        version=game.version,
        choices=choices,
        suggested=suggested_index(game, player, choices),
        can_undo=can_undo,
        waiting_for=waiting,
    )
