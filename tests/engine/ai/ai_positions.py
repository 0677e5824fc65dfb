"""Positions for the computer-player tests: states reached by seeded random play, and
copies of a state that differ only in what one seat cannot see (W-7, T-6)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine import get_game
from engine.ai import Budget
from engine.core import Game, Rng
from engine.records import pick_random
from engine.tonttu.models import MATERIAL_POINT, TonttuState
from engine.workshop.models import WorkshopState

TONTTU = get_game("tonttu")

TINY = Budget(actions=200, candidates=2, min_samples=1)
"""A small ``strong`` budget so that tests stay fast (the search logic is the same)."""
TINY_CUT = Budget(actions=200, candidates=3, min_samples=1, horizon=10, halving=True)
"""A small budget with sequential halving and rollouts cut off and valued early."""


def positions(
    game: Game, players: int, seed: int, every: int, options: dict[str, Any] | None = None
) -> Iterator[Any]:
    """Every ``every``-th state of one seeded random game (not the final one)."""
    names = [f"s{i}" for i in range(players)]
    state = game.new_game(names, seed, game.parse_options(options))
    rng = Rng(seed)
    step = 0
    while game.outcome(state) is None:
        if step % every == 0:
            yield state
        player, action = pick_random(game, state, rng)
        state, _events = game.apply(state, player, action)
        step += 1


def hidden_variant_workshop(state: WorkshopState, viewer: str, seed: int) -> WorkshopState:
    """Re-deal what ``viewer`` cannot see: deck and sleigh order and contents (W-7.3),
    the other seats' reindeer and the reindeer deck (W-7.2), and the RNG (future
    ornament draws and reshuffles)."""
    rng = Rng(seed)
    toys = list(state.deck + state.sleigh)
    rng.shuffle(toys)
    deck, sleigh = tuple(toys[: len(state.deck)]), tuple(toys[len(state.deck) :])
    me = state.players.index(viewer)
    pool = [c for i, seat in enumerate(state.seats) if i != me for c in seat.reindeer]
    pool += list(state.reindeer_deck)
    rng.shuffle(pool)
    seats = []
    for i, seat in enumerate(state.seats):
        if i == me:
            seats.append(seat)
            continue
        count = len(seat.reindeer)
        seats.append(seat.model_copy(update={"reindeer": tuple(pool[:count])}))
        del pool[:count]
    return state.model_copy(
        update={
            "deck": deck,
            "sleigh": sleigh,
            "seats": tuple(seats),
            "reindeer_deck": tuple(pool),
            "rng": rng.next64(),
            "seed": state.seed + 1,
        }
    )


def hidden_variant_tonttu(state: TonttuState, viewer: str, seed: int) -> TonttuState:
    """Re-deal what ``viewer`` cannot see (T-6): the other hands, the other face-down
    workbench cards, the face-down middle materials, deck and discard, the gift stack,
    the other seats' pending picks/points, and the RNG. A hand the viewer held earlier
    in this deal stays (T-2.3: it knows those cards)."""
    rng = Rng(seed)
    me = state.players.index(viewer)
    n = len(state.players)
    seen = TONTTU.view(state, viewer).seats
    keep = {i for i in range(n) if i == me or seen[i].known_hand is not None}
    pool = [c for i in range(n) if i not in keep for c in state.hands[i]]
    pool += [c for i, c in enumerate(state.face_down) if i != me and c is not None]
    pool += [c for c in state.middle_materials if c is not None]
    pool += list(state.deck) + list(state.discard)
    rng.shuffle(pool)

    def deal(count: int) -> tuple[int, ...]:
        cards = tuple(pool[:count])
        del pool[:count]
        return cards

    hands = tuple(h if i in keep else deal(len(h)) for i, h in enumerate(state.hands))
    face_down = tuple(
        c if i == me or c is None else deal(1)[0] for i, c in enumerate(state.face_down)
    )
    middle = tuple(None if c is None else deal(1)[0] for c in state.middle_materials)
    deck = deal(len(state.deck))
    discard = deal(len(state.discard))
    choices: list[int | None] = list(state.choices)
    if state.phase in ("pick", "point"):
        for i, c in enumerate(choices):
            if i == me or c is None:
                continue
            if state.phase == "pick":
                choices[i] = hands[i][rng.below(len(hands[i]))]
            else:
                options = [g for g in state.middle_gifts if g is not None]
                options += [MATERIAL_POINT + k for k, m in enumerate(middle) if m is not None]
                choices[i] = options[rng.below(len(options))]
    return state.model_copy(
        update={
            "hands": hands,
            "face_down": face_down,
            "middle_materials": middle,
            "deck": deck,
            "discard": discard,
            "gift_stack": rng.shuffled(state.gift_stack),
            "choices": tuple(choices),
            "rng": rng.next64(),
            "seed": state.seed + 1,
        }
    )
