"""Whole games between computer seats (for ``python -m engine simulate --seats`` and benchmarks).

With several seats to act at once (a Tonttu pick or point), the next one to
act is drawn at random in seat order, as in :func:`engine.records.pick_random`;
in speed mode that draw is the arrival order (T-4).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.ai import LEVELS, Budget, choose, remembers
from engine.core import AnyGame, PlayerId, Rng, derive_seed
from engine.records import Record, RecordedAction, dump_outcome

DecisionTimer = Callable[[str, float, float], None]
"""Called with (level, wall seconds, CPU seconds of this process) after every decision
that had a real choice. On a busy machine the wall time includes waiting for a core."""


def parse_seats(text: str) -> list[str]:
    """``"strong,greedy,greedy,random"`` → a list of levels; raises ``ValueError``."""
    seats = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [s for s in seats if s not in LEVELS]
    if not seats:
        raise ValueError("Give one level per seat, e.g. strong,greedy,greedy,random.")
    if unknown:
        raise ValueError(f"Unknown level(s) {', '.join(unknown)}; use {', '.join(LEVELS)}.")
    return seats


def play_match(
    game: AnyGame,
    levels: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    players: Sequence[PlayerId] | None = None,
    budgets: Mapping[str, Budget] | None = None,
    on_decision: DecisionTimer | None = None,
    check_legal: bool = False,
) -> tuple[Any, Record]:
    """Play one game with a computer at each seat; returns the final state and its record."""
    seats = list(players) if players is not None else [f"p{i + 1}" for i in range(len(levels))]
    level_of = dict(zip(seats, levels, strict=True))
    parsed = game.parse_options(options)
    stored = parsed.model_dump(mode="json")
    state = game.new_game(seats, seed, parsed)
    order = Rng(derive_seed(seed, "order"))
    actions: list[RecordedAction] = []
    step = 0
    while game.outcome(state) is None:
        acting = game.to_act(state)
        ready = [p for p in state.players if p in acting]
        player = ready[order.below(len(ready))] if len(ready) > 1 else ready[0]
        level = level_of[player]
        budget = budgets.get(game.name) if budgets else None
        started, cpu_started = time.perf_counter(), time.process_time()
        so_far = None
        if remembers(game, level):  # the game so far
            so_far = Record(
                game=game.name, seed=seed, players=seats, options=stored, actions=actions
            )
        action = choose(game, state, player, level, derive_seed(seed, "move", step), budget, so_far)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        if on_decision is not None and len(game.legal_actions(state, player)) > 1:
            on_decision(level, elapsed, cpu)
        if check_legal and action not in game.legal_actions(state, player):
            raise AssertionError(f"{level} chose an illegal action {action!r} at step {step}.")
        state, _events = game.apply(state, player, action)
        actions.append(RecordedAction(player=player, action=action.model_dump(mode="json")))
        step += 1
    record = Record(
        game=game.name,
        seed=seed,
        players=seats,
        options=stored,
        actions=actions,
        outcome=dump_outcome(game, state),
    )
    return state, record
