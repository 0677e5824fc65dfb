"""The fast building paths of ``engine.core`` and the structural sharing they allow.

``apply`` builds its states, seats and events without pydantic's validation and shares
every unchanged part with the previous state. The risk is a shared sub-object changed
in place: a parent state that changes after one of its children was applied. The AI
applies many actions to one sampled state and keeps it, so the parent must stay
exactly as it was, whatever is applied to it or to its descendants.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from pydantic import Field

from engine import get_game, models
from engine.core import (
    Model,
    Rng,
    derive_seed,
)
from engine.models import (
    SHARED_LIMIT,
    build,
    constructor,
    evolve,
    successor,
)


class Sample(Model):
    kind: str = "sample"
    count: int
    cards: tuple[int, ...] = ()
    names: dict[str, int] = Field(default_factory=dict)


def test_the_lean_paths_pass_their_self_check_with_this_pydantic() -> None:
    """Else every lean helper silently falls back to pydantic's slower paths."""
    assert models._FAST
    assert models._fast_paths_work()


def test_build_and_constructor_equal_the_validated_model() -> None:
    real = Sample(count=3, cards=(1, 2), names={"a": 1})
    for lean in (
        build(Sample, count=3, cards=(1, 2), names={"a": 1}),
        constructor(Sample)(count=3, cards=(1, 2), names={"a": 1}),
    ):
        assert lean == real
        assert lean.model_dump_json() == real.model_dump_json()  # same key order too
        assert Sample.model_validate_json(lean.model_dump_json()) == lean
        assert lean.model_fields_set == {"kind", "count", "cards", "names"}


def test_constructor_with_an_order_builds_the_json_keys_in_that_order() -> None:
    make = constructor(Sample, order=("names", "count", "kind", "cards"))
    lean = make(count=3, names={"a": 1})
    assert lean == Sample(count=3, names={"a": 1})
    assert lean.model_dump_json() == '{"names":{"a":1},"count":3,"kind":"sample","cards":[]}'
    with pytest.raises(ValueError, match="every field"):
        constructor(Sample, order=("count", "kind"))


class Flat(Model):
    kind: Literal["flat"] = "flat"
    who: str
    count: int
    note: str | None = None


def test_shared_constructor_gives_one_instance_per_field_values() -> None:
    make = constructor(Flat, shared=True)
    first = make(who="a", count=1)
    assert make(who="a", count=1) is first
    assert make(who="a", count=1, note=None) is first
    assert make(who="a", count=2) is not first
    assert first == Flat(who="a", count=1)
    assert first.model_dump_json() == Flat(who="a", count=1).model_dump_json()


def test_shared_constructor_forgets_when_full_and_refuses_mutable_fields() -> None:
    make = constructor(Flat, shared=True)
    first = make(who="x", count=0)
    for count in range(1, SHARED_LIMIT + 1):
        make(who="x", count=count)
    again = make(who="x", count=0)
    assert again == first and again is not first  # the cache was emptied once full
    with pytest.raises(TypeError, match="mutable"):
        constructor(Sample, shared=True)  # cards, names: a shared one could be changed


def test_constructor_requires_fields_without_a_plain_default() -> None:
    make = constructor(Sample)
    with pytest.raises(TypeError):
        make(count=1)  # names has a default factory: a shared {} would be a trap
    with pytest.raises(TypeError):
        make(names={})


def test_evolve_is_model_copy_and_shares_the_rest() -> None:
    base = Sample(count=1, cards=(4,), names={"x": 2})
    changed = evolve(base, {"count": 5})
    assert changed == base.model_copy(update={"count": 5})
    assert changed.model_fields_set == base.model_copy(update={"count": 5}).model_fields_set
    assert changed.names is base.names and changed.cards is base.cards
    assert base.count == 1


def test_successor_takes_over_the_values_and_marks_every_field_set() -> None:
    base = Sample(count=1)
    values = {**base.__dict__, "cards": (7, 8)}
    after = successor(base, values)
    assert after == Sample(count=1, cards=(7, 8))
    assert after.model_fields_set == set(Sample.model_fields)
    assert base.cards == ()


CASES = [("workshop", n, None) for n in (2, 3, 4, 5)] + [
    ("tonttu", n, mode) for n in (3, 6) for mode in ("tactical", "speed")
]


@pytest.mark.parametrize(("name", "players", "mode"), CASES)
def test_applying_children_never_changes_a_parent(
    name: str, players: int, mode: str | None
) -> None:
    """Every legal action is applied to every state of random playouts (as the AI's
    search does to its samples); the state, and older states kept along the way, must
    still dump to the same JSON, and every child must equal its own JSON round trip."""
    game = get_game(name)
    options = game.parse_options({"mode": mode} if mode else None)
    seats = [f"p{i}" for i in range(players)]
    for index in range(3):
        seed = derive_seed(players, index, name)
        state = game.new_game(seats, seed, options)
        rng = Rng(seed)
        kept: list[tuple[Any, str]] = []
        step = 0
        while game.outcome(state) is None:
            before = state.model_dump_json()
            acting = [p for p in state.players if p in game.to_act(state)]
            children = []
            for player in acting:
                for action in game.legal_actions(state, player):
                    child, events = game.apply(state, player, action)
                    children.append(child)
                    assert state.model_dump_json() == before, (player, action)
                    for event in events:
                        assert type(event).model_validate_json(event.model_dump_json()) == event
            assert game.parse_state(children[0].model_dump_json()) == children[0]
            if step % 25 == 0:
                kept.append((state, before))
            state = children[rng.below(len(children))]
            step += 1
        for old, dumped in kept:
            assert old.model_dump_json() == dumped
