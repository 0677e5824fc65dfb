"""The undo rule in Santa's Workshop (``engine.undo`` + ``GAME.undo_block``):
hand-made positions, one per station kind, citing the rules each step plays."""

from __future__ import annotations

import pytest
from workshop_positions import start, toy, with_seat

from engine.undo import CHANCE, TURN_OVER, CannotUndo, History, TookBack, Undo, describe_event
from engine.workshop import GAME
from engine.workshop.models import (
    ChooseMaterial,
    ChooseOrnament,
    PlaceElf,
    PlaceTokens,
    TakeReindeer,
    TakeToy,
    WorkshopState,
)
from engine.workshop.rules import current_seat

DREW = "That decision drew or revealed a card, so it can't be taken back."
NAMES = {"ann": "Aino", "bob": "Bruno", "cat": "Cat"}


def history_of(state: WorkshopState, *actions: object) -> History:
    history = History(GAME, state)
    for seq, action in enumerate(actions, start=1):
        history.apply(seq, history.state.players[current_seat(history.state)], action)
    return history


def wood_start() -> WorkshopState:
    """Ann (seat 0, first) holds two toys that need Wood."""
    state = start(players=3, first=0)
    return with_seat(state, 0, toys=(toy("Wooden Blocks"), toy("Toy Boat")))


def test_a_shop_placement_can_be_taken_back_and_gives_the_state_before() -> None:
    # W-3 / W-3.1: an Elf on the Wood Shop (1st space: 2 Wood) leaves Ann placing tokens
    state = wood_start()
    history = history_of(state, PlaceElf(station="wood"))
    assert history.window("ann") == 1
    assert history.refusal("ann") is None
    entry, undone, event = history.undo_entry("ann")
    assert entry == Undo(seq=1)
    assert undone.model_dump() == state.model_dump()
    assert event.player == "ann" and event.seq == 1
    line = describe_event(GAME, event, NAMES)
    assert line == "Aino took back: places an Elf at the Wood Shop (1st space); receives 2 Wood."


def test_the_undo_entry_replays_to_the_state_before() -> None:
    state = wood_start()
    history = history_of(state, PlaceElf(station="wood"))
    events = history.apply(2, "ann", Undo(seq=1))
    assert [type(e) for e in events] == [TookBack]
    assert history.state.model_dump() == state.model_dump()
    assert history.version == 2
    assert history.window("ann") == 0
    assert history.refusal("ann") == (
        "Every decision so far has been taken back; there is nothing more to undo."
    )


def test_other_players_cannot_take_back_anothers_decision() -> None:
    history = history_of(wood_start(), PlaceElf(station="wood"))
    assert history.window("bob") == 0
    assert history.refusal("bob") is not None and "Another player" in history.refusal("bob")  # type: ignore[operator]
    with pytest.raises(CannotUndo):
        history.undo_entry("bob")


def test_after_the_turn_passes_nothing_can_be_taken_back() -> None:
    # W-2.2: once Ann's tokens are placed her Elf is resolved and Bob must act
    state = wood_start()
    history = history_of(
        state,
        PlaceElf(station="wood"),
        PlaceTokens(material="wood", toy=toy("Wooden Blocks")[0], count=2),
    )
    assert GAME.to_act(history.state) == {"bob"}
    assert history.window("ann") == 0
    assert history.refusal("ann") == TURN_OVER
    # and after Bob acts, Ann's step is behind another player's
    history.apply(3, "bob", GAME.legal_actions(history.state, "bob")[0])
    assert history.window("ann") == 0
    assert "Another player" in (history.refusal("ann") or "")


def test_the_stables_chain_is_taken_back_one_decision_at_a_time() -> None:
    # W-3.4: the reindeer is face up (no reveal), the Materials of choice are chosen
    state = wood_start()
    history = history_of(
        state,
        PlaceElf(station="stables"),
        TakeReindeer(stall=0),
    )
    assert history.state.phase != 0
    assert history.window("ann") == 2
    states = [history.steps[0].before, history.steps[1].before]
    for seq, expected in ((3, states[1]), (4, states[0])):
        history.apply(seq, "ann", Undo(seq=history.steps[-1].seq))
        assert history.state.model_dump() == expected.model_dump()
    assert history.window("ann") == 0


def test_a_toy_card_taken_from_the_mail_room_ends_the_window() -> None:
    # W-3.3: a card from a slot is refilled from the deck at once: a hidden card is shown
    state = wood_start()
    history = history_of(state, PlaceElf(station="mail3"))
    assert history.window("ann") == 1
    history.apply(2, "ann", TakeToy(slot=0))
    assert history.window("ann") == 0
    assert (
        history.refusal("ann")
        == "That decision drew or revealed a card, so it can't be taken back."
    )
    history.apply(3, "ann", TakeToy(slot=None))  # W-3.3: the deck top, hidden until drawn
    assert history.window("ann") == 0


def test_a_slot_card_with_nothing_to_refill_it_can_be_taken_back() -> None:
    # W-3.6: deck and sleigh empty: the slot stays empty, nothing hidden is drawn
    state = wood_start().model_copy(update={"deck": (), "sleigh": ()})
    history = history_of(state, PlaceElf(station="mail3"), TakeToy(slot=0))
    assert history.window("ann") == 2


def test_an_ornament_draw_uses_the_rng_and_ends_the_window() -> None:
    # W-3.5: the reward is drawn at random within the colour and revealed
    state = wood_start()
    history = history_of(state, PlaceElf(station="tree1"))
    assert history.window("ann") == 1
    history.apply(2, "ann", ChooseOrnament(colour="red"))
    assert history.window("ann") == 0
    assert history.refusal("ann") == CHANCE


def test_materials_of_choice_are_taken_back_singly() -> None:
    # W-3.4: each Material of choice is its own decision
    state = wood_start()
    history = history_of(state, PlaceElf(station="stables"), TakeReindeer(stall=0))
    history.apply(3, "ann", ChooseMaterial(material="wood"))
    assert history.window("ann") >= 2
    before = history.steps[-1].before
    _entry, undone, _event = history.undo_entry("ann")
    assert undone is before


def test_replaying_an_undo_that_was_not_allowed_is_refused() -> None:
    state = wood_start()
    history = history_of(state, PlaceElf(station="mail3"), TakeToy(slot=0))
    with pytest.raises(ValueError, match="not allowed"):
        history.apply(3, "ann", Undo(seq=2))
    history = history_of(state, PlaceElf(station="wood"))
    with pytest.raises(ValueError, match="latest"):
        history.apply(2, "ann", Undo(seq=7))


def test_the_took_back_line_and_the_refusals_in_german() -> None:
    """The undo's log line in German, for another player and for the reader's
    own seat ("du" forms); the refusals are templates translated by ``CannotUndo.text``."""
    from i18n import words

    german = words("de")
    history = history_of(wood_start(), PlaceElf(station="wood"))
    _, _, event = history.undo_entry("ann")
    assert describe_event(GAME, event, NAMES, german) == (
        "Aino nimmt zurück: platziert einen Wichtel in der Holzwerkstatt (1. Feld); bekommt 2 Holz."
    )
    you = {**NAMES, "ann": "You"}
    assert describe_event(GAME, event, you) == (
        "You took back: place an Elf at the Wood Shop (1st space); receive 2 Wood."
    )
    assert describe_event(GAME, event, you, german) == (
        "Du nimmst zurück: platzierst einen Wichtel in der Holzwerkstatt (1. Feld); "
        "bekommst 2 Holz."
    )
    nothing = TookBack(player="ann", seq=1, events=[])
    assert describe_event(GAME, nothing, NAMES) == "Aino took back: their last decision."
    assert (
        describe_event(GAME, nothing, NAMES, german) == "Aino nimmt die letzte Entscheidung zurück."
    )
    history.apply(2, "ann", Undo(seq=1))
    with pytest.raises(CannotUndo) as error:
        history.undo_entry("ann")
    assert error.value.text(german) == (
        "Alle bisherigen Entscheidungen sind zurückgenommen; "
        "mehr lässt sich nicht rückgängig machen."
    )
    history = history_of(wood_start(), PlaceElf(station="mail3"), TakeToy(slot=0))
    with pytest.raises(CannotUndo) as error:
        history.undo_entry("ann")
    assert str(error.value) == DREW
    assert error.value.text(german) == (
        "Bei dieser Entscheidung wurde eine Karte gezogen oder aufgedeckt, daher lässt sie sich "
        "nicht zurücknehmen."
    )
