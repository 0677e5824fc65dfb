"""A Tonttu computer seat remembers the others' revealed points (T-2.2, T-3, T-6).

A greedy seat's point depends on public facts and its own face-down workbench card
alone, so each revealed point says something about that card. The strong level's
determinizer draws the others' face-down cards by that evidence (``engine.ai.tonttu``:
``point_evidence``, ``recall``), reading only what a spectator saw.
"""

from __future__ import annotations

from collections import Counter

from engine.ai import Budget, choose, decide
from engine.ai.match import play_match
from engine.ai.tonttu import UNLIKELY, determinize, point_evidence, point_reveals, recall
from engine.core import Rng
from engine.records import replay
from engine.tonttu import GAME
from engine.tonttu.data import MATERIAL_IDS, MATERIAL_TYPE
from engine.tonttu.game import GIFT_CARDS
from engine.tonttu.models import PointGift, PointMaterial, PointsRevealed, TonttuState
from tests.engine.tonttu.test_tonttu_rules import build

GIFT = {card.name: card.id for card in GIFT_CARDS}
WOOD = MATERIAL_IDS["Wood"]


def one_gift_per_type() -> TonttuState:
    """bob has Wool face up and Wood face down; each type of face-down card would pay
    exactly one of the middle gifts (Gold pays none)."""
    return build(
        face_up=[[], ["Wool"], []],
        face_down=[None, "Wood", None],
        middle_gifts=["Woolly Socks", "Yo-Yo", "Mittens", "Knitted Cap"],
        middle_materials=["Gold", "Gold", "Gold"],
    )


def reveal(state: TonttuState) -> tuple[TonttuState, PointsRevealed]:
    """ann and cid point at materials, bob at the Yo-Yo (what his Wood pays); the table
    before bob's point and the reveal."""
    state, _ = GAME.apply(state, "ann", PointMaterial(slot=0))
    state, _ = GAME.apply(state, "cid", PointMaterial(slot=1))
    _, events = GAME.apply(state, "bob", PointGift(gift=GIFT["Yo-Yo"]))
    (revealed,) = [e for e in events if isinstance(e, PointsRevealed)]
    return state, revealed


def test_a_point_at_the_gift_only_one_type_pays_is_evidence_of_that_type() -> None:
    """T-3.2: only a Wood face-down card lets bob pay the Yo-Yo."""
    last, revealed = reveal(one_gift_per_type())
    evidence = point_evidence(GAME.view(last, None), revealed)
    assert set(evidence) == {"bob"}  # ann and cid hold no face-down card
    likes = evidence["bob"]
    assert likes[WOOD] == 1.0
    assert [v for t, v in enumerate(likes) if t != WOOD] == [UNLIKELY] * 4


def test_the_evidence_reads_only_what_a_spectator_sees() -> None:
    """T-6: the same evidence whoever looks, and whatever bob's hand holds."""
    last, revealed = reveal(one_gift_per_type())
    other_hands = last.model_copy(update={"hands": (last.hands[0], last.hands[2], last.hands[1])})
    seen = [
        point_evidence(GAME.view(state, viewer), revealed)
        for state in (last, other_hands)
        for viewer in (None, "ann", "cid")
    ]
    assert all(e == seen[0] for e in seen)


def test_every_seat_remembers_the_same_of_the_others() -> None:
    """``recall`` reads only what a spectator saw: at any point of a game, each seat's
    memory of a third seat is the same, and no seat's memory holds its own card."""
    _, record = play_match(GAME, ["greedy"] * 4, 5)
    remembered = 0
    for upto in range(0, len(record.actions), 5):
        so_far = record.model_copy(update={"actions": record.actions[:upto]})
        memories = {p: recall(GAME, so_far, p) for p in record.players}
        for player, memory in memories.items():
            assert player not in memory
            for other, likes in memory.items():
                for third, theirs in memories.items():
                    if third != other:
                        assert theirs[other] == likes
            remembered += len(memory)
    assert remembered > 20


def test_greedy_seats_points_never_rule_out_their_true_card() -> None:
    """Over whole games of greedy seats: at every tactical reveal, each seat's real
    face-down type keeps more than the floor's evidence, and the evidence rules
    something out often (it is informative)."""
    observed = ruled_out = 0
    for seed in range(6):
        _, record = play_match(GAME, ["greedy"] * 4, seed)
        for before, revealed in point_reveals(GAME, record):
            for player, likes in point_evidence(GAME.view(before, None), revealed).items():
                true_type = MATERIAL_TYPE[before.face_down[before.players.index(player)]]
                assert likes[true_type] > UNLIKELY, (seed, player, likes)
                observed += 1
                ruled_out += min(likes) == UNLIKELY
    assert observed > 50 and ruled_out > observed // 4, (observed, ruled_out)


def test_memory_makes_the_determinizer_draw_the_likely_type() -> None:
    """The sample still matches the view; bob's face-down card is drawn as Wood far more
    often with the memory than without (the other cards keep their counts)."""
    state = one_gift_per_type()
    view = GAME.view(state, "ann")
    memory = {"bob": tuple(1.0 if t == WOOD else UNLIKELY for t in range(5))}
    with_memory: Counter[int] = Counter()
    without: Counter[int] = Counter()
    for seed in range(200):
        sample = determinize(view, Rng(seed), memory)
        assert GAME.view(sample, "ann") == view
        assert len(set(c for h in sample.hands for c in h) | set(sample.deck)) == len(
            [c for h in sample.hands for c in h] + list(sample.deck)
        )
        with_memory[MATERIAL_TYPE[sample.face_down[1]]] += 1
        without[MATERIAL_TYPE[determinize(view, Rng(seed)).face_down[1]]] += 1
    assert with_memory[WOOD] > 150 > without[WOOD] * 2, (with_memory, without)


def test_memory_of_ones_own_card_or_of_a_seat_without_one_is_ignored() -> None:
    state = one_gift_per_type()
    view = GAME.view(state, "bob")
    memory = {"bob": (UNLIKELY,) * 5, "ann": (1.0,) * 5}
    for seed in range(5):
        assert determinize(view, Rng(seed), memory) == determinize(view, Rng(seed))


def test_strong_decides_the_same_with_the_record_in_the_bots_form() -> None:
    """``choose`` with a record is deterministic, and the memory it builds is what
    ``decide`` gets (the same move from the view plus the recalled memory)."""
    _, record = play_match(GAME, ["greedy"] * 4, 3)
    budget = Budget(actions=300, candidates=4, epsilon=0.0, horizon=12, halving=True)
    checked = 0
    for upto in range(20, len(record.actions), 7):
        so_far = record.model_copy(update={"actions": record.actions[:upto]})
        state = replay(GAME, so_far)
        for player in sorted(GAME.to_act(state)):
            memory = recall(GAME, so_far, player)
            move = choose(GAME, state, player, "strong", upto, budget, so_far)
            assert move == choose(GAME, state, player, "strong", upto, budget, so_far)
            view = GAME.view(state, player)
            assert move == decide(GAME, view, player, "strong", upto, budget, memory)
            checked += bool(memory)
    assert checked > 3
