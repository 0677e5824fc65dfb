"""Rule errors name their input (as python-chess's ``illegal san: 'Nf3' in <position>``):
the action and the player that ``apply``, ``check_action`` and ``check_can_act``
refused, in ``repr(error)`` and ``error.detail``, while ``str(error)`` and
``error.text(words)`` stay the sentence a player is shown."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core import (
    TIMER,
    GameOver,
    IllegalAction,
    Model,
    NotInGame,
    NotYourTurn,
    RuleError,
    check_action,
    check_can_act,
)
from engine.tonttu import GAME as TONTTU
from engine.tonttu.models import PointGift
from engine.tonttu.rules import advance
from engine.words import ENGLISH
from engine.workshop import GAME as WORKSHOP
from engine.workshop.models import Phase, PlaceElf, TakeToy


def names_its_input(error: RuleError, action: Any, player: str | None) -> None:
    """``error`` names ``action`` (and ``player``, if given) in its attributes, its
    ``repr`` and its ``detail``, after which the detail still says the sentence."""
    assert error.action == action or error.action is action
    assert repr(action) in repr(error) and repr(action) in error.detail
    assert f"action={action!r}" in repr(error)
    if player is not None:
        assert error.player == player
        assert f"player={player!r}" in repr(error) and f"player {player!r}" in error.detail
    assert error.detail.endswith(str(error))
    assert error.text(ENGLISH) == str(error)
    assert repr(action) not in str(error) or isinstance(action, str | dict)


def workshop_game() -> tuple[Any, str, str]:
    state = WORKSHOP.new_game(["p1", "p2"], 5, WORKSHOP.parse_options(None))
    (acting,) = WORKSHOP.to_act(state)
    waiting = next(p for p in state.players if p != acting)
    return state, acting, waiting


def test_a_workshop_move_out_of_turn_names_the_action_and_the_player() -> None:
    state, acting, waiting = workshop_game()
    action = WORKSHOP.legal_actions(state, acting)[0]
    with pytest.raises(NotYourTurn) as caught:
        WORKSHOP.apply(state, waiting, action)
    assert str(caught.value) == "It is not your turn."
    names_its_input(caught.value, action, waiting)
    assert caught.value.detail == f"action {action!r} by player {waiting!r}: It is not your turn."
    with pytest.raises(NotInGame) as stranger:
        WORKSHOP.apply(state, "p9", action)
    assert str(stranger.value) == "You are not playing in this game."
    names_its_input(stranger.value, action, "p9")
    with pytest.raises(IllegalAction) as timer:
        WORKSHOP.apply(state, TIMER, action)
    names_its_input(timer.value, action, TIMER)


@pytest.mark.parametrize(
    "junk",
    [None, {"kind": "place_elf", "station": "assembly"}, "place_elf", PlaceElf.model_construct()],
)
def test_a_workshop_junk_action_is_named_as_it_was_handed_over(junk: Any) -> None:
    state, acting, _waiting = workshop_game()
    with pytest.raises(IllegalAction) as caught:
        WORKSHOP.apply(state, acting, junk)
    assert caught.value.action is junk and caught.value.player == acting
    assert f"action={junk!r}, player={acting!r})" in repr(caught.value)
    assert caught.value.detail.startswith(f"action {junk!r} by player {acting!r}: That is not")


def test_a_workshop_move_the_rules_refuse_names_the_action_and_the_player() -> None:
    state, acting, _waiting = workshop_game()
    refused = TakeToy(slot=0)  # well formed, but an Elf must be placed first
    assert refused not in WORKSHOP.legal_actions(state, acting)
    with pytest.raises(IllegalAction) as caught:
        WORKSHOP.apply(state, acting, refused)
    assert str(caught.value).startswith("That is not possible now: you must")
    names_its_input(caught.value, refused, acting)


def test_a_workshop_game_over_names_the_player() -> None:
    state, acting, _waiting = workshop_game()
    over = state.model_copy(update={"phase": Phase.OVER})
    with pytest.raises(GameOver) as caught:
        check_can_act(WORKSHOP, over, acting)
    assert caught.value.player == acting and caught.value.action is None
    assert caught.value.detail == f"player {acting!r}: The game is over; no more moves can be made."


def test_parse_action_names_what_it_could_not_read() -> None:
    for game in (WORKSHOP, TONTTU):
        with pytest.raises(IllegalAction) as caught:
            game.parse_action('{"kind": "fly"}')
        assert caught.value.action == '{"kind": "fly"}'
        assert """action='{"kind": "fly"}'""" in repr(caught.value)


def tonttu_game() -> Any:
    return TONTTU.new_game(["a", "b", "c"], 3, TONTTU.parse_options({"mode": "tactical"}))


def test_tonttu_refusals_name_the_action_and_the_player() -> None:
    state = tonttu_game()
    point = PointGift(gift=state.middle_gifts[0])
    with pytest.raises(IllegalAction) as caught:  # the pick phase: a point is no pick
        TONTTU.apply(state, "b", point)
    assert str(caught.value) == "It is the pick phase: choose one of your hand cards."
    names_its_input(caught.value, point, "b")
    with pytest.raises(NotInGame) as stranger:
        advance(state, "z", point)  # the computer players' path names it too
    names_its_input(stranger.value, point, "z")
    pick = TONTTU.legal_actions(state, "a")[0]
    with pytest.raises(IllegalAction) as timer:
        TONTTU.apply(state, TIMER, pick)
    names_its_input(timer.value, pick, TIMER)
    with pytest.raises(IllegalAction) as junk:
        TONTTU.apply(state, "a", {"kind": "pick", "material": "Wood"})
    assert junk.value.action == {"kind": "pick", "material": "Wood"}
    assert junk.value.player == "a"


def test_check_action_names_the_action() -> None:
    class Go(Model):
        steps: int

    with pytest.raises(IllegalAction) as caught:
        check_action({"steps": 2}, [Go], "Demo")
    assert caught.value.action == {"steps": 2} and caught.value.player is None
    assert repr(caught.value) == (
        "IllegalAction('That is not a move in Demo: a dict is not one of its actions.', "
        "action={'steps': 2})"
    )
    bad = Go.model_construct(steps="far")
    with pytest.raises(IllegalAction) as malformed:
        check_action(bad, [Go], "Demo")
    assert malformed.value.action is bad and "steps='far'" in malformed.value.detail


def test_naming_keeps_what_was_named_first_and_the_order_of_a_sentence() -> None:
    error = NotYourTurn("It is not your turn.")
    assert repr(error) == "NotYourTurn('It is not your turn.')"
    assert error.detail == "It is not your turn." and error.action is None
    error.naming(game_id=4).naming(player="p1", version=2).naming(action=None, player="p2")
    assert error.inputs == {"action": None, "player": "p1", "version": 2, "game_id": 4}
    assert (
        error.detail == "action None by player 'p1' at version 2 of game #4: It is not your turn."
    )
    assert str(error) == "It is not your turn." and error.args == ("It is not your turn.",)
    long = IllegalAction("No.").naming(action="x" * 1000)
    assert len(long.detail) < 400 and long.detail.endswith(": No.")
