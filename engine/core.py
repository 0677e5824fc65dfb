"""What both games share: player ids, rule errors, a seeded RNG, the game protocol.

The engine is pure: nothing here touches Discord, a database, the clock or the
global ``random`` module. All randomness comes from :class:`Rng`, whose whole
state is one integer kept inside the game state, so a seed plus the list of
applied actions replays a game exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict

PlayerId = str
"""A seat's owner: a Discord user id as a string, or ``ai:N`` for a computer seat."""

TIMER: PlayerId = "@timer"
"""The actor for actions a table's timer issues (e.g. closing a speed round).

It is never a seat, never in ``to_act``; a game that accepts timer actions lists
them in ``legal_actions(state, TIMER)``.
"""


# --------------------------------------------------------------------------- errors


class RuleError(ValueError):
    """A move the rules do not allow. ``str(error)`` is a sentence fit to show the player."""


class NotInGame(RuleError):
    """The acting user holds no seat in this game."""


class NotYourTurn(RuleError):
    """The player holds a seat but is not one of those who must act now."""


class IllegalAction(RuleError):
    """The action is not one of the legal actions at this decision point."""


class GameOver(RuleError):
    """The game has ended; nothing more can be applied."""


class InvalidSetup(RuleError):
    """Wrong number of players, duplicate players, or bad options."""


# --------------------------------------------------------------------------- RNG

_MASK64 = (1 << 64) - 1


class Rng:
    """SplitMix64: tiny, fast and fully described by one 64-bit integer.

    Use it inside one ``apply`` call and store ``rng.state`` back into the new
    game state; never keep an ``Rng`` between calls.

    >>> rng = Rng(42)
    >>> [rng.below(10) for _ in range(5)]
    [7, 1, 2, 3, 0]
    >>> Rng(42).below(10) == Rng(42).below(10)
    True
    """

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK64

    def next64(self) -> int:
        self.state = s = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A number in ``range(n)``; ``n`` must be positive."""
        if n <= 0:
            raise ValueError(f"Rng.below needs a positive bound, got {n}.")
        return (self.next64() * n) >> 64

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: list[Any]) -> None:
        """Fisher–Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Sequence[T]) -> tuple[T, ...]:
        out = list(items)
        self.shuffle(out)
        return tuple(out)

    def fork(self) -> Rng:
        """An independent generator derived from this one (advances this one once)."""
        return Rng(self.next64())


T = TypeVar("T")


def derive_seed(seed: int, *salt: int | str) -> int:
    """A stable 64-bit seed derived from ``seed`` and labels, e.g. per game in a batch."""
    rng = Rng(seed)
    for part in salt:
        value = part if isinstance(part, int) else int.from_bytes(part.encode(), "little")
        rng = Rng(rng.next64() ^ (value & _MASK64))
    return rng.next64()


# --------------------------------------------------------------------------- models


class Model(BaseModel):
    """Base of states, actions, events and views: immutable, JSON round-trippable.

    Frozen models make structural sharing safe: ``apply`` builds a new state with
    ``model_copy(update=...)`` and replaces only the parts that change; tuples,
    never lists, hold sequences.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


class StateBase(Model):
    """Fields every game state has; storage and replay rely on them."""

    game: str
    players: tuple[PlayerId, ...]
    seed: int
    rng: int


class Outcome(Model):
    """Final result. Games subclass it and add ``players`` with per-player detail."""

    scores: dict[PlayerId, int]
    winners: list[PlayerId]


S = TypeVar("S", bound=StateBase)


@runtime_checkable
class Game(Protocol):
    """The rules of one game, as pure functions over a serializable state.

    Like OpenSpiel: ``to_act`` holds one player for a turn-based decision or
    several for a simultaneous one; a simultaneous step resolves when the last
    choice is applied.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]

    def parse_options(self, raw: Mapping[str, Any] | None) -> Model:
        """Validated options; raises :class:`InvalidSetup` with a sentence."""
        ...

    def new_game(self, players: Sequence[PlayerId], seed: int, options: Model) -> Any: ...

    def to_act(self, state: Any) -> frozenset[PlayerId]: ...

    def legal_actions(self, state: Any, player: PlayerId) -> Sequence[Any]: ...

    def apply(self, state: Any, player: PlayerId, action: Any) -> tuple[Any, Sequence[Any]]: ...

    def view(self, state: Any, player: PlayerId | None) -> Any: ...

    def outcome(self, state: Any) -> Outcome | None: ...

    def parse_action(self, data: Any) -> Any:
        """An action from its JSON text or its ``model_dump`` dict; raises IllegalAction."""
        ...

    def parse_state(self, data: str | bytes) -> Any: ...

    def describe_action(
        self,
        state: Any,
        player: PlayerId,
        action: Any,
        names: Mapping[PlayerId, str] | None = None,
    ) -> str:
        """A short label for a menu entry: what this choice does, right now.

        ``names`` maps player ids to display names for labels that mention others.
        """
        ...

    def describe_event(self, event: Any, names: Mapping[PlayerId, str]) -> str:
        """One log line for a public event, using display names."""
        ...

    def render_text(self, view: Any, names: Mapping[PlayerId, str]) -> str:
        """The board as plain text (terminal play, accessible fallback)."""
        ...


def check_can_act(game: Game, state: StateBase, player: PlayerId) -> None:
    """The checks every ``apply`` makes first: game over, seat, turn."""
    if game.outcome(state) is not None:
        raise GameOver("The game is over; no more moves can be made.")
    if player == TIMER:
        return  # the game decides which timer actions are legal
    acting = game.to_act(state)
    if player in acting:
        return
    if player not in state.players:
        raise NotInGame("You are not playing in this game.")
    raise NotYourTurn("It is not your turn.")
