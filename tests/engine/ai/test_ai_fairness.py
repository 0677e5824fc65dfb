"""Fair play (docs/rules.md W-7, T-6): a computer seat decides from its view only.

Two states that differ only in what the seat cannot see give the same decision
for the same seed, at every level; the determinizers sample states whose view
equals the real one.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import get_game
from engine.ai import LEVELS, choose, decide, game_ai
from engine.core import Rng
from tests.engine.ai.ai_positions import (
    TINY,
    TINY_CUT,
    hidden_variant_tonttu,
    hidden_variant_workshop,
    positions,
)

WORKSHOP = get_game("workshop")
TONTTU = get_game("tonttu")


def _variant(game_name: str, state: Any, viewer: str, seed: int) -> Any:
    if game_name == "workshop":
        return hidden_variant_workshop(state, viewer, seed)
    return hidden_variant_tonttu(state, viewer, seed)


CASES = [
    ("workshop", 3, None, 9),
    ("workshop", 5, None, 17),
    ("tonttu", 4, "tactical", 5),
    ("tonttu", 6, "tactical", 3),
    ("tonttu", 4, "speed", 4),
]


@pytest.mark.parametrize(("game_name", "players", "mode", "every"), CASES)
def test_hidden_information_does_not_change_the_decision(
    game_name: str, players: int, mode: str | None, every: int
) -> None:
    """W-7.2/W-7.3 (deck orders, others' reindeer, RNG) and T-6 (other hands, face-down
    cards, deck, others' pending picks/points): same seed, same decision."""
    game = get_game(game_name)
    options = {"mode": mode} if mode else {}
    compared = 0
    changed_hidden = 0
    for index, state in enumerate(positions(game, players, 100 + players, every, options)):
        for player in sorted(game.to_act(state)):
            other = _variant(game_name, state, player, index)
            # the variant really differs, but only in hidden parts
            changed_hidden += other != state
            assert game.view(other, player) == game.view(state, player)
            for level in LEVELS:
                if level == "strong" and index % 3:
                    continue  # keep the test fast: strong on every third position
                seed = 1000 + index
                # strong alternates between a flat search and a halving, cut-off one
                budget = TINY if index % 2 == 0 else TINY_CUT
                a = choose(game, state, player, level, seed, budget)
                b = choose(game, other, player, level, seed, budget)
                assert a == b, (level, index, player)
                compared += len(game.legal_actions(state, player)) > 1
    assert compared > 20 and changed_hidden > 10


@pytest.mark.parametrize(("game_name", "players", "mode", "every"), CASES)
def test_determinizer_samples_match_the_view(
    game_name: str, players: int, mode: str | None, every: int
) -> None:
    """``view(sample, p) == view(real, p)`` and the same legal actions, for every seat."""
    game = get_game(game_name)
    ai = game_ai(game_name)
    options = {"mode": mode} if mode else {}
    samples = 0
    differ = 0
    for index, state in enumerate(positions(game, players, 7 + players, every, options)):
        for player in state.players:
            view = game.view(state, player)
            sample = ai.determinize(view, Rng(index))
            assert game.view(sample, player) == view
            assert list(game.legal_actions(sample, player)) == list(
                game.legal_actions(state, player)
            )
            # the sample round-trips like any state
            assert game.parse_state(sample.model_dump_json()) == sample
            differ += sample.model_dump(exclude={"seed", "rng"}) != state.model_dump(
                exclude={"seed", "rng"}
            )
            samples += 1
    # hidden parts are really sampled, not copied from somewhere
    assert samples > 50 and differ > samples // 2


def test_choose_passes_only_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Structural fairness: ``choose`` hands the level code the view, never the state."""
    import engine.ai as ai_module

    seen: list[Any] = []
    real_decide = ai_module.decide

    def spy(game: Any, view: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(view)
        return real_decide(game, view, *args, **kwargs)

    monkeypatch.setattr(ai_module, "decide", spy)
    state = next(positions(TONTTU, 4, 9, 1))
    action = ai_module.choose(TONTTU, state, "s0", "greedy", 5)
    assert seen == [TONTTU.view(state, "s0")]
    assert action == decide(TONTTU, TONTTU.view(state, "s0"), "s0", "greedy", 5)


def test_determinizer_reproduces_own_pending_choice() -> None:
    """T-2.1: a seat that has picked sees its pick in its view; the sample keeps it."""
    state = TONTTU.new_game(["a", "b", "c"], 3, TONTTU.parse_options({}))
    pick = TONTTU.legal_actions(state, "a")[-1]
    state, _events = TONTTU.apply(state, "a", pick)
    view = TONTTU.view(state, "a")
    assert view.my_choice == f"Pick {pick.material}"
    sample = game_ai("tonttu").determinize(view, Rng(1))
    assert TONTTU.view(sample, "a").my_choice == view.my_choice
    assert sample.choices[1] is None and sample.choices[2] is None
