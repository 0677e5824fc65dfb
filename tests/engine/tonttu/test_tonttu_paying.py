"""T-3.2 payment helpers of ``engine.tonttu.rules`` against plain recounts.

The rules count a workbench per material type in one packed integer (can it pay?), read
offers from a per-gift table and stop paying once a gift is paid; these tests recount
the same things the slow, obvious way on many random workbenches.
"""

from __future__ import annotations

from collections import Counter

from engine.core import Rng
from engine.tonttu.data import GIFT_NEEDS, MATERIAL_NAMES, MATERIAL_TYPE, N_GIFTS, N_MATERIALS
from engine.tonttu.rules import _can_pay, _offer, _pay_exact


def workbenches(count: int) -> list[tuple[tuple[int, ...], int | None]]:
    """Random (face-up cards, face-down card or None), up to 20 face-up cards."""
    rng = Rng(2024)
    out = []
    for _ in range(count):
        cards = list(rng.shuffled(range(N_MATERIALS)))
        size = rng.below(21)
        down = cards[size] if rng.below(3) else None
        out.append((tuple(cards[:size]), down))
    return out


def types_of(cards: list[int]) -> Counter[str]:
    return Counter(MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in cards)


def test_can_pay_and_offer_match_a_recount() -> None:
    for face_up, face_down in workbenches(400):
        cards = [*face_up, *([] if face_down is None else [face_down])]
        have = types_of(cards)
        for gift in range(N_GIFTS):
            need = Counter(GIFT_NEEDS[gift])
            assert _can_pay(face_up, face_down, gift) == all(have[m] >= n for m, n in need.items())
            assert _offer(face_up, face_down, gift) == sum(have[m] for m in need)


def test_pay_exact_pays_the_first_matching_face_up_cards_then_the_face_down_one() -> None:
    paid_down = 0
    for face_up, face_down in workbenches(400):
        for gift in range(N_GIFTS):
            if not _can_pay(face_up, face_down, gift):
                continue
            keep, down, paid, shown = _pay_exact(face_up, face_down, gift)
            need = Counter(GIFT_NEEDS[gift])
            expected: list[int] = []
            for card in face_up:  # face-up cards first, in workbench order
                name = MATERIAL_NAMES[MATERIAL_TYPE[card]]
                if need[name]:
                    need[name] -= 1
                    expected.append(card)
            if +need:
                assert face_down is not None
                expected.append(face_down)
                assert (down, shown) == (None, face_down)
                paid_down += 1
            else:
                assert (down, shown) == (face_down, None)
            assert paid == expected
            assert keep == tuple(c for c in face_up if c not in expected)
            assert types_of(paid) == Counter(GIFT_NEEDS[gift])
    assert paid_down > 0
