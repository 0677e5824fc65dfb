"""Strength and speed of the computer players.

    python benchmarks/ai_strength.py --games 200
    python benchmarks/ai_strength.py --games 40 --lines greedy-random --game tonttu
    python benchmarks/ai_strength.py --games 100 --start 100 --lines strong-greedy  # 2nd half
    python benchmarks/ai_strength.py --games 800 --jobs 2 --game tonttu --lines strong-greedy

Each line plays ``--games`` seeded 4-player games of one level against three
seats of another; the tested seat moves round the table (game i puts it at
seat i mod 4). A shared win counts as a fraction. ``--jobs N`` plays a line's games in
N processes (the figures are the same as in one, apart from the times: processes on
cores of their own share the caches); ``--start`` picks the first game, so a long line
can also be split across runs or machines (add their ``wins``). Decision times are measured
for every decision with more than one legal action (median and p95, ms), both as
wall time and as this process's CPU time (on a busy machine the wall time also
counts waiting for a core). Each line also prints the win rate's 95 % Wilson
interval, the tested seat's mean score margin over the best other seat (a less
noisy figure for comparing two versions on the same seeds), and the ``strong``
budget used; ``--actions`` / ``--candidates`` / ``--horizon`` / ``--epsilon``
override that budget for calibration.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import itertools
import json
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import get_game
from engine.ai import DEFAULT_BUDGETS, Budget
from engine.ai.match import play_match
from engine.core import derive_seed

LINES = {
    "greedy-random": ("greedy", "random"),
    "strong-greedy": ("strong", "greedy"),
}


@dataclasses.dataclass
class Tally:
    """What some games of a line add up to (:func:`play_games`)."""

    wins: float = 0.0
    margins: float = 0.0
    times: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    cpu_times: dict[str, list[float]] = dataclasses.field(default_factory=dict)

    def add(self, other: Tally) -> None:
        self.wins += other.wins
        self.margins += other.margins
        for mine, theirs in ((self.times, other.times), (self.cpu_times, other.cpu_times)):
            for level, values in theirs.items():
                mine.setdefault(level, []).extend(values)


def play_games(
    game_name: str,
    tested: str,
    others: str,
    indices: range,
    seed: int,
    mode: str | None,
    budget: Budget,
    progress: int = 0,
) -> Tally:
    """The seeded games ``indices`` of one line, the tested seat at seat ``index % 4``."""
    game = get_game(game_name)
    options = {"mode": mode} if mode else {}
    tally = Tally()

    def note(level: str, seconds: float, cpu: float) -> None:
        tally.times.setdefault(level, []).append(seconds)
        tally.cpu_times.setdefault(level, []).append(cpu)

    for done, index in enumerate(indices, 1):
        position = index % 4
        levels = [others] * 4
        levels[position] = tested
        game_seed = derive_seed(seed, game_name, mode or "", tested, others, index)
        _state, record = play_match(
            game,
            levels,
            game_seed,
            options,
            budgets={game_name: budget},
            on_decision=note,
        )
        winners = (record.outcome or {}).get("winners", [])
        if f"p{position + 1}" in winners:
            tally.wins += 1 / len(winners)
        scores = dict((record.outcome or {}).get("scores", {}))
        mine = scores.pop(f"p{position + 1}", 0)
        tally.margins += mine - max(scores.values(), default=0)
        if progress and done % progress == 0 and done < len(indices):
            partial = {
                "line": f"{tested} vs 3 {others}",
                "first_game": indices.start,
                "games_so_far": done,
                "wins": tally.wins,
            }
            print(json.dumps({"game": game_name, **partial}), file=sys.stderr, flush=True)
    return tally


def run_line(
    game_name: str,
    tested: str,
    others: str,
    games: int,
    seed: int,
    mode: str | None,
    start: int = 0,
    progress: int = 0,
    budget: Budget | None = None,
    jobs: int = 1,
) -> dict[str, object]:
    budget = budget or DEFAULT_BUDGETS[game_name]
    started = time.perf_counter()
    jobs = max(1, min(jobs, games))
    # contiguous slices, so each process's progress lines name a range of games
    cuts = [start + games * k // jobs for k in range(jobs + 1)]
    parts = [range(a, b) for a, b in itertools.pairwise(cuts)]
    args = (game_name, tested, others)
    if jobs == 1:
        tally = play_games(*args, parts[0], seed, mode, budget, progress)
    else:
        tally = Tally()
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            futures = [
                pool.submit(play_games, *args, part, seed, mode, budget, progress) for part in parts
            ]
            for future in futures:
                tally.add(future.result())
    wins = tally.wins
    figures: dict[str, object] = {
        "game": game_name + (f" ({mode})" if mode else ""),
        "line": f"{tested} vs 3 {others}",
        "games": games,
        "first_game": start,
        "wins": wins,
        "win_rate": round(wins / games, 3),
        "win_rate_95ci": [round(v, 3) for v in wilson(wins, games)],
        "mean_margin": round(tally.margins / games, 2),
        "seconds": round(time.perf_counter() - started, 1),
        "jobs": jobs,
    }
    if tested == "strong" or others == "strong":
        figures["strong_budget"] = dataclasses.asdict(budget)
    for level, values in sorted(tally.times.items()):
        figures[f"{level}_decisions"] = len(values)
        for label, series in (("ms", values), ("cpu_ms", tally.cpu_times[level])):
            series.sort()
            figures[f"{level}_{label}_median"] = round(statistics.median(series) * 1000, 2)
            p95 = series[int(0.95 * (len(series) - 1))]
            figures[f"{level}_{label}_p95"] = round(p95 * 1000, 2)
    return figures


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate (shared wins count as fractions)."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    denominator = 1 + z * z / games
    return (max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--game", choices=["workshop", "tonttu", "both"], default="both")
    parser.add_argument("--lines", default="greedy-random,strong-greedy")
    parser.add_argument("--tonttu-mode", choices=["tactical", "speed"], default="tactical")
    parser.add_argument(
        "--start", type=int, default=0, help="index of the first game (to split a line)"
    )
    parser.add_argument("--progress", type=int, default=0, help="print a partial count every N")
    parser.add_argument("--jobs", type=int, default=1, help="play each line's games in N processes")
    parser.add_argument("--actions", type=int, help="override the strong budget's actions")
    parser.add_argument("--candidates", type=int, help="override the strong budget's candidates")
    parser.add_argument("--horizon", type=int, help="override the strong budget's horizon")
    parser.add_argument("--epsilon", type=float, help="override the strong budget's epsilon")
    parser.add_argument(
        "--halving", type=int, choices=[0, 1], help="override the strong budget's halving"
    )
    args = parser.parse_args()
    overrides = {
        name: getattr(args, name)
        for name in ("actions", "candidates", "horizon", "epsilon", "halving")
        if getattr(args, name) is not None
    }
    games = ["workshop", "tonttu"] if args.game == "both" else [args.game]
    for line in args.lines.split(","):
        tested, others = LINES[line]
        for game_name in games:
            mode = args.tonttu_mode if game_name == "tonttu" else None
            budget = dataclasses.replace(DEFAULT_BUDGETS[game_name], **overrides)
            figures = run_line(
                game_name,
                tested,
                others,
                args.games,
                args.seed,
                mode,
                args.start,
                args.progress,
                budget,
                args.jobs,
            )
            print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
