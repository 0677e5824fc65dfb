"""Helpers for hand-made Santa's Workshop positions in tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.workshop import GAME
from engine.workshop.data import COMPONENTS as C
from engine.workshop.models import Scored, Seat, WorkshopState
from engine.workshop.rules import current_seat

PLAYERS = ("ann", "bob", "cat", "dan", "eve")


def card(name: str) -> int:
    """A toy card id by its name."""
    return C.toy_names.index(name)


def reindeer_card(name: str, copy: int = 0) -> int:
    return C.reindeer_names.index(name) * 2 + copy


def ornament(colour: str, reward_id: str) -> int:
    rewards = [r.id for r in C.rewards]
    return C.colours.index(colour) * len(rewards) + rewards.index(reward_id)


def start(players: int = 2, seed: int = 1, first: int = 0) -> WorkshopState:
    """A fresh game with the first player fixed (seat ``first``)."""
    state = GAME.new_game(PLAYERS[:players], seed, GAME.parse_options({}))
    return state.model_copy(update={"first": first})


def toy(name: str, *placed: int) -> tuple[int, int, int, int, int]:
    tokens = (*placed, 0, 0, 0, 0)[:4]
    return (card(name), *tokens)  # type: ignore[return-value]


def with_seat(state: WorkshopState, index: int, **changes: Any) -> WorkshopState:
    """Replace parts of one seat; keeps W-1.4 conservation by taking toy tokens from supply."""
    old = state.seats[index]
    seat = old.model_copy(update=changes)
    seats = list(state.seats)
    seats[index] = seat
    update: dict[str, Any] = {"seats": tuple(seats)}
    if "toys" in changes:
        supply = list(state.supply)
        for before in old.toys:
            for t in range(4):
                supply[t] += before[1 + t]
        for after in seat.toys:
            for t in range(4):
                supply[t] -= after[1 + t]
        update["supply"] = tuple(supply)
    return state.model_copy(update=update)


def play(state: WorkshopState, action: Any) -> tuple[WorkshopState, list[Any]]:
    """Apply ``action`` for whoever must act now."""
    player = state.players[current_seat(state)]
    new, events = GAME.apply(state, player, action)
    return new, list(events)


def play_all(state: WorkshopState, actions: Iterable[Any]) -> tuple[WorkshopState, list[Any]]:
    events: list[Any] = []
    for action in actions:
        state, more = play(state, action)
        events.extend(more)
    return state, events


def scored(events: Sequence[Any], reason: str | None = None) -> dict[str, int]:
    """Points per player in the Scored events (optionally of one reason)."""
    out: dict[str, int] = {}
    for e in events:
        if isinstance(e, Scored) and (reason is None or e.reason == reason):
            out[e.player] = out.get(e.player, 0) + e.points
    return out


def kinds(events: Sequence[Any]) -> list[str]:
    return [e.kind for e in events]


def token_totals(state: WorkshopState) -> list[int]:
    """Per type: supply + on unfinished toys + Donation Center (W-1.4: always 24)."""
    totals = list(state.supply)
    for seat in state.seats:
        for t_ in seat.toys:
            for t in range(4):
                totals[t] += t_[1 + t]
    for t in range(4):
        totals[t] += state.donation[t]
    return totals


def legal(state: WorkshopState) -> list[Any]:
    return list(GAME.legal_actions(state, state.players[current_seat(state)]))


__all__ = ["Seat"]
