"""The base of every state, action, event and view (:class:`Model`), and how the engine
builds them fast (:data:`evolve`, :data:`successor`, :data:`build`, :func:`constructor`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from keyword import iskeyword
from types import UnionType
from typing import (
    Any,
    Literal,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

from pydantic import BaseModel, ConfigDict

PlayerId = str
"""A seat's owner: a Discord user id as a string, or ``ai:N`` for a computer seat."""


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
