"""The shared core: RNG determinism, errors as sentences, the purity rule."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import get_game
from engine.core import Rng, RuleError, derive_seed


def test_rng_is_deterministic_and_in_range() -> None:
    a, b = Rng(7), Rng(7)
    draws = [a.below(6) for _ in range(1000)]
    assert draws == [b.below(6) for _ in range(1000)]
    assert set(draws) == set(range(6))


def test_rng_state_is_one_integer_that_resumes_the_sequence() -> None:
    rng = Rng(123)
    rng.below(100)
    resumed = Rng(rng.state)
    assert [resumed.next64() for _ in range(5)] == [rng.next64() for _ in range(5)]


def test_shuffle_is_a_permutation_and_seed_dependent() -> None:
    items = list(range(45))
    first, second = Rng(1).shuffled(items), Rng(2).shuffled(items)
    assert sorted(first) == items and sorted(second) == items
    assert first != second
    assert first == Rng(1).shuffled(items)


def test_shuffle_is_fisher_yates_with_below_and_leaves_the_same_rng_state() -> None:
    """The unrolled shuffle draws exactly what ``below`` would: saved games replay."""
    for seed in range(200):
        for length in (0, 1, 2, 7, 45, 60):
            items = list(range(length))
            reference = Rng(seed)
            expected = list(items)
            for i in range(length - 1, 0, -1):
                j = reference.below(i + 1)
                expected[i], expected[j] = expected[j], expected[i]
            rng = Rng(seed)
            rng.shuffle(items)
            assert items == expected
            assert rng.state == reference.state


def test_below_rejects_non_positive_bound() -> None:
    with pytest.raises(ValueError, match="positive"):
        Rng(1).below(0)


def test_derive_seed_separates_games_in_a_batch() -> None:
    seeds = {derive_seed(1, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert derive_seed(1, "a") == derive_seed(1, "a") != derive_seed(1, "b")


def test_rule_error_is_a_value_error() -> None:
    assert issubclass(RuleError, ValueError)


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="workshop"):
        get_game("chess")


def test_importing_engine_loads_neither_discord_nor_aiosqlite() -> None:
    code = (
        "import sys, engine, engine.core, engine.records, engine.__main__\n"
        "for name in list(engine.GAME_MODULES):\n"
        "    try:\n"
        "        engine.get_game(name)\n"
        "    except ModuleNotFoundError:\n"
        "        pass\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'discord', 'aiosqlite'})\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


@pytest.mark.parametrize("kind", ["workshop", "tonttu"])
def test_every_event_of_a_playout_parses_back_from_its_logged_dict(kind: str) -> None:
    """The bot describes logged events after a restart (``tables/publishing.py``): each
    event read back from the action log's JSON equals the one ``apply`` returned."""
    game = get_game(kind)
    state = game.new_game(["a", "b", "c"], 5, game.parse_options({}))
    rng, kinds = Rng(11), set()
    while game.outcome(state) is None:
        player = sorted(game.to_act(state))[0]
        legal = game.legal_actions(state, player)
        state, events = game.apply(state, player, legal[rng.below(len(legal))])
        for event in events:
            assert game.parse_event(json.loads(event.model_dump_json())) == event
            kinds.add(event.kind)
    assert len(kinds) >= 5  # the playout went through the game's kinds of event


# --------------------------------------------------------------------------- in German


def test_the_shared_refusals_are_templates_with_a_german_translation() -> None:
    from engine.core import GameOver, IllegalAction, NotInGame, NotYourTurn, check_action
    from engine.tonttu.models import Pick
    from i18n import words

    german = words("de")
    game = get_game("tonttu")
    state = game.new_game(["ann", "bob", "cid"], 1, game.parse_options({}))
    with pytest.raises(NotInGame) as not_in:
        game.apply(state, "zed", game.legal_actions(state, "ann")[0])
    assert not_in.value.text(german) == "Du spielst in diesem Spiel nicht mit."
    assert str(NotYourTurn("It is not your turn.")) == "It is not your turn."
    assert NotYourTurn("It is not your turn.").text(german) == "Du bist nicht am Zug."
    over = GameOver("The game is over; no more moves can be made.")
    assert over.text(german) == "Das Spiel ist vorbei; es sind keine Züge mehr möglich."
    with pytest.raises(IllegalAction) as wrong:
        check_action(Pick.model_construct(material=3), [Pick], game.title)
    assert str(wrong.value).startswith("That is not a move in Workshop Tonttu: the material ")
    assert wrong.value.text(german).startswith("Das ist kein Zug in Werkstatt-Tonttu: ")
    with pytest.raises(IllegalAction) as not_an_action:
        check_action({"kind": "pick"}, [Pick], game.title)
    assert str(not_an_action.value) == (
        "That is not a move in Workshop Tonttu: a dict is not one of its actions."
    )
    assert not_an_action.value.text(german) == (
        "Das ist kein Zug in Werkstatt-Tonttu: „a dict“ gehört nicht zu seinen Aktionen."
    )
