"""Engine speed: complete random games per second and microseconds per ``apply``.

    python benchmarks/engine_speed.py [--games 200] [--seed 1] [--game NAME ...]

Game-neutral: it loops over the registry (``engine.GAME_MODULES``), skips games whose
module is not present yet, and measures every player count each game allows with
``engine.__main__.bench`` (one core, uniformly random legal actions). Prints one JSON
line per game and player count, then a small table. Figures are noisy on a shared
machine; run it once or twice, not in a loop.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import GAME_MODULES, get_game
from engine.__main__ import bench
from engine.core import Game


def available_games(names: list[str] | None) -> list[Game]:
    games = []
    for name in names or list(GAME_MODULES):
        try:
            games.append(get_game(name))
        except ModuleNotFoundError as error:
            if error.name and GAME_MODULES.get(name, "").startswith(error.name):
                print(f"# {name}: module {GAME_MODULES[name]} not present, skipped")
                continue
            raise
    return games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for game in available_games(args.game):
        for players in range(game.min_players, game.max_players + 1):
            figures = bench(game, players, args.games, args.seed)
            rows.append(figures)
            print(json.dumps(figures), flush=True)
    print(f"\n{'game':<10} {'players':>7} {'games/s':>9} {'us/apply':>9} {'actions/game':>13}")
    for r in rows:
        print(
            f"{r['game']:<10} {r['players']:>7} {r['games_per_second']:>9} "
            f"{r['us_per_apply']:>9} {r['actions_per_game']:>13}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
