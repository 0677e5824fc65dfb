"""Fit :data:`engine.ai.workshop.FUTURE_WEIGHTS`: the points a seat still scores, from a position.

    python -m engine.ai.workshop_fit --games 400

Plays seeded 4-seat Santa's Workshop games with the ``strong`` level's rollout
policy (greedy, a random action with chance ``--epsilon``), takes every third
position, and fits the points each seat scores from there to the end against
:func:`engine.ai.workshop.future_features` by least squares. Prints the weights
and R². Pure and deterministic: no numpy, no clock.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine.ai import rollout_step
from engine.ai.tonttu_fit import print_fit
from engine.ai.workshop import AI, future_features
from engine.core import Rng
from engine.workshop import GAME


def positions(
    games: int, players: int, seed: int, epsilon: float
) -> tuple[list[tuple[float, ...]], list[float]]:
    """(features, points still scored) for every seat of every third position."""
    rows: list[tuple[float, ...]] = []
    targets: list[float] = []
    options = GAME.parse_options({})
    for index in range(games):
        names = [f"p{k}" for k in range(players)]
        state = GAME.new_game(names, seed + index, options)
        rng = Rng(index)
        snapshots = []
        step = 0
        while GAME.outcome(state) is None:
            if step % 3 == 0:
                snapshots.append(state)
            state = rollout_step(GAME, AI, state, rng, epsilon)
            step += 1
        for snapshot in snapshots:
            for seat in range(players):
                rows.append(future_features(snapshot, seat))
                targets.append(float(state.seats[seat].score - snapshot.seats[seat].score))
    return rows, targets


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--epsilon", type=float, default=0.1)
    args = parser.parse_args(argv)
    print_fit(*positions(args.games, args.players, args.seed, args.epsilon))
    return 0


if __name__ == "__main__":
    sys.exit(main())
