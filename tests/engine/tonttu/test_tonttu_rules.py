"""Scenario tests, one or more per rule id of docs/rules.md T-1 … T-6 that has behaviour."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from engine.core import (
    TIMER,
    GameOver,
    IllegalAction,
    InvalidSetup,
    NotInGame,
    NotYourTurn,
    Rng,
)
from engine.tonttu import GAME
from engine.tonttu.data import GIFT_NAMES, MATERIAL_IDS, MATERIAL_NAMES, MATERIAL_TYPE, N_GIFTS
from engine.tonttu.game import score, winners
from engine.tonttu.models import (
    ClosePointPhase,
    GiftResult,
    MaterialResult,
    Pick,
    PointGift,
    PointMaterial,
    TonttuState,
)

P3 = ("ann", "bob", "cid")
P4 = ("ann", "bob", "cid", "dan")


# --------------------------------------------------------------------------- a table builder


class Cards:
    """Hands out distinct material card ids by type name."""

    def __init__(self) -> None:
        self.free = {
            name: [c for c in range(60) if MATERIAL_TYPE[c] == t]
            for name, t in MATERIAL_IDS.items()
        }

    def take(self, name: str) -> int:
        return self.free[name].pop(0)

    def many(self, names: Sequence[str]) -> tuple[int, ...]:
        return tuple(self.take(n) for n in names)

    def rest(self) -> tuple[int, ...]:
        return tuple(sorted(c for cards in self.free.values() for c in cards))


def gift(name: str) -> int:
    return GIFT_NAMES.index(name)


def build(
    players: Sequence[str] = P3,
    *,
    mode: str = "tactical",
    phase: str = "point",
    hands: Sequence[Sequence[str]] | None = None,
    face_up: Sequence[Sequence[str]] | None = None,
    face_down: Sequence[str | None] | None = None,
    middle_gifts: Sequence[str] | None = None,
    middle_materials: Sequence[str | None] | None = None,
    stack: Sequence[str] | None = None,
    won: Sequence[Sequence[str]] | None = None,
    deal_round: int = 1,
    rotation: str = "left",
    deck: Sequence[str] | None = None,
    discard: Sequence[str] = (),
) -> TonttuState:
    """A legal-looking table; every material not placed goes to the deck (or nowhere, if
    ``deck`` is given), so that card conservation holds unless a scenario asks otherwise."""
    n = len(players)
    cards = Cards()
    hand_size = 5 - deal_round + (1 if phase == "pick" else 0)
    default_hand = ["Wool", "Paint", "Metal", "Wool", "Paint"][:hand_size]
    hands_ = [cards.many(h) for h in (hands or [default_hand] * n)]
    up = [cards.many(b) for b in (face_up or [[]] * n)]
    down = [None if d is None else cards.take(d) for d in (face_down or [None] * n)]
    mid_names = middle_materials if middle_materials is not None else ["Gold"] * n
    mid = [None if m is None else cards.take(m) for m in mid_names]
    disc = cards.many(discard)
    deck_ = cards.many(deck) if deck is not None else cards.rest()
    gifts = [gift(g) for g in (middle_gifts or GIFT_NAMES[: n + 1])]
    won_ = [tuple(gift(g) for g in w) for w in (won or [[]] * n)]
    used = set(gifts) | {g for w in won_ for g in w}
    if stack is None:
        free = [g for g in range(N_GIFTS) if g not in used]
        stack_ = tuple(free[: 5 * n - len(used)])
    else:
        stack_ = tuple(gift(g) for g in stack)
    base = GAME.new_game(players, 1, GAME.parse_options({"mode": mode}))
    return base.model_copy(
        update={
            "phase": phase,
            "deal_round": deal_round,
            "rotation": rotation,
            "hands": tuple(hands_),
            "face_up": tuple(up),
            "face_down": tuple(down),
            "middle_gifts": tuple(gifts),
            "middle_materials": tuple(mid),
            "gift_stack": stack_,
            "won": tuple(won_),
            "scores": tuple(score(w) for w in won_),
            "deck": deck_,
            "discard": disc,
        }
    )


def names(cards: Sequence[int | None]) -> list[str | None]:
    return [None if c is None else MATERIAL_NAMES[MATERIAL_TYPE[c]] for c in cards]


def seat(state: TonttuState, player: str) -> int:
    return state.players.index(player)


def bench(state: TonttuState, player: str) -> tuple[list[str | None], str | None]:
    s = seat(state, player)
    return sorted(names(state.face_up[s]), key=str), names([state.face_down[s]])[0]


def run(state: TonttuState, moves: Sequence[tuple[str, Any]]) -> tuple[TonttuState, list[Any]]:
    events: list[Any] = []
    for player, action in moves:
        state, new = GAME.apply(state, player, action)
        events.extend(new)
    return state, events


def of_kind(events: Sequence[Any], kind: str) -> list[Any]:
    return [e for e in events if e.kind == kind]


def point_gift(name: str) -> PointGift:
    return PointGift(gift=gift(name))


# --------------------------------------------------------------------------- T-1


@pytest.mark.parametrize("count", [2, 7])
def test_t1_1_three_to_six_seats(count: int) -> None:
    with pytest.raises(InvalidSetup, match="3 to 6"):
        GAME.new_game([f"p{i}" for i in range(count)], 1, GAME.parse_options(None))


def test_t1_1_distinct_players_and_known_mode() -> None:
    with pytest.raises(InvalidSetup):
        GAME.new_game(["a", "a", "b"], 1, GAME.parse_options(None))
    with pytest.raises(InvalidSetup, match="mode"):
        GAME.parse_options({"mode": "turbo"})
    assert GAME.parse_options(None).mode == "tactical"
    assert GAME.parse_options({"mode": "speed"}).mode == "speed"


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_t1_4_setup_in_rule_order(n: int) -> None:
    players = [f"p{i}" for i in range(n)]
    state = GAME.new_game(players, 99, GAME.parse_options(None))
    rng = Rng(99)
    gifts = rng.shuffled(range(36))[: 5 * n]  # gifts are shuffled first, the rest leave
    deck = rng.shuffled(range(60))  # then the material deck
    assert state.middle_gifts == gifts[: n + 1]
    assert state.gift_stack == gifts[n + 1 :]
    for i in range(n):  # dealt one at a time in seat order, 5 each
        assert state.hands[i] == deck[i : 5 * n : n]
        assert state.face_up[i] == (deck[5 * n + 2 * i],)
        assert state.face_down[i] == deck[5 * n + 2 * i + 1]
    assert state.middle_materials == deck[7 * n : 8 * n]
    assert state.deck == deck[8 * n :]
    assert state.rotation == "left" and state.phase == "pick" and state.round == 1
    assert GAME.to_act(state) == frozenset(players)


def test_t1_4_setup_is_deterministic_per_seed() -> None:
    a = GAME.new_game(P4, 5, GAME.parse_options(None))
    assert a == GAME.new_game(P4, 5, GAME.parse_options(None))
    assert a != GAME.new_game(P4, 6, GAME.parse_options(None))


# --------------------------------------------------------------------------- T-2.1 pick


def test_t2_1_secret_pick_can_be_replaced_until_the_last_one() -> None:
    state = build(
        phase="pick",
        hands=[["Wood", "Wool"], ["Metal", "Paint"], ["Gold", "Gold"]],
        deal_round=4,
    )
    state, events = run(state, [("ann", Pick(material="Wood"))])
    assert GAME.to_act(state) == {"bob", "cid"}
    # ann has chosen, is not in to_act, but may still change her mind (T-2.1)
    assert [a.material for a in GAME.legal_actions(state, "ann")] == ["Wood", "Wool"]
    state, events = run(state, [("ann", Pick(material="Wool"))])
    assert events[0].replaced is True
    assert state.face_up == ((), (), ())  # nothing revealed yet
    state, events = run(state, [("bob", Pick(material="Paint")), ("cid", Pick(material="Gold"))])
    reveal = of_kind(events, "picks_revealed")[0]
    assert reveal.picks == {"ann": "Wool", "bob": "Paint", "cid": "Gold"}
    assert bench(state, "ann") == (["Wool"], None)
    assert names(state.hands[0]) == ["Wood"]
    assert state.phase == "point"


def test_t2_1_cannot_pick_a_card_not_in_hand() -> None:
    state = build(phase="pick", hands=[["Wood"], ["Wood"], ["Wood"]], deal_round=5)
    with pytest.raises(IllegalAction, match="no Gold"):
        GAME.apply(state, "ann", Pick(material="Gold"))
    with pytest.raises(IllegalAction, match="pick phase"):
        GAME.apply(state, "ann", PointMaterial(slot=0))
    with pytest.raises(NotInGame):
        GAME.apply(state, "zed", Pick(material="Wood"))


# --------------------------------------------------------------------------- T-2.2 point


def test_t2_2_point_at_any_middle_card_no_pass_and_replaceable() -> None:
    state = build()
    legal = GAME.legal_actions(state, "ann")
    assert {a.kind for a in legal} == {"point_gift", "point_material"}
    # players+1 gifts, players face-down materials (each face down or up, T-3.1)
    assert len(legal) == 4 + 3 * 2
    state, _ = run(state, [("ann", PointMaterial(slot=0)), ("bob", PointMaterial(slot=1))])
    assert GAME.legal_actions(state, "ann") == legal  # still open to ann (replace)
    state, events = run(state, [("ann", PointMaterial(slot=2))])
    assert events[0].replaced is True
    state, events = run(state, [("cid", PointMaterial(slot=0))])
    reveal = of_kind(events, "points_revealed")[0]
    assert {(r.slot, tuple(r.pointers)) for r in reveal.materials} == {
        (0, ("cid",)),
        (1, ("bob",)),
        (2, ("ann",)),
    }


def test_t2_2_pointing_at_a_missing_card_is_illegal() -> None:
    state = build(middle_materials=["Gold", None, "Gold"])
    with pytest.raises(IllegalAction, match="slot 2"):
        GAME.apply(state, "ann", PointMaterial(slot=1))
    absent = next(g for g in range(N_GIFTS) if g not in state.middle_gifts)
    with pytest.raises(IllegalAction, match="not in the middle"):
        GAME.apply(state, "ann", PointGift(gift=absent))


# --------------------------------------------------------------------------- T-3.1 materials


def test_t3_1_single_pointer_takes_material_face_down_when_slot_free() -> None:
    state = build(middle_materials=["Gold", "Wool", "Metal"])
    state, events = run(
        state,
        [
            ("ann", PointMaterial(slot=1)),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=0)),
        ],
    )
    assert bench(state, "ann") == ([], "Wool")
    assert bench(state, "bob") == ([], None) and bench(state, "cid") == ([], None)
    reveal = of_kind(events, "points_revealed")[0]
    taken = next(r for r in reveal.materials if r.slot == 1)
    assert taken.result == "taken" and taken.face_down and taken.material is None  # T-6
    contested = next(r for r in reveal.materials if r.slot == 0)
    assert contested.result == "contested" and contested.taker is None
    # T-2.3: the contested card stays; the taken slot is refilled face down from the deck
    assert names([state.middle_materials[0]]) == ["Gold"]
    assert state.middle_materials[1] is not None


def test_t3_1_t3_4_face_down_slot_taken_means_face_up() -> None:
    state = build(face_down=["Paint", None, None], middle_materials=["Gold", "Wool", "Metal"])
    state, events = run(
        state,
        [
            ("ann", PointMaterial(slot=1)),
            ("bob", PointMaterial(slot=2)),
            ("cid", PointMaterial(slot=0)),
        ],
    )
    assert bench(state, "ann") == (["Wool"], "Paint")  # T-3.4: still one face-down card
    taken = next(r for r in of_kind(events, "points_revealed")[0].materials if r.slot == 1)
    assert not taken.face_down and taken.material == "Wool"  # face up, so public


def test_t3_1_a_lone_pointer_may_take_the_material_face_up_instead() -> None:
    """T-3.1: with no face-down card, the pointer chooses with the point; face down is
    the default, and asking for face up puts the card face up (and makes it public)."""
    assert PointMaterial(slot=1) == PointMaterial(slot=1, face_down=True)  # the default
    state = build(middle_materials=["Gold", "Wool", "Metal"])
    state, events = run(
        state,
        [
            ("ann", PointMaterial(slot=1, face_down=False)),
            ("bob", PointMaterial(slot=2)),
            ("cid", PointMaterial(slot=0, face_down=True)),
        ],
    )
    assert bench(state, "ann") == (["Wool"], None)  # face up, the face-down place still free
    assert bench(state, "bob") == ([], "Metal") and bench(state, "cid") == ([], "Gold")
    materials = {r.slot: r for r in of_kind(events, "points_revealed")[0].materials}
    assert (materials[1].face_down, materials[1].material) == (False, "Wool")
    assert (materials[2].face_down, materials[2].material) == (True, None)  # T-6
    assert "Ann took it face up: Wool." in GAME.describe_event(
        of_kind(events, "points_revealed")[0], {"ann": "Ann"}
    )


def test_t3_1_the_choice_changes_nothing_when_a_face_down_card_is_there() -> None:
    """T-3.1, T-3.4: a pointer who already has a face-down card gets the material face
    up whatever it asked; its menu offers only the one point per material."""
    state = build(face_down=["Paint", None, None], middle_materials=["Gold", "Wool", "Metal"])
    ann = GAME.legal_actions(state, "ann")
    assert [a for a in ann if a.kind == "point_material"] == [
        PointMaterial(slot=k) for k in range(3)
    ]
    for face_down in (True, False):
        after, events = run(
            state,
            [
                ("ann", PointMaterial(slot=1, face_down=face_down)),
                ("bob", point_gift(GIFT_NAMES[state.middle_gifts[0]])),
                ("cid", point_gift(GIFT_NAMES[state.middle_gifts[0]])),
            ],
        )
        assert bench(after, "ann") == (["Wool"], "Paint")
        taken = of_kind(events, "points_revealed")[0].materials[0]
        assert (taken.face_down, taken.material) == (False, "Wool")


def test_t3_1_legal_points_offer_both_only_when_it_matters() -> None:
    state = build(face_down=["Paint", None, None], middle_materials=["Gold", None, "Metal"])
    bob = GAME.legal_actions(state, "bob")  # no face-down card: both ways, per material
    assert [a for a in bob if a.kind == "point_material"] == [
        PointMaterial(slot=0),
        PointMaterial(slot=0, face_down=False),
        PointMaterial(slot=2),
        PointMaterial(slot=2, face_down=False),
    ]
    assert [a for a in bob if a.kind == "point_gift"] == [
        a for a in GAME.legal_actions(state, "ann") if a.kind == "point_gift"
    ]
    labels = [GAME.describe_action(state, "bob", a) for a in bob if a.kind == "point_material"]
    assert labels == [
        "Point at face-down material 1: keep it face down",
        "Point at face-down material 1: take it face up",
        "Point at face-down material 3: keep it face down",
        "Point at face-down material 3: take it face up",
    ]
    assert GAME.describe_action(state, "ann", PointMaterial(slot=0)) == (
        "Point at face-down material 1: it goes face up (you already have a face-down card)"
    )
    # every offered point is accepted
    for action in bob:
        GAME.apply(state, "bob", action)


def test_t3_1_two_pointers_contest_whichever_way_they_asked() -> None:
    state = build(middle_materials=["Gold", "Wool", "Metal"])
    state, events = run(
        state,
        [
            ("ann", PointMaterial(slot=0, face_down=False)),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=2, face_down=False)),
        ],
    )
    contested, taken = of_kind(events, "points_revealed")[0].materials
    assert (contested.slot, contested.result) == (0, "contested")
    assert contested.pointers == ["ann", "bob"]
    assert bench(state, "ann") == ([], None) and bench(state, "bob") == ([], None)
    assert (taken.taker, taken.face_down, taken.material) == ("cid", False, "Metal")


def test_t3_1_the_choice_can_be_changed_before_the_reveal_and_shows_in_the_view() -> None:
    state = build(middle_materials=["Gold", "Wool", "Metal"])
    state, _ = GAME.apply(state, "ann", PointMaterial(slot=1, face_down=False))
    view = GAME.view(state, "ann")
    assert view.my_choice == "Point at face-down material 2: take it face up"
    assert GAME.view(state, "bob").my_choice is None
    state, events = GAME.apply(state, "ann", PointMaterial(slot=1))
    assert events[0].replaced is True
    assert GAME.view(state, "ann").my_choice == "Point at face-down material 2: keep it face down"
    state, _ = run(state, [("bob", PointMaterial(slot=0)), ("cid", PointMaterial(slot=2))])
    assert bench(state, "ann") == ([], "Wool")  # the replaced choice counted


def test_t3_1_t4_speed_points_take_the_choice_too() -> None:
    state = speed(face_down=[None, None, "Paint"], middle_materials=["Wool", "Metal", "Gold"])
    state, events = GAME.apply(state, "ann", PointMaterial(slot=0, face_down=False))
    assert bench(state, "ann") == (["Wool"], None)
    assert events[0].material.face_down is False and events[0].material.material == "Wool"
    state, events = GAME.apply(state, "bob", PointMaterial(slot=1))
    assert bench(state, "bob") == ([], "Metal") and events[0].material.material is None
    state, _ = GAME.apply(state, "cid", PointMaterial(slot=2, face_down=False))
    assert bench(state, "cid") == (["Gold"], "Paint")


# --------------------------------------------------------------------------- T-3.2 gifts


def test_t3_2_t3_3_single_contender_pays_exactly_face_up_first() -> None:
    state = build(
        face_up=[["Wood", "Paint", "Wool"], [], []],
        face_down=["Wood", "Metal", None],
        middle_gifts=["Rocking Horse", "Bell", "Mittens", "Scarf"],
    )
    state, events = run(
        state,
        [
            ("ann", point_gift("Rocking Horse")),  # needs Wood, Wood, Paint
            ("bob", point_gift("Rocking Horse")),  # cannot pay: ignored, loses nothing
            ("cid", PointMaterial(slot=0)),
        ],
    )
    result = of_kind(events, "points_revealed")[0].gifts[0]
    assert result.result == "won" and result.winner == "ann"
    assert result.contenders == ["ann"] and result.pointers == ["ann", "bob"]
    assert sorted(result.paid) == ["Paint", "Wood", "Wood"]
    assert result.face_down_paid == "Wood"  # T-3.3: shown because it was needed
    assert bench(state, "ann") == (["Wool"], None)
    assert bench(state, "bob") == ([], "Metal")
    assert names(state.discard) == ["Wood", "Paint", "Wood"]  # T-3.3
    assert [GIFT_NAMES[g] for g in state.won[0]] == ["Rocking Horse"]


def test_t3_2_face_down_card_kept_when_face_up_cards_suffice() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        face_down=["Metal", None, None],
        middle_gifts=["Bell", "Scarf", "Mittens", "Clogs"],
    )
    state, events = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    result = of_kind(events, "points_revealed")[0].gifts[0]
    assert result.face_down_paid is None and result.paid == ["Metal", "Metal"]
    assert bench(state, "ann") == ([], "Metal")


def test_t3_2_three_way_tie_3_3_2_nobody_gets_it_nobody_pays() -> None:
    # Spinning Top needs Wood, Paint. All three can pay; offers ann 3, bob 3, cid 2.
    players = P4
    state = build(
        players,
        face_up=[
            ["Wood", "Wood", "Paint"],
            ["Wood", "Paint", "Metal"],
            ["Wood", "Paint", "Gold"],
            [],
        ],
        face_down=[None, "Paint", "Wool", None],
        middle_gifts=["Spinning Top", "Bell", "Mittens", "Scarf", "Clogs"],
    )
    before = (state.face_up, state.face_down)
    state, events = run(
        state,
        [
            ("ann", point_gift("Spinning Top")),
            ("bob", point_gift("Spinning Top")),
            ("cid", point_gift("Spinning Top")),
            ("dan", PointMaterial(slot=0)),
        ],
    )
    result = of_kind(events, "points_revealed")[0].gifts[0]
    assert result.offers == {"ann": 3, "bob": 3, "cid": 2}
    assert result.result == "tie" and result.winner is None and result.paid == []
    assert (state.face_up[:3], state.face_down[:3]) == (before[0][:3], before[1][:3])
    assert gift("Spinning Top") in state.middle_gifts and state.won[:3] == ((), (), ())


def test_t3_2_t3_3_highest_offer_wins_and_pays_every_matching_card() -> None:
    state = build(
        face_up=[["Wood", "Wood", "Paint", "Paint", "Metal"], ["Wood", "Wood", "Paint"], []],
        face_down=["Wood", "Wool", None],
        middle_gifts=["Rocking Horse", "Bell", "Mittens", "Scarf"],
    )
    state, events = run(
        state,
        [
            ("ann", point_gift("Rocking Horse")),
            ("bob", point_gift("Rocking Horse")),
            ("cid", PointMaterial(slot=0)),
        ],
    )
    result = of_kind(events, "points_revealed")[0].gifts[0]
    assert result.offers == {"ann": 5, "bob": 3}
    assert result.winner == "ann" and sorted(result.paid) == [
        "Paint",
        "Paint",
        "Wood",
        "Wood",
        "Wood",
    ]
    assert result.face_down_paid == "Wood"
    assert bench(state, "ann") == (["Metal"], None)
    assert bench(state, "bob") == (["Paint", "Wood", "Wood"], "Wool")  # the loser pays nothing


def test_t3_2_contender_who_cannot_pay_is_ignored_in_a_contest() -> None:
    # bob has the bigger "offer" in matching cards but cannot pay the requirement.
    state = build(
        face_up=[["Wood", "Wood", "Paint"], ["Wood", "Wood", "Wood", "Wood"], []],
        middle_gifts=["Rocking Horse", "Bell", "Mittens", "Scarf"],
    )
    state, events = run(
        state,
        [
            ("ann", point_gift("Rocking Horse")),
            ("bob", point_gift("Rocking Horse")),
            ("cid", point_gift("Rocking Horse")),
        ],
    )
    result = of_kind(events, "points_revealed")[0].gifts[0]
    assert result.contenders == ["ann"] and result.offers == {} and result.winner == "ann"
    assert len(state.face_up[1]) == 4


# --------------------------------------------------------------------------- T-2.3 end of round


def _all_point_materials(state: TonttuState) -> tuple[TonttuState, list[Any]]:
    return run(state, [(p, PointMaterial(slot=0)) for p in state.players])


def test_t2_3_hands_pass_left_then_right_after_the_flip() -> None:
    hands = [["Wood"] * 3, ["Wool"] * 3, ["Metal"] * 3]
    state = build(deal_round=2, hands=hands)
    state, events = _all_point_materials(state)
    assert of_kind(events, "round_ended")[0].passed == "left"
    # left = next seat: ann's hand goes to bob, cid's hand to ann
    assert [names(h)[0] for h in state.hands] == ["Metal", "Wood", "Wool"]
    assert state.deal_round == 3 and state.phase == "pick" and state.round == 2

    flipped = build(deal_round=2, hands=hands, rotation="right")
    flipped, events = _all_point_materials(flipped)
    assert of_kind(events, "round_ended")[0].passed == "right"
    # right = previous seat: ann's hand goes to cid, bob's hand to ann
    assert [names(h)[0] for h in flipped.hands] == ["Wool", "Metal", "Wood"]


@pytest.mark.parametrize("mode", ["tactical", "speed"])
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_t2_3_t6_a_hand_the_viewer_held_this_deal_shows_in_its_view(mode: str, n: int) -> None:
    """T-2.3 passes whole hands and T-2.1 reveals every pick, so a seat knows the hand it
    held earlier in the deal wherever it is now. Checked against each seat's memory of
    the very cards (ids) it has held since the deal, over random games."""
    rng = Rng(40 + n)
    players = tuple(f"p{i}" for i in range(n))
    compared = known = 0
    for game in range(6):
        state = GAME.new_game(list(players), 900 + game, GAME.parse_options({"mode": mode}))
        held: list[set[int]] = [set() for _ in players]
        deal_start = state.round
        while state.phase != "over":
            if state.deal_round == 1 and state.round != deal_start:
                held = [set() for _ in players]
                deal_start = state.round
            for v, hand in enumerate(state.hands):
                held[v] |= set(hand)
            for v, viewer in enumerate(players):
                seats = GAME.view(state, viewer).seats
                assert seats[v].known_hand is None  # the own hand is ``view.hand``
                for j, hand in enumerate(state.hands):
                    if j == v or not hand:
                        continue
                    compared += 1
                    if set(hand) <= held[v]:
                        known += 1
                        assert seats[j].known_hand == names(hand), (viewer, j)
                    else:
                        assert seats[j].known_hand is None, (viewer, j)
            assert all(sv.known_hand is None for sv in GAME.view(state, None).seats)
            acting = sorted(GAME.to_act(state))
            player = acting[rng.below(len(acting))]
            legal = GAME.legal_actions(state, player)
            state, _ = GAME.apply(state, player, legal[rng.below(len(legal))])
    # known: up to 3 of the other hands by the 4th round of a deal
    assert compared // 10 < known < compared


def test_t2_3_after_the_fourth_round_discard_flip_and_redeal() -> None:
    state = build(deal_round=4, hands=[["Wood"], ["Wool"], ["Metal"]])
    discard_before = len(state.discard)
    state, events = _all_point_materials(state)
    end = of_kind(events, "round_ended")[0]
    assert end.passed is None and end.discarded == 3 and end.rotation == "right"
    assert end.dealt == {"ann": 5, "bob": 5, "cid": 5}
    assert state.rotation == "right" and state.deal_round == 1
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert len(state.discard) == discard_before + 3
    # next deal: the rotation card now says right
    state, events = run(
        state,
        [
            (p, Pick(material=MATERIAL_NAMES[MATERIAL_TYPE[state.hands[i][0]]]))
            for i, p in enumerate(state.players)
        ],
    )
    state, events = _all_point_materials(state)
    assert of_kind(events, "round_ended")[0].passed == "right"


def test_t2_3_refill_gifts_and_materials_in_slot_order() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        middle_gifts=["Bell", "Scarf", "Mittens", "Clogs"],
        stack=["Yo-Yo", "Sweater", "Lantern"],
    )
    state, events = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=1)),
            ("cid", PointMaterial(slot=2)),
        ],
    )
    assert state.middle_gifts[0] == gift("Yo-Yo")
    assert [GIFT_NAMES[g] for g in state.gift_stack] == ["Sweater", "Lantern"]
    assert all(m is not None for m in state.middle_materials)
    assert of_kind(events, "round_ended")[0].materials_refilled == 2
    assert state.phase == "pick"


def test_t2_3_game_ends_on_the_round_the_gift_stack_empties() -> None:
    state = build(
        face_up=[["Metal", "Metal"], ["Wool", "Paint"], []],
        middle_gifts=["Bell", "Mittens", "Scarf", "Clogs"],
        stack=["Yo-Yo"],
    )
    # bob wins too, but only one gift is left to refill: the stack still empties
    state, events = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", point_gift("Mittens")),
            ("cid", PointMaterial(slot=0)),
        ],
    )
    assert state.phase == "over" and state.gift_stack == ()
    assert state.middle_gifts[0] == gift("Yo-Yo") and state.middle_gifts[1] is None
    end = of_kind(events, "game_ended")[0]
    assert end.reason == "gift_stack_empty"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.scores == {"ann": 1, "bob": 1, "cid": 0}
    assert GAME.to_act(state) == frozenset() and GAME.legal_actions(state, "ann") == ()
    with pytest.raises(GameOver):
        GAME.apply(state, "ann", Pick(material="Wood"))


def test_t2_3_game_goes_on_while_the_stack_has_gifts() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        middle_gifts=["Bell", "Mittens", "Scarf", "Clogs"],
        stack=["Yo-Yo", "Sweater"],
    )
    state, _ = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    assert state.phase == "pick" and len(state.gift_stack) == 1


# --------------------------------------------------------------------------- T-2.4 deck


def test_t2_4_empty_deck_reshuffles_the_discard_pile() -> None:
    state = build(deck=[], discard=["Gold", "Gold"], middle_materials=["Wool", "Wool", "Wool"])
    state, events = run(
        state,
        [
            ("ann", PointMaterial(slot=0)),
            ("bob", PointMaterial(slot=1)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    end = of_kind(events, "round_ended")[0]
    assert end.reshuffled == 1 and end.materials_refilled == 1
    assert names([state.middle_materials[0]]) == ["Gold"]
    assert names(state.deck) == ["Gold"] and state.discard == ()
    assert state.rng != build().rng  # the shuffle used (and advanced) the game's RNG


def test_t2_4_both_empty_deal_what_there_is_in_seat_order() -> None:
    state = build(
        deck=["Wood", "Wool"],
        discard=["Paint", "Paint"],
        deal_round=4,
        hands=[["Gold"], ["Gold"], ["Gold"]],
        middle_materials=["Wool", "Wool", "Wool"],
    )
    # nobody takes a material (all contest slot 0): the deck is only used for the deal.
    state, events = _all_point_materials(state)
    end = of_kind(events, "round_ended")[0]
    # the 3 discarded Gold hand cards + 2 Paint make 5 cards after the deck's 2
    assert sum(end.dealt.values()) == 7
    assert end.dealt == {"ann": 3, "bob": 2, "cid": 2}
    assert state.short_deal is True and state.deck == () and state.discard == ()


def test_t2_4_empty_middle_slot_stays_empty_when_no_card_is_left() -> None:
    state = build(deck=[], discard=[], middle_materials=["Wool", "Wool", "Wool"])
    state, _ = run(
        state,
        [
            ("ann", PointMaterial(slot=0)),
            ("bob", PointMaterial(slot=1)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    assert state.middle_materials[0] is None
    assert PointMaterial(slot=0) not in GAME.legal_actions(state, "ann")


# --------------------------------------------------------------------------- T-2.5


def test_t2_5_a_player_with_an_empty_hand_skips_the_pick() -> None:
    state = build(phase="pick", hands=[["Wood", "Wool"], [], ["Metal", "Gold"]], deal_round=4)
    assert GAME.to_act(state) == {"ann", "cid"}
    assert GAME.legal_actions(state, "bob") == ()
    with pytest.raises(NotYourTurn, match="empty"):
        GAME.apply(state, "bob", Pick(material="Wood"))
    state, events = run(state, [("ann", Pick(material="Wood")), ("cid", Pick(material="Gold"))])
    reveal = of_kind(events, "picks_revealed")[0]
    assert reveal.skipped == ["bob"] and state.phase == "point"


def test_t2_5_ten_rounds_without_a_gift_end_the_game() -> None:
    state = build(deal_round=1, hands=[["Wood"] * 4] * 3).model_copy(
        update={"rounds_without_gift": 8}
    )
    state, events = _all_point_materials(state)
    assert state.rounds_without_gift == 9 and state.phase == "pick"
    for p in state.players:
        state, _ = GAME.apply(state, p, Pick(material="Wood"))
    state, events = _all_point_materials(state)
    assert state.phase == "over" and state.end_reason == "no_gift_for_10_rounds"
    assert "10 rounds" in GAME.describe_event(of_kind(events, "game_ended")[0], {})


def test_t2_5_a_gift_resets_the_count() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []], middle_gifts=["Bell", "Mittens", "Scarf", "Clogs"]
    )
    state = state.model_copy(update={"rounds_without_gift": 9})
    state, _ = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    assert state.rounds_without_gift == 0 and state.phase == "pick"


# --------------------------------------------------------------------------- T-4 speed


def speed(**kw: Any) -> TonttuState:
    return build(mode="speed", **kw)


def test_t4_first_valid_point_wins_at_once_in_apply_order() -> None:
    state = speed(
        face_up=[["Metal", "Metal"], ["Metal", "Metal"], []],
        middle_gifts=["Bell", "Mittens", "Scarf", "Clogs"],
    )
    state, events = GAME.apply(state, "bob", point_gift("Bell"))
    assert events[0].kind == "speed_point" and events[0].gift.winner == "bob"
    assert state.won[1] == (gift("Bell"),) and state.middle_gifts[0] is None
    assert state.phase == "point" and GAME.to_act(state) == {"ann", "cid"}
    with pytest.raises(IllegalAction):  # the gift is gone
        GAME.apply(state, "ann", point_gift("Bell"))
    with pytest.raises(NotYourTurn, match="already pointed"):  # one point each
        GAME.apply(state, "bob", PointMaterial(slot=0))
    assert GAME.legal_actions(state, "bob") == ()


def test_t4_wasted_point_at_an_unaffordable_gift() -> None:
    state = speed(face_up=[["Metal"], [], []], middle_gifts=["Bell", "Mittens", "Scarf", "Clogs"])
    state, events = GAME.apply(state, "ann", point_gift("Bell"))
    assert events[0].gift.result == "wasted"
    assert gift("Bell") in state.middle_gifts and bench(state, "ann") == (["Metal"], None)
    assert "ann" not in GAME.to_act(state)


def test_t4_material_goes_to_the_pointer_and_speed_pays_exactly() -> None:
    state = speed(
        face_up=[[], ["Wood", "Wood", "Paint", "Paint"], []],
        face_down=["Gold", None, None],
        middle_gifts=["Rocking Horse", "Bell", "Mittens", "Scarf"],
        middle_materials=["Wool", "Metal", "Paint"],
    )
    state, _ = GAME.apply(state, "ann", PointMaterial(slot=0))
    assert bench(state, "ann") == (["Wool"], "Gold")  # face up: the slot is taken (T-3.1)
    state, _ = GAME.apply(state, "bob", point_gift("Rocking Horse"))
    assert bench(state, "bob") == (["Paint"], None)  # exact payment, not the whole offer


def test_t4_phase_ends_when_every_player_has_pointed() -> None:
    state = speed()
    state, events = run(state, [(p, PointMaterial(slot=i)) for i, p in enumerate(state.players)])
    assert of_kind(events, "round_ended") and state.phase == "pick" and state.round == 2


def test_t4_timer_closes_the_point_phase() -> None:
    state = speed()
    assert GAME.legal_actions(state, TIMER) == (ClosePointPhase(),)
    state, _ = GAME.apply(state, "ann", PointMaterial(slot=0))
    state, events = GAME.apply(state, TIMER, ClosePointPhase())
    assert events[0].kind == "point_phase_closed" and events[0].missed == ["bob", "cid"]
    assert state.phase == "pick" and state.round == 2
    assert GAME.legal_actions(state, TIMER) == ()  # not during a pick
    with pytest.raises(IllegalAction, match="timer"):
        GAME.apply(state, TIMER, ClosePointPhase())


def test_t4_timer_has_no_say_in_tactical_mode() -> None:
    state = build()
    assert GAME.legal_actions(state, TIMER) == ()
    with pytest.raises(IllegalAction):
        GAME.apply(state, TIMER, ClosePointPhase())


# --------------------------------------------------------------------------- T-5 scoring


def test_t5_1_kth_gift_scores_k_and_outcome_shape() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        middle_gifts=["Bell", "Mittens", "Yo-Yo", "Clogs"],
        won=[["Sweater", "Scarf"], [], []],
        stack=["Lantern"],
    )
    assert state.scores[0] == 1 + 2
    state, _ = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    assert state.phase == "over"  # Lantern refilled Bell's slot: the stack is empty
    outcome = GAME.outcome(state)
    assert outcome is not None
    dumped = outcome.model_dump(mode="json")
    assert dumped["scores"] == {"ann": 6, "bob": 0, "cid": 0}  # the 3rd gift scores 3: 1+2+3
    assert dumped["winners"] == ["ann"]
    assert dumped["players"]["ann"] == {
        "gifts": [
            {"name": "Sweater", "category": "Clothing"},
            {"name": "Scarf", "category": "Clothing"},
            {"name": "Bell", "category": "Decorations"},
        ],
        "gift_points": 6,
        "set_points": 0,
    }
    assert set(dumped["players"]["bob"]) == {"gifts", "gift_points", "set_points"}


def test_t5_2_complete_sets_score_three_each() -> None:
    toys = [gift(g) for g in ["Yo-Yo", "Spinning Top"]]
    clothes = [gift(g) for g in ["Scarf", "Mittens"]]
    decos = [gift(g) for g in ["Bell", "Lantern"]]
    assert score([toys[0], clothes[0], decos[0]]) == 6 + 3
    assert score([*toys, *clothes, *decos]) == 21 + 6
    assert score([*toys, *clothes, decos[0]]) == 15 + 3


def test_t5_3_most_points_win_ties_shared() -> None:
    toys = ["Yo-Yo", "Spinning Top", "Wooden Blocks"]
    clothes = ["Scarf", "Mittens", "Sweater"]
    state = build(won=[["Yo-Yo", "Scarf", "Bell"], toys[1:], []])
    assert state.scores == (9, 3, 0)
    assert winners(state) == ["ann"]
    tied = build(won=[toys, clothes, []])
    assert tied.scores[:2] == (6, 6)
    assert winners(tied) == ["ann", "bob"]  # same points, same number of gifts: shared


def test_t5_3_more_gifts_break_a_points_tie() -> None:
    # T-5.1/T-5.2 make equal points with different gift counts rare (e.g. 3 gifts + set = 9
    # vs ...); the comparator is checked on a table whose scores are set directly.
    state = build(won=[["Yo-Yo", "Scarf", "Bell"], ["Spinning Top", "Mittens"], []])
    state = state.model_copy(update={"scores": (9, 9, 0)})
    assert winners(state) == ["ann"]


# --------------------------------------------------------------------------- T-6 secrecy


def test_t6_views_hide_hands_face_down_cards_and_pending_choices() -> None:
    state = build(
        phase="pick",
        hands=[["Gold", "Wood"], ["Wool", "Paint"], ["Metal", "Wood"]],
        face_down=["Paint", "Gold", None],
        deal_round=4,
    )
    state, _ = GAME.apply(state, "ann", Pick(material="Gold"))
    own = GAME.view(state, "ann")
    assert own.hand == ["Gold", "Wood"] and own.my_choice == "Pick Gold"
    assert own.seats[0].face_down == "Paint" and own.seats[1].face_down is None
    assert own.seats[1].has_face_down and own.seats[0].chosen and not own.seats[1].chosen
    for viewer in ("bob", "cid", None):
        other = GAME.view(state, viewer)
        assert other.seats[0].chosen and other.my_choice is None
        assert other.seats[0].face_down is None and other.seats[0].hand_size == 2
        assert other.hand != ["Gold", "Wood"]
    spectator = GAME.view(state, None)
    assert spectator.hand == [] and spectator.viewer is None
    assert all(s.face_down is None for s in spectator.seats)


def test_t6_public_events_never_name_a_face_down_card() -> None:
    state = build(middle_materials=["Gold", "Wool", "Metal"])
    state, events = run(
        state,
        [
            ("ann", PointMaterial(slot=0)),
            ("bob", PointMaterial(slot=1)),
            ("cid", PointMaterial(slot=2)),
        ],
    )
    reveal = of_kind(events, "points_revealed")[0]
    assert all(r.face_down and r.material is None for r in reveal.materials)
    line = GAME.describe_event(reveal, {"ann": "Ann"})
    assert "Face-down material 1, pointed at by Ann: Ann took it and keeps it face down" in line
    for word in ("Gold", "Wool", "Metal"):
        assert word not in line
        assert word not in reveal.model_dump_json()


# --------------------------------------------------------------------------- text


def test_describe_action_labels() -> None:
    state = build()
    assert GAME.describe_action(state, "ann", Pick(material="Wool")) == "Pick Wool"
    assert (
        GAME.describe_action(state, "ann", point_gift("Rocking Horse"))
        == "Point at Rocking Horse (needs Wood, Wood, Paint)"  # not in the middle: no hint
    )
    assert (
        GAME.describe_action(state, "ann", PointMaterial(slot=1))
        == "Point at face-down material 2: keep it face down"
    )
    assert (
        GAME.describe_action(state, "ann", PointMaterial(slot=1, face_down=False))
        == "Point at face-down material 2: take it face up"
    )


def test_render_text_shows_the_board_from_a_view() -> None:
    state = build(face_up=[["Wood"], [], []], face_down=["Gold", "Wool", None])
    text = GAME.render_text(GAME.view(state, "ann"), {"ann": "Ann", "bob": "Bob"})
    assert "Ann" in text and "Bob" in text and "1 face down [Gold]" in text
    bob_row = next(line for line in text.splitlines() if line.lstrip().startswith("Bob"))
    assert "1 face down" in bob_row and "[" not in bob_row  # T-6: only its owner sees it
    assert GIFT_NAMES[state.middle_gifts[0]] in text
    assert "Your hand" in text


def test_events_describe_and_validate() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        face_down=[None, "Paint", None],
        middle_gifts=["Bell", "Scarf", "Mittens", "Clogs"],
        middle_materials=["Wool", "Metal", "Paint"],
        stack=["Yo-Yo"],
    )
    state, events = run(
        state,
        [("ann", point_gift("Bell")), ("bob", PointMaterial(slot=0)), ("cid", point_gift("Scarf"))],
    )
    for event in events:
        assert GAME.describe_event(event, {}).strip()
        type(event).model_validate_json(event.model_dump_json())  # events are valid models
    assert isinstance(of_kind(events, "points_revealed")[0].gifts[0], GiftResult)
    assert isinstance(of_kind(events, "points_revealed")[0].materials[0], MaterialResult)


def test_game_satisfies_the_protocol_and_is_registered() -> None:
    from engine import get_game
    from engine.core import Game

    assert isinstance(GAME, Game)
    assert get_game("tonttu") is GAME
    assert (GAME.min_players, GAME.max_players) == (3, 6)


def test_parse_action_accepts_json_and_rejects_garbage() -> None:
    assert GAME.parse_action('{"kind": "pick", "material": "Gold"}') == Pick(material="Gold")
    assert GAME.parse_action({"kind": "point_material", "slot": 2}) == PointMaterial(slot=2)
    with pytest.raises(IllegalAction):
        GAME.parse_action({"kind": "pass"})
