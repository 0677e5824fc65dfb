"""``apply`` given anything that is not one of Workshop Tonttu's actions refuses it with
:class:`IllegalAction` and a sentence, never a ``KeyError``, ``TypeError`` or
``AttributeError`` from inside the rules, and leaves the game as it was.

A property test feeds random junk at random positions of random games (both modes);
a few named cases pin down the ones that used to crash.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import TIMER, IllegalAction, Rng, RuleError
from engine.records import pick_random
from engine.tonttu import GAME, TonttuState
from engine.tonttu.data import MATERIAL_NAMES
from engine.tonttu.models import ClosePointPhase, Pick, PointGift, PointMaterial
from engine.tonttu.rules import advance

# --------------------------------------------------------------------------- positions


def position(seed: int, players: int, mode: str, steps: int) -> TonttuState:
    """A game after up to ``steps`` random legal actions (stopping before its end)."""
    names = [f"p{k}" for k in range(players)]
    state = GAME.new_game(names, seed, GAME.parse_options({"mode": mode}))
    rng = Rng(seed)
    for _ in range(steps):
        player, action = pick_random(GAME, state, rng)
        after, _ = GAME.apply(state, player, action)
        if GAME.outcome(after) is not None:
            break
        state = after
    return state


# --------------------------------------------------------------------------- junk

ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 300),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(MATERIAL_NAMES),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
KINDS = st.one_of(
    st.sampled_from(["pick", "point_gift", "point_material", "close_point_phase"]),
    ANY_VALUE,
)


@st.composite
def unchecked_models(draw: st.DrawFn) -> Any:
    """The game's own action classes built without validation, any field values."""
    cls = draw(st.sampled_from([Pick, PointGift, PointMaterial, ClosePointPhase]))
    fields: dict[str, Any] = {}
    for name in ("material", "gift", "slot", "face_down", "kind"):
        if draw(st.booleans()):
            fields[name] = draw(KINDS if name == "kind" else ANY_VALUE)
    return cls.model_construct(**fields)


@st.composite
def look_alikes(draw: st.DrawFn) -> Any:
    """Objects that are not actions but carry a ``kind`` (and maybe fields)."""
    fields = {"kind": draw(KINDS)}
    for name in ("material", "gift", "slot", "face_down"):
        if draw(st.booleans()):
            fields[name] = draw(ANY_VALUE)
    return SimpleNamespace(**fields)


JUNK = st.one_of(
    ANY_VALUE,
    st.dictionaries(
        st.sampled_from(["kind", "material", "gift", "slot", "face_down"]), KINDS, max_size=3
    ),
    unchecked_models(),
    look_alikes(),
)


def is_action_shaped(junk: Any) -> bool:
    """A junk value that might still be a well-formed action (duck typing): ``apply``
    may accept those, like any legal action."""
    return hasattr(junk, "kind")


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(3, 6),
    mode=st.sampled_from(["tactical", "speed"]),
    steps=st.integers(0, 120),
    who=st.integers(0, 6),
    junk=JUNK,
)
def test_junk_actions_are_refused_with_a_sentence_or_applied_legally(
    seed: int, players: int, mode: str, steps: int, who: int, junk: Any
) -> None:
    state = position(seed, players, mode, steps)
    player = TIMER if who == players else state.players[who % players]
    before = state.model_dump_json()
    try:
        after, events = GAME.apply(state, player, junk)
    except RuleError as error:
        message = str(error)
        assert message[:1].isupper() and message.endswith("."), message
        if not is_action_shaped(junk):
            assert isinstance(error, IllegalAction), (junk, error)
        assert state.model_dump_json() == before  # refused: nothing changed
        # the search's way of applying (no events) refuses it the same way
        with pytest.raises(type(error)) as also:
            advance(state, player, junk)
        assert str(also.value) == message
        return
    # accepted: it was as good as a legal action, so the result is a valid game
    assert is_action_shaped(junk)
    parsed = TonttuState.model_validate_json(after.model_dump_json())
    assert parsed == after and events
    assert state.model_dump_json() == before  # apply never changes its input
    assert advance(state, player, junk) == after


# --------------------------------------------------------------------------- named cases


def speed_point_phase() -> TonttuState:
    """A speed point phase in which one gift has been won already (a middle slot is
    ``None``, which a gift id of ``None`` used to "find")."""
    for seed in range(200):
        state = GAME.new_game(["a", "b", "c"], seed, GAME.parse_options({"mode": "speed"}))
        rng = Rng(seed)
        while GAME.outcome(state) is None:
            if state.phase == "point" and None in state.middle_gifts:
                acting = [p for p in state.players if p in GAME.to_act(state)]
                if acting:
                    return state
            player, action = pick_random(GAME, state, rng)
            state, _ = GAME.apply(state, player, action)
    raise AssertionError("no such position")


@pytest.mark.parametrize(
    "junk",
    [
        None,
        "pick",
        {"kind": "point_gift", "gift": 1},
        SimpleNamespace(kind="point_gift"),
        SimpleNamespace(kind="point_material", slot="1"),
        PointGift.model_construct(gift=None),
        PointGift.model_construct(gift=True),
        PointGift.model_construct(gift=[1]),
        PointMaterial.model_construct(slot=None),
        PointMaterial.model_construct(slot=0, face_down="no"),
        Pick.model_construct(material="Wood"),
    ],
    ids=repr,
)
def test_junk_in_a_speed_point_phase_is_an_illegal_action(junk: Any) -> None:
    state = speed_point_phase()
    player = next(p for p in state.players if p in GAME.to_act(state))
    with pytest.raises(IllegalAction) as refused:
        GAME.apply(state, player, junk)
    assert str(refused.value).endswith(".")


@pytest.mark.parametrize(
    "junk",
    [
        SimpleNamespace(kind="pick"),
        SimpleNamespace(kind="pick", material=["Wood"]),
        Pick.model_construct(material="Diamonds"),
        Pick.model_construct(),
        {"kind": "pick", "material": "Wood"},
        42,
    ],
    ids=repr,
)
def test_junk_in_a_pick_phase_is_an_illegal_action(junk: Any) -> None:
    state = GAME.new_game(["a", "b", "c"], 1, GAME.parse_options({}))
    with pytest.raises(IllegalAction, match=r"\.$"):
        GAME.apply(state, "a", junk)
