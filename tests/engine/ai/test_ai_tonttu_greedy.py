"""The Tonttu greedy heuristic's caches change nothing (T-3.2 contest odds from public facts)."""

from __future__ import annotations

import engine.ai.tonttu as tonttu
from engine import get_game
from tests.engine.ai.ai_positions import positions


def test_seat_facts_cache_gives_the_scores_of_a_fresh_computation() -> None:
    game = get_game("tonttu")
    states = [s for s in positions(game, 4, 31, 2, {"mode": "tactical"}) if s.phase == "point"]
    # the scores with the cache warm: consecutive seats and states, as in a search
    warm = [
        [tonttu.action_scores(s, i, game.legal_actions(s, p)) for i, p in enumerate(s.players)]
        for s in states
    ]
    for state, scores in zip(states, warm, strict=True):
        for seat, player in enumerate(state.players):
            # a copy with equal but not identical tuples misses the one-entry cache
            copy = state.model_copy(
                update={
                    "face_up": tuple(list(state.face_up)),
                    "face_down": tuple(list(state.face_down)),
                    "middle_gifts": tuple(list(state.middle_gifts)),
                }
            )
            tonttu._last_facts = (None, None, None, ())
            legal = game.legal_actions(state, player)
            assert tonttu.action_scores(copy, seat, legal) == scores[seat]
            assert tonttu._last_facts[0] is copy.face_up
    assert len(states) >= 8


def test_seat_facts_are_public_facts_of_every_seat() -> None:
    game = get_game("tonttu")
    state = next(s for s in positions(game, 4, 32, 5, {"mode": "tactical"}) if s.phase == "point")
    facts = tonttu._seat_facts(state)
    assert len(facts) == 4
    gifts = [g for g in state.middle_gifts if g is not None]
    for seat, (missing, offers, has_down, affordable) in enumerate(facts):
        have = tonttu._bench(state, seat, with_down=False)  # the face-down card is secret
        assert has_down == (state.face_down[seat] is not None)
        for g in gifts:
            assert missing[g] == tonttu._missing(have, g)
            assert offers[g] == tonttu._offer(have, g)
        assert affordable == sum(1 for g in gifts if missing[g] <= int(has_down))
