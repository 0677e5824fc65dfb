"""The game that teaches itself (``engine.guide``): the one-screen legend of each game
and phase, and the sentence a player gets the first time they meet a decision; the
log's first Inspection and Tonttu's first reveal and end of round explain themselves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import i18n
from engine import get_game
from engine.core import Rng
from engine.guide import (
    FIRST_PICK,
    FIRST_POINT,
    FIRST_RACE,
    FIRST_REINDEER,
    INSPECTION_DAY,
    LAST_DAY,
    first_time,
    legend,
)
from engine.tonttu.text import FIRST_REVEAL, FIRST_ROUND_END
from engine.workshop.models import Inspection
from engine.workshop.text import FIRST_INSPECTION

PLAYERS = ("ann", "bob", "cid")
GERMAN = i18n.words("de")


def positions(kind: str, seed: int = 5, **options: Any) -> Iterator[tuple[Any, str]]:
    """Every (state, player to act) of a random game."""
    game = get_game(kind)
    state = game.new_game(PLAYERS, seed, game.parse_options(options))
    rng = Rng(seed)
    while game.outcome(state) is None:
        acting = sorted(game.to_act(state))
        for player in acting:
            yield state, player
        player = acting[rng.below(len(acting))]
        state, _ = game.apply(state, player, rng.choice(game.legal_actions(state, player)))
    yield state, PLAYERS[0]


def first(kind: str, test: Callable[[Any, Any], bool], **options: Any) -> tuple[Any, Any]:
    """The first (state, view of the player to act) of a random game that passes ``test``."""
    game = get_game(kind)
    for state, player in positions(kind, **options):
        view = game.view(state, player)
        if test(state, view):
            return state, view
    raise AssertionError("no such position")


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
def test_the_legend_fits_one_screen_in_every_phase(kind: str) -> None:
    game = get_game(kind)
    seen = set()
    for state, player in positions(kind):
        for viewer in (player, None):
            text = legend(kind, game.view(state, viewer))
            lines = text.splitlines()
            assert len(lines) <= 34 and max(map(len, lines)) <= 80, text
            seen.add(lines[2])  # what happens now, said for this phase
    assert legend(kind, None).startswith("How to play")
    assert len(seen) >= 3  # the legend changes with the phase


def test_the_workshop_legend_explains_the_board_and_the_scoring() -> None:
    text = legend("workshop", None)
    for needed in (
        "W1/2",  # the toys' token counts
        "Inspections after Day 3 and Day 6",
        "different names",
        "unfinished toys",
        "tree",
        "donated",
        "(*)",
    ):
        assert needed in text, needed
    _, reindeer = first("workshop", lambda s, v: v.pending.decision == "reindeer")
    assert "different names score more" in legend("workshop", reindeer)


def test_the_tonttu_legend_explains_its_symbols_and_the_scoring() -> None:
    text = legend("tonttu", None)
    for needed in ("[1:#]", "Chosen", "(T) Toys", "(C) Clothing", "(D) Decorations"):
        assert needed in text, needed
    assert "Rounds without a gift: after 10 rounds" in text
    assert "1 + 2 + … + n" in text and "+3 for each set" in text
    _, race = first("tonttu", lambda s, v: v.phase == "point", mode="speed")
    assert "a race" in legend("tonttu", race)


def test_an_unknown_game_has_no_legend() -> None:
    with pytest.raises(ValueError):
        legend("chess", None)


def test_a_first_reindeer_and_the_inspection_days_are_explained_once() -> None:
    def reindeer(held: int) -> Callable[[Any, Any], bool]:
        return lambda s, v: (
            v.pending.decision == "reindeer"
            and v.players[[p.player for p in v.players].index(v.viewer)].reindeer_count == held
        )

    _, view = first("workshop", reindeer(0))
    assert first_time("workshop", view) == FIRST_REINDEER
    _, again = first("workshop", reindeer(1))
    assert first_time("workshop", again) == ""
    assert first_time("workshop", again.model_copy(update={"viewer": None})) == ""

    def day(d: int, elves: int) -> Callable[[Any, Any], bool]:
        def test(s: Any, v: Any) -> bool:
            me = next(p for p in v.players if p.player == v.viewer)
            return bool(v.day == d and v.pending.decision == "station" and me.elves_left == elves)

        return test

    assert first_time("workshop", first("workshop", day(3, 3))[1]) == INSPECTION_DAY
    assert first_time("workshop", first("workshop", day(3, 2))[1]) == ""
    assert first_time("workshop", first("workshop", day(6, 3))[1]) == LAST_DAY
    assert first_time("workshop", first("workshop", day(2, 3))[1]) == ""


def test_tonttu_first_pick_point_and_race_are_explained_in_round_one_only() -> None:
    _, pick = first("tonttu", lambda s, v: v.phase == "pick")
    assert first_time("tonttu", pick) == FIRST_PICK
    _, point = first("tonttu", lambda s, v: v.phase == "point")
    assert first_time("tonttu", point) == FIRST_POINT
    _, race = first("tonttu", lambda s, v: v.phase == "point", mode="speed")
    assert first_time("tonttu", race) == FIRST_RACE
    _, later = first("tonttu", lambda s, v: v.round == 2 and v.phase == "pick")
    assert first_time("tonttu", later) == ""
    assert first_time("tonttu", pick.model_copy(update={"viewer": None})) == ""


def test_the_first_inspection_and_tonttu_first_round_explain_themselves() -> None:
    workshop = get_game("workshop")
    one = Inspection(number=1, cheer={"ann": 2, "bob": 0})
    two = one.model_copy(update={"number": 2})
    assert workshop.describe_event(one, {}).endswith(FIRST_INSPECTION)
    assert FIRST_INSPECTION not in workshop.describe_event(two, {})
    tonttu = get_game("tonttu")
    ends: dict[int, str] = {}
    game = tonttu
    state = game.new_game(PLAYERS, 5, game.parse_options({}))
    rng = Rng(5)
    reveals: dict[int, str] = {}
    while game.outcome(state) is None and len(ends) < 3:
        player = sorted(game.to_act(state))[0]
        state, events = game.apply(state, player, rng.choice(game.legal_actions(state, player)))
        for event in events:
            if event.kind == "round_ended":
                ends[event.round] = game.describe_event(event, {})
            if event.kind == "points_revealed":
                reveals[event.round] = game.describe_event(event, {})
    assert ends[1].endswith(FIRST_ROUND_END) and FIRST_ROUND_END not in ends[2]
    assert reveals[1].endswith(FIRST_REVEAL) and FIRST_REVEAL not in reveals[2]


def test_the_first_time_sentences_are_german_in_a_german_game() -> None:
    _, reindeer = first("workshop", lambda s, v: v.pending.decision == "reindeer")
    assert first_time("workshop", reindeer, GERMAN).startswith(
        "Dein erstes Rentier: Am Ende bringen verschiedene Namen 1, 3, 6, 9, 12 … Punkte;"
    )
    _, day3 = first("workshop", lambda s, v: v.day == 3 and v.pending.decision == "station")
    assert first_time("workshop", day3, GERMAN).startswith("Nach diesem Tag inspiziert Santa:")
    _, pick = first("tonttu", lambda s, v: v.phase == "pick")
    assert first_time("tonttu", pick, GERMAN).startswith(
        "Deine erste Wahl: Die Karten auf deinem Werktisch bezahlen Geschenke;"
    )
    _, point = first("tonttu", lambda s, v: v.phase == "point")
    assert first_time("tonttu", point, GERMAN).startswith("Dein erstes Zeigen:")
    _, race = first("tonttu", lambda s, v: v.phase == "point", mode="speed")
    assert first_time("tonttu", race, GERMAN).startswith("Dein erstes Rennen:")
    inspection = Inspection(number=1, cheer={"ann": 2, "bob": 0})
    assert "Santa inspiziert nach Tag 3 und Tag 6:" in get_game("workshop").describe_event(
        inspection, {}, GERMAN
    )
    for sentence in (FIRST_REINDEER, INSPECTION_DAY, LAST_DAY, FIRST_PICK, FIRST_POINT):
        assert GERMAN.gettext(sentence) != sentence  # translated, not English
    for sentence in (FIRST_RACE, FIRST_INSPECTION, FIRST_REVEAL, FIRST_ROUND_END):
        assert GERMAN.gettext(sentence) != sentence
