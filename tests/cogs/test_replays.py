"""cogs.replays: a replay stepped through in any order shows the same states as
replaying the record from its seed each time (the kept position is only a shortcut)."""

from __future__ import annotations

import pytest

from cogs.replays import Replayed, clamp
from engine import get_game
from engine.records import random_playout, replay


@pytest.mark.parametrize(("kind", "players"), [("workshop", 3), ("tonttu", 4)])
def test_stepping_in_any_order_gives_the_states_of_a_fresh_replay(kind: str, players: int) -> None:
    game = get_game(kind)
    _final, record = random_playout(game, [f"p{n}" for n in range(players)], seed=17)
    moves = len(record.actions)
    replayed = Replayed(record, [])
    for move in [moves, 0, 1, 2, 40, 39, 41, moves - 1, moves, 3, 3]:
        got = replayed.state_at(move)
        assert got.model_dump() == replay(game, record, upto=move).model_dump(), move


def test_a_move_out_of_range_is_clamped() -> None:
    assert [clamp(m, 10) for m in (-5, 0, 7, 10, 11, 10**9)] == [0, 0, 7, 10, 10, 10]
