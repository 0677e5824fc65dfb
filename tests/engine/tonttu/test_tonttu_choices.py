"""Workshop Tonttu's legal choices as data (``GAME.describe_choice``) and the phase API a
front end asks: ``phase_of``, ``is_race``, ``still_choosing``, ``have_chosen``,
``chosen_action``, ``still_open``."""

from __future__ import annotations

import re

import pytest
from test_tonttu_rules import build, gift, point_gift, run, speed

import i18n
from engine.choices import ChoiceFacts, Rival
from engine.core import TIMER, Game, GameOver, Rng
from engine.tonttu import GAME
from engine.tonttu.game import (
    PhaseClosed,
    chosen_action,
    have_chosen,
    is_race,
    phase_of,
    still_choosing,
    still_open,
)
from engine.tonttu.models import ClosePointPhase, Pick, PointGift, PointMaterial
from engine.tonttu.text import HINT, describe_parts

NAMES = {"ann": "Ann", "bob": "Bob", "cid": "Cid"}
TARGET = re.compile(r"hand:(Wood|Wool|Metal|Paint|Gold)|gift:\d|material:\d|timer")


def test_a_pick_sits_in_the_hand() -> None:
    assert isinstance(GAME, Game)
    state = build(phase="pick")
    told = GAME.describe_choice(state, "ann", Pick(material="Wool"))
    assert (told.kind, told.target, told.gives) == ("pick", "hand:Wool", {"Wool": 1})


def test_a_gift_the_player_cannot_pay_says_what_it_lacks() -> None:
    state = build(
        face_up=[["Wood"], [], []], middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"]
    )
    told = GAME.describe_choice(state, "bob", point_gift("Rocking Horse"))
    assert told.target == "gift:0" and told.card == gift("Rocking Horse")
    assert (told.can_pay, told.missing) == (False, {"Wood": 2, "Paint": 1})
    # T-3.2: a pointer who cannot pay does not contend: the point gives nothing now
    assert told.costs == {"Wood": 2, "Paint": 1}
    assert (told.gives, told.short) == ({}, {"gift": 1})
    assert describe_parts(point_gift("Rocking Horse"), state, "bob", NAMES) == (
        "Point at Rocking Horse (needs Wood, Wood, Paint)",
        "missing Wood ×2, Paint: you cannot pay, it gives you nothing",
    )


def test_a_gift_others_could_pay_too_names_their_seats_and_offers() -> None:
    state = build(
        face_up=[["Wood", "Wood", "Paint"], ["Wood", "Wood", "Paint", "Wood"], ["Wood", "Paint"]],
        face_down=[None, None, "Gold"],
        middle_gifts=["Rocking Horse", "Bell", "Clogs", "Yo-Yo"],
    )
    told = GAME.describe_choice(state, "ann", point_gift("Rocking Horse"))
    assert (told.can_pay, told.offer, told.missing) == (True, 3, {})
    assert told.rivals == (
        Rival(player="bob", low=4, high=4),
        Rival(player="cid", low=3, high=3, if_face_down_fits=True),
    )
    label = GAME.describe_action(state, "ann", point_gift("Rocking Horse"), NAMES)
    assert label == HINT.join(describe_parts(point_gift("Rocking Horse"), state, "ann", NAMES))
    assert "loses to Bob 4" in label and "ties Cid 3 (if their face-down card fits)" in label


def test_in_speed_mode_a_gift_says_only_whether_the_player_can_pay() -> None:
    state = speed(face_up=[["Metal", "Metal"], [], []], middle_gifts=["Bell", "Mittens", "Scarf"])
    told = GAME.describe_choice(state, "ann", point_gift("Bell"))
    assert (told.can_pay, told.offer, told.rivals) == (True, None, ())
    assert describe_parts(point_gift("Bell"), state, "ann")[1] == "you can pay"


def test_a_face_down_material_says_where_it_lands() -> None:
    state = build(face_down=["Gold", None, None])
    keep, up = PointMaterial(slot=1), PointMaterial(slot=1, face_down=False)
    assert GAME.describe_choice(state, "ann", keep).note == "goes_face_up"
    assert GAME.describe_choice(state, "bob", keep).note == "keep_face_down"
    assert GAME.describe_choice(state, "bob", up).note == "take_face_up"
    told = GAME.describe_choice(state, "bob", keep)
    assert (told.target, told.gives, told.card) == ("material:1", {"material": 1}, None)
    assert GAME.describe_action(state, "bob", keep) == (
        "Point at face-down material 2: keep it face down"
    )
    # asked after the reveal: the action alone (no note but the one the action carries)
    after = state.model_copy(update={"phase": "pick"})
    assert GAME.describe_choice(after, "bob", keep).note is None
    assert GAME.describe_choice(after, "bob", up).note == "take_face_up"
    assert GAME.describe_action(after, "bob", keep) == "Point at face-down material 2"


def test_the_timer_closes_a_race() -> None:
    state = speed()
    assert GAME.describe_choice(state, TIMER, ClosePointPhase()).target == "timer"


def test_every_choice_along_random_games_has_facts_and_the_label_is_made_from_them() -> None:
    rng = Rng(3)
    de = i18n.words("de")
    for mode in ("tactical", "speed"):
        state = GAME.new_game(("ann", "bob", "cid"), 7, GAME.parse_options({"mode": mode}))
        steps = 0
        while GAME.outcome(state) is None and steps < 400:
            steps += 1
            actors = sorted(GAME.to_act(state)) or [TIMER]
            player = rng.choice(actors)
            legal = GAME.legal_actions(state, player)
            for action in legal:
                told = GAME.describe_choice(state, player, action)
                assert told.kind == action.kind and TARGET.fullmatch(told.target), told
                assert ChoiceFacts.model_validate_json(told.model_dump_json()) == told
                for words in (None, de):
                    kw = {"words": words} if words else {}
                    label, hint = describe_parts(action, state, player, NAMES, **kw)
                    whole = GAME.describe_action(state, player, action, NAMES, **kw)
                    assert whole == (label + HINT + hint if hint else label)
                    assert (hint != "") == (told.can_pay is not None)
            if not legal:
                state, _ = GAME.apply(state, TIMER, ClosePointPhase())
                continue
            state, _ = GAME.apply(state, player, rng.choice(legal))


# --------------------------------------------------------------------------- the phase API


def test_the_phase_and_who_still_chooses() -> None:
    state = GAME.new_game(("ann", "bob", "cid"), 1, GAME.parse_options({"mode": "speed"}))
    assert (phase_of(state), is_race(state)) == ("pick", False)
    assert still_choosing(state) == GAME.to_act(state) == {"ann", "bob", "cid"}
    assert have_chosen(state) == frozenset() and chosen_action(state, "ann") is None
    ann = GAME.legal_actions(state, "ann")[0]
    state, _ = GAME.apply(state, "ann", ann)
    assert still_choosing(state) == {"bob", "cid"} and have_chosen(state) == {"ann"}
    assert chosen_action(state, "ann") == ann and chosen_action(state, "bob") is None
    assert chosen_action(state, "nobody") is None
    view = GAME.view(state, None)
    assert {s.player for s in view.seats if s.chosen} == have_chosen(state)
    assert {s.player for s in view.seats if s.to_act} == still_choosing(state)
    state, _ = run(state, [(p, GAME.legal_actions(state, p)[0]) for p in ("bob", "cid")])
    assert (phase_of(state), is_race(state)) == ("race", True)
    tactical = build()
    assert (phase_of(tactical), is_race(tactical)) == ("point", False)
    gift_point = PointGift(gift=next(g for g in tactical.middle_gifts if g is not None))
    tactical, _ = GAME.apply(tactical, "bob", gift_point)
    assert chosen_action(tactical, "bob") == gift_point
    material = PointMaterial(slot=0, face_down=False)
    tactical, _ = GAME.apply(tactical, "bob", material)  # changed: the last choice counts
    assert chosen_action(tactical, "bob") == material
    over = tactical.model_copy(update={"phase": "over", "end_reason": "gift_stack_empty"})
    assert phase_of(over) == "over"
    assert still_choosing(over) == have_chosen(over) == frozenset()
    assert chosen_action(over, "bob") is None


def test_a_choice_for_a_closed_phase_is_refused_with_a_rule_error() -> None:
    state = build(phase="point")
    still_open(state.round, "point")(state)  # open: nothing to say
    with pytest.raises(PhaseClosed) as closed:
        still_open(state.round, "pick")(state)
    assert str(closed.value) == (
        f"The picks of round {state.round} have already been revealed; that choice was not counted."
    )
    with pytest.raises(PhaseClosed) as closed:
        still_open(state.round - 1, "point")(state)
    assert closed.value.text(i18n.words("de")) == (
        f"Das Zeigen der Runde {state.round - 1} ist schon aufgedeckt; diese Wahl zählt nicht mehr."
    )
    over = state.model_copy(update={"phase": "over", "end_reason": "gift_stack_empty"})
    with pytest.raises(GameOver):
        still_open(state.round, "point")(over)
