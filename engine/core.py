"""What both games share: player ids, a seeded RNG, the game protocol and its checks.

The rule errors are ``engine/errors.py``'s and the models' base ``engine/models.py``'s;
both are imported from here too.

The engine is pure: nothing here touches Discord, a database, the clock or the
global ``random`` module. All randomness comes from :class:`Rng`, whose whole
state is one integer kept inside the game state, so a seed plus the list of
applied actions replays a game exactly.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Protocol,
    TypeAlias,
    TypeVar,
    runtime_checkable,
)

from pydantic import BaseModel, ValidationError
from typing_extensions import TypeVar as DefaultingTypeVar

from engine.errors import (
    GameOver,
    IllegalAction,
    InvalidSetup,
    NotInGame,
    NotYourTurn,
    RuleError,
)
from engine.models import Model, PlayerId
from engine.words import ENGLISH, Term, Words

if TYPE_CHECKING:
    from engine.choices import ChoiceFacts

__all__ = [
    "TIMER",
    "AnyGame",
    "Game",
    "GameOver",
    "IllegalAction",
    "InvalidSetup",
    "Model",
    "NotInGame",
    "NotYourTurn",
    "Outcome",
    "PlayerId",
    "Rng",
    "RuleError",
    "StateBase",
    "check_action",
    "check_can_act",
    "derive_seed",
]
"""The engine's shared API (the errors and the models' base are re-exported from their
own modules)."""


TIMER: PlayerId = "@timer"
"""The actor for actions a table's timer issues (e.g. closing a speed round).

It is never a seat, never in ``to_act``; a game that accepts timer actions lists
them in ``legal_actions(state, TIMER)``.
"""


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
        """Fisher–Yates in place: ``j = self.below(i + 1)`` for each ``i`` from the top,
        with :meth:`next64` written out in the loop (a reshuffle is on the hot path)."""
        s = self.state
        for i in range(len(items) - 1, 0, -1):
            s = (s + 0x9E3779B97F4A7C15) & _MASK64
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
            j = ((z ^ (z >> 31)) * (i + 1)) >> 64
            items[i], items[j] = items[j], items[i]
        self.state = s

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


# Game's parameters. Each defaults to Any (PEP 696), so a bare ``Game`` is any game.
S = DefaultingTypeVar("S", bound=StateBase, default=Any)
"""A game's state type (:class:`Game`'s first parameter)."""
A = DefaultingTypeVar("A", bound=Model, default=Any)
"""A game's action type: one model, or a union of them."""
V = DefaultingTypeVar("V", bound=Model, default=Any)
"""A game's view type: what one player (or a spectator) may see."""
E = DefaultingTypeVar("E", bound=Model, default=Any)
"""A game's event type: one model, or a union of them."""


@runtime_checkable
class Game(Protocol[S, A, V, E]):
    """The rules of one game, as pure functions over a serializable state.

    Like OpenSpiel: ``to_act`` holds one player for a turn-based decision or
    several for a simultaneous one; a simultaneous step resolves when the last
    choice is applied.

    Generic over the game's state, action, view and event types, in that order:
    ``Game[WorkshopState, Action, WorkshopView, Event]`` for Santa's Workshop (its
    ``Action`` and ``Event`` are unions of models), so that ``apply`` returns a
    ``WorkshopState`` to a caller that holds that game. Each is
    invariant (a state goes into ``apply`` and comes out of it). Code that works for
    any game, whose name is a runtime string (``engine.get_game``), takes
    :data:`AnyGame`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]

    def parse_options(self, raw: Mapping[str, Any] | None) -> Model:
        """Validated options; raises :class:`InvalidSetup` with a sentence."""
        ...

    def new_game(self, players: Sequence[PlayerId], seed: int, options: Model) -> S: ...

    def to_act(self, state: S) -> frozenset[PlayerId]: ...

    def legal_actions(self, state: S, player: PlayerId) -> Sequence[A]: ...

    def apply(self, state: S, player: PlayerId, action: A) -> tuple[S, Sequence[E]]: ...

    def view(self, state: S, player: PlayerId | None) -> V: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def parse_action(self, data: Any) -> A:
        """An action from its JSON text or its ``model_dump`` dict; raises IllegalAction."""
        ...

    def parse_state(self, data: str | bytes) -> S: ...

    def parse_event(self, data: Mapping[str, Any]) -> E:
        """An event from its ``model_dump`` dict."""
        ...

    def parse_events_json(self, data: str | bytes) -> list[E]:
        """The events of one action as the action log stores them (a JSON array), parsed
        straight to the engine's models."""
        ...

    def describe_action(
        self,
        state: S,
        player: PlayerId,
        action: A,
        names: Mapping[PlayerId, str] | None = None,
        words: Words = ENGLISH,
    ) -> str:
        """A short label for a menu entry: what this choice does, right now.

        ``names`` maps player ids to display names for labels that mention others;
        ``words`` is the reader's language (:mod:`engine.words`).
        """
        ...

    def describe_choice(self, state: S, player: PlayerId, action: A) -> ChoiceFacts:
        """The structured companion of :meth:`describe_action`: an
        :class:`engine.choices.ChoiceFacts` saying what this legal choice is and does
        right now (its kind; where it sits on the board; what it costs and gives now,
        which card, which seats), for front ends that must not parse labels."""
        ...

    def describe_event(
        self, event: E, names: Mapping[PlayerId, str], words: Words = ENGLISH
    ) -> str:
        """One log line for a public event, using display names."""
        ...

    def render_text(self, view: V, names: Mapping[PlayerId, str], words: Words = ENGLISH) -> str:
        """The board as plain text (terminal play, accessible fallback)."""
        ...


AnyGame: TypeAlias = Game[Any, Any, Any, Any]
"""Any game: for code that works through the protocol alone, e.g. with the game that
``engine.get_game`` returns for a name known only at run time."""


def check_action(action: Any, kinds: Collection[type[BaseModel]], title: str) -> None:
    """Raise :class:`IllegalAction` unless ``action`` is one of the game's actions, well formed.

    ``kinds`` are the game's action classes. An action must be an instance of one of
    them (not a dict, ``None``, a string, another game's action, a subclass) whose
    field values are what parsing its JSON would give: ``model_construct`` and other
    ways around validation can build, say, a ``PlaceElf`` for a station that does not
    exist, which would otherwise reach the rules as a ``KeyError``. The check
    re-validates the fields strictly (no coercion: ``True`` is not the number 1), so
    call it only for actions that are not the game's own prebuilt, known-valid objects.

    >>> from typing import Literal
    >>> class Go(Model):
    ...     kind: Literal["go"] = "go"
    ...     steps: int
    >>> check_action(Go(steps=2), [Go], "Demo")
    >>> check_action({"kind": "go", "steps": 2}, [Go], "Demo")
    Traceback (most recent call last):
    engine.errors.IllegalAction: That is not a move in Demo: a dict is not one of its actions.
    >>> check_action(Go.model_construct(steps="far"), [Go], "X")
    Traceback (most recent call last):
    engine.errors.IllegalAction: That is not a move in X: the steps of a Go must be a valid integer.
    """
    kind = type(action)
    if kind not in kinds:
        raise IllegalAction(
            "That is not a move in {game}: {what} is not one of its actions.",
            game=Term(title),
            what=_a(action),
        ).naming(action=action)
    try:
        kind.model_validate(dict(action.__dict__), strict=True)
    except ValidationError as error:
        raise IllegalAction(
            "That is not a move in {game}: {problem}.",
            game=Term(title),
            problem=_first_problem(kind.__name__, error),
        ).naming(action=action) from None


def _a(value: Any) -> str:
    """``None``, ``a dict``, ``an int``: what a value is, for a sentence."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _first_problem(kind: str, error: ValidationError) -> str:
    """The first field error of a validation, as words: "the steps of a Go must be …"."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "value"
    message = first["msg"]
    if message.startswith("Input should be "):
        message = "must be " + message.removeprefix("Input should be ")
    elif first["type"] == "missing":
        message = "is missing"
    elif first["type"] == "extra_forbidden":
        message = "is not one of its fields"
    else:
        message = "is wrong: " + message[:1].lower() + message[1:]
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return f"the {field} of {article} {kind} {message}"


def check_can_act(game: Game[S, Any, Any, Any], state: S, player: PlayerId) -> None:
    """The checks every ``apply`` makes first: game over, seat, turn. The error names
    the ``player`` (``apply`` adds the action)."""
    if game.outcome(state) is not None:
        raise GameOver("The game is over; no more moves can be made.").naming(player=player)
    if player == TIMER:
        return  # the game decides which timer actions are legal
    acting = game.to_act(state)
    if player in acting:
        return
    if player not in state.players:
        raise NotInGame("You are not playing in this game.").naming(player=player)
    raise NotYourTurn("It is not your turn.").naming(player=player)
