"""What both games share: player ids, rule errors, a seeded RNG, the game protocol.

The engine is pure: nothing here touches Discord, a database, the clock or the
global ``random`` module. All randomness comes from :class:`Rng`, whose whole
state is one integer kept inside the game state, so a seed plus the list of
applied actions replays a game exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from keyword import iskeyword
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Literal,
    Protocol,
    Self,
    TypeAlias,
    TypeVar,
    Union,
    get_args,
    get_origin,
    runtime_checkable,
)

from pydantic import BaseModel, ConfigDict, ValidationError
from typing_extensions import TypeVar as DefaultingTypeVar

from engine.words import ENGLISH, Term, Words

if TYPE_CHECKING:
    from engine.choices import ChoiceFacts

PlayerId = str
"""A seat's owner: a Discord user id as a string, or ``ai:N`` for a computer seat."""

TIMER: PlayerId = "@timer"
"""The actor for actions a table's timer issues (e.g. closing a speed round).

It is never a seat, never in ``to_act``; a game that accepts timer actions lists
them in ``legal_actions(state, TIMER)``.
"""


# --------------------------------------------------------------------------- errors


_UNNAMED: Any = object()
"""No action named (``None`` is an action a caller may hand over)."""
_INPUTS = ("action", "player", "version", "game_id")


class RuleError(ValueError):
    """A move the rules do not allow. ``str(error)`` is a sentence fit to show the player.

    Raised with a template and its fields (``IllegalAction("You have no {material}.",
    material="Wool")``), so the sentence can be shown in the player's language:
    :meth:`text`. ``str(error)`` is the English sentence.

    The error also names its input, for logs and developers (as python-chess's
    ``illegal san: 'Nf3' in <position>`` does): :attr:`action` and :attr:`player`, which
    the games' ``apply``, :func:`check_action` and :func:`check_can_act` fill in, and
    :attr:`version` and :attr:`game_id`, which storage fills in for a submitted action
    (:meth:`naming`). ``repr(error)`` and :attr:`detail` say them; the sentence does
    not (a player is told what is wrong, not shown the action's fields).

    >>> error = IllegalAction("It is not your turn.").naming(action=None, player="p2")
    >>> str(error)
    'It is not your turn.'
    >>> error.detail
    "action None by player 'p2': It is not your turn."
    >>> error.naming(version=7, game_id=12)
    IllegalAction('It is not your turn.', action=None, player='p2', version=7, game_id=12)
    """

    def __init__(self, template: str = "", /, **fields: Any) -> None:
        self.template = template
        self.fields = fields
        self.inputs: dict[str, Any] = {}
        """What the error refused, by name (``action``, ``player``, ``version``,
        ``game_id``), in that order; only what is known."""
        super().__init__(template.format(**fields) if fields else template)

    def naming(
        self,
        *,
        action: Any = _UNNAMED,
        player: PlayerId | None = None,
        version: int | None = None,
        game_id: int | None = None,
    ) -> Self:
        """Name the input this error refused; returns the error (``raise
        IllegalAction(...).naming(action=action)``). What is named already stays: the
        innermost caller names it first, as it was handed over."""
        inputs = self.inputs
        if action is not _UNNAMED:
            inputs.setdefault("action", action)
        if player is not None:
            inputs.setdefault("player", player)
        if version is not None:
            inputs.setdefault("version", version)
        if game_id is not None:
            inputs.setdefault("game_id", game_id)
        # in the order of a sentence: action, player, version, game
        self.inputs = {name: inputs[name] for name in _INPUTS if name in inputs}
        return self

    @property
    def action(self) -> Any:
        """The refused action as it was handed over (a model, a dict, JSON text,
        ``None`` …), or ``None`` if not named."""
        return self.inputs.get("action")

    @property
    def player(self) -> PlayerId | None:
        """Who tried to act, if named."""
        player: PlayerId | None = self.inputs.get("player")
        return player

    @property
    def version(self) -> int | None:
        """The game's version the action was judged at (storage names it)."""
        version: int | None = self.inputs.get("version")
        return version

    @property
    def game_id(self) -> int | None:
        """The stored game's id (storage names it)."""
        game_id: int | None = self.inputs.get("game_id")
        return game_id

    @property
    def detail(self) -> str:
        """The English sentence after the input it refused, for a log line: "action
        PlaceElf(...) by player 'p2' at version 7 of game #12: It is not your turn."."""
        inputs = self.inputs
        parts = []
        if "action" in inputs:
            parts.append(f"action {_short_repr(inputs['action'])}")
        if "player" in inputs:
            parts.append(f"{'by player' if parts else 'player'} {inputs['player']!r}")
        if "version" in inputs:
            parts.append(f"at version {inputs['version']}")
        if "game_id" in inputs:
            parts.append(f"{'of game' if parts else 'game'} #{inputs['game_id']}")
        return f"{' '.join(parts)}: {self}" if parts else str(self)

    def __repr__(self) -> str:
        named = "".join(f", {name}={_short_repr(value)}" for name, value in self.inputs.items())
        return f"{type(self).__name__}({str(self)!r}{named})"

    def text(self, words: Words) -> str:
        r"""The sentence in ``words``' language; fields that are :class:`Term`\ s (game
        words such as a material's name) are translated too, names and numbers not."""
        fields = {k: words.gettext(v) if isinstance(v, Term) else v for k, v in self.fields.items()}
        template = words.gettext(self.template) if self.template else ""
        return template.format(**fields) if fields else template


def _short_repr(value: Any, limit: int = 300) -> str:
    """``repr(value)``, cut to ``limit`` characters (junk handed over as an action may be long)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


# --------------------------------------------------------------------------- models


class Model(BaseModel):
    """Base of states, actions, events and views: immutable, JSON round-trippable.

    Frozen models make structural sharing safe: ``apply`` builds a new state with
    ``model_copy(update=...)`` and replaces only the parts that change; tuples,
    never lists, hold sequences.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- fast building
# ``apply`` runs thousands of times per computer decision. Pydantic's generic paths
# (``model_copy``, validating constructors) cost several microseconds each; the helpers
# below build the same objects from values the engine already knows to be valid. A
# frozen model's instance is exactly four slots: ``__dict__`` (the field values, in
# field order: that is the JSON's key order), the fields-set record, extras (None) and
# private attributes (None). ``_fast_paths_work`` checks at import that objects built
# here equal, dump and round-trip like pydantic's own; should a pydantic upgrade change
# its internals, the plain pydantic paths are used instead (slower, same results).

_new_object = object.__new__
_set_slot = object.__setattr__
M = TypeVar("M", bound=BaseModel)


def _slot_setter(name: str) -> Callable[[Any, Any], None]:
    """The ``__set__`` of BaseModel's descriptor for slot ``name``: what
    ``object.__setattr__(obj, name, value)`` ends up calling, minus the lookup by name
    (a fifth of the cost of building an object)."""
    try:
        setter: Callable[[Any, Any], None] = vars(BaseModel)[name].__set__
    except (KeyError, AttributeError):  # pragma: no cover - other pydantic internals
        return partial(_set_by_name, name)
    return setter


def _set_by_name(name: str, obj: Any, value: Any) -> None:  # pragma: no cover
    _set_slot(obj, name, value)


_set_dict = _slot_setter("__dict__")
_set_fields_set = _slot_setter("__pydantic_fields_set__")
_set_extra = _slot_setter("__pydantic_extra__")
_set_private = _slot_setter("__pydantic_private__")

_FIELDS: dict[type[BaseModel], tuple[dict[str, Any], set[str]]] = {}


def _fields(cls: type[BaseModel]) -> tuple[dict[str, Any], set[str]]:
    """Field name → default (``...`` if none or a factory), in field order; all names."""
    known = _FIELDS.get(cls)
    if known is None:
        defaults = {
            name: ... if field.is_required() or field.default_factory else field.default
            for name, field in cls.model_fields.items()
        }
        known = _FIELDS[cls] = (defaults, set(defaults))
    return known


def _lean_evolve(model: M, update: dict[str, Any]) -> M:
    values = model.__dict__.copy()
    values.update(update)
    fields_set = model.__pydantic_fields_set__
    if not fields_set.issuperset(update):  # as model_copy: updated fields count as set
        fields_set = fields_set | update.keys()
    copied = _new_object(type(model))
    _set_dict(copied, values)
    # shared between copies, never mutated: pydantic copies it before changing it
    _set_fields_set(copied, fields_set)
    _set_extra(copied, None)
    _set_private(copied, None)
    return copied


def _lean_successor(model: M, values: dict[str, Any]) -> M:
    cls = type(model)
    known = _FIELDS.get(cls) or _fields(cls)
    copied = _new_object(cls)
    _set_dict(copied, values)
    _set_fields_set(copied, known[1])
    _set_extra(copied, None)
    _set_private(copied, None)
    return copied


def _lean_successor_of(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    names = _fields(cls)[1]
    new, set_dict, set_fields_set = _new_object, _set_dict, _set_fields_set
    set_extra, set_private = _set_extra, _set_private

    def make(values: dict[str, Any]) -> M:
        built: M = new(cls)
        set_dict(built, values)
        set_fields_set(built, names)
        set_extra(built, None)
        set_private(built, None)
        return built

    make.__qualname__ = f"successor_of({cls.__name__})"
    return make


def _lean_build(cls: type[M], **values: Any) -> M:
    defaults, names = _fields(cls)
    full = defaults.copy()
    full.update(values)
    built = _new_object(cls)
    _set_dict(built, full)
    _set_fields_set(built, names)  # all, as if parsed from its JSON
    _set_extra(built, None)
    _set_private(built, None)
    return built


def _scalar(annotation: Any) -> bool:
    """Is every value of this type an immutable scalar (str, int, bool, None, a Literal)?"""
    if annotation in (str, int, bool, type(None)):
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        return all(isinstance(value, str | int | bool | None) for value in get_args(annotation))
    if origin in (Union, UnionType):
        return all(_scalar(arg) for arg in get_args(annotation))
    return False


SHARED_LIMIT = 4096
"""At most this many shared instances per model (the cache is emptied when full)."""


def _lean_constructor(
    cls: type[M], order: Sequence[str] | None = None, shared: bool = False
) -> Callable[..., M]:
    """Generate ``def make(*, field=default, ...)`` for ``cls`` (as dataclasses generate
    ``__init__``): keyword-only parameters, one dict display, no validation. With
    ``shared``, equal field values give the same (frozen) instance, from a cache."""
    defaults, names = _fields(cls)
    if order is not None:
        if sorted(order) != sorted(names):
            raise ValueError(f"order must name every field of {cls.__name__} once: {order}")
        defaults = {name: defaults[name] for name in order}
    if shared:
        mutable = [n for n, f in cls.model_fields.items() if not _scalar(f.annotation)]
        if mutable:
            raise TypeError(f"{cls.__name__} cannot be shared: {mutable} may hold mutable values")
    reserved = ("built", "make", "key")
    if any(not n.isidentifier() or iskeyword(n) or n in reserved for n in names):
        if shared:
            raise TypeError(f"{cls.__name__} cannot be shared: a field name is not a parameter")
        return partial(_lean_build, cls)  # a name that cannot be a parameter here
    scope: dict[str, Any] = {
        "_cls": cls,
        "_names": names,
        "_new": _new_object,
        "_set_dict": _set_dict,
        "_set_fields_set": _set_fields_set,
        "_set_extra": _set_extra,
        "_set_private": _set_private,
        "_cache": {},
        "_limit": SHARED_LIMIT,
    }
    params = []
    for k, (name, default) in enumerate(defaults.items()):
        if default is ...:
            params.append(name)
        else:
            scope[f"_default{k}"] = default
            params.append(f"{name}=_default{k}")
    values = ", ".join(f"{name!r}: {name}" for name in defaults)
    lookup = store = ""
    if shared:
        # the key holds every field, in order; its values are immutable scalars
        lookup = (
            f"    key = ({', '.join(defaults)},)\n"
            "    built = _cache.get(key)\n"
            "    if built is not None:\n"
            "        return built\n"
        )
        store = "    if len(_cache) >= _limit:\n        _cache.clear()\n    _cache[key] = built\n"
    source = (
        f"def make(*, {', '.join(params)}):\n"
        f"{lookup}"
        "    built = _new(_cls)\n"
        f"    _set_dict(built, {{{values}}})\n"
        "    _set_fields_set(built, _names)\n"
        "    _set_extra(built, None)\n"
        "    _set_private(built, None)\n"
        f"{store}"
        "    return built\n"
    )
    # a file name of its own, so that profilers tell one model's constructor from another's
    exec(compile(source, f"<constructor of {cls.__name__}>", "exec"), scope)
    make: Callable[..., M] = scope["make"]
    make.__qualname__ = f"constructor({cls.__name__})"
    return make


def _pydantic_evolve(model: M, update: dict[str, Any]) -> M:
    return model.model_copy(update=update)


def _pydantic_successor(model: M, values: dict[str, Any]) -> M:
    return model.model_copy(update=values)


def _pydantic_build(cls: type[M], **values: Any) -> M:
    return cls(**values)


def _pydantic_constructor(
    cls: type[M], order: Sequence[str] | None = None, shared: bool = False
) -> Callable[..., M]:
    return cls


def _fast_paths_work() -> bool:
    """Self-check: the lean paths give what pydantic gives (else a pydantic upgrade broke them)."""

    class Probe(Model):
        a: int
        b: tuple[int, ...] = ()
        c: str = "x"

    try:
        real = Probe(a=1, b=(2,))
        copied = real.model_copy(update={"c": "y"})
        evolved = _lean_evolve(real, {"c": "y"})
        succeeded = _lean_successor(real, {**real.__dict__, "c": "y"})
        built = [_lean_build(Probe, a=1, b=(2,)), _lean_constructor(Probe)(a=1, b=(2,))]
        reordered = _lean_constructor(Probe, ("c", "a", "b"))(a=1, b=(2,))

        class Flat(Model):
            a: int
            c: str = "x"

        rebuilt = _lean_successor_of(Probe)({**real.__dict__, "c": "y"})
        if rebuilt != copied or rebuilt.model_fields_set != {"a", "b", "c"}:
            return False
        share = _lean_constructor(Flat, shared=True)
        if share(a=1) is not share(a=1) or share(a=1) == share(a=2) or share(a=1) != Flat(a=1):
            return False
        return (
            all(
                lean == real
                and lean.model_dump_json() == real.model_dump_json() == '{"a":1,"b":[2],"c":"x"}'
                and Probe.model_validate_json(lean.model_dump_json()) == lean
                for lean in built
            )
            and evolved == copied
            and evolved.model_fields_set == copied.model_fields_set
            and evolved.model_dump_json() == copied.model_dump_json()
            and succeeded == copied
            and succeeded.model_fields_set == {"a", "b", "c"}
            and real.c == "x"
            and reordered == real
            and reordered.model_dump_json() == '{"c":"x","a":1,"b":[2]}'
        )
    except Exception:  # pragma: no cover - only with unexpected pydantic internals
        return False


_FAST = _fast_paths_work()

evolve: Callable[[M, dict[str, Any]], M] = _lean_evolve if _FAST else _pydantic_evolve
"""``model.model_copy(update=update)``, several times faster: the copy shares every
value it does not replace (structural sharing), and nothing is validated, so ``update``
must hold valid values of the right types (tuples, not lists)."""

successor: Callable[[M, dict[str, Any]], M] = _lean_successor if _FAST else _pydantic_successor
"""A copy of ``model`` whose field values are ``values``: a changed copy of its
``__dict__``, taken over as is (keep no other reference to it). Like :data:`evolve`,
for code that gathers its changes in such a dict; every field counts as set, as in a
model parsed from its JSON."""

build: Callable[..., Any] = _lean_build if _FAST else _pydantic_build
"""``build(cls, **values)``: ``cls(**values)`` without validation, for values the engine
made itself (right types: tuples, not lists; the Literal values the model allows).
Fields left out take their default; a field with a ``default_factory`` or none must
be passed. Tests check that what the engine builds equals its JSON round-trip."""


def _pydantic_successor_of(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    return lambda values: cls.model_construct(**values)


def successor_of(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """``successor`` for one model class, a little faster (the class and its field names
    are bound once): ``successor_of(WorkshopState)(values)`` is the state whose field
    values are ``values``, a changed copy of another's ``__dict__`` taken over as is;
    every field counts as set."""
    return (_lean_successor_of if _FAST else _pydantic_successor_of)(cls)


def constructor(
    cls: type[M], order: Sequence[str] | None = None, *, shared: bool = False
) -> Callable[..., M]:
    """A function that builds ``cls`` like :data:`build` (keyword arguments, the model's
    defaults, no validation), faster still: for the events ``apply`` makes most. Leaving
    out a field without a plain default is a ``TypeError``.

    ``order`` (every field name once) sets the key order of the built ``__dict__``,
    which is the key order of its JSON: for events whose stored JSON has always listed
    its keys in an order other than the model's (the pydantic fallback path keeps the
    model's order).

    ``shared=True``: the same field values give the same instance, like the shared
    prebuilt actions (an event such as "p1 placed an Elf on the Wood Shop, space 2"
    recurs in every rollout of a search). Only for models whose fields all hold
    immutable scalars (str, int, bool, None, Literals; a ``TypeError`` otherwise), and
    values of the field's own type (``True`` and ``1`` are equal keys).
    """
    return (_lean_constructor if _FAST else _pydantic_constructor)(cls, order, shared)


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
    engine.core.IllegalAction: That is not a move in Demo: a dict is not one of its actions.
    >>> check_action(Go.model_construct(steps="far"), [Go], "X")
    Traceback (most recent call last):
    engine.core.IllegalAction: That is not a move in X: the steps of a Go must be a valid integer.
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
