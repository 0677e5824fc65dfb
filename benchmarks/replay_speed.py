"""What ``/replay`` and ``/export`` cost, per game, without Discord and storage.

    python benchmarks/replay_speed.py [--games 5] [--repeat 5]

For ``--games`` random games of 5-player Santa's Workshop and of 6-player Workshop
Tonttu (tactical), played to their end with their logs built as storage keeps them:

- ``open``: the state at the last move replayed from the seed (``/replay``'s first
  answer and a step backwards; ``storage.export.state_at``);
- ``step``: one step forwards from the kept position (``cogs.replays.Replayed``), the
  usual click;
- ``draw``: the public picture at the last move, in this process
  (``render.render_board``; the bot draws in its drawing process, the same code);
- ``export``: the finished record built from the log and dumped (``/export``), with
  its size; and the partial record of the game stopped half-way.

Best of ``--repeat`` per game, then the median and the worst over the games, in ms.
Figures are noisy on a shared machine; compare only figures of one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cogs.replays import Replayed  # noqa: E402
from engine import get_game  # noqa: E402
from engine.core import Rng  # noqa: E402
from render import render_board  # noqa: E402
from storage.core import loaded  # noqa: E402
from storage.export import decision_log, dump, finished_record, running_record, state_at  # noqa: E402
from storage.models import GameInfo, LoggedAction, Seat  # noqa: E402

TABLES = {"workshop-5p": ("workshop", 5, {}), "tonttu-6p": ("tonttu", 6, {"mode": "tactical"})}
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def played(kind: str, seats: int, options: dict[str, Any], seed: int) -> tuple[Any, list[Any]]:
    """A random game to its end: (state at every move, log entries)."""
    rules = get_game(kind)
    players = [str(1000 + n) for n in range(seats)]
    state = rules.new_game(players, seed, rules.parse_options(options))
    states, log, rng = [state], [], Rng(seed)
    while rules.outcome(state) is None:
        acting = [p for p in players if p in rules.to_act(state)]
        player = acting[rng.below(len(acting))]
        action = rng.choice(rules.legal_actions(state, player))
        state, events = rules.apply(state, player, action)
        states.append(state)
        log.append(
            LoggedAction(
                len(log) + 1,
                player,
                action.model_dump(mode="json"),
                "[" + ",".join(e.model_dump_json() for e in events) + "]",
                NOW,
            )
        )
    return states, log


def info(kind: str, options: dict[str, Any], seed: int, states: list[Any], status: str) -> Any:
    rules = get_game(kind)
    players = states[0].players
    outcome = rules.outcome(states[-1])
    game = GameInfo(
        id=1,
        guild_id=1,
        channel_id=1,
        thread_id=None,
        host_id=1000,
        kind=kind,
        options=options,
        seed=seed,
        status=status,  # type: ignore[arg-type]
        version=len(states) - 1,
        seats=tuple(Seat(p, f"Player {n}", int(p)) for n, p in enumerate(players)),
        messages={},
        shown_versions={},
        settings={},
        result=None if outcome is None else outcome.model_dump(mode="json"),
        created_at=NOW,
        updated_at=NOW,
        started_at=NOW,
        finished_at=NOW,
    )
    return loaded(game, states[-1])


def best_ms(work: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return min(times)


def export(game: Any, log: list[LoggedAction]) -> bytes:
    return dump(finished_record(game, log))


def measure(table: str, games: int, repeat: int) -> None:
    kind, seats, options = TABLES[table]
    rows: dict[str, list[float]] = {k: [] for k in ("open", "step", "draw", "export")}
    sizes, partial_sizes, moves = [], [], []
    for seed in range(1, games + 1):
        states, log = played(kind, seats, options, seed)
        finished = info(kind, options, seed, states, "finished")
        record = finished_record(finished, log)
        last = len(record.actions)
        moves.append(last)
        rows["open"].append(best_ms(partial(state_at, record, last), repeat))
        replayed = Replayed(record, decision_log(log))

        def step(replayed: Replayed = replayed, before: Any = states[-2], last: int = last) -> None:
            replayed.position = (last - 1, before)  # shown just before: the usual click
            replayed.state_at(last)

        rows["step"].append(best_ms(step, repeat))
        view = get_game(kind).view(states[-1], None)
        rows["draw"].append(best_ms(partial(render_board, view, finished.names), repeat))
        rows["export"].append(best_ms(partial(export, finished, log), repeat))
        sizes.append(len(dump(record)) / 1024)
        half = len(log) // 2
        running = info(kind, options, seed, states[: half + 1], "active")
        partial_sizes.append(len(dump(running_record(running, log[:half]))) / 1024)
    figures = ", ".join(
        f"{name} {statistics.median(values):.2f} / {max(values):.2f} ms"
        for name, values in rows.items()
    )
    print(
        f"{table}: {games} games, {statistics.median(moves):.0f} moves (median);"
        f" median / worst: {figures}; record {statistics.median(sizes):.0f} KB,"
        f" running record at half-time {statistics.median(partial_sizes):.0f} KB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for table in TABLES:
        measure(table, args.games, args.repeat)


if __name__ == "__main__":
    main()
