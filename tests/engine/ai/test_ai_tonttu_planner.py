"""The Tonttu planner (``plan_scores``): the ``strong`` level's own moves in its rollouts.

Each of its changes to the greedy is checked where the greedy and the planner part:
what a pick passes on to the next seat (T-2.3), what a paid gift leaves on the workbench
(T-3.2), and which rivals threaten a gift (T-3.2: a lower offer loses the contest).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import engine.ai.tonttu as tonttu
from engine import get_game
from engine.ai import playout
from engine.core import Rng
from engine.tonttu.data import GIFT_NEED_COUNTS, MATERIAL_IDS, N_GIFTS
from engine.tonttu.models import Pick, PointGift, TonttuState
from tests.engine.ai.ai_positions import positions

GAME = get_game("tonttu")
TACTICAL = {"mode": "tactical"}
GOLD = MATERIAL_IDS["Gold"]


def _cards(counts: Sequence[int]) -> tuple[int, ...]:
    """Material card ids with ``counts[t]`` cards of each type ``t``."""
    return tuple(c for t, k in enumerate(counts) for c in tonttu.CARDS_OF_TYPE[t][:k])


def _types(gift: int) -> set[int]:
    return {t for t, k in enumerate(GIFT_NEED_COUNTS[gift]) if k}


def _state(phase: str) -> TonttuState:
    state = next(s for s in positions(GAME, 4, 41, 1, TACTICAL) if s.phase == phase)
    empty: tuple[tuple[int, ...], ...] = ((),) * 4
    return state.model_copy(
        update={"face_up": empty, "face_down": (None,) * 4, "won": empty, "choices": (None,) * 4}
    )


def _pick_scores(state: TonttuState) -> dict[str, float]:
    legal = GAME.legal_actions(state, state.players[0])
    return {a.material: v for a, v in zip(legal, tonttu.plan_scores(state, 0, legal), strict=True)}


def _pick_case() -> tuple[TonttuState, tuple[int, ...]]:
    """Seat 0 picks from a hand with one Gold card and two Wood; a middle gift needs Gold,
    and a workbench one Gold short of it is returned (for the seat the hand goes to)."""
    gift = next(g for g in range(N_GIFTS) if GIFT_NEED_COUNTS[g][GOLD] == 1)
    gold = tonttu.CARDS_OF_TYPE[GOLD][0]
    wood = tonttu.CARDS_OF_TYPE[MATERIAL_IDS["Wood"]][-2:]
    state = _state("pick")
    state = state.model_copy(
        update={"hands": ((gold, *wood), *state.hands[1:]), "rotation": "left"}
    )
    middle = (gift, *(g for g in state.middle_gifts if g != gift))[: len(state.middle_gifts)]
    state = state.model_copy(update={"middle_gifts": middle})
    short = list(GIFT_NEED_COUNTS[gift])
    short[GOLD] -= 1
    return state, _cards(short)


def _with_bench(state: TonttuState, seat: int, cards: tuple[int, ...]) -> TonttuState:
    face_up = list(state.face_up)
    face_up[seat] = cards
    return state.model_copy(update={"face_up": tuple(face_up)})


def test_a_pick_counts_against_itself_what_it_passes_to_the_next_seat() -> None:
    """T-2.3: the hand left after a pick goes to the next seat by the rotation card. A
    Gold card passed on to a seat one Gold short of a middle gift lowers that pick."""
    state, short = _pick_case()
    plain = _pick_scores(state)
    needy = _pick_scores(_with_bench(state, 1, short))  # seat 1 receives the hand (left)
    # picking Wood passes the Gold on: it loses ground against picking the Gold
    assert needy["Wood"] - needy["Gold"] < plain["Wood"] - plain["Gold"]
    # the rotation decides who receives it: seat 3 when it shows right
    right = state.model_copy(update={"rotation": "right"})
    assert _pick_scores(_with_bench(right, 1, short)) == _pick_scores(right)
    needy_right, plain_right = _pick_scores(_with_bench(right, 3, short)), _pick_scores(right)
    assert needy_right["Wood"] - needy_right["Gold"] < plain_right["Wood"] - plain_right["Gold"]
    # the greedy does not look at the next seat
    legal = GAME.legal_actions(state, state.players[0])
    needy_state = _with_bench(state, 1, short)
    assert tonttu.action_scores(needy_state, 0, legal) == tonttu.action_scores(state, 0, legal)


def test_a_last_pass_of_the_deal_costs_nothing() -> None:
    """T-2.3: with two cards in hand, the one left is discarded, not passed on."""
    state, short = _pick_case()
    two = state.model_copy(update={"hands": (state.hands[0][:2], *state.hands[1:])})
    assert _pick_scores(_with_bench(two, 1, short)) == _pick_scores(two)


def _point_scores(state: TonttuState, gift: int) -> tuple[float, float]:
    """The planner's and the greedy's score of seat 0 pointing at ``gift``."""
    legal = GAME.legal_actions(state, state.players[0])
    index = legal.index(PointGift(gift=gift))
    planned = tonttu.plan_scores(state, 0, legal)[index]
    return planned, tonttu.action_scores(state, 0, legal)[index]


def _point_case() -> tuple[TonttuState, int, int]:
    """A point phase with two middle gifts of no common material, ``gift`` and ``other``."""
    gift, other = next(
        (g, h) for g in range(N_GIFTS) for h in range(N_GIFTS) if not _types(g) & _types(h)
    )
    state = _state("point")
    rest = [g for g in state.middle_gifts if g not in (gift, other)]
    middle = (gift, other, *rest)[: len(state.middle_gifts)]
    return state.model_copy(update={"middle_gifts": middle}), gift, other


def test_a_point_values_what_the_workbench_keeps_for_the_other_gifts() -> None:
    """T-3.2: a lone contender pays exactly the gift's cards; the planner also values
    what is left for the other middle gifts (here: exactly another gift)."""
    state, gift, other = _point_case()
    need = GIFT_NEED_COUNTS[gift]
    both = [a + b for a, b in zip(need, GIFT_NEED_COUNTS[other], strict=True)]
    just = _point_scores(_with_bench(state, 0, _cards(need)), gift)
    more = _point_scores(_with_bench(state, 0, _cards(both)), gift)
    assert more[0] > just[0]  # the planner: the cards kept pay the other gift
    assert more[1] == just[1]  # the greedy: the same offer, the same gift


def test_only_a_rival_offering_as_much_threatens_a_gift() -> None:
    """T-3.2: of two contenders the higher offer wins, so a rival offering less does not
    take the gift; the greedy still discounts it a little, the planner not at all."""
    state, gift, _other = _point_case()
    need = GIFT_NEED_COUNTS[gift]
    extra = [k + 1 if k else 0 for k in need]  # one more card of each needed type
    mine = _with_bench(state, 0, _cards(extra))
    alone = _point_scores(mine, gift)
    weaker = _point_scores(_with_bench(mine, 1, _cards(need)), gift)
    stronger = _point_scores(_with_bench(mine, 1, _cards([k + 1 for k in extra])), gift)
    assert weaker[0] == alone[0] and weaker[1] < alone[1]
    assert stronger[0] < alone[0] and stronger[1] < weaker[1]


def test_rollouts_play_the_planner_for_the_deciding_seat_only() -> None:
    """``GameAI.own`` moves the deciding seat in a rollout; every other seat plays greedy."""
    moved: Counter[tuple[str, str]] = Counter()

    def recorded(kind: str, policy: Any) -> Any:
        def play(state: Any, player: str, legal: Sequence[Any], rng: Rng) -> Any:
            moved[kind, player] += 1
            return policy(state, player, legal, rng)

        return play

    ai = replace(
        tonttu.AI,
        own=recorded("own", tonttu.AI.own),
        greedy=recorded("greedy", tonttu.AI.greedy),
    )
    start = GAME.new_game(["a", "b", "c", "d"], 5, GAME.parse_options(TACTICAL))
    playout(GAME, ai, start, Rng(1), 0.0, 80, me="b")
    assert moved["own", "b"] >= 10
    assert not moved["greedy", "b"]
    assert all(moved["greedy", p] >= 10 and not moved["own", p] for p in "acd")
    # without a deciding seat, everyone plays greedy
    moved.clear()
    playout(GAME, ai, start, Rng(1), 0.0, 80)
    assert not any(kind == "own" for kind, _ in moved)


def test_the_planner_picks_and_points_legally_in_real_positions() -> None:
    for state in positions(GAME, 4, 43, 3, TACTICAL):
        for seat, player in enumerate(state.players):
            legal = GAME.legal_actions(state, player)
            if len(legal) > 1:
                action = tonttu.plan_action(state, seat, legal, Rng(seat))
                assert action in legal
                if state.phase == "pick":
                    assert isinstance(action, Pick)
