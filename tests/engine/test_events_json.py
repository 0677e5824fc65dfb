"""The log's events parsed straight from their JSON (``engine.undo.parse_events_json``):
the same models as decoding the JSON and parsing each event, for every kind of event
that random games of both kinds make, and for an undo's ``TookBack``."""

from __future__ import annotations

import json

import pytest

from engine import get_game
from engine.core import Rng
from engine.records import pick_random
from engine.undo import TookBack, parse_event, parse_events_json

PLAYERS = {"workshop": ["a", "b", "c"], "tonttu": ["a", "b", "c", "d"]}


def as_logged(events: list[object]) -> str:
    """The events as the log stores them (``storage.core.dump_events``)."""
    return "[" + ",".join(e.model_dump_json() for e in events) + "]"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("kind", "options"),
    [("workshop", None), ("tonttu", None), ("tonttu", {"mode": "speed"})],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_logged_event_parses_to_the_same_model(
    kind: str, options: dict[str, str] | None, seed: int
) -> None:
    game = get_game(kind)
    state = game.new_game(PLAYERS[kind], seed, game.parse_options(options))
    rng = Rng(seed)
    kinds = set()
    while game.outcome(state) is None:
        player, action = pick_random(game, state, rng)
        state, events = game.apply(state, player, action)
        text = as_logged(list(events))
        parsed = parse_events_json(game, text)
        assert parsed == [parse_event(game, e) for e in json.loads(text)]
        assert parsed == list(events)
        kinds.update(e.kind for e in parsed)
    assert len(kinds) >= 5  # a whole game shows many kinds of event


def test_an_undo_entry_parses_to_its_took_back() -> None:
    game = get_game("workshop")
    took = TookBack(player="a", seq=3, events=[{"kind": "anything", "n": 1}])
    assert parse_events_json(game, as_logged([took])) == [took]
    assert parse_events_json(game, as_logged([took]).encode()) == [took]
