"""Honest choices, as a property over many positions of both games: every menu label's
numbers are its facts' numbers (``describe_action`` and ``describe_choice`` say the
same), and a choice that gives nothing of what the board promises says so.

The positions are those of random games, and each Santa's Workshop position again
with a scarce supply and an empty toy deck (W-1.4, W-3.6), so that short supplies,
empty supplies and short Mail Rooms are met many times per run.
"""

from __future__ import annotations

from engine.choices import ChoiceFacts
from engine.core import Rng
from engine.tonttu.game import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP
from engine.workshop.models import WorkshopState
from engine.workshop.rules import current_seat

NAMES = {"ann": "Ann", "bob": "Bob", "cid": "Cid", "dan": "Dan", "eve": "Eve"}
SHOPS = {"wood": "Wood", "metal": "Metal", "fabric": "Fabric", "assembly": "Assembly"}
LETTER = {"wood": "W", "metal": "M", "fabric": "F", "assembly": "A"}


def _says_nothing_if_it_gives_nothing(label: str, facts: ChoiceFacts) -> None:
    if facts.short and not facts.gives:
        assert "nothing" in label, (label, facts)
    else:
        assert "nothing" not in label, (label, facts)


def _workshop_label_agrees(label: str, facts: ChoiceFacts, player: str) -> None:
    """The numbers a Workshop label shows are its facts' numbers."""
    _says_nothing_if_it_gives_nothing(label, facts)
    kind, target = facts.kind, facts.target
    # W-4.1: received tokens no toy needs are donated at once, a point each
    donated = sum(facts.donated.values())
    for material, n in facts.donated.items():
        assert f"(no toy needs {SHOPS[material]}: donated, +{n} point" in label, (label, facts)
        assert facts.gives[material] == n
    if not facts.donated:
        assert "donated, +" not in label, (label, facts)
    for seat, points in facts.scores.items():
        cooperation = points - (donated if seat == player else 0)
        if kind == "place_elf" and cooperation:  # a shop's cooperation (W-3.1)
            assert f"+{cooperation} cooperation to {NAMES[seat]}" in label, (label, facts)
    if kind == "place_elf":
        station = target.split(":")[1]
        if station in SHOPS:
            given = facts.gives.get(station, 0)
            short = facts.short.get(station, 0)
            if given:
                assert f": {given} {SHOPS[station]}" in label, (label, facts)
            else:
                assert f"the supply has no {SHOPS[station]}" in label, (label, facts)
            assert (f"({short} fewer" in label) == bool(short and given), (label, facts)
        elif station.startswith("mail"):
            n = facts.gives["toy"]
            assert (f"take 1 to {n} toy cards" if n > 1 else "take 1 toy card") in label
            assert ("(" in label.split(":", 1)[1]) == bool(facts.short), (label, facts)
        elif station == "stables":
            n, short = facts.gives.get("choice", 0), facts.short.get("choice", 0)
            assert "1 reindeer" in label and facts.gives["reindeer"] == 1
            if n:
                assert f"+ {n} Material" in label, (label, facts)
                assert (f"({short} fewer" in label) == bool(short), (label, facts)
            else:
                assert "no Materials" in label and short, (label, facts)
        elif station == "donation":
            tokens = " ".join(f"{LETTER[m]}{n}" for m, n in facts.gives.items())
            assert label.endswith(f"(up to {tokens})"), (label, facts)
    elif kind == "take_reindeer":
        assert label.endswith(f", +{facts.final} at the end"), (label, facts)
    elif kind == "choose_material":
        assert facts.gives == {target.split(":")[1]: 1}
        assert label == f"Take 1 {SHOPS[target.split(':')[1]]}"
    elif kind == "place_tokens":
        ((_, count),) = facts.costs.items()
        assert label.startswith(f"Put {count} "), (label, facts)
        assert label.endswith("(completes it)") == bool(facts.scores), (label, facts)
    elif kind == "donate":
        ((_, count),) = facts.costs.items()
        assert label.startswith(f"Donate {count} ") and facts.scores, (label, facts)
        assert f"(+{count} point" in label, (label, facts)
    elif kind == "cover_space" and not facts.donated:
        for points in facts.scores.values():  # the star or the 2 points space
            assert label.endswith(f"{points} points'"), (label, facts)


def _scarce(state: WorkshopState, rng: Rng) -> WorkshopState:
    """The same position with 0, 1 or 2 tokens of each type left to give and no toy
    deck (the board's invariants do not matter to what a label says)."""
    supply = tuple(b + rng.below(3) for b in state.batch)
    return state.model_copy(update={"supply": supply, "deck": (), "sleigh": ()})


def test_workshop_labels_say_what_the_facts_say_in_many_positions() -> None:
    rng = Rng(47)
    met = {"short": 0, "nothing": 0, "reindeer": 0, "mail_short": 0, "donated": 0}
    for game, players in enumerate((2, 3, 5)):
        seats = tuple(NAMES)[:players]
        state = WORKSHOP.new_game(seats, 100 + game, WORKSHOP.parse_options({}))
        while WORKSHOP.outcome(state) is None:
            player = state.players[current_seat(state)]
            for position in (state, _scarce(state, rng)):
                for action in WORKSHOP.legal_actions(position, player):
                    facts = WORKSHOP.describe_choice(position, player, action)
                    label = WORKSHOP.describe_action(position, player, action, NAMES)
                    _workshop_label_agrees(label, facts, player)
                    met["short"] += bool(facts.short)
                    met["nothing"] += bool(facts.short and not facts.gives)
                    met["reindeer"] += facts.kind == "take_reindeer"
                    met["mail_short"] += "toy" in facts.short
                    met["donated"] += bool(facts.donated)
            state, _ = WORKSHOP.apply(
                state, player, rng.choice(WORKSHOP.legal_actions(state, player))
            )
    assert min(met.values()) >= 10, met  # the property was tried where it matters


def _tonttu_label_agrees(label: str, facts: ChoiceFacts, names: dict[str, str]) -> None:
    _says_nothing_if_it_gives_nothing(label, facts)
    if facts.kind == "pick":
        ((material, _),) = facts.gives.items()
        assert label == f"Pick {material}"
    elif facts.kind == "point_gift":
        assert label.startswith("Point at ")
        if facts.can_pay is False:
            assert facts.missing and not facts.gives and facts.short == {"gift": 1}
            for material, n in facts.missing.items():
                assert (material if n == 1 else f"{material} ×{n}") in label, (label, facts)
        elif facts.offer is not None:
            assert f"your offer {facts.offer} " in label or "nobody else can" in label
            for rival in facts.rivals:
                span = str(rival.low) if rival.low == rival.high else f"{rival.low}–{rival.high}"
                assert f"{names[rival.player]} {span}" in label, (label, facts)
        elif facts.can_pay:
            assert label.endswith("· you can pay"), (label, facts)
    elif facts.kind == "point_material":
        slot = int(facts.target.split(":")[1]) + 1
        assert label.startswith(f"Point at face-down material {slot}")


def test_tonttu_labels_say_what_the_facts_say_in_many_positions() -> None:
    rng = Rng(47)
    met = {"cannot_pay": 0, "contested": 0}
    for mode, players in (("tactical", 4), ("speed", 3), ("tactical", 6)):
        seats = tuple(NAMES)[:players] if players <= 5 else (*NAMES, "fay")
        names = {**NAMES, "fay": "Fay"}
        state = TONTTU.new_game(seats, 7, TONTTU.parse_options({"mode": mode}))
        while TONTTU.outcome(state) is None:
            acting = sorted(TONTTU.to_act(state))
            for player in acting:
                for action in TONTTU.legal_actions(state, player):
                    facts = TONTTU.describe_choice(state, player, action)
                    label = TONTTU.describe_action(state, player, action, names)
                    _tonttu_label_agrees(label, facts, names)
                    met["cannot_pay"] += facts.can_pay is False
                    met["contested"] += bool(facts.rivals)
            player = acting[rng.below(len(acting))]
            state, _ = TONTTU.apply(state, player, rng.choice(TONTTU.legal_actions(state, player)))
    assert min(met.values()) >= 10, met
