"""The one place the bot turns a user's choice into a stored game action.

No Discord here: cogs read the interaction, call a function of :class:`Tables`
and render what it returns. ``Tables`` checks who may act, maps a numbered choice
(as carried by a button's ``custom_id``) back to the engine's legal action at the
version the user saw, submits it through storage, and then plays the computer
seats until a human must act.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import engine.ai
from engine import get_game
from engine.core import (
    TIMER,
    Game,
    NotInGame,
    PlayerId,
    RuleError,
    check_can_act,
    derive_seed,
)
from engine.undo import GAME_OVER, CannotUndo, Undo
from engine.words import ENGLISH, N_, Words
from storage import (
    AI_PREFIX,
    Conflict,
    GameInfo,
    LoadedGame,
    Storage,
    Submitted,
    TimerClaim,
    TimerLost,
    WrongStatus,
    human_player,
)
from storage.export import memory_record
from tables.computers import Computers, Decision
from tables.metrics import OFF, Metrics

log = logging.getLogger("bot.table")

MAX_AI_STEPS = 10_000
"""A guard: computer seats never make more moves than this in one go."""
DEFAULT_AI_LEVEL = "greedy"
STAND_IN_LEVEL = "greedy"
"""The level that moves for an absent human when the turn limit runs out."""


class StaleBoard(RuleError):
    """The user acted on a panel drawn at an older version of the game."""

    def __init__(self, game: LoadedGame) -> None:
        super().__init__(N_("The board has changed since this was shown; here is the current one."))
        self.game = game


class BadChoice(RuleError):
    """A choice number that is not on the list (forged or garbled custom_id)."""


@dataclass(frozen=True)
class Choice:
    """One legal action as offered to a player: its number, label and the action."""

    index: int
    label: str
    action: Any


@dataclass(frozen=True)
class Step:
    """One applied action and what it caused."""

    player: PlayerId
    action: Any
    events: Sequence[Any]


@dataclass
class Played:
    """The result of a choice: the steps applied (the user's, then computer seats')."""

    game: LoadedGame
    steps: list[Step] = field(default_factory=list)

    @property
    def events(self) -> list[Any]:
        return [event for step in self.steps for event in step.events]


def engine_of(game: LoadedGame) -> Game[Any, Any, Any, Any]:
    return get_game(game.kind)


VIEWS_KEPT = 64
_views: OrderedDict[tuple[int, int, PlayerId | None], tuple[Any, Any]] = OrderedDict()


def view_of(game: LoadedGame, viewer: PlayerId | None) -> Any:
    """``engine_of(game).view(game.state, viewer)``, built once per state and viewer:
    answering one action needs the same views several times (the acting player's panel
    and its greedy suggestion, the board's summary and its picture). A view is only
    reused for the very state object it was built from (storage hands out one object per
    stored version), so nothing stale is ever shown."""
    key = (game.id, game.version, viewer)
    kept = _views.get(key)
    if kept is not None and kept[0] is game.state:
        _views.move_to_end(key)
        return kept[1]
    view = engine_of(game).view(game.state, viewer)
    _views[key] = (game.state, view)
    if len(_views) > VIEWS_KEPT:
        _views.popitem(last=False)
    return view


def choices_for(game: LoadedGame, player: PlayerId, words: Words = ENGLISH) -> list[Choice]:
    """The numbered legal actions of ``player`` at the game's current version, labelled
    in ``words``' language."""
    rules = engine_of(game)
    if game.state is None or rules.outcome(game.state) is not None:
        return []
    names = game.names
    out = []
    for index, action in enumerate(rules.legal_actions(game.state, player)):
        label = rules.describe_action(game.state, player, action, names, words)
        out.append(Choice(index, label, action))
    return out


def decision_for(game: LoadedGame, player: PlayerId, level: str) -> Decision:
    """A computer move at ``level`` to decide (engine.ai: from the seat's view only),
    seeded by the game's seed and version so that a replayed game makes the same moves."""
    seed = derive_seed(game.seed or 0, game.version, player)
    return Decision(game.id, game.version, game.kind, game.state, player, level, seed)


def computer_level(game: GameInfo, player: PlayerId) -> str:
    """How computer seat ``player`` plays: the level chosen when it was added (games
    from before per-seat levels: the table's ``ai_level`` setting)."""
    seat = game.seat_of(player)
    level = (seat and seat.level) or game.settings.get("ai_level") or DEFAULT_AI_LEVEL
    return level if level in engine.ai.LEVELS else DEFAULT_AI_LEVEL


def suggested_index(game: LoadedGame, player: PlayerId, choices: Sequence[Choice]) -> int | None:
    """Which of ``player``'s choices the greedy computer player would make: the panel's
    one-click default. Decided from the player's own view, like any computer move.

    Decided here, in the event loop: it is part of the answer to a click, and the
    greedy level costs about a millisecond, less than a round trip to a worker that
    may be busy with other tables' searches."""
    if len(choices) < 2:
        return None
    seed = decision_for(game, player, "greedy").seed  # as a greedy computer seat's
    action = engine.ai.decide(engine_of(game), view_of(game, player), player, "greedy", seed)
    return next((c.index for c in choices if c.action == action), None)


def is_computer(player: PlayerId) -> bool:
    return player.startswith(AI_PREFIX)


class Tables:
    """Game-level operations the cogs call; every method returns fresh stored data."""

    def __init__(
        self,
        store: Storage,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        new_seed: Callable[[], int] = lambda: secrets.randbits(63),
        computers: Computers | None = None,
        metrics: Metrics = OFF,
    ) -> None:
        self.store = store
        self.clock = clock
        self.new_seed = new_seed
        self.computers = computers or Computers()
        self.metrics = metrics

    async def _stored(self, game_id: int, submit: Awaitable[Submitted]) -> Submitted:
        """``submit`` (storage's submit or undo of a move), timed; a conflict counted."""
        started = time.perf_counter()
        try:
            submitted = await submit
        except Conflict:
            self.metrics.submitted(game_id, None, time.perf_counter() - started)
            raise
        self.metrics.submitted(game_id, submitted.version, time.perf_counter() - started)
        return submitted

    # ------------------------------------------------------------ the lobby

    async def open_lobby(
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
        """A new lobby in a channel, its host in seat 1 (``ChannelBusy`` names the game
        the channel already has)."""
        game = await self.store.create_lobby(
            guild_id=guild_id,
            channel_id=channel_id,
            kind=kind,
            options=options,
            settings=settings,
            host_id=host_id,
            host_name=host_name,
        )
        where = {"game": game.id, "guild": guild_id}
        log.info("game %s: a %s lobby opened", game.id, kind, extra=where)
        return game

    async def join(self, game_id: int, user_id: int, name: str) -> LoadedGame:
        return await self.store.join(game_id, user_id, name)

    async def leave(self, game_id: int, player: PlayerId) -> LoadedGame:
        """A human (``human_player(user id)``) or computer seat leaves the lobby."""
        return await self.store.leave(game_id, player)

    async def add_computer(self, game_id: int, level: str) -> LoadedGame:
        """A computer seat at ``level`` (one of ``engine.ai.LEVELS``) joins the lobby."""
        if level not in engine.ai.LEVELS:
            raise BadChoice(N_("That level is not on the menu."))
        return await self.store.add_ai(game_id, level=level)

    async def end(self, game_id: int) -> GameInfo:
        """End a lobby or a running game for everyone, without a result (the channel is
        free for another); the game as it is then."""
        await self.store.abandon(game_id)
        log.info("game %s: ended for everyone, without a result", game_id)
        return await self.store.info(game_id)

    async def start(self, game_id: int) -> Played:
        """Start a lobby's game (computer seats move in :meth:`computer_step`)."""
        game = await self.store.start(game_id, self.new_seed())
        computers = sum(seat.is_ai for seat in game.seats)
        log.info(
            "game %s: %s started, %d seats (%d computers)",
            game_id,
            game.kind,
            len(game.seats),
            computers,
        )
        return Played(game)

    async def choose(self, game_id: int, user_id: int, version: int, index: int) -> Played:
        """Apply choice number ``index`` of the list the user saw at ``version``.

        Raises :class:`StaleBoard` if the game moved on, :class:`BadChoice` for a
        number not on the list, and the engine's ``RuleError`` (not your turn, not in
        the game) unchanged; nothing is written in any of those cases.
        """
        player = human_player(user_id)
        game = await self.store.load(game_id)
        if game.seat_of(player) is None:
            raise NotInGame("You are not playing in this game.")
        if game.version != version:
            raise StaleBoard(game)
        rules = engine_of(game)
        check_can_act(rules, game.state, player)  # game over / not your turn, as a sentence
        legal = rules.legal_actions(game.state, player)
        if not 0 <= index < len(legal):
            raise BadChoice(N_("That choice is not on the list; open the panel again."))
        return await self._submit(game, player, legal[index])

    async def submit_checked(
        self,
        game_id: int,
        player: PlayerId,
        action: Any,
        still_open: Callable[[Any], None],
    ) -> Played:
        """Apply ``action`` for a simultaneous decision, judged by ``still_open``, not by
        the version the user saw.

        ``still_open(state)`` raises (a ``RuleError``) when the decision the user
        answered is over (e.g. another round or phase, T-2.1). Storage runs it on the
        latest state inside the submit, so the check and the commit are one step:
        choices count in the order storage commits them (T-4), none conflicts with
        another player's, and none lands in a later phase than the one it was made for.
        """
        game = await self.store.load(game_id)
        if player != TIMER and game.seat_of(player) is None:
            raise NotInGame("You are not playing in this game.")
        submitted = await self._stored(
            game.id, self.store.submit(game.id, player, action, None, precondition=still_open)
        )
        return Played(await self._after(game, submitted), [Step(player, action, submitted.events)])

    async def undo(self, game_id: int, user_id: int, version: int | None) -> Played:
        """Take back the user's latest decision (``engine.undo`` decides if it may be).

        ``version``: the version the Undo button was drawn at (``None``: a typed /undo).
        Raises ``NotInGame`` for a spectator, :class:`StaleBoard` for an outdated button,
        and ``CannotUndo`` (a sentence: nothing to take back, another player acted since,
        a card was revealed, …); nothing is written in any of those cases. Only a human
        seat's own decisions are ever taken back: computer seats never undo."""
        player = human_player(user_id)
        game = await self.store.load(game_id)
        if game.seat_of(player) is None:
            raise NotInGame("You are not playing in this game.")
        if game.status != "active":
            raise CannotUndo(GAME_OVER)
        if version is not None and game.version != version:
            raise StaleBoard(game)
        try:
            submitted = await self._stored(game.id, self.store.undo(game.id, player, version))
        except Conflict:
            raise StaleBoard(await self.store.load(game.id)) from None
        (event,) = submitted.events
        step = Step(player, Undo(seq=event.seq), submitted.events)
        return Played(await self._after(game, submitted), [step])

    async def can_undo(self, game: LoadedGame, player: PlayerId) -> bool:
        """Whether ``player`` (a human seat) may take back a decision now: the panel's
        Undo button."""
        if game.status != "active" or is_computer(player) or game.seat_of(player) is None:
            return False
        return await self.store.undo_window(game.id, player, game.version) > 0

    async def play_for(
        self, game_id: int, player: PlayerId, version: int, claim: TimerClaim
    ) -> Played | None:
        """A computer move for an absent player, the work of the turn limit ``claim``
        holds; ``None`` if the turn moved on or the limit is no longer this claim's
        (another process took it over while this one stalled, or it ended: stored only
        while the claim stands)."""
        game = await self.store.load(game_id)
        if game.version != version or game.status != "active":
            return None
        if player not in engine_of(game).to_act(game.state):
            return None
        action = await self.computers.choose(await self._decision(game, player, STAND_IN_LEVEL))
        try:
            return await self._submit(game, player, action, claim)
        except StaleBoard:  # the player (or another process's stand-in) moved meanwhile
            return None
        except WrongStatus:  # the game ended while the computer decided
            return None
        except TimerLost:  # the limit is another process's now, or over
            return None

    async def _decision(self, game: LoadedGame, player: PlayerId, level: str) -> Decision:
        """:func:`decision_for`, with the game's decisions so far when the level remembers
        them (``engine.ai.choose``: Tonttu's strong level reads the others' revealed points)."""
        decision = decision_for(game, player, level)
        if engine.ai.remembers(engine_of(game), level):
            record = memory_record(game, await self.store.log(game.id))
            decision = replace(decision, record=record)
        return decision

    async def _submit(
        self, game: LoadedGame, player: PlayerId, action: Any, claim: TimerClaim | None = None
    ) -> Played:
        try:
            submitted = await self._stored(
                game.id, self.store.submit(game.id, player, action, game.version, claim=claim)
            )
        except Conflict:
            raise StaleBoard(await self.store.load(game.id)) from None
        return Played(await self._after(game, submitted), [Step(player, action, submitted.events)])

    async def _after(self, game: LoadedGame, submitted: Submitted) -> LoadedGame:
        """The game after a submit, without reading it back unless it just ended."""
        if engine_of(game).outcome(submitted.state) is not None:
            log.info("game %s: finished", game.id)
            return await self.store.load(game.id)  # finished: status and result changed
        return replace(game, state=submitted.state, version=submitted.version)

    async def computer_step(self, game_id: int) -> Played | None:
        """One move of a computer seat that must act, or ``None`` if none must.

        The decision (up to a few hundred ms at the strong level) runs in a worker
        process when its table's turn comes (``tables/computers.py``); the cogs call this
        after answering the user, never before."""
        for _ in range(3):
            game = await self.store.load(game_id)
            if game.status != "active":
                return None
            acting = engine_of(game).to_act(game.state)
            waiting = [s.player for s in game.seats if s.is_ai and s.player in acting]
            if not waiting:
                return None
            player = waiting[0]
            level = computer_level(game, player)
            action = await self.computers.choose(await self._decision(game, player, level))
            try:
                submitted = await self._stored(
                    game.id, self.store.submit(game.id, player, action, game.version)
                )
            except Conflict:
                continue  # someone moved meanwhile: decide again on the new position
            except WrongStatus:  # the game ended while the computer decided
                return None
            step = Step(player, action, submitted.events)
            return Played(await self._after(game, submitted), [step])
        return None
