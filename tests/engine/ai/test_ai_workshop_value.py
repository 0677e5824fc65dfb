"""The ``strong`` Santa's Workshop level's cut-off value (``Budget.horizon``): the
fitted future points of a position, and rollouts that stop and value it."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

from engine import get_game
from engine.ai import Budget, choose, game_ai, playout
from engine.ai.workshop import (
    FUTURE_WEIGHTS,
    evaluate,
    future_features,
    potential,
)
from engine.core import Rng
from engine.workshop.models import Phase
from tests.engine.ai.ai_positions import positions

GAME = get_game("workshop")


def _states(seed: int, every: int) -> list:
    return list(positions(GAME, 4, seed, every))


def test_potential_is_the_score_plus_the_fitted_future() -> None:
    """``potential`` applies FUTURE_WEIGHTS to exactly the features the fit uses,
    and is never below the seat's score."""
    seen = 0
    for state in _states(8, 7):
        for seat in range(4):
            features = future_features(state, seat)
            assert len(features) == len(FUTURE_WEIGHTS)
            future = sum(w * f for w, f in zip(FUTURE_WEIGHTS, features, strict=True))
            score = state.seats[seat].score
            assert abs(potential(state, seat) - (score + max(0.0, future))) < 1e-9
            assert potential(state, seat) >= score
        seen += 1
    assert seen > 20


def test_potential_shrinks_towards_the_score_as_the_days_pass() -> None:
    """At the start every seat expects most of its points; on the last day little is left."""
    states = _states(3, 1)
    start = states[0]
    for seat in range(4):
        assert potential(start, seat) - start.seats[seat].score > 50
    last = next(s for s in states if s.day == 6 and s.turn >= 8)
    for seat in range(4):
        ahead = potential(last, seat) - last.seats[seat].score
        assert ahead < potential(start, seat) - start.seats[seat].score - 30


def test_potential_values_progress_on_toys_and_reindeer() -> None:
    """W-4.3, W-6.1: tokens on an unfinished toy and a reindeer card raise the value."""
    state = _states(5, 1)[0]
    seat = state.seats[0]
    toy = seat.toys[0]
    fuller = (toy[0], toy[1] + 1, *toy[2:])
    more_tokens = state.model_copy(
        update={
            "seats": (seat.model_copy(update={"toys": (fuller, *seat.toys[1:])}), *state.seats[1:])
        }
    )
    assert potential(more_tokens, 0) > potential(state, 0)
    free = next(c for c in range(18) if all(c not in s.reindeer for s in state.seats))
    with_reindeer = state.model_copy(
        update={
            "seats": (
                seat.model_copy(update={"reindeer": (*seat.reindeer, free)}),
                *state.seats[1:],
            )
        }
    )
    assert potential(with_reindeer, 0) > potential(state, 0)


def test_evaluate_a_cut_off_by_potential_and_a_finished_game_by_score() -> None:
    states = _states(4, 1)
    middle = states[len(states) // 2]
    values = [potential(middle, i) for i in range(4)]
    leader = max(range(4), key=lambda i: values[i])
    assert evaluate(middle, middle.players[leader]) >= 1.0 - 1e-9
    assert all(
        evaluate(middle, p) < 1.0 for i, p in enumerate(middle.players) if values[i] < max(values)
    )
    ai = game_ai("workshop")
    end, _steps = playout(GAME, ai, middle, Rng(1), 0.1)
    assert end.phase == Phase.OVER
    winners = GAME.outcome(end).winners
    for p in end.players:
        assert (evaluate(end, p) > 0.5) == (p in winners)


def test_a_cut_off_rollout_stops_at_the_horizon_and_a_full_one_plays_on() -> None:
    ai = game_ai("workshop")
    start = _states(6, 1)[0]
    cut, steps = playout(GAME, ai, start, Rng(2), 0.1, 40)
    assert steps == 40 and cut.phase != Phase.OVER
    again, _ = playout(GAME, ai, start, Rng(2), 0.1, 40)
    assert again == cut  # the same seed, the same rollout
    end, full = playout(GAME, ai, start, Rng(2), 0.1)
    assert end.phase == Phase.OVER and full > 40


def test_the_default_workshop_budget_is_deterministic_and_legal() -> None:
    """The search with a cut-off (small budget here) returns a legal action, the same for a seed."""
    budget = Budget(actions=400, candidates=4, min_samples=1, horizon=30, halving=True)
    for state in _states(21, 23)[:6]:
        for player in sorted(GAME.to_act(state)):
            action = choose(GAME, state, player, "strong", 4, budget)
            assert action in GAME.legal_actions(state, player)
            assert choose(GAME, state, player, "strong", 4, budget) == action


def test_the_fit_runs_on_games() -> None:
    from engine.ai import workshop_fit

    out = io.StringIO()
    with redirect_stdout(out):
        assert workshop_fit.main(["--games", "2"]) == 0
    figures = json.loads(out.getvalue())
    assert figures["positions"] > 100 and len(figures["weights"]) == len(FUTURE_WEIGHTS)
