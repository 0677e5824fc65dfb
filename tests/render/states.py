"""The fixed positions the picture tests draw, each a seed and seeded random moves.

Every position is reached by replaying random legal moves drawn from a seeded RNG
(``engine.records.pick_random``), so it is the same on every machine as long as the
rules are; ``make_golden.py`` draws them into ``golden/``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.core import Rng
from engine.records import pick_random
from engine.tonttu import GAME as TONTTU
from engine.workshop import GAME as WORKSHOP

NAMES = ("Aino", "Bertil", "Chiara", "Dmitri", "Esperanza", "Fatou")

Stop = Callable[[Any, Sequence[Any]], bool]
"""Stop after the move that made (state, events) true."""


def players(n: int) -> list[str]:
    return [f"p{k + 1}" for k in range(n)]


def names(n: int) -> dict[str, str]:
    return dict(zip(players(n), NAMES[:n], strict=False))


def advance(game: Any, state: Any, seed: int, *, moves: int = 0, stop: Stop | None = None) -> Any:
    """``moves`` random moves, then more until ``stop`` holds (or the game ends)."""
    rng = Rng(seed)
    done = 0
    while game.outcome(state) is None:
        if done >= moves and stop is None:
            break
        player, action = pick_random(game, state, rng)
        state, events = game.apply(state, player, action)
        done += 1
        if done >= moves and stop is not None and stop(state, events):
            break
    return state


def workshop(n: int, moves: int, seed: int = 7) -> Any:
    state = WORKSHOP.new_game(players(n), seed, WORKSHOP.parse_options({}))
    return advance(WORKSHOP, state, seed, moves=moves)


def workshop_end(n: int, seed: int = 7) -> Any:
    state = WORKSHOP.new_game(players(n), seed, WORKSHOP.parse_options({}))
    return advance(WORKSHOP, state, seed, stop=lambda s, e: False)


def tonttu_state(n: int, seed: int = 11) -> Any:
    return TONTTU.new_game(players(n), seed, TONTTU.parse_options({}))


def mid_pick(state: Any, events: Sequence[Any]) -> bool:
    """T-2.1: some players have picked in secret, others have not yet."""
    chosen = sum(c is not None for c in state.choices)
    return state.phase == "pick" and 0 < chosen < len(state.players)


def gift_won(state: Any, events: Sequence[Any]) -> bool:
    """T-3: the points were just revealed and someone won a gift."""
    return any(
        e.kind == "points_revealed" and any(g.result == "won" for g in e.gifts) for e in events
    )


POSITIONS: dict[str, Callable[[], tuple[Any, Any]]] = {
    "workshop-2p-start": lambda: (WORKSHOP, workshop(2, 0)),
    "workshop-2p-mid": lambda: (WORKSHOP, workshop(2, 70)),
    "workshop-2p-end": lambda: (WORKSHOP, workshop_end(2)),
    "workshop-5p-start": lambda: (WORKSHOP, workshop(5, 0)),
    "workshop-5p-mid": lambda: (WORKSHOP, workshop(5, 130)),
    "workshop-5p-end": lambda: (WORKSHOP, workshop_end(5)),
    "tonttu-3p-pick": lambda: (
        TONTTU,
        advance(TONTTU, tonttu_state(3), 11, moves=20, stop=mid_pick),
    ),
    "tonttu-3p-reveal": lambda: (
        TONTTU,
        advance(TONTTU, tonttu_state(3), 11, moves=10, stop=gift_won),
    ),
    "tonttu-6p-pick": lambda: (
        TONTTU,
        advance(TONTTU, tonttu_state(6), 11, moves=40, stop=mid_pick),
    ),
    "tonttu-6p-reveal": lambda: (
        TONTTU,
        advance(TONTTU, tonttu_state(6), 11, moves=40, stop=gift_won),
    ),
}
"""Public boards: Santa's Workshop at the start, mid-game and the end with 2 and 5
players; Workshop Tonttu with 3 and 6 players during a pick and after a reveal."""

PRIVATE = {"workshop-5p-mid": "p2", "tonttu-6p-pick": "p3"}
"""Positions also drawn as one player's private picture (their secrets shown)."""


def finished_timeline(kind: str, n: int, seed: int, options: dict[str, Any] | None = None) -> Any:
    """The score timeline (``engine.timeline``) of a seeded random game played to its end."""
    from engine.records import random_playout
    from engine.timeline import record_timeline

    game = WORKSHOP if kind == "workshop" else TONTTU
    _, record = random_playout(game, players(n), seed, options)
    return record_timeline(game, record)


CHARTS: dict[str, Callable[[], Any]] = {
    "chart-workshop-5p": lambda: finished_timeline("workshop", 5, 2024),
    "chart-workshop-2p": lambda: finished_timeline("workshop", 2, 7),
    "chart-tonttu-6p": lambda: finished_timeline("tonttu", 6, 1224, {"mode": "tactical"}),
}
"""Charts of how a game went (``render/chart.py``), drawn with :func:`names`."""
