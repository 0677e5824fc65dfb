"""The ``strong`` search itself: sequential halving (``Budget.halving``) and the Tonttu
cut-off value (``Budget.horizon``), on a toy game and on real positions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import get_game
from engine.ai import Budget, GameAI, _search, choose
from engine.ai.tonttu import potential
from engine.core import Rng
from tests.engine.ai.ai_positions import positions


@dataclass(frozen=True)
class Toy:
    """One decision: pick a number; its value is the number plus per-sample noise."""

    players: tuple[str, ...] = ("me",)
    noise: int = 0
    picked: int | None = None


class ToyGame:
    name = "toy"

    def apply(self, state: Toy, player: str, action: int) -> tuple[Toy, list[Any]]:
        return replace(state, picked=action), []

    def outcome(self, state: Toy) -> object | None:
        return None if state.picked is None else state.picked

    def to_act(self, state: Toy) -> frozenset[str]:
        return frozenset() if state.picked is not None else frozenset({"me"})

    def legal_actions(self, state: Toy, player: str) -> list[int]:
        return [] if state.picked is not None else list(range(6))


def _toy_ai(evaluated: Counter[int]) -> GameAI:
    def evaluate(state: Toy, player: str) -> float:
        assert state.picked is not None
        evaluated[state.picked] += 1
        # candidate k is worth k on average; the noise hides it in a single sample
        return state.picked + ((state.noise * 7919 + state.picked * 104729) % 1000) / 250 - 2

    def ranked(state: Toy, player: str, legal: Sequence[int]) -> list[int]:
        return list(legal)  # the heuristic knows nothing: worst first

    return GameAI(
        determinize=lambda view, rng: Toy(noise=rng.below(1000)),
        greedy=lambda state, player, legal, rng: legal[0],
        ranked=ranked,
        evaluate=evaluate,
    )


def _toy_search(halving: bool) -> tuple[int, Counter[int]]:
    evaluated: Counter[int] = Counter()
    ai = _toy_ai(evaluated)
    rng = Rng(3)
    first = ai.determinize(None, rng.fork())
    budget = Budget(actions=600, candidates=6, min_samples=1, halving=halving)
    best = _search(ToyGame(), ai, None, "me", list(range(6)), first, rng, budget)  # type: ignore[arg-type]
    return best, evaluated


def test_flat_search_tries_every_candidate_equally() -> None:
    best, evaluated = _toy_search(halving=False)
    assert best == 5
    assert set(evaluated) == set(range(6)) and len(set(evaluated.values())) == 1
    assert sum(evaluated.values()) == 600


def test_sequential_halving_spends_the_budget_on_the_best_candidates() -> None:
    best, evaluated = _toy_search(halving=True)
    assert best == 5
    assert sum(evaluated.values()) == 600  # the same budget
    # three rounds (6 → 3 → 2): the survivors are tried far more often than the dropped
    assert evaluated[5] > 2 * evaluated[0]
    assert evaluated[4] > evaluated[0] and evaluated[4] > evaluated[3] > evaluated[0]
    assert {evaluated[k] for k in (0, 1, 2)} == {evaluated[0]}


class ApplyRefused(ToyGame):
    def apply(self, state: Toy, player: str, action: int) -> tuple[Toy, list[Any]]:
        raise AssertionError("the search asked for events it never reads")


def test_the_search_applies_moves_through_the_ais_advance_when_it_has_one() -> None:
    """``GameAI.advance`` (the next state without events) replaces ``game.apply`` in the
    search, and the decision is the same."""
    advanced: Counter[int] = Counter()

    def advance(state: Toy, player: str, action: int) -> Toy:
        advanced[action] += 1
        return replace(state, picked=action)

    ai = replace(_toy_ai(Counter()), advance=advance)
    rng = Rng(3)
    first = ai.determinize(None, rng.fork())
    budget = Budget(actions=600, candidates=6, min_samples=1, halving=True)
    best = _search(ApplyRefused(), ai, None, "me", list(range(6)), first, rng, budget)  # type: ignore[arg-type]
    assert best == _toy_search(halving=True)[0] == 5
    assert set(advanced) == set(range(6)) and sum(advanced.values()) == 600


def test_halving_and_horizon_budgets_stay_deterministic_and_legal() -> None:
    budget = Budget(actions=300, candidates=4, min_samples=1, halving=True, horizon=12)
    for game_name, options in (("tonttu", {"mode": "tactical"}), ("workshop", {})):
        game = get_game(game_name)
        for state in list(positions(game, 4, 21, 9, options))[:8]:
            for player in sorted(game.to_act(state)):
                action = choose(game, state, player, "strong", 4, budget)
                assert action in game.legal_actions(state, player)
                assert choose(game, state, player, "strong", 4, budget) == action


def test_tonttu_potential_counts_score_and_what_a_workbench_can_pay() -> None:
    """T-5.1: a gift payable now is worth more in the cut-off value than the same seat
    without it; the value is never below the seat's score."""
    game = get_game("tonttu")
    seen = 0
    for state in positions(game, 4, 5, 3, {"mode": "tactical"}):
        for seat in range(4):
            assert potential(state, seat) >= state.scores[seat]
        seen += 1
    assert seen > 10
    state = next(positions(game, 4, 5, 1, {"mode": "tactical"}))
    gift = next(g for g in state.middle_gifts if g is not None)
    from engine.tonttu.data import GIFT_NEED_COUNTS, MATERIAL_TYPE

    # give seat 0 exactly the cards the gift needs, face up
    pool = [c for c in range(60) if c not in state.face_up[0] and c != state.face_down[0]]
    cards = []
    for t, count in enumerate(GIFT_NEED_COUNTS[gift]):
        cards += [c for c in pool if MATERIAL_TYPE[c] == t][:count]
    rich = state.model_copy(
        update={
            "face_up": (tuple(cards), *state.face_up[1:]),
            "face_down": (None, *state.face_down[1:]),
        }
    )
    poor = state.model_copy(
        update={"face_up": ((), *state.face_up[1:]), "face_down": (None, *state.face_down[1:])}
    )
    assert potential(rich, 0) > potential(poor, 0)


def test_potential_is_the_score_plus_the_fitted_future() -> None:
    """``potential`` applies FUTURE_WEIGHTS to exactly the features the fit uses."""
    from engine.ai.tonttu import FUTURE_WEIGHTS, future_features

    game = get_game("tonttu")
    for state in positions(game, 4, 8, 4, {"mode": "tactical"}):
        for seat in range(4):
            features = future_features(state, seat)
            future = sum(w * f for w, f in zip(FUTURE_WEIGHTS, features, strict=True))
            assert abs(potential(state, seat) - (state.scores[seat] + max(0.0, future))) < 1e-9


def test_the_fit_recovers_known_weights_and_runs_on_games() -> None:
    import io
    import json
    from contextlib import redirect_stdout

    from engine.ai import tonttu_fit

    rows = [(1.0, float(x), float(x * x % 7)) for x in range(40)]
    targets = [2.0 - 0.5 * a + 3.0 * b for _one, a, b in rows]
    weights = tonttu_fit.least_squares(rows, targets)
    assert [round(w, 6) for w in weights] == [2.0, -0.5, 3.0]
    assert tonttu_fit.r_squared(rows, targets, weights) > 0.999999
    out = io.StringIO()
    with redirect_stdout(out):
        assert tonttu_fit.main(["--games", "3"]) == 0
    figures = json.loads(out.getvalue())
    assert figures["positions"] > 100 and len(figures["weights"]) == 10
