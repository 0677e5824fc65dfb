"""Fit :data:`engine.ai.tonttu.FUTURE_WEIGHTS`: the points a seat still scores, from a position.

    python -m engine.ai.tonttu_fit --games 1000

Plays seeded tactical games between greedy seats (the ``strong`` level's rollout
policy), takes every third position, and fits the points each seat scores from
there to the end against :func:`engine.ai.tonttu.future_features` by least
squares. Prints the weights and R². Pure and deterministic: no numpy, no clock.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from engine.ai.tonttu import future_features, greedy_action
from engine.core import Rng
from engine.tonttu import GAME


def positions(games: int, players: int, seed: int) -> tuple[list[tuple[float, ...]], list[float]]:
    """(features, points still scored) for every seat of every third position."""
    rows: list[tuple[float, ...]] = []
    targets: list[float] = []
    options = GAME.parse_options({"mode": "tactical"})
    for index in range(games):
        names = [f"p{k}" for k in range(players)]
        state = GAME.new_game(names, seed + index, options)
        rng = Rng(index)
        snapshots = []
        step = 0
        while GAME.outcome(state) is None:
            if step % 3 == 0:
                snapshots.append(state)
            acting = GAME.to_act(state)
            ready = [p for p in state.players if p in acting]
            player = ready[rng.below(len(ready))]
            legal = GAME.legal_actions(state, player)
            seat = state.players.index(player)
            action = legal[0] if len(legal) == 1 else greedy_action(state, seat, legal, rng)
            state, _events = GAME.apply(state, player, action)
            step += 1
        for snapshot in snapshots:
            for seat in range(players):
                rows.append(future_features(snapshot, seat))
                targets.append(float(state.scores[seat] - snapshot.scores[seat]))
    return rows, targets


def least_squares(rows: Sequence[Sequence[float]], targets: Sequence[float]) -> list[float]:
    """Weights minimising the squared error (normal equations, Gauss-Jordan with pivoting)."""
    n = len(rows[0])
    matrix = [[0.0] * (n + 1) for _ in range(n)]
    for x, y in zip(rows, targets, strict=True):
        for r in range(n):
            matrix[r][n] += x[r] * y
            for c in range(n):
                matrix[r][c] += x[r] * x[c]
    for r in range(n):
        matrix[r][r] += 1e-6  # a feature that never varies must not make it singular
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(matrix[r][c]))
        matrix[c], matrix[pivot] = matrix[pivot], matrix[c]
        for r in range(n):
            if r != c:
                factor = matrix[r][c] / matrix[c][c]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[c], strict=True)]
    return [matrix[r][n] / matrix[r][r] for r in range(n)]


def r_squared(
    rows: Sequence[Sequence[float]], targets: Sequence[float], w: Sequence[float]
) -> float:
    mean = sum(targets) / len(targets)
    total = sum((y - mean) ** 2 for y in targets)
    error = sum(
        (y - sum(a * b for a, b in zip(w, x, strict=True))) ** 2
        for x, y in zip(rows, targets, strict=True)
    )
    return 1 - error / total if total else 0.0


def print_fit(rows: Sequence[Sequence[float]], targets: Sequence[float]) -> None:
    """Fit the weights by least squares and print them with the positions and R² (JSON)."""
    weights = least_squares(rows, targets)
    figures = {
        "positions": len(rows),
        "weights": [round(w, 3) for w in weights],
        "r2": round(r_squared(rows, targets, weights), 3),
    }
    print(json.dumps(figures))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=10_000)
    args = parser.parse_args(argv)
    print_fit(*positions(args.games, args.players, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
