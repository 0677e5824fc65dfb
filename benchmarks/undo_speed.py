"""What undo costs (``engine/undo.py``, ``storage/undo.py``).

    python benchmarks/undo_speed.py                 # 5-player Santa's Workshop games
    python benchmarks/undo_speed.py --games 3 --undos 20

Prints, in one run:
  * replaying a whole stored game: the engine's plain replay (parse + apply) against
    ``engine.undo.History`` (the same, judging every step for the undo window), per
    game: what a process pays once per game for its first panel (and ``storage check``
    per game);
  * on SQLite: the panel's question (``undo_window``) cold (a new process: the game
    replayed from its log), and warm (the step just submitted recorded in memory, no
    read), and ``undo`` itself (p50 / p99, a place-then-take-back loop).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import storage
from engine import get_game
from engine.core import Rng
from engine.records import random_playout
from engine.undo import History
from engine.workshop.models import PlaceElf

GAME = get_game("workshop")
PLAYERS = [str(100 + n) for n in range(5)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def replay_figures(games: int) -> None:
    plain_times, history_times, actions = [], [], 0
    for seed in range(games):
        _state, record = random_playout(GAME, PLAYERS, seed)
        steps = [(a.player, a.action) for a in record.actions]
        actions += len(steps)
        options = GAME.parse_options(None)
        start = time.perf_counter()
        state = GAME.new_game(PLAYERS, seed, options)
        for player, action in steps:
            state, _ = GAME.apply(state, player, GAME.parse_action(action))
        plain_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        history = History(GAME, GAME.new_game(PLAYERS, seed, options))
        for seq, (player, action) in enumerate(steps, start=1):
            history.apply_logged(seq, player, action)
        history_times.append(time.perf_counter() - start)
        assert history.state == state
    print(f"replay of a whole game ({actions // games} actions on average, {games} games):")
    print(f"  plain replay              {ms(statistics.mean(plain_times))} per game")
    print(f"  engine.undo.History       {ms(statistics.mean(history_times))} per game")


async def storage_figures(undos: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.db"
        async with await storage.open(url) as store:
            game = await store.create_lobby(
                guild_id=1, channel_id=1, kind="workshop", options=None, host_id=100, host_name="A"
            )
            for n in range(1, 5):
                game = await store.join(game.id, 100 + n, f"P{n}")
            game = await store.start(game.id, seed=1)
            # most of a game played, so that a cold replay has a long log to read; then a
            # turn whose first decision (an Elf on the Assembly Hall) can be taken back
            assembly = PlaceElf(station="assembly")
            state, version, rng = game.state, 0, Rng(7)
            while GAME.outcome(state) is None:
                (player,) = GAME.to_act(state)
                legal = GAME.legal_actions(state, player)
                if version >= 100 and assembly in legal and state.phase == 0:
                    after, _ = GAME.apply(state, player, assembly)
                    if GAME.to_act(after) == {player}:
                        break
                action = rng.choice(legal)
                state, _events, version = await store.submit(game.id, player, action, version)
            else:
                print("  (no turn found to take back: no storage figures)")
                return
        async with await storage.open(url) as store:
            start = time.perf_counter()
            await store.undo_window(game.id, player)
            cold = time.perf_counter() - start
            latencies, warm = [], []
            for _ in range(undos):
                _state, _events, version = await store.submit(game.id, player, assembly, version)
                start = time.perf_counter()
                window = await store.undo_window(game.id, player, version)
                warm.append(time.perf_counter() - start)
                assert window == 1
                start = time.perf_counter()
                _state, _events, version = await store.undo(game.id, player, version)
                latencies.append(time.perf_counter() - start)
            assert all(report.ok for report in await store.check_all())
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"SQLite, a 5-player game, {undos} place-and-undo rounds (now version {version}):")
    print(f"  undo_window cold (replay from the log)   {ms(cold)}")
    print(f"  undo_window warm (no read)               {statistics.median(warm) * 1e6:.1f} µs p50")
    print(
        f"  undo p50 / p99                           {ms(latencies[len(latencies) // 2])}"
        f" / {ms(p99)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games replayed")
    parser.add_argument("--undos", type=int, default=100, help="place-and-undo rounds")
    args = parser.parse_args()
    replay_figures(args.games)
    asyncio.run(storage_figures(args.undos))


if __name__ == "__main__":
    main()
