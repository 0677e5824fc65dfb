"""Santa's Workshop's legal choices as data (``GAME.describe_choice``): every kind of
action, where it sits on the board, what it gives now (less than printed when the
supply ran out), and that what ``apply`` then does agrees with the facts."""

from __future__ import annotations

import re
from typing import Any

from workshop_positions import card, reindeer_card, start, toy, with_seat

from engine.choices import ChoiceFacts
from engine.core import Game, Rng
from engine.workshop import GAME
from engine.workshop.data import COMPONENTS as C
from engine.workshop.models import (
    ChooseMaterial,
    ChooseOrnament,
    CoverSpace,
    DonateTokens,
    PlaceElf,
    PlaceTokens,
    Scored,
    StopTaking,
    TakeDonated,
    TakeReindeer,
    TakeToy,
    TokensReceived,
)
from engine.workshop.rules import REQ, TOY_POINTS, current_seat

TARGET = re.compile(
    r"station:[a-z0-9]+:\d+|mail:\d|toy_deck|stall:\d|supply:(wood|metal|fabric)|toy:\d+"
    r"|donation|ornament:[a-z]+|tree:[a-z0-9]+|stop"
)


def facts(state: Any, action: Any) -> ChoiceFacts:
    return GAME.describe_choice(state, state.players[current_seat(state)], action)


def test_both_games_describe_their_choices() -> None:
    assert isinstance(GAME, Game)
    state = start()
    assert facts(state, PlaceElf(station="wood")).model_dump() == {
        "kind": "place_elf",
        "target": "station:wood:0",
        "gives": {"wood": 2},
        "short": {},
        "costs": {"elf": 1},
        "scores": {},
        "donated": {},
        "final": None,
        "card": None,
        "note": None,
        "can_pay": None,
        "missing": {},
        "offer": None,
        "rivals": (),
    }


def test_a_shop_gives_by_space_and_its_cooperation_goes_to_the_seats_already_there() -> None:
    state = start(players=3, first=0)
    state = state.model_copy(update={"spaces": ((1, 0, 1), *state.spaces[1:])})
    wood = facts(state, PlaceElf(station="wood"))
    assert wood.target == "station:wood:3"
    assert (wood.gives, wood.short, wood.costs) == ({"wood": 5}, {}, {"elf": 1})
    assert wood.scores == {"ann": 1, "bob": 2}  # in seat order
    _, events = GAME.apply(state, "ann", PlaceElf(station="wood"))
    got = {e.player: e.points for e in events if isinstance(e, Scored)}
    assert got == wood.scores
    received = next(e for e in events if isinstance(e, TokensReceived))
    assert (received.count, received.short) == (5, 0)


def test_a_shop_whose_supply_ran_out_gives_less_than_printed() -> None:
    """W-1.4: a short supply gives what is left; the label says what the player gets
    now and how many fewer than the board prints, as the facts do."""
    state = start(players=2, first=0)
    state = state.model_copy(
        update={"spaces": ((1,), *state.spaces[1:]), "supply": (1, 24, 24, 24)}
    )
    wood = facts(state, PlaceElf(station="wood"))
    assert (wood.gives, wood.short) == ({"wood": 1}, {"wood": 2})
    assert GAME.describe_action(state, "ann", PlaceElf(station="wood"), {"bob": "Bob"}) == (
        "Wood Shop, 2nd space: 1 Wood (2 fewer: the supply is short) (+1 cooperation to Bob)"
    )
    _, events = GAME.apply(state, "ann", PlaceElf(station="wood"))
    received = next(e for e in events if isinstance(e, TokensReceived))
    assert (received.count, received.short) == (1, 2)
    empty = state.model_copy(update={"supply": (0, 24, 24, 24)})
    assert (
        facts(empty, PlaceElf(station="wood")).gives,
        facts(empty, PlaceElf(station="wood")).short,
    ) == (
        {},
        {"wood": 3},
    )
    assert GAME.describe_action(empty, "ann", PlaceElf(station="wood"), {"bob": "Bob"}) == (
        "Wood Shop, 2nd space: nothing, the supply has no Wood (+1 cooperation to Bob)"
    )


def test_the_stables_mail_rooms_donation_center_and_tree_stations() -> None:
    state = start(players=2, first=0)
    state = with_seat(state, 0, toys=(toy("Kite", 1, 0, 0, 1), toy("Toy Boat")))
    kite_needs = [n - p for n, p in zip(REQ[card("Kite")], (1, 0, 0, 1), strict=True)]
    state = state.model_copy(
        update={"spaces": (*state.spaces[:7], (1,), *state.spaces[8:]), "donation": (0, 0, 5, 0)}
    )
    stables = facts(state, PlaceElf(station="stables"))
    assert stables.target == "station:stables:1"
    assert (stables.gives, stables.short) == ({"reindeer": 1, "choice": 2}, {})
    mail = facts(state, PlaceElf(station="mail3"))
    assert (mail.target, mail.gives, mail.short) == ("station:mail3:0", {"toy": 3}, {})
    assert facts(state, PlaceElf(station="mail2")).gives == {"toy": 2}
    tree = facts(state, PlaceElf(station="tree2"))
    assert (tree.target, tree.gives) == ("station:tree2:0", {"ornament": 1})
    fabric_needed = kite_needs[2] + REQ[card("Toy Boat")][2]
    donation = facts(state, PlaceElf(station="donation"))
    assert donation.target == "station:donation:0"
    assert donation.gives == ({"fabric": min(5, fabric_needed)} if fabric_needed else {})

    # Materials of choice are lost when Wood, Metal and Fabric are all gone (W-1.4)
    scarce = state.model_copy(update={"supply": (1, 0, 0, 24)})
    assert (
        facts(scarce, PlaceElf(station="stables")).gives,
        facts(scarce, PlaceElf(station="stables")).short,
    ) == (
        {"reindeer": 1, "choice": 1},
        {"choice": 1},
    )
    # a Mail Room gives at most what room is left for unfinished toys (W-4.2)
    full = with_seat(state, 0, toys=tuple(toy(n) for n in C.toy_names[:4]))
    assert facts(full, PlaceElf(station="mail3")).gives == {"toy": 1}
    assert facts(full, PlaceElf(station="mail3")).short == {"toy": 2}
    assert GAME.describe_action(full, "ann", PlaceElf(station="mail3")).endswith(
        "take 1 toy card (room for 1 more unfinished toy)"
    )


def test_toy_cards_reindeer_and_stopping() -> None:
    state = start(players=2, first=0).model_copy(
        update={"phase": 1, "station": 5, "mail_left": 3, "taken": 1}
    )
    slot = facts(state, TakeToy(slot=2))
    assert (slot.kind, slot.target, slot.gives, slot.card) == (
        "take_toy",
        "mail:2",
        {"toy": 1},
        state.mail[2],
    )
    deck = facts(state, TakeToy(slot=None))
    assert (deck.target, deck.card) == ("toy_deck", None)  # unseen
    assert facts(state, StopTaking()).target == "stop"
    stalls = start(players=2, first=0).model_copy(
        update={"phase": 2, "station": 7, "stalls": (reindeer_card("Dasher"), -1, 5)}
    )
    reindeer = facts(stalls, TakeReindeer(stall=0))
    assert (reindeer.target, reindeer.gives, reindeer.card) == (
        "stall:0",
        {"reindeer": 1},
        reindeer_card("Dasher"),
    )


def test_tokens_on_toys_donations_and_materials_of_choice() -> None:
    state = start(players=2, first=0)
    state = with_seat(state, 0, toys=(toy("Kite", 1, 0, 0, 1), toy("Toy Boat")))
    state = state.model_copy(update={"phase": 4, "batch": (0, 0, 1, 0), "station": 2})
    kite = card("Kite")
    place = facts(state, PlaceTokens(material="fabric", toy=kite, count=1))
    assert (place.target, place.costs, place.card) == (f"toy:{kite}", {"fabric": 1}, kite)
    assert place.scores == {"ann": TOY_POINTS[kite]}  # it completes the Kite
    _, events = GAME.apply(state, "ann", PlaceTokens(material="fabric", toy=kite, count=1))
    assert {e.player: e.points for e in events if isinstance(e, Scored)} == place.scores
    donate = facts(state, DonateTokens(material="fabric", count=1))
    assert (donate.target, donate.costs, donate.scores) == ("donation", {"fabric": 1}, {"ann": 1})

    choose = state.model_copy(update={"phase": 3, "to_choose": 1, "batch": (0, 0, 0, 0)})
    metal = facts(choose, ChooseMaterial(material="metal"))
    assert (metal.target, metal.gives, metal.short) == ("supply:metal", {"metal": 1}, {})

    donated = state.model_copy(update={"phase": 7, "batch": (0, 0, 0, 0), "donation": (0, 0, 2, 0)})
    take = facts(donated, TakeDonated(material="fabric", toy=kite))
    assert (take.target, take.gives, take.card, take.scores) == (
        f"toy:{kite}",
        {"fabric": 1},
        kite,
        {"ann": TOY_POINTS[kite]},
    )


def test_ornaments_and_tree_spaces() -> None:
    state = start(players=2, first=0).model_copy(update={"phase": 5, "station": 8})
    gold = facts(state, ChooseOrnament(colour="gold"))
    assert (gold.target, gold.gives) == ("ornament:gold", {"ornament": 1})
    space = state.model_copy(update={"phase": 6, "ornament": 0})
    star = facts(space, CoverSpace(space="star"))
    assert (star.target, star.gives, star.scores) == ("tree:star", {}, {"ann": 3})
    wood = facts(space, CoverSpace(space="wood"))
    assert (wood.target, wood.gives, wood.short) == ("tree:wood", {"wood": 1}, {})
    empty = space.model_copy(update={"supply": (0, 24, 24, 24)})
    assert (
        facts(empty, CoverSpace(space="wood")).gives,
        facts(empty, CoverSpace(space="wood")).short,
    ) == (
        {},
        {"wood": 1},
    )
    assert GAME.describe_action(empty, "ann", CoverSpace(space="wood")) == (
        "Cover the tree space '1 Wood': nothing, the supply has no Wood"
    )


def test_every_legal_choice_along_random_games_has_facts_that_apply_agrees_with() -> None:
    """Facts for every legal action of random games: a target of the scheme, a JSON
    round trip, and what applying it then scores and receives at once."""
    rng = Rng(11)
    for game in range(3):
        state = GAME.new_game(("ann", "bob", "cat"), game, GAME.parse_options({}))
        while GAME.outcome(state) is None:
            player = state.players[current_seat(state)]
            legal = GAME.legal_actions(state, player)
            for action in legal:
                told = GAME.describe_choice(state, player, action)
                assert told.kind == action.kind
                assert TARGET.fullmatch(told.target), told.target
                assert ChoiceFacts.model_validate_json(told.model_dump_json()) == told
            action = rng.choice(legal)
            told = GAME.describe_choice(state, player, action)
            state, events = GAME.apply(state, player, action)
            _agrees(told, events)


REASON = {
    "place_elf": "cooperation",
    "donate": "donation",
    "cover_space": "tree",
    "place_tokens": "toy",
    "take_donated": "toy",
}
"""The score an action makes at once, by its kind (a donation: its first event; an
automatic donation of other tokens may follow)."""
MATERIALS = ("wood", "metal", "fabric", "assembly")


def _agrees(told: ChoiceFacts, events: list[Any]) -> None:
    materials = {m: n for m, n in told.gives.items() if m in MATERIALS}
    shop = told.kind != "place_elf" or told.target.split(":")[1] in MATERIALS
    if materials and shop and told.kind in ("place_elf", "choose_material", "cover_space"):
        received = next(e for e in events if isinstance(e, TokensReceived))
        assert {received.material: received.count} == materials
        assert ({received.material: received.short} if received.short else {}) == told.short
    if told.kind in REASON:
        reasons = {REASON[told.kind], *(("donation",) if told.donated else ())}
        scored = [e for e in events if isinstance(e, Scored) and e.reason in reasons]
        if told.kind == "donate":
            scored = scored[:1]
        got: dict[str, int] = {}
        for e in scored:
            got[e.player] = got.get(e.player, 0) + e.points
        assert got == told.scores, (told, events)
