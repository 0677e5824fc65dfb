"""Computer players in whole games: every decision legal, determinism, records replay."""

from __future__ import annotations

import pytest

from engine import get_game
from engine.ai import LEVELS, choose
from engine.ai.match import parse_seats, play_match
from engine.core import NotYourTurn
from engine.records import replay
from tests.engine.ai.ai_positions import TINY, positions

BUDGETS = {"workshop": TINY, "tonttu": TINY}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_workshop_random_and_greedy_play_only_legal_moves(players: int) -> None:
    game = get_game("workshop")
    for seed in range(3):
        levels = [("greedy", "random")[(seat + seed) % 2] for seat in range(players)]
        state, record = play_match(game, levels, 500 + seed, check_legal=True)
        assert game.outcome(state) is not None
        assert replay(game, record).model_dump() == state.model_dump()


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("mode", ["tactical", "speed"])
def test_tonttu_random_and_greedy_play_only_legal_moves(players: int, mode: str) -> None:
    game = get_game("tonttu")
    for seed in range(4):
        levels = [("greedy", "random")[(seat + seed) % 2] for seat in range(players)]
        state, record = play_match(game, levels, 700 + seed, {"mode": mode}, check_legal=True)
        assert game.outcome(state) is not None
        assert replay(game, record).model_dump() == state.model_dump()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game_name", "mode"), [("workshop", None), ("tonttu", "tactical"), ("tonttu", "speed")]
)
def test_strong_plays_only_legal_moves(game_name: str, mode: str | None) -> None:
    """Every level at one table, the strong seat with a small budget."""
    game = get_game(game_name)
    options = {"mode": mode} if mode else {}
    state, record = play_match(
        game, ["strong", "greedy", "random"], 31, options, budgets=BUDGETS, check_legal=True
    )
    assert game.outcome(state) is not None
    assert replay(game, record).model_dump() == state.model_dump()


@pytest.mark.parametrize(("game_name", "mode"), [("workshop", None), ("tonttu", "tactical")])
def test_games_with_computer_seats_replay_exactly(game_name: str, mode: str | None) -> None:
    """Deterministic given the seed: the same match twice gives the same record."""
    game = get_game(game_name)
    options = {"mode": mode} if mode else {}
    levels = ["strong", "greedy", "random"] if game_name == "tonttu" else ["strong", "random"]
    _a, first = play_match(game, levels, 77, options, budgets=BUDGETS)
    _b, second = play_match(game, levels, 77, options, budgets=BUDGETS)
    assert first == second
    _c, other = play_match(game, levels, 78, options, budgets=BUDGETS)
    assert other.actions != first.actions


@pytest.mark.parametrize("game_name", ["workshop", "tonttu"])
def test_choose_is_deterministic_given_the_seed(game_name: str) -> None:
    game = get_game(game_name)
    decisions = 0
    differ = 0
    for state in positions(game, 4, 12, 7):
        for player in sorted(game.to_act(state)):
            legal = game.legal_actions(state, player)
            for level in LEVELS:
                budget = TINY if level == "strong" else None
                a = choose(game, state, player, level, 5, budget)
                assert a in legal
                assert choose(game, state, player, level, 5, budget) == a
                if level == "random" and len(legal) > 2:
                    differ += any(choose(game, state, player, level, s) != a for s in range(6, 12))
                decisions += 1
    assert decisions > 20 and differ > 0


def test_choose_refuses_a_seat_with_nothing_to_do() -> None:
    game = get_game("workshop")
    state = game.new_game(["a", "b"], 3, game.parse_options({}))
    waiting = next(p for p in state.players if p not in game.to_act(state))
    with pytest.raises(NotYourTurn):
        choose(game, state, waiting, "greedy", 1)
    with pytest.raises(ValueError, match="levels are random, greedy, strong"):
        choose(game, state, state.players[0] if waiting != "a" else "b", "expert", 1)


def test_speed_seat_points_once() -> None:
    """T-4: after its point a speed seat has no choice left, so the computer has none."""
    game = get_game("tonttu")
    state = game.new_game(["a", "b", "c"], 8, game.parse_options({"mode": "speed"}))
    for player in state.players:
        state, _events = game.apply(state, player, choose(game, state, player, "greedy", 1))
    assert state.phase == "point"
    state, _events = game.apply(state, "a", choose(game, state, "a", "greedy", 2))
    with pytest.raises(NotYourTurn):
        choose(game, state, "a", "greedy", 3)


def test_parse_seats() -> None:
    assert parse_seats("strong, greedy,greedy,random") == ["strong", "greedy", "greedy", "random"]
    with pytest.raises(ValueError, match="Unknown level"):
        parse_seats("strong,clever")
    with pytest.raises(ValueError, match="one level per seat"):
        parse_seats(" , ")
