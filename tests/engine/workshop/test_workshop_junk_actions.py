"""``apply`` given anything that is not one of the game's actions.

A dict, ``None``, a string, another game's action, a model built without validation
(``model_construct``) or with wrong field types: ``IllegalAction`` with a sentence,
never a ``KeyError``/``TypeError``/``AttributeError``. Something equal to a legal action
(e.g. the same action parsed from its JSON) is applied exactly like the prebuilt one.
Also: what a refused ``StopTaking`` says (W-3.2, W-3.3) and the Elves left while a
placed Elf's decisions are pending (W-2.2).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from workshop_positions import legal, play, start

from engine.core import IllegalAction, Rng, RuleError
from engine.tonttu.models import Pick
from engine.workshop import GAME
from engine.workshop.models import (
    ChooseMaterial,
    ChooseOrnament,
    CoverSpace,
    DonateTokens,
    Phase,
    PlaceElf,
    PlaceTokens,
    StopTaking,
    TakeDonated,
    TakeReindeer,
    TakeToy,
    WorkshopState,
)
from engine.workshop.rules import current_seat

ACTION_CLASSES = (
    PlaceElf,
    TakeToy,
    StopTaking,
    TakeReindeer,
    ChooseMaterial,
    PlaceTokens,
    DonateTokens,
    ChooseOrnament,
    CoverSpace,
    TakeDonated,
)

# field values: the right ones, near misses and nonsense
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 50),
    st.floats(allow_nan=True),
    st.sampled_from(["wood", "metal", "fabric", "assembly", "mail3", "stables", "tree1"]),
    st.sampled_from(["garage", "", "red", "gold", "star", "place_elf", "1"]),
    st.text(max_size=5),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
field_names = st.sampled_from(
    ["station", "slot", "stall", "material", "toy", "count", "colour", "space", "kind", "x"]
)


@st.composite
def constructed(draw: st.DrawFn) -> Any:
    """An action class built without validation, from arbitrary field values."""
    cls = draw(st.sampled_from(ACTION_CLASSES))
    fields = draw(st.dictionaries(field_names, values, max_size=4))
    return cls.model_construct(**fields)


@st.composite
def near_legal(draw: st.DrawFn, state: WorkshopState) -> Any:
    """A legal action's fields with one value replaced, built without validation."""
    action = draw(st.sampled_from(legal(state)))
    fields = action.model_dump()
    if len(fields) > 1:
        name = draw(st.sampled_from(sorted(set(fields) - {"kind"})))
        fields[name] = draw(values)
    return type(action).model_construct(**fields)


def junk_for(state: WorkshopState) -> st.SearchStrategy[Any]:
    legal_dumps = [a.model_dump() for a in legal(state)]
    return st.one_of(
        values,
        st.sampled_from(legal_dumps),  # a legal action's dict is still not an action
        st.sampled_from([a.model_dump_json() for a in legal(state)]),
        st.builds(SimpleNamespace, kind=st.sampled_from(["place_elf", "pick"]), station=values),
        st.just(Pick(material="Wood")),  # the other game's action
        st.just(object()),
        constructed(),
        near_legal(state),
        st.sampled_from(legal(state)).map(
            lambda a: type(a).model_validate_json(a.model_dump_json())
        ),
    )


def position(seed: int, moves: int, players: int) -> WorkshopState:
    """A random game after ``moves`` random legal actions (or its end, if sooner)."""
    state = start(players=players, seed=seed)
    rng = Rng(seed)
    for _ in range(moves):
        options = legal(state)
        if not options:
            break
        state, _ = play(state, rng.choice(options))
    return state


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 400),
    players=st.integers(2, 5),
    data=st.data(),
)
def test_junk_actions_are_refused_with_a_sentence_or_applied_as_legal(
    seed: int, moves: int, players: int, data: st.DataObject
) -> None:
    state = position(seed, moves, players)
    if state.phase == Phase.OVER:
        return
    player = state.players[current_seat(state)]
    options = legal(state)
    junk = data.draw(junk_for(state), label="action")
    try:
        after, events = GAME.apply(state, player, junk)
    except IllegalAction as error:
        sentence = str(error)
        assert sentence.endswith(".") and sentence[:1].isupper(), sentence
        assert "Traceback" not in sentence and "\n" not in sentence
        return
    # applied: it must be equal to a legal action and do exactly what that one does
    same = [a for a in options if a == junk]
    assert same, f"applied {junk!r}, which is not a legal action"
    expected, expected_events = GAME.apply(state, player, same[0])
    assert after == expected and events == expected_events
    assert WorkshopState.model_validate_json(after.model_dump_json()) == after


@pytest.mark.parametrize(
    "junk",
    [
        None,
        "place_elf",
        {"kind": "place_elf", "station": "wood"},
        SimpleNamespace(kind="place_elf", station="wood"),
        PlaceElf.model_construct(station="garage"),
        PlaceElf.model_construct(),
        TakeToy.model_construct(slot=True),  # True == 1, but a bool is not a slot
        PlaceTokens.model_construct(material="wood", toy=3, count=1.0),
        Pick(material="Wood"),
    ],
    ids=repr,
)
def test_the_issue_cases_are_illegal_actions(junk: Any) -> None:
    state = start(players=3)
    with pytest.raises(IllegalAction, match=r"^That is not a move in Santa's Workshop: .+\.$"):
        GAME.apply(state, state.players[current_seat(state)], junk)


def test_a_parsed_action_is_applied_as_the_prebuilt_one() -> None:
    state = start(players=2)
    prebuilt = legal(state)[0]
    parsed = GAME.parse_action(prebuilt.model_dump_json())
    assert parsed is not prebuilt
    after, events = GAME.apply(state, state.players[current_seat(state)], parsed)
    assert (after, events) == play(state, prebuilt)


def test_w3_3_stop_taking_while_an_elf_must_be_placed_says_what_is_expected() -> None:
    state = start(players=2)
    with pytest.raises(IllegalAction) as refused:
        play(state, StopTaking())
    assert str(refused.value) == "That is not possible now: you must place an Elf."


def test_w3_3_stop_taking_before_the_first_toy_card() -> None:
    state, _ = play(start(players=2), PlaceElf(station="mail3"))
    assert state.phase == Phase.MAIL
    with pytest.raises(IllegalAction, match=r"^Take at least one toy card before you stop\.$"):
        play(state, StopTaking())


def test_w2_2_elves_left_excludes_the_elf_whose_decisions_are_pending() -> None:
    state = start(players=2)
    placer = state.players[current_seat(state)]

    def elves_left(s: WorkshopState) -> int:
        return next(p.elves_left for p in GAME.view(s, None).players if p.player == placer)

    assert elves_left(state) == 3
    state, _ = play(state, PlaceElf(station="mail3"))
    assert state.phase == Phase.MAIL and state.players[current_seat(state)] == placer
    assert elves_left(state) == 2  # the Elf stands in the Mail Room; its toys are pending
    state, _ = play(state, TakeToy(slot=0))
    state, _ = play(state, StopTaking())
    while state.players[current_seat(state)] == placer and state.phase != Phase.STATION:
        state, _ = play(state, legal(state)[0])  # tokens of other decisions, if any
    assert elves_left(state) == 2


def test_refusals_never_raise_anything_but_rule_errors_in_a_whole_game() -> None:
    """Every action class's prebuilt actions, tried at every position of a random game."""
    from engine.workshop import rules

    every = [
        *rules.A_PLACE_ELF,
        *rules.A_TAKE_SLOT,
        rules.A_TAKE_DECK,
        rules.A_STOP,
        *rules.A_REINDEER,
        *rules.A_CHOOSE,
        *rules.A_ORNAMENT,
        *rules.A_COVER,
        rules.A_PLACE_TOKENS[0][0][1],
        rules.A_TAKE_DONATED[1][2],
        rules.A_DONATE[2][3],
    ]
    state = start(players=3, seed=11)
    rng = Rng(11)
    while state.phase != Phase.OVER:
        player = state.players[current_seat(state)]
        for action in every:
            copy = type(action).model_validate_json(action.model_dump_json())
            try:
                GAME.apply(state, player, copy)
            except RuleError as error:
                assert str(error).endswith(".")
        state, _ = play(state, rng.choice(legal(state)))
