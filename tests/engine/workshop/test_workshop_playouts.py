"""Random playouts (OpenSpiel's random_sim_test): 200 seeded games per player count 2–5,
with the issue's invariants checked after every action."""

from __future__ import annotations

from collections import Counter

import pytest
from workshop_positions import PLAYERS, token_totals

from engine.core import Rng, derive_seed
from engine.records import pick_random
from engine.workshop import GAME
from engine.workshop.data import COMPONENTS as C
from engine.workshop.models import DayEnded, ElfPlaced, Inspection, Phase, Scored, WorkshopState

GAMES_PER_COUNT = 200


def check_invariants(state: WorkshopState, scores: Counter[str]) -> None:
    # W-1.4: per type, supply + on unfinished toys + Donation Center = 24
    assert token_totals(state) == [24, 24, 24, 24]
    assert all(0 <= b <= s for b, s in zip(state.batch, state.supply, strict=True))
    for player, seat in zip(state.players, state.seats, strict=True):
        assert len(seat.toys) <= 5  # W-4.2
        assert sum(1 for o in seat.tree if o >= 0) <= 6  # W-3.5
        assert seat.score == scores[player] == sum(seat.breakdown)  # W-6.3
        for toy in seat.toys:
            need = C.toy_req[toy[0]]
            assert all(0 <= toy[1 + t] <= need[t] for t in range(4))
            assert toy[1:] != need  # a filled toy completes at once (W-4.3)
    # every toy card, reindeer card and ornament is somewhere exactly once
    toys = [c for c in state.mail if c >= 0] + [*state.deck, *state.sleigh]
    for seat in state.seats:
        toys += [t[0] for t in seat.toys] + list(seat.completed)
    assert sorted(toys) == list(range(45))
    deer = [c for c in state.stalls if c >= 0] + list(state.reindeer_deck)
    deer += [c for seat in state.seats for c in seat.reindeer]
    assert sorted(deer) == list(range(18))
    ornaments = sum(len(o) for o in state.ornaments) + (state.ornament >= 0)
    ornaments += sum(1 for seat in state.seats for o in seat.tree if o >= 0)
    assert ornaments == 25


def run_game(players: int, index: int) -> None:
    seats = PLAYERS[:players]
    seed = derive_seed(players, index)
    state = GAME.new_game(seats, seed, GAME.parse_options({}))
    shadow = state
    rng = Rng(seed)
    scores: Counter[str] = Counter()
    placements: Counter[str] = Counter()
    days: list[int] = []
    inspections = 0
    steps = 0
    while GAME.outcome(state) is None:
        acting = GAME.to_act(state)
        assert len(acting) == 1
        legal = GAME.legal_actions(state, next(iter(acting)))
        assert 0 < len(legal) <= 25  # W-2.4: never stuck; fits a select menu
        player, action = pick_random(GAME, state, rng)
        state, events = GAME.apply(state, player, action)
        steps += 1
        for event in events:
            if isinstance(event, Scored):
                scores[event.player] += event.points
            elif isinstance(event, ElfPlaced):
                placements[event.player] += 1
            elif isinstance(event, DayEnded):
                days.append(event.day)
            elif isinstance(event, Inspection):
                inspections += 1
        check_invariants(state, scores)
        # JSON round-trip, and replay: the previous state rebuilt from JSON plus the
        # JSON-parsed action must give exactly the new state.
        previous = GAME.parse_state(shadow.model_dump_json())
        assert previous == shadow
        shadow, _ = GAME.apply(previous, player, GAME.parse_action(action.model_dump_json()))
        assert shadow == state
    assert steps < 2000
    assert state.phase == Phase.OVER and days == [1, 2, 3, 4, 5, 6] and inspections == 2
    assert all(placements[p] == 18 for p in seats)  # 6 days × 3 Elves
    result = GAME.outcome(state)
    assert result is not None
    assert result.scores == {p: scores[p] for p in seats}
    assert all(sum(result.players[p].breakdown.values()) == result.scores[p] for p in seats)
    assert all(len(result.players[p].cheer) == 2 for p in seats)
    assert result.winners and set(result.winners) <= set(seats)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_playouts_keep_every_invariant(players: int) -> None:
    for index in range(GAMES_PER_COUNT):
        run_game(players, index)


def test_station_menu_and_refusals_agree() -> None:
    """legal_actions' fast station checks and the refusal sentences say the same."""
    from engine.workshop.models import STATIONS, PlaceElf
    from engine.workshop.rules import current_seat, station_refusal

    compared = 0
    for index in range(30):
        seed = derive_seed(11, index)
        state = GAME.new_game(PLAYERS[: 2 + index % 4], seed, GAME.parse_options({}))
        rng = Rng(seed)
        while GAME.outcome(state) is None:
            if state.phase == Phase.STATION:
                legal = GAME.legal_actions(state, state.players[current_seat(state)])
                for i, station in enumerate(STATIONS):
                    refused = station_refusal(state, current_seat(state), i)
                    assert (PlaceElf(station=station) in legal) == (refused is None), refused
                    compared += 1
            player, action = pick_random(GAME, state, rng)
            state, _ = GAME.apply(state, player, action)
    assert compared > 10_000
