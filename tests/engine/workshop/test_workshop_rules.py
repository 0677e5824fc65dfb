"""Scenario tests, one group per rule id of docs/rules.md W-1 … W-6 (W-7: test_workshop_view.py,
W-8: test_workshop_data.py). Positions are hand-made from a fresh game."""

from __future__ import annotations

import pytest
from workshop_positions import (
    card,
    kinds,
    legal,
    ornament,
    play,
    play_all,
    reindeer_card,
    scored,
    start,
    token_totals,
    toy,
    with_seat,
)

from engine.core import TIMER, GameOver, IllegalAction, InvalidSetup, NotInGame, NotYourTurn, Rng
from engine.workshop import GAME
from engine.workshop.data import COMPONENTS as C
from engine.workshop.models import (
    ChooseMaterial,
    ChooseOrnament,
    CoverSpace,
    DonateTokens,
    Phase,
    PlaceElf,
    PlaceTokens,
    StopTaking,
    TakeDonated,
    TakeReindeer,
    TakeToy,
    TokensReceived,
    WorkshopState,
)
from engine.workshop.rules import current_seat, reindeer_points

WOOD_ONLY_NEED = ("Wooden Blocks", 0, 0, 0, 1)  # needs 2 Wood, nothing else


def no_toys(state: WorkshopState, *seats: int) -> WorkshopState:
    for i in seats:
        state = with_seat(state, i, toys=())
    return state


def last_placement_of_day(state: WorkshopState, day: int) -> WorkshopState:
    """The position just before the day's last Elf; that player holds no toys."""
    n = len(state.players)
    state = state.model_copy(update={"day": day, "turn": 3 * n - 1})
    return no_toys(state, current_seat(state))


def finish_day(state: WorkshopState) -> tuple[WorkshopState, list[object]]:
    """Place the day's last Elf in the Wood Shop (its tokens are donated automatically)."""
    assert state.turn == 3 * len(state.players) - 1
    return play(state, PlaceElf(station="wood"))


# --------------------------------------------------------------------------- W-1


@pytest.mark.parametrize("count", [0, 1, 6])
def test_w1_1_two_to_five_seats(count: int) -> None:
    with pytest.raises(InvalidSetup, match="2 to 5 players"):
        GAME.new_game([f"p{i}" for i in range(count)], 1, GAME.parse_options({}))


def test_w1_1_a_player_takes_one_seat() -> None:
    with pytest.raises(InvalidSetup, match="one seat"):
        GAME.new_game(["a", "a"], 1, GAME.parse_options({}))


def test_options_are_rejected_with_a_sentence() -> None:
    with pytest.raises(InvalidSetup, match="no options"):
        GAME.parse_options({"mode": "speed"})


def test_w1_2_first_player_drawn_from_the_seed() -> None:
    firsts = {
        GAME.new_game(["a", "b", "c", "d"], seed, GAME.parse_options({})).first
        for seed in range(60)
    }
    assert firsts == {0, 1, 2, 3}
    again = GAME.new_game(["a", "b", "c"], 77, GAME.parse_options({}))
    assert again == GAME.new_game(["a", "b", "c"], 77, GAME.parse_options({}))


def test_w1_3_setup_order_and_counts() -> None:
    players = ["a", "b", "c"]
    state = GAME.new_game(players, 2024, GAME.parse_options({}))
    # Re-deal by hand in the W-1.3 order: toy deck, 6 slots, reindeer, 3 stalls, 2 toys each.
    rng = Rng(2024)
    assert state.first == rng.below(3)
    deck = list(rng.shuffled(range(45)))
    slots = [deck.pop() for _ in range(6)]
    reindeer = rng.shuffled(range(18))
    assert list(state.mail) == slots
    assert state.stalls == reindeer[:3]
    assert state.reindeer_deck == reindeer[3:]
    for seat in state.seats:
        assert [t[0] for t in seat.toys] == [deck.pop(), deck.pop()]
        assert all(t[1:] == (0, 0, 0, 0) for t in seat.toys)
    assert list(state.deck) == deck
    assert len(state.deck) == 45 - 6 - 2 * 3
    assert sum(len(o) for o in state.ornaments) == 25
    assert state.supply == (24, 24, 24, 24) and state.donation == (0, 0, 0, 0)


def test_w1_4_short_supply_gives_what_is_left_and_says_so() -> None:
    state = start()
    state = state.model_copy(update={"supply": (1, 24, 24, 24), "donation": (23, 0, 0, 0)})
    state = with_seat(state, 0, toys=(toy("Wooden Blocks"),))
    state, events = play(state, PlaceElf(station="wood"))
    received = [e for e in events if isinstance(e, TokensReceived)]
    assert [(e.count, e.short) for e in received] == [(1, 1)]
    assert "supply ran out" in GAME.describe_event(received[0], {"ann": "Ann"})
    assert state.batch == (1, 0, 0, 0)
    assert token_totals(state) == [24, 24, 24, 24]


# --------------------------------------------------------------------------- W-2


def test_w2_1_six_days_from_december_19() -> None:
    state = start()
    assert GAME.view(state, None).date == "December 19"
    state, events = finish_day(last_placement_of_day(state, 1))
    assert "day_ended" in kinds(events)
    assert state.day == 2 and GAME.view(state, None).date == "December 20"
    assert GAME.view(state.model_copy(update={"day": 6}), None).date == "December 24"


def test_w2_2_clockwise_from_the_first_player_three_elves_each() -> None:
    state = start(players=3, first=1)
    placed: list[str] = []
    while state.day == 1:
        if state.phase == Phase.STATION:
            placed.append(state.players[current_seat(state)])
            view = GAME.view(state, None)
            expected = 3 - placed.count(placed[-1]) + 1
            assert next(p for p in view.players if p.player == placed[-1]).elves_left == expected
        state, _ = play(state, legal(state)[0])
    assert placed == ["bob", "cat", "ann"] * 3


def test_w2_3_end_of_day_order() -> None:
    state = start(players=3, first=2)
    a, b = reindeer_card("Dasher"), reindeer_card("Comet")
    deck = tuple(reindeer_card(n) for n in ("Vixen", "Cupid", "Donner", "Velvet"))
    state = state.model_copy(update={"stalls": (a, -1, b), "reindeer_deck": deck})
    state = last_placement_of_day(state, 1)
    state, events = finish_day(state)
    assert state.spaces == ((),) * 10  # Elves return
    # remaining stall reindeer to the bottom in stall order, then 3 new from the top
    assert state.stalls == deck[:3]
    assert state.reindeer_deck == (deck[3], a, b)
    assert state.first == 0  # marker passes clockwise, wrapping
    assert state.day == 2 and state.turn == 0 and state.phase == Phase.STATION
    assert "inspection" not in kinds(events)


def test_w2_3_short_reindeer_deck_leaves_stalls_empty() -> None:
    state = start()
    state = state.model_copy(update={"stalls": (-1, -1, -1), "reindeer_deck": (4,)})
    state, _ = finish_day(last_placement_of_day(state, 2))
    assert state.stalls == (4, -1, -1) and state.reindeer_deck == ()


def test_w2_4_a_legal_placement_always_exists_and_no_pass() -> None:
    state = start(players=5)
    full = ((0, 1, 2, 3),) * 3 + ((4, 0),)
    state = state.model_copy(
        update={
            "turn": 14,
            "spaces": (*full, (), (), (), (), (), ()),
            "stalls": (-1, -1, -1),
            "ornaments": ((),) * 5,
        }
    )
    seat = current_seat(state)
    names = ("Kite", "Yo-Yo", "Rag Doll", "Sled", "Toy Train")
    state = with_seat(state, seat, toys=tuple(toy(n) for n in names))
    assert legal(state) == [PlaceElf(station="assembly")]


# --------------------------------------------------------------------------- W-3


def test_w3_shops_fill_in_order_giving_2_to_5() -> None:
    state = no_toys(start(), 0, 1)
    counts = []
    for _ in range(4):
        state, events = play(state, PlaceElf(station="metal"))
        counts += [e.count for e in events if isinstance(e, TokensReceived)]
    assert counts == [2, 3, 4, 5]
    assert state.spaces[1] == (0, 1, 0, 1)
    with pytest.raises(IllegalAction, match=r"The Metal Shop is full today\."):
        play(state, PlaceElf(station="metal"))


def test_w3_1_cooperation_bonus_before_the_placer_collects() -> None:
    state = start(players=3, first=2)
    state = state.model_copy(update={"spaces": ((0, 1, 0), *((),) * 9)})
    state = no_toys(state, 2)
    state, events = play(state, PlaceElf(station="wood"))  # cat joins: ann 2, bob 1
    assert scored(events, "cooperation") == {"ann": 2, "bob": 1}
    first_receive = kinds(events).index("tokens_received")
    assert all(
        i < first_receive
        for i, k in enumerate(kinds(events))
        if k == "scored" and events[i].reason == "cooperation"
    )  # type: ignore[attr-defined]
    assert state.seats[0].breakdown[1] == 2


def test_w3_1_own_elves_count_and_label_says_so() -> None:
    state = start(players=2, first=0)
    state = state.model_copy(update={"spaces": ((), (), (), (0, 1, 0), *((),) * 6)})
    label = GAME.describe_action(state, "ann", PlaceElf(station="assembly"), {"ann": "Ann"})
    assert (
        label
        == "Assembly Hall, 4th space: 5 Assembly (+2 cooperation to Ann, +1 cooperation to bob)"
    )
    state = no_toys(state, 0)
    _, events = play(state, PlaceElf(station="assembly"))
    assert scored(events, "cooperation") == {"ann": 2, "bob": 1}


def test_w3_1_no_cooperation_in_the_stables() -> None:
    state = start().model_copy(update={"spaces": ((), (), (), (), (), (), (), (1,), (), ())})
    _, events = play(state, PlaceElf(station="stables"))
    assert scored(events) == {}


def test_w3_2_donation_center_needs_a_fitting_token() -> None:
    state = start().model_copy(update={"supply": (24, 21, 24, 24), "donation": (0, 3, 0, 0)})
    state = with_seat(state, 0, toys=(toy("Wooden Blocks"),))
    assert PlaceElf(station="donation") not in legal(state)
    with pytest.raises(IllegalAction, match="No token in the Donation Center fits"):
        play(state, PlaceElf(station="donation"))
    state = with_seat(state, 0, toys=(toy("Wooden Blocks"), toy("Tin Soldier", 0, 1, 0, 0)))
    state, _ = play(state, PlaceElf(station="donation"))
    tin = card("Tin Soldier")
    assert legal(state) == [TakeDonated(material="metal", toy=tin)]  # no stop before a take
    state, events = play(state, TakeDonated(material="metal", toy=tin))
    assert scored(events) == {}  # taking scores nothing
    # the toy needs no more Metal: the visit ends by itself, never more than needed
    assert state.phase == Phase.STATION and current_seat(state) == 1
    assert state.donation == (0, 2, 0, 0)
    assert state.seats[0].toys[1] == toy("Tin Soldier", 0, 2, 0, 0)
    assert token_totals(state) == [24, 24, 24, 24]


def test_w3_2_donation_center_stop_after_first() -> None:
    state = start().model_copy(update={"supply": (22, 24, 24, 24), "donation": (2, 0, 0, 0)})
    state = with_seat(state, 0, toys=(toy("Toy Castle"),))
    state, _ = play(state, PlaceElf(station="donation"))
    state, _ = play(state, TakeDonated(material="wood", toy=card("Toy Castle")))
    assert StopTaking() in legal(state)
    state, _ = play(state, StopTaking())
    assert state.donation == (1, 0, 0, 0) and current_seat(state) == 1


def test_w3_3_mail_room_one_card_at_a_time_with_refill_and_stop() -> None:
    state = start()
    top = state.deck[-1]
    slot_card = state.mail[2]
    state, _ = play(state, PlaceElf(station="mail2"))
    assert StopTaking() not in legal(state)
    state, _ = play(state, TakeToy(slot=2))
    assert state.mail[2] == top  # refilled at once from the deck
    assert state.seats[0].toys[-1] == (slot_card, 0, 0, 0, 0)
    assert StopTaking() in legal(state)
    state, _ = play(state, TakeToy(slot=None))
    assert len(state.seats[0].toys) == 4
    assert state.phase == Phase.STATION and current_seat(state) == 1  # limit 2 reached
    assert PlaceElf(station="mail2") not in legal(state)  # one Elf per Mail Room station
    state, _ = play(state, PlaceElf(station="mail3"))
    state, _ = play(state, TakeToy(slot=0))
    state, _ = play(state, StopTaking())
    assert len(state.seats[1].toys) == 3 and current_seat(state) == 0


def test_w3_3_never_past_five_unfinished() -> None:
    state = start()
    four = tuple(toy(n) for n in ("Kite", "Yo-Yo", "Rag Doll", "Sled"))
    state = with_seat(state, 0, toys=four)
    state, _ = play(state, PlaceElf(station="mail3"))
    state, _ = play(state, TakeToy(slot=0))
    assert state.phase == Phase.STATION and len(state.seats[0].toys) == 5
    state = state.model_copy(update={"turn": 2, "spaces": ((),) * 10})
    with pytest.raises(IllegalAction, match=r"You already hold 5 unfinished toys\."):
        play(state, PlaceElf(station="mail2"))


def test_w3_3_no_card_to_take() -> None:
    state = start().model_copy(update={"mail": (-1,) * 6, "deck": (), "sleigh": ()})
    with pytest.raises(IllegalAction, match="no toy card left"):
        play(state, PlaceElf(station="mail3"))


def test_w3_4_stables_reindeer_then_materials_of_choice() -> None:
    state = start(players=2)
    stall = state.stalls[1]
    state = with_seat(state, 1, toys=())
    state = state.model_copy(update={"spaces": (*((),) * 7, (1,), (), ())})
    state, _ = play(state, PlaceElf(station="stables"))  # 2nd space: 2 materials
    assert state.phase == Phase.REINDEER
    state, events = play(state, TakeReindeer(stall=1))
    assert state.stalls[1] == -1  # not refilled until end of day
    assert state.seats[0].reindeer == (stall,)
    assert all(C.reindeer_names[0] not in GAME.describe_event(e, {}) for e in events)
    assert legal(state) == [ChooseMaterial(material=m) for m in ("wood", "metal", "fabric")]
    state, _ = play(state, ChooseMaterial(material="wood"))
    state, _ = play(state, ChooseMaterial(material="fabric"))
    assert state.phase == Phase.PLACE and state.batch == (1, 0, 1, 0)


def test_w3_4_stables_order_and_empty_stalls() -> None:
    state = start()
    state = state.model_copy(update={"spaces": (*((),) * 7, (1, 0, 1), (), ())})
    with pytest.raises(IllegalAction, match="Stables is full"):
        play(state, PlaceElf(station="stables"))
    state = start().model_copy(update={"stalls": (-1, -1, -1)})
    with pytest.raises(IllegalAction, match="No reindeer"):
        play(state, PlaceElf(station="stables"))


def only(colour: str, reward: str) -> tuple[tuple[int, ...], ...]:
    """Ornament supply with one face-down ornament: ``reward`` in ``colour``."""
    rid = [r.id for r in C.rewards].index(reward)
    return tuple((rid,) if c == colour else () for c in C.colours)


def test_w3_5_tree_reward_then_space_reward() -> None:
    state = start().model_copy(update={"ornaments": only("red", "points3")})
    state, _ = play(state, PlaceElf(station="tree1"))
    assert legal(state) == [ChooseOrnament(colour="red")]
    state, events = play(state, ChooseOrnament(colour="red"))
    assert scored(events, "ornament") == {"ann": 3}
    assert state.phase == Phase.SPACE and len(legal(state)) == 6
    state, events = play(state, CoverSpace(space="star"))
    assert scored(events, "tree") == {"ann": 3}
    assert state.seats[0].tree[0] == ornament("red", "points3")
    assert current_seat(state) == 1


def test_w3_5_covered_material_space_gives_a_token() -> None:
    state = start().model_copy(update={"ornaments": only("blue", "assembly2")})
    state = with_seat(state, 0, toys=(toy("Toy Castle"),))
    state, _ = play(state, PlaceElf(station="tree2"))
    state, _ = play(state, ChooseOrnament(colour="blue"))
    assert state.batch == (0, 0, 0, 2) and state.phase == Phase.PLACE
    state, _ = play(state, PlaceTokens(material="assembly", toy=card("Toy Castle"), count=2))
    state, _ = play(state, CoverSpace(space="wood"))
    assert state.batch == (1, 0, 0, 0)
    state, _ = play(state, PlaceTokens(material="wood", toy=card("Toy Castle"), count=1))
    assert state.seats[0].toys == (toy("Toy Castle", 1, 0, 0, 2),)


def test_w3_5_draw_within_a_colour_is_random_and_hidden_until_taken() -> None:
    rewards = set()
    for rng in range(12):
        state = start().model_copy(update={"rng": rng})
        state, _ = play(state, PlaceElf(station="tree1"))
        state, _ = play(state, ChooseOrnament(colour="gold"))
        assert state.ornament // 5 == C.colours.index("gold")
        assert len(state.ornaments[1]) == 4 and state.ornament % 5 not in state.ornaments[1]
        rewards.add(state.ornament % 5)
    assert len(rewards) >= 3


def test_w3_5_toy_reward_and_choice_rewards() -> None:
    state = start().model_copy(update={"ornaments": only("green", "toy1")})
    state, _ = play(state, PlaceElf(station="tree1"))
    state, _ = play(state, ChooseOrnament(colour="green"))
    assert state.phase == Phase.MAIL and StopTaking() not in legal(state)
    state, _ = play(state, TakeToy(slot=None))
    assert len(state.seats[0].toys) == 3 and state.phase == Phase.SPACE  # limit of 1
    # with 5 unfinished the toy reward gives nothing
    five = tuple(toy(n) for n in ("Kite", "Yo-Yo", "Rag Doll", "Sled", "Toy Train"))
    state = with_seat(start(), 0, toys=five).model_copy(update={"ornaments": only("red", "toy1")})
    state, _ = play_all(state, [PlaceElf(station="tree1"), ChooseOrnament(colour="red")])
    assert state.phase == Phase.SPACE and len(state.seats[0].toys) == 5
    # 1 Material of choice + 1 point
    state = start().model_copy(update={"ornaments": only("silver", "choice1_point1")})
    state, events = play_all(state, [PlaceElf(station="tree1"), ChooseOrnament(colour="silver")])
    assert scored(events, "ornament") == {"ann": 1} and state.to_choose == 1
    # 2 Materials of choice
    state = start().model_copy(update={"ornaments": only("gold", "choice2")})
    state, _ = play_all(state, [PlaceElf(station="tree1"), ChooseOrnament(colour="gold")])
    assert state.phase == Phase.CHOOSE and state.to_choose == 2


def test_w3_5_full_tree_and_both_stations_in_a_day() -> None:
    state = start(players=2)
    state = with_seat(state, 0, tree=(0, 1, 2, 3, 4, -1))
    state = state.model_copy(update={"ornaments": only("blue", "points3")})
    state, _ = play_all(state, [PlaceElf(station="tree1"), ChooseOrnament(colour="blue")])
    assert legal(state) == [CoverSpace(space="assembly")]
    state, _ = play(state, legal(state)[0])
    while current_seat(state) == 0:  # the covered space's Assembly: donate it
        state, _ = play(state, legal(state)[-1])
    state, _ = play(state, PlaceElf(station="wood"))  # bob; then ann again the same day
    while current_seat(state) == 1:
        state, _ = play(state, legal(state)[-1])
    assert state.seats[0].tree[5] >= 0 and state.phase == Phase.STATION
    with pytest.raises(IllegalAction, match="6 ornaments"):
        play(state, PlaceElf(station="tree2"))
    state = with_seat(state, 0, tree=(0, 1, 2, -1, -1, -1))
    state = state.model_copy(update={"ornaments": start().ornaments})
    assert PlaceElf(station="tree2") in legal(state)  # second tree station, same day
    state = state.model_copy(update={"ornaments": ((),) * 5})
    with pytest.raises(IllegalAction, match="No ornament is left"):
        play(state, PlaceElf(station="tree2"))


def test_w3_6_empty_deck_reshuffles_the_sleigh() -> None:
    sleigh = (card("Kite"), card("Sled"), card("Bicycle"))
    state = start().model_copy(update={"deck": (), "sleigh": sleigh})
    state, _ = play(state, PlaceElf(station="mail2"))
    state, events = play(state, TakeToy(slot=None))
    assert "deck_reshuffled" in kinds(events)
    assert state.sleigh == () and len(state.deck) == 2
    assert sorted([*state.deck, state.seats[0].toys[-1][0]]) == sorted(sleigh)
    # deck and sleigh empty: a taken slot stays empty
    state = state.model_copy(update={"deck": ()})
    state, _ = play(state, TakeToy(slot=4))
    assert state.mail[4] == -1


# --------------------------------------------------------------------------- W-4


def test_w4_1_place_some_donate_the_rest() -> None:
    state = with_seat(start(), 0, toys=(toy("Wooden Blocks"),))
    state, _ = play(state, PlaceElf(station="wood"))  # 2 Wood
    blocks = card("Wooden Blocks")
    assert legal(state) == [
        PlaceTokens(material="wood", toy=blocks, count=1),
        PlaceTokens(material="wood", toy=blocks, count=2),
        DonateTokens(material="wood", count=2),
    ]
    state, _ = play(state, PlaceTokens(material="wood", toy=blocks, count=1))
    assert legal(state)[-1] == DonateTokens(material="wood", count=1)
    state, events = play(state, DonateTokens(material="wood", count=1))  # even though it fits
    assert scored(events, "donation") == {"ann": 1}
    assert state.donation == (1, 0, 0, 0) and token_totals(state) == [24] * 4


def test_w4_1_tokens_no_toy_needs_are_donated_at_once() -> None:
    state = with_seat(start(), 0, toys=(toy("Rag Doll"),))
    state, events = play(state, PlaceElf(station="wood"))
    assert scored(events, "donation") == {"ann": 2}
    assert state.phase == Phase.STATION and state.donation == (2, 0, 0, 0)


def test_w4_1_bad_placements_are_refused() -> None:
    state = with_seat(start(), 0, toys=(toy("Wooden Blocks"),))
    state, _ = play(state, PlaceElf(station="wood"))
    with pytest.raises(IllegalAction, match="cannot take"):
        play(state, PlaceTokens(material="wood", toy=card("Wooden Blocks"), count=3))
    with pytest.raises(IllegalAction, match="place or donate"):
        play(state, PlaceElf(station="metal"))


def test_w4_3_completion_scores_returns_tokens_and_frees_a_slot() -> None:
    names = ("Kite", "Yo-Yo", "Rag Doll", "Sled")
    state = with_seat(start(), 0, toys=(toy("Wooden Blocks", 1, 0, 0, 1), *map(toy, names)))
    assert state.supply == (23, 24, 24, 23)
    state, events = play(state, PlaceElf(station="wood"))
    state, events = play(state, PlaceTokens(material="wood", toy=card("Wooden Blocks"), count=1))
    assert "toy_completed" in kinds(events)
    assert scored(events, "toy") == {"ann": 4}
    assert state.seats[0].completed == (card("Wooden Blocks"),)
    assert len(state.seats[0].toys) == 4
    assert token_totals(state) == [24] * 4
    assert state.phase == Phase.PLACE  # 1 Wood left: Kite/Sled still need Wood


def test_w4_2_five_unfinished_limit_and_completed_toys_do_not_count() -> None:
    names = ("Kite", "Yo-Yo", "Rag Doll", "Sled")
    state = with_seat(start(), 0, toys=(toy("Wooden Blocks", 1, 0, 0, 1), *map(toy, names)))
    stations = {a.station for a in legal(state) if isinstance(a, PlaceElf)}
    assert not stations & {"mail2", "mail3"}
    # no action of any decision discards a toy
    assert all(a.kind != "discard" for a in legal(state))
    state, _ = play(state, PlaceElf(station="wood"))
    state, _ = play(state, PlaceTokens(material="wood", toy=card("Wooden Blocks"), count=1))
    state, _ = play(state, DonateTokens(material="wood", count=1))
    state, _ = play(state, PlaceElf(station="fabric"))  # bob
    while current_seat(state) == 1:
        state, _ = play(state, legal(state)[-1])
    assert len(state.seats[0].toys) == 4 and len(state.seats[0].completed) == 1
    assert PlaceElf(station="mail3") in legal(state)


# --------------------------------------------------------------------------- W-5


@pytest.mark.parametrize(
    ("cheer", "points"),
    [
        ((4, 4, 2, 1, 0), (8, 8, 4, 2, 1)),
        ((3, 2, 2, 1, 0), (8, 4, 4, 2, 1)),
        ((5, 4, 3, 2, 1), (8, 4, 2, 1, 0)),
        ((0, 0, 0, 0, 0), (8, 8, 8, 8, 8)),
    ],
)
def test_w5_dense_ranking(cheer: tuple[int, ...], points: tuple[int, ...]) -> None:
    state = start(players=5)
    for i, c in enumerate(cheer):
        ornaments = min(c, 2)
        tree = tuple(range(ornaments)) + (-1,) * (6 - ornaments)
        state = with_seat(
            state, i, tree=tree, completed=tuple(range(10 * i, 10 * i + c - ornaments))
        )
    state = state.model_copy(update={"sleigh": ()})
    state, events = finish_day(last_placement_of_day(state, 3))
    got = scored(events, "inspection")
    assert [got.get(p, 0) for p in state.players] == list(points)
    # W-5.3: completed toys go to the sleigh; Cheer is kept for the outcome
    assert all(seat.completed == () for seat in state.seats)
    assert len(state.sleigh) == sum(cheer) - sum(min(c, 2) for c in cheer)
    assert [seat.cheer for seat in state.seats] == [(c,) for c in cheer]


def test_w5_inspections_only_after_days_3_and_6() -> None:
    for day, expect in ((1, False), (2, False), (3, True), (4, False), (5, False), (6, True)):
        _, events = finish_day(last_placement_of_day(start(), day))
        assert ("inspection" in kinds(events)) is expect, day


# --------------------------------------------------------------------------- W-6


@pytest.mark.parametrize(
    ("names", "points"),
    [
        ((), 0),
        (("Dasher",), 1),
        (("Dasher", "Dasher"), 3),
        (("Dasher", "Dancer", "Vixen", "Vixen", "Cupid", "Blitzen", "Blitzen"), 16),  # rulebook
        (tuple(C.reindeer_names), 31),
        (tuple(C.reindeer_names[:8]), 25),
    ],
)
def test_w6_1_reindeer_table(names: tuple[str, ...], points: int) -> None:
    cards = []
    for name in names:
        cards.append(reindeer_card(name, cards.count(reindeer_card(name))))
    assert reindeer_points(cards) == points


def test_w6_1_end_scoring_and_w6_3_events_sum_to_the_score() -> None:
    state = start()
    state = with_seat(
        state,
        0,
        toys=(toy("Toy Castle", 2, 1, 0, 1), toy("Kite", 0, 0, 1, 0)),
        reindeer=(reindeer_card("Dasher"), reindeer_card("Comet")),
        score=10,
        breakdown=(10, 0, 0, 0, 0, 0, 0, 0),
    )
    state, events = finish_day(last_placement_of_day(state, 6))
    assert state.phase == Phase.OVER and GAME.to_act(state) == frozenset()
    assert scored(events, "unfinished").get("ann") == 5
    assert scored(events, "reindeer").get("ann") == 3
    result = GAME.outcome(state)
    assert result is not None
    ann = result.players["ann"]
    assert ann.unfinished_tokens == 5 and sorted(ann.reindeer) == ["Comet", "Dasher"]
    assert sum(ann.breakdown.values()) == result.scores["ann"]
    assert result.scores["ann"] == 10 + scored(events)["ann"]
    assert len(ann.cheer) == 1
    with pytest.raises(GameOver):
        GAME.apply(state, "ann", PlaceElf(station="wood"))


def finished(scores: tuple[int, ...], deer: tuple[tuple[str, ...], ...]) -> WorkshopState:
    """A finished game with the given scores and reindeer."""
    state = start(players=len(scores))
    for i, (score, names) in enumerate(zip(scores, deer, strict=True)):
        cards = tuple(reindeer_card(n) for n in names)
        state = with_seat(state, i, score=score, reindeer=cards)
    return state.model_copy(update={"phase": Phase.OVER})


@pytest.mark.parametrize(
    ("scores", "deer", "winners"),
    [
        ((50, 49, 10), (("Dasher",), ("Dasher", "Comet", "Cupid"), ()), ["ann"]),
        ((50, 50, 10), (("Dasher",), ("Dasher", "Comet"), ()), ["bob"]),
        ((50, 50, 50), (("Dasher", "Comet"), ("Cupid", "Vixen"), ("Dasher",)), ["ann", "bob"]),
        ((30, 30), ((), ()), ["ann", "bob"]),
    ],
)
def test_w6_2_most_points_then_most_reindeer_points_then_shared(
    scores: tuple[int, ...], deer: tuple[tuple[str, ...], ...], winners: list[str]
) -> None:
    result = GAME.outcome(finished(scores, deer))
    assert result is not None
    assert result.winners == winners


# --------------------------------------------------------------------------- turn checks


def test_only_the_current_player_may_act() -> None:
    state = start()
    with pytest.raises(NotYourTurn, match="not your turn"):
        GAME.apply(state, "bob", PlaceElf(station="wood"))
    with pytest.raises(NotInGame):
        GAME.apply(state, "zed", PlaceElf(station="wood"))
    assert GAME.legal_actions(state, "bob") == []
    assert GAME.legal_actions(state, TIMER) == []
    with pytest.raises(IllegalAction, match="timer has no moves"):
        GAME.apply(state, TIMER, PlaceElf(station="wood"))


def test_a_json_action_is_accepted_like_the_prebuilt_one() -> None:
    state = start()
    action = GAME.parse_action('{"kind": "place_elf", "station": "wood"}')
    a, _ = GAME.apply(state, "ann", action)
    b, _ = GAME.apply(state, "ann", PlaceElf(station="wood"))
    assert a == b
    with pytest.raises(IllegalAction, match="not a move"):
        GAME.parse_action({"kind": "fly"})


def test_game_satisfies_the_protocol_and_is_registered() -> None:
    from engine import get_game
    from engine.core import Game

    assert isinstance(GAME, Game)
    assert get_game("workshop") is GAME
    assert (GAME.min_players, GAME.max_players) == (2, 5)
    state = start(players=3, first=2)
    assert GAME.to_act(state) == frozenset({"cat"})
    assert GAME.outcome(state) is None


def test_lean_replace_matches_model_copy() -> None:
    from engine.workshop import rules

    assert rules.replace is rules._lean_replace  # the fast path is active on this pydantic
    state = start(players=3)
    update = {"day": 4, "supply": (1, 2, 3, 4)}
    lean = rules.replace(state, update)
    assert lean == state.model_copy(update=update)
    assert lean.__pydantic_fields_set__ == state.model_copy(update=update).__pydantic_fields_set__
    assert GAME.parse_state(lean.model_dump_json()) == lean
    assert lean.seats is state.seats  # structural sharing
    assert state.day == 1  # the original is untouched
