"""Workshop Tonttu's texts for the terminal (and the bot, which shows the same log lines
and labels): what each point would do, the round results, the workbench, the end."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from make_tonttu_golden import MODES, golden_path
from test_tonttu_rules import build, gift, point_gift, run, speed

from engine.__main__ import main
from engine.core import Rng
from engine.records import pick_random
from engine.tonttu import GAME
from engine.tonttu.models import (
    MATERIAL_POINT,
    MATERIAL_POINT_UP,
    GameEnded,
    PointMaterial,
    RoundEnded,
)
from engine.tonttu.text import HINT, point_code, workbench_text

NAMES = {"ann": "Ann", "bob": "Bob", "cid": "Cid"}


def hint(state: Any, player: str, gift_name: str) -> str:
    label = GAME.describe_action(state, player, point_gift(gift_name), NAMES)
    assert label.startswith(f"Point at {gift_name} (needs ")
    return label.split(HINT)[1] if HINT in label else ""


# --------------------------------------------------------------------------- the point menu


def test_a_gift_entry_says_what_is_missing() -> None:
    state = build(
        face_up=[["Wood"], [], []], middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"]
    )
    assert (
        hint(state, "ann", "Rocking Horse")
        == "missing Wood, Paint: you cannot pay, it gives you nothing"
    )
    assert (
        hint(state, "bob", "Rocking Horse")
        == "missing Wood ×2, Paint: you cannot pay, it gives you nothing"
    )


def test_a_gift_entry_counts_the_own_face_down_card_and_says_nobody_else_can_pay() -> None:
    state = build(
        face_up=[["Wood", "Wood"], [], []],
        face_down=["Paint", None, None],
        middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"],
    )
    assert hint(state, "ann", "Rocking Horse") == "you can pay; nobody else can"


def test_a_gift_entry_compares_offers_with_the_others_who_could_pay() -> None:
    """T-3.2: the highest offer wins, a tie gives nobody the gift. Others' face-down
    cards are secret (T-6), so their offers are a range, or an if."""
    state = build(
        face_up=[
            ["Wood", "Wood", "Paint", "Paint"],  # ann: offer 4
            ["Wood", "Wood", "Paint"],  # bob: offer 3, 4 if his face-down card fits
            ["Wood", "Wood", "Wood", "Wood", "Paint"],  # cid: offer 5
        ],
        face_down=[None, "Gold", None],
        middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"],
    )
    assert hint(state, "ann", "Rocking Horse") == (
        "you can pay; if contested your offer 4 beats or ties Bob 3–4, loses to Cid 5"
    )
    assert hint(state, "cid", "Rocking Horse") == (
        "you can pay; if contested your offer 5 beats Ann 4, beats Bob 3–4"
    )
    one_short = build(
        face_up=[["Wood", "Wood", "Paint"], ["Wood", "Wood"], []],
        face_down=[None, "Wool", None],
        middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"],
    )
    assert hint(one_short, "ann", "Rocking Horse") == (
        "you can pay; if contested your offer 3 ties Bob 3 (if their face-down card fits)"
    )


def test_in_speed_mode_an_entry_says_only_whether_you_can_pay() -> None:
    state = speed(face_up=[["Metal", "Metal"], ["Metal", "Metal"], []])
    state = state.model_copy(update={"middle_gifts": (gift("Bell"), gift("Clogs"), 1, 2)})
    assert hint(state, "ann", "Bell") == "you can pay"  # T-4: no offers, first valid point wins
    assert hint(state, "cid", "Bell") == "missing Metal ×2: you cannot pay, it gives you nothing"
    after, _ = GAME.apply(state, "ann", point_gift("Bell"))
    # ann has pointed: her label (a confirmation) no longer describes the position
    assert GAME.describe_action(after, "ann", PointMaterial(slot=0)) == (
        "Point at face-down material 1"
    )


def test_labels_outside_the_point_phase_carry_no_note() -> None:
    state = build(phase="pick", face_up=[["Wood"], [], []])
    assert hint(state, "ann", GAME.view(state, None).middle_gifts[0].name) == ""  # type: ignore[union-attr]
    assert GAME.describe_action(state, "ann", PointMaterial(slot=0, face_down=False)) == (
        "Point at face-down material 1: take it face up"
    )


def test_every_point_label_names_its_point_and_is_the_view_choice_once_made() -> None:
    """The DM select marks the current choice by its label, and the computer players
    read their own pending point back from it (``point_code``)."""
    checked = 0
    for mode in MODES:
        for seed in range(3):
            state = GAME.new_game(
                ["ann", "bob", "cid", "dan"], seed, GAME.parse_options({"mode": mode})
            )
            rng = Rng(seed)
            while GAME.outcome(state) is None and checked < 4000:
                if state.phase == "point":
                    for player in GAME.to_act(state):
                        for action in GAME.legal_actions(state, player):
                            label = GAME.describe_action(state, player, action)
                            code = point_code(label)
                            if action.kind == "point_gift":
                                assert code == action.gift
                            else:
                                base = MATERIAL_POINT if action.face_down else MATERIAL_POINT_UP
                                assert code == base + action.slot
                            if mode == "tactical":
                                after, _ = GAME.apply(state, player, action)
                                if after.phase == "point" and after.round == state.round:
                                    assert GAME.view(after, player).my_choice == label
                            checked += 1
                player, action = pick_random(GAME, state, rng)
                state, _ = GAME.apply(state, player, action)
    assert checked > 1000


# --------------------------------------------------------------------------- log and board


def test_a_round_result_is_a_heading_and_a_short_line_per_card() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        face_down=[None, "Paint", None],
        middle_gifts=["Bell", "Scarf", "Mittens", "Clogs"],
        middle_materials=["Wool", "Metal", "Paint"],
    )
    _, events = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1, face_down=False)),
        ],
    )
    text = GAME.describe_event(next(e for e in events if e.kind == "points_revealed"), NAMES)
    assert text.splitlines() == [
        "Round 1 points:",
        "    Bell (Decorations), pointed at by Ann: Ann gets it, paying Metal ×2.",
        "    Face-down material 1, pointed at by Bob: Bob took it face up: Wool.",
        "    Face-down material 2, pointed at by Cid: Cid took it face up: Metal.",
        # the first reveal of a game says how points resolve (T-3), once
        "    (A gift goes to its one pointer who can pay it, else to the single highest "
        "offer; a tie: to nobody. A face-down material goes to its one pointer.)",
    ]
    later = next(e for e in events if e.kind == "points_revealed").model_copy(update={"round": 2})
    assert GAME.describe_event(later, NAMES).splitlines()[1:] == text.splitlines()[1:4]


@pytest.mark.parametrize("mode", MODES)
def test_no_log_line_of_a_whole_game_is_long(mode: str) -> None:
    log = json.loads(golden_path(mode).read_text(encoding="utf-8"))["log"]
    lines = [line for entry in log for line in entry.splitlines()]
    assert any(line.startswith("    ") for line in lines)  # detail lines under headings
    assert max(map(len, lines)) <= 160  # the reveal was one line of up to 399 characters


def test_a_new_deal_gets_its_own_line() -> None:
    event = RoundEnded(
        round=4,
        gift_won=False,
        gifts_refilled=["Bell"],
        materials_refilled=1,
        discarded=3,
        rotation="right",
        dealt={"ann": 5, "bob": 5, "cid": 5},
        reshuffled=1,
    )
    assert GAME.describe_event(event, NAMES).splitlines() == [
        "End of round 4: new gifts Bell; 1 new face-down material.",
        "    The discard pile was shuffled into a new material deck.",
        "    New deal: 3 cards discarded, the rotation card flips to right, 5 cards dealt to each.",
    ]


def test_the_workbench_is_grouped_and_counted() -> None:
    bench = ["Metal", "Wood", "Wood", "Metal", "Wood"]
    assert workbench_text(bench, True, None) == "Wood ×3, Metal ×2, 1 face down"
    assert workbench_text(bench, True, "Gold") == "Wood ×3, Metal ×2, 1 face down [Gold]"
    assert workbench_text(["Wool"], False, None) == "Wool"
    assert workbench_text([], False, None) == ""
    state = build(face_up=[["Wood", "Metal", "Wood"], [], []], face_down=["Gold", "Wool", None])
    text = GAME.render_text(GAME.view(state, "bob"), NAMES)
    assert "Wood ×2, Metal, 1 face down " in text and "[Gold]" not in text
    assert "1 face down [Wool]" in text


def test_a_player_is_reminded_of_the_hands_it_held_this_deal() -> None:
    """T-2.3, rotation left: the hand Ann passed on in the 1st round of a deal is Bob's in
    the 2nd (minus Bob's pick, shown face up), Cid's in the 3rd; spectators are not told."""
    hands = [["Wood", "Gold"], ["Wool", "Paint"], ["Metal", "Metal"]]
    second = build(deal_round=2, hands=hands)
    ann = GAME.render_text(GAME.view(second, "ann"), NAMES)
    assert "Your hand: Wood, Gold\nHands you held this deal: Bob: Wool, Paint\n" in ann + "\n"
    cid = GAME.render_text(GAME.view(second, "cid"), NAMES)
    assert "Hands you held this deal: Ann: Wood, Gold\n" in cid + "\n"
    assert "Hands you held" not in GAME.render_text(GAME.view(second, None), NAMES)
    third = GAME.render_text(GAME.view(build(deal_round=3, hands=hands), "ann"), NAMES)
    assert "Hands you held this deal: Bob: Wool, Paint; Cid: Metal, Metal" in third
    first = GAME.render_text(GAME.view(build(deal_round=1, hands=hands), "ann"), NAMES)
    assert "Hands you held" not in first


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("gift_stack_empty", "Game over: the gift stack has run out."),
        (
            "no_gift_for_10_rounds",
            "Game over: 10 rounds in a row passed without anyone winning a gift.",
        ),
    ],
)
def test_game_over_says_why_in_words(reason: str, words: str) -> None:
    event = GameEnded(reason=reason, scores={"ann": 1}, winners=["ann"])  # type: ignore[arg-type]
    assert GAME.describe_event(event, NAMES) == words


def test_the_final_board_shows_each_breakdown_with_the_set_bonus() -> None:
    state = build(
        face_up=[["Metal", "Metal"], [], []],
        middle_gifts=["Bell", "Mittens", "Spinning Top", "Clogs"],
        won=[["Sweater", "Yo-Yo"], ["Rocking Horse"], []],
        stack=[],
    )
    state, _ = run(
        state,
        [
            ("ann", point_gift("Bell")),
            ("bob", PointMaterial(slot=0)),
            ("cid", PointMaterial(slot=1)),
        ],
    )
    assert state.phase == "over"
    text = GAME.render_text(GAME.view(state, "ann"), NAMES)
    assert "game over: the gift stack has run out" in text and "gift_stack_empty" not in text
    assert "Ann    9 points = 6 for 3 gifts (1+2+3) + 3 for 1 set" in text
    assert "Bob    1 point = 1 for 1 gift (1) + 0 for 0 sets" in text  # singular: 1 point
    assert "Winner" not in text  # the terminal names the winners once, after the board


# --------------------------------------------------------------------------- the terminal game


def test_the_terminal_game_reads_well_from_start_to_end() -> None:
    out = io.StringIO()
    answers = io.StringIO("1\n" * 400)
    assert main(["play", "--game", "tonttu", "--players", "3", "--seed", "5"], out, answers) == 0
    text = out.getvalue()
    assert " · missing " in text and " · you can pay" in text  # the point menu's notes
    assert ": keep it face down" in text and ": take it face up" in text  # T-3.1
    assert ": it goes face up (you already have a face-down card)" in text
    assert "    Rocking Horse (Toys), pointed at by You: " in text  # one line per card
    assert "You get it, paying " in text  # "You get", not "You gets"
    assert "×" in text and "1 face down [" in text  # the grouped workbench
    assert "gift_stack_empty" not in text and "Game over: the gift stack has run out." in text
    assert "Final scores" in text and " for 1 set" in text
    assert text.count("Winner") == 1
