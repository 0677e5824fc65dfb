"""T-3.1 for the computer players: a lone pointer with no face-down card may take a
middle material face up or face down. The computer keeps it face down (it pays the
same, and the others cannot tell whether it completes a gift), and reads its own
pending point back from its view, whichever way it asked."""

from __future__ import annotations

from engine.ai import Budget, choose
from engine.ai.tonttu import action_scores, determinize
from engine.core import Rng
from engine.tonttu import GAME
from engine.tonttu.models import PointMaterial
from tests.engine.tonttu.test_tonttu_rules import build


def nothing_to_pay() -> object:
    """ann has no face-down card and can pay no gift: only materials make sense."""
    return build(
        face_up=[["Gold"], ["Wood"], ["Wool"]],
        face_down=[None, "Metal", None],
        middle_gifts=["Rocking Horse", "Bell", "Mittens", "Scarf"],
        middle_materials=["Wool", "Metal", "Paint"],
    )


def test_greedy_values_face_down_above_face_up() -> None:
    state = nothing_to_pay()
    legal = GAME.legal_actions(state, "ann")
    scores = dict(zip(legal, action_scores(state, 0, legal), strict=True))
    for slot in range(3):
        down, up = PointMaterial(slot=slot), PointMaterial(slot=slot, face_down=False)
        assert scores[down] > scores[up]


def test_every_level_keeps_the_material_face_down() -> None:
    state = nothing_to_pay()
    for level in ("greedy", "strong"):
        for seed in range(3):
            action = choose(GAME, state, "ann", level, seed, Budget(actions=2000, candidates=4))
            assert action.kind == "point_material" and action.face_down, (level, action)


def test_determinize_reads_a_face_up_point_back_from_the_view() -> None:
    state = nothing_to_pay()
    state, _ = GAME.apply(state, "ann", PointMaterial(slot=2, face_down=False))
    view = GAME.view(state, "ann")
    sampled = determinize(view, Rng(1))
    assert sampled.choices[0] == state.choices[0]
    assert GAME.view(sampled, "ann") == view
