"""No public picture depends on hidden information (W-7, T-6).

Each test takes a fixed position, changes only what is hidden (another player's
reindeer names, deck orders, face-down ornament rewards; a face-down workbench card,
a secret pick, hands, face-down middle materials), and checks that the public board,
and another player's private picture, are byte-for-byte the same. The owner's own
private picture must change, so each test can fail."""

from __future__ import annotations

from typing import Any

from engine.tonttu import GAME as TONTTU
from engine.tonttu.data import MATERIAL_TYPE
from engine.workshop import GAME as WORKSHOP
from engine.workshop.data import COMPONENTS
from render import render_board, render_private
from tests.render.states import POSITIONS, names


def pictures(game: Any, state: Any, viewer: str) -> tuple[bytes, bytes]:
    table = names(len(state.players))
    return (
        render_board(game.view(state, None), table),
        render_private(game.view(state, viewer), table),
    )


def test_workshop_public_picture_ignores_reindeer_names_deck_order_and_ornament_rewards() -> None:
    _, state = POSITIONS["workshop-5p-mid"]()
    owner = next(i for i, seat in enumerate(state.seats) if seat.reindeer)
    other = state.players[(owner + 1) % len(state.players)]
    held = state.seats[owner].reindeer
    name_of = COMPONENTS.reindeer_card_name
    # W-7.2: swap a held reindeer with a deck card of another name (both unseen)
    k = next(i for i, c in enumerate(state.reindeer_deck) if name_of[c] != name_of[held[0]])
    deck = list(state.reindeer_deck)
    deck[k], swapped = held[0], deck[k]
    seats = list(state.seats)
    seats[owner] = seats[owner].model_copy(update={"reindeer": (swapped, *held[1:])})
    changed = state.model_copy(
        update={
            "seats": tuple(seats),
            "reindeer_deck": tuple(deck),
            "deck": tuple(reversed(state.deck)),  # W-7.3: deck order
            "ornaments": tuple(tuple(reversed(o)) for o in state.ornaments),  # hidden rewards
        }
    )
    assert changed != state
    board, others_view = pictures(WORKSHOP, state, other)
    assert pictures(WORKSHOP, changed, other) == (board, others_view)
    owner_id = state.players[owner]
    assert render_private(WORKSHOP.view(state, owner_id), names(5)) != render_private(
        WORKSHOP.view(changed, owner_id), names(5)
    )


def _other_type(cards: tuple[int, ...], than: int) -> int:
    return next(i for i, c in enumerate(cards) if MATERIAL_TYPE[c] != MATERIAL_TYPE[than])


def test_tonttu_public_picture_ignores_face_down_cards_secret_picks_hands_and_deck() -> None:
    _, state = POSITIONS["tonttu-6p-pick"]()
    owner = next(
        i
        for i, (pick, down) in enumerate(zip(state.choices, state.face_down, strict=True))
        if pick is not None and down is not None
    )
    other = state.players[(owner + 1) % len(state.players)]
    deck = list(state.deck)
    # T-6: the owner's face-down workbench card becomes a card of another type
    down = state.face_down[owner]
    k = _other_type(state.deck, down)
    deck[k], new_down = down, deck[k]
    face_down = list(state.face_down)
    face_down[owner] = new_down
    # T-2.1: the owner's secret pick becomes a hand card of another type
    hand = state.hands[owner]
    pick = state.choices[owner]
    choices = list(state.choices)
    choices[owner] = (
        hand[_other_type(hand, pick)] if len({MATERIAL_TYPE[c] for c in hand}) > 1 else pick
    )
    # a face-down middle material swaps with the deck's last card
    middle = list(state.middle_materials)
    slot = next(i for i, c in enumerate(middle) if c is not None)
    middle[slot], deck[-1] = deck[-1], middle[slot]
    changed = state.model_copy(
        update={
            "deck": tuple(reversed(deck)),  # and the deck order
            "face_down": tuple(face_down),
            "choices": tuple(choices),
            "middle_materials": tuple(middle),
        }
    )
    assert changed != state
    board, others_view = pictures(TONTTU, state, other)
    assert pictures(TONTTU, changed, other) == (board, others_view)
    owner_id = state.players[owner]
    assert render_private(TONTTU.view(state, owner_id), names(6)) != render_private(
        TONTTU.view(changed, owner_id), names(6)
    )
